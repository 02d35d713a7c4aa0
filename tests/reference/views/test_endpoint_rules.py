"""reference.views.endpoint_rules: (Service, pods) -> Endpoints / EndpointSlices, checked rule by rule."""

from __future__ import annotations

import pytest
from ep_builders import named, pod, service

from kube32.reference.views import endpoint_rules as rules
from kube32.spec import constants
from kube32.spec.validate import assert_valid

HTTP = [{"name": "http", "port": 80, "targetPort": "http"}]


def _subsets_as_sets(endpoints: dict) -> set:
    """Order-insensitive view: {(ports, ready ips, not-ready ips)}."""
    out = set()
    for s in endpoints.get("subsets", []):
        ports = frozenset((p.get("name", ""), p["port"], p["protocol"]) for p in s.get("ports", []))
        out.add((ports, frozenset(a["ip"] for a in s.get("addresses", [])),
                 frozenset(a["ip"] for a in s.get("notReadyAddresses", []))))
    return out


# -- selection -----------------------------------------------------------------------------
@pytest.mark.parametrize("selector", [None, {}])
def test_service_without_selector_computes_nothing(selector):
    svc = service(selector=selector)
    pods = [pod("a", labels={"app": "web"})]
    assert rules.build_endpoints(svc, pods) is None
    assert rules.build_slices(svc, pods) == []


def test_pods_need_matching_labels_ip_and_no_deletion():
    svc = service(selector={"app": "web"})
    pods = [pod("match", "10.0.0.1"), pod("other-label", "10.0.0.2", labels={"app": "db"}),
            pod("no-ip", None), pod("terminating", "10.0.0.4", terminating=True),
            pod("terminating-unready", "10.0.0.7", terminating=True, ready=False)]
    ep = rules.build_endpoints(svc, pods)
    ips = {a["ip"] for s in ep["subsets"] for k in ("addresses", "notReadyAddresses") for a in s.get(k, [])}
    assert ips == {"10.0.0.1"}
    slice_ips = {e["addresses"][0] for s in rules.build_slices(svc, pods) for e in s["endpoints"]}
    assert slice_ips == {"10.0.0.1"}


def test_finished_pods_with_an_ip_are_not_ready():
    """EP-EXCLUDES-TERMINATING interpretation: Succeeded / Failed is not terminating."""
    svc = service(selector={"app": "web"})
    pods = [pod("succeeded", "10.0.0.5", phase="Succeeded", ready=True),
            pod("failed", "10.0.0.6", phase="Failed", ready=False)]
    ep = rules.build_endpoints(svc, pods)
    assert [a["ip"] for a in ep["subsets"][0]["notReadyAddresses"]] == ["10.0.0.5", "10.0.0.6"]
    assert "addresses" not in ep["subsets"][0]


def test_selector_needs_every_label():
    svc = service(selector={"app": "web", "tier": "front"})
    pods = [pod("both", "10.0.0.1", labels={"app": "web", "tier": "front"}),
            pod("one", "10.0.0.2", labels={"app": "web"})]
    assert [p["metadata"]["name"] for p in rules.selected_pods(svc, pods)] == ["both"]


def test_pod_ips_list_counts_when_pod_ip_missing():
    p = pod("a", None)
    p["status"]["podIPs"] = [{"ip": "10.1.1.1"}]
    assert rules.pod_ip(p) == "10.1.1.1"


# -- readiness -----------------------------------------------------------------------------
def test_ready_running_in_addresses_others_in_not_ready():
    svc = service(selector={"app": "web"}, ports=[{"port": 80, "targetPort": 8080}])
    pods = [pod("ready", "10.0.0.1"), pod("unready", "10.0.0.2", ready=False),
            pod("pending", "10.0.0.3", phase="Pending", ready=False),
            pod("ready-pending", "10.0.0.4", phase="Pending", ready=True)]
    ep = rules.build_endpoints(svc, pods)
    assert len(ep["subsets"]) == 1
    subset = ep["subsets"][0]
    assert [a["ip"] for a in subset["addresses"]] == ["10.0.0.1"]
    assert [a["ip"] for a in subset["notReadyAddresses"]] == ["10.0.0.2", "10.0.0.3", "10.0.0.4"]
    conditions = {e["targetRef"]["name"]: e["conditions"] for s in rules.build_slices(svc, pods)
                  for e in s["endpoints"]}
    assert conditions == {
        "ready": {"ready": True, "serving": True, "terminating": False},
        "unready": {"ready": False, "serving": False, "terminating": False},
        "pending": {"ready": False, "serving": False, "terminating": False},
        "ready-pending": {"ready": False, "serving": False, "terminating": False},
    }


def test_address_shape():
    svc = service(selector={"app": "web"})
    p = pod("a", "10.0.0.7", node="esp-1")
    ep = rules.build_endpoints(svc, [p])
    assert ep["subsets"][0]["addresses"] == [{
        "ip": "10.0.0.7", "nodeName": "esp-1",
        "targetRef": {"kind": "Pod", "namespace": "default", "name": "a", "uid": p["metadata"]["uid"]}}]
    assert ep["subsets"][0]["ports"] == [{"port": 8080, "protocol": "TCP"}]


