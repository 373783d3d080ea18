"""Quivit's engine, rule by rule: setup, turn order, every optional rule, scorekeeping, the end."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from companion.games import available_games, get_game
from companion.games.base import OptionError, RuleError
from companion.games.quivit.cards import COLORS, POINT_CARD_COUNTS
from companion.games.quivit.game import GAME
from companion.games.quivit.hints import best_rotations

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed"]


def new(players=2, **options):
    return GAME.new_state(NAMES[:players], {"seed": 3, **options})


def play(state, *events):
    for event in events:
        state = GAME.apply(state, event)
    return state


def first_rotation(state):
    """Rotate the first rotatable card right: a legal move for whoever's turn it is."""
    (rotate,) = [a for a in GAME.actions(state) if a["type"] == "rotate"]
    return {"type": "rotate", "player": rotate["player"], "card": rotate["cards"][0], "direction": "right"}


def test_registered():
    assert get_game("quivit") is GAME
    assert "quivit" in available_games()
    assert GAME.id == "quivit" and GAME.min_players == 2


# -- setup ----------------------------------------------------------------------------------


def test_the_deal():
    state = new()
    view = GAME.to_json(state)
    assert view["phase"] == "turn" and view["round"] == 1 and view["turn"] == 1
    assert view["deck"] == {"remaining": 148 - 25, "total": 148}
    assert view["grid_count"] == 25
    assert all(cell["new"] and not cell["empty"] for row in view["grid"] for cell in row)
    assert view["current"] == {"side": 0, "side_name": "Ann", "player": 0, "name": "Ann"}
    assert json.loads(json.dumps(view)) == view
    # the same seed deals the same grid; another seed another
    assert GAME.to_json(new())["grid"] == view["grid"]
    assert GAME.to_json(new(seed=4))["grid"] != view["grid"]


def test_default_options_make_a_table():
    options = GAME.default_options()
    assert options["rounds"] == 5 and options["timer_seconds"] == 60 and options["drain_threshold"] == 15
    state = GAME.new_state(["Ann", "Bob"], options)
    assert state.options.seed == 0
    options["pin"] = "1234"  # the service keeps its PIN in the options
    GAME.new_state(["Ann", "Bob"], options)


@pytest.mark.parametrize(
    "players, options, says",
    [
        (["Ann"], {}, "2 to 16 players"),
        (["Ann", "ann"], {}, "same name"),
        (["Ann", ""], {}, "list of names"),
        ("Ann,Bob", {}, "list of names"),
        (["Ann", "Bob"], {"colour_blocking": True}, "unknown option 'colour_blocking'"),
        (["Ann", "Bob"], {"mode": "paper"}, "digital, scorekeeping"),
        (["Ann", "Bob"], {"timed": "yes"}, "true or false"),
        (["Ann", "Bob"], {"timer_seconds": 2}, "5 to 600"),
        (["Ann", "Bob"], {"rounds": 0}, "between 1 and 20"),
        (["Ann", "Bob"], {"decks": 1.5}, "whole number"),
        (["Ann", "Bob"], {"seed": 1.5}, "whole number or a string"),
        (["Ann", "Bob"], {"first_player": 2}, "one of the 2 players"),
        (NAMES, {}, "decks: 2"),
        (["Ann", "Bob"], {"teams": [[0], [1]]}, "turn on the option family_play"),
        (["Ann", "Bob"], {"family_play": True}, "Family Play needs teams"),
        (["Ann", "Bob", "Cy"], {"family_play": True, "teams": [[0, 1], [1, 2]]}, "Bob is in two teams"),
        (["Ann", "Bob", "Cy"], {"family_play": True, "teams": [[0, 1]]}, "Cy is in no team"),
        (["Ann", "Bob"], {"family_play": True, "teams": [[0, 1]]}, "at least two teams"),
        (["Ann", "Bob"], {"family_play": True, "teams": [[0], [7]]}, "not at this table"),
        (NAMES, {"family_play": True, "teams": [[0, 1, 2, 3, 4], []]}, "at most 4"),
        (["Ann", "Bob"], {"family_play": True, "teams": [[0], [1]], "team_names": ["X"]}, "one name per team"),
        (["Ann", "Bob"], {"drain_short_grid": "stop"}, "end, play-on"),
    ],
)
def test_bad_setups(players, options, says):
    with pytest.raises(OptionError, match=says):
        GAME.new_state(players, options)


def test_five_players_with_two_boxes():
    state = new(5, decks=2)
    assert GAME.to_json(state)["deck"] == {"remaining": 296 - 25, "total": 296}


