"""The turn rules through `apply`: two tiles, must play, one tile then draw, exchange, pass, chips, end."""
from __future__ import annotations

import re
from collections import Counter

import pytest

from companion.games.base import OptionError, RuleError
from companion.games.scrabble_junior.engine import IllegalCoverError, TurnError, legal_cells, must
from companion.games.scrabble_junior.game import GAME
from companion.games.scrabble_junior.layout import LayoutError


def cover(state, *squares):
    for square in squares:
        state = GAME.apply(state, {"type": "cover", "player": state.player, "cell": square})
    return state


def squares(state, cells):
    return [state.setup.layout.name_of(c) for c in cells]


# --- first turn and later turns (the rulebook's examples) -------------------


@pytest.mark.parametrize(
    "plays, allowed",
    [
        (["Je", "Cm"], True),  # 1a: start JACKET and ARM by their first letters
        (["Je", "Ke"], True),  # 1b: the J and the A of JACKET
        (["Cm", "Je"], True),  # either order
        (["Je", "Le"], False),  # JACKET's C before its A
        (["Ke"], False),  # JACKET's A is nobody's first letter
        (["Le"], False),
    ],
)
def test_first_turn(position, plays, allowed):
    state = position(racks=["JACEEEE", "BOYSSSS"])
    if allowed:
        after = cover(state, *plays)
        assert after.player == 1
        assert after.history[-1].kind == "play"
        assert squares(after, after.history[-1].cells) == plays
    else:
        with pytest.raises(IllegalCoverError, match="play letters in order"):
            cover(state, *plays)


@pytest.mark.parametrize(
    "plays",
    [
        ["Fl", "Jj"],  # "start CANDY and BOY by covering the first letter of each word"
        ["Dj", "Le"],  # "start BOAT by covering the B, and continue JACKET by covering the C"
    ],
)
def test_second_player_examples(position, plays):
    state = cover(position(racks=["JAEEEEE", "CBOYSSS"]), "Je", "Ke")
    assert state.player == 1
    after = cover(state, *plays)
    assert squares(after, after.history[-1].cells) == plays


def test_a_second_tile_may_continue_the_word_the_first_one_started(position):
    state = cover(position(racks=["JAEEEEE", "BOYSSSS"]), "Je", "Ke")
    after = cover(state, "Dj", "Dk")  # B then O of BOAT in one turn
    assert after.player == 0 and squares(after, after.history[-1].cells) == ["Dj", "Dk"]


def test_the_back_up_example_w_before_t_in_water(position):
    state = cover(position(racks=["JAEEEEE", "WTSSSSS"]), "Je", "Ke")
    with pytest.raises(IllegalCoverError, match=re.escape("cover the W of WATER (Kd) before the T on Kf")):
        cover(state, "Kf")
    after = cover(state, "Kd", "Kf")
    assert squares(after, after.history[-1].cells) == ["Kd", "Kf"]


# --- if you can play, you must ---------------------------------------------


def test_must_play_two_when_two_can_be_played(position):
    # B then U works only on BUZZ; a B on BOAT, BICYCLE, BOY or BALL leaves no second tile.
    state = position(racks=["BUKXVHN", "EEEEEEE"])
    assert must(state) == "play-two"
    assert squares(state, legal_cells(state)) == ["Bg"]
    with pytest.raises(TurnError, match="you can play two tiles this turn, but after the B on Dj"):
        cover(state, "Dj")
    after = cover(state, "Bg", "Bh")
    assert after.player == 1 and after.history[-1].drew == 2


def test_one_tile_only_then_draw_one(position):
    state = position(racks=["BKXVHNN", "EEEEEEE"], pool_front="SO")
    assert must(state) == "play-one"
    after = cover(state, "Dj")
    turn = after.history[-1]
    assert (turn.player, turn.cells, turn.drew) == (0, (after.setup.layout.cell_at("Dj"),), 1)
    assert after.racks[0] == tuple(sorted("KXVHNNS"))  # drew the pool's first tile
    assert after.player == 1


def test_draw_back_to_seven_after_two_tiles(position):
    state = position(racks=["JAEEEEE", "BOYSSSS"], pool_front="QUZ")
    pool = state.pool_count
    after = cover(state, "Je", "Ke")
    assert after.racks[0] == tuple(sorted("EEEEEQU"))
    assert after.rack_counts[0] == 7 and after.pool_count == pool - 2
    assert after.pool == state.pool[2:]


