"""Verdicts kept per value of the pod fields the plugins read (``memo``) and the grouped pick
(``ranking``, ``select_host``) decide exactly as a plain pass written out here does, after any mix
of writes. The oracle uses the plugins one node at a time and nothing of the scheduler's own."""

from __future__ import annotations

import random
import types

import pytest
from sched_helpers import node, pod

from kube32.reference.scheduler import framework, ranking, registry
from kube32.reference.scheduler import scheduler as sched

PROBES = [
    pod("probe-small", requests={"memory": "1Ki"}),
    pod("probe-selector", requests={"memory": "30Ki", "esp32.io/gpio": "2"}, selector={"board": "s3"}),
    pod("probe-psram", requests={"memory": "10Ki", "esp32.io/psram": "1Mi"}),
    pod("probe-large", requests={"memory": "150Ki", "esp32.io/gpio": "6"}),
    pod("probe-named", node_name="n1"),
]


def plain_decision(scheduler, pod_info) -> tuple:
    """(chosen node, rejections, float scores, the ten best names): every filter in order over every
    node (a node leaves at its first rejection), the score of the nodes left, the highest exact
    score, then the alphabetically first name among the nodes that have it."""
    profile = scheduler.profile
    rejected, feasible = {}, []
    for info in scheduler.cache.nodes():
        for plugin in profile.filters:
            status = plugin.filter(pod_info, info)
            if status is not None:
                rejected[info.name] = status
                break
        else:
            feasible.append(info)
    scores = {info.name: profile.score.score_all(pod_info, [info])[0] for info in feasible}
    exact = {info.name: profile.score.exact_score(pod_info, info) for info in feasible}
    top = max(exact.values(), default=None)
    chosen = min((name for name, value in exact.items() if value == top), default=None)
    best = sorted(scores, key=lambda name: (-scores[name], name))[:sched.EXPLAIN_NODES]
    return chosen, rejected, scores, set(best)


def decided(scheduler, pod_info) -> tuple:
    decision = scheduler.decide(pod_info)
    assert decision.total_nodes == len(scheduler.cache.nodes())
    return decision.node, decision.rejected, decision.scores, set(decision.best)


def add_node(cp, name: str, **fields) -> None:
    n = node(name, **fields)
    status = n.pop("status")
    created = cp.store.create("nodes", n)
    created["status"] = status
    cp.store.update("nodes", created)


def test_kept_verdicts_equal_a_plain_pass_after_random_writes(cp):
    rnd = random.Random(14)
    boards = [("200Ki", "8"), ("200Ki", "8"), ("120Ki", "4"), ("400Ki", "12")]   # identical ones tie
    names: list[str] = []

    def new_node(i: int) -> None:
        memory, gpio = rnd.choice(boards)
        add_node(cp, f"n{i}", memory=memory, gpio=gpio, labels={"board": rnd.choice(["s3", "c3"])},
                 extra={"esp32.io/psram": rnd.choice(["0", "2Mi"])})
        names.append(f"n{i}")

    for i in range(8):
        new_node(i)
    for step in range(400):
        action = rnd.choice(["create"] * 4 + ["finish", "delete", "node", "label", "ready", "add", "remove"])
        pods = cp.store.list("pods")
        if action == "create":
            template = rnd.choice(PROBES[:4])
            with cp.store.lock:
                created = cp.store.create("pods", {**template, "metadata": {"name": f"p{step}", "namespace": "default"}})
                cp.scheduler.schedule(created)
        elif action in ("finish", "delete") and pods:
            name = rnd.choice(pods)["metadata"]["name"]
            if action == "delete":
                cp.store.delete("pods", "default", name)
            else:
                p = cp.store.get("pods", "default", name)
                p.setdefault("status", {})["phase"] = "Succeeded"
                cp.store.update("pods", p)
        elif action in ("node", "label", "ready") and names:
            n = cp.store.get("nodes", "", rnd.choice(names))
            if action == "node":
                memory, gpio = rnd.choice(boards)
                n["status"]["allocatable"].update({"memory": memory, "esp32.io/gpio": gpio})
            elif action == "label":
                n["metadata"]["labels"]["board"] = rnd.choice(["s3", "c3"])
            else:
                n["status"]["conditions"][0]["status"] = rnd.choice(["True", "False"])
            cp.store.update("nodes", n)
        elif action == "add":
            new_node(100 + step)
        elif action == "remove" and len(names) > 2:
            cp.store.delete("nodes", "", names.pop(rnd.randrange(len(names))))
        with cp.store.lock:
            for probe in rnd.sample(PROBES, len(PROBES)):
                info = framework.PodInfo.of(probe)
                assert decided(cp.scheduler, info) == plain_decision(cp.scheduler, info), \
                    (step, action, probe["metadata"]["name"])
    assert cp.scheduler.cache.epoch > 1      # nodes came and went, and the change log was cut