def test_addresses_sorted_as_strings():
    svc = service(selector={"app": "web"})
    ep = rules.build_endpoints(svc, [pod("a", "10.0.0.9"), pod("b", "10.0.0.10")])
    assert [a["ip"] for a in ep["subsets"][0]["addresses"]] == ["10.0.0.10", "10.0.0.9"]


# -- ports ---------------------------------------------------------------------------------
def test_find_port_integer_missing_and_named():
    p = pod("a", ports=[named("http", 8080), named("dns", 53, "UDP")])
    assert rules.find_port(p, {"port": 80, "targetPort": 9000}) == 9000
    assert rules.find_port(p, {"port": 80}) == 80
    assert rules.find_port(p, {"port": 80, "targetPort": "http"}) == 8080
    assert rules.find_port(p, {"port": 80, "targetPort": "nope"}) is None


def test_find_port_named_needs_the_same_protocol():
    p = pod("a", ports=[named("dns", 5353, "TCP"), named("dns", 53, "UDP")])
    assert rules.find_port(p, {"port": 53, "protocol": "UDP", "targetPort": "dns"}) == 53
    assert rules.find_port(p, {"port": 53, "targetPort": "dns"}) == 5353
    assert rules.find_port(pod("b", ports=[named("dns", 53, "UDP")]), {"port": 53, "targetPort": "dns"}) is None


def test_find_port_looks_at_sidecar_init_containers_after_regular_ones():
    p = pod("a", ports=[named("web", 8080)])
    p["spec"]["initContainers"] = [
        {"name": "side", "restartPolicy": "Always", "ports": [named("metrics", 9100), named("web", 1)]},
        {"name": "once", "ports": [named("admin", 7000)]},
    ]
    assert rules.find_port(p, {"port": 80, "targetPort": "web"}) == 8080
    assert rules.find_port(p, {"port": 80, "targetPort": "metrics"}) == 9100
    assert rules.find_port(p, {"port": 80, "targetPort": "admin"}) is None


def test_named_port_splits_subsets_and_slices():
    svc = service(selector={"app": "web"}, ports=HTTP)
    pods = [pod("a", "10.0.0.1", ports=[named("http", 8080)]),
            pod("b", "10.0.0.2", ports=[named("http", 8080)]),
            pod("c", "10.0.0.3", ports=[named("http", 9090)], ready=False)]
    ep = rules.build_endpoints(svc, pods)
    http = lambda n: frozenset({("http", n, "TCP")})  # noqa: E731
    assert _subsets_as_sets(ep) == {
        (http(8080), frozenset({"10.0.0.1", "10.0.0.2"}), frozenset()),
        (http(9090), frozenset(), frozenset({"10.0.0.3"})),
    }
    slices = rules.build_slices(svc, pods)
    by_port = {s["ports"][0]["port"]: sorted(e["addresses"][0] for e in s["endpoints"]) for s in slices}
    assert by_port == {8080: ["10.0.0.1", "10.0.0.2"], 9090: ["10.0.0.3"]}
    assert len({s["metadata"]["name"] for s in slices}) == 2


def test_pod_without_the_named_port_is_left_out_of_endpoints_but_gets_an_empty_port_slice():
    svc = service(selector={"app": "web"}, ports=HTTP)
    pods = [pod("a", "10.0.0.1", ports=[named("http", 8080)]), pod("b", "10.0.0.2")]
    ep = rules.build_endpoints(svc, pods)
    assert [a["ip"] for s in ep["subsets"] for a in s["addresses"]] == ["10.0.0.1"]
    slices = rules.build_slices(svc, pods)
    assert sorted((s["ports"], [e["addresses"][0] for e in s["endpoints"]]) for s in slices) == sorted([
        ([{"name": "http", "port": 8080, "protocol": "TCP"}], ["10.0.0.1"]), ([], ["10.0.0.2"])])


def test_partial_port_resolution_groups_by_port_set():
    svc = service(selector={"app": "web"}, ports=[{"name": "http", "port": 80, "targetPort": "http"},
                                                  {"name": "metrics", "port": 9100, "targetPort": "metrics"}])
    pods = [pod("a", "10.0.0.1", ports=[named("http", 8080), named("metrics", 9100)]),
            pod("b", "10.0.0.2", ports=[named("http", 8080)])]
    ep = rules.build_endpoints(svc, pods)
    got = {frozenset(p["name"] for p in s["ports"]): [a["ip"] for a in s["addresses"]] for s in ep["subsets"]}
    assert got == {frozenset({"http", "metrics"}): ["10.0.0.1"], frozenset({"http"}): ["10.0.0.2"]}