# -- turns and rounds -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "players, first, order",
    [
        (2, 0, [0, 1, 1, 0, 0, 1, 1, 0, 0, 1]),
        (3, 0, [0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2, 1, 2, 0]),
        (3, 2, [2, 0, 1, 0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2]),
    ],
)
def test_each_player_rotates_once_a_round_and_the_first_player_moves_on(players, first, order):
    state = new(players, first_player=first)
    seen, rounds = [], []
    while not GAME.finished(state):
        seen.append(GAME.to_json(state)["current"]["side"])
        rounds.append(state.round)
        state = GAME.apply(state, first_rotation(state))
    assert seen == order
    assert rounds == [r for r in range(1, 6) for _ in range(players)]
    view = GAME.to_json(state)
    assert view["end_reason"] == "5 rounds played" and view["round"] == 5
    assert GAME.actions(state) == []


def test_a_rotation_scores_its_links_and_refills_the_grid(make_table, ten_point_play):
    state = make_table(ten_point_play)
    after = GAME.apply(state, {"type": "rotate", "player": 0, "card": "c3", "direction": "R"})
    view = GAME.to_json(after)
    assert view["last_turn"]["points"] == 10
    assert sorted(view["last_turn"]["refilled"]) == ["c3", "c4", "d2", "d3"]
    assert view["deck"]["remaining"] == state.deck_count - 4
    assert {c["cell"] for row in view["grid"] for c in row if c["new"]} == {"c3", "c4", "d2", "d3"}
    # the input state is untouched
    assert GAME.to_json(state)["sides"][0]["score"] == 0


def test_a_rotation_that_links_nothing_ends_the_turn(make_table, ten_point_play):
    state = make_table(ten_point_play)
    after = GAME.apply(state, {"type": "rotate", "player": 0, "card": "e1", "direction": "left"})
    view = GAME.to_json(after)
    assert view["last_turn"]["cards"] == [] and view["last"] == "Ann rotates e1 left: no links"
    assert view["grid"][0][4]["card"] == "RGYB1"  # BRGY1 turned left stays turned
    assert view["deck"] == GAME.to_json(state)["deck"]
    assert view["current"]["name"] == "Bob"


@pytest.mark.parametrize(
    "event, says",
    [
        ({"type": "rotate", "player": 1, "card": "c3", "direction": "right"}, "it is Ann's turn"),
        ({"type": "rotate", "player": 5, "card": "c3", "direction": "right"}, "no player 5"),
        ({"type": "rotate", "card": "c3", "direction": "right"}, "needs a player"),
        ({"type": "rotate", "player": 0, "direction": "right"}, "needs a card"),
        ({"type": "rotate", "player": 0, "card": "f9", "direction": "right"}, "not a place"),
        ({"type": "rotate", "player": 0, "card": "c3", "direction": "up"}, "not a rotation"),
        ({"type": "rotate", "player": 0, "card": "c3", "direction": "double"}, "Double Rotation rule"),
        ({"type": "take", "player": 0, "cards": [1, 1]}, "in a digital game rotate"),
        ({"type": "start-turn", "player": 0}, "the turn has started"),
        ({"type": "block", "player": 0, "card": "c3"}, "Color Blocking rule"),
        ({"type": "roll", "player": 0}, "the turn has started"),
        ({"type": "timer-expired"}, "no turn timer"),
        ({"type": "draw", "player": 0}, "only at the end of the game"),
        ({"type": "shuffle"}, "unknown action"),
        ({"player": 0}, "needs a type"),
    ],
)
def test_rule_errors_say_why(event, says):
    with pytest.raises(RuleError, match=says):
        GAME.apply(new(), event)


def test_rotating_a_blocked_card_or_an_empty_place(make_table, ten_point_play):
    state = make_table(ten_point_play.replace("GYBR2", "GYBR2#").replace("BGRY1", ".", 1))
    with pytest.raises(RuleError, match="under a Color Block"):
        GAME.apply(state, {"type": "rotate", "player": 0, "card": "c3", "direction": "right"})
    with pytest.raises(RuleError, match="no card at a1"):
        GAME.apply(state, {"type": "rotate", "player": 0, "card": [0, 0], "direction": "right"})


# -- Double Rotation ----------------------------------------------------------------------------


