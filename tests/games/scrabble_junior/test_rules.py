"""The cover rule and word completion, from the rulebook's own examples on the printed board."""
from __future__ import annotations

import re

import pytest

from companion.games.scrabble_junior.layout import parse_layout
from companion.games.scrabble_junior.rules import (
    IllegalCoverError,
    can_play_two,
    check_cover,
    coverable_cells,
    is_coverable,
    legal_turns,
    next_open_letter,
    playable_cells,
    two_tile_plays,
    words_completed_by,
)


def cells(board, *names):
    return frozenset(board.cell_at(n) for n in names)


def names(board, indexes):
    return sorted(board.name_of(c) for c in indexes)


def test_on_the_empty_board_only_first_letters_can_be_covered(board):
    firsts = {w.start for w in board.words}
    assert len(firsts) == 28
    assert set(names(board, coverable_cells(board, frozenset()))) == firsts


# (covered before, square, allowed): the cover rule, with the rulebook's examples.
COVER_CASES = [
    # Example 1a / 1b: J of JACKET and A of ARM are first letters.
    ((), "Je", True),
    ((), "Cm", True),
    # A of JACKET is not a first letter (it is WATER's second letter too).
    ((), "Ke", False),
    # 1b: after the J, the A of JACKET is its next open letter.
    (("Je",), "Ke", True),
    # "the A in WATER gets covered before the W. Before the T in WATER can be
    # covered, the W must be covered."
    (("Je", "Ke"), "Kf", False),
    (("Je", "Ke"), "Kd", True),
    (("Je", "Ke", "Kd"), "Kf", True),
    # Second player: "start BOAT by covering the B, and continue JACKET by covering the C".
    (("Je", "Ke"), "Dj", True),
    (("Je", "Ke"), "Le", True),
    # ...but not JACKET's K before its C.
    (("Je", "Ke"), "Me", False),
    # ZEBRA's B is BOAT's first letter: coverable through BOAT even with ZEBRA unstarted.
    ((), "Dj", True),
    # BOAT's O only after its B.
    ((), "Dk", False),
    # A covered square cannot be covered again.
    (("Je",), "Je", False),
]


@pytest.mark.parametrize("before, square, allowed", COVER_CASES)
def test_cover_rule(board, before, square, allowed):
    covered = cells(board, *before)
    cell = board.cell_at(square)
    assert is_coverable(board, covered, cell) is allowed
    assert (cell in coverable_cells(board, covered)) is allowed
    if allowed:
        check_cover(board, covered, cell)
    else:
        with pytest.raises(IllegalCoverError):
            check_cover(board, covered, cell)


@pytest.mark.parametrize(
    "before, square, message",
    [
        (("Je", "Ke"), "Kf", "play letters in order: cover the W of WATER (Kd) before the T on Kf"),
        ((), "Ke", "cover the W of WATER (Kd) or the J of JACKET (Je) before the A on Ke"),
        (("Je",), "Je", "the J on Je is already covered"),
    ],
)
def test_cover_errors_say_which_letter_comes_first(board, before, square, message):
    with pytest.raises(IllegalCoverError, match=re.escape(message)):
        check_cover(board, cells(board, *before), board.cell_at(square))


# (covered before, square, words completed): "Completing a word ... takes one chip per word".
COMPLETION_CASES = [
    # "If you cover the T to complete JACKET, collect one scoring chip."
    (("Je", "Ke", "Le", "Me", "Ne"), "Oe", ["JACKET"]),
    # "If you cover the T to complete BOAT and GOAT, collect two scoring chips."
    (("Dj", "Dk", "Dl", "Am", "Bm", "Cm"), "Dm", ["BOAT", "GOAT"]),
    # BOAT only, GOAT still has open letters.
    (("Dj", "Dk", "Dl", "Am"), "Dm", ["BOAT"]),
    # "If the B and U in BUZZ are covered, and the Z in ZEBRA is already
    # covered, complete BUZZ by covering the first Z."
    (("Bg", "Bh", "Bj"), "Bi", ["BUZZ"]),
    # Not the last letter of the word, and not complete while a letter is open.
    (("Bg",), "Bh", []),
    # Two-letter word AX: the X completes it.
    (("Kn",), "Ko", ["AX"]),
]


@pytest.mark.parametrize("before, square, words", COMPLETION_CASES)
def test_words_completed_by_a_tile(board, before, square, words):
    covered = cells(board, *before)
    cell = board.cell_at(square)
    assert is_coverable(board, covered, cell)
    assert [board.words[w].text for w in words_completed_by(board, covered, cell)] == words


def test_backing_up_the_buzz_example_the_z_of_zebra_is_covered_through_zebra(board):
    # How the example's Z of ZEBRA got covered before BUZZ's first Z: it is
    # ZEBRA's first letter, so it can be covered although BUZZ has open letters before it.
    covered = cells(board, "Bg", "Bh")
    assert is_coverable(board, covered, board.cell_at("Bj"))
    assert next_open_letter(board, board.word_named("BUZZ"), covered) == board.cell_at("Bi")


def test_playable_cells_need_a_matching_tile(board):
    assert names(board, playable_cells(board, frozenset(), "JAX")) == ["Cm", "Fj", "Je", "Kn", "Mj", "Ni"]
    assert playable_cells(board, frozenset(), "KXV") == []


def test_two_tile_plays_on_the_first_turn_are_exactly_the_rulebooks_two_kinds(board):
    # "EITHER on the first letter of two different words OR on the first and
    # second letters of the same word." Counted independently of the engine.
    starts = sorted({w.cells[0] for w in board.words})
    expected = {(a, b) for a in starts for b in starts if a != b}
    expected |= {(w.cells[0], w.cells[1]) for w in board.words}
    assert set(two_tile_plays(board, frozenset(), None)) == expected
    assert len(expected) == 28 * 27 + 28


def test_can_play_two_needs_a_second_tile_after_the_first(board):
    # Only J is a first letter among J, K, X; after J, the A is next but not held.
    assert not can_play_two(board, frozenset(), "JKX")
    # With an A the J-then-A play of example 1b is possible.
    assert can_play_two(board, frozenset(), "JAK")
    # Two copies of a letter: E is no first letter, but two S's are (SUN, SHEEP).
    assert can_play_two(board, frozenset(), "SS")
    assert not can_play_two(board, frozenset(), "S")


def test_legal_turns_are_pairs_when_two_tiles_can_be_played_else_single_tiles(board):
    covered = cells(board, "Dj", "Dk", "Am", "Bm", "Cm", "Dm")
    # The A fits Dl, Fj, Kn, Mj and Ni, but only on Mj and Ni can a second tile follow (Nj).
    assert [tuple(board.name_of(c) for c in t) for t in legal_turns(board, covered, "AHILNPU")] == [
        ("Mj", "Nj"), ("Ni", "Nj")]
    # No pair: each tile that fits is a turn of its own.
    assert sorted(board.name_of(c) for (c,) in legal_turns(board, covered, "A")) == ["Dl", "Fj", "Kn", "Mj", "Ni"]
    assert legal_turns(board, frozenset(), "XV") == []  # no word starts with X or V


def test_a_word_whose_first_square_is_shared_starts_through_either_word():
    layout = parse_layout("CAT Aa H\nCOW Aa V\n")
    covered = frozenset({layout.cell_at("Aa")})
    assert names(layout, coverable_cells(layout, covered)) == ["Ab", "Ba"]
    assert [layout.words[w].text for w in words_completed_by(layout, frozenset(), 0)] == []
