"""The best-rotation hint ranks plays by what they are worth, the Double Rotate card's end draw included."""
from __future__ import annotations

import pytest

from companion.games.quivit.cards import POINT_CARD_COUNTS, point_deck
from companion.games.quivit.game import GAME
from companion.games.quivit.hints import best_rotations, double_rotate_worth


def spent(hint):
    return hint["spends_double_rotate"]


def test_a_plain_rotation_that_scores_as_much_comes_before_spending_the_double_rotate_card():
    state = GAME.new_state(["A", "B", "C"], {"seed": 7, "hints": True, "double_rotation": True})
    hints = best_rotations(state)
    # The example: "c2 double" (8 points, 6 cards) was first, "b1 left" (8 points, 5 cards) second.
    assert [(h["card"], h["direction"], h["points"]) for h in hints[:2]] == [("b1", "left", 8), ("d4", "right", 8)]
    worth = double_rotate_worth(state)
    c2 = next(h for h in hints if (h["card"], h["direction"]) == ("c2", "double"))
    assert spent(c2) and c2["value"] == pytest.approx(8 - worth, abs=0.005)
    assert not spent(hints[0]) and hints[0]["value"] == 8
    assert hints.index(c2) > max(i for i, h in enumerate(hints) if h["points"] == 7 and not spent(h))


def test_the_card_is_worth_the_mean_of_the_cards_nobody_has_seen():
    state = GAME.new_state(["A", "B"], {"seed": 3, "hints": True, "double_rotation": True})
    for _ in range(3):
        state = GAME.apply(state, best_rotations(state)[0]["event"])
    # In the digital game the unseen cards are the draw deck (every other card lies in the grid or
    # was taken); the hint counts them from the deck's make-up, not from its order.
    deck = point_deck()
    assert double_rotate_worth(state) == pytest.approx(sum(deck[i].value for i in state.deck) / len(state.deck))
    full = sum(v * n for v, n in POINT_CARD_COUNTS.items()) / sum(POINT_CARD_COUNTS.values())
    assert full == pytest.approx(1.5, abs=0.01)


@pytest.mark.parametrize("seed", range(40))
def test_the_top_hint_spends_the_card_only_when_it_gains_more_than_the_card_is_worth(seed):
    state = GAME.new_state(["A", "B", "C"], {"seed": seed, "hints": True, "double_rotation": True})
    hints = best_rotations(state)
    values = [h["value"] for h in hints]
    assert values == sorted(values, reverse=True)
    best_plain = max(h["points"] for h in hints if not spent(h))
    if spent(hints[0]):
        assert hints[0]["points"] - double_rotate_worth(state) > best_plain


def test_a_free_link_claim_that_keeps_the_card_is_worth_its_points(make_table, eleven_point_play):
    state = make_table(eleven_point_play, hints=True, double_rotation=True, free_link_spends_double_rotate=False)
    claims = [h for h in best_rotations(state) if h["direction"] == "free-link"]
    assert claims and all(not spent(h) and h["value"] == h["points"] for h in claims)
    state = make_table(eleven_point_play, hints=True, double_rotation=True, free_link_spends_double_rotate=True)
    claims = [h for h in best_rotations(state) if h["direction"] == "free-link"]
    assert all(spent(h) and h["value"] == pytest.approx(h["points"] - double_rotate_worth(state), abs=0.005) for h in claims)
