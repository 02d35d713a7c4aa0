"""Helpers shared by step modules: tables, labels, manifests, remembered answers."""

from __future__ import annotations

import copy

import yaml

from kube32.conformance.errors import ApiStatusError

DEFAULT_IMAGE = "kube32/app:1"


def needs(*capabilities: str):
    """Declare that a step works only on targets with these capabilities (``@needs-<capability>``):
    ``clauses --check`` fails a scenario that uses the step without the tags (the runner reads the
    tags before any step runs: parallel.py runs such scenarios alone on a shared target)."""
    def declare(func):
        func.kube32_needs = frozenset(capabilities)
        return func
    return declare


def rows(datatable: list[list[str]]) -> list[dict[str, str]]:
    """A datatable with a header row as a list of dicts (cells stripped)."""
    header, *body = datatable
    return [{h.strip(): c.strip() for h, c in zip(header, row, strict=True)} for row in body]


def quantities_table(datatable: list[list[str]]) -> dict[str, str]:
    """``| resource | quantity |`` tables as a dict."""
    out = {}
    for row in rows(datatable):
        if "resource" not in row or "quantity" not in row:
            raise ValueError("this table needs the columns | resource | quantity |")
        out[row["resource"]] = row["quantity"]
    return out


def labels(text: str) -> dict[str, str]:
    out = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"labels are written k=v,k2=v2; got {part!r}")
        out[key.strip()] = value.strip()
    return out


def pod_manifest(name: str, namespace: str, *, requests: dict | None = None, limits: dict | None = None,
                 node: str | None = None) -> dict:
    container: dict = {"name": "main", "image": DEFAULT_IMAGE}
    resources = {}
    if requests:
        resources["requests"] = dict(requests)
    if limits:
        resources["limits"] = dict(limits)
    if resources:
        container["resources"] = resources
    spec: dict = {"containers": [container]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def manifest(docstring: str, kind: str, name: str | None, namespace: str) -> dict:
    """A YAML docstring as an object of ``kind``; name and namespace filled in when missing."""
    obj = yaml.safe_load(docstring)
    if not isinstance(obj, dict):
        raise ValueError(f"the docstring must be a YAML {kind} manifest")
    obj = copy.deepcopy(obj)
    obj.setdefault("kind", kind)
    meta = obj.setdefault("metadata", {})
    if name:
        meta.setdefault("name", name)
    meta["namespace"] = namespace
    return obj


def remember_create(k32, key: str, obj: dict) -> dict | ApiStatusError:
    """Create ``obj`` and remember the answer (object or error) under ``key``; errors are kept for a
    later Then to judge, not raised."""
    try:
        answer = k32.api.create(k32.fence(obj))
        k32.objects[key] = answer
    except ApiStatusError as exc:
        answer = exc
    k32.responses[key] = answer
    return answer


def explain_missing(k32, key: str, what: str) -> str:
    answer = k32.responses.get(key)
    if isinstance(answer, ApiStatusError):
        return f"{what} {key!r} was never created: the target answered {answer}"
    return f"{what} {key!r} does not exist"


# -- step patterns --------------------------------------------------------------------------
def _quoted(text: str) -> str:
    return text


_quoted.pattern = r'[^"]*'   # a quoted value never spans a closing quote
EXTRA_TYPES = {"Q": _quoted}


def step(template: str):
    """A step pattern whose ``{name}`` placeholders match text up to the next double quote, so
    'pod "p" on node "n"' can never be read as one long name. Typed placeholders ({n:d}) are kept."""
    import re

    from pytest_bdd import parsers

    return parsers.parse(re.sub(r"\{(\w+)\}", r"{\1:Q}", template), extra_types=EXTRA_TYPES)


def status_written(k32, check, what: str, interval: float):
    """A status a controller writes about what its pass saw: in that pass at reference level (our
    reading), and at document level one ``interval`` later at the latest (docs/REPORTS.md: a status
    may lag the pass that caused it by one interval). Returns what ``check`` returned."""
    written = False
    with k32.reference():
        result = k32.eventually(check, what)
        written = True
    if written:
        return result
    k32.timeline.advance(interval)
    return k32.eventually(check, f"{what} (one interval later)")


def assert_made_from(pods: list[dict], template: dict) -> None:
    """Every pod carries the template's labels and runs its containers (name and image): what a
    controller's "from the template" means black-box."""
    want_labels = (template.get("metadata") or {}).get("labels") or {}
    want = [(c["name"], c["image"]) for c in template["spec"]["containers"]]
    for pod in pods:
        got_labels = pod["metadata"].get("labels") or {}
        assert want_labels.items() <= got_labels.items(), f"{pod['metadata']['name']} is labelled {got_labels}"
        got = [(c.get("name"), c.get("image")) for c in pod["spec"].get("containers") or []]
        assert got == want, f"{pod['metadata']['name']} runs {got}, the template {want}"