def test_a_plugin_reading_a_field_the_others_do_not_never_gets_a_stale_verdict(cp, monkeypatch):
    """A filter that reads the pod's annotations (which no built-in plugin reads) is kept per
    annotations too: pods that differ only there get their own verdicts, and like pods reuse them."""
    calls: list[str] = []

    class ByZone(framework.FilterPlugin):
        NAME = "ByZone"
        READS = ("metadata.annotations",)

        def filter_all(self, pod_info, nodes):
            calls.append(pod_info.name)
            zone = ((pod_info.pod.get("metadata") or {}).get("annotations") or {}).get("zone")
            status = framework.unresolvable(self.NAME, "node(s) were in another zone")
            ok = [n for n in nodes if zone is None or n.labels.get("zone") == zone]
            return ok, [(n, status) for n in nodes if n not in ok]

    monkeypatch.setattr(registry, "FILTERS", (*registry.FILTERS, ByZone))
    scheduler = sched.Scheduler(cp.store, cp.events, cp.clock)
    rnd = random.Random(8)
    for i in range(6):
        add_node(cp, f"node-{i}", memory=rnd.choice(["100Ki", "200Ki"]), labels={"zone": rnd.choice("ab")})

    def probe(zone: str | None) -> framework.PodInfo:
        p = pod(f"pod-{zone}", requests={"memory": "10Ki"})
        if zone is not None:
            p["metadata"]["annotations"] = {"zone": zone}
        return framework.PodInfo.of(p)

    for step in range(120):
        if rnd.random() < 0.3:
            n = cp.store.get("nodes", "", f"node-{rnd.randrange(6)}")
            n["metadata"]["labels"]["zone"] = rnd.choice("abc")
            cp.store.update("nodes", n)
        with cp.store.lock:
            for zone in rnd.sample(["a", "b", "c", None], 4):
                info = probe(zone)
                assert decided(scheduler, info) == plain_decision(scheduler, info), (step, zone)
    with cp.store.lock:
        decided(scheduler, probe("a"))
        del calls[:]
        again = decided(scheduler, probe("a"))
        assert calls == []                   # nothing changed: the kept verdicts were reused
        assert again == plain_decision(scheduler, probe("a"))


def test_a_plugin_that_reads_more_than_the_shape_is_not_kept(cp, monkeypatch):
    """Two pods of one shape that an extra filter tells apart get their own verdicts."""
    class ByName(framework.FilterPlugin):
        NAME = "ByName"

        def filter_all(self, pod_info, nodes):
            status = framework.unresolvable(self.NAME, "node(s) did not match the pod's name")
            ok = [n for n in nodes if n.name.endswith(pod_info.name[-1])]
            return ok, [(n, status) for n in nodes if n not in ok]

    monkeypatch.setattr(registry, "FILTERS", (*registry.FILTERS, ByName))
    scheduler = sched.Scheduler(cp.store, cp.events, cp.clock)
    for name in ("node-a", "node-b"):
        n = node(name)
        status = n.pop("status")
        created = cp.store.create("nodes", n)
        created["status"] = status
        cp.store.update("nodes", created)
    with cp.store.lock:
        assert scheduler.decide(framework.PodInfo.of(pod("pod-a"))).node == "node-a"
        assert scheduler.decide(framework.PodInfo.of(pod("pod-b"))).node == "node-b"


