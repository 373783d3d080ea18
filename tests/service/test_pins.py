"""Table PINs at rest: scrypt with a salt per table, and older databases upgraded without losing a table."""
from __future__ import annotations

import hashlib
import hmac

from companion import pins
from companion.store import EventStore, NewEntry, TableRecord
from companion.tables import TableService

from .conftest import lookup


def test_a_new_table_stores_its_pin_with_scrypt_and_its_own_salt(service):
    one, _ = service.create("counting", ["Ann"], pin="1234")
    two, _ = service.create("counting", ["Bob"], pin="1234")
    stored = {r.id: r for r in service.store.tables()}
    for table in (one, two):
        kind, n, r, p, digest = stored[table.id].pin_hash.split("$")
        assert kind == "scrypt" and int(n) >= 2**14 and int(r) >= 8 and len(digest) == 64
    assert stored[one.id].pin_salt != stored[two.id].pin_salt
    assert stored[one.id].pin_hash != stored[two.id].pin_hash  # the same PIN, not the same hash
    # The fast HMAC of older versions no longer matches what is stored: 10^4 HMACs reveal nothing.
    salt = stored[one.id].pin_salt
    assert hmac.new(salt.encode(), b"1234", hashlib.sha256).hexdigest() not in stored[one.id].pin_hash


def test_the_pin_checks_after_a_restart(make_service):
    table, _ = make_service().create("counting", ["Ann"], pin="24680")
    again = make_service().get(table.id)
    assert not again.check_pin("2468") and again.check_pin("24680") and again.check_pin("24680")
    assert not again.check_pin("24681") and not again.check_pin(None)


def legacy_record(table_id: str, pin: str) -> TableRecord:
    salt = "0123456789abcdef"  # as older versions made them: 8 random bytes in hex
    return TableRecord(table_id, "counting", ["Ann", "Bob"], {"goal": 3}, salt,
                       hmac.new(salt.encode(), pin.encode(), hashlib.sha256).hexdigest(), 1000)


def test_an_older_database_is_upgraded_without_losing_a_table(db_path, clock):
    store = EventStore(db_path)
    store.create_table(legacy_record("old1", "1357"))
    store.create_table(legacy_record("old2", "97531"))
    store.append("old1", 0, [NewEntry("event", {"type": "count", "player": 1})], now_ms=2000)
    store.close()

    service = TableService(EventStore(db_path), clock=clock, game_lookup=lookup)
    try:
        service._pin_upgrade.join(30)  # started by itself: the old hashes are wrapped in the background
        stored = {r.id: r.pin_hash for r in service.store.tables()}
        assert all(h.startswith("scrypt-hmac$") for h in stored.values())
        assert service.get("old1").check_pin("1357") and not service.get("old1").check_pin("1358")
        assert service.get("old2").check_pin("97531")
        assert service.get("old1").version == 1 and service.get("old1").state is not None
        assert service.upgrade_pins() == 0  # nothing left to do
    finally:
        service.close()
    again = TableService(EventStore(db_path), clock=clock, game_lookup=lookup)
    try:
        assert again._pin_upgrade is None and again.get("old2").check_pin("97531")
    finally:
        again.close()


def test_each_stored_form_checks_only_its_own_pin():
    salt = pins.new_salt()
    for stored in (pins.hash_pin("4321", salt), pins.upgrade(legacy_record("x", "4321").pin_hash, "0123456789abcdef")):
        kind = stored.split("$")[0]
        s = salt if kind == "scrypt" else "0123456789abcdef"
        assert pins.verify("4321", s, stored) and not pins.verify("4322", s, stored)
    assert not pins.verify("4321", salt, "scrypt$bad")
