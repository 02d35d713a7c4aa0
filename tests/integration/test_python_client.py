"""The official ``kubernetes`` Python client against a ``serve`` process: create, list, watch, patch,
delete, and the error it raises for a Status."""

from __future__ import annotations

import threading

import pytest
from integration_helpers import Serve

kubernetes = pytest.importorskip("kubernetes", reason="the official kubernetes client is not installed")
from kubernetes import client, watch  # noqa: E402


@pytest.fixture(scope="module")
def server():
    running = Serve("--clock", "manual").start()
    yield running
    running.stop()


@pytest.fixture
def core(server):
    config = client.Configuration()
    config.host = server.url
    api = client.ApiClient(config)
    yield client.CoreV1Api(api)
    api.close()


@pytest.fixture
def apps(server):
    config = client.Configuration()
    config.host = server.url
    api = client.ApiClient(config)
    yield client.AppsV1Api(api)
    api.close()


def pod(name: str, labels: dict | None = None) -> client.V1Pod:
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels=labels or {}),
                        spec=client.V1PodSpec(containers=[client.V1Container(name="app", image="blink:1.0")]))


def test_create_list_patch_delete(core):
    created = core.create_namespaced_pod("default", pod("py-a", {"app": "py"}))
    assert created.metadata.uid and created.status.phase == "Pending"
    core.create_namespaced_pod("default", pod("py-b", {"app": "other"}))
    listed = core.list_namespaced_pod("default", label_selector="app=py")
    assert [p.metadata.name for p in listed.items] == ["py-a"]
    assert int(listed.metadata.resource_version) >= int(created.metadata.resource_version)
    patched = core.patch_namespaced_pod("py-a", "default", {"metadata": {"labels": {"tier": "fe"}}})
    assert patched.metadata.labels == {"app": "py", "tier": "fe"}
    assert int(patched.metadata.resource_version) > int(created.metadata.resource_version)
    core.delete_namespaced_pod("py-a", "default")
    with pytest.raises(client.ApiException) as exc:
        core.read_namespaced_pod("py-a", "default")
    assert exc.value.status == 404
    assert '"reason":"NotFound"' in exc.value.body.replace(" ", "")


def test_conflict_and_already_exists(core):
    first = core.create_namespaced_pod("default", pod("py-c"))
    with pytest.raises(client.ApiException) as exc:
        core.create_namespaced_pod("default", pod("py-c"))
    assert exc.value.status == 409 and "AlreadyExists" in exc.value.body
    core.patch_namespaced_pod("py-c", "default", {"metadata": {"labels": {"v": "2"}}})
    first.metadata.labels = {"v": "stale"}
    with pytest.raises(client.ApiException) as exc:
        core.replace_namespaced_pod("py-c", "default", first)
    assert exc.value.status == 409 and '"reason":"Conflict"' in exc.value.body.replace(" ", "")


def test_watch_sees_changes_after_the_list(core):
    rv = core.list_namespaced_pod("default").metadata.resource_version
    w = watch.Watch()
    events: list[tuple[str, str]] = []

    def consume():
        for event in w.stream(core.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=20):
            events.append((event["type"], event["object"].metadata.name))
            if event["type"] == "DELETED":
                w.stop()

    t = threading.Thread(target=consume)
    t.start()
    core.create_namespaced_pod("default", pod("py-w"))
    core.patch_namespaced_pod("py-w", "default", {"metadata": {"labels": {"x": "y"}}})
    core.delete_namespaced_pod("py-w", "default")
    t.join(30)
    assert not t.is_alive()
    mine = [e for e in events if e[1] == "py-w"]
    assert [e[0] for e in mine][0] == "ADDED" and mine[-1][0] == "DELETED"
    assert "MODIFIED" in [e[0] for e in mine]


def test_deployment_scale_through_the_client(apps):
    body = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-web"),
        spec=client.V1DeploymentSpec(
            replicas=1, selector=client.V1LabelSelector(match_labels={"app": "py-web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "py-web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="w", image="web:1")]))))
    apps.create_namespaced_deployment("default", body)
    scale = apps.patch_namespaced_deployment_scale("py-web", "default", {"spec": {"replicas": 4}})
    assert scale.spec.replicas == 4 and scale.status.selector == "app=py-web"
    assert apps.read_namespaced_deployment("py-web", "default").spec.replicas == 4


def test_the_version_api_answers_the_clients_path(server):
    """VersionApi asks ``/version/`` (with the slash)."""
    config = client.Configuration()
    config.host = server.url
    with client.ApiClient(config) as api:
        info = client.VersionApi(api).get_code()
    assert (info.major, info.minor) == ("1", "33") and info.git_version.startswith("v1.33")


def _plain(answer) -> dict:
    """A delete's answer as JSON: the 2024 client makes a model of it (V1Status, V1Pod), the newest
    declares these answers ``object`` and hands back the JSON itself."""
    return answer if isinstance(answer, dict) else client.ApiClient().sanitize_for_serialization(answer)


def test_deleting_a_deployment_answers_upstreams_status_and_a_pod_the_pod(apps, core):
    """As upstream's registries: a Deployment removed at once answers a Status naming it; a Pod
    answers itself (its registry returns the deleted object)."""
    body = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-gone"),
        spec=client.V1DeploymentSpec(
            replicas=0, selector=client.V1LabelSelector(match_labels={"app": "py-gone"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "py-gone"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="w", image="web:1")]))))
    uid = apps.create_namespaced_deployment("default", body).metadata.uid
    status = _plain(apps.delete_namespaced_deployment("py-gone", "default"))
    assert (status["kind"], status["status"]) == ("Status", "Success"), status
    assert status["details"] == {"name": "py-gone", "group": "apps", "kind": "deployments", "uid": uid}, status
    core.create_namespaced_pod("default", pod("py-d"))
    gone = _plain(core.delete_namespaced_pod("py-d", "default"))
    assert (gone["kind"], gone["metadata"]["name"]) == ("Pod", "py-d"), gone
