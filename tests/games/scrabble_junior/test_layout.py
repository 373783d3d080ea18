"""The board layout: the printed board's facts, the text format, and the loader's errors."""
from __future__ import annotations

import importlib.resources
import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.base import OptionError
from companion.games.scrabble_junior.layout import (
    LayoutError,
    builtin_layout,
    builtin_layouts,
    cell_name,
    layout_str,
    parse_cell,
    parse_layout,
    read_layout,
)

STANDARD_TEXT = (
    importlib.resources.files("companion.games.scrabble_junior.boards") / "standard.txt"
).read_text(encoding="utf-8")
STANDARD_LINES = [line for line in STANDARD_TEXT.splitlines() if line and not line.startswith("#")]


def word_cells(layout, text):
    return [layout.name_of(c) for c in layout.words[layout.word_named(text)].cells]


def test_standard_board_has_28_words_and_101_letters(board):
    assert len(board.words) == 28
    assert board.size == 101
    assert (board.rows, board.cols) == (15, 15)
    assert builtin_layouts() == ["standard"]


def test_tiles_match_the_counts_printed_in_the_layout_file(board):
    # The file's closing comment lists the box's tiles; one tile per board letter.
    comment = " ".join(line for line in STANDARD_TEXT.splitlines() if line.startswith("#"))
    counts = {m[1]: int(m[2]) for m in re.finditer(r"\b([A-Z])(\d+)\b", comment.split("(101):")[1])}
    assert sum(counts.values()) == 101
    assert board.tiles == Counter(counts)


@pytest.mark.parametrize(
    "word, squares",
    [
        ("JACKET", ["Je", "Ke", "Le", "Me", "Ne", "Oe"]),
        ("WATER", ["Kd", "Ke", "Kf", "Kg", "Kh"]),
        ("BUZZ", ["Bg", "Bh", "Bi", "Bj"]),
        ("ZEBRA", ["Bj", "Cj", "Dj", "Ej", "Fj"]),
        ("BOAT", ["Dj", "Dk", "Dl", "Dm"]),
        ("GOAT", ["Am", "Bm", "Cm", "Dm"]),
    ],
)
def test_rulebook_example_words_sit_where_the_examples_need(board, word, squares):
    assert word_cells(board, word) == squares


@pytest.mark.parametrize(
    "square, words",
    [
        ("Ke", {"JACKET", "WATER"}),  # example 1b: JACKET's A is WATER's A
        ("Bj", {"BUZZ", "ZEBRA"}),  # BUZZ's last Z is ZEBRA's Z
        ("Dm", {"BOAT", "GOAT"}),  # one T completes both
        ("Cm", {"ARM", "GOAT"}),
        ("Je", {"JACKET"}),
    ],
)
def test_crossing_words_share_a_square(board, square, words):
    cell = board.cell_at(square)
    assert {board.words[w].text for w in board.cell_words[cell]} == words


def test_cells_are_numbered_in_reading_order(board):
    assert list(board.positions) == sorted(board.positions)
    assert board.name_of(0) == "Ab" and board.letters[0] == "F"


@pytest.mark.parametrize(
    "text, message",
    [
        ("EGGS Ak", "line 1: expected WORD START DIRECTION"),
        ("EGGS Ak H extra", "line 1: expected WORD START DIRECTION"),
        ("# c\nE Ak H", "line 2: 'E' is not a word of two or more letters"),
        ("EG9S Ak H", "line 1: 'EG9S' is not a word"),
        ("EGGS ak H", "line 1: 'ak' is not a square"),
        ("EGGS A11 H", "line 1: 'A11' is not a square"),
        ("EGGS Ak X", "line 1: direction 'X' must be H (across) or V (down)"),
        ("EGGS Ax H", "line 1: EGGS runs off the 26 x 26 grid"),
        ("EGGS Xa V", "line 1: EGGS runs off the 26 x 26 grid"),
        ("EGGS Aa H\nGO Ab V\nTO Ad V", "line 3: TO puts T on Ad, but EGGS (line 1) has S there"),
        ("BOAT Aa H\nOAT Ab H", "line 2: OAT overlaps BOAT (line 1) running across at Ab"),
        ("BOAT Aa V\nBOAT Aa V", "line 2: BOAT overlaps BOAT (line 1) running down at Aa"),
        ("", "the layout has no words"),
        ("# only a comment\n\n", "the layout has no words"),
    ],
)
def test_bad_layouts_are_rejected_naming_the_line(text, message):
    with pytest.raises(LayoutError, match=re.escape(message)):
        parse_layout(text, name="test")


