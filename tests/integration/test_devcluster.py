"""The reference as a development cluster, as a new user meets it: the README's walkthrough run
verbatim, every kind read by the official client's typed models and by kubectl 1.27 / 1.33, the
kubelet-side verbs answered plainly, and serve's one-line errors."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from integration_helpers import Serve, free_port, kubectl_binary

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
READY = 90.0          # bounds on waiting, not assertions on speed


def readme_block(marker: str) -> list[str]:
    text = (REPO / "README.md").read_text()
    block = re.search(rf"<!-- walkthrough:{marker} -->\s*```bash\n(.*?)```", text, re.S)
    assert block, f"README has no walkthrough:{marker} block"
    return [line for line in block.group(1).splitlines() if line.strip()]


@pytest.mark.kubectl
def test_the_readme_walkthrough_gives_three_ready_boards_a_deployment_and_a_completed_job(tmp_path):
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    work = tmp_path / "clone"
    work.mkdir()
    (work / "reference").symlink_to(REPO / "reference")  # the README's relative example paths
    [serve_line] = readme_block("serve")
    port = free_port()     # the README's default port may be taken on a shared machine
    proc = subprocess.Popen(f"{serve_line} --listen 127.0.0.1:{port}", shell=True, cwd=work, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + READY
        while not (work / "kube32.kubeconfig").exists():
            assert proc.poll() is None, f"serve exited: {proc.stdout.read()}"
            assert time.monotonic() < deadline, "serve wrote no kubeconfig"
            time.sleep(0.2)
        script = "set -e\n" + "\n".join(readme_block("kubectl")) + "\n"
        done = subprocess.run(["bash", "-c", script], cwd=work, env=ENV, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        out = done.stdout
        nodes = [line.split() for line in out.splitlines() if line.startswith("node-")]
        assert [(n[0], n[1]) for n in nodes[:3]] == [("node-0", "Ready"), ("node-1", "Ready"), ("node-2", "Ready")]
        assert 'deployment "web" successfully rolled out' in out
        assert "job.batch/calibrate condition met" in out
        pods = [line.split() for line in out.splitlines() if line.startswith(("web-", "calibrate-"))]
        assert sum(p[2] == "Running" for p in pods if p[0].startswith("web-")) == 2
        assert all(p[2] == "Completed" for p in pods if p[0].startswith("calibrate-"))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """serve with two simulated boards and the examples applied, once the Job has completed."""
    kubeconfig = tmp_path_factory.mktemp("kc") / "kubeconfig"
    running = Serve("--nodes", "2", "--kubeconfig", str(kubeconfig)).start()
    url = running.url
    examples = REPO / "reference" / "examples"
    for name in ("deployment", "daemonset", "job", "service"):
        import yaml

        obj = yaml.safe_load((examples / f"{name}.yaml").read_text())
        group = "api/v1" if obj["apiVersion"] == "v1" else f"apis/{obj['apiVersion']}"
        plural = {"Deployment": "deployments", "DaemonSet": "daemonsets", "Job": "jobs", "Service": "services"}
        resp = requests.post(f"{url}/{group}/namespaces/default/{plural[obj['kind']]}", json=obj, timeout=10)
        assert resp.status_code == 201, resp.text
    deadline = time.monotonic() + READY
    while time.monotonic() < deadline:
        job = requests.get(f"{url}/apis/batch/v1/namespaces/default/jobs/calibrate", timeout=10).json()
        if any(c["type"] == "Complete" and c["status"] == "True" for c in job.get("status", {}).get("conditions", [])):
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"the example Job did not complete: {job.get('status')}")
    while not kubeconfig.exists():
        time.sleep(0.1)
    yield running, kubeconfig
    running.stop()


def test_the_official_clients_typed_models_read_every_kind(cluster):
    kubernetes = pytest.importorskip("kubernetes")
    from kubernetes import client

    running, _ = cluster
    config = client.Configuration()
    config.host = running.url
    api = client.ApiClient(config)
    core, apps, batch = client.CoreV1Api(api), client.AppsV1Api(api), client.BatchV1Api(api)
    listed = {
        "nodes": core.list_node(), "pods": core.list_pod_for_all_namespaces(),
        "services": core.list_service_for_all_namespaces(), "endpoints": core.list_endpoints_for_all_namespaces(),
        "events": core.list_event_for_all_namespaces(), "namespaces": core.list_namespace(),
        "deployments": apps.list_deployment_for_all_namespaces(),
        "daemonsets": apps.list_daemon_set_for_all_namespaces(), "jobs": batch.list_job_for_all_namespaces(),
        "endpointslices": client.DiscoveryV1Api(api).list_endpoint_slice_for_all_namespaces(),
        "leases": client.CoordinationV1Api(api).list_lease_for_all_namespaces(),
    }
    for kind, result in listed.items():
        assert result.items, f"no {kind} to read (the cluster should have some): {kubernetes.__version__}"
    node = listed["nodes"].items[0]
    assert node.status.node_info.machine_id and node.status.node_info.kubelet_version
    running_pod = next(p for p in listed["pods"].items if p.status.phase == "Running")
    assert running_pod.status.container_statuses[0].image_id == ""
    api.close()


@pytest.mark.kubectl
@pytest.mark.parametrize("version", ["kubectl.1.27", "kubectl.1.33"])
def test_kubectl_reads_every_kind_as_yaml(cluster, version, tmp_path):
    binary = kubectl_binary(version)
    if binary is None:
        pytest.skip(f"{version} is not installed")
    _, kubeconfig = cluster
    env = {**ENV, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path)}
    for kind in ("nodes", "pods", "deployments", "daemonsets", "jobs", "services", "endpoints",
                 "endpointslices", "events", "leases"):
        done = subprocess.run([binary, "get", kind, "-A", "-o", "yaml"], env=env, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, f"{version} get {kind}: {done.stderr}"
        assert "items:" in done.stdout and "- apiVersion:" in done.stdout, f"{version} get {kind}: nothing listed"


@pytest.mark.kubectl
@pytest.mark.parametrize("version", ["kubectl.1.27", "kubectl.1.33"])
def test_kubectl_describe_node_shows_the_boards_cpu_share(cluster, version, tmp_path):
    """A board reports its cores, so describe's Allocated resources divide by something."""
    binary = kubectl_binary(version)
    if binary is None:
        pytest.skip(f"{version} is not installed")
    _, kubeconfig = cluster
    env = {**ENV, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path)}
    done = subprocess.run([binary, "describe", "node", "node-0"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "-9223372036854775808" not in done.stdout, done.stdout      # a share of 0 cores: NaN as an int
    pods = done.stdout.split("Non-terminated Pods:", 1)[1].split("Allocated resources:", 1)[0]
    rows = [line.split() for line in pods.splitlines()[3:] if line.strip()]
    assert rows and all(re.fullmatch(r"\d+m? \(\d+%\)", " ".join(r[2:4])) for r in rows), pods
    allocated = done.stdout.split("Allocated resources:", 1)[1]
    assert re.search(r"^\s+cpu\s+\d+m? \(\d+%\)\s+\d+m? \(\d+%\)\s*$", allocated, re.M), allocated


@pytest.mark.kubectl
def test_kubelet_side_verbs_and_rollout_history_say_what_kube32_lacks(cluster, tmp_path):
    binary = kubectl_binary("kubectl")
    if binary is None:
        pytest.skip("kubectl is not installed")
    _, kubeconfig = cluster
    env = {**ENV, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path)}

    def kubectl(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=60)

    pod = kubectl("get", "pods", "-l", "app=web", "-o", "name").stdout.split()[0]
    for args in (("logs", pod), ("exec", pod, "--", "ls"), ("port-forward", pod, "18080:80")):
        done = kubectl(*args)
        assert done.returncode != 0
        assert "no container runtime" in done.stderr and "rig monitor" in done.stderr, done.stderr
    done = kubectl("rollout", "history", "deployment/web")
    assert done.returncode != 0 and "keeps no ReplicaSets" in done.stderr, done.stderr


def test_allocatable_keeps_the_binary_suffix_of_its_capacity(cluster):
    running, _ = cluster
    nodes = requests.get(running.url + "/api/v1/nodes", timeout=10).json()["items"]
    busy = [n for n in nodes if n["status"]["allocatable"]["memory"] != n["status"]["capacity"]["memory"]]
    assert busy, "no node runs a pod"
    assert all(re.fullmatch(r"\d+Ki", n["status"]["allocatable"]["memory"]) for n in busy), \
        [n["status"]["allocatable"]["memory"] for n in busy]


def _serve(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kube32.conformance", "serve", *args], capture_output=True,
                          text=True, timeout=60, cwd=cwd)


@pytest.mark.parametrize("args, says", [
    (["--listen", "127.0.0.1:99999"], "expected HOST:PORT with a port from 0 to 65535"),
    (["--listen", "nonsense"], "expected HOST:PORT"),
    (["--data-dir", "/no/such/parent/data"], "the folder /no/such/parent does not exist"),
    (["--nodes-file", "/no/such/nodes.yaml"], "cannot read"),
    (["--nodes", "2", "--clock", "manual"], "use them with --clock real"),
])
def test_serve_answers_a_bad_flag_with_one_line_and_status_2(args, says):
    done = _serve(*args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr


def test_a_bad_flag_is_named_before_a_busy_port(tmp_path):
    """What the user wrote wrong comes first; the port (taken here, as the README's own serve takes
    6443) is checked last."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        listen = f"127.0.0.1:{held.getsockname()[1]}"
        bad = _serve("--listen", listen, "--data-dir", "/no/such/parent/data")
        busy = _serve("--listen", listen)
    assert bad.returncode == 2 and "the folder /no/such/parent does not exist" in bad.stderr, bad.stderr
    assert busy.returncode == 2 and busy.stderr.startswith(f"kube32-conformance serve: cannot listen on {listen}")


def test_a_nodes_file_with_an_unknown_key_names_the_field(tmp_path):
    bad = tmp_path / "nodes.yaml"
    bad.write_text("nodes:\n- name: a\n  colour: blue\n")
    done = _serve("--nodes-file", str(bad))
    assert done.returncode == 2
    assert done.stderr.strip() == f"kube32-conformance serve: {bad}: nodes.0.colour: Extra inputs are not permitted"


def test_serve_on_a_busy_port_is_one_line():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _serve("--listen", f"127.0.0.1:{port}")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith(f"kube32-conformance serve: cannot listen on 127.0.0.1:{port}"), done.stderr
    assert "Traceback" not in done.stderr