def test_exchange_when_no_tile_can_be_played(position):
    state = position(racks=["KXVHNNN", "EEEEEEE"], pool_front="JA")
    assert must(state) == "exchange"
    assert GAME.actions(state) == [{"type": "exchange", "player": 0, "count": 2}]
    after = GAME.apply(state, {"type": "exchange", "player": 0, "tiles": ["X", "V"]})
    assert after.racks[0] == tuple(sorted("KHNNNJA"))  # drew first, then gave back
    assert after.pool_count == state.pool_count
    assert Counter(after.pool) == Counter(state.pool[2:]) + Counter("XV")
    assert after.player == 1 and after.history[-1].kind == "exchange"
    assert after.history[-1].exchanged == 2
    # The mixed pool comes from the seed: the same exchange gives the same pool.
    assert GAME.apply(state, {"type": "exchange", "player": 0, "tiles": ["V", "X"]}) == after


@pytest.mark.parametrize(
    "racks, tiles, message",
    [
        (["JKXVHNN", "EEEEEEE"], ["K", "X"], "you can play your J on Je, so you must play"),
        (["KXVHNNN", "EEEEEEE"], ["X"], 'name the 2 tiles you give back'),
        (["KXVHNNN", "EEEEEEE"], None, 'name the 2 tiles you give back'),
        (["KXVHNNN", "EEEEEEE"], ["X", "X"], "Ana does not hold X and X"),
        (["KXVHNNN", "EEEEEEE"], ["Q", "K"], "Ana does not hold K and Q"),
    ],
)
def test_exchange_errors(position, racks, tiles, message):
    event = {"type": "exchange", "player": 0}
    if tiles is not None:
        event["tiles"] = tiles
    with pytest.raises(TurnError, match=re.escape(message)):
        GAME.apply(position(racks=racks), event)


def test_exchange_with_one_tile_left_in_the_pool_exchanges_one(position):
    state = position(racks=["KXVHNNN", "EEEEEEE"], pool_front="J", pool_size=1)
    assert GAME.actions(state) == [{"type": "exchange", "player": 0, "count": 1}]
    after = GAME.apply(state, {"type": "exchange", "player": 0, "tiles": ["X"]})
    assert after.racks[0] == tuple(sorted("KVHNNNJ")) and after.pool == ("X",)


@pytest.mark.parametrize(
    "tiles, kind, message",
    [
        ("real", "exchange", "already covered a letter this turn: cover a second one or end the turn"),
        ("real", "pass", "already covered a letter this turn: cover a second one or end the turn"),
        ("digital", "exchange", "already covered a letter this turn: cover a second one"),
        ("digital", "pass", "already covered a letter this turn: cover a second one"),
    ],
)
def test_no_exchange_or_pass_after_covering_a_letter(position, tiles, kind, message):
    state = cover(position(racks=["JAEEEEE", "RRRSSSS"], tiles=tiles, pool_size=0 if kind == "pass" else None), "Je")
    with pytest.raises(TurnError, match=f"{re.escape(message)}$"):
        GAME.apply(state, {"type": kind, "player": 0, "tiles": ["E", "E"]})


def test_pass_only_when_the_pool_is_empty(position):
    stuck = position(racks=["KXVHNNN", "EEEEEEE"], pool_size=0)
    assert must(stuck) == "pass"
    assert GAME.actions(stuck) == [{"type": "pass", "player": 0}]
    after = GAME.apply(stuck, {"type": "pass", "player": 0})
    assert after.player == 1 and after.history[-1].kind == "pass" and not after.history[-1].auto
    with pytest.raises(TurnError, match="the pool is empty, so there is nothing to exchange with"):
        GAME.apply(stuck, {"type": "exchange", "player": 0, "tiles": ["K", "X"]})
    with pytest.raises(TurnError, match=r"there are \d+ tiles in the pool: if you cannot play, exchange"):
        GAME.apply(position(racks=["KXVHNNN", "EEEEEEE"]), {"type": "pass", "player": 0})
    with pytest.raises(TurnError, match="you can play your J on Je, so you must play"):
        GAME.apply(position(racks=["JXVHNNN", "EEEEEEE"], pool_size=0), {"type": "pass", "player": 0})


def test_auto_pass_skips_a_player_who_can_only_pass(position):
    state = position(racks=["BUEEEEE", "KX"], pool_size=0, auto_pass=True)
    after = cover(state, "Bg", "Bh")
    assert after.player == 0
    last = after.history[-1]
    assert (last.player, last.kind, last.auto) == (1, "pass", True)
    without = cover(position(racks=["BUEEEEE", "KX"], pool_size=0), "Bg", "Bh")
    assert without.player == 1 and must(without) == "pass"


# --- chips --------------------------------------------------------------------


