"""Durable object store with store-wide resourceVersions and a bounded watch history.

Objects live in memory (read path) and are written through to a backend: SQLite by default
(``SqliteBackend``), nothing for unit tests (``MemoryBackend``). Readers see only durable writes;
writers read ``Store.head``. Stored objects are never changed in place (the contract is in
``store.store``; ``frozen`` enforces it in the test suite).
"""

from kube32.reference.store.backends import MemoryBackend as MemoryBackend
from kube32.reference.store.backends import SqliteBackend as SqliteBackend
from kube32.reference.store.history import Event as Event
from kube32.reference.store.store import Store as Store
from kube32.reference.store.store import Watch as Watch
