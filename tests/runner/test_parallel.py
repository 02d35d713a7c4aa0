"""``run --jobs N`` (kube32/conformance/parallel.py): the order scenarios are handed out in, and on a
target the workers share, scenarios that must be alone never overlap another scenario."""

from __future__ import annotations

import json
import textwrap

import pytest

from kube32.conformance import parallel
from kube32.conformance.targets.process import ServeProcess
from kube32.spec import profiles
from tests.conftest import feature_dir, statuses


def test_order_hands_out_longest_first_pairs_long_with_short_and_keeps_the_alone_ones_last():
    seconds = {"a": 600, "b": 300, "c": 200, "d": 100, "e": 10, "f": 5, "x": 900, "y": 1}
    alone = {"x", "y"}
    got = parallel.order(list("yxfedcba"), seconds.get, alone.__contains__, workers=2)
    # each of the 2 workers starts with a long one and holds a short one next; then longest first
    assert got[:4] == ["a", "f", "b", "e"]
    assert got[4:6] == ["c", "d"]
    assert got[6:] == ["y", "x"]           # collection order among those that run alone
    assert parallel.order([], seconds.get, alone.__contains__, workers=4) == []


def test_runs_alone_follows_the_capability_tags_and_what_the_scenario_reads():
    assert parallel.runs_alone({"needs-exclusive-nodes", "clause-X"})
    assert parallel.runs_alone({"needs-restart"}, "When 2 seconds pass")
    assert not parallel.runs_alone({"needs-fake-kubelets", "slow", "clause-X"})
    # owning the node set matters only to a scenario that counts every node
    assert not parallel.runs_alone({"needs-exclusive-nodes"}, 'the create response for pod "p" names node "node-a"')
    assert parallel.runs_alone({"needs-exclusive-nodes"}, 'a "Warning" event "FailedScheduling" about pod "p" says:')
    assert parallel.runs_alone({"needs-exclusive-nodes"}, "Warning|FailedScheduling|0/2 nodes are available: ...")
    assert not parallel.runs_alone({"clause-X"}, 'a "Warning" event "FailedScheduling" about pod "p" says:')


def test_jobs_auto_uses_the_cores_only_for_targets_of_each_workers_own_on_a_manual_clock(monkeypatch):
    """--jobs auto (the default): a worker per core for reference/process runs big enough to pay for
    the workers' start; a shared URL, a real clock or a rig keep one worker unless told otherwise."""
    assert parallel.own_manual_target("reference") and parallel.own_manual_target("process")
    assert parallel.own_manual_target("process@1767225600.3") and parallel.own_manual_target("process:manual")
    for shared_or_real in ("process:real", "http://127.0.0.1:6443", "https://k/", "rig:r.yaml"):
        assert not parallel.own_manual_target(shared_or_real)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    per = parallel.AUTO_SCENARIOS_PER_WORKER
    assert [parallel.auto_jobs(n) for n in (0, 1, per, 2 * per - 1, 2 * per, 300)] == [1, 1, 1, 1, 2, 2]
    monkeypatch.setattr(parallel, "usable_cores", lambda: 16)
    assert parallel.auto_jobs(310) == 310 // per


FEATURE = textwrap.dedent('''
    Feature: parallel
      Background:
        Given a kube32 control plane

      @clause-JOB-RESTART-POLICY
      Scenario Outline: a scenario without nodes shares the target <n>
        When 2 seconds pass
        And the Job "j" is created with restartPolicy "Never"
        Then the Job "j" is accepted

        Examples:
          | n |
          | 1 |
          | 2 |
          | 3 |
          | 4 |

      @clause-NODE-NOTREADY-AT-LEASE-DURATION
      Scenario Outline: a scenario with nodes <n> shares the target under node names of its own
        Given these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |
        When 1 seconds pass
        Then node "node-a" is Ready

        Examples:
          | n |
          | 1 |
          | 2 |

      @clause-SCHED-BIND-ON-CREATE @needs-exclusive-nodes
      Scenario: one that owns the node set but counts no node is fenced to its own, beside the others
        Given these Ready nodes:
          | name   | memory |
          | node-a | 64Ki   |
        When I create a pod "p" requesting:
          | resource | quantity |
          | memory   | 1Ki      |
        Then the create response for pod "p" names node "node-a"

      @clause-SCHED-FILTER-MEMORY @needs-exclusive-nodes
      Scenario: one whose FailedScheduling message counts every node runs alone, at the end
        When 1 seconds pass
        Given these Ready nodes:
          | name   | memory |
          | node-a | 100Ki  |
        When I create a pod "p" requesting:
          | resource | quantity |
          | memory   | 102401   |
        Then pod "p" is not bound
        And a "Warning" event "FailedScheduling" about pod "p" says:
          """
          0/1 nodes are available: 1 Insufficient memory.
          """
    ''')

