"""The club server's API and service on SQLite and PostgreSQL: joining, exactly-once ingest, results,
players across tables, standings, ratings, seatings, exports, clocks, and bad input."""
from __future__ import annotations

import csv
import io
import json

import pytest

from companion.timer import ManualClock

from .conftest import CLUB_PIN
from .games import finish_pivit, shipped, table_service


def joined(client, club, name="Table 1"):
    answer = client.post("/api/v1/join", json={"code": club.join_code(), "name": name})
    assert answer.status_code == 201, answer.json
    return {"Authorization": "Bearer " + answer.json["key"]}


def ingest(client, key, *batches, sent_ms=None, expect=200):
    body = {"sent_ms": sent_ms if sent_ms is not None else 1_790_000_000_000, "tables": list(batches)}
    answer = client.post("/api/v1/ingest", json=body, headers=key)
    assert answer.status_code == expect, answer.json
    return answer.json


@pytest.fixture
def table_clock(clock):
    return ManualClock(wall=clock.time())


@pytest.fixture
def pi(tmp_path, table_clock):
    service = table_service(tmp_path / "pi.db", table_clock)
    yield service
    service.close()


def test_join_code_device_keys_and_revoking(client, club):
    assert client.post("/api/v1/join", json={"code": "WRONG123"}).status_code == 401
    assert client.get("/api/v1/cursor").status_code == 401
    assert client.get("/api/v1/cursor", headers={"Authorization": "Bearer nope"}).status_code == 401
    key = joined(client, club)
    assert client.get("/api/v1/cursor", headers=key).json == {"tables": {}}
    # The join code, the devices and revoking need the club PIN.
    assert client.get("/api/join-code").status_code == 401
    assert client.get("/api/join-code", headers={"X-Club-Pin": "0000"}).status_code == 401
    assert client.get("/api/join-code", headers={"X-Club-Pin": CLUB_PIN}).json == {"code": club.join_code()}
    devices = client.get("/api/devices", headers={"X-Club-Pin": CLUB_PIN}).json["devices"]
    assert [d["name"] for d in devices] == ["Table 1"] and not devices[0]["revoked"]
    assert client.post(f"/api/devices/{devices[0]['id']}/revoke", json={"pin": "0000"}).status_code == 401
    assert client.post(f"/api/devices/{devices[0]['id']}/revoke", json={"pin": CLUB_PIN}).status_code == 200
    refused = client.get("/api/v1/cursor", headers=key)
    assert refused.status_code == 401 and "revoked" in refused.json["error"]
    # A new code: joined devices keep their keys, the old code no longer joins.
    old = club.join_code()
    new = client.post("/api/join-code", json={"pin": CLUB_PIN}).json["code"]
    assert new != old and client.post("/api/v1/join", json={"code": old}).status_code == 401
    assert client.post("/api/v1/join", json={"code": new.lower()}).status_code == 201  # read aloud, typed in any case


def test_a_batch_delivered_twice_is_applied_once_and_a_gap_waits(client, club, pi, table_clock):
    key = joined(client, club)
    table, _ = pi.create("pivit-tiles", ["Ann", "Bob"])
    pi.act(table.id, {"type": "start-round"})
    pi.act(table.id, {"type": "done", "player": 0})
    batch = shipped(pi, table.id)
    count = len(batch["entries"])
    assert ingest(client, key, batch) == {"tables": {table.id: count}}
    assert ingest(client, key, batch) == {"tables": {table.id: count}}  # again: nothing new
    pi.act(table.id, {"type": "verify", "player": 0, "valid": True})
    later = shipped(pi, table.id, after=count)
    gap = dict(later, entries=later["entries"][1:])
    if gap["entries"]:
        assert ingest(client, key, gap) == {"tables": {table.id: count}}  # after a gap: nothing applied
    overlapping = shipped(pi, table.id, after=count - 1)  # one old entry, then the new ones
    assert ingest(client, key, overlapping) == {"tables": {table.id: pi.get(table.id).version}}
    assert client.get("/api/v1/cursor", headers=key).json == {"tables": {table.id: pi.get(table.id).version}}
    from sqlalchemy import select

    from companion.club import schema

    with club.engine.connect() as db:
        rows = db.execute(select(schema.entries.c.seq, schema.entries.c.body).order_by(schema.entries.c.seq)).all()
    assert [r.seq for r in rows] == list(range(1, pi.get(table.id).version + 1))
    assert [json.loads(r.body) for r in rows] == [e.body for e in pi.store.entries(table.id)]
    live = client.get("/api/overview").json["tables"]
    assert len(live) == 1 and live[0]["players"] == ["Ann", "Bob"] and live[0]["round"] == 1
    assert live[0]["scores"] == [0, 0] and live[0]["finished"] is False and live[0]["device"] == "Table 1"


