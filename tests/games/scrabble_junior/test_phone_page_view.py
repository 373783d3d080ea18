"""What the phone page and the service's chart read from the engine's JSON: the chips as `scores`."""
from __future__ import annotations

import random

from companion.games.scrabble_junior.game import GAME
from companion.tables import scores_of, winners_of


def test_the_chips_are_the_scores_the_chart_and_history_read(bots):
    state = GAME.new_state(["Ana", "Bo", "Cy"], {"seed": 4})
    assert GAME.to_json(state)["scores"] == [0, 0, 0]
    rng = random.Random(4)
    while not GAME.finished(state):
        state = GAME.apply(state, bots.greedy(state, rng))
        view = GAME.to_json(state)
        assert view["scores"] == [p["chips"] for p in view["players"]] == list(state.chips)
    assert scores_of(view, 3) == list(state.chips) and sum(state.chips) == 28
    assert winners_of(view, 3) == view["winners"]


def test_the_chips_after_a_completed_word(position):
    # JACKET with all but its T covered: Ana's T completes it (one chip).
    state = position(covered=["Je", "Ke", "Le", "Me", "Ne"], racks=["TAAAAAA", "EEEEEEE"])
    after = GAME.apply(state, {"type": "cover", "player": 0, "cell": "Oe"})
    assert GAME.to_json(state)["scores"] == [0, 0]
    assert GAME.to_json(after)["scores"] == [1, 0]
