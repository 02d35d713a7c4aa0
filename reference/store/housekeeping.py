"""The store's chores, run on the control plane's loops so that memory and the file stay flat: Events
past their time to live are deleted (``Store.expire``: a DELETED watch event each, as etcd's lease
expiry gives), the history lets go of what is older than its age bound, the shared-container table
forgets what no object uses, and the file gives free pages back. Each pass does a bounded amount,
holding the store lock for at most ``CHUNK`` deletions at a time.
"""

from __future__ import annotations

from kube32.reference.store import history

INTERVAL = 1.0          # seconds between passes (the precision of a time to live)
CHUNK = 100             # deletions per hold of the store lock
PER_PASS = 1000         # deletions per pass; what is left waits for the next pass
VACUUM_PAGES = 256      # free pages (1 MiB at SQLite's default page size) given back per pass


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
        store.sweep()
        store._backend.vacuum(VACUUM_PAGES)

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
