"""Squares, moves and position strings: every parser against its printer, and the errors."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.base import RuleError
from companion.games.pivit_board import (
    STARTING_SQUARES,
    Board,
    Move,
    NotationError,
    diagram,
    move_str,
    parse_move,
    parse_piece,
    parse_position,
    parse_square,
    piece_str,
    position_str,
    square_name,
    starting_position,
)
from companion.games.pivit_board.notation import parse_annotated_move


@pytest.mark.parametrize(
    ("text", "size", "square"),
    [("a1", 8, (0, 0)), ("b1", 8, (1, 0)), ("h8", 8, (7, 7)), ("f6", 6, (5, 5)), (" B3 ", 8, (1, 2))],
)
def test_squares(text, size, square):
    assert parse_square(text, size) == square
    assert square_name(square) == text.strip().lower()


@pytest.mark.parametrize(
    ("text", "size", "message"),
    [
        ("i1", 8, "i1 is not on the 8x8 board (a1 to h8)"),
        ("a7", 6, "a7 is not on the 6x6 board (a1 to f6)"),
        ("a0", 8, "'a0' is not a square name like b1"),
        ("11", 8, "'11' is not a square name like b1"),
        ("", 8, "'' is not a square name like b1"),
    ],
)
def test_bad_squares(text, size, message):
    with pytest.raises(NotationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_square(text, size)


@pytest.mark.parametrize(
    ("text", "move", "capture", "promotion"),
    [
        ("b1-b4", Move((1, 0), (1, 3)), False, False),
        ("b1b4", Move((1, 0), (1, 3)), False, False),
        ("B1xB4", Move((1, 0), (1, 3)), True, False),
        (" a2-a1=M ", Move((0, 1), (0, 0)), False, True),
        ("b2xa2=m", Move((1, 1), (0, 1)), True, True),
    ],
)
def test_moves(text, move, capture, promotion):
    assert parse_move(text) == move
    assert parse_annotated_move(text) == (move, capture, promotion)
    assert move_str(move) == square_name(move.from_square) + "-" + square_name(move.to_square)
    assert str(move) == move_str(move)


@pytest.mark.parametrize(
    ("text", "size", "message"),
    [
        ("b1", 8, "'b1' is not a move like b1-b4"),
        ("b1-", 8, "'b1-' is not a move like b1-b4"),
        ("hello", 8, "'hello' is not a move like b1-b4"),
        ("b1-b9", 8, "b9 is not on the 8x8 board"),
        ("b1-b7", 6, "b7 is not on the 6x6 board"),
        ("b1=b4", 8, "'b1=b4' is not a move like b1-b4"),
    ],
)
def test_bad_moves(text, size, message):
    with pytest.raises(NotationError, match=message):
        parse_move(text, size)
    assert issubclass(NotationError, RuleError)  # the phones show it like any rule error


squares8 = st.tuples(st.integers(0, 7), st.integers(0, 7))


@given(squares8, squares8)
def test_move_notation_round_trips(a, b):
    move = Move(a, b)
    assert parse_move(move_str(move), 8) == move


@pytest.mark.parametrize("symbol", ["a|", "a-", "A|", "B-", "c|", "D-"])
def test_piece_symbols_round_trip(symbol):
    assert piece_str(parse_piece(symbol)) == symbol


@pytest.mark.parametrize("symbol", ["e|", "a", "a+", "||", "1-"])
def test_bad_piece_symbols(symbol):
    with pytest.raises(ValueError, match="is not a piece"):
        parse_piece(symbol)


def test_the_documented_6x6_start_string():
    assert position_str(starting_position(6, 2)) == "1a|b|a|b|1/a-4a-/b-4b-/a-4a-/b-4b-/1a|b|a|b|1 a 2 -"


@pytest.mark.parametrize(("size", "players"), sorted(STARTING_SQUARES))
def test_starting_positions_round_trip(size, players):
    position = starting_position(size, players)
    assert parse_position(position_str(position)) == position


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1a|b|a|b|1/a-4a-/b-4b-/a-4a-/b-4b-/1a|b|a|b|1 a 2", "a position is four fields"),
        ("1a|b|a|b|1/a-4a-/b-4b-/a-4a-/b-4b-/1a|b|a|b| a 2 -", "rank 1 '1a|b|a|b|' has 5 squares, not 6"),
        ("1a|b|a|b|1/a-4a-/b-4b-/a-4a-/b-4b-/1a|b|a|x|1 a 2 -", "rank 1: 'x|' is not a piece"),
        ("1a|b|a|b|1/a-4a-/b-4b-/a-4a-/b-4b-/1a|b|a|c|1 a 2 -", "holds a piece of player c, but only 2 players"),
        ("a|5/6/6/6/6/1b|4 a 2 -", "a minion cannot stand on corner a6"),
        ("1a|4/6/6/6/6/6 b 2 -", "player b is to move but has no pieces"),
        ("1A|4/6/6/6/6/6 a 2 -", "player a has a master, so must be in the first-master order"),
        ("1A|4/6/6/6/6/6 a 2 aa", "must name each player at most once"),
        ("1a|4/6/6/6/6/6 a 5 -", "the number of players is 2 to 4"),
        ("1a|/2 a 2 -", "a board has 3 to 26 ranks, not 2"),
        ("6/6/6/6/6/6 - 2 -", "the board has no pieces"),
        ("1a|4/6/6/6/6/6 e 2 -", "the player to move is a letter a-b or -"),
        ("1a|4/6/6/0/6/6 a 2 -", "an empty run cannot be 0"),
    ],
)
def test_bad_positions(text, message):
    with pytest.raises(NotationError, match=message.replace("|", r"\|")):
        parse_position(text)


def test_diagram_draws_corners_and_pieces():
    text = diagram(starting_position(6, 2))
    assert text.splitlines()[0] == " 6 [] a| b| a| b| []"
    assert text.splitlines()[-1] == "    a  b  c  d  e  f"
    assert str(Board(size=6)) == text


def test_annotations_are_checked_against_the_position():
    board = Board(size=6)
    with pytest.raises(NotationError, match="b1xb2 is written as a capture but b2 is empty"):
        board.parse_move("b1xb2")
    with pytest.raises(NotationError, match="written as a promotion but no minion lands on a corner"):
        board.parse_move("b1-b2=M")
    assert board.move_label(board.parse_move("b1b2")) == "b1-b2"
