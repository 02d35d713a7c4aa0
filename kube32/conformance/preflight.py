"""Checks before a run: each problem is one line with its own exit status, found before pytest
starts, so the report directory stays untouched. ``kube32-conformance run`` runs ``CHECKS`` in
order and stops at the first problem; the plugin reuses the file and selection checks (as pytest
usage errors) when the suite is run as plain pytest.

A check is a function ``(args) -> Problem | None`` over the ``run`` arguments; more checks plug in
by appending to ``CHECKS`` (exit statuses are documented in README.md and ``run --help``).
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
from collections.abc import Callable
from pathlib import Path

import yaml

from kube32.spec import catalogue as catalogue_mod

# exit statuses of `kube32-conformance run` (0, 1 and 2-5 are pytest's and argparse's)
USAGE = 2            # the command line is wrong (as argparse), or the --rig file is (as in `rig check`)
UNREACHABLE = 10     # the target does not answer (refused, timed out, 502/503/504, not an API);
                     # for --rig: a board's port does not open, a labgrid place cannot be had
TLS = 11             # the TLS handshake with the target failed
CREDENTIALS = 12     # the target refused the runner's credentials (401/403)
DEVIATIONS = 13      # --deviations: missing, not YAML, wrong shape, or naming an unknown clause
SELECTION = 14       # --area / --clause / --tags select no scenario
EXIT_STATUSES = {
    0: "every selected scenario passed (deviations and disabled scenarios do not count)",
    1: "a scenario failed or is an error",
    USAGE: "the command line is wrong, or the --rig file is missing or invalid",
    UNREACHABLE: "the target is unreachable (with --rig: a board port does not open, a labgrid place is taken)",
    TLS: "TLS with the target failed",
    CREDENTIALS: "the target refused the credentials (--token)",
    DEVIATIONS: "the --deviations file is missing or invalid, or names an unknown clause",
    SELECTION: "--area/--clause/--tags select no scenario",
}
PREFLIGHT_TIMEOUT = 10.0


@dataclasses.dataclass(frozen=True)
class Problem:
    code: int
    message: str


class PreflightError(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


# -- deviations ------------------------------------------------------------------------------
def load_deviations(path: str, cat: catalogue_mod.Catalogue) -> dict[str, str]:
    """``--deviations FILE``: a YAML list of ``{clause, reason}`` (or ``{deviations: [...]}``), every
    clause known. Raises ``PreflightError`` (DEVIATIONS) naming the first problem."""
    def bad(why: str) -> PreflightError:
        return PreflightError(Problem(DEVIATIONS, f"--deviations {path}: {why}"))

    try:
        with open(path, encoding="utf-8") as fh:
            raw = yaml.safe_load(fh)
    except FileNotFoundError:
        raise bad("no such file") from None
    except OSError as exc:
        raise bad(exc.strerror or str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise bad(f"not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    entries = raw.get("deviations") if isinstance(raw, dict) else raw
    if raw is None:
        entries = []
    if not isinstance(entries, list):
        raise bad("expected a list of {clause, reason} entries")
    out: dict[str, str] = {}
    for n, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not entry.get("clause") or not entry.get("reason"):
            raise bad(f"entry {n} needs a clause and a reason: {entry!r}")
        clause = str(entry["clause"])
        if clause not in cat.ids:
            raise bad(f"entry {n} names an unknown clause {clause}{did_you_mean(clause, cat.ids)}")
        out[clause] = str(entry["reason"])
    return out


def deviations(args) -> Problem | None:
    if not getattr(args, "deviations", None):
        return None
    try:
        load_deviations(args.deviations, catalogue_mod.load())
    except PreflightError as exc:
        return exc.problem
    return None


# -- selection -------------------------------------------------------------------------------
def selection_problem(cat: catalogue_mod.Catalogue, patterns, areas) -> Problem | None:
    """Areas and clause patterns the catalogue does not know (with the nearest name)."""
    known_areas = sorted(cat.by_area())
    for area in areas or ():
        if area not in known_areas:
            return Problem(SELECTION, f"--area {area}: no such area{did_you_mean(area, known_areas)} "
                                      f"(areas: {', '.join(known_areas)})")
    for pattern in patterns or ():
        if not any(fnmatch.fnmatch(c, pattern) for c in cat.ids):
            return Problem(SELECTION, f"--clause {pattern}: matches no clause"
                                      f"{did_you_mean(pattern.upper(), cat.ids)}")
    return None


def selection(args) -> Problem | None:
    """Unknown areas or clauses, or a selection that leaves no scenario of the features to run."""
    if not (args.clause or args.area or args.tags):
        return None       # everything is selected (and a bad --rig file is answered without the catalogue)
    from kube32.conformance import suite

    cat = catalogue_mod.load()
    problem = selection_problem(cat, args.clause, args.area)
    if problem is not None:
        return problem
    base = Path(args.features) if getattr(args, "features", None) else None
    chosen = suite.selection(cat, args.clause or (), args.area or (), args.tags, base=base)
    if not any(selected for _, selected in chosen):
        asked = " ".join([*(f"--area {a}" for a in args.area or ()), *(f"--clause {c}" for c in args.clause or ()),
                          *([f"--tags {args.tags!r}"] if args.tags else [])])
        return Problem(SELECTION, f"{asked}: no scenario of the features is selected")
    return None


# -- the rig file (helper checks live in kube32.harness) ------------------------------------------
def rig(args) -> Problem | None:
    """Every --rig file valid and its boards reachable, with the statuses ``rig check`` gives them
    (bad file: USAGE; a port or a labgrid place that cannot be had: UNREACHABLE)."""
    if not getattr(args, "rig", None):
        return None
    from kube32.harness.cli import preflight as rig_preflight

    found = rig_preflight(args.rig if isinstance(args.rig, list) else [args.rig])
    return Problem(*found) if found else None


# -- the target ------------------------------------------------------------------------------
def target(args) -> Problem | None:
    """A URL target answers ``GET /version`` and accepts the credentials for a namespace list."""
    from kube32.conformance import credentials, kubeconfig

    try:
        access = credentials.resolve(getattr(args, "token", None), getattr(args, "kubeconfig", None),
                                     getattr(args, "context", None))
    except kubeconfig.KubeconfigError as exc:
        return Problem(CREDENTIALS, f"--kubeconfig: {exc}")
    url = getattr(args, "target", "") or ""
    if access.url and url == "reference":
        url = args.target = access.url       # the kubeconfig's server is the target
    if getattr(args, "rig", None) or getattr(args, "list", False) or not url.startswith(("http://", "https://")):
        return None
    from kube32.conformance.client import ApiClient
    from kube32.conformance.errors import ApiStatusError, AuthRefused, TargetUnavailable, TlsRefused

    api = ApiClient(url, token=access.token, verify=access.verify, cert=access.cert, validate=False,
                    timeout=min(getattr(args, "request_timeout", None) or PREFLIGHT_TIMEOUT, PREFLIGHT_TIMEOUT))
    api.retry_pauses = (0.5, 1.0)
    try:
        api.call("GET", "/version")
        api.call("GET", "/api/v1/namespaces", params={"limit": "1"})
    except TlsRefused as exc:
        return Problem(TLS, f"target {url}: {exc}")
    except AuthRefused:
        return Problem(CREDENTIALS, f"target {url}: the credentials were refused (401); check --token")
    except TargetUnavailable as exc:
        return Problem(UNREACHABLE, f"target {url} is unreachable: {exc}")
    except ApiStatusError as exc:
        if exc.code == 403:
            return Problem(CREDENTIALS, f"target {url}: the credentials may not list namespaces (403); "
                                        "check --token")
        return Problem(UNREACHABLE, f"target {url} does not answer like a kube32 API server: {exc}")
    return None


def target_name(args) -> Problem | None:
    """``--target`` names a kind of target the runner knows (a URL needs its scheme)."""
    from kube32.conformance.targets import registry

    spec = getattr(args, "target", None)
    if not spec or getattr(args, "rig", None):
        return None
    why = registry.invalid(spec)
    return Problem(USAGE, f"--target {why}") if why else None


def features(args) -> Problem | None:
    """``--features DIR`` exists."""
    path = getattr(args, "features", None)
    if path and not Path(path).is_dir():
        return Problem(USAGE, f"--features {path}: no such directory")
    return None


def clock(args) -> Problem | None:
    """``--clock`` the target cannot have (the in-process reference always runs a manual clock)."""
    if getattr(args, "clock", None) == "real" and getattr(args, "target", "") == "reference" \
            and not getattr(args, "rig", None):
        return Problem(USAGE, "--clock real: the in-process reference runs on a manual clock; "
                              "use --target process:real for real time")
    return None


CHECKS: list[Callable[[object], Problem | None]] = [target_name, features, clock, deviations, selection, rig, target]


def run(args, checks=None) -> Problem | None:
    """The first problem of ``checks`` (default ``CHECKS``), or None."""
    for check in checks if checks is not None else CHECKS:
        problem = check(args)
        if problem is not None:
            return problem
    return None
