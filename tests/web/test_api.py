"""Every /api endpoint through the Flask test client, errors included."""
from __future__ import annotations

import pytest

PIN = "2468"


def test_health(client):
    response = client.get("/api/health")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] and body["database"]["journal_mode"] == "wal"
    for part in ("service", "timer", "gpio", "camera"):
        assert "ok" in body[part]
    assert body["timer"]["simulated"] is True
    assert response.headers["Cache-Control"] == "no-store"


def test_health_reports_the_devices_it_is_given(service):
    from web import create_app

    app = create_app({"TABLE_SERVICE": service, "START_TICKER": False,
                      "DEVICES": lambda: {"timer": {"ok": True, "detail": "tm1637"},
                                          "gpio": {"ok": True, "detail": "4 buttons"}}})
    body = app.test_client().get("/api/health").get_json()
    assert body["timer"]["detail"] == "tm1637" and body["gpio"]["detail"] == "4 buttons"
    assert body["camera"]["ok"] is False


def test_time(client, clock):
    assert client.get("/api/time").get_json() == {"server_time_ms": int(clock.time() * 1000)}


def test_games_lists_pivit_with_its_options(client):
    games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    pivit = games["pivit-tiles"]
    assert (pivit["min_players"], pivit["max_players"], pivit["timed"]) == (2, 4, True)
    assert {"timer_seconds", "target", "stick_values", "young"} <= set(pivit["options"])


def test_create_answers_201_with_the_table_its_pin_and_address(client):
    response = client.post("/api/tables", json={
        "game": "pivit-tiles", "players": ["Ann", "Bob", "Cy"],
        "options": {"timer_seconds": 30, "target": 12, "stick_values": [5, 3, 1], "young": True, "pin": "1357"}})
    assert response.status_code == 201
    body = response.get_json()
    assert body["pin"] == "1357"
    assert body["url"] == f"http://192.168.1.20:8080/tables/{body['id']}"
    assert response.headers["Location"].endswith(f"/api/tables/{body['id']}")
    assert body["game"] == "pivit-tiles" and body["players"] == ["Ann", "Bob", "Cy"] and body["version"] == 0
    assert "pin" not in body["options"]
    state = body["state"]
    assert state["target"] == 12 and state["options"]["young"] is True
    assert state["options"]["stick_values"] == [5, 3, 1] and state["options"]["timer_seconds"] == 30
    assert body["timer"]["status"] == "idle"
    # The PIN is shown once, to the creator: never again.
    assert "1357" not in client.get(f"/api/tables/{body['id']}").get_data(as_text=True)


