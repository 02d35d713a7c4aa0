"""Label selectors (string and LabelSelector forms) and field selectors."""

from __future__ import annotations

import re
from collections.abc import Callable

from kube32.reference import errors

Predicate = Callable[[dict], bool]

_SET_EXPR = re.compile(r"^\s*(!?)\s*([A-Za-z0-9_./-]+)\s*(?:(notin|in)\s*\(([^)]*)\))?\s*$")
_EQ_EXPR = re.compile(r"^\s*([A-Za-z0-9_./-]+)\s*(==|=|!=)\s*([A-Za-z0-9_.-]*)\s*$")


def _split_terms(text: str) -> list[str]:
    terms, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            terms.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        terms.append(cur)
    return [t for t in terms if t.strip()]


def parse_label_selector(text: str | None) -> Predicate:
    """``app=web,tier!=db,env in (a,b),!legacy,canary`` -> predicate over a labels dict."""
    if not text:
        return lambda labels: True
    checks: list[Predicate] = []
    for term in _split_terms(text):
        eq = _EQ_EXPR.match(term)
        if eq:
            key, op, val = eq.groups()
            if op == "!=":
                checks.append(lambda lb, k=key, v=val: lb.get(k) != v)
            else:
                checks.append(lambda lb, k=key, v=val: lb.get(k) == v)
            continue
        st = _SET_EXPR.match(term)
        if not st:
            raise errors.BadRequest(f"unable to parse requirement: {term.strip()!r}")
        neg, key, op, vals = st.groups()
        if op:
            values = {v.strip() for v in vals.split(",") if v.strip()}
            if op == "in":
                checks.append(lambda lb, k=key, vs=values: lb.get(k) in vs)
            else:
                checks.append(lambda lb, k=key, vs=values: lb.get(k) not in vs)
        elif neg:
            checks.append(lambda lb, k=key: k not in lb)
        else:
            checks.append(lambda lb, k=key: k in lb)
    return lambda labels: all(c(labels or {}) for c in checks)


def equality_terms(text: str | None) -> dict[str, str]:
    """The ``k=v`` terms of a selector string (used to narrow a list through the label index)."""
    out: dict[str, str] = {}
    for term in _split_terms(text or ""):
        eq = _EQ_EXPR.match(term)
        if eq and eq.group(2) != "!=":
            out[eq.group(1)] = eq.group(3)
    return out


def match_label_selector(selector: dict | None, labels: dict | None) -> bool:
    """A metav1.LabelSelector (matchLabels + matchExpressions). An empty selector matches all."""
    labels = labels or {}
    if not selector:
        return True
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def selector_string(selector: dict | None) -> str:
    """``matchLabels`` as ``k=v,k2=v2`` (autoscaling/v1 Scale.status.selector)."""
    parts = [f"{k}={v}" for k, v in sorted(((selector or {}).get("matchLabels") or {}).items())]
    for expr in (selector or {}).get("matchExpressions") or []:
        op, key, values = expr.get("operator"), expr.get("key"), expr.get("values") or []
        if op == "In":
            parts.append(f"{key} in ({','.join(values)})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(values)})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
    return ",".join(parts)


# Field selectors ------------------------------------------------------------------------
_FIELD_ALIASES = {"spec.host": "spec.nodeName", "source": "source.component",
                  "reportingComponent": "reportingComponent"}


def field_value(obj: dict, path: str) -> str:
    path = _FIELD_ALIASES.get(path, path)
    cur: object = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def parse_field_selector(text: str | None) -> Predicate:
    """``involvedObject.name=web,type!=Normal`` -> predicate over an object."""
    if not text:
        return lambda obj: True
    checks: list[Predicate] = []
    for term in text.split(","):
        term = term.strip()
        if not term:
            continue
        m = re.match(r"^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$", term)
        if not m:
            raise errors.BadRequest(f"invalid field selector: {term!r}")
        path, op, value = m.groups()
        if op == "!=":
            checks.append(lambda o, p=path, v=value: field_value(o, p) != v)
        else:
            checks.append(lambda o, p=path, v=value: field_value(o, p) == v)
    return lambda obj: all(c(obj) for c in checks)
