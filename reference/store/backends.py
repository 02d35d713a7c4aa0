"""Persistence backends for the store: SQLite (durable) and memory (tests).

``SqliteBackend`` commits each write as its own WAL transaction while the store lock is held (a
failed write raises before memory changes, so a request never half-happens). Durability against
power loss comes from GROUP COMMIT: a sync thread fsyncs the WAL file, covering every commit made
since its last fsync, tells the store (``on_durable``: the writes become visible) and a request is
answered only once its writes are covered (``wait_durable``). With ``fsync=False``
(``serve --unsafe-no-fsync``) writes survive a killed process but not a power cut or an OS crash.

A failed fsync is final (the PostgreSQL "fsyncgate" lesson: after it the kernel may have dropped
the dirty pages, so a later fsync that succeeds proves nothing): the sync thread stops, every write
it had not covered is answered 500, the store takes them back (``on_failure``, then ``revert``
writes what readers saw over them, in case the disk takes that) and refuses writes until restart.

The file shrinks when objects go (``auto_vacuum=INCREMENTAL`` for a new store, ``vacuum()`` from
the housekeeping), and the WAL file is cut back after a checkpoint (``journal_size_limit``).

Opening checks the data dir and the file (``StoreDamaged``): the server never starts empty, or on
reused resourceVersions, because of a damaged store.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator

from kube32.reference import errors

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (resource, namespace, name));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_UPSERT = ("INSERT INTO objects(resource, namespace, name, body) VALUES(?,?,?,?) "
           "ON CONFLICT(resource, namespace, name) DO UPDATE SET body=excluded.body")
_DELETE = "DELETE FROM objects WHERE resource=? AND namespace=? AND name=?"
_SQLITE_MAGIC = b"SQLite format 3\x00"
DURABLE_WAIT = 30.0      # seconds a request waits for its fsync before the server reports the disk stuck
WAL_SIZE_LIMIT = 16 * 1024 * 1024      # bytes the WAL file is cut back to after a checkpoint


class StoreDamaged(Exception):
    """The data dir cannot be served as it is; the message names the file and the problem."""


class MemoryBackend:
    """Keeps nothing: the store's memory is all there is."""

    deferred = False          # a write is as durable as it will ever be once it is in memory
    keeps_bodies = False      # put() needs no JSON body
    synced = 0

    def load(self) -> tuple[int, Iterator[tuple[str, str, str, dict]]]:
        return 0, iter(())

    def put(self, rv: int, res: str, ns: str, name: str, body: str) -> int:
        return 0

    def remove(self, rv: int, res: str, ns: str, name: str) -> int:
        return 0

    def get_meta(self, key: str) -> str | None:
        return None

    def set_meta(self, key: str, value: str) -> None:
        pass

    def wait_durable(self, seq: int) -> None:
        pass

    def revert(self, rows, rv: int) -> None:
        pass

    def vacuum(self, pages: int = 0) -> int:
        return 0

    def close(self) -> None:
        pass


def _check_dir(data_dir: str) -> None:
    if os.path.exists(data_dir) and not os.path.isdir(data_dir):
        raise StoreDamaged(f"{data_dir}: the data dir is a file, not a directory")
    try:
        os.makedirs(data_dir, exist_ok=True)
    except OSError as exc:
        raise StoreDamaged(f"{data_dir}: cannot create the data dir: {exc.strerror}") from exc
    probe = os.path.join(data_dir, ".kube32-write-probe")
    try:                                     # os.access says yes to root even on a read-only mount
        with open(probe, "wb") as f:
            f.write(b"probe")
        os.remove(probe)
    except OSError as exc:
        raise StoreDamaged(f"{data_dir}: the data dir is not writable: {exc.strerror}") from exc


def _check_file(path: str) -> bool:
    """True when the file exists (and looks like SQLite)."""
    if not os.path.exists(path):
        return False
    if os.path.getsize(path) == 0:
        raise StoreDamaged(f"{path}: the store file is empty (0 bytes) although the server never leaves it "
                           "so; restore it or remove it to start an empty store")
    with open(path, "rb") as f:
        if f.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
            raise StoreDamaged(f"{path}: not an SQLite database (corrupt header)")
    return True


