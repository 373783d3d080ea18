"""What the phone pages and the service read from a Quivit table: Family Play teams typed on a phone's
new-table form, and per-player scores and winners for the history and the score chart."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.base import OptionError
from companion.games.quivit.game import GAME
from companion.games.quivit.options import parse_team_names, parse_teams, teams_str
from companion.tables import scores_of, winners_of

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed"]


@pytest.mark.parametrize(
    "text, players, teams",
    [
        ("Ann, Cy / Bob, Di", NAMES[:4], [[0, 2], [1, 3]]),
        ("ann & cy; BOB + di", NAMES[:4], [[0, 2], [1, 3]]),
        ("Ann, Cy\nBob, Di\n", NAMES[:4], [[0, 2], [1, 3]]),
        ("1, 3 / 2, 4", NAMES[:4], [[0, 2], [1, 3]]),
        ("Ann / Bob, Cy", NAMES[:3], [[0], [1, 2]]),
        ("Player 1, Player 3 / Player 2", ["Player 1", "Player 2", "Player 3"], [[0, 2], [1]]),
        ("Ann,Cy/Bob/Di,Ed", NAMES, [[0, 2], [1], [3, 4]]),
    ],
)
def test_teams_as_typed(text, players, teams):
    assert parse_teams(text, players) == teams


@pytest.mark.parametrize(
    "text, says",
    [
        ("", "Family Play needs teams, like: Ann, Cy / Bob, Di"),
        ("Ann, Cy / Zed", "team 2 names 'Zed', who is not at this table"),
        ("Ann / 7", "team 2 names '7', who is not at this table"),
        ("Ann, Cy / / Bob", "team 2 names nobody"),
    ],
)
def test_teams_that_cannot_be_read(text, says):
    with pytest.raises(OptionError, match=says):
        parse_teams(text, NAMES[:4])


@given(st.permutations(range(5)), st.integers(1, 4))
def test_teams_print_and_read_back(order, cut):
    teams = [list(order[:cut]), list(order[cut:])]
    assert parse_teams(teams_str(teams, NAMES), NAMES) == teams


def test_a_table_made_on_the_new_table_form():
    # The form sends every option; empty text is "not set", as the defaults are.
    options = {**GAME.default_options(), "seed": 5}
    assert options["teams"] == "" and options["team_names"] == ""
    assert [s.members for s in GAME.new_state(NAMES[:2], options).sides] == [(0,), (1,)]
    family = {**options, "family_play": True, "teams": "Ann, Cy / Bob, Di", "team_names": "Suns / Moons"}
    view = GAME.to_json(GAME.new_state(NAMES[:4], family))
    assert [(s["name"], s["members"]) for s in view["sides"]] == [("Suns", [0, 2]), ("Moons", [1, 3])]
    assert view["options"]["teams"] == [[0, 2], [1, 3]]
    with pytest.raises(OptionError, match="Family Play needs teams"):
        GAME.new_state(NAMES[:4], {**options, "family_play": True})
    with pytest.raises(OptionError, match="one name per team"):
        GAME.new_state(NAMES[:4], {**family, "team_names": "Suns"})
    with pytest.raises(OptionError, match="turn on the option family_play"):
        GAME.new_state(NAMES[:4], {**options, "teams": "Ann, Cy / Bob, Di"})
    assert parse_team_names(" Suns / Moons ") == ["Suns", "Moons"] and parse_team_names(" ") == []


def play_scorekeeping(players, options, takes):
    state = GAME.new_state(players, {"mode": "scorekeeping", "rounds": 1, **options})
    for cards in takes:
        state = GAME.apply(state, {"type": "take", "player": state.current_player, "cards": cards})
    assert GAME.finished(state)
    return GAME.to_json(state)


def test_scores_and_winners_are_per_player_for_the_service():
    # Family Play: Bob & Cy win; the history credits both of them, and the chart has a line per player.
    view = play_scorekeeping(NAMES[:3], {"family_play": True, "teams": [[0], [2, 1]]}, [[1, 1], [3, 2]])
    assert view["winning_sides"] == [1] and view["winners"] == [1, 2]
    assert view["scores"] == [2, 5, 5]
    assert scores_of(view, 3) == [2, 5, 5] and winners_of(view, 3) == [1, 2]
    # Without teams a side is a player: the lists are the sides'.
    view = play_scorekeeping(NAMES[:2], {}, [[3, 3], [1, 1]])
    assert view["winners"] == view["winning_sides"] == [0] and view["scores"] == [6, 2]
    # A shared win lists everyone who shares it.
    view = play_scorekeeping(NAMES[:4], {"family_play": True, "teams": [[0, 1], [2, 3]]}, [[2, 1], [1, 2]])
    assert view["winning_sides"] == [0, 1] and view["winners"] == [0, 1, 2, 3]
