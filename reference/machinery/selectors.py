"""Label selectors (string and LabelSelector forms) and field selectors.

A selector string comes from a request's query, so reading it costs time linear in its length and
no more than ``limits.MAX_SELECTOR_BYTES`` of it is read at all: a tokenizer that never backtracks
and upstream's recursive descent over the tokens (``k8s.io/apimachinery/pkg/labels``: keys are
qualified names, values label values, ``in``/``notin`` sets, ``=``/``==``/``!=``, ``>``/``<``
integers, ``!key`` and ``key``). What a parsed selector costs per object is bounded too: at most
``limits.MAX_SELECTOR_REQUIREMENTS`` requirements, each a dict lookup and a set membership."""

from __future__ import annotations

import re
from collections.abc import Callable

from kube32.reference import errors
from kube32.reference.machinery import limits, validation

Predicate = Callable[[dict], bool]

_WHITESPACE = " \t\r\n"
# one token after optional whitespace: an operator (the two-character ones first) or an identifier
_TOKEN = re.compile(r"[ \t\r\n]*(?:(!=|==|[=!(),<>])|([^ \t\r\n=!(),<>]+))")
_OPERATORS = ("in", "notin", "=", "==", "!=", ">", "<")     # upstream's binaryOperators, in its order
_END = ""
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _bounded(text: str, what: str) -> None:
    if len(text) > limits.MAX_SELECTOR_BYTES:
        raise errors.BadRequest(f"the {what} is {len(text)} characters long; the limit is "
                                f"{limits.MAX_SELECTOR_BYTES}")


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, literal) pairs: kind is the operator itself, "id" for an identifier (``in`` and
    ``notin`` are both: the parser decides by position), or ``_END`` last."""
    out: list[tuple[str, str]] = []
    pos, n = 0, len(text)
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:                 # only whitespace is left
            out.append((_END, ""))
            return out
        op, ident = m.groups()
        out.append((op, op) if op else ("id", ident))
        pos = m.end()
        if pos >= n:
            out.append((_END, ""))
            return out


class Requirement:
    __slots__ = ("key", "op", "values", "number")

    def __init__(self, key: str, op: str, values: frozenset[str]) -> None:
        self.key, self.op, self.values = key, op, values
        self.number = _int64(next(iter(values))) if op in (">", "<") else 0

    def __call__(self, labels: dict) -> bool:
        op = self.op
        if op == "exists":
            return self.key in labels
        if op == "!":
            return self.key not in labels
        value = labels.get(self.key)
        if op in ("=", "==", "in"):
            return value is not None and value in self.values
        if op in ("!=", "notin"):
            return value is None or value not in self.values
        have = _int64(value) if isinstance(value, str) else None
        return have is not None and (have > self.number if op == ">" else have < self.number)


def _int64(text: str) -> int | None:
    """``text`` as Go's strconv.ParseInt(text, 10, 64) reads it, or None."""
    if len(text) > 64 or not _INTEGER.fullmatch(text):
        return None
    value = int(text)
    return value if -2**63 <= value < 2**63 else None


