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


def poll(client, url, pin=PIN):
    return client.get(url, headers={"X-Table-Pin": pin} if pin else {})


def until_done(client, url):
    """The poll address's answers until it says done (a bounded number of polls, not a time)."""
    import time

    for _ in range(2400):
        response = poll(client, url)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        if body["two_trades"] == "done":
            return body
        assert body["poll"] == url
        time.sleep(0.05)
    raise AssertionError("the two-trade chances never came")


def test_two_tokens_answer_at_once_and_the_two_trade_chances_follow(client, api):
    from companion.hints import quick_hint

    table = api.create(hints=True, tokens=2)
    api.act(table["id"], type="start-round")
    hand = ["1R", "2R", "3G"]  # 3G shares nothing with the others
    body = hint(client, table["id"], tiles=hand).get_json()
    assert body["playable"] is False and body["trades_left"] == 2
    assert body["two_trades"] == "pending" and body["p_two_exact"] is False
    assert body["poll"].startswith(f"/api/tables/{table['id']}/hints/")
    assert body["advice"] and all(a["p_two"] is None for a in body["advice"])
    done = until_done(client, body["poll"])
    assert "poll" not in done
    # The same chances as the whole hint worked out at once, and one trade's are those given at once.
    service_table = client.application.config["TABLE_SERVICE"].get(table["id"])
    whole, later = quick_hint(service_table, 0, hand, defer=False)
    assert later is None
    assert whole["two_trades"] == "done"
    assert {k: v for k, v in done.items() if k != "elapsed_ms"} == {k: v for k, v in whole.items() if k != "elapsed_ms"}
    assert {a["trade"]: a["p_one"] for a in done["advice"]} == {a["trade"]: a["p_one"] for a in body["advice"]}
    assert all(a["p_two"] >= a["p_one"] for a in done["advice"])
    assert poll(client, body["poll"]).get_json() == done  # asked again: the same answer


def test_one_token_and_playable_hands_are_answered_whole(client, api):
    table = api.create(hints=True, tokens=2)
    body = hint(client, table["id"]).get_json()  # playable: nothing to work out later
    assert body["playable"] is True and body["two_trades"] == "done" and "poll" not in body
    one = api.create(hints=True, tokens=1)
    body = hint(client, one["id"], tiles=["1R", "2R", "3G"]).get_json()
    assert body["two_trades"] == "done" and "poll" not in body and body["advice"][0]["p_two"] is not None


def test_the_poll_address_is_the_tables_with_its_pin(client, api):
    table = api.create(hints=True, tokens=2)
    other = api.create(hints=True, tokens=2)
    url = hint(client, table["id"], tiles=["1R", "2R", "3G"]).get_json()["poll"]
    assert poll(client, url, pin=None).status_code == 401
    assert poll(client, url, pin="0000" if PIN != "0000" else "1111").status_code == 403
    job = url.rsplit("/", 1)[1]
    response = poll(client, f"/api/tables/{other['id']}/hints/{job}")
    assert response.status_code == 404 and "no such hint" in response.get_json()["error"]
    response = poll(client, f"/api/tables/{table['id']}/hints/not-a-job")
    assert response.status_code == 404 and "ask again" in response.get_json()["error"]
    until_done(client, url)


def test_the_two_trade_chances_go_on_from_the_one_trade_advice(client, api, monkeypatch):
    # The work behind the answer given at once (every hand a trade away judged) is not done
    # again for the two-trade chances, and they are the whole hint's.
    from companion.games.pivit_tiles import advisor
    from companion.hints import quick_hint

    table = api.create(hints=True, tokens=2)
    service_table = client.application.config["TABLE_SERVICE"].get(table["id"])
    hand = ["1R", "2R", "3G", "5B"]
    at_once, later = quick_hint(service_table, 0, hand)
    assert at_once["two_trades"] == "pending" and later is not None

    def again(self):
        raise AssertionError("the one-trade work done again")

    with monkeypatch.context() as patched:
        patched.setattr(advisor._Advisor, "one_trade_all", again)
        done = later()
    whole, _ = quick_hint(service_table, 0, hand, defer=False)
    assert done["two_trades"] == "done"
    assert {k: v for k, v in done.items() if k != "elapsed_ms"} == {k: v for k, v in whole.items() if k != "elapsed_ms"}
