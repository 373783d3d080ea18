"""The "I'm stuck" hint over HTTP: an arrangement for a playable hand, trade advice otherwise."""
from __future__ import annotations

import pytest

from companion.games.pivit_tiles.check import check_grid
from companion.games.pivit_tiles.grid import parse_grid

from .conftest import PIN

PLAYABLE = [d + c for c in "RGBY" for d in "123456"]
# 1R shares a colour or a design with no other tile: no line can hold it, whatever the rest.
LONELY = [d + c for c in "OYGB" for d in "23456"] + ["2P", "3P", "4P", "1R"]


def hint(client, table_id, player=0, tiles=PLAYABLE, pin=PIN):
    headers = {"X-Table-Pin": pin} if pin else {}
    return client.post(f"/api/tables/{table_id}/hints", json={"player": player, "tiles": tiles}, headers=headers)


def test_playable_hand_gets_an_arrangement(client, api):
    table = api.create(hints=True)
    response = hint(client, table["id"])
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["playable"] is True and body["advice"] == [] and body["certain"] is True
    grid = parse_grid(body["grid"])
    assert sorted(grid.values()) == sorted(PLAYABLE)
    assert check_grid(grid).valid
    # The same arrangement as data (what the phone draws), 0-based from the top-left.
    cells = {(c["row"], c["col"]): c["tile"] for c in body["cells"]}
    assert cells == grid and min(r for r, _ in cells) == 0 and min(c for _, c in cells) == 0


def test_stuck_hand_gets_trade_advice_for_the_tokens_left(client, api):
    table = api.create(hints=True, tokens=1)
    api.act(table["id"], type="start-round")
    body = hint(client, table["id"], tiles=LONELY).get_json()
    assert body["playable"] is False and body["grid"] is None and body["cells"] is None
    assert body["trades_left"] == 1
    best = body["advice"][0]
    assert best["trade"] == "1R"
    assert 0 < best["p_one"] <= 1 and best["p_two"] == best["p_one"]  # one token: one trade
    assert [a["trade"] for a in body["advice"]].count("1R") == 1
    # Following the advice is an ordinary trade.
    table_after = api.act(table["id"], type="trade", player=0)
    assert table_after["state"]["players"][0]["tokens"] == 0
    assert hint(client, table["id"], tiles=LONELY).get_json()["advice"] == []  # no tokens left: nothing to rank


def test_young_tables_allow_hints_by_default(client, api):
    table = api.create(young=True)
    body = hint(client, table["id"], tiles=["1R", "2R"]).get_json()
    assert body.get("playable") is True, body


@pytest.mark.parametrize(
    "options, kwargs, status, fragment",
    [
        ({}, {}, 403, "does not allow hints"),
        ({"hints": True}, {"pin": None}, 401, "PIN"),
        ({"hints": True}, {"tiles": []}, 400, "list of the tiles"),
        ({"hints": True}, {"tiles": ["3G", "9Z"]}, 400, "tile 2"),
        ({"hints": True}, {"tiles": ["1W", "2R", "3R"]}, 400, "white is not in the classic"),
        ({"hints": True}, {"tiles": ["1R"] * 4}, 400, "a box has only 3"),
        ({"hints": True}, {"player": 3}, 400, "no player 3"),
        ({"hints": True}, {"player": 5}, 400, "player: input should be less than or equal to 3"),
        ({"hints": True}, {"tiles": ["1R"] * 41}, 400, "tiles: at most 40 items"),
    ],
)
def test_bad_hint_requests(client, api, options, kwargs, status, fragment):
    table = api.create(**options)
    response = hint(client, table["id"], **kwargs)
    assert response.status_code == status
    assert fragment in response.get_json()["error"]


def test_hints_are_for_pivit_tiles_only(client, api):
    table = api.create(game="pivit-board")
    response = hint(client, table["id"])
    assert response.status_code == 409 and "Pivit tile game" in response.get_json()["error"]


def test_photo_of_loose_tiles_fills_the_hand(client, api):
    import cv2

    from vision.synthetic import synthetic_hand

    table = api.create(hints="on")
    shot = synthetic_hand(7, "classic", tiles=8, wilds=1)
    ok, jpeg = cv2.imencode(".jpg", shot.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    response = client.post(f"/api/tables/{table['id']}/hand-photos?player=0", data=jpeg.tobytes(),
                           headers={"Content-Type": "image/jpeg", "X-Table-Pin": PIN})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert sorted(body["tiles"]) == sorted(shot.tiles) and body["hand"].split() == body["tiles"]
    # Bad photos and tables without hints get clear errors.
    bad = client.post(f"/api/tables/{table['id']}/hand-photos", data=b"not a photo",
                      headers={"Content-Type": "image/jpeg", "X-Table-Pin": PIN})
    assert bad.status_code == 400 and "error" in bad.get_json()
    off = api.create()
    refused = client.post(f"/api/tables/{off['id']}/hand-photos", data=jpeg.tobytes(),
                          headers={"Content-Type": "image/jpeg", "X-Table-Pin": PIN})
    assert refused.status_code == 403