def test_top_names_equal_a_full_sort():
    rnd = random.Random(3)
    for _ in range(200):
        count = rnd.randint(0, 40)
        nodes = [types.SimpleNamespace(name=f"n{rnd.randint(0, 999):03d}-{i}") for i in range(count)]
        scores = [float(rnd.choice([10, 20, 20, 30, 45.5])) for _ in nodes]
        ranked = ranking.Ranking.of(nodes, scores, lambda n: rnd.randint(0, 2))
        expected = sorted(zip(scores, (n.name for n in nodes), strict=True), key=lambda sn: (-sn[0], sn[1]))
        assert sorted(ranked.top_names(10)) == sorted(name for _, name in expected[:10])
        for n in nodes[: count // 2]:
            ranked.remove(n.name)
        rest = sorted(zip(scores[count // 2:], (n.name for n in nodes[count // 2:]), strict=True),
                      key=lambda sn: (-sn[0], sn[1]))
        assert len(ranked) == len(rest)
        assert sorted(ranked.top_names(10)) == sorted(name for _, name in rest[:10])


def test_ranking_queries_equal_a_scan_after_random_adds_and_removes():
    """The kept orders (scores sorted, each group's names sorted) answer as a pass over every node."""
    rnd = random.Random(5)
    live: dict[str, tuple[float, int]] = {f"n{i:02d}": (float(rnd.choice([2, 7, 9])), rnd.randint(0, 2))
                                          for i in rnd.sample(range(61), 30)}
    keys = dict(live)
    ranked = ranking.Ranking.of([types.SimpleNamespace(name=n) for n in live], [sk[0] for sk in live.values()],
                                lambda node: keys[node.name][1])        # built at once, then kept node by node
    for step in range(3000):
        name = f"n{rnd.randint(0, 60):02d}"
        if name in live and rnd.random() < 0.5:
            ranked.remove(name)
            del live[name]
        elif name not in live:
            score, key = float(rnd.choice([1, 2, 2.5, 7, 7, 9])), rnd.randint(0, 2)
            ranked.add(types.SimpleNamespace(name=name), score, key)
            live[name] = (score, key)
        if not live:
            continue
        best = max(score for score, _ in live.values())
        assert ranked.best() == best
        floor = rnd.choice([best, 2.5, 0.0])
        groups = {(score, key) for score, key in live.values() if score >= floor}
        assert {key for key, _ in ranked.at_least(floor)} == groups
        for group_key, group in ranked.at_least(floor):
            names = sorted(n for n, sk in live.items() if sk == group_key)
            assert sorted(group) == names
        expected = sorted(live, key=lambda n: (-live[n][0], n))[:10]
        assert sorted(ranked.top_names(10)) == sorted(expected), step


def test_the_cache_keeps_pod_amounts_per_requests_and_gives_what_a_fresh_count_gives(cp, monkeypatch):
    from kube32.reference.scheduler import resources
    from kube32.reference.scheduler.cache import SchedulerCache

    cache = SchedulerCache(cp.store)
    pods = [pod("a", requests={"memory": "1Ki", "esp32.io/gpio": "2"}), pod("b", requests={"memory": "1Ki"}),
            pod("c", requests={"memory": "1Ki", "esp32.io/gpio": "2"}, limits={"esp32.io/i2c-0": "1"}),
            pod("d", containers=[{"name": "x", "image": "x", "resources": {"requests": {"memory": ["1Ki"]}}}]),
            pod("e")]
    for p in pods * 2:
        try:
            expected = resources.pod_amounts(p)
        except Exception as exc:         # an invalid quantity fails the same way through the cache
            with pytest.raises(type(exc)):
                cache.pod_amounts(p)
            continue
        assert cache.pod_amounts(p) == expected
    calls = []
    monkeypatch.setattr(resources, "pod_amounts", lambda p: calls.append(p) or ({}, "x"))
    cache.pod_amounts(pods[0])
    assert calls == []                               # kept per requests
    SchedulerCache(cp.store).pod_amounts(pods[0])
    assert calls == [pods[0]]                        # per cache (a scheduler's), not per process


def test_field_values_are_equal_only_for_equal_fields():
    """The memo's key: pods whose read fields differ in any way (a number's type, a list through
    which the path reads, a value where an object was expected) never share kept verdicts."""
    def value(spec: object, path: str = "spec.containers.resources"):
        return framework.field_value({"spec": spec}, path)

    containers = [{"resources": {"requests": {"memory": "1Ki"}}}, {"image": "x"}]
    assert value({"containers": containers}) == value({"containers": [dict(c) for c in containers]})
    distinct = [value({"containers": c}) for c in (
        containers, containers[:1], [{"resources": {"requests": {"memory": 1}}}],
        [{"resources": {"requests": {"memory": 1.0}}}], [{"resources": {"requests": {"memory": True}}}],
        [{"resources": {"requests": {"memory": ["1Ki"]}}}], [{"resources": "1Ki"}], ["1Ki"], "1Ki", None, [])]
    assert len(set(distinct)) == len(distinct)
    assert value({"nodeName": "n1"}, "spec.nodeName") == "n1" and value({}, "spec.nodeName") is None
    assert value("n1", "spec.nodeName") != value({"nodeName": "n1"}, "spec.nodeName")
