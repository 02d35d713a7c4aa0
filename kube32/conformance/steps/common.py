"""Steps every feature uses: the control plane, time passing, restarts."""

from __future__ import annotations

from pytest_bdd import given, parsers, when

# Named durations: "When the <name> passes" reads the value from the target's timing profile.
NAMED_DURATIONS = {
    "reconcile interval": "reconcile_interval",
    "lifecycle check interval": "lifecycle_check_interval",
    "lease duration": "lease_duration",
    "lease renew interval": "lease_renew_interval",
    "deployment interval": "deployment_interval",
    "workload interval": "workload_interval",
    "default toleration": "default_toleration_seconds",
    "NoExecute delay": "noexecute_delay",
}


@given("a kube32 control plane")
def control_plane(k32):
    """The target answers and the scenario namespace exists."""
    k32.api.get("Namespace", k32.ns)


@when(parsers.re(r"(?P<seconds>\d+(?:\.\d+)?) seconds pass"))
def seconds_pass(k32, seconds):
    k32.timeline.advance(float(seconds))


@when(parsers.re(r"(?P<seconds>\d+(?:\.\d+)?) more seconds pass"))
def more_seconds_pass(k32, seconds):
    k32.timeline.advance(float(seconds))


@when(parsers.re(r"the (?P<name>[A-Za-z ]+?) passes"))
def named_duration_passes(k32, name):
    try:
        field = NAMED_DURATIONS[name]
    except KeyError:
        raise ValueError(f"unknown duration {name!r}; known: {', '.join(NAMED_DURATIONS)}") from None
    k32.timeline.advance(float(getattr(k32.profile, field)))


@when("the control plane restarts")
def control_plane_restarts(k32):
    k32.require("restart")
    k32.target.restart_control_plane()
