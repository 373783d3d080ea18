"""The SQLite event log: what every table has been through, kept safe on disk.

One database file holds every table; each table has its own log, numbered
1, 2, 3, ... (the table's version). A log entry is one of

- ``event``: a game event as the engine sees it (``{"type": "done", "player": 0}``),
- ``undo`` / ``redo``: take back the last event, or put the last taken-back one back,
- ``timer``: the countdown as it is now (status, key, length and the deadline
  as wall-clock milliseconds, so a restart resumes it).

Nothing is ever rewritten: a table's state is the fold of its log. Writes use
WAL with ``synchronous=FULL`` and commit before the caller acknowledges
anything, so neither ``kill -9`` nor pulling the plug loses an answered action.
An ``action_id`` is unique within a table, so a retried request is recognised.

A full disk (or card) refuses a write as a whole with StoreFull: nothing of
it is kept, `health()` says so until a write goes through again, and writing
resumes by itself once there is room. The files hold the tables' PIN hashes,
so they are readable by their owner only (0600, in a 0700 directory).
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
KINDS = ("event", "undo", "redo", "timer")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    players     TEXT NOT NULL,
    options     TEXT NOT NULL,
    pin_salt    TEXT NOT NULL,
    pin_hash    TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    finished_ms INTEGER
);
CREATE TABLE IF NOT EXISTS log (
    table_id   TEXT NOT NULL REFERENCES tables(id),
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('event', 'undo', 'redo', 'timer')),
    body       TEXT NOT NULL,
    action_id  TEXT,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS log_action_id ON log (table_id, action_id) WHERE action_id IS NOT NULL;
-- Always empty: health() writes and deletes a row here to see whether a full disk has room again.
CREATE TABLE IF NOT EXISTS room_probe (filler BLOB NOT NULL);
"""


class StoreError(Exception):
    """The database cannot be opened or is not ours."""


class StoreConflict(StoreError):
    """The log moved on since the caller read it (another writer got there first)."""


class StoreFull(StoreError):
    """The disk is full: the write was refused whole and nothing of it was kept."""

    def __init__(self, message: str = "the table's storage is full"):
        super().__init__(message)


# The probe's size: more than a page or two, so it needs room that a full disk lacks.
PROBE_BYTES = 16 * 1024
# How often health() tries a write to see whether a full disk has room again.
FULL_PROBE_SECONDS = 2.0
# Owner only: the database holds every table's PIN hash.
FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> None:
    """Make `path` (and missing parents) a directory only its owner can enter. Raises OSError."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        os.chmod(path, DIR_MODE)


def _private_files(path: Path) -> None:
    """The database and its WAL and shared-memory files: owner only (older versions left them 0644)."""
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))  # SQLite gives its -wal and -shm this mode
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if stat.S_IMODE(name.stat().st_mode) != FILE_MODE:
                os.chmod(name, FILE_MODE)
        except FileNotFoundError:
            pass


def _is_full(exc: BaseException) -> bool:
    """True for SQLite's "database or disk is full" (SQLITE_FULL), also when a failed ROLLBACK hides it."""
    while exc is not None:
        if isinstance(exc, sqlite3.Error) and (getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
                                               or "database or disk is full" in str(exc)):
            return True
        exc = exc.__context__
    return False


@dataclass(frozen=True)
class TableRecord:
    """A table as created: its game, players and options (never the PIN itself)."""

    id: str
    game: str
    players: list[str]
    options: dict[str, Any]
    pin_salt: str
    pin_hash: str
    created_ms: int
    finished_ms: int | None = None


@dataclass(frozen=True)
class LogEntry:
    """One line of a table's log."""

    seq: int
    kind: str
    body: dict[str, Any]
    action_id: str | None
    created_ms: int


@dataclass(frozen=True)
class NewEntry:
    """A log entry still to be written; `append` numbers and timestamps it."""

    kind: str
    body: dict[str, Any]
    action_id: str | None = None


_KEEP = object()  # `append(finished_ms=_KEEP)`: leave the table's finished time alone


