"""Timing profiles: every duration the document gives, as data.

``load("simulator")`` merges ``shared.yaml`` under the named profile and applies overrides
(the reference's ``--reconcile-interval``, ``--not-ready-timeout``, ``--eviction-timeout``).
"""

from __future__ import annotations

import dataclasses
import functools
from importlib import resources

import yaml

NAMES = ("hardware", "simulator")


@dataclasses.dataclass(frozen=True)
class Profile:
    name: str
    reconcile_interval: float
    lifecycle_check_interval: float
    lease_duration: float
    lease_renew_interval: float
    not_ready_timeout: float
    noexecute_delay: float
    default_toleration_seconds: float
    deployment_interval: float
    workload_interval: float

    @property
    def noexecute_after(self) -> float:
        """Seconds without renewal until the NoExecute taint (lease duration + delay)."""
        return self.lease_duration + self.noexecute_delay

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


# The simulator's flags the document names, and the profile fields each sets: --not-ready-timeout the
# threshold of a Lease without leaseDurationSeconds and (our reading) the further delay before NoExecute;
# --eviction-timeout the default tolerations' tolerationSeconds; --reconcile-interval the scheduler's retry.
FLAGS: dict[str, tuple[str, ...]] = {
    "--not-ready-timeout": ("not_ready_timeout", "noexecute_delay"),
    "--eviction-timeout": ("default_toleration_seconds",),
    "--reconcile-interval": ("reconcile_interval",),
}


def flag_overrides(values: dict[str, float | None]) -> dict[str, float]:
    """The profile fields ``{flag: value}`` set (flags given None are left out)."""
    return {field: float(value) for flag, value in values.items() if value is not None for field in FLAGS[flag]}


def flag_of(field: str) -> str:
    """The flag that sets ``field`` first (``reconcile_interval`` -> ``--reconcile-interval``)."""
    return next(flag for flag, fields in FLAGS.items() if fields[0] == field)


class ProfileError(ValueError):
    pass


def _read(name: str) -> dict:
    return dict(_parsed(name))       # a copy: load() pops from it


@functools.cache                     # a control plane per scenario reads the same files
def _parsed(name: str) -> dict:
    path = resources.files("kube32.spec") / "profiles" / f"{name}.yaml"
    if not path.is_file():
        raise ProfileError(f"unknown timing profile {name!r}; known: {', '.join(NAMES)}")
    return yaml.safe_load(path.read_text()) or {}


def load(name: str = "simulator", **overrides: float | None) -> Profile:
    """The named profile with ``overrides`` (None values are ignored) applied."""
    data = _read(name)
    base = _read(data.pop("inherit")) if "inherit" in data else {}
    merged = {**base, **data, "name": name}
    fields = {f.name for f in dataclasses.fields(Profile)}
    for key, value in overrides.items():
        if value is None:
            continue
        if key not in fields:
            raise ProfileError(f"unknown profile field {key!r}")
        merged[key] = float(value)
    unknown = set(merged) - fields
    missing = fields - set(merged)
    if unknown or missing:
        raise ProfileError(f"profile {name!r}: unknown {sorted(unknown)}, missing {sorted(missing)}")
    return Profile(**merged)
