"""The SQLite event log: appends are atomic and durable, ordered per table, and action ids are unique."""
from __future__ import annotations

import json
import os
import sqlite3
import stat

import pytest

from companion.store import EventStore, NewEntry, StoreConflict, StoreError, StoreFull, TableRecord


def record(table_id="t1", game="counting"):
    return TableRecord(table_id, game, ["Ann", "Bob"], {"goal": 3}, "salt", "hash", 1000)


def test_tables_and_entries_survive_reopening(db_path):
    store = EventStore(db_path)
    store.create_table(record("t1"))
    store.create_table(record("t2"))
    store.append("t1", 0, [NewEntry("event", {"type": "count", "player": 0}, "a1")], now_ms=5)
    store.append("t1", 1, [NewEntry("undo", {}), NewEntry("timer", {"status": "idle"})], now_ms=6, finished_ms=7)
    store.append("t2", 0, [NewEntry("event", {"type": "count", "player": 1})], now_ms=8)
    store.close()

    again = EventStore(db_path)
    assert [t.id for t in again.tables()] == ["t1", "t2"]
    assert again.tables()[0].finished_ms == 7
    assert again.tables()[0].players == ["Ann", "Bob"]
    entries = again.entries("t1")
    assert [(e.seq, e.kind, e.action_id, e.created_ms) for e in entries] == [
        (1, "event", "a1", 5), (2, "undo", None, 6), (3, "timer", None, 6)]
    assert entries[0].body == {"type": "count", "player": 0}
    assert [e.seq for e in again.entries("t2")] == [1]
    assert [e.seq for e in again.entries("t1", after=2)] == [3]


def test_journal_is_wal_and_health_says_so(db_path):
    store = EventStore(db_path)
    health = store.health()
    assert health["ok"] and health["journal_mode"] == "wal"
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_append_refuses_a_stale_position_and_writes_nothing(db_path):
    store = EventStore(db_path)
    store.create_table(record())
    store.append("t1", 0, [NewEntry("event", {"type": "count"})], now_ms=1)
    with pytest.raises(StoreConflict):
        store.append("t1", 0, [NewEntry("event", {"type": "count"})], now_ms=2)
    assert len(store.entries("t1")) == 1


def test_repeated_action_id_is_refused_atomically(db_path):
    store = EventStore(db_path)
    store.create_table(record())
    store.append("t1", 0, [NewEntry("event", {"type": "count"}, "same")], now_ms=1)
    with pytest.raises(StoreConflict):
        store.append("t1", 1, [NewEntry("timer", {}), NewEntry("event", {"type": "count"}, "same")], now_ms=2)
    assert len(store.entries("t1")) == 1  # the timer entry of the failed transaction is not there


def test_action_ids_are_per_table(db_path):
    store = EventStore(db_path)
    store.create_table(record("t1"))
    store.create_table(record("t2"))
    store.append("t1", 0, [NewEntry("event", {}, "same")], now_ms=1)
    store.append("t2", 0, [NewEntry("event", {}, "same")], now_ms=1)


def test_duplicate_table_id_and_unknown_kind(db_path):
    store = EventStore(db_path)
    store.create_table(record())
    with pytest.raises(StoreConflict):
        store.create_table(record())
    with pytest.raises(ValueError):
        store.append("t1", 0, [NewEntry("shout", {})], now_ms=1)
    assert store.entries("t1") == []


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "companion.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        EventStore(path)


def test_a_newer_schema_is_refused(db_path):
    EventStore(db_path).close()
    with sqlite3.connect(db_path) as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(StoreError, match="newer"):
        EventStore(db_path)


# -- a full disk -----------------------------------------------------------------------
# SQLite's max_page_count refuses to grow the file with the very error a full disk gives
# (SQLITE_FULL, "database or disk is full"), after which SQLite has already rolled back:
# the path that used to end in "cannot rollback - no transaction is active" and a 500.

def fill_disk(store: EventStore) -> None:
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")


def free_disk(store: EventStore) -> None:
    store._db.execute("PRAGMA max_page_count=1073741823")


