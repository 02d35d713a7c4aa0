"""Target name -> driver: ``reference``, ``process[@CLOCK_START]``, ``process:real``, ``http(s)://URL``,
``rig:FILE``."""

from __future__ import annotations

from kube32.spec.profiles import Profile


def create(spec: str, profile: Profile, token: str | None = None, clock: str = "auto",
           request_timeout: float | None = None, access=None, rig_share=None):
    """``clock`` (auto | manual | real) and ``request_timeout`` apply to targets reached over a URL;
    the in-process reference always runs on a manual clock. ``rig_share``: this worker's part of a
    rig the run's workers share (rig_jobs.py)."""
    if spec == "reference":
        if clock == "real":
            raise ValueError("the in-process reference runs on a manual clock; for real time use "
                             "--target process:real")
        from kube32.conformance.targets.reference import ReferenceTarget

        return ReferenceTarget(profile)
    name, _, start = spec.partition("@")
    if name in ("process", "process:manual", "process:real"):
        from kube32.conformance.targets.process import ProcessTarget

        try:
            clock_start = float(start) if start else None
        except ValueError:
            raise ValueError(f"{spec!r}: the manual clock start after @ is epoch seconds, e.g. "
                             "process@1767225600.3") from None
        return ProcessTarget(profile, clock="real" if name.endswith(":real") else "manual",
                             clock_start=clock_start)
    if spec.startswith(("http://", "https://")):
        from kube32.conformance.targets.http import HttpTarget

        return HttpTarget(spec, profile, token=token, clock=clock, request_timeout=request_timeout, access=access)
    if spec.startswith("rig:"):
        from kube32.conformance.targets.rig import RigTarget

        return RigTarget(spec[len("rig:"):], profile, token=token, access=access, share=rig_share)
    raise ValueError(f"unknown target {spec!r}: use reference, process, process:real, an http(s):// URL "
                     "or rig:FILE")
