"""Durable object store with store-wide resourceVersions and a watch log.

Objects live in memory (read path) and are written through to a backend: SQLite by default
(``SqliteBackend``), nothing for unit tests (``MemoryBackend``). Stored dicts are never mutated in
place, so list snapshots stay consistent while writers replace objects.
"""

from kube32.reference.store.backends import MemoryBackend as MemoryBackend
from kube32.reference.store.backends import SqliteBackend as SqliteBackend
from kube32.reference.store.store import Event as Event
from kube32.reference.store.store import Store as Store
from kube32.reference.store.store import Watch as Watch
