"""How long a run will take, said before it starts ("about N minutes").

On a real clock a scenario lasts as long as the time its steps let pass (read from the step text
with the target's timing profile) plus the polling its checks do; on a manual clock time costs
nothing and a scenario takes a fraction of a second. ``--jobs N`` divides the sum, but a run is
never shorter than its longest scenario (plus the workers' start).
"""

from __future__ import annotations

import math
import re

from kube32.spec.profiles import Profile

NAMED = {"reconcile interval": "reconcile_interval", "lifecycle check interval": "lifecycle_check_interval",
         "lease duration": "lease_duration", "lease renew interval": "lease_renew_interval",
         "deployment interval": "deployment_interval", "workload interval": "workload_interval",
         "default toleration": "default_toleration_seconds", "NoExecute delay": "noexecute_delay",
         "not-ready timeout": "not_ready_timeout"}
STEP_COST = 0.5       # real seconds a step takes beyond the time it lets pass (requests, holds)
MANUAL_SCENARIO = 0.12  # real seconds per scenario on a manual clock (in-process reference, 2-core machine at load ~1)
# --jobs N: the workers (and a `serve` each) boot on shared cores, and the longest scenarios ran ~10 %
# over their step time in a whole-suite run (eventual checks polling, restarts)
JOB_START = 3.0
LONGEST_SLACK = 1.1

_SECONDS = re.compile(r"^(?:almost )?(\d+(?:\.\d+)?) (?:more )?seconds pass$")
_INTERVALS = re.compile(r"^(\d+(?:\.\d+)?) check intervals? pass(?:es)?$")
_NAMED = re.compile(r"^(?:almost )?the ([A-Za-z -]+?) passes$")
_AGE = re.compile(r"is (?:almost |just over )?(\d+(?:\.\d+)?) seconds old$")
_DEFAULT_AGE = re.compile(r"is (?:almost as old as|older than) the default toleration$")


def scenario_seconds(steps, profile: Profile) -> float:
    """Target seconds a scenario lets pass, plus its steps' own cost, on a real clock."""
    passed, age = 0.0, 0.0
    for _, text, _ in steps:
        if m := _SECONDS.search(text):
            passed += float(m[1])
        elif m := _INTERVALS.search(text):
            passed += float(m[1]) * profile.lifecycle_check_interval
        elif text == "half a check interval passes":
            passed += profile.lifecycle_check_interval / 2
        elif (m := _NAMED.search(text)) and m[1] in NAMED:
            passed += float(getattr(profile, NAMED[m[1]]))
        elif m := _AGE.search(text):
            age = max(age, float(m[1]))
        elif _DEFAULT_AGE.search(text):
            age = max(age, float(profile.default_toleration_seconds))
    return passed + age + STEP_COST * len(steps)


def run_seconds(scenarios, profile: Profile, manual: bool, jobs: int = 1, alone=()) -> float:
    """``alone``: those of ``scenarios`` that run one after another after the others (parallel.py)."""
    jobs = max(jobs, 1)
    together = [sc for sc in scenarios if sc not in alone]
    if manual:
        return MANUAL_SCENARIO * (len(together) / jobs + len(alone)) + (JOB_START if jobs > 1 else 0.0)
    each = [scenario_seconds(sc.steps, profile) for sc in together]
    parallel = max(LONGEST_SLACK * max(each, default=0.0), sum(each) / jobs) + JOB_START * jobs if jobs > 1 \
        else sum(each)
    return parallel + sum(scenario_seconds(sc.steps, profile) for sc in alone)


def say(seconds: float) -> str:
    if seconds < 90:
        return "about a minute" if seconds > 30 else "under a minute"
    return f"about {math.ceil(seconds / 60)} minutes"