def test_double_rotate_turns_180_degrees_once_per_game(make_table, ten_point_play):
    state = make_table(ten_point_play, double_rotation=True)
    after = GAME.apply(state, {"type": "rotate", "player": 0, "card": "a1", "direction": "double"})
    view = GAME.to_json(after)
    assert view["last_turn"]["double_rotate"] and not view["sides"][0]["holds_double_rotate"]
    assert view["grid"][0][0]["card"] == "RYBG1"  # BGRY1 turned twice
    for _ in range(2):  # Bob ends round 1 and starts round 2
        assert GAME.actions(after)[0]["directions"] == ["right", "left", "double"]
        after = GAME.apply(after, first_rotation(after))
    with pytest.raises(RuleError, match="Ann has already used the Double Rotate card"):
        GAME.apply(after, {"type": "rotate", "player": 0, "card": "a1", "direction": "double"})
    assert GAME.actions(after)[0]["directions"] == ["right", "left"]


def test_free_link_claim_can_keep_the_card_by_option(make_table, eleven_point_play):
    state = make_table(eleven_point_play, double_rotation=True, free_link_spends_double_rotate=False)
    after = GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "b3"})
    assert GAME.to_json(after)["sides"][0]["holds_double_rotate"] is True


def test_end_of_game_draw_for_an_unused_double_rotate_card():
    state = new(rounds=1, double_rotation=True)
    state = play(state, first_rotation(state))
    state = play(state, first_rotation(state))
    view = GAME.to_json(state)
    assert view["phase"] == "final-draw" and not view["finished"]
    assert GAME.actions(state) == [
        {"type": "draw", "player": 0},
        {"type": "skip-draw", "player": 0},
        {"type": "draw", "player": 1},
        {"type": "skip-draw", "player": 1},
    ]
    top = state.deck[0]
    before = state.sides[0]
    state = GAME.apply(state, {"type": "draw", "player": 0})
    from companion.games.quivit.cards import point_deck

    value = point_deck()[top].value
    # Its points count; the card itself counts for the tie breaker only by option (see below).
    assert state.sides[0].score == before.score + value and state.sides[0].cards == before.cards
    assert state.sides[0].final_draw == value
    with pytest.raises(RuleError, match="already decided"):
        GAME.apply(state, {"type": "skip-draw", "player": 0})
    state = GAME.apply(state, {"type": "skip-draw", "player": 1})
    assert GAME.finished(state)
    assert GAME.to_json(state)["history"][-1]["action"] == "final-draw"


def test_scorekeeping_draw_needs_the_value():
    state = new(rounds=1, double_rotation=True, mode="scorekeeping")
    state = play(state, {"type": "take", "player": 0, "cards": [], "double_rotate": False})
    state = play(state, {"type": "take", "player": 1, "cards": [3, 3], "double_rotate": True})
    assert state.phase == "final-draw"
    assert GAME.actions(state) == [
        {"type": "draw", "player": 0, "values": [1, 2, 3, -1]},
        {"type": "skip-draw", "player": 0},
    ]
    with pytest.raises(RuleError, match="used the Double Rotate card"):
        GAME.apply(state, {"type": "draw", "player": 1, "value": 2})
    with pytest.raises(RuleError, match="needs the value"):
        GAME.apply(state, {"type": "draw", "player": 0})
    state = GAME.apply(state, {"type": "draw", "player": 0, "value": -1})
    view = GAME.to_json(state)
    assert view["finished"] and view["winners"] == [1]
    assert [s["score"] for s in view["sides"]] == [-1, 6]
    assert view["deck"]["remaining"] == 148 - 25 - 2 - 1


# -- Color Blocking -------------------------------------------------------------------------------


def test_color_blocking_window(make_table, ten_point_play):
    state = make_table(ten_point_play, color_blocking=True, current_player_may_block=True)
    actions = GAME.actions(state)
    assert [a["type"] for a in actions] == ["block", "block", "start-turn"]
    assert len(actions[0]["cards"]) == 25
    assert GAME.timer_request(state) is None
    with pytest.raises(RuleError, match="has to wait: Color Block"):
        GAME.apply(state, {"type": "rotate", "player": 0, "card": "c3", "direction": "right"})
    with pytest.raises(RuleError, match="it is Ann's turn"):
        GAME.apply(state, {"type": "start-turn", "player": 1})
    # Bob blocks d3: c3's green link to d3 (and on to d2) is gone.
    state = GAME.apply(state, {"type": "block", "player": 1, "card": "d3"})
    assert state.phase == "color-blocking"
    with pytest.raises(RuleError, match="already played the Color Block card"):
        GAME.apply(state, {"type": "block", "player": 1, "card": "a1"})
    with pytest.raises(RuleError, match="already blocked"):
        GAME.apply(state, {"type": "block", "player": 0, "card": "d3"})
    state = GAME.apply(state, {"type": "start-turn", "player": 0})
    assert state.phase == "turn"
    state = GAME.apply(state, {"type": "rotate", "player": 0, "card": "c3", "direction": "right"})
    view = GAME.to_json(state)
    assert [c["cell"] for c in view["last_turn"]["cards"]] == ["c3", "c4"]
    assert view["blocked"] == ["d3"] and view["grid"][2][3]["blocked"]
    # Bob's turn: Ann still holds her block, so the window opens; her block closes it.
    assert state.phase == "color-blocking"
    with pytest.raises(RuleError, match="after the grid is refreshed"):
        GAME.apply(GAME.apply(state, {"type": "start-turn", "player": 1}), {"type": "block", "player": 0, "card": "a1"})
    state = GAME.apply(state, {"type": "block", "player": 0, "card": "a1"})
    assert state.phase == "turn"
    state = GAME.apply(state, first_rotation(state))
    assert state.phase == "turn"  # nobody holds a block any more: no window


