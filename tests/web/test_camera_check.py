"""The camera check over HTTP: photo -> tiles -> verdict -> correction -> the verify event.

Photos are synthetic renders (vision.synthetic), never real photos.
"""
from __future__ import annotations

import pytest

from companion.camera_checks import CameraChecks
from web import create_app

from .conftest import PIN, Api  # noqa: F401  (fixtures come from conftest)

GOOD = {(r, c): d + col for r, col in enumerate("RGBY") for c, d in enumerate("123456")}


def photo(cells, seed=3, **scene):
    import cv2

    from vision.synthetic import Scene, render

    image = render(cells, "classic", Scene(seed=seed, **scene)).image
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return buf.tobytes()


class FakeCamera:
    """Behaves like vision.capture's cameras: capture() gives a BGR frame of what lies on the table."""

    def __init__(self, cells):
        self.cells = cells
        self.captures = 0

    def capture(self):
        from vision.synthetic import Scene, render

        self.captures += 1
        return render(self.cells, "classic", Scene(seed=5, rotation=12)).image


@pytest.fixture
def camera():
    return FakeCamera(GOOD)


@pytest.fixture
def app(service, camera):
    return create_app({"TABLE_SERVICE": service, "START_TICKER": False, "TESTING": True,
                       "CAMERA_CHECKS": CameraChecks(camera=camera), "MAX_PHOTO_BYTES": 2_000_000})


def upload(client, table_id, data, player=0, pin=PIN, content_type="image/jpeg"):
    headers = {"Content-Type": content_type}
    if pin is not None:
        headers["X-Table-Pin"] = pin
    return client.post(f"/api/tables/{table_id}/camera-checks?player={player}", data=data, headers=headers)


def table_after_done(api, player=0):
    table = api.create()
    api.act(table["id"], type="start-round")
    api.act(table["id"], type="done", player=player)
    return table["id"]


def test_uploaded_photo_is_read_checked_and_drawn(client, api):
    table_id = table_after_done(api)
    response = upload(client, table_id, photo(GOOD))
    assert response.status_code == 201, response.get_json()
    check = response.get_json()
    assert check["valid"] is True and check["violations"] == []
    assert check["grid"].splitlines()[0] == "1R 2R 3R 4R 5R 6R"
    assert len(check["tiles"]) == 24 and check["player"] == 0
    assert check["rules"] == {"tileset": "classic", "young": False, "tiles": 24}
    png = client.get(check["annotated_url"])
    assert png.status_code == 200 and png.mimetype == "image/png" and png.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert client.get(f"/api/tables/{table_id}/camera-checks/{check['id']}").get_json()["grid"] == check["grid"]


def test_faulty_grid_then_one_tap_correction_then_verify_event(client, api):
    table_id = table_after_done(api)
    wrong = dict(GOOD)
    wrong[1, 2] = "3B"  # a blue diamond in the green row: the row is mixed, column 2 repeats 3B
    check = upload(client, table_id, photo(wrong)).get_json()
    assert check["valid"] is False
    assert {v["rule"] for v in check["violations"]} == {"mixed-line", "duplicate"}
    assert any([1, 2] in v["cells"] for v in check["violations"])

    # The group looks at the tile and finds the camera read it right: the grid is wrong.
    # Then a misread: the player swapped the tile back before the photo, say; one tap fixes the cell.
    fixed = api.post(f"/api/tables/{table_id}/camera-checks/{check['id']}/corrections",
                     cells=[{"row": 1, "col": 2, "tile": "3G"}])
    assert fixed["valid"] is True and fixed["revision"] == 1
    assert next(t for t in fixed["tiles"] if (t["row"], t["col"]) == (1, 2)) == {
        "row": 1, "col": 2, "tile": "3G", "confidence": 1.0, "corrected": True}
    assert client.get(fixed["annotated_url"]).status_code == 200

    table = api.post(f"/api/tables/{table_id}/camera-checks/{check['id']}/verify")
    assert table["state"]["phase"] == "last-minute"
    assert table["state"]["players"][0]["verified"] is True
    entries = client.get(f"/api/tables/{table_id}/events").get_json()["entries"]
    verifies = [e["body"] for e in entries if e["kind"] == "event" and e["body"]["type"] == "verify"]
    assert verifies == [{"type": "verify", "player": 0, "valid": True, "source": "camera"}]


