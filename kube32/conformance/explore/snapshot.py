"""What a side shows right now, read over its API once per comparison (lists, as any client reads)."""

from __future__ import annotations

from kube32.conformance.errors import ApiStatusError


class Snapshot:
    def __init__(self, side) -> None:
        self.side = side
        self._lists: dict[tuple[str, bool], list[dict]] = {}

    def list(self, kind: str, namespaced: bool = True) -> list[dict]:
        key = (kind, namespaced)
        if key not in self._lists:
            ctx = self.side.ctx
            try:
                self._lists[key] = ctx.api.list(kind, ctx.ns if namespaced else None)
            except ApiStatusError as exc:
                if exc.code not in (404, 405):
                    raise
                self._lists[key] = []
        return self._lists[key]

    def nodes(self) -> list[dict]:
        return self.list("Node", namespaced=False)

    def node(self, name: str) -> dict | None:
        return next((n for n in self.nodes() if n["metadata"]["name"] == name), None)

    def pods(self) -> list[dict]:
        return self.list("Pod")

    def pod(self, name: str) -> dict | None:
        return next((p for p in self.pods() if p["metadata"]["name"] == name), None)

    def events(self) -> list[dict]:
        return self.list("Event")

    def events_about(self, kind: str, name: str, reason: str) -> list[dict]:
        found = self.events() if kind != "Node" else self.list("Event", namespaced=False)
        return [e for e in found if (e.get("involvedObject") or {}).get("kind") == kind
                and (e.get("involvedObject") or {}).get("name") == name and e.get("reason") == reason]


def node_name(pod: dict | None) -> str | None:
    return ((pod or {}).get("spec") or {}).get("nodeName") or None


def phase(pod: dict | None) -> str:
    return ((pod or {}).get("status") or {}).get("phase") or "Pending"


def condition(obj: dict | None, ctype: str) -> dict | None:
    return next((c for c in ((obj or {}).get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def terminating(obj: dict | None) -> bool:
    return bool(((obj or {}).get("metadata") or {}).get("deletionTimestamp"))
