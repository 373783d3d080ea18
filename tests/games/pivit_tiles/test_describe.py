"""Events in sentences, with the right actor (the phones' undo line and the history)."""
from __future__ import annotations

import pytest

from companion.games.pivit_tiles.engine import GAME

PLAYERS = ["Ann", "Bob", "Cy"]


@pytest.mark.parametrize("event, sentence", [
    ({"type": "verify", "player": 2, "valid": False, "by": 0}, "Ann marked Cy's grid wrong"),
    ({"type": "verify", "player": 2, "valid": True, "by": 1}, "Bob marked Cy's grid correct"),
    ({"type": "verify", "player": 2, "valid": True}, "Cy's grid was marked correct"),
    ({"type": "verify", "player": 1, "valid": True, "by": 1}, "Bob marked their own grid correct"),
    ({"type": "verify", "player": 1, "valid": False, "source": "camera"}, "The camera check found Bob's grid wrong"),
    ({"type": "verify", "player": 1, "valid": True, "source": "camera", "by": 0},
     "Ann recorded the camera check: Bob's grid is correct"),
    ({"type": "trade", "player": 0}, "Ann traded a tile"),
    ({"type": "trade", "player": 0, "by": 0}, "Ann traded a tile"),
    ({"type": "trade", "player": 0, "by": 2}, "Cy recorded a trade for Ann"),
    ({"type": "done", "player": 1, "by": 1}, "Bob said done"),
    ({"type": "done", "player": 1, "by": 0}, "Ann said done for Bob"),
    ({"type": "return-stick", "player": 2}, "Cy returned the stick"),
    ({"type": "leave", "player": 2, "by": 0}, "Ann said Cy left the game"),
    ({"type": "start-round", "by": 1}, "Bob said go and the round started"),
    ({"type": "start-round"}, "Go! The round started"),
    ({"type": "next-round"}, "The next round was set up"),
    ({"type": "timer-expired"}, "Time ran out"),
    ({"type": "timer-cancelled"}, "The one-minute timer was cancelled"),
    ({"type": "trade", "player": 7}, None),  # not a player here: the service says it plainly
    ({"type": "shuffle"}, None),
])
def test_events_in_sentences(event, sentence):
    assert GAME.describe(event, PLAYERS) == sentence