def test_verdict_not_correct_is_recorded_as_such(client, api):
    table_id = table_after_done(api)
    wrong = dict(GOOD)
    wrong[1, 2] = "3B"
    check = upload(client, table_id, photo(wrong)).get_json()
    table = api.post(f"/api/tables/{table_id}/camera-checks/{check['id']}/verify")
    assert table["state"]["phase"] == "playing"  # 2 players: play goes on without penalty
    assert "not correct" in table["state"]["last"]


def test_table_camera_takes_the_picture_when_no_photo_is_sent(client, api, camera):
    table_id = table_after_done(api)
    response = client.post(f"/api/tables/{table_id}/camera-checks?player=0&source=camera",
                           headers={"X-Table-Pin": PIN})
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["valid"] is True and camera.captures == 1
    health = client.get("/api/health").get_json()
    assert health["camera"]["attached"] is True and health["camera"]["reads"] == 1


def test_verify_refused_when_the_rules_do_not_allow_it(client, api):
    table = api.create()
    check = upload(client, table["id"], photo(GOOD)).get_json()  # nobody said done
    response = client.post(f"/api/tables/{table['id']}/camera-checks/{check['id']}/verify",
                           json={}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 409 and "error" in response.get_json()


@pytest.mark.parametrize(
    "data, kwargs, status, fragment",
    [
        (b"this is not a picture", {}, 400, ""),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 100, {}, 400, ""),  # a truncated JPEG
        (None, {"pin": None}, 401, "PIN"),
        (None, {"pin": "0000"}, 403, "wrong PIN"),
        (None, {"player": 3}, 400, "no player 3"),
        (None, {"player": 7}, 400, "player: input should be less than or equal to 3"),
        (None, {"player": "x"}, 400, "player"),
        (None, {"content_type": "text/plain"}, 400, "image/jpeg"),
        (b"\xff" * 2_000_001, {}, 413, ""),
    ],
)
def test_bad_uploads_get_clear_errors(client, api, data, kwargs, status, fragment):
    table_id = table_after_done(api)
    response = upload(client, table_id, photo(GOOD) if data is None else data, **kwargs)
    assert response.status_code == status
    body = response.get_json()
    assert set(body) == {"error"} and fragment in body["error"]


def test_photo_without_tiles_is_422(client, api):
    import cv2
    import numpy as np

    table_id = table_after_done(api)
    blank = np.full((480, 640, 3), (60, 110, 160), np.uint8)  # an empty wooden-brown table
    ok, buf = cv2.imencode(".png", blank)
    response = upload(client, table_id, buf.tobytes(), content_type="image/png")
    assert response.status_code == 422 and "error" in response.get_json()


def test_no_camera_and_no_photo_is_409(service, api):
    app = create_app({"TABLE_SERVICE": service, "START_TICKER": False, "TESTING": True})
    client = app.test_client()
    table_id = table_after_done(Api(client))
    response = client.post(f"/api/tables/{table_id}/camera-checks?player=0&source=camera",
                           headers={"X-Table-Pin": PIN})
    assert response.status_code == 409 and "upload a photo" in response.get_json()["error"]
    assert client.get("/api/health").get_json()["camera"]["attached"] is False


