"""Steps every feature uses: the control plane, time passing, restarts."""

from __future__ import annotations

import dataclasses

from pytest_bdd import given, parsers, when

from kube32.conformance import timing
from kube32.conformance.errors import CapabilityMissing
from kube32.conformance.steps._util import needs
from kube32.spec import profiles

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
    seconds = float(getattr(k32.profile, field))
    if field == "lifecycle_check_interval":
        # right after "almost <deadline>" this is the check that must see the deadline passed
        k32.timeline.check_interval_passes(seconds, f"the {name} passes")
    else:
        k32.timeline.advance(seconds)


@when(parsers.re(r"(?P<n>\d+) (?P<name>deployment|workload|reconcile) intervals pass"))
def intervals_pass(k32, n, name):
    k32.timeline.advance(int(n) * float(getattr(k32.profile, NAMED_DURATIONS[f"{name} interval"])))


# The values a target that can restart with a simulator flag is given when the runner knows of no
# others: far enough from the document's defaults that the default fails the scenario.
OTHER_VALUES = {"not-ready timeout": 6.0, "eviction timeout": 20.0, "reconcile interval": 0.25}


@given(parsers.re(r"the control plane runs with an? (?P<which>not-ready timeout|eviction timeout|reconcile "
                  r"interval) other than the default"))
def runs_with_other_value(k32, which):
    """A target whose value differs from the document's default: one started so, whose value the
    runner was told (--profile-set <field>=…), as it is; else one that can restart with the
    simulator's flag (``restart_with_flags``), restarted with it. The scenario's durations then
    follow the configured value (its profile)."""
    flag = "--" + which.replace(" ", "-")
    field = profiles.FLAGS[flag][0]
    documented = getattr(profiles.load(k32.profile.name), field)
    if getattr(k32.profile, field) != documented:
        return
    restart = getattr(k32.target, "restart_with_flags", None)
    if restart is None or not k32.has("restart"):
        raise CapabilityMissing(f"the target runs with the document's {which} ({documented:g} s) as far as the runner "
                                f"knows, and cannot restart with {flag}: start it with {flag} and tell the runner "
                                f"with --profile-set {field}=<seconds>")
    restart({flag: OTHER_VALUES[which]})
    # the expectation reads the flag table itself, not the mapping the target applies
    k32.profile = dataclasses.replace(k32.profile, **dict.fromkeys(profiles.FLAGS[flag], OTHER_VALUES[which]))


@when("the control plane restarts")
@needs("restart")
def control_plane_restarts(k32):
    """Time steps after it count from the moment the restart began (the earliest a restarted
    control plane can start counting); on a real clock the restart's length joins the latency
    the runner allows for."""
    k32.require("restart")
    began = k32.timeline.now()
    window = k32.timeline.window
    if window is not None and window.kind == "before" and not k32.manual and began >= window.deadline:
        # just before a deadline: the control plane that stops must not live past it
        raise timing.RunnerTooLate(f"the restart began {began - window.deadline:.3f} s after the deadline it "
                                   f"had to come before ({window.what}): the runner was too late, the target "
                                   "was not judged")
    k32.target.restart_control_plane()
    k32.timeline.pin(began)
    if not k32.manual:
        k32.timeline.latency.restarted(began, k32.timeline.now())
