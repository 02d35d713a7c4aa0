"""Persistence backends for the store: SQLite (durable) and memory (tests)."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (resource, namespace, name));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class MemoryBackend:
    """Keeps nothing: the store's memory is all there is."""

    def load(self) -> tuple[int, Iterator[tuple[str, str, str, dict]]]:
        return 0, iter(())

    def put(self, rv: int, res: str, ns: str, name: str, obj: dict) -> None:
        pass

    def remove(self, rv: int, res: str, ns: str, name: str) -> None:
        pass

    def close(self) -> None:
        pass


class SqliteBackend:
    """One SQLite file; each write is its own committed transaction (WAL), so an acknowledged
    write survives kill -9."""

    FILENAME = "kube32.sqlite3"

    def __init__(self, data_dir: str) -> None:
        os.makedirs(data_dir, exist_ok=True)
        self.path = os.path.join(data_dir, self.FILENAME)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def load(self) -> tuple[int, Iterator[tuple[str, str, str, dict]]]:
        row = self._db.execute("SELECT value FROM meta WHERE key='resourceVersion'").fetchone()
        rv = int(row[0]) if row else 0
        rows = self._db.execute("SELECT resource, namespace, name, body FROM objects").fetchall()
        return rv, ((r, ns, n, json.loads(b)) for r, ns, n, b in rows)

    def _write(self, rv: int, sql: str, args: tuple) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute(sql, args)
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES('resourceVersion', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (str(rv),))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def put(self, rv: int, res: str, ns: str, name: str, obj: dict) -> None:
        self._write(rv, "INSERT INTO objects(resource, namespace, name, body) VALUES(?,?,?,?) "
                        "ON CONFLICT(resource, namespace, name) DO UPDATE SET body=excluded.body",
                    (res, ns, name, json.dumps(obj, separators=(",", ":"))))

    def remove(self, rv: int, res: str, ns: str, name: str) -> None:
        self._write(rv, "DELETE FROM objects WHERE resource=? AND namespace=? AND name=?", (res, ns, name))

    def close(self) -> None:
        with self._lock:
            self._db.close()
