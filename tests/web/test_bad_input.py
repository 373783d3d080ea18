"""The bad inputs of issue 15, each answered with a 4xx {"error"} naming what is wrong.

Every one of these was a 500, an accepted body or the wrong status before
the API was declared once (web.contract).
"""
from __future__ import annotations

import json

import pytest

from web.contract import MAX_JSON_DEPTH, json_depth

PIN = "2468"


def post_raw(client, path, raw: bytes, pin=PIN):
    return client.post(path, data=raw, content_type="application/json", headers={"X-Table-Pin": pin})


@pytest.mark.parametrize("path", ["/api/tables", "/api/tables/{tid}/actions", "/api/tables/{tid}/timer"])
def test_json_nested_30000_deep_is_a_400_not_a_recursion_error(client, api, path):
    table = api.create()
    raw = b"[" * 30000 + b"]" * 30000
    response = post_raw(client, path.format(tid=table["id"]), raw)
    assert response.status_code == 400
    assert response.get_json() == {"error": f"the request body nests deeper than {MAX_JSON_DEPTH} levels"}


def test_json_depth_is_counted_without_parsing():
    assert json_depth(b'{"a": [1, {"b": "[[[[{{{{"}]}') == 3  # brackets in strings do not count
    assert json_depth(b'"\\"[[["') == 0
    assert json_depth(b"[" * 40) == 40
    assert json_depth(b"") == 0


@pytest.mark.parametrize("raw, field", [
    (b'{"game": "pivit-tiles", "players": ["Ann", "B\\ud800b"]}', "players.1"),
    (b'{"game": "pivit-tiles", "players": ["Ann", "B\\u0000b"]}', "players.1"),
    (b'{"game": "pivit-tiles", "players": ["Ann", "B\\u0007b"]}', "players.1"),
    (b'{"game": "pivit-tiles", "players": ["Ann", "   "]}', "players.1"),
])
def test_names_with_lone_surrogates_nul_or_control_characters_are_refused(client, raw, field):
    response = post_raw(client, "/api/tables", raw)
    assert response.status_code == 400 and response.get_json()["error"].startswith(f"{field}: ")
    assert client.get("/api/tables").get_json() == {"tables": []}  # nothing half-written


def test_no_nul_in_any_page(client, api):
    response = post_raw(client, "/api/tables", b'{"game": "pivit-tiles", "players": ["A\\u0000nn", "Bob"]}')
    assert response.status_code == 400
    assert b"\x00" not in client.get("/").data


@pytest.mark.parametrize("action_id", ["\ud800", "a\x00b", "x" * 65, ""])
def test_a_bad_action_id_is_refused(client, api, action_id):
    table = api.create()
    raw = json.dumps({"type": "start-round", "action_id": action_id}).encode()
    response = post_raw(client, f"/api/tables/{table['id']}/actions", raw)
    assert response.status_code == 400 and response.get_json()["error"].startswith("action_id: ")
    assert api.get(table["id"])["version"] == 0


def test_unknown_keys_in_an_action_are_refused_not_logged(client, api):
    table = api.create()
    body = {"type": "start-round", "note": "x" * 100}
    response = client.post(f"/api/tables/{table['id']}/actions", json=body, headers={"X-Table-Pin": PIN})
    assert response.status_code == 400 and response.get_json()["error"].startswith("note: ")
    api.act(table["id"], type="start-round")
    response = client.post(f"/api/tables/{table['id']}/actions", json={"type": "trade", "player": 0, "tile": "3G"},
                           headers={"X-Table-Pin": PIN})
    assert response.status_code == 400 and response.get_json()["error"].startswith("tile: ")
    entries = client.get(f"/api/tables/{table['id']}/events").get_json()["entries"]
    assert [e["body"] for e in entries if e["kind"] == "event"] == [{"type": "start-round"}]
    assert "note" not in client.get(f"/tables/{table['id']}/export.json").get_data(as_text=True)


@pytest.mark.parametrize("raw", [b'{"command": "start", "seconds": NaN}', b'{"command": "start", "seconds": Infinity}',
                                 b'{"command": "start", "seconds": -5}', b'{"command": "start", "seconds": 1e308}',
                                 b'{"command": "start", "seconds": 0}', b'{"command": "start", "seconds": "60"}'])
def test_a_bad_timer_length_is_a_400_not_a_409(client, api, raw):
    table = api.create()
    response = post_raw(client, f"/api/tables/{table['id']}/timer", raw)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert "seconds" in error or "not valid JSON" in error  # NaN and Infinity are not JSON at all
    assert api.get(table["id"])["timer"]["status"] == "idle"


@pytest.mark.parametrize("body, field", [
    ({"game": "pivit-tiles", "players": []}, "players"),
    ({"game": "pivit-tiles", "players": ["Ann", "Bob"], "pin": 2468}, "pin"),
    ({"game": "pivit-tiles", "players": ["Ann", "Bob"], "extra": 1}, "extra"),
])
def test_create_refusals_name_the_field(client, body, field):
    response = client.post("/api/tables", json=body)
    assert response.status_code == 400 and response.get_json()["error"].startswith(f"{field}: ")


def test_undo_and_redo_check_their_fields(client, api):
    table = api.create()
    for body, field in (({"expected_version": -1}, "expected_version"), ({"action_id": 5}, "action_id"),
                        ({"colour": "red"}, "colour")):
        response = client.post(f"/api/tables/{table['id']}/undo", json=body, headers={"X-Table-Pin": PIN})
        assert response.status_code == 400 and response.get_json()["error"].startswith(f"{field}: "), body


def test_an_undeclared_method_is_a_405_not_a_415(client, api):
    table = api.create()
    response = client.put(f"/api/tables/{table['id']}/hand-photos", data=b"\xff\xd8", content_type="image/jpeg")
    assert response.status_code == 405 and "error" in response.get_json()


def test_a_40_mb_photo_names_the_photo_limit(client, api):
    table = api.create(hints=True)
    for path in (f"/api/tables/{table['id']}/camera-checks?player=0", f"/api/tables/{table['id']}/hand-photos"):
        response = client.post(path, data=b"\xff" * (40 * 1024 * 1024), content_type="image/jpeg",
                               headers={"X-Table-Pin": PIN})
        assert response.status_code == 413
        assert response.get_json()["error"].startswith("the photo is larger than 25 MiB (26214400 bytes)"), path


def test_an_empty_upload_is_not_taken_as_use_the_camera(client, api):
    table = api.create()
    response = client.post(f"/api/tables/{table['id']}/camera-checks?player=0", headers={"X-Table-Pin": PIN})
    assert response.status_code == 400 and "?source=camera" in response.get_json()["error"]
    response = client.post(f"/api/tables/{table['id']}/camera-checks?player=0&source=camera",
                           data=b"\xff\xd8\xff", content_type="image/jpeg", headers={"X-Table-Pin": PIN})
    assert response.status_code == 400 and "source=camera takes no body" in response.get_json()["error"]
    response = client.post(f"/api/tables/{table['id']}/camera-checks?player=0&source=camera",
                           headers={"X-Table-Pin": PIN})
    assert response.status_code == 409  # no camera attached: the explicit form still says so


def test_a_non_integer_last_event_id_is_a_400(client, api):
    table = api.create()
    response = client.get(f"/api/tables/{table['id']}/stream?last_event_id=abc")
    assert response.status_code == 400 and response.get_json()["error"].startswith("query last_event_id: ")