PROBE = textwrap.dedent('''
    """Writes when each scenario's steps ran to $K32_PROBE, one JSON line each: from its first step's call
    (its fixtures, and so its hold of the run's lock, in place) to the end of its call phase."""
    import json, os, time
    import pytest

    def pytest_bdd_before_step_call(request, feature, scenario, step, step_func, step_func_args):
        if not hasattr(request.node, "k32_began"):
            request.node.k32_began = time.time()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(item):
        try:
            return (yield)
        finally:
            with open(os.environ["K32_PROBE"], "a") as fh:
                fh.write(json.dumps({"name": item.name, "began": item.k32_began, "ended": time.time(),
                                     "pid": os.getpid()}) + "\\n")
    ''')


@pytest.mark.long   # a minute on a loaded 2-core machine: tox -e realtime
def test_on_a_shared_target_alone_scenarios_overlap_no_other(pytester, tmp_path, monkeypatch):
    feature_dir(tmp_path, monkeypatch, "parallel.feature", FEATURE)
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir()
    (probe_dir / "k32probe.py").write_text(PROBE)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PYTHONPATH", str(probe_dir))   # a pytest subprocess: its xdist workers get its sys.path
    monkeypatch.setenv("K32_PROBE", str(log))
    server = ServeProcess(profiles.load("simulator"), clock="real")
    server.start()
    try:
        result = pytester.runpytest_subprocess(
            "--pyargs", "kube32.conformance.bind", "-p", "no:cacheprovider", "-p", "no:labgrid", "-p", "no:randomly",
            "-p", "k32probe", "-q", "--report", str(tmp_path / "report"), "--target", server.url,
            "-n", "3", "--dist", "load", "--maxschedchunk", "1")
    finally:
        server.stop()
    doc = json.loads((tmp_path / "report" / "clauses.json").read_text())
    got = statuses(doc)
    assert [got[c] for c in ("JOB-RESTART-POLICY", "NODE-NOTREADY-AT-LEASE-DURATION", "SCHED-BIND-ON-CREATE",
                             "SCHED-FILTER-MEMORY")] == ["passed"] * 4, doc["summary"]
    assert result.ret == 0
    runs = {s["name"]: s for row in doc["clauses"] for s in row["scenarios"]}
    # three scenarios registered node-a on one server, each under a name of its own
    renamed = [s["nodes"]["node-a"] for name, s in runs.items() if "of its own" in name or "fenced" in name]
    assert len(renamed) == 3 and len(set(renamed)) == 3 and all(n.startswith("node-a-") for n in renamed), runs
    assert "nodes" not in runs["one whose FailedScheduling message counts every node runs alone, at the end"]
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 8 and len({c["pid"] for c in calls}) > 1, calls
    owner = next(c for c in calls if "counts_every_node" in c["name"])
    others = [c for c in calls if c is not owner]
    # it holds the lock alone from before its first step: no other scenario's steps run meanwhile
    # (handed out last, it is the serial end phase; a scenario handed out just before it may wait for it)
    assert all(c["ended"] <= owner["began"] or c["began"] >= owner["ended"] for c in others), calls


def test_the_estimate_adds_the_scenarios_that_run_alone_one_after_another():
    from kube32.conformance import estimate, suite

    profile = profiles.load("simulator")
    chosen = [sc for sc in suite.scenarios() if "node_lifecycle/restart.feature" in sc.feature][:3]
    each = [estimate.scenario_seconds(sc.steps, profile) for sc in chosen]
    assert estimate.run_seconds(chosen, profile, manual=False, jobs=1) == sum(each)
    start = 3 * estimate.JOB_START
    assert estimate.run_seconds(chosen, profile, manual=False, jobs=3) == \
        max(estimate.LONGEST_SLACK * max(each), sum(each) / 3) + start
    assert estimate.run_seconds(chosen, profile, manual=False, jobs=3, alone=chosen[1:]) == \
        estimate.LONGEST_SLACK * each[0] + start + each[1] + each[2]


def test_the_estimate_on_a_shared_url_runs_alone_only_what_counts_every_node():
    import argparse

    from kube32.conformance import estimate
    from kube32.conformance.commands import run as run_command

    args = argparse.Namespace(features=None, profile="simulator", profile_set=None, clause=None,
                              area=["scheduler"], tags=None, kubeconfig=None, rig=None, jobs=8, clock="real")
    chosen = run_command.selected(args)
    counting = [sc for sc in chosen if parallel.runs_alone(sc.tags, "\n".join(t for _, t, _ in sc.steps))]
    assert 0 < len(counting) < len(chosen)          # the fenced ones run side by side
    want = estimate.run_seconds(chosen, profiles.load("simulator"), manual=False, jobs=8, alone=counting)
    assert estimate.say(want) in run_command.estimate_line(args, "http://127.0.0.1:6443", chosen)