def test_finished_games_make_results_standings_and_ratings_and_undo_takes_a_result_back(client, club, pi, table_clock):
    key = joined(client, club)
    first, _ = pi.create("pivit-tiles", ["Ann", "Bob"])
    finish_pivit(pi, table_clock, first.id, winner=0)
    second, _ = pi.create("pivit-tiles", [" ann ", "Cy"])  # Ann again, typed differently
    finish_pivit(pi, table_clock, second.id, winner=1)
    ingest(client, key, shipped(pi, first.id), shipped(pi, second.id))
    results = client.get("/api/results").json["results"]
    assert [[(s["name"], s["rank"]) for s in g["seats"]] for g in results] == [[("Cy", 1), ("Ann", 2)],
                                                                               [("Ann", 1), ("Bob", 2)]]
    players = {p["name"]: p for p in client.get("/api/players").json["players"]}
    assert set(players) == {"Ann", "Bob", "Cy"} and players["Ann"]["games"] == 2
    standings = client.get("/api/standings?game=pivit-tiles").json["standings"]
    by_name = {row["name"]: row for row in standings}
    assert by_name["Ann"]["games"] == 2 and by_name["Ann"]["wins"] == 1 and by_name["Ann"]["points"] == 1
    assert by_name["Cy"]["points"] == 1 and by_name["Bob"]["points"] == 0
    assert standings[-1]["name"] == "Bob"
    ratings = {r["name"]: r for r in client.get("/api/ratings?game=pivit-tiles").json["ratings"]}
    assert ratings["Cy"]["mu"] > 25 > ratings["Bob"]["mu"] and all(r["sigma"] < 25 / 3 for r in ratings.values())
    history = client.get(f"/api/players/{players['Ann']['id']}").json
    assert [g["rank"] for g in history["history"]] == [2, 1]
    assert history["statistics"][0]["rating"]["games"] == 2
    # An undo after the end takes the result back; the redo gives it again.
    cursor = pi.get(second.id).version
    pi.undo(second.id)
    ingest(client, key, shipped(pi, second.id, after=cursor))
    assert len(client.get("/api/results").json["results"]) == 1
    assert {r["name"] for r in client.get("/api/ratings?game=pivit-tiles").json["ratings"]} == {"Ann", "Bob"}
    cursor = pi.get(second.id).version
    pi.redo(second.id)
    ingest(client, key, shipped(pi, second.id, after=cursor))
    assert len(client.get("/api/results").json["results"]) == 2


def test_a_table_clock_wrong_by_an_hour_changes_no_order_and_no_night(client, club, clock, tmp_path):
    key = joined(client, club)
    wrong = ManualClock(wall=clock.time() - 3600)  # an hour behind
    pi = table_service(tmp_path / "wrong.db", wrong)
    table, _ = pi.create("pivit-tiles", ["Ann", "Bob"])
    finish_pivit(pi, wrong, table.id)
    clock.set_wall(wrong.time() + 3600)
    ingest(client, key, shipped(pi, table.id), sent_ms=int(wrong.time() * 1000))
    result = client.get("/api/results").json["results"][0]
    # The finish time is on the club's clock (the table's plus the hour), not the table's.
    assert abs(result["finished_ms"] - clock.time() * 1000) < 5000
    assert result["night"] == club.tonight()
    pi.close()