class LabelSelector:
    """A parsed label selector: call it with a labels dict (None: no labels)."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: list[Requirement]) -> None:
        self.requirements = tuple(sorted(requirements, key=lambda r: r.key))   # upstream sorts by key

    def __call__(self, labels: dict | None) -> bool:
        labels = labels or {}
        return all(r(labels) for r in self.requirements)

    def equalities(self) -> dict[str, str]:
        """The ``k=v`` requirements (to narrow a list through the label index)."""
        return {r.key: next(iter(r.values)) for r in self.requirements if r.op in ("=", "==")}


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = _tokens(text)
        self.pos = 0

    def peek(self) -> tuple[str, str]:
        return self.items[self.pos]

    def take(self) -> tuple[str, str]:
        item = self.items[self.pos]
        self.pos += 1
        return item

    def selector(self) -> list[Requirement]:
        found: list[Requirement] = []
        while True:
            kind, lit = self.peek()
            if kind == _END:
                return found
            if kind not in ("id", "!"):
                raise _Bad(f"found '{lit}', expected: !, identifier, or 'end of string'", wrap=False)
            found.append(self.requirement())
            if len(found) > limits.MAX_SELECTOR_REQUIREMENTS:
                raise errors.BadRequest(f"a label selector may have at most {limits.MAX_SELECTOR_REQUIREMENTS} "
                                        "requirements")
            kind, lit = self.take()
            if kind == _END:
                return found
            if kind != ",":
                raise _Bad(f"found '{lit}', expected: ',' or 'end of string'", wrap=False)
            if self.peek()[0] not in ("id", "!"):
                raise _Bad(f"found '{self.peek()[1]}', expected: identifier after ','", wrap=False)

    def requirement(self) -> Requirement:
        kind, key = self.take()
        absent = kind == "!"
        if absent:
            kind, key = self.take()
        if kind != "id":
            raise _Bad(f"found '{key}', expected: identifier")
        problem = validation.label_key_problem(key)
        if problem:
            raise _Bad(f'<nil>: Invalid value: "{key}": {problem}')
        if absent or self.peek()[0] in (_END, ","):     # (what follows "!key" is the caller's to judge)
            return Requirement(key, "!" if absent else "exists", frozenset())
        kind, lit = self.take()
        op = lit if kind == "id" and lit in ("in", "notin") else kind
        if op not in _OPERATORS:
            raise _Bad(f"found '{lit}', expected: {', '.join(_OPERATORS)}")
        values = self.set_values() if op in ("in", "notin") else self.exact_value()
        return _requirement(key, op, values)

    def set_values(self) -> list[str]:
        kind, lit = self.take()
        if kind != "(":
            raise _Bad(f"found '{lit}' expected: '('")
        kind, lit = self.peek()
        if kind == ")":
            self.take()
            return [""]
        if kind not in ("id", ","):
            raise _Bad(f"found '{lit}', expected: ',', ')' or identifier")
        values: list[str] = []
        while True:
            kind, lit = self.take()
            if kind == "id":
                values.append(lit)
                after, after_lit = self.peek()
                if after == ")":
                    self.take()
                    return values
                if after != ",":
                    raise _Bad(f"found '{after_lit}', expected: ',' or ')'")
            elif kind == ",":            # an empty value: "(,a)", "(a,,b)", "(a,)"
                if not values or self.peek()[0] in (",", ")"):
                    values.append("")
                if self.peek()[0] == ")":
                    self.take()
                    return values
            else:
                raise _Bad(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> list[str]:
        kind, lit = self.peek()
        if kind in (_END, ","):
            return [""]
        self.take()
        if kind != "id":
            raise _Bad(f"found '{lit}', expected: identifier")
        return [lit]


def _requirement(key: str, op: str, values: list[str]) -> Requirement:
    """Upstream's NewRequirement checks for a binary operator's values."""
    problems = []
    if op in (">", "<") and _int64(values[0]) is None:
        problems.append(f"values[0]: Invalid value: \"{values[0]}\": for 'Gt', 'Lt' operators, the value "
                        "must be an integer")
    for i, value in enumerate(values):
        if len(value) > validation.LABEL_MAX:
            problems.append(f'values[{i}][{key}]: Invalid value: "{value}": must be no more than '
                            f"{validation.LABEL_MAX} characters")
        elif not validation.label_value_ok(value):
            problems.append(f'values[{i}][{key}]: Invalid value: "{value}": {validation.LABEL_VALUE_MESSAGE}')
    if problems:
        raise _Bad(problems[0] if len(problems) == 1 else f"[{', '.join(problems)}]")
    return Requirement(key, op, frozenset(values))


class _Bad(Exception):
    def __init__(self, message: str, wrap: bool = True) -> None:
        self.message = f"unable to parse requirement: {message}" if wrap else message


def parse_label_selector(text: str | None) -> LabelSelector:
    """``app=web,tier!=db,env in (a,b),!legacy,canary,rank>3`` -> a ``LabelSelector`` (a predicate
    over a labels dict). A selector upstream would refuse is a 400 BadRequest with its words."""
    if not text:
        return LabelSelector([])
    _bounded(text, "label selector")
    try:
        return LabelSelector(_Parser(text).selector())
    except _Bad as bad:
        raise errors.BadRequest(bad.message) from None


def equality_terms(text: str | None) -> dict[str, str]:
    """The ``k=v`` terms of a selector string (used to narrow a list through the label index)."""
    return parse_label_selector(text).equalities()


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
_FIELD_PATH = re.compile(r"[A-Za-z0-9_.]+")
_FIELD_OPERATOR = re.compile(r"!=|==|=")


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
    """``involvedObject.name=web,type!=Normal`` -> predicate over an object. Each term is split at
    its first operator (as upstream's splitTerm); the path may have spaces around it."""
    if not text:
        return lambda obj: True
    _bounded(text, "field selector")
    checks: list[tuple[str, bool, str]] = []
    for term in text.split(","):
        term = term.strip(_WHITESPACE)
        if not term:
            continue
        m = _FIELD_OPERATOR.search(term)
        path = term[:m.start()].strip(_WHITESPACE) if m else ""
        if m is None or not _FIELD_PATH.fullmatch(path):
            raise errors.BadRequest(f"invalid field selector: {term[:100]!r}")
        checks.append((path, m.group(0) == "!=", term[m.end():].lstrip(_WHITESPACE)))
        if len(checks) > limits.MAX_SELECTOR_REQUIREMENTS:
            raise errors.BadRequest(f"a field selector may have at most {limits.MAX_SELECTOR_REQUIREMENTS} "
                                    "requirements")
    return lambda obj: all((field_value(obj, p) != v) if negated else (field_value(obj, p) == v)
                           for p, negated, v in checks)
