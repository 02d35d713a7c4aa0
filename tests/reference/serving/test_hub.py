"""The watch hub's memory is bounded by bytes: its ring keeps at most ``RING_BYTES`` of recent
events however large they are (5,000 writes of a 200 KiB object once held 800 MB there), and a
watch whose cursor the ring no longer reaches is told 410 Expired, as upstream tells it."""

from __future__ import annotations

import asyncio

from kube32.reference.serving import hub as hub_module
from kube32.reference.store.history import Event

BIG = 1 << 20


def event(rv: int, size: int) -> Event:
    return Event(rv, "MODIFIED", "pods", {"metadata": {"name": "p", "namespace": "default"}}, size=size)


class Channel:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.done = False

    def send(self, data: bytes) -> bool:
        self.sent.append(data)
        return True

    def finish(self) -> None:
        self.done = True


class Probe(hub_module.HubWatch):
    def expired(self) -> bytes:
        return b"EXPIRED"


def test_the_ring_holds_recent_events_by_bytes_not_by_count():
    loop = asyncio.new_event_loop()
    try:
        hub = hub_module.WatchHub(loop)
        for rv in range(1, 201):
            hub.publish(event(rv, BIG))
        loop.run_until_complete(asyncio.sleep(0.01))
        assert hub._ring_bytes <= hub_module.RING_BYTES
        assert 0 < len(hub._ring) <= hub_module.RING_BYTES // (2 * BIG)
        assert hub._ring[-1].rv == 200                              # the newest are kept
        small = [event(rv, 10) for rv in range(201, 201 + hub_module.RING + 10)]
        for e in small:
            hub.publish(e)
        loop.run_until_complete(asyncio.sleep(0.01))
        assert len(hub._ring) == hub_module.RING                   # and never more than RING of them

        late = Probe(hub, "pods", None, 150, b"HEAD", 60)           # its cursor fell out of the ring
        late.attach(Channel())
        assert late.channel.sent == [b"HEADEXPIRED"] and late.channel.done
        recent = Probe(hub, "pods", None, small[-5].rv, b"HEAD", 60)
        recent.attach(Channel())
        assert not recent.channel.done and recent.channel.sent[0].startswith(b"HEAD")
        assert recent.channel.sent[0].count(b'"type":"MODIFIED"') == 4
        recent.detach()
    finally:
        loop.close()


def test_admission_counts_each_identity_and_the_server():
    hub = hub_module.WatchHub(asyncio.new_event_loop(), per_identity=2, max_watches=3)
    assert hub.admit("a") and hub.admit("a") and not hub.admit("a")
    assert hub.admit("b") and not hub.admit("c")               # the server's bound
    hub.release("a")
    assert hub.admit("c")
    hub.loop.close()