def test_completing_a_word_takes_one_chip(position):
    state = position(covered=["Je", "Ke", "Le", "Me", "Ne", "Kn"], racks=["THKVNNN", "RRRSSSS"])
    after = cover(state, "Oe")
    assert after.chips == (1, 0) and after.kitty == 43
    assert after.completed_by[after.setup.layout.word_named("JACKET")] == 0
    assert GAME.to_json(after)["players"][0]["words"] == ["JACKET"]


def test_completing_two_words_with_one_tile_takes_two_chips(position):
    state = position(covered=["Dj", "Dk", "Dl", "Am", "Bm", "Cm"], racks=["RRRSSSS", "THKVNNN"], player=1)
    after = cover(state, "Dm")
    assert after.chips == (0, 2) and after.kitty == 42
    assert [after.setup.layout.words[w].text for w in after.history[-1].words] == ["BOAT", "GOAT"]


def test_the_buzz_example_completes_buzz_on_its_first_z(position):
    state = position(covered=["Bg", "Bh", "Bj"], racks=["ZHKVNNN", "RRRSSSS"])
    after = cover(state, "Bi")
    assert after.chips == (1, 0)
    assert GAME.to_json(after)["history"][-1]["words"] == ["BUZZ"]


def test_chips_of_both_tiles_of_a_turn_add_up(position):
    state = position(covered=["Kn", "Dj", "Dk", "Dl"], racks=["XTHKVNN", "RRRSSSS"])
    after = cover(state, "Ko", "Dm")  # AX, then BOAT (GOAT is still open)
    assert after.chips == (2, 0)
    assert after.history[-1].words == tuple(after.setup.layout.word_named(w) for w in ("AX", "BOAT"))


# --- the end of the game ----------------------------------------------------


def test_the_last_tile_ends_the_game_and_most_chips_wins(position, board):
    every = [board.name_of(c) for c in range(board.size) if board.name_of(c) != "Ko"]
    state = position(covered=every, racks=["", "X"], player=1, pool_size=0)
    assert state.chips == (27, 0)
    after = cover(state, "Ko")
    assert GAME.finished(after) and after.chips == (27, 1) and after.kitty == 16
    view = GAME.to_json(after)
    assert view["finished"] and view["winners"] == [0] and view["turn"]["player"] is None
    assert view["tiles_on_board"] == 101 and GAME.actions(after) == []
    with pytest.raises(TurnError, match="the game is over: all 101 tiles are on the board"):
        GAME.apply(after, {"type": "pass", "player": 0})


# --- who may act and what an event must say ---------------------------------


@pytest.mark.parametrize(
    "event, error, message",
    [
        ({"type": "cover", "player": 1, "cell": "Je"}, TurnError, "it is Ana's turn"),
        ({"type": "cover", "player": True, "cell": "Je"}, TurnError, "it is Ana's turn"),
        ({"type": "cover", "cell": "Je"}, TurnError, "it is Ana's turn"),
        ({"type": "cover", "player": 0, "cell": "Aa"}, IllegalCoverError, "square Aa has no letter"),
        ({"type": "cover", "player": 0, "cell": "zz"}, IllegalCoverError, "'zz' is not a square"),
        ({"type": "cover", "player": 0}, IllegalCoverError, "None is not a square"),
        ({"type": "cover", "player": 0, "cell": "Je", "letter": "A"}, IllegalCoverError, "the square Je is J, not 'A'"),
        ({"type": "cover", "player": 0, "cell": "Nb"}, IllegalCoverError, "Ana has no Q tile"),
        ({"type": "end-turn", "player": 0}, TurnError, "the companion ends your turn itself"),
        ({"type": "shuffle", "player": 0}, RuleError, "unknown event type 'shuffle'"),
        (["cover"], RuleError, "an event must be an object"),
    ],
)
def test_bad_events_are_refused_with_a_reason(position, event, error, message):
    state = position(racks=["JAEEEEE", "EEEEEEE"])
    with pytest.raises(error, match=re.escape(message)):
        GAME.apply(state, event)


def test_a_claimed_letter_that_matches_is_accepted(position):
    state = position(racks=["JAEEEEE", "EEEEEEE"])
    after = GAME.apply(state, {"type": "cover", "player": 0, "cell": "Je", "letter": "j"})
    assert after.this_turn == (after.setup.layout.cell_at("Je"),)


def test_apply_does_not_change_its_input(position):
    state = position(racks=["JAEEEEE", "EEEEEEE"])
    before = GAME.to_json(state)
    cover(state, "Je", "Ke")
    assert GAME.to_json(state) == before


# --- real tiles: the companion records only where each tile goes ------------


def real_game(players=("Ana", "Bo"), **options):
    return GAME.new_state(list(players), {"tiles": "real", **options})


