"""What the phone page reads from the view beyond the rules: the practice computer's move."""
from __future__ import annotations

import pytest

from companion.games.pivit_board.engine import GAME


def test_the_view_carries_the_computers_move_for_the_player_to_move():
    state = GAME.new_state(["Ann", "Ben"], {"board_size": 6, "start": "6/1B-4/6/6/1a|4/4b|1 a 2 b"})
    view = GAME.to_json(state)
    assert view["suggestion"] == GAME.suggest_move(state) == "b2-b5"  # takes the free master
    after = GAME.apply(state, {"type": "move", "player": 0, "move": view["suggestion"]})
    assert GAME.to_json(after)["suggestion"] == GAME.suggest_move(after)


@pytest.mark.parametrize("seed", [0, 3])
def test_following_the_suggestion_plays_a_legal_game_to_the_end(seed):
    state = GAME.new_state(["Ann", "Ben"], {"board_size": 6, "seed": seed})
    view = GAME.to_json(state)
    turns = 0
    while not view["finished"]:
        origin, target = view["suggestion"].split("-")
        assert target in view["moves"][origin]  # always one of the moves the board lights up
        state = GAME.apply(state, {"type": "move", "player": view["turn"], "move": view["suggestion"]})
        view = GAME.to_json(state)
        turns += 1
    assert view["suggestion"] is None and view["winners"] and turns < 200