def test_port_names_and_app_protocol():
    svc = service(selector={"app": "web"}, ports=[{"port": 80, "targetPort": 8080, "appProtocol": "http"}])
    ep = rules.build_endpoints(svc, [pod("a")])
    assert ep["subsets"][0]["ports"] == [{"port": 8080, "protocol": "TCP", "appProtocol": "http"}]
    sl = rules.build_slices(svc, [pod("a")])
    assert sl[0]["ports"] == [{"name": "", "port": 8080, "protocol": "TCP", "appProtocol": "http"}]


def test_headless_service_without_ports_gets_addresses_only():
    svc = service(selector={"app": "web"}, ports=[], clusterIP="None")
    ep = rules.build_endpoints(svc, [pod("a", "10.0.0.1")])
    assert ep["subsets"] == [{"addresses": ep["subsets"][0]["addresses"]}]
    assert ep["metadata"]["labels"][constants.LABEL_HEADLESS_SERVICE] == ""


# -- objects -------------------------------------------------------------------------------
def test_endpoints_metadata():
    svc = service(selector={"app": "web"})
    ep = rules.build_endpoints(svc, [pod("a", rv=9)])
    meta = ep["metadata"]
    assert (meta["name"], meta["namespace"]) == ("web", "default")
    assert meta["labels"] == {"team": "a", constants.LABEL_ENDPOINTS_MANAGED_BY: constants.ENDPOINTS_CONTROLLER_NAME}
    assert meta["resourceVersion"] == "9"
    assert meta["uid"] == rules.build_endpoints(svc, [pod("a", rv=9)])["metadata"]["uid"]
    assert meta["creationTimestamp"] == svc["metadata"]["creationTimestamp"]
    assert_valid(ep)


def test_no_pods_endpoints_have_no_subsets_and_one_placeholder_slice():
    svc = service(selector={"app": "web"})
    ep = rules.build_endpoints(svc, [])
    assert "subsets" not in ep
    slices = rules.build_slices(svc, [])
    assert len(slices) == 1
    assert (slices[0]["endpoints"], slices[0]["ports"], slices[0]["addressType"]) == ([], [], "IPv4")
    assert_valid(slices[0])


def test_slice_metadata_labels_and_owner():
    svc = service(selector={"app": "web"})
    svc["metadata"]["labels"][constants.LABEL_SERVICE_NAME] = "spoofed"
    (sl,) = rules.build_slices(svc, [pod("a")])
    meta = sl["metadata"]
    assert meta["labels"] == {"team": "a", constants.LABEL_SERVICE_NAME: "web",
                              constants.LABEL_ENDPOINTSLICE_MANAGED_BY: constants.ENDPOINTSLICE_CONTROLLER_NAME}
    assert meta["ownerReferences"] == [{"apiVersion": "v1", "kind": "Service", "name": "web",
                                        "uid": "svc-uid-web", "controller": True, "blockOwnerDeletion": True}]
    assert meta["name"].startswith("web-") and len(meta["name"]) == len("web-") + 5
    assert meta["generateName"] == "web-"
    assert sl["addressType"] == "IPv4"
    assert_valid(sl)


def test_slice_names_are_stable_and_depend_on_port_mapping():
    svc = service(selector={"app": "web"}, ports=HTTP)
    a = rules.build_slices(svc, [pod("a", ports=[named("http", 8080)])])[0]["metadata"]["name"]
    again = rules.build_slices(svc, [pod("b", "10.0.0.2", ports=[named("http", 8080)])])[0]["metadata"]["name"]
    other = rules.build_slices(svc, [pod("c", ports=[named("http", 9090)])])[0]["metadata"]["name"]
    assert a == again
    assert a != other


def test_ipv6_pods_get_their_own_slice():
    svc = service(selector={"app": "web"})
    slices = rules.build_slices(svc, [pod("a", "10.0.0.1"), pod("b", "fd00::1")])
    assert sorted(s["addressType"] for s in slices) == ["IPv4", "IPv6"]


def test_slices_split_at_the_endpoint_limit(monkeypatch):
    monkeypatch.setattr(constants, "MAX_ENDPOINTS_PER_SLICE", 2)
    svc = service(selector={"app": "web"})
    slices = rules.build_slices(svc, [pod(f"p{i}", f"10.0.0.{i}") for i in range(5)])
    assert [len(s["endpoints"]) for s in slices] == [2, 2, 1]
    assert len({s["metadata"]["name"] for s in slices}) == 3


def test_zone_and_hostname():
    svc = service(selector={"app": "web"})
    p = pod("a", node="esp-1")
    p["spec"].update(hostname="h1", subdomain="web")
    (sl,) = rules.build_slices(svc, [p], zone_of=lambda n: "zone-" + n)
    assert sl["endpoints"][0]["zone"] == "zone-esp-1"
    assert sl["endpoints"][0]["hostname"] == "h1"
    assert rules.build_endpoints(svc, [p])["subsets"][0]["addresses"][0]["hostname"] == "h1"


def test_external_name_service_has_no_slices():
    svc = service(selector={"app": "web"}, type="ExternalName")
    assert rules.build_slices(svc, [pod("a")]) == []
