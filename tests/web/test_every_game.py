"""Every installed game plugs into the same tables mechanism: a table can be made with its default
options, read, streamed, charted, exported and shown (its own page or the generic one)."""
from __future__ import annotations

import json

import pytest

from companion.games import available_games, get_game

PIN = "2468"


@pytest.mark.parametrize("game_id", available_games())
def test_every_game_is_served(client, game_id):
    game = get_game(game_id)
    players = [f"Player {i + 1}" for i in range(max(2, game.min_players))][:game.max_players]
    response = client.post("/api/tables", json={"game": game_id, "players": players, "options": {"pin": PIN}})
    assert response.status_code == 201, response.get_json()
    table = response.get_json()
    tid = table["id"]
    assert table["game"] == game_id and table["players"] == players and table["version"] == 0
    if "seed" in game.default_options():
        assert isinstance(table["options"]["seed"], int)
    json.dumps(table["state"])
    assert isinstance(table["actions"], list)
    for path in (f"/tables/{tid}", f"/tables/{tid}/chart.svg", f"/tables/{tid}/export.csv",
                 f"/tables/{tid}/export.json", f"/api/tables/{tid}/events"):
        assert client.get(path).status_code == 200, path
    html = client.get("/").get_data(as_text=True)
    assert f'data-game="{game_id}"' in html
    # An action no game has is a 400; another game's action a 409 with this game's words; never a server error.
    response = client.post(f"/api/tables/{tid}/actions", json={"type": "no-such-action", "player": 0},
                           headers={"X-Table-Pin": PIN})
    assert response.status_code == 400 and response.get_json()["error"]
    other = "move" if game_id != "pivit-board" else "trade"
    response = client.post(f"/api/tables/{tid}/actions", json={"type": other, "player": 0, "move": "a1-a2"}
                           if other == "move" else {"type": other, "player": 0}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 409 and "has no" in response.get_json()["error"]
