"""Running one Gherkin step against one side: the suite's own step definitions, found by their
patterns as pytest-bdd finds them (each line must match exactly one), called with the side's
scenario context (``k32``), the parsed arguments, the datatable and the docstring."""

from __future__ import annotations

import functools
import inspect

from kube32.conformance import steplint
from kube32.conformance.explore.gherkin import Step


class UnknownStep(ValueError):
    """The explorer wrote a line no step definition (or more than one) matches: its own bug."""


class Finalizers:
    """The ``request`` fixture as the few steps that take it use it: ``addfinalizer``."""

    def __init__(self) -> None:
        self.callbacks: list = []

    def addfinalizer(self, callback) -> None:
        self.callbacks.append(callback)

    def run(self) -> None:
        callbacks, self.callbacks = self.callbacks, []
        for callback in reversed(callbacks):
            callback()


@functools.cache
def _definitions() -> tuple:
    return tuple(steplint.definitions())


@functools.lru_cache(maxsize=4096)
def definition(keyword: str, text: str):
    """The one step definition for this line (Given/When/Then: the definition's own type)."""
    kind = keyword.lower()
    found = [d for d in _definitions() if d.type in (kind, None) and d.parser.is_matching(text)]
    funcs = {d.step_func for d in found}
    if len(funcs) != 1:
        raise UnknownStep(f"{keyword} {text!r} matches {len(funcs)} step definitions")
    return found[0]


def run(step: Step, k32, request: Finalizers) -> object:
    """Call the step's definition; what it raises is the step's verdict (AssertionError: the side
    broke what the step checks; HarnessError: no verdict)."""
    ctx = definition(step.keyword, step.text)
    args = dict(ctx.parser.parse_arguments(step.text) or {})
    for name, convert in (ctx.converters or {}).items():
        if name in args:
            args[name] = convert(args[name])
    wanted = inspect.signature(ctx.step_func).parameters
    offered = {"k32": k32, "datatable": step.datatable, "docstring": step.docstring, "request": request, **args}
    missing = [n for n in wanted if n not in offered]
    if missing:
        raise UnknownStep(f"step {step.text!r} needs fixtures the explorer does not offer: {missing}")
    return ctx.step_func(**{n: offered[n] for n in wanted})