class EventStore:
    """The event log of every table, in one SQLite file.

    Thread-safe: one connection guarded by a lock (SQLite serialises writers
    anyway, and every read the service needs is answered from memory).
    """

    def __init__(self, path: str | Path, full_probe_seconds: float = FULL_PROBE_SECONDS):
        """Open or create the database at `path`. Raises StoreError if it is not a companion log."""
        self.path = Path(path)
        self.full_probe_seconds = full_probe_seconds
        self._lock = threading.Lock()
        self._full_at: float | None = None  # monotonic time of the last write refused for a full disk
        self._probed_at = 0.0
        try:
            private_dir(self.path.parent)
            _private_files(self.path)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the event log ({exc.strerror or exc})") from None
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit is on the card before the phone is told, even if the
            # Pi loses power (NORMAL in WAL mode survives only a process crash).
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: written by a newer companion (schema {version})")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the event log ({exc})") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def health(self) -> dict[str, Any]:
        """For /api/health: {"ok", "detail", "journal_mode", "storage_full"}.

        No file path: the answer is public. While the disk is full, a small
        write is tried now and then, so health turns ok again once there is room.
        """
        try:
            with self._lock:
                mode = self._db.execute("PRAGMA journal_mode").fetchone()[0]
                self._db.execute("SELECT count(*) FROM tables").fetchone()
                if self._full_at is not None and time.monotonic() - self._probed_at >= self.full_probe_seconds:
                    self._probed_at = time.monotonic()
                    try:
                        self._write_probe()
                    except sqlite3.Error:
                        pass
        except sqlite3.Error as exc:
            return {"ok": False, "detail": f"the event log cannot be read ({exc})", "storage_full": False}
        if self._full_at is not None:
            return {"ok": False, "detail": "the table's storage is full: free some space on the disk",
                    "journal_mode": mode, "storage_full": True}
        return {"ok": mode == "wal", "detail": f"sqlite {sqlite3.sqlite_version}, journal {mode}",
                "journal_mode": mode, "storage_full": False}

    def _write_probe(self) -> None:
        """A real write that needs new pages (committed, leaving nothing): clears the full state if it goes through."""
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO room_probe (filler) VALUES (zeroblob(?))", (PROBE_BYTES,))
            db.execute("DELETE FROM room_probe")
            db.execute("COMMIT")
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        self._full_at = None

    def _failed(self, exc: BaseException) -> None:
        """After a failed write: roll back what SQLite left open, and turn a full disk into StoreFull."""
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite rolled back by itself
        if _is_full(exc):
            if self._full_at is None:
                log.error("the disk holding the event log is full: writes are refused until there is room")
            self._full_at = self._probed_at = time.monotonic()
            raise StoreFull() from None

    # -- tables ---------------------------------------------------------------

    def create_table(self, record: TableRecord) -> None:
        """Write a new table. Raises StoreConflict if the id is taken, StoreFull if the disk is full."""
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO tables (id, game, players, options, pin_salt, pin_hash, created_ms, finished_ms)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (record.id, record.game, _dumps(record.players), _dumps(record.options),
                     record.pin_salt, record.pin_hash, record.created_ms, record.finished_ms),
                )
            except sqlite3.IntegrityError:
                raise StoreConflict(f"table {record.id!r} exists already") from None
            except sqlite3.Error as exc:
                self._failed(exc)
                raise
            self._full_at = None

    def set_pin_hash(self, table_id: str, old: str, new: str) -> bool:
        """Replace a table's stored PIN hash if it is still `old` (an upgrade). Raises StoreFull."""
        with self._lock:
            try:
                changed = self._db.execute("UPDATE tables SET pin_hash = ? WHERE id = ? AND pin_hash = ?",
                                           (new, table_id, old)).rowcount
            except sqlite3.Error as exc:
                self._failed(exc)
                raise
            self._full_at = None
        return changed == 1

    def tables(self) -> list[TableRecord]:
        """Every table, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, players, options, pin_salt, pin_hash, created_ms, finished_ms"
                " FROM tables ORDER BY created_ms, id"
            ).fetchall()
        return [
            TableRecord(r[0], r[1], json.loads(r[2]), json.loads(r[3]), r[4], r[5], r[6], r[7])
            for r in rows
        ]

    # -- the log --------------------------------------------------------------

    def entries(self, table_id: str, after: int = 0, limit: int | None = None) -> list[LogEntry]:
        """The table's log entries with seq > `after`, in order (the first `limit` of them, if given)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, body, action_id, created_ms FROM log"
                " WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (table_id, after, -1 if limit is None else limit),
            ).fetchall()
        return [LogEntry(r[0], r[1], json.loads(r[2]), r[3], r[4]) for r in rows]

    def append(
        self,
        table_id: str,
        after: int,
        entries: Iterable[NewEntry],
        now_ms: int,
        finished_ms: Any = _KEEP,
    ) -> list[LogEntry]:
        """Append `entries` to the log in one transaction, committed before returning.

        `after` is the seq the caller last saw: if the log has moved on,
        nothing is written and StoreConflict is raised. `finished_ms` (an int
        or None) updates the table's finished time in the same transaction.
        Raises StoreConflict on a repeated action_id too, and StoreFull when
        the disk is full (then nothing of the transaction is kept).
        """
        entries = list(entries)
        written = []
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                last = db.execute("SELECT coalesce(max(seq), 0) FROM log WHERE table_id = ?", (table_id,)).fetchone()[0]
                if last != after:
                    raise StoreConflict(f"table {table_id!r} is at {last}, not {after}")
                for i, entry in enumerate(entries, start=1):
                    if entry.kind not in KINDS:
                        raise ValueError(f"unknown log entry kind {entry.kind!r}")
                    db.execute(
                        "INSERT INTO log (table_id, seq, kind, body, action_id, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
                        (table_id, after + i, entry.kind, _dumps(entry.body), entry.action_id, now_ms),
                    )
                    written.append(LogEntry(after + i, entry.kind, entry.body, entry.action_id, now_ms))
                if finished_ms is not _KEEP:
                    db.execute("UPDATE tables SET finished_ms = ? WHERE id = ?", (finished_ms, table_id))
                db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                self._failed(exc)
                raise StoreConflict(f"table {table_id!r}: {exc}") from None
            except BaseException as exc:
                # SQLite may already have rolled back (a full disk does): a second ROLLBACK
                # would raise "no transaction is active" and hide the real error.
                self._failed(exc)
                raise
            self._full_at = None
        return written


def _dumps(value: Any) -> str:
    # Keys keep their order, so an event reads back exactly as it was sent.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
