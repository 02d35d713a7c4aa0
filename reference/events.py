"""The event recorder: core/v1 Events with involvedObject (uid included, so `kubectl describe`
finds them) and upstream-style aggregation of repeats into ``count``/``lastTimestamp``."""

from __future__ import annotations

import secrets

from kube32.spec import timefmt


class EventRecorder:
    def __init__(self, store, clock) -> None:
        self.store, self.clock = store, clock
        self._seen: dict[tuple, str] = {}

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
            existing = self.store.peek("events", ns, name) if name else None
            if existing is not None:       # (the store keeps a copy: the stored Event is not changed)
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
            self._seen[key] = name
            return self.store.create("events", event, copy=False)
