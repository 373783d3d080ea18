"""The strategy-tip helper: warn when a play would let the next player complete a word."""
from __future__ import annotations

import pytest

from companion.games.scrabble_junior.advice import completable_words, next_player, opened_words
from companion.games.scrabble_junior.engine import GAME, IllegalCoverError, play_warnings


def covered(board, *names):
    return frozenset(board.cell_at(n) for n in names)


def texts(board, words):
    return sorted(board.words[w].text for w in words)


@pytest.mark.parametrize(
    "before, rack, tiles, words",
    [
        # BOAT with B and O covered: A then T finish it.
        (("Dj", "Dk"), "AT", 2, ["BOAT"]),
        (("Dj", "Dk"), "T", 2, []),  # the A is missing
        (("Dj", "Dk"), "AT", 1, []),  # two tiles needed, one allowed
        (("Dj", "Dk", "Dl"), "T", 1, ["BOAT"]),
        # One T finishes both BOAT and GOAT.
        (("Dj", "Dk", "Dl", "Am", "Bm", "Cm"), "T", 2, ["BOAT", "GOAT"]),
        # BUZZ needs both its Z's: two of them in the rack.
        (("Bg", "Bh"), "Z", 2, []),
        (("Bg", "Bh"), "ZZ", 2, ["BUZZ"]),
        # Unknown rack (real tiles): any letter may be held.
        (("Dj", "Dk", "Dl"), None, 1, ["BOAT"]),
        ((), None, 2, ["AX"]),
    ],
)
def test_completable_words(board, before, rack, tiles, words):
    assert texts(board, completable_words(board, covered(board, *before), rack, tiles)) == words


def playable_entry(view, square):
    return next(p for p in view["playable"] if p["cell"] == square)


def test_covering_the_a_of_boat_lets_the_next_player_finish_it_with_their_t(position):
    state = position(covered=["Dj", "Dk"], racks=["AHKVNNN", "TRRSSSS"])
    view = GAME.to_json(state)
    assert playable_entry(view, "Dl")["opens"] == [
        {"word": "BOAT", "player": 1, "name": "Bo", "cells": ["Dm"]}
    ]
    assert playable_entry(view, "Kn")["opens"] == []  # AX: Bo has no X
    assert play_warnings(state, ["Dl"]) == playable_entry(view, "Dl")["opens"]


def test_no_warning_when_the_next_player_lacks_the_letter(position):
    state = position(covered=["Dj", "Dk"], racks=["AHKVNNN", "RRRSSSS"])
    assert playable_entry(GAME.to_json(state), "Dl")["opens"] == []


def test_two_open_letters_are_a_danger_only_if_the_next_player_holds_both(position):
    both = position(covered=["Dj"], racks=["OHKVNNN", "ATRSSSS"])
    assert [w["word"] for w in play_warnings(both, ["Dk"])] == ["BOAT"]
    one = position(covered=["Dj"], racks=["OHKVNNN", "TRRSSSS"])
    assert play_warnings(one, ["Dk"]) == []


def test_a_danger_already_there_at_the_start_of_the_turn_is_not_blamed_on_the_play(position):
    state = position(covered=["Dj", "Dk", "Dl"], racks=["EHKVNNN", "TRRSSSS"])
    assert play_warnings(state, ["Ak"]) == []


def test_the_warning_looks_at_the_whole_turn(position):
    # A on BOAT opens it for Bo; finishing it with the T as the second tile closes it again.
    state = position(covered=["Dj", "Dk"], racks=["ATHKVNN", "TRRSSSS"])
    after_a = GAME.apply(state, {"type": "cover", "player": 0, "cell": "Dl"})
    view = GAME.to_json(after_a)
    assert playable_entry(view, "Dm")["completes"] == ["BOAT"]
    assert playable_entry(view, "Dm")["opens"] == []
    assert [w["word"] for w in playable_entry(view, "Eb")["opens"]] == ["BOAT"]  # T on TOY instead
    assert [w["word"] for w in play_warnings(state, ["Dl", "Eb"])] == ["BOAT"]
    assert play_warnings(state, ["Dl", "Dm"]) == []


def test_with_real_tiles_a_word_left_one_tile_from_complete_is_flagged(position):
    state = position(covered=["Dj", "Dk"], racks=["AAAAAAA", "RRRSSSS"], tiles="real")
    assert [w["word"] for w in play_warnings(state, ["Dl"])] == ["BOAT"]
    assert play_warnings(state, ["Je"]) == []


def test_next_player_skips_players_without_tiles(position):
    state = position(racks=["JAHKVNN", "", "TRRSSSS"], pool_size=0)
    assert next_player(state) == 2
    assert opened_words(state, []) == []


def test_play_warnings_names_a_bad_square(position):
    with pytest.raises(IllegalCoverError, match="square Aa has no letter"):
        play_warnings(position(racks=["JAHKVNN", "TRRSSSS"]), ["Aa"])
