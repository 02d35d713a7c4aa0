"""Node names of a scenario's own on a shared target (kube32/conformance/naming.py)."""

from __future__ import annotations

from types import SimpleNamespace

from kube32.conformance import naming


def _step(name: str, table: list[list[str]] | None = None):
    """What naming reads of a pytest-bdd Step: its text and its datatable's cells."""
    return SimpleNamespace(name=name, datatable=None if table is None else SimpleNamespace(raw=lambda: table))


def test_the_names_a_scenario_declares_come_from_node_tables_and_quoted_node_names():
    steps = [_step("these Ready nodes:", [["name", "memory"], ["node-a", "64Ki"], ["esp-10", "1Ki"]]),
             _step("I create pods:", [["name", "node"], ["p", "node-a"]]),      # a table about pods: no names
             _step('nodes "node-b, node-c" renew their leases for the last time'),
             _step('the DaemonSet "d" has pods on exactly nodes "esp-b+esp-c, node-a"'),
             _step('pod "node-x-pod" is bound')]
    assert naming.declared(steps) == ["node-a", "esp-10", "node-b", "node-c", "esp-b", "esp-c"]


def test_whole_names_are_rewritten_everywhere_and_nothing_else():
    renamer = naming.Renamer(naming.own_names(["node-a", "esp-9"], "3f2c9a1b"))
    assert renamer.text("Node node-a status is now: NodeNotReady") == \
        "Node node-a-3f2c9a1b status is now: NodeNotReady"
    assert renamer.text("nodeName: node-a\n") == "nodeName: node-a-3f2c9a1b\n"
    assert renamer.text('"esp-9, node-a"') == '"esp-9-3f2c9a1b, node-a-3f2c9a1b"'
    for untouched in ("node-ab", "kube-node-a", "node-a-b", "anode-a", "node-controller"):
        assert renamer.text(untouched) == untouched
    args = {"name": "node-a", "datatable": [["name"], ["node-a"]], "k32": object(), "n": 3}
    renamer.arguments(args)
    assert args["name"] == "node-a-3f2c9a1b" and args["datatable"] == [["name"], ["node-a-3f2c9a1b"]]
    assert args["n"] == 3
    assert naming.Renamer({}).text("node-a") == "node-a"


def test_one_suffix_keeps_the_alphabetical_order_the_document_breaks_ties_by():
    names = ["node-a", "node-all", "node-b", "esp-9", "esp-10", "node-a1"]
    own = naming.own_names(names, "00ff")
    assert sorted(names, key=own.get) == sorted(names)


def test_the_fence_goes_on_every_pod_and_workload_template_of_a_scenario_that_shares_the_node_set():
    from kube32.conformance.context import FENCE_LABEL, ScenarioContext

    ctx = ScenarioContext.__new__(ScenarioContext)
    ctx.fence_labels = {FENCE_LABEL: "k32-00ff"}
    pod = ctx.fence({"kind": "Pod", "spec": {"nodeName": "node-a-00ff", "nodeSelector": {"board": "s3"}}})
    # with nodeName too: an evicted pod goes back to the scheduler
    assert pod["spec"]["nodeSelector"] == {"board": "s3", FENCE_LABEL: "k32-00ff"}
    deployment = ctx.fence({"kind": "Deployment", "spec": {"template": {"spec": {"containers": []}}}})
    assert deployment["spec"]["template"]["spec"]["nodeSelector"] == {FENCE_LABEL: "k32-00ff"}
    assert ctx.fence({"kind": "Service", "spec": {}}) == {"kind": "Service", "spec": {}}
    ctx.fence_labels = {}
    assert ctx.fence({"kind": "Pod", "spec": {}}) == {"kind": "Pod", "spec": {}}
