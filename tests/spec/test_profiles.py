"""Timing profiles: the document's numbers, one place, overridable by the documented flags."""

import pytest

from kube32.spec import profiles


def test_hardware_and_simulator_differ_only_in_the_loop_intervals():
    hw, sim = profiles.load("hardware"), profiles.load("simulator")
    assert (hw.reconcile_interval, hw.lifecycle_check_interval) == (3.0, 1.0)
    assert (sim.reconcile_interval, sim.lifecycle_check_interval) == (1.0, 0.5)
    shared = ("lease_duration", "lease_renew_interval", "noexecute_delay", "default_toleration_seconds",
              "deployment_interval", "workload_interval", "not_ready_timeout")
    assert {f: getattr(hw, f) for f in shared} == {f: getattr(sim, f) for f in shared}
    assert (sim.lease_duration, sim.lease_renew_interval, sim.noexecute_after) == (15, 5, 30)
    assert sim.default_toleration_seconds + sim.noexecute_after == 330


def test_overrides_apply_and_none_is_ignored():
    p = profiles.load("simulator", reconcile_interval=0.25, not_ready_timeout=None)
    assert p.reconcile_interval == 0.25 and p.not_ready_timeout == 15


@pytest.mark.parametrize("name, override", [("nope", {}), ("simulator", {"lease_durations": 3})])
def test_unknown_profile_or_field_is_a_clear_error(name, override):
    with pytest.raises(profiles.ProfileError, match="unknown"):
        profiles.load(name, **override)