def test_color_block_in_scorekeeping_may_leave_out_the_place():
    state = new(mode="scorekeeping", color_blocking=True, current_player_may_block=True)
    state = GAME.apply(state, {"type": "block", "player": 1})
    state = GAME.apply(state, {"type": "block", "player": 0, "card": "e5"})
    view = GAME.to_json(state)
    assert view["blocked_count"] == 2 and view["blocked"] == ["e5"] and view["takeable"] == 23
    assert view["phase"] == "turn"


# -- Random Color and Timed ------------------------------------------------------------------------


def test_random_color_die_is_rolled_by_the_service_and_limits_the_take(make_table, ten_point_play):
    state = make_table(ten_point_play, random_color=True)
    with pytest.raises(RuleError, match="roll the color die first"):
        GAME.apply(state, {"type": "rotate", "player": 0, "card": "c3", "direction": "right"})
    with pytest.raises(RuleError, match="the service rolls"):
        GAME.apply(state, {"type": "roll", "player": 0, "color": "G"})
    rolled = GAME.apply(state, {"type": "roll", "player": 0})
    assert rolled.die in COLORS and GAME.to_json(rolled)["die_name"] in ("red", "green", "blue", "yellow")
    assert GAME.apply(state, {"type": "roll", "player": 0}).die == rolled.die  # seeded: replays the same
    rolled.die = "G"
    after = GAME.apply(rolled, {"type": "rotate", "player": 0, "card": "c3", "direction": "right"})
    assert [c["cell"] for c in GAME.to_json(after)["last_turn"]["cards"]] == ["d2", "c3", "d3"]
    assert after.die is None and after.phase == "color-die"


def test_dice_over_many_turns_show_every_colour():
    state = new(random_color=True, rounds=20, mode="scorekeeping")
    seen = Counter()
    while not GAME.finished(state):
        state = GAME.apply(state, {"type": "roll", "player": state.current_player})
        seen[state.die] += 1
        state = GAME.apply(state, {"type": "take", "player": state.current_player, "cards": []})
    assert set(seen) == set(COLORS) and sum(seen.values()) == 40


@pytest.mark.parametrize("given, die", [("green", "G"), ("Y", "Y"), ("Red", "R")])
def test_scorekeeping_may_enter_the_real_die(given, die):
    state = new(random_color=True, mode="scorekeeping")
    assert GAME.actions(state) == [{"type": "roll", "player": 0, "colors": ["R", "G", "B", "Y"]}]
    assert GAME.apply(state, {"type": "roll", "player": 0, "color": given}).die == die
    with pytest.raises(RuleError, match="red, green, blue or yellow"):
        GAME.apply(state, {"type": "roll", "player": 0, "color": "purple"})


def test_timed_turns():
    state = new(timed=True, timer_seconds=30, random_color=True, color_blocking=True)
    assert state.phase == "color-blocking" and GAME.timer_request(state) is None
    state = GAME.apply(state, {"type": "start-turn", "player": 0})
    # the timer starts before the die is rolled
    assert GAME.timer_request(state) == ("quivit-turn-1", 30.0)
    state = GAME.apply(state, {"type": "roll", "player": 0})
    assert GAME.timer_request(state) == ("quivit-turn-1", 30.0)
    assert GAME.to_json(state)["timer"] == {"timed": True, "seconds": 30.0, "running": True, "key": "quivit-turn-1"}
    state = GAME.apply(state, {"type": "timer-expired"})
    view = GAME.to_json(state)
    assert view["last"] == "Time! Ann's turn ends with nothing taken"
    assert view["last_turn"]["action"] == "timeout" and view["current"]["name"] == "Bob"
    assert GAME.timer_request(state) is None  # Bob's Color Blocking window
    state = GAME.apply(state, {"type": "start-turn", "player": 1})
    assert GAME.timer_request(state) == ("quivit-turn-2", 30.0)


