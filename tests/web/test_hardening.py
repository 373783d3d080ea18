"""What keeps one table safe from the rest of the LAN, through the API: a full disk, PIN
guessing from many addresses, the table token, and secrets kept out of logs and answers."""
from __future__ import annotations

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


# -- PIN guessing ------------------------------------------------------------------------

def from_address(client, address, path, pin=None, token=None, **body):
    headers = {}
    if pin is not None:
        headers["X-Table-Pin"] = pin
    if token is not None:
        headers["X-Table-Token"] = token
    return client.post(path, json=body, headers=headers, environ_base={"REMOTE_ADDR": address})


def test_rotating_addresses_get_30_guesses_per_table_per_30_seconds_then_longer_rests(client, api, clock):
    """The old per-address lock-out let a new address guess again: a 4-digit PIN fell after 392 tries."""
    tid = api.create(pin="0391")["id"]
    evaluated, found = [], None
    for n in range(1000):
        guess = f"{n:04d}"
        answer = from_address(client, f"10.0.{n // 250}.{n % 250 + 1}", f"/api/tables/{tid}/pin", pin=guess)
        if answer.status_code == 429:
            assert int(answer.headers["Retry-After"]) >= 1
            continue
        evaluated.append(guess)
        if answer.status_code == 200:
            found = guess
    assert found is None and len(evaluated) == 30  # the same 30 s: 30 PINs looked at, not 1,000
    rests = []
    for _ in range(4):  # each new burst after a rest earns a rest twice as long
        wait = int(from_address(client, "10.9.9.9", f"/api/tables/{tid}/pin", pin="9999").headers["Retry-After"])
        rests.append(wait)
        clock.advance(wait)
        looked_at = sum(from_address(client, f"10.8.0.{i + 1}", f"/api/tables/{tid}/pin", pin=f"{5000 + i}")
                        .status_code == 403 for i in range(40))
        assert looked_at == 30
    assert rests[1] >= 2 * rests[0] - 1 and rests[2] >= 2 * rests[1] - 1 and rests[3] >= 2 * rests[2] - 1


def test_a_phone_with_the_token_plays_on_while_its_address_and_the_table_are_locked(client, api):
    tid = api.create()["id"]
    unlocked = from_address(client, "10.0.0.7", f"/api/tables/{tid}/pin", pin=PIN)
    assert unlocked.status_code == 200
    token = unlocked.headers["X-Table-Token"]
    # Someone behind the same address (a shared Wi-Fi) guesses, then many addresses do.
    for n in range(6):
        from_address(client, "10.0.0.7", f"/api/tables/{tid}/pin", pin=f"{n:04d}")
    for n in range(60):
        from_address(client, f"10.1.0.{n + 1}", f"/api/tables/{tid}/pin", pin=f"{n + 100:04d}")
    # The right PIN alone is refused now (it cannot be told from a guess) ...
    assert from_address(client, "10.0.0.7", f"/api/tables/{tid}/actions", pin=PIN, type="start-round").status_code == 429
    # ... but the table's own phone, with its token, plays on.
    played = from_address(client, "10.0.0.7", f"/api/tables/{tid}/actions", pin=PIN, token=token, type="start-round")
    assert played.status_code == 200 and played.get_json()["version"] == 1


def test_the_token_comes_with_the_right_pin_and_with_the_new_table_only(client, api):
    created = client.post("/api/tables", json={"game": "pivit-tiles", "players": ["Ann", "Bob"], "options": {"pin": PIN}})
    tid, token = created.get_json()["id"], created.headers["X-Table-Token"]
    other = api.create()["id"]
    assert from_address(client, "10.0.0.2", f"/api/tables/{tid}/pin", pin="0000").headers.get("X-Table-Token") is None
    assert from_address(client, "10.0.0.2", f"/api/tables/{tid}/actions", token=token, type="start-round").status_code == 200
    assert from_address(client, "10.0.0.2", f"/api/tables/{other}/actions", token=token, type="start-round").status_code == 401
    assert from_address(client, "10.0.0.2", f"/api/tables/{tid}/undo", token=token[:-2] + "xx").status_code == 401
    assert "X-Table-Token" not in client.get(f"/api/tables/{tid}").headers  # watching gives no token


def test_no_pin_in_any_log_or_in_the_database(client, service, caplog):
    import logging
    import sqlite3

    caplog.set_level(logging.DEBUG)
    client.post("/api/tables", json={"game": "pivit-tiles", "players": ["Ann", "Bob"], "options": {"pin": "97531864"}})
    service.create("pivit-tiles", ["Cy", "Di"], pin="86420975")
    _, made_up = service.create("pivit-tiles", ["Ed", "Flo"])
    logged = "\n".join(f"{r.getMessage()} {r.args!r}" for r in caplog.records)
    assert "table" in logged  # the creations were logged ...
    for pin in ("97531864", "86420975", made_up):
        assert pin not in logged  # ... without their PINs
    dump = "\n".join(sqlite3.connect(service.store.path).iterdump())
    assert "97531864" not in dump and "86420975" not in dump


def test_the_pin_check_itself_never_takes_the_token_for_the_pin(client, api):
    tid = api.create()["id"]
    token = from_address(client, "10.0.0.3", f"/api/tables/{tid}/pin", pin=PIN).headers["X-Table-Token"]
    # "Is this the PIN?" with a wrong PIN and a good token: no (a phone re-entering a PIN learns the truth).
    assert from_address(client, "10.0.0.3", f"/api/tables/{tid}/pin", pin="0000", token=token).status_code == 403