@pytest.mark.parametrize("body, message", [
    ({"game": "chess", "players": ["A", "B"]}, "unknown game"),
    ({"players": ["A", "B"]}, "game: required"),
    ({"game": "pivit-tiles", "players": ["Ann"]}, "2 to 4 players"),
    ({"game": "pivit-tiles", "players": ["Ann", "Bob"], "options": {"timer_seconds": 0}}, "timer_seconds"),
    ({"game": "pivit-tiles", "players": ["Ann", "Bob"], "options": {"stick_values": [1, 2, 4]}}, "highest first"),
    ({"game": "pivit-tiles", "players": ["Ann", "Bob"], "options": {"colour": "red"}}, "options.colour: unknown field"),
    ({"game": "pivit-tiles", "players": ["Ann", "Bob"], "pin": "12"}, "PIN"),
])
def test_create_errors(client, body, message):
    response = client.post("/api/tables", json=body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_bodies_that_are_not_json_objects(client):
    response = client.post("/api/tables", data="{not json", content_type="application/json")
    assert response.status_code == 400 and "not valid JSON" in response.get_json()["error"]
    response = client.post("/api/tables", json=[1, 2])
    assert response.status_code == 400 and "JSON object" in response.get_json()["error"]
    response = client.post("/api/tables", data="game=pivit-tiles", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415


def test_request_size_limit(client):
    response = client.post("/api/tables", json={"game": "pivit-tiles", "players": ["x" * 70000]})
    assert response.status_code == 413 and "larger than" in response.get_json()["error"]


def test_cross_site_requests_are_refused(client, api):
    table = api.create()
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
        response = client.post(f"/api/tables/{table['id']}/actions", json={"type": "start-round"},
                               headers={"X-Table-Pin": PIN, **headers})
        assert response.status_code == 403, headers
        assert response.get_json()["error"] == "cross-site request refused"
    response = client.post(f"/api/tables/{table['id']}/actions", json={"type": "start-round"},
                           headers={"X-Table-Pin": PIN, "Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200


def test_list_and_get(client, api):
    a = api.create()
    b = api.create(players=("Cy", "Di", "Ed"))
    listed = client.get("/api/tables").get_json()["tables"]
    assert {t["id"] for t in listed} == {a["id"], b["id"]}
    got = api.get(a["id"])
    for key in ("id", "game", "players", "version", "state", "actions", "timer", "server_time_ms", "can_undo"):
        assert key in got
    assert got["actions"][0] == {"type": "start-round"}
    response = client.get("/api/tables/nope")
    assert response.status_code == 404 and response.get_json() == {"error": "no table 'nope'"}


def test_actions_answer_the_new_state(api):
    table = api.create()
    after = api.act(table["id"], type="start-round")
    assert after["version"] == 1 and after["state"]["phase"] == "playing"
    after = api.act(table["id"], type="trade", player=0)
    assert after["state"]["players"][0]["tokens"] == 1


def test_rule_errors_are_409_with_the_engines_message(api):
    """A well-formed action the rules forbid now is a conflict with the table's state (409);
    one that is not an action of any game here is bad input (400)."""
    table = api.create()
    body = api.act(table["id"], expect=409, type="trade", player=0)
    assert body == {"error": "Trading is not possible before the round starts (say go first)"}
    body = api.act(table["id"], expect=400, type="bogus")
    assert "no game here has a 'bogus' action" in body["error"]
    body = api.act(table["id"], expect=409, type="move", player=0, move="a1-a2")
    assert body["error"].startswith("Pivit (tile game) has no 'move' action")
    body = api.act(table["id"], expect=400, player=0)
    assert "type" in body["error"]
    body = api.act(table["id"], expect=400, type="trade", player=5)
    assert "player" in body["error"]


def test_pin_is_required_for_every_change(client, api, clock):
    table = api.create()
    tid = table["id"]
    for path, body in ((f"/api/tables/{tid}/actions", {"type": "start-round"}),
                       (f"/api/tables/{tid}/undo", {}), (f"/api/tables/{tid}/redo", {}),
                       (f"/api/tables/{tid}/timer", {"command": "start"}), (f"/api/tables/{tid}/pin", {})):
        response = client.post(path, json=body)
        assert response.status_code == 401, path
        assert "PIN" in response.get_json()["error"]
        response = client.post(path, json=body, headers={"X-Table-Pin": "0000"})
        assert response.status_code == 403, path
    assert api.get(tid)["version"] == 0
    clock.advance(60)  # five wrong PINs locked this client out for a while
    # In the body instead of the header.
    response = client.post(f"/api/tables/{tid}/actions", json={"type": "start-round", "pin": PIN})
    assert response.status_code == 200
    assert client.post(f"/api/tables/{tid}/pin", json={}, headers={"X-Table-Pin": PIN}).get_json() == {"ok": True}


def test_too_many_wrong_pins_lock_the_client_out(client, api, clock):
    table = api.create()
    path = f"/api/tables/{table['id']}/pin"
    codes = [client.post(path, json={}, headers={"X-Table-Pin": f"{i:04d}"}).status_code for i in range(5)]
    assert codes == [403] * 5
    response = client.post(path, json={}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 429 and int(response.headers["Retry-After"]) > 0
    clock.advance(31)
    assert client.post(path, json={}, headers={"X-Table-Pin": PIN}).status_code == 200
    # Another table is not locked by this one.
    other = api.create()
    assert client.post(f"/api/tables/{other['id']}/pin", json={}, headers={"X-Table-Pin": PIN}).status_code == 200


def test_version_conflict_is_409(api):
    table = api.create()
    api.act(table["id"], type="start-round", expected_version=0)
    body = api.act(table["id"], expect=409, type="trade", player=0, expected_version=0)
    assert body["version"] == 1 and body["expected_version"] == 0 and "changed" in body["error"]
    body = api.act(table["id"], expect=400, type="trade", player=0, expected_version="one")
    assert "expected_version" in body["error"]


def test_a_repeated_action_id_is_applied_once(api):
    table = api.create()
    api.act(table["id"], type="start-round")
    first = api.act(table["id"], type="trade", player=1, action_id="phone-b-7")
    again = api.act(table["id"], type="trade", player=1, action_id="phone-b-7")
    assert "duplicate" not in first and again["duplicate"] is True
    assert again["version"] == first["version"] and again["state"]["players"][1]["tokens"] == 1


def test_undo_and_redo(api):
    table = api.create()
    tid = table["id"]
    api.act(tid, type="start-round")
    api.act(tid, type="trade", player=0)
    undone = api.post(f"/api/tables/{tid}/undo")
    assert undone["state"]["players"][0]["tokens"] == 2 and undone["can_redo"]
    assert undone["redo_event"] == {"type": "trade", "player": 0}
    redone = api.post(f"/api/tables/{tid}/redo")
    assert redone["state"]["players"][0]["tokens"] == 1 and not redone["can_redo"]
    body = api.post(f"/api/tables/{tid}/redo", expect=409)
    assert body == {"error": "nothing to redo"}
    body = api.post(f"/api/tables/{tid}/undo", expect=409, expected_version=1)
    assert "changed" in body["error"]
    api.post(f"/api/tables/{tid}/undo", action_id="u-1")
    again = api.post(f"/api/tables/{tid}/undo", action_id="u-1")
    assert again["duplicate"] and again["state"]["players"][0]["tokens"] == 2


def test_undo_on_a_fresh_table(api):
    table = api.create()
    assert api.post(f"/api/tables/{table['id']}/undo", expect=409) == {"error": "nothing to undo"}


def test_timer_commands(api, clock):
    table = api.create()
    tid = table["id"]
    running = api.post(f"/api/tables/{tid}/timer", command="start", seconds=30)
    assert running["timer"]["status"] == "running" and running["timer"]["remaining_ms"] == 30000
    assert running["timer"]["deadline_ms"] == running["server_time_ms"] + 30000
    clock.advance(10)
    paused = api.post(f"/api/tables/{tid}/timer", command="pause")
    assert paused["timer"]["status"] == "paused" and paused["timer"]["remaining_ms"] == 20000
    assert api.post(f"/api/tables/{tid}/timer", expect=409, command="pause")["error"] == "the timer is paused, not running"
    assert api.post(f"/api/tables/{tid}/timer", command="resume")["timer"]["status"] == "running"
    assert api.post(f"/api/tables/{tid}/timer", command="cancel")["timer"]["status"] == "idle"
    assert "command" in api.post(f"/api/tables/{tid}/timer", expect=400, command="stop")["error"]
    assert "seconds" in api.post(f"/api/tables/{tid}/timer", expect=400, command="start", seconds=-5)["error"]


def test_events_log(client, api):
    table = api.create()
    tid = table["id"]
    api.act(tid, type="start-round", action_id="go")
    api.post(f"/api/tables/{tid}/undo")
    body = client.get(f"/api/tables/{tid}/events").get_json()
    assert [(e["seq"], e["kind"]) for e in body["entries"]] == [(1, "event"), (2, "undo")]
    assert body["entries"][0]["body"] == {"type": "start-round"} and body["entries"][0]["action_id"] == "go"
    assert client.get("/api/tables/nope/events").status_code == 404


def test_unknown_routes_and_methods_answer_json(client):
    response = client.get("/api/nothing")
    assert response.status_code == 404 and "error" in response.get_json()
    response = client.delete("/api/tables")
    assert response.status_code == 405 and "error" in response.get_json()
