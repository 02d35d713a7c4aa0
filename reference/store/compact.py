"""Compact copies of objects for the store: many small objects share what is equal.

``compact(obj)`` returns a deep copy in which every dict key and every short string value is
interned, and every non-empty container is shared with an equal one already stored, nested ones
included (a label map, a container with its requests, a whole ``spec`` ...): built bottom-up, a
container is known by its keys, its scalars (with their types: ``1``, ``1.0`` and ``true`` stay
apart) and the identity of its children, which are shared already. Stored objects are never
changed in place (the store's contract; ``frozen`` enforces it in the tests), so sharing is
invisible; a writer always gets its own deep copy back (``Store.get``). With 50,000 pods of one
template, only each pod's top level and ``metadata`` (name, uid, timestamps, resourceVersion) are
its own.

The table of shared containers holds what stored objects (and the watch history) still use:
``sweep()`` forgets every container nothing else holds any more, so an object's parts go with it;
``TABLE_LIMIT`` stays as a backstop (the table starts over past it).
"""

from __future__ import annotations

import sys

from kube32.reference.store.frozen import FrozenDict, FrozenList

SHORT = 40            # strings up to this length are interned (names, kinds, quantities, reasons)
TABLE_LIMIT = 200_000  # shared containers remembered; the table starts over past this
_CONTAINER_BYTES, _SLOT_BYTES = 100, 30   # what a dict or list and each of its entries take (estimated)
# In a container's key, the marker before a child container's id (a child is known by its identity:
# it is shared already, and the table entry of its parent keeps it alive, so the id is not reused)
_CHILD = object()


class Compactor:
    def __init__(self, frozen: bool = False) -> None:
        self._containers: dict[tuple, object] = {}
        self._frozen = frozen           # shared containers are FrozenDict / FrozenList
        self.swept_at = 0               # the table's size after the last sweep
        self.added = 0                  # bytes (estimated) of the containers tabled since

    def compact_object(self, obj: dict, like: dict | None = None) -> dict:
        """``compact`` for a whole object, whose ``metadata`` dict stays its own (the store fills in
        uid, resourceVersion ... after this copy). ``like``: a stored object ``obj`` may share parts
        with (a draft of it): those parts are compact already and are kept as they are."""
        return self.compact_sized(obj, like)[0]

    def compact_sized(self, obj: dict, like: dict | None = None) -> tuple[dict, int]:
        """``compact_object`` and an estimate of the memory the copy does not share with anything
        stored before (its new containers and long strings, in bytes; its own top level and
        ``metadata`` dicts not counted)."""
        made = [0]
        out = {}
        for k, v in obj.items():
            old = like.get(k) if like is not None else None
            if k == "metadata" and isinstance(v, dict):
                old = old if isinstance(old, dict) else None
                v = {sys.intern(mk): self.compact(mv, old.get(mk) if old is not None else None, made)
                     for mk, mv in v.items()}
            else:
                v = self.compact(v, old, made)
            out[sys.intern(k)] = v
        return out, made[0]

    def compact(self, value, like=None, made: list[int] | None = None):
        if like is not None and value is like and isinstance(value, (dict, list)):
            return value            # a part of a stored object: compact already, never changed
        if isinstance(value, dict):
            out = {}
            key: list = ["d"]
            strings = 0
            like = like if isinstance(like, dict) else None
            for k, v in value.items():
                if type(k) is str:
                    k = sys.intern(k)
                if isinstance(v, (dict, list)):
                    v = self.compact(v, like.get(k) if like is not None else None, made)
                    key += (k, _CHILD, id(v))
                elif type(v) is str:
                    if len(v) <= SHORT:
                        v = sys.intern(v)
                    else:
                        strings += len(v)
                    key += (k, v)
                else:
                    key += (k, type(v), v)
                out[k] = v
            if not out:
                return out
            return self._share(tuple(key), FrozenDict(out) if self._frozen else out, strings, made)
        if isinstance(value, list):
            out_list = []
            key = ["l"]
            strings = 0
            for v in value:
                if isinstance(v, (dict, list)):
                    v = self.compact(v, None, made)
                    key += (_CHILD, id(v))
                elif type(v) is str:
                    if len(v) <= SHORT:
                        v = sys.intern(v)
                    else:
                        strings += len(v)
                    key.append(v)
                else:
                    key += (type(v), v)
                out_list.append(v)
            if not out_list:
                return out_list
            return self._share(tuple(key), FrozenList(out_list) if self._frozen else out_list, strings, made)
        if type(value) is str:
            if len(value) <= SHORT:
                return sys.intern(value)
            if made is not None:
                made[0] += len(value)
        return value

    def _share(self, key: tuple, value, strings: int = 0, made: list[int] | None = None):
        try:
            known = self._containers.get(key)
        except TypeError:        # an unhashable scalar (cannot happen for JSON): keep it unshared
            key = None
            known = None
        if known is not None:
            return known
        size = _CONTAINER_BYTES + _SLOT_BYTES * len(value) + strings      # a new container
        if made is not None:
            made[0] += size
        if key is None:
            return value
        self.added += size
        if len(self._containers) >= TABLE_LIMIT:
            self._containers.clear()
        self._containers[key] = value
        return value

    def __len__(self) -> int:
        return len(self._containers)

    def sweep(self) -> int:
        """Forget the containers that only the table holds; how many. Newest first: a parent was
        added after its children, so a child its parent held is free by the time it is looked at
        (a child held by a kept parent stays: the parent's key names it by its id)."""
        table = self._containers
        forgotten = 0
        for key in reversed(list(table)):
            value = table.get(key)
            # held by the table, ``value`` here and getrefcount's argument: nothing else
            if value is not None and sys.getrefcount(value) <= 3:
                table.pop(key, None)
                forgotten += 1
            value = None
        self.swept_at = len(table)
        self.added = 0
        return forgotten