def test_timer_expiry_in_the_die_phase_ends_the_turn():
    state = new(timed=True, random_color=True)
    state = GAME.apply(state, {"type": "timer-expired"})
    assert GAME.to_json(state)["last_turn"]["die"] is None and state.current_player == 1


# -- Drain the Deck ---------------------------------------------------------------------------


def value_pool():
    """The deck's values in a fixed order, for scorekeeping takes that never run out of a value."""
    pool = []
    for k in range(64):
        for value, count in POINT_CARD_COUNTS.items():
            if k < count:
                pool.append(value)
    return pool


def test_drain_the_deck_plays_on_while_more_than_15_cards_remain():
    pool = value_pool()
    state = new(mode="scorekeeping", drain_the_deck=True)
    snapshots = []
    while not GAME.finished(state):
        player = state.current_player
        cards = [pool.pop(0) for _ in range(9)] if player == 0 else []
        state = GAME.apply(state, {"type": "take", "player": player, "cards": cards})
        snapshots.append(GAME.to_json(state))
    # 123 cards after the deal; Ann takes 9 a round: after round r the deck holds 123 - 9r.
    view = snapshots[-1]
    assert view["end_reason"] == "12 rounds played and the draw deck holds 15 cards (15 or fewer)"
    assert view["deck"]["remaining"] == 15 and view["sides"][0]["cards"] == 108
    # Round 7 (Ann starts odd rounds): her cards are kept apart until Bob has played too.
    ann_round7 = snapshots[12]
    assert ann_round7["round"] == 7 and ann_round7["extra_round"]
    ann = ann_round7["sides"][0]
    assert ann["pending_cards"] == 9 and ann["cards"] == 54
    assert ann["pending_points"] == sum(ann_round7["last_turn"]["values"]) > 0
    assert ann["score"] == snapshots[11]["sides"][0]["score"]
    after_bob = snapshots[13]["sides"][0]
    assert after_bob["cards"] == 63 and after_bob["pending_cards"] == 0
    assert after_bob["score"] == ann["score"] + ann["pending_points"]


def drain_to_sixteen(short_grid, extra_takes=(9, 9)):
    """Three players, scorekeeping: the draw deck holds 16 cards after round 5, then `extra_takes`."""
    pool = value_pool()
    state = new(3, mode="scorekeeping", drain_the_deck=True, drain_short_grid=short_grid)
    takes = [9] * 11 + [8] + [0] * 3  # 107 of the 123 cards after the deal
    for count in takes:
        cards = [pool.pop(0) for _ in range(count)]
        state = GAME.apply(state, {"type": "take", "player": state.current_player, "cards": cards})
    assert state.round == 6 and state.deck_count == 16
    for count in extra_takes:
        cards = [pool.pop(0) for _ in range(count)]
        state = GAME.apply(state, {"type": "take", "player": state.current_player, "cards": cards})
    return state


def test_drain_the_deck_a_round_cut_short_is_not_scored():
    state = drain_to_sixteen("end")
    view = GAME.to_json(state)
    assert view["finished"]
    assert view["end_reason"].startswith("the draw deck could not refill the grid")
    assert view["uncounted_cards"] == 18
    assert sum(s["cards"] for s in view["sides"]) == 107
    assert all(s["pending_cards"] == 0 for s in view["sides"])


@pytest.mark.parametrize("short_grid", ["end", "play-on"])
def test_drain_the_deck_a_refill_that_fails_after_the_rounds_last_turn_is_scored(short_grid):
    # 8 and 8 cards empty the draw deck exactly; the third side's 2 cards cannot be refilled, but
    # everyone has played the round, so it counts ("not scored unless all players have played").
    state = drain_to_sixteen(short_grid, extra_takes=(8, 8, 2))
    view = GAME.to_json(state)
    assert view["finished"] and view["uncounted_cards"] == 0
    assert sum(s["cards"] for s in view["sides"]) == 107 + 18
    assert view["end_reason"] == "6 rounds played and the draw deck holds 0 cards (15 or fewer)"


def test_drain_the_deck_play_on_finishes_the_round_with_empty_places():
    state = drain_to_sixteen("play-on")
    assert not GAME.finished(state) and state.grid_count == 23 and state.deck_count == 0
    state = GAME.apply(state, {"type": "take", "player": state.current_player, "cards": [1, 1]})
    view = GAME.to_json(state)
    assert view["finished"] and view["uncounted_cards"] == 0
    assert sum(s["cards"] for s in view["sides"]) == 107 + 20


