"""The frozen-store mode: stored objects that refuse to be changed in place.

The store shares stored objects with every reader (``peek``, ``list``, ``copy=False``, the watch
log) and shares equal subtrees between objects (``compact``), so a change made in place to one of
them would change other objects and what watchers were already sent, silently. With the mode on
(``KUBE32_FROZEN_STORE=1``, set by the test suite; off in production, where it costs a copy of each
container a write stores), every container of a stored object is a ``FrozenDict`` or ``FrozenList``:
a change in place raises ``FrozenObjectError`` where it is made, and is also remembered in
``BREACHES``, so that code which catches every exception (a controller's ``loop.isolated``, the
API's 500 handler) cannot hide it from the test that ran it.

Copies are plain: ``dict(x)``, ``{**x}``, ``x.copy()``, ``copy.deepcopy(x)`` and ``Store.get`` give
ordinary mutable containers.
"""

from __future__ import annotations

import copy
import os
import traceback

ENV = "KUBE32_FROZEN_STORE"
BREACHES: list[str] = []           # one line per breach (the offending call site), for the test suite


def enabled() -> bool:
    """Whether a store made now freezes what it stores (the environment decides)."""
    return os.environ.get(ENV, "") not in ("", "0")


class FrozenObjectError(TypeError):
    """A stored object was about to be changed in place."""


def _refuse(self, *args, **kwargs):
    where = traceback.extract_stack(limit=2)[0]
    message = (f"a stored {type(self).__name__[6:].lower()} is never changed in place (copy it first: "
               f"Store.get, dict(x), copy.deepcopy(x)); at {where.filename}:{where.lineno}")
    BREACHES.append(message)
    raise FrozenObjectError(message)


class FrozenDict(dict):
    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo) -> dict:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self):
        return (dict, (dict(self),))


class FrozenList(list):
    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __copy__(self) -> list:
        return list(self)

    def __deepcopy__(self, memo) -> list:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce__(self):
        return (list, (list(self),))


def freeze(value):
    """``value`` with every container frozen; frozen containers are kept as they are (their
    contents are frozen already)."""
    kind = type(value)
    if kind is dict:
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if kind is list:
        return FrozenList([freeze(v) for v in value])
    return value