def test_real_tiles_track_counts_not_letters():
    state = real_game()
    assert state.racks is None and state.pool is None
    assert state.rack_counts == (7, 7) and state.pool_count == 87
    view = GAME.to_json(state)
    assert view["players"][0]["rack"] is None and view["turn"]["must"] is None
    after = cover(state, "Je", "Ke")
    assert after.rack_counts == (7, 7) and after.pool_count == 85 and after.player == 1


def test_real_tiles_still_check_the_letter_order():
    with pytest.raises(IllegalCoverError, match="play letters in order"):
        cover(real_game(), "Ke")


def test_real_tiles_one_tile_then_end_turn_draws_one():
    state = cover(real_game(), "Je")
    assert {"type": "end-turn", "player": 0} in GAME.actions(state)
    after = GAME.apply(state, {"type": "end-turn", "player": 0})
    assert after.rack_counts == (7, 7) and after.pool_count == 86
    assert after.history[-1].drew == 1 and after.player == 1
    with pytest.raises(TurnError, match="cover a letter first"):
        GAME.apply(after, {"type": "end-turn", "player": 1})


def test_real_tiles_exchange_and_pass():
    state = real_game()
    kinds = [a["type"] for a in GAME.actions(state)]
    assert kinds == ["cover", "exchange"]
    after = GAME.apply(state, {"type": "exchange", "player": 0})
    assert after.rack_counts == (7, 7) and after.pool_count == 87 and after.player == 1
    with pytest.raises(TurnError, match="tiles in the pool"):
        GAME.apply(after, {"type": "pass", "player": 1})


def test_real_tiles_pass_when_the_pool_is_empty(position):
    state = position(racks=["EEEEEEE", "RRRSSSS"], pool_size=0, tiles="real")
    assert [a["type"] for a in GAME.actions(state)] == ["cover", "pass"]
    after = GAME.apply(state, {"type": "pass", "player": 0})
    assert after.player == 1


def test_real_tiles_a_player_with_no_tiles_left_is_passed_automatically(position):
    state = position(racks=["J", "AAA"], pool_size=0, tiles="real", auto_pass=True)
    after = cover(state, "Je")  # the last tile: the turn ends by itself
    assert after.rack_counts == (0, 3) and after.player == 1
    after = cover(after, "Ke", "Le")
    assert after.player == 1 and after.history[-1].auto and after.history[-1].player == 0


# --- options ----------------------------------------------------------------


@pytest.mark.parametrize(
    "players, options, error, message",
    [
        (["Ana"], {}, OptionError, "needs 2 to 4 players, not 1"),
        (["A", "B", "C", "D", "E"], {}, OptionError, "needs 2 to 4 players, not 5"),
        (["Ana", ""], {}, OptionError, "players must be a list of names"),
        (["Ana", "Bo"], {"tiles": "wooden"}, OptionError, "option tiles must be 'digital' or 'real'"),
        (["Ana", "Bo"], {"seed": True}, OptionError, "option seed must be a whole number or a string"),
        (["Ana", "Bo"], {"seed": 1.5}, OptionError, "option seed must be a whole number or a string"),
        (["Ana", "Bo"], {"layout": "deluxe"}, LayoutError, "unknown board layout 'deluxe'"),
        (["Ana", "Bo"], {"layout_text": "CAT Aa H\nDOG Aa V"}, LayoutError, "layout_text, line 2: DOG puts D on Aa"),
        (["Ana", "Bo"], {"kitty": 20}, OptionError, "at least one per word (28), not 20"),
        (["Ana", "Bo"], {"auto_pass": "yes"}, OptionError, "option auto_pass must be true or false"),
        (["Ana", "Bo"], {"first_player": 2}, OptionError, "a player number from 0 to 1, not 2"),
    ],
)
def test_bad_options_are_refused(players, options, error, message):
    with pytest.raises(error, match=re.escape(message)):
        GAME.new_state(players, options)


def test_first_player_option_and_the_deal():
    state = GAME.new_state(["Ana", "Bo", "Cy"], {"first_player": 2, "seed": 11})
    assert state.player == 2
    assert [len(r) for r in state.racks] == [7, 7, 7] and state.pool_count == 80
    every = Counter(state.pool)
    for rack in state.racks:
        every += Counter(rack)
    assert every == state.setup.layout.tiles
    assert GAME.new_state(["Ana", "Bo", "Cy"], {"first_player": 2, "seed": 11}) == state
    assert GAME.new_state(["Ana", "Bo", "Cy"], {"first_player": 2, "seed": 12}).racks != state.racks


def test_default_options_are_a_complete_valid_set():
    options = GAME.default_options()
    assert set(options) == {"tiles", "seed", "layout", "layout_text", "kitty", "auto_pass", "first_player"}
    GAME.new_state(["Ana", "Bo"], options)
