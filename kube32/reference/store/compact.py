"""Compact copies of objects for the store: many small objects share what is equal.

``compact(obj)`` returns a deep copy in which every dict key and every short string value is
interned, and every container without nested containers (a label map, a toleration, a container's
requests ...) is shared with equal ones already stored. Stored objects are never mutated in place,
so sharing is invisible; a writer always gets its own deep copy back (``Store.get``). With 50,000
pods of one template, most of each pod is shared and only its identity (name, uid, timestamps,
resourceVersion) is its own.
"""

from __future__ import annotations

import sys

SHORT = 40            # strings up to this length are interned (names, kinds, quantities, reasons)
TABLE_LIMIT = 200_000  # shared leaves remembered; the table starts over past this


class Compactor:
    def __init__(self) -> None:
        self._leaves: dict[tuple, object] = {}

    def compact_object(self, obj: dict, like: dict | None = None) -> dict:
        """``compact`` for a whole object, whose ``metadata`` dict stays its own (the store fills in
        uid, resourceVersion ... after this copy). ``like``: a stored object ``obj`` may share parts
        with (a draft of it): those parts are compact already and are kept as they are."""
        out = {}
        for k, v in obj.items():
            old = like.get(k) if like is not None else None
            if k == "metadata" and isinstance(v, dict):
                old = old if type(old) is dict else None
                v = {sys.intern(mk): self.compact(mv, old.get(mk) if old is not None else None)
                     for mk, mv in v.items()}
            else:
                v = self.compact(v, old)
            out[sys.intern(k)] = v
        return out

    def compact(self, value, like=None):
        if like is not None and value is like and isinstance(value, (dict, list)):
            return value            # a part of a stored object: compact already, never changed
        if isinstance(value, dict):
            out = {}
            leaf = True
            like = like if type(like) is dict else None
            for k, v in value.items():
                if isinstance(v, (dict, list)):
                    leaf = False
                    v = self.compact(v, like.get(k) if like is not None else None)
                elif type(v) is str and len(v) <= SHORT:
                    v = sys.intern(v)
                out[sys.intern(k) if type(k) is str else k] = v
            return self._share(("d", *out.items()), out) if leaf and out else out
        if isinstance(value, list):
            out_list = []
            leaf = True
            for v in value:
                if isinstance(v, (dict, list)):
                    leaf = False
                    v = self.compact(v)
                elif type(v) is str and len(v) <= SHORT:
                    v = sys.intern(v)
                out_list.append(v)
            return self._share(("l", *out_list), out_list) if leaf and out_list else out_list
        if type(value) is str and len(value) <= SHORT:
            return sys.intern(value)
        return value

    def _share(self, key: tuple, value):
        try:
            known = self._leaves.get(key)
        except TypeError:        # an unhashable scalar (cannot happen for JSON): keep it unshared
            return value
        if known is not None:
            return known
        if len(self._leaves) >= TABLE_LIMIT:
            self._leaves.clear()
        self._leaves[key] = value
        return value