def test_layout_error_is_an_option_error():
    assert issubclass(LayoutError, OptionError)


def test_crossing_letters_that_disagree_on_the_printed_board_are_caught():
    # SUN goes down through QUEEN's U; misprint it as SIN and the loader names both lines.
    text = STANDARD_TEXT.replace("SUN Mc V", "SIN Mc V")
    with pytest.raises(LayoutError, match=r"standard, line 19: SIN puts I on Nc, but QUEEN \(line 16\) has U there"):
        parse_layout(text, name="standard")


def test_trailing_comments_and_lower_case_words_are_read():
    layout = parse_layout("eggs Ak h  # the top row\n", name="t")
    assert [(w.text, w.start, w.direction) for w in layout.words] == [("EGGS", "Ak", "H")]


def test_layout_str_round_trips_the_standard_board(board):
    again = parse_layout(layout_str(board), name="again")
    assert again == board
    assert [w.text for w in again.words] == [w.text for w in board.words]


@given(st.sets(st.integers(0, len(STANDARD_LINES) - 1), min_size=1))
def test_any_part_of_the_board_is_a_layout_that_round_trips(chosen):
    text = "\n".join(STANDARD_LINES[i] for i in sorted(chosen))
    layout = parse_layout(text)
    assert parse_layout(layout_str(layout)) == layout
    assert layout.size == len({sq for i in chosen for sq in _squares(STANDARD_LINES[i])})
    for w, word in enumerate(layout.words):
        assert "".join(layout.letters[c] for c in word.cells) == word.text
        assert all(w in layout.cell_words[c] for c in word.cells)


@given(st.integers(0, len(STANDARD_LINES) - 1), st.data())
def test_changing_a_shared_letter_is_always_rejected(index, data):
    word, start, direction = STANDARD_LINES[index].split()
    others = {sq for i, line in enumerate(STANDARD_LINES) if i != index for sq in _squares(line)}
    shared = [i for i, sq in enumerate(_squares(STANDARD_LINES[index])) if sq in others]
    i = data.draw(st.sampled_from(shared))
    letter = data.draw(st.sampled_from([c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c != word[i]]))
    lines = list(STANDARD_LINES)
    lines[index] = f"{word[:i]}{letter}{word[i + 1:]} {start} {direction}"
    with pytest.raises(LayoutError, match=r"line \d+: .* puts .* but .* has"):
        parse_layout("\n".join(lines))


def _squares(line):
    word, start, direction = line.split()
    row, col = parse_cell(start)
    return [(row + i, col) if direction == "V" else (row, col + i) for i in range(len(word))]


@given(st.integers(0, 25), st.integers(0, 25))
def test_cell_names_round_trip(row, col):
    assert parse_cell(cell_name(row, col)) == (row, col)


@pytest.mark.parametrize("name", ["", "a", "ak", "AK", "Ak1", None, 12])
def test_malformed_square_names_are_rejected(name):
    with pytest.raises(ValueError, match="is not a square"):
        parse_cell(name)


def test_a_square_without_a_letter_is_named(board):
    with pytest.raises(ValueError, match="square Aa has no letter on this board"):
        board.cell_at("Aa")


def test_read_layout_reads_a_file_and_names_it_in_errors(tmp_path):
    good = tmp_path / "mini.txt"
    good.write_text("# a tiny board\nCAT Aa H\nCOW Aa V\n", encoding="utf-8")
    layout = read_layout(good)
    assert layout.size == 5 and [w.text for w in layout.words] == ["CAT", "COW"]
    bad = tmp_path / "bad.txt"
    bad.write_text("CAT Aa H\nDOG Aa V\n", encoding="utf-8")
    with pytest.raises(LayoutError, match=rf"{re.escape(str(bad))}, line 2: DOG puts D on Aa"):
        read_layout(bad)
    with pytest.raises(LayoutError, match="cannot read the layout"):
        read_layout(tmp_path / "missing.txt")


def test_unknown_builtin_layout_is_named():
    with pytest.raises(LayoutError, match="unknown board layout 'deluxe'; known: standard"):
        builtin_layout("deluxe")
