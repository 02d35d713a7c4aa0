"""The store's chores, run on the control plane's loops so that memory and the file stay flat: Events
past their time to live are deleted (``Store.expire``: a DELETED watch event each, as etcd's lease
expiry gives), the history lets go of what is older than its age bound, the shared-container table
forgets what no object uses, the file gives free pages back, and once the history holds
``RELEASE_BYTES`` less than it did (a burst of large writes is over) the table is swept and the C
allocator asked to give free memory back to the system (glibc keeps the pages of freed large
strings otherwise: RSS would stay at an attacker's peak). In a steady state, where the history
lets go as much as it takes, neither runs: pages given back would only be faulted in again. Each pass does a
bounded amount, holding the store lock for at most ``CHUNK`` deletions at a time.
"""

from __future__ import annotations

from kube32.reference import memory
from kube32.reference.store import history

INTERVAL = 1.0          # seconds between passes (the precision of a time to live)
CHUNK = 100             # deletions per hold of the store lock
PER_PASS = 1000         # deletions per pass; what is left waits for the next pass
VACUUM_PAGES = 256      # free pages (1 MiB at SQLite's default page size) given back per pass
RELEASE_BYTES = 8 * 1024 * 1024      # how much less than its peak the history must hold to give memory back


class Housekeeping:
    NAME = "store-housekeeping"
    LOCKS_ITSELF = True

    def __init__(self, store, on_expired=None) -> None:
        self.store = store
        self.on_expired = on_expired     # told the keys of what expired (the event recorder forgets them)
        self.expired = 0

    def interval(self) -> float:
        return INTERVAL

    def reconcile(self, now: float) -> None:
        store = self.store
        done = 0
        while done < PER_PASS:
            keys = store.expire(now, CHUNK)
            done += len(keys)
            if keys and self.on_expired is not None:
                self.on_expired(keys)
            if len(keys) < CHUNK:
                break
        self.expired += done
        store.trim_history(now)
        shrunk = store.history.peak - store.history.bytes > RELEASE_BYTES
        store.sweep(force=shrunk)
        store._backend.vacuum(VACUUM_PAGES)
        if shrunk:
            store.history.peak = store.history.bytes
            memory.give_back()

    def idle_until(self, now: float) -> float:
        """With the store unchanged, nothing to do before the next expiry or history age-out."""
        until = now + history.MAX_AGE
        due = self.store.expiry.next_due()
        if due is not None:
            until = min(until, due)
        oldest = self.store.history.oldest()
        if oldest is not None:
            until = min(until, oldest + history.MAX_AGE)
        return until