def fill_log(store: EventStore, table_id: str = "t1") -> int:
    """Append until the disk is full; the number of entries written."""
    written = len(store.entries(table_id))
    with pytest.raises(StoreFull, match="the table's storage is full"):
        for _ in range(10_000):
            store.append(table_id, written, [NewEntry("event", {"type": "count", "note": "x" * 400})], now_ms=1)
            written += 1
    return written


def test_a_full_disk_refuses_the_write_whole_and_writing_resumes_with_room(db_path):
    store = EventStore(db_path, full_probe_seconds=0)
    store.create_table(record())
    fill_disk(store)
    written = fill_log(store)
    assert len(store.entries("t1")) == written  # nothing of the refused transaction is there
    assert not store._db.in_transaction
    health = store.health()
    assert health["ok"] is False and health["storage_full"] is True and "full" in health["detail"]
    with pytest.raises(StoreFull):
        for n in range(1000):
            store.create_table(TableRecord(f"n{n}", "counting", ["Ann" * 8] * 8, {"x": "y" * 400}, "s", "h", 1))
    free_disk(store)
    assert store.health()["ok"] is True  # the health probe finds room again, before any write
    store.append("t1", written, [NewEntry("event", {"type": "count"})], now_ms=2)
    store.create_table(record("t2"))
    assert len(store.entries("t1")) == written + 1 and store.health()["storage_full"] is False


def test_health_shows_no_file_path(db_path):
    health = EventStore(db_path).health()
    assert str(db_path) not in json.dumps(health) and "path" not in health


def test_database_files_are_for_their_owner_only(tmp_path):
    data = tmp_path / "data"
    store = EventStore(data / "companion.db")
    store.create_table(record())
    store.append("t1", 0, [NewEntry("event", {"type": "count"})], now_ms=1)
    names = ["companion.db", "companion.db-wal", "companion.db-shm"]
    assert {n: oct(stat.S_IMODE((data / n).stat().st_mode)) for n in names} == {n: "0o600" for n in names}
    assert oct(stat.S_IMODE(data.stat().st_mode)) == "0o700"
    store.close()
    # A data directory and database left readable by everyone by an older version are tightened.
    os.chmod(data, 0o755)
    for name in names[:1]:
        os.chmod(data / name, 0o644)
    EventStore(data / "companion.db").close()
    assert oct(stat.S_IMODE((data / "companion.db").stat().st_mode)) == "0o600"
    assert oct(stat.S_IMODE(data.stat().st_mode)) == "0o700"


REAL_DISK_FULL = r'''
import json, os, subprocess, sys
from companion.store import EventStore, NewEntry, StoreFull, TableRecord
mount, size = sys.argv[1], sys.argv[2]
subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mount], check=True)
with open(os.path.join(mount, "ballast"), "wb") as f:
    f.write(b"\0" * 64 * 1024)
store = EventStore(os.path.join(mount, "data", "companion.db"), full_probe_seconds=0)
store.create_table(TableRecord("t1", "counting", ["Ann"], {}, "s", "h", 1))
n, error = 0, None
try:
    for n in range(100_000):
        store.append("t1", n, [NewEntry("event", {"type": "count", "note": "x" * 2000})], now_ms=1)
except StoreFull as exc:
    error = str(exc)
full = store.health()
kept = len(store.entries("t1"))
os.remove(os.path.join(mount, "ballast"))
store.append("t1", kept, [NewEntry("event", {"type": "count"})], now_ms=2)
print(json.dumps({"error": error, "written": n, "kept": kept, "full": full, "after": store.health(),
                  "now": len(store.entries("t1"))}))
'''


def test_a_really_full_filesystem(tmp_path):
    """The same on a real 512 KiB filesystem (tmpfs in a user namespace: no root needed), ENOSPC and all."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    probe = subprocess.run(["unshare", "-Urm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no user namespaces here: {probe.stderr.decode().strip()}")
    mount = tmp_path / "small"
    mount.mkdir()
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(["unshare", "-Urm", sys.executable, "-c", REAL_DISK_FULL, str(mount), "512k"],
                            capture_output=True, text=True, cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["error"] == "the table's storage is full" and out["written"] > 10
    assert out["kept"] == out["written"]  # the refused action left nothing behind
    assert out["full"]["ok"] is False and out["full"]["storage_full"] is True
    assert out["after"]["ok"] is True and out["now"] == out["kept"] + 1
