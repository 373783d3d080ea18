"""What keeps one table safe from the rest of the LAN, through the API: a full disk, PIN
guessing from many addresses, the table token, and secrets kept out of logs and answers."""
from __future__ import annotations

import pytest

from .conftest import PIN


def fill_disk(store):
    """SQLite's own "database or disk is full" (SQLITE_FULL), as a full card gives it."""
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")


def free_disk(store):
    store._db.execute("PRAGMA max_page_count=1073741823")


def test_a_full_disk_answers_503_changes_nothing_and_recovers(client, api, service):
    service.store.full_probe_seconds = 0
    table = api.create()
    tid = table["id"]
    api.act(tid, type="start-round")
    fill_disk(service.store)
    refused = None
    for n in range(500):  # Bob trades and takes it back until the card is full
        path = "actions" if n % 2 == 0 else "undo"
        response = client.post(f"/api/tables/{tid}/{path}", json={"type": "trade", "player": 1} if n % 2 == 0 else {},
                               headers={"X-Table-Pin": PIN})
        if response.status_code != 200:
            refused = response
            break
    assert refused is not None and refused.status_code == 503
    assert refused.get_json() == {"error": "the table's storage is full"}
    before = api.get(tid)
    health = client.get("/api/health")
    assert health.status_code == 503 and health.get_json()["database"]["storage_full"] is True
    assert health.get_json()["status"] == "error"
    # Nothing half-written: the table and its log are as they were before the refused write.
    assert len(client.get(f"/api/tables/{tid}/events").get_json()["entries"]) == before["version"]
    free_disk(service.store)
    assert client.get("/api/health").get_json()["database"]["storage_full"] is False
    assert api.post(f"/api/tables/{tid}/undo")["version"] == before["version"] + 1


def test_health_shows_no_file_paths(client, service):
    body = client.get("/api/health").get_data(as_text=True)
    assert str(service.store.path) not in body and str(service.store.path.parent) not in body