# -- Family Play -------------------------------------------------------------------------------


def test_family_play_members_alternate():
    state = GAME.new_state(
        ["Ann", "Bob", "Cy"], {"seed": 1, "family_play": True, "teams": [[0, 2], [1]], "rounds": 3}
    )
    view = GAME.to_json(state)
    assert [s["name"] for s in view["sides"]] == ["Ann & Cy", "Bob"]
    assert view["players"] == [{"name": "Ann", "side": 0}, {"name": "Bob", "side": 1}, {"name": "Cy", "side": 0}]
    movers = []
    while not GAME.finished(state):
        movers.append(state.current_player)
        if state.current_player == 2:
            with pytest.raises(RuleError, match="it is Cy's turn to rotate for Ann & Cy"):
                GAME.apply(state, {**first_rotation(state), "player": 0})
        state = GAME.apply(state, first_rotation(state))
    # round 1: team 0 then Bob; round 2: Bob first; round 3: team 0 first
    assert movers == [0, 1, 1, 2, 0, 1]


# -- scorekeeping -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "take, says",
    [
        ({"cards": [2]}, "no cards or two or more"),
        ({"cards": [1] * 10}, "at most the 9 cards"),
        ({"cards": [1, 4]}, "1, 2, 3 or -1"),
        ({"cards": "1,2"}, "1, 2, 3 or -1"),
        ({"cards": [True, 1]}, "1, 2, 3 or -1"),
        ({"cards": [1, 1], "double_rotate": True}, "Double Rotation rule"),
        ({"cards": [1, 1], "free_link": "yes"}, "true or false"),
    ],
)
def test_scorekeeping_take_errors(take, says):
    state = new(mode="scorekeeping")
    with pytest.raises(RuleError, match=says):
        GAME.apply(state, {"type": "take", "player": 0, **take})
    with pytest.raises(RuleError, match="record the cards"):
        GAME.apply(state, {"type": "rotate", "player": 0, "card": "c3", "direction": "right"})


def test_scorekeeping_free_link_and_double_rotate_flags():
    state = new(mode="scorekeeping", double_rotation=True)
    with pytest.raises(RuleError, match="at least four"):
        GAME.apply(state, {"type": "take", "player": 0, "cards": [1, 1, 1], "free_link": True})
    with pytest.raises(RuleError, match="not both"):
        GAME.apply(state, {"type": "take", "player": 0, "cards": [1] * 4, "free_link": True, "double_rotate": True})
    state = GAME.apply(state, {"type": "take", "player": 0, "cards": [1, 2, 3, 1], "free_link": True})
    assert GAME.to_json(state)["last_turn"]["action"] == "free-link"
    assert state.sides[0].holds_double_rotate and state.sides[0].score == 7  # kept: see the defaults below


def test_scorekeeping_knows_the_deck_holds_only_twelve_minus_one_cards():
    state = new(mode="scorekeeping", rounds=10)
    state = play(
        state,
        {"type": "take", "player": 0, "cards": [-1] * 6},
        {"type": "take", "player": 1, "cards": [-1] * 6},
    )
    with pytest.raises(RuleError, match="only 12 cards worth -1, and 12 are already taken"):
        GAME.apply(state, {"type": "take", "player": 1, "cards": [-1, 1]})


def test_tie_goes_to_the_most_cards_then_is_shared():
    state = new(mode="scorekeeping", rounds=1)
    state = play(
        state,
        {"type": "take", "player": 0, "cards": [1, 2]},
        {"type": "take", "player": 1, "cards": [1, 1, 1]},
    )
    view = GAME.to_json(state)
    assert view["winners"] == [1] and [s["rank"] for s in view["standings"]] == [1, 2]
    assert view["last"] == "Bob takes 3 cards for 3 points. Game over: 1 round played. Bob wins with 3 points"
    state = new(mode="scorekeeping", rounds=1)
    state = play(
        state,
        {"type": "take", "player": 0, "cards": [3, -1, 1]},
        {"type": "take", "player": 1, "cards": [1, 1, 1]},
    )
    view = GAME.to_json(state)
    assert view["winners"] == [0, 1] and view["last"].endswith("Ann and Bob win with 3 points")
    with pytest.raises(RuleError, match="the game is over"):
        GAME.apply(state, {"type": "take", "player": 0, "cards": []})


# -- hints --------------------------------------------------------------------------------------


