"""Target name -> driver: ``reference``, ``process[@CLOCK_START]``, ``process:real``, ``http(s)://URL``,
``rig:FILE``."""

from __future__ import annotations

import re
import urllib.parse

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
    raise ValueError(invalid(spec))


def invalid(spec: str) -> str | None:
    """What is wrong with a target name (None: nothing), in one line, before anything runs."""
    name, _, start = spec.partition("@")
    if spec == "reference" or (name in ("process", "process:manual", "process:real") and not start) \
            or (spec.startswith("rig:") and len(spec) > 4):
        return None
    if name in ("process", "process:manual", "process:real"):
        try:
            float(start)
            return None
        except ValueError:
            return f"{spec!r}: the manual clock start after @ is epoch seconds, e.g. process@1767225600.3"
    if spec.startswith(("http://", "https://")):
        try:
            url = urllib.parse.urlsplit(spec)
            url.port                                # noqa: B018 - raises on a port that is no number
        except ValueError as exc:
            return f"{spec!r} is not a valid URL: {exc}"
        return None if url.hostname else f"{spec!r} is not a valid URL: it names no host"
    hint = f"; did you mean http://{spec} or https://{spec}?" if re.fullmatch(r"[\w.\-\[\]:]+:\d+", spec) else ""
    return f"unknown target {spec!r}: use reference, process, process:real, an http(s):// URL or rig:FILE{hint}"
