"""The score (mean of free memory % and free GPIO % after binding) and the pick."""

from __future__ import annotations

from fractions import Fraction

import pytest
from sched_helpers import node, pod

from kube32.reference.scheduler import framework, ranking, scheduler
from kube32.reference.scheduler.plugins import free_share


def score(p: dict, n: dict, accounted: dict | None = None) -> tuple[float, Fraction]:
    info = framework.NodeInfo.of(n)
    if accounted:
        info.account({**info.accounted, **accounted})
    pi = framework.PodInfo.of(p)
    plugin = free_share.FreeShare()
    return plugin.score_all(pi, [info])[0], plugin.exact_score(pi, info)


P = pod("p", requests={"memory": "100Ki", "esp32.io/gpio": "4"})


@pytest.mark.parametrize(("n", "want"), [
    (node("a", memory="200Ki", gpio="8"), Fraction(50)),
    (node("b", memory="2000Ki", gpio="8"), Fraction(145, 2)),
    (node("c", memory="400Ki", gpio="8"), Fraction(125, 2)),
    (node("d", memory="200Ki", gpio="40"), Fraction(70)),
    (node("e", memory="200Ki", gpio="0"), Fraction(25)),          # 0 GPIO: 0 % on that term
    (node("f", memory="200Ki", gpio=None), Fraction(25)),
    (node("g", memory="100Ki", gpio="8", capacity={"memory": "400Ki", "esp32.io/gpio": "8"}), Fraction(25)),
])
def test_score_values(n, want):
    p = P if n["metadata"]["name"] not in "ef" else pod("p", requests={"memory": "100Ki"})
    fast, exact = score(p, n)
    assert exact == want
    assert fast == pytest.approx(float(want))


def test_accounted_pods_are_part_of_after_binding():
    fast, exact = score(pod("p", requests={"memory": "100Ki"}), node("a", memory="400Ki"), {"memory": 200 * 1024})
    assert exact == Fraction(125, 2)


def test_tie_break_is_byte_wise_ascending():
    assert scheduler.tie_break(["esp-b", "esp-a", "esp-c"]) == "esp-a"
    assert scheduler.tie_break(["esp-9", "esp-10", "Esp-z"]) == "Esp-z"


def test_near_ties_are_settled_exactly(monkeypatch):
    """Floats one ulp apart are compared as Fractions; a true tie goes to the first name."""
    s = scheduler.Scheduler.__new__(scheduler.Scheduler)
    s.profile = type("P", (), {"score": free_share.FreeShare()})()
    p = framework.PodInfo.of(pod("p", requests={"memory": "30Ki", "esp32.io/gpio": "3"}))
    b = framework.NodeInfo.of(node("esp-b", memory="120Ki", gpio="4"))
    a = framework.NodeInfo.of(node("esp-a", memory="40Ki", gpio="12"))
    def pick(scores):
        return s.select_host(p, ranking.Ranking.of([b, a], scores, s.profile.score.tie_key))

    assert pick([50.0, 50.0 - 1e-12]) == "esp-a"
    assert pick([50.0, 49.0]) == "esp-b"


def test_select_host_hands_tie_break_every_node_of_the_best_score(monkeypatch):
    """Any tie-break rule sees every candidate, not a group's first and last name: here one that
    picks the longest name (in byte order the middle of the group), and the group's nodes exactly."""
    s = scheduler.Scheduler.__new__(scheduler.Scheduler)
    s.profile = type("P", (), {"score": free_share.FreeShare()})()
    p = framework.PodInfo.of(pod("p", requests={"memory": "30Ki"}))
    names = ["esp-1", "esp-22", "esp-3", "esp-4"]
    boards = [framework.NodeInfo.of(node(name)) for name in names]          # identical: one group
    low = framework.NodeInfo.of(node("esp-0", memory="100Ki"))
    seen: list[list[str]] = []

    def longest(candidates):
        candidates = list(candidates)
        seen.append(sorted(candidates))
        return max(candidates, key=len)

    monkeypatch.setattr(scheduler, "tie_break", longest)
    ranked = ranking.Ranking.of([low, *boards], free_share.FreeShare().score_all(p, [low, *boards]),
                                s.profile.score.tie_key)
    assert len(ranked.groups) == 2
    assert s.select_host(p, ranked) == "esp-22"
    assert seen == [names]