def test_seatings_are_proposed_from_tonight_and_saved_with_the_pin(client, club, tmp_path, table_clock):
    key = joined(client, club)
    pi = table_service(tmp_path / "s.db", table_clock)
    for names, winner in ((["Ann", "Bob"], 0), (["Cy", "Dee"], 0), (["Eve", "Fay"], 1), (["Gus", "Hal"], 0)):
        table, _ = pi.create("pivit-tiles", names)
        finish_pivit(pi, table_clock, table.id, winner)
        ingest(client, key, shipped(pi, table.id))
    proposal = client.get("/api/seatings/proposal?game=pivit-tiles").json
    tables = [[p["name"] for p in tb] for tb in proposal["tables"]]
    assert sorted(len(t) for t in tables) == [4, 4] and proposal["round"] == 1
    winners = {"Ann", "Cy", "Fay", "Gus"}
    assert set(tables[0]) == winners  # like with like: tonight's winners together
    ids = [[p["player_id"] for p in tb] for tb in proposal["tables"]]
    body = {"game": "pivit-tiles", "night": proposal["night"], "round": 1, "tables": ids}
    assert client.post("/api/seatings", json=body).status_code == 401
    for bad in ([ids[0][:3], ids[0][3:] + ids[1]],  # a table of five
                [ids[0][:1], ids[0][1:], ids[1]],  # a table of one
                [ids[0], ids[0][:2]]):  # a player seated twice
        assert client.post("/api/seatings", json=dict(body, tables=bad, pin=CLUB_PIN)).status_code == 400
    # The organiser splits the first table in two.
    ok = client.post("/api/seatings", json=dict(body, tables=[ids[0][:2], ids[0][2:], ids[1]], pin=CLUB_PIN))
    assert ok.status_code == 200 and [len(t) for t in ok.json["tables"]] == [2, 2, 4]
    assert client.get("/api/seatings").json["seating"]["round"] == 1
    page = client.get("/seatings").get_data(as_text=True)
    assert "Round 1" in page and "Ann" in page
    pi.close()


NASTY = '<b>"Zed"</b>&'


def test_names_are_escaped_and_exports_are_spreadsheet_safe(client, club, pi, table_clock):
    key = joined(client, club)
    table, _ = pi.create("pivit-tiles", [NASTY, "=cmd|' /C calc'!A0"])
    finish_pivit(pi, table_clock, table.id)
    ingest(client, key, shipped(pi, table.id))
    players = client.get("/api/players").json["players"]
    for path in ["/", "/standings", "/players", f"/players/{players[0]['id']}", "/tables/1", "/seatings"]:
        html = client.get(path).get_data(as_text=True)
        assert "<b>" not in html, path
    assert "&lt;b&gt;" in client.get("/players").get_data(as_text=True)
    rows = list(csv.reader(io.StringIO(client.get("/export.csv").get_data(as_text=True))))
    assert rows[0] == ["night", "finished_utc", "game", "table", "player", "rank", "score"]
    assert {r[4] for r in rows[1:]} == {NASTY, "'=cmd|' /C calc'!A0"}
    assert client.get("/export.json").json["results"][0]["seats"]
    svg = client.get(f"/players/{players[0]['id']}/pivit-tiles.svg").get_data(as_text=True)
    assert "<b>" not in svg


@pytest.mark.parametrize("body, field", [
    ({"sent_ms": 1, "tables": [{"table_id": "t", "game": "pivit-tiles", "players": ["A"], "options": {},
                                "created_ms": 1, "entries": [{"seq": 1, "kind": "drop", "body": {}, "created_ms": 1}]}]},
     "kind"),
    ({"sent_ms": 1, "tables": [], "extra": 1}, "extra"),
    ({"sent_ms": -1, "tables": []}, "sent_ms"),
    ({"sent_ms": 1, "tables": [{"table_id": "", "game": "g", "players": ["A"], "options": {}, "created_ms": 1,
                                "entries": []}]}, "table_id"),
])
def test_bad_batches_are_400s_naming_the_field(client, club, body, field):
    key = joined(client, club)
    answer = client.post("/api/v1/ingest", json=body, headers=key)
    assert answer.status_code == 400 and field in answer.json["error"]


def test_pages_and_health(client, club):
    assert client.get("/api/health").json["ok"] is True
    for path in ["/", "/standings", "/players", "/seatings", "/admin", "/api/overview", "/api/openapi.json"]:
        assert client.get(path).status_code == 200, path
    assert client.get("/players/99").status_code == 404
    assert client.get("/api/players/99").json["error"] == "no player 99"
    assert client.get("/standings?night=yesterday").status_code == 400
    # A cross-site form cannot act.
    assert client.post("/api/join-code", data="pin=2468", headers={"Origin": "http://evil.example"}).status_code == 403


def test_the_live_stream_sends_the_overview_at_once(client, club):
    response = client.get("/api/stream", buffered=False)
    first = next(response.response)
    text = first.decode() if isinstance(first, bytes) else first
    assert text.startswith("event: overview") and '"tables": []' in text
    response.close()
