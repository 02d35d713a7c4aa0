"""Target name -> driver: ``reference``, ``process``, ``http(s)://URL``, ``rig:FILE``."""

from __future__ import annotations

from kube32.spec.profiles import Profile


def create(spec: str, profile: Profile, token: str | None = None, clock: str = "auto",
           request_timeout: float | None = None):
    """``clock`` (auto | manual | real) and ``request_timeout`` apply to targets reached over a URL;
    the in-process reference always runs on a manual clock."""
    if spec == "reference":
        if clock == "real":
            raise ValueError("the in-process reference runs on a manual clock; for real time use "
                             "--target process:real")
        from kube32.conformance.targets.reference import ReferenceTarget

        return ReferenceTarget(profile)
    if spec in ("process", "process:manual", "process:real"):
        from kube32.conformance.targets.process import ProcessTarget

        return ProcessTarget(profile, clock="real" if spec.endswith(":real") else "manual")
    if spec.startswith(("http://", "https://")):
        from kube32.conformance.targets.http import HttpTarget

        return HttpTarget(spec, profile, token=token, clock=clock, request_timeout=request_timeout)
    if spec.startswith("rig:"):
        from kube32.conformance.targets.rig import RigTarget

        return RigTarget(spec[len("rig:"):], profile)
    raise ValueError(f"unknown target {spec!r}: use reference, process, process:real, an http(s):// URL "
                     "or rig:FILE")