def test_hints_on_the_phones_when_the_option_is_on(make_table, ten_point_play):
    state = make_table(ten_point_play, hints=True, double_rotation=True, free_link_spends_double_rotate=False)
    view = GAME.to_json(state)
    assert view["hints"] == best_rotations(state) == GAME.hints(state)
    assert len([h for h in view["hints"] if h["direction"] != "free-link"]) == 25 * 3
    # the grid's one free link (red, d3 e3 d4 e4) may be claimed with the Double Rotate card
    assert {h["card"] for h in view["hints"] if h["direction"] == "free-link"} == {"d3", "e3", "d4", "e4"}
    for hint in view["hints"][:3] + view["hints"][-3:]:
        after = GAME.apply(state, hint["event"])
        assert GAME.to_json(after)["sides"][0]["score"] == hint["points"]
    assert view["hints"][0]["event"]["type"] == "claim-free-link"
    assert GAME.to_json(make_table(ten_point_play))["hints"] is None
    assert best_rotations(new(mode="scorekeeping")) == []


# -- where the rulebook's words decide the default (each other reading is an option) -------------------

# The eleven-point grid with -1 cards at d2 and d3: the yellow free link at c3's top-right corner
# (c2 d2 c3 d3) now costs more than it brings.
COSTLY_YELLOW = """
BGRY1 RBGY1 YBRG2 GBYR1 BRGY1
RGBY1 RYGB1 RBYG2 GRBY-1 GRYB2
YRGB2 RGYB2 GYRB3 YRGB-1 YBGR1
BYGR1 GRBY2 YGBR1 GRYB1 RYBG1
GYBR1 BRGY1 YGRB1 BGYR2 RBGY1
"""


def test_claiming_a_free_link_keeps_the_double_rotate_card_by_default(make_table, eleven_point_play):
    # "If the current player holds a Double Rotate card, the player may choose a single card involved
    # in the free link": holding the card is the condition; nothing says it is spent.
    assert GAME.default_options()["free_link_spends_double_rotate"] is False
    state = make_table(eleven_point_play, double_rotation=True)
    after = GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "c3"})
    assert after.sides[0].holds_double_rotate and not after.history[-1]["double_rotate"]
    state = make_table(eleven_point_play, double_rotation=True, free_link_spends_double_rotate=True)
    after = GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "c3"})
    assert not after.sides[0].holds_double_rotate and after.history[-1]["double_rotate"]
    # Scorekeeping records it the same way.
    state = new(mode="scorekeeping", double_rotation=True)
    after = GAME.apply(state, {"type": "take", "player": 0, "cards": [1, 2, 3, 1], "free_link": True})
    assert after.sides[0].holds_double_rotate


def test_the_current_player_may_not_color_block_by_default(make_table, ten_point_play):
    # "Free Links can be blocked by other players with a Color Block card ... before the current
    # player's turn begins": the current player asks the others.
    assert GAME.default_options()["current_player_may_block"] is False
    state = make_table(ten_point_play, color_blocking=True)
    assert GAME.actions(state) == [
        {"type": "block", "player": 1, "cards": GAME.actions(state)[0]["cards"]},
        {"type": "start-turn", "player": 0},
    ]
    with pytest.raises(RuleError, match="Color Block cards are played by the other players before Ann's turn"):
        GAME.apply(state, {"type": "block", "player": 0, "card": "a1"})
    # Bob's block was the last one anybody but Ann could play: Ann's turn starts by itself.
    state = GAME.apply(state, {"type": "block", "player": 1, "card": "d3"})
    assert state.phase == "turn"
    state = GAME.apply(state, first_rotation(state))
    # Bob's turn: Ann may block, and hers is the last block, so the turn then starts by itself.
    assert state.phase == "color-blocking"
    assert [a["type"] for a in GAME.actions(state)] == ["block", "start-turn"]
    state = GAME.apply(state, {"type": "block", "player": 0, "card": "a1"})
    assert state.phase == "turn"
    # Family Play: a team is one side, so a team mate of the player to rotate may not block either.
    state = new(players=4, color_blocking=True, family_play=True, teams="Ann, Cy / Bob, Di")
    with pytest.raises(RuleError, match="other players"):
        GAME.apply(state, {"type": "block", "player": 2, "card": "a1"})
    # With the option, anyone holding a block may play it, the current player included.
    state = make_table(ten_point_play, color_blocking=True, current_player_may_block=True)
    assert [a["type"] for a in GAME.actions(state)] == ["block", "block", "start-turn"]
    assert GAME.apply(state, {"type": "block", "player": 0, "card": "a1"}).phase == "color-blocking"


