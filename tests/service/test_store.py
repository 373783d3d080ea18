"""The SQLite event log: appends are atomic and durable, ordered per table, and action ids are unique."""
from __future__ import annotations

import sqlite3

import pytest

from companion.store import EventStore, NewEntry, StoreConflict, StoreError, TableRecord


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
