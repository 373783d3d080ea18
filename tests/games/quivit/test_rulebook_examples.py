"""The rulebook's two pictured plays, rebuilt from their captions (docs/rules/quivit.md).

"10 POINT PLAY WITH BONUS ADJACENT CARD" and "SELECTED CARD / 11 POINT PLAY
WITH BONUS ADJACENT CARD", the latter showing "both green and yellow linked
cards as Free Links". The text copy keeps only the captions, so the grids are
reconstructions; each also shows what the link rule leaves out. The grids
live in conftest.py (fixtures `ten_point_play`, `eleven_point_play`), shared
with the engine tests.
"""
from __future__ import annotations

import pytest

from companion.games.base import RuleError
from companion.games.quivit import grid as g
from companion.games.quivit.cards import parse_cell

def names(cells):
    return sorted(g.cell_str(c) for c in cells)


def test_ten_point_play_with_bonus_adjacent_card(ten_point_play):
    grid, blocked = g.parse_grid(ten_point_play)
    c3 = parse_cell("c3")
    after = g.rotated(grid, c3, 1)
    take = g.take_from(after, blocked, c3)
    assert names(take.cells) == ["c3", "c4", "d2", "d3"]
    assert take.points(after) == 10
    assert g.describe_take(take, after) == "10 points: green d2 c3 d3, yellow c3 c4"
    # d2 is the bonus card: it does not touch c3, it joins through d3's green square.
    d2 = parse_cell("d2")
    assert abs(d2[0] - c3[0]) == 1 and abs(d2[1] - c3[1]) == 1
    # What the rule leaves out: b2 meets c3 only at a corner; e3 links d3 in another region.
    assert g.square_color(after, blocked, (3, 3)) == g.square_color(after, blocked, (4, 4)) == "R"
    assert frozenset({(4, 7), (4, 8)}) in g.links(after)  # d3's yellow top-right, e3's top-left
    assert parse_cell("b2") not in take.cells and parse_cell("e3") not in take.cells


def test_the_hint_lists_both_rotations_of_c3(ten_point_play):
    grid, blocked = g.parse_grid(ten_point_play)
    hints = {h.direction: h for h in g.hints(grid, blocked) if h.cell == (2, 2)}
    assert hints["right"].points == 10
    # Left makes c3 YBRG: its yellow top-left meets c2's yellow bottom-left (1 point).
    assert (hints["left"].points, names(hints["left"].cells)) == (3, ["c2", "c3"])


def test_eleven_point_play_selected_card_in_green_and_yellow_free_links(eleven_point_play):
    grid, blocked = g.parse_grid(eleven_point_play)
    links = {(fl.color, tuple(names(fl.cells))) for fl in g.free_links(grid, blocked)}
    assert links == {("G", ("b2", "b3", "c2", "c3")), ("Y", ("c2", "c3", "d2", "d3"))}
    take = g.take_from(grid, blocked, parse_cell("c3"))
    assert names(take.cells) == ["b2", "b3", "c2", "c3", "d2", "d3"]  # c2 is in both, counted once
    assert take.points(grid) == 11
    assert sorted(take.colors) == ["G", "Y"]


def test_selecting_a_card_in_one_free_link_scores_that_one(eleven_point_play):
    grid, blocked = g.parse_grid(eleven_point_play)
    take = g.take_from(grid, blocked, parse_cell("d2"))
    assert set(names(take.cells)) >= {"c2", "c3", "d2", "d3"}
    assert "b2" not in names(take.cells)


@pytest.mark.parametrize("die, points", [(None, 11), ("G", 8), ("Y", 8), ("R", None)])
def test_eleven_point_play_through_the_engine(make_table, game, die, points, eleven_point_play):
    options = {"double_rotation": True}
    state = make_table(eleven_point_play, **options)
    if die is not None:
        state = make_table(eleven_point_play, random_color=True, **options)
        state = game.apply(state, {"type": "roll", "player": 0})
        state.die = die  # a die that shows this colour (the roll itself is seeded)
    claim = {"type": "claim-free-link", "player": 0, "card": "c3"}
    if points is None:
        with pytest.raises(RuleError, match="not red, the color rolled"):
            game.apply(state, claim)
        return
    after = game.apply(state, claim)
    view = game.to_json(after)
    assert view["sides"][0]["score"] == points
    assert view["last_turn"]["action"] == "free-link"
    assert view["sides"][0]["holds_double_rotate"] is True  # "if the current player holds" it: not spent
    # The six taken places were refilled from the draw deck.
    assert len(view["last_turn"]["refilled"]) == len(view["last_turn"]["cards"])


def test_ten_point_play_through_the_engine(make_table, game, ten_point_play):
    state = make_table(ten_point_play)
    after = game.apply(state, {"type": "rotate", "player": 0, "card": "c3", "direction": "right"})
    view = game.to_json(after)
    assert view["sides"][0]["score"] == 10 and view["sides"][0]["cards"] == 4
    assert [c["cell"] for c in view["last_turn"]["cards"]] == ["d2", "c3", "d3", "c4"]
    assert view["last"] == "Ann rotates c3 right and takes 4 cards for 10 points"
    assert view["current"]["name"] == "Bob"


def test_claiming_needs_a_double_rotate_card_and_a_free_link(make_table, game, eleven_point_play):
    plain = make_table(eleven_point_play)
    with pytest.raises(RuleError, match="only claimed with the Double Rotation rule"):
        game.apply(plain, {"type": "claim-free-link", "player": 0, "card": "c3"})
    state = make_table(eleven_point_play, double_rotation=True)
    with pytest.raises(RuleError, match="not in a free link"):
        game.apply(state, {"type": "claim-free-link", "player": 0, "card": "e5"})
    claim = [a for a in game.actions(state) if a["type"] == "claim-free-link"]
    assert claim == [
        {
            "type": "claim-free-link",
            "player": 0,
            "cards": ["b2", "c2", "d2", "b3", "c3", "d3"],
            "links": {"b2": ["G"], "c2": ["G", "Y"], "d2": ["Y"], "b3": ["G"], "c3": ["G", "Y"], "d3": ["Y"]},
            "may_choose": True,
        }
    ]