def test_a_claim_may_leave_a_free_link_through_the_card_by_default(make_table):
    # "If this happens, the player may score all Free Links that the selected card is involved with."
    assert GAME.default_options()["free_link_takes_all"] is False
    state = make_table(COSTLY_YELLOW, double_rotation=True, hints=True)
    (claim,) = [a for a in GAME.actions(state) if a["type"] == "claim-free-link"]
    assert claim["links"]["c3"] == ["G", "Y"] and claim["links"]["b2"] == ["G"] and claim["may_choose"] is True
    green = GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "c3", "colors": ["green"]})
    assert [c["cell"] for c in green.history[-1]["cards"]] == ["b2", "c2", "b3", "c3"]
    assert green.sides[0].score == 8 and green.history[-1]["colors"] == ["G"]
    assert green.last.startswith("Ann claims the green free link at c3 and takes 4 cards for 8 points")
    both = GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "c3"})
    assert both.sides[0].score == 1 + 2 - 1 + 2 + 3 - 1
    assert GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "c3", "colors": ["G", "Y"]}).sides[0].score == 6
    for colors, says in [([], "at least one"), (["R"], "no red free link through c3"), ("G", "a list of colours"),
                         (["purple"], "red, green, blue or yellow")]:
        with pytest.raises(RuleError, match=says):
            GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "c3", "colors": colors})
    # The hint offers the claim of the green free link alone too, and puts it before the claim of both.
    c3 = [h for h in best_rotations(state) if h["card"] == "c3" and h["direction"] == "free-link"]
    assert [(h["links"], h["points"]) for h in c3] == [(["G"], 8), (["G", "Y"], 6), (["Y"], 3)]
    assert c3[0]["event"] == {"type": "claim-free-link", "player": 0, "card": "c3", "colors": ["G"]}
    assert c3[1]["event"] == {"type": "claim-free-link", "player": 0, "card": "c3"}
    # With the option every free link through the card is taken.
    state = make_table(COSTLY_YELLOW, double_rotation=True, free_link_takes_all=True, hints=True)
    (claim,) = [a for a in GAME.actions(state) if a["type"] == "claim-free-link"]
    assert claim["may_choose"] is False
    with pytest.raises(RuleError, match="takes every free link through the card"):
        GAME.apply(state, {"type": "claim-free-link", "player": 0, "card": "c3", "colors": ["G"]})
    assert not [h for h in best_rotations(state) if h["direction"] == "free-link" and h["links"] == ["G"] and h["card"] == "c3"]


def test_the_end_draw_adds_points_but_no_card_for_the_tie_break_by_default():
    # "may draw a single card from the draw deck and add the point value on the card to their final score"
    assert GAME.default_options()["final_draw_counts_as_card"] is False

    def game(**options):
        state = new(mode="scorekeeping", rounds=1, double_rotation=True, **options)
        return play(
            state,
            {"type": "take", "player": 0, "cards": [1, 2], "double_rotate": True},
            {"type": "take", "player": 1, "cards": [1, 1]},
            {"type": "draw", "player": 1, "value": 1},
        )

    view = GAME.to_json(game())
    assert [(s["score"], s["cards"]) for s in view["sides"]] == [(3, 2), (3, 2)]
    assert view["winners"] == [0, 1] and view["sides"][1]["final_draw"] == 1
    view = GAME.to_json(game(final_draw_counts_as_card=True))
    assert [(s["score"], s["cards"]) for s in view["sides"]] == [(3, 2), (3, 3)]
    assert view["winners"] == [1]


def test_a_table_stored_before_the_literal_defaults_replays_as_it_was_played(make_table, ten_point_play):
    # The service stores every option with its value; a table from before the three options carries
    # the old default free_link_spends_double_rotate: true and none of the three.
    stored = {key: value for key, value in GAME.default_options().items()
              if key not in ("free_link_takes_all", "final_draw_counts_as_card", "current_player_may_block")}
    stored.update(free_link_spends_double_rotate=True, color_blocking=True, double_rotation=True)
    state = make_table(ten_point_play, **stored)
    assert state.options.current_player_may_block and state.options.final_draw_counts_as_card
    assert state.options.free_link_takes_all and state.options.free_link_spends_double_rotate
    GAME.apply(state, {"type": "block", "player": 0, "card": "a1"})  # Ann blocks before her own turn, as then
    # A table made now stores the three, so it keeps what it was made with.
    assert not make_table(ten_point_play, **GAME.default_options()).options.current_player_may_block
