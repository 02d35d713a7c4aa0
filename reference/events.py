"""The event recorder: core/v1 Events with involvedObject (uid included, so `kubectl describe`
finds them) and upstream-style aggregation of repeats into ``count``/``lastTimestamp``.

Repeats are found through a table of the Events recorded, bounded as client-go's event cache is
(``MAX_SEEN`` entries, least recently used first out); an Event whose time to live ran out leaves
it as the store deletes it (``forget``, from the housekeeping), so it shrinks with them; one deleted
otherwise is dropped when its repeat comes and finds it gone.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict

from kube32.spec import timefmt

MAX_SEEN = 4096          # client-go tools/record: maxLruCacheEntries


class EventRecorder:
    def __init__(self, store, clock) -> None:
        self.store, self.clock = store, clock
        self._seen: OrderedDict[tuple, str] = OrderedDict()     # repeat key -> Event name
        self._key_of: dict[tuple[str, str], tuple] = {}          # (namespace, Event name) -> repeat key

    def __len__(self) -> int:
        return len(self._seen)

    def record(self, obj: dict, type_: str, reason: str, message: str, component: str) -> dict:
        """Create the Event, or count a repeat on the one recorded before; returns the stored Event
        (READ-ONLY)."""
        meta = obj.get("metadata", {})
        ns = meta.get("namespace") or "default"
        involved = {
            "kind": obj.get("kind", ""),
            "namespace": meta.get("namespace", ""),
            "name": meta.get("name", ""),
            "uid": meta.get("uid", ""),
            "apiVersion": obj.get("apiVersion", ""),
            "resourceVersion": meta.get("resourceVersion", ""),
        }
        involved = {k: v for k, v in involved.items() if v}
        now = timefmt.rfc3339(self.clock.now())
        key = (ns, involved.get("uid"), involved.get("name"), type_, reason, message, component)
        with self.store.lock:
            name = self._seen.get(key)
            existing = self.store.head.peek("events", ns, name) if name else None
            if existing is not None:       # (the store keeps a copy: the stored Event is not changed)
                self._seen.move_to_end(key)
                repeat = {**existing, "count": int(existing.get("count", 1)) + 1, "lastTimestamp": now}
                return self.store.update("events", repeat, check_rv=False, copy=False)
            name = f"{involved.get('name', 'event')}.{secrets.token_hex(8)}"
            event = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": name, "namespace": ns},
                "involvedObject": involved,
                "reason": reason,
                "message": message,
                "type": type_,
                "count": 1,
                "firstTimestamp": now,
                "lastTimestamp": now,
                "source": {"component": component},
                "reportingComponent": component,
            }
            created = self.store.create("events", event, copy=False)
            self._remember(key, ns, name)
            return created

    def _remember(self, key: tuple, ns: str, name: str) -> None:
        old = self._seen.pop(key, None)
        if old is not None:
            self._key_of.pop((ns, old), None)
        self._seen[key] = name
        self._key_of[(ns, name)] = key
        while len(self._seen) > MAX_SEEN:
            dropped_key, dropped = self._seen.popitem(last=False)
            self._key_of.pop((dropped_key[0], dropped), None)

    def forget(self, keys) -> None:
        """The store deleted these Events ((resource, namespace, name) keys): no repeat counts on them."""
        with self.store.lock:
            for _, ns, name in keys:
                key = self._key_of.pop((ns, name), None)
                if key is not None and self._seen.get(key) == name:
                    del self._seen[key]