class SqliteBackend:
    """One SQLite file in WAL mode; see the module docstring for commits and fsync."""

    FILENAME = "kube32.sqlite3"
    keeps_bodies = True

    def __init__(self, data_dir: str, *, fsync: bool = True) -> None:
        _check_dir(data_dir)
        self.path = os.path.join(data_dir, self.FILENAME)
        existed = _check_file(self.path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            # commits append to the WAL, fsynced below; without fsync SQLite syncs nothing either (set
            # first: switching a new file to WAL syncs under the default FULL, ~15 ms per store)
            self._db.execute("PRAGMA synchronous=NORMAL" if fsync else "PRAGMA synchronous=OFF")
            if not existed:
                self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")     # before the first table
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
            if existed:
                problem = self._db.execute("PRAGMA quick_check").fetchone()[0]
                if problem != "ok":
                    raise StoreDamaged(f"{self.path}: the store is damaged: {problem}")
                tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                if not {"objects", "meta"} <= tables:
                    raise StoreDamaged(f"{self.path}: not a kube32 store (no objects/meta tables)")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreDamaged(f"{self.path}: the store is damaged: {exc}") from exc
        # group commit: _written counts commits, synced the commits an fsync has covered
        self.fsync = self.deferred = fsync
        self.syncs = 0
        self._written = self.synced = 0
        self.failed: OSError | None = None      # the fsync that failed (final)
        self._closing = False
        self._owed = False                      # synced commits the store has not been told of
        self._cond = threading.Condition()
        self._syncer: threading.Thread | None = None
        self.on_durable = lambda seq: True      # (the store) commits up to seq are on disk; False: try again
        self.on_failure = lambda error: None    # (the store) the fsync failed
        if fsync:
            self._wal_fd = os.open(self.path + "-wal", os.O_RDONLY)
            dir_fd = os.open(data_dir, os.O_RDONLY)
            try:
                os.fsync(dir_fd)                  # the files' directory entries survive too
            finally:
                os.close(dir_fd)
            self._syncer = threading.Thread(target=self._sync_loop, name="kube32-fsync", daemon=True)
            self._syncer.start()

    # -- reading at start ------------------------------------------------------------------
    def load(self) -> tuple[int, Iterator[tuple[str, str, str, dict]]]:
        """The recorded resourceVersion and every object, checked: a row that is not an object
        with its own resourceVersion, or a recorded version behind the objects', is damage."""
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key='resourceVersion'").fetchone()
            rows = self._db.execute("SELECT resource, namespace, name, body FROM objects").fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreDamaged(f"{self.path}: the store is damaged: {exc}") from exc
        try:
            rv = int(row[0]) if row else 0
        except ValueError:
            raise StoreDamaged(f"{self.path}: the recorded resourceVersion {row[0]!r} is not a number") from None
        objects, newest = [], 0
        for res, ns, name, body in rows:
            try:
                obj = json.loads(body)
                obj_rv = int(obj["metadata"]["resourceVersion"])
            except (ValueError, TypeError, KeyError) as exc:
                raise StoreDamaged(f"{self.path}: the stored {res} {ns + '/' if ns else ''}{name} is not a "
                                   f"kube32 object ({type(exc).__name__}: {str(exc)[:80]})") from None
            newest = max(newest, obj_rv)
            objects.append((res, ns, name, obj))
        if newest > rv:
            raise StoreDamaged(f"{self.path}: the recorded resourceVersion {rv} is behind the stored objects' "
                               f"({newest}): the store was rolled back or edited; serving it would reuse "
                               "resourceVersions")
        return rv, iter(objects)

    # -- writing ---------------------------------------------------------------------------
    def _write(self, rv: int, statements: list[tuple[str, tuple]]) -> int:
        """One committed transaction; the commit number to hand ``wait_durable``."""
        if self.failed is not None:
            raise errors.ServiceUnavailable(f"the store refuses writes since an fsync failed ({self.failed}); "
                                            f"restart the server once the disk is checked ({self.path})")
        with self._lock:
            try:
                self._db.execute("BEGIN")
                for sql, args in statements:
                    self._db.execute(sql, args)
                if rv:
                    self._db.execute("INSERT INTO meta(key, value) VALUES('resourceVersion', ?) "
                                     "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (str(rv),))
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:      # SQLite rolls some failures (disk full) back itself
                    self._db.execute("ROLLBACK")
                raise errors.InternalError(f"storage write failed, nothing was changed: {exc} ({self.path})") \
                    from exc
        with self._cond:
            self._written += 1
            self._cond.notify_all()
            return self._written

    def put(self, rv: int, res: str, ns: str, name: str, body: str) -> int:
        return self._write(rv, [(_UPSERT, (res, ns, name, body))])

    def remove(self, rv: int, res: str, ns: str, name: str) -> int:
        return self._write(rv, [(_DELETE, (res, ns, name))])

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self._write(0, [("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET "
                         "value=excluded.value", (key, value))])

    # -- group commit ----------------------------------------------------------------------
    def _sync_loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._written > self.synced or self._closing or self._owed,
                                    timeout=0.05 if self._owed else None)
                if self._closing and self._written <= self.synced:
                    return
                target = self._written if self._written > self.synced else None
            if target is not None:
                try:
                    os.fsync(self._wal_fd)         # one fsync covers every commit up to ``target``
                except OSError as exc:
                    self._fail(exc)
                    return
                with self._cond:
                    self.syncs += 1
                    self.synced = target
                    self._owed = True
                    self._cond.notify_all()
            if self._owed:
                self._owed = not self.on_durable(self.synced)

    def _fail(self, error: OSError) -> None:
        with self._cond:
            self.syncs += 1
            self.failed = error
            self._cond.notify_all()            # waiting requests answer 500 at once
        self.on_failure(error)

    def wait_durable(self, seq: int) -> None:
        """Return once commit ``seq`` is on disk (at once without fsync). ``errors.InternalError``
        when its fsync failed (the store takes it back: nothing of it is stored), ``errors.Timeout``
        when the disk has not answered within ``DURABLE_WAIT`` (it may still be stored)."""
        if not self.fsync or not seq:
            return
        with self._cond:
            if not self._cond.wait_for(lambda: self.synced >= seq or self.failed is not None, DURABLE_WAIT):
                raise errors.Timeout(f"storage sync did not finish within {DURABLE_WAIT:g} s; the write may "
                                     f"still be stored ({self.path})")
            if self.synced < seq:
                raise errors.InternalError(f"storage sync failed ({self.failed}); the write was not stored "
                                           f"({self.path})")

    def revert(self, rows: list[tuple[tuple[str, str, str], str | None]], rv: int) -> None:
        """After a failed fsync: write what readers saw over the writes that were taken back
        (``rows``: key and body, None for absent) and the resourceVersion, and try to sync it
        once. If the disk refuses, the file may hold writes that were answered 500: say so."""
        statements = [(_DELETE, key) if body is None else (_UPSERT, (*key, body)) for key, body in rows]
        try:
            with self._lock:
                self._db.execute("BEGIN")
                for sql, args in statements:
                    self._db.execute(sql, args)
                self._db.execute("INSERT INTO meta(key, value) VALUES('resourceVersion', ?) "
                                 "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (str(rv),))
                self._db.execute("COMMIT")
            os.fsync(self._wal_fd)
        except (sqlite3.Error, OSError) as exc:
            log.error("storage: could not take back the writes answered 500 in %s (%s): after a restart it may "
                      "hold some of them", self.path, exc)

    def vacuum(self, pages: int) -> int:
        """Give ``pages`` free pages back to the file system once that many are free (a store made
        with incremental auto-vacuum); how many pages were free."""
        if self.failed is not None:
            return 0
        with self._lock:
            try:
                free = self._db.execute("PRAGMA freelist_count").fetchone()[0]
                if free >= pages:
                    self._db.executescript(f"PRAGMA incremental_vacuum({int(pages)});")   # runs every step
            except sqlite3.Error as exc:
                log.warning("storage: incremental vacuum of %s failed: %s", self.path, exc)
                return 0
        return free

    def close(self) -> None:
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify_all()
        if self._syncer is not None:
            self._syncer.join(timeout=10)
            os.close(self._wal_fd)
        with self._lock:
            self._db.close()