def test_other_games_and_unknown_checks(client, api):
    board = api.create(game="pivit-board")
    response = upload(client, board["id"], photo(GOOD))
    assert response.status_code == 409 and "Pivit tile grids" in response.get_json()["error"]
    table_id = table_after_done(api)
    assert client.get(f"/api/tables/{table_id}/camera-checks/nope").status_code == 404
    response = client.post(f"/api/tables/{table_id}/camera-checks/nope/corrections",
                           json={"cells": [{"row": 0, "col": 0, "tile": "3G"}]}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 404


@pytest.mark.parametrize(
    "cells, fragment",
    [
        ([], "cells: at least 1 items"),
        ("3G", "cells: input should be a valid list"),
        ([{"row": 0, "col": 0, "tile": "9Z"}], "not a tile"),
        ([{"row": 0, "col": 0, "tile": "1W"}], "white is not in the classic"),
        ([{"row": "a", "col": 0, "tile": "1R"}], "cells.0.row: input should be a valid integer"),
        ([{"row": 0, "col": 0}], "cells.0.tile: required"),  # no tile is not "no tile there" (null)
    ],
)
def test_bad_corrections_change_nothing(client, api, cells, fragment):
    table_id = table_after_done(api)
    check = upload(client, table_id, photo(GOOD)).get_json()
    response = client.post(f"/api/tables/{table_id}/camera-checks/{check['id']}/corrections",
                           json={"cells": cells}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 400 and fragment in response.get_json()["error"]
    again = client.get(f"/api/tables/{table_id}/camera-checks/{check['id']}").get_json()
    assert again["revision"] == 0 and again["grid"] == check["grid"]


def test_removing_a_phantom_tile(client, api):
    table_id = table_after_done(api)
    check = upload(client, table_id, photo(GOOD)).get_json()
    fixed = api.post(f"/api/tables/{table_id}/camera-checks/{check['id']}/corrections",
                     cells=[{"row": 0, "col": 0, "tile": None}])
    assert fixed["valid"] is False
    assert {v["rule"] for v in fixed["violations"]} >= {"tile-count"}


def test_close_waits_for_the_camera_being_opened(monkeypatch):
    """Shutting down while the camera is still opening must not leave that thread running."""
    import threading

    checks = CameraChecks()
    release = threading.Event()
    started = threading.Event()

    def slow_open(config):
        started.set()
        release.wait(5)
        return None, "no camera attached (test)"

    monkeypatch.setattr("companion.camera_checks.open_table_camera", slow_open)
    thread = checks.open_camera_in_background({})
    started.wait(5)
    assert checks.status()["detail"] == "opening the camera"
    threading.Timer(0.2, release.set).start()
    checks.close()
    assert not thread.is_alive()
    assert checks.status()["detail"] == "no camera attached (test)"


def test_verify_waits_until_unsure_and_missing_cells_are_settled(service, api):
    """A tile the reader is not sure of, and a cell where a tile may be missing, block the verdict
    (409) until a correction settles each: the same tile confirms it, null says no tile is there."""
    from dataclasses import replace

    from vision import read_image_bytes

    def doubtful_read(data, tileset):
        result = read_image_bytes(data, tileset)
        tiles = [replace(t, sure=False) if (t.row, t.col) == (1, 2) else t for t in result.tiles]
        return replace(result, tiles=tiles, missing=[(-1, 0)])

    app = create_app({"TABLE_SERVICE": service, "START_TICKER": False, "TESTING": True,
                      "CAMERA_CHECKS": CameraChecks(read_bytes=doubtful_read), "MAX_PHOTO_BYTES": 2_000_000})
    client = app.test_client()
    api = Api(client)
    table_id = table_after_done(api)
    check = upload(client, table_id, photo(GOOD)).get_json()
    assert check["unsure"] == [[1, 2]] and check["missing"] == [[-1, 0]]
    url = f"/api/tables/{table_id}/camera-checks/{check['id']}"
    png = client.get(check["annotated_url"])
    assert png.status_code == 200 and png.data[:8] == b"\x89PNG\r\n\x1a\n"

    refused = client.post(url + "/verify", json={}, headers={"X-Table-Pin": PIN})
    assert refused.status_code == 409
    assert set(refused.get_json()) == {"error"} and "not sure" in refused.get_json()["error"]

    confirmed = api.post(url + "/corrections", cells=[{"row": 1, "col": 2, "tile": "3G"}])
    assert confirmed["unsure"] == [] and confirmed["missing"] == [[-1, 0]]
    still = client.post(url + "/verify", json={}, headers={"X-Table-Pin": PIN})
    assert still.status_code == 409 and "missing" in still.get_json()["error"]

    settled = api.post(url + "/corrections", cells=[{"row": -1, "col": 0, "tile": None}])
    assert settled["unsure"] == [] and settled["missing"] == [] and settled["valid"] is True
    table = api.post(url + "/verify")
    assert table["state"]["players"][0]["verified"] is True


def test_a_blurred_photo_is_a_422_asking_for_another_with_its_reason(client, api):
    """The camera check never gives a verdict on a photo it cannot read reliably (issue 12): 422, the reason
    a page can branch on, and what to do in the error; nothing is recorded."""
    table_id = table_after_done(api)
    before = api.get(table_id)["version"]
    response = upload(client, table_id, photo(GOOD, blur=6.0, size=(1200, 900), tile_px=80.0))
    assert response.status_code == 422
    body = response.get_json()
    assert body["reason"] == "blurred" and "hold the phone still" in body["error"]
    assert api.get(table_id)["version"] == before
