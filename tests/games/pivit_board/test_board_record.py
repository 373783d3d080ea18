"""Board push/pop undo and whole-game records (export, import, and their errors)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.games.pivit_board import (
    PASS,
    STARTING_SQUARES,
    Board,
    IllegalMoveError,
    Move,
    NotationError,
    parse_move,
    parse_square,
)
from companion.games.pivit_board.record import GameRecord, parse_record, record_str

GAMES = Path(__file__).with_name("games")


def random_game(size: int, players: int, seed: int, turns: int = 10_000, clock_every: int = 0) -> Board:
    rng = random.Random(seed)
    board = Board(size=size, players=players)
    while not board.is_game_over() and len(board.move_stack) < turns:
        if clock_every and rng.randrange(clock_every) == 0:
            board.lose_turn()
        else:
            board.push(rng.choice(board.legal_moves))
    return board


def test_push_pop_peek_history():
    board = Board(size=6)
    start = board.position
    board.push_str("b1-b2")
    board.push_str("c6-c5")
    assert [str(m) for m in board.move_stack] == ["b1-b2", "c6-c5"]
    assert board.peek().player == 1 and board.ply == 2
    assert board.pop().move == board.parse_move("c6-c5")
    assert board.pop().player == 0
    assert board.position == start and board.history == [] and board.root() == start
    with pytest.raises(IndexError):
        board.pop()
    with pytest.raises(IndexError):
        board.peek()


def test_captured_pieces_by_player():
    board = Board("6/6/6/6/3b-2/1a|4 a 2 -")
    board.push_str("b1-b2")  # now a- : it slides along rank 2
    board.push_str("d2-c2")  # now b|
    assert board.captured() == []
    board.push_str("b2xc2")
    assert [p.symbol for p in board.captured()] == ["b|"]
    assert board.captured(by=0) == board.captured() and board.captured(by=1) == []
    assert board.outcome().winners == (0,)


def test_copy_is_independent():
    board = Board(size=6)
    board.push_str("b1-b2")
    twin = board.copy()
    twin.push_str("c6-c5")
    assert len(board.move_stack) == 1 and len(twin.move_stack) == 2
    assert board.copy(stack=False).history == []
    assert repr(board).startswith("Board('")


def test_losing_a_turn_to_the_clock():
    board = Board(size=6)
    ply = board.lose_turn()
    assert ply.move is None and board.turn == 1 and board.move_stack == [None]
    board.pop()
    assert board.turn == 0


def test_targets_by_name_and_pieces():
    board = Board(size=6)
    assert board.targets("b1") == [parse_square("b2", 6), parse_square("b4", 6)]
    assert board.piece_at("b1").symbol == "a|"
    assert len(list(board.pieces(1))) == 8
    assert board.is_legal(parse_move("b1-b4", 6)) and not board.is_legal(parse_move("b1-b3", 6))


# -- records ------------------------------------------------------------------------
@pytest.mark.parametrize(("size", "players"), sorted(STARTING_SQUARES))
def test_records_round_trip(size, players):
    board = random_game(size, players, seed=size * 10 + players, clock_every=25)
    names = [f'Player "{n}" \\ {n}' for n in range(players)]  # quotes and backslashes escape
    text = record_str(board, names)
    record = parse_record(text)
    assert record.players == tuple(names)
    assert list(record.moves) == board.move_stack
    assert PASS in text
    replayed = record.board()
    assert replayed.position == board.position
    assert record_str(replayed, names) == text


def test_custom_start_goes_in_a_setup_tag():
    board = Board("1a|4/6/2b-3/6/6/6 a 2 -")
    board.push_str("b6-b5")
    text = record_str(board, ["Ann", "Ben"])
    assert '[Setup "1a|4/6/2b-3/6/6/6 a 2 -"]' in text
    assert parse_record(text).board().position == board.position


def test_record_reads_glued_numbers_and_comments():
    text = '[Board "6x6"]\n[Player1 "Ann"]\n[Player2 "Ben"]\n\n1.b1-b2 {a quiet start} 2. c6-c5\n3.b2-c2\n'
    record = parse_record(text)
    assert [str(m) for m in record.moves] == ["b1-b2", "c6-c5", "b2-c2"]


HEAD = '[Board "6x6"]\n[Player1 "Ann"]\n[Player2 "Ben"]\n\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HEAD + "1. b1-b3", "turn 1 'b1-b3': minions move an odd number of squares"),
        (HEAD + "1. b1-b2 2. b2-b3", "turn 2 'b2-b3': the piece on b2 is Ann's; it is Ben's turn"),
        (HEAD + "1. b1xb2", "turn 1 'b1xb2': b1xb2 is written as a capture"),
        (HEAD + "1. zz", "turn 1 'zz': 'zz' is not a move"),
        ('[Board "7x7"]\n[Player1 "A"]\n[Player2 "B"]\n', "the board is 6x6 or 8x8, not 7x7"),
        ('[Board "6x6"]\n[Player1 "A"]\n[Player2 "B"]\n[Player3 "C"]\n', "the 6x6 board is for 2 players, not 3"),
        ('[Game "Chess"]\n', "the record is of 'Chess'"),
        ('[Board "8x8"]\n[Setup "1a|4/6/6/6/6/1b|4 a 2 -"]\n', "the Board tag says 8x8 but the Setup is 6x6"),
        ('[Board 6x6]\n', "record line 1"),
        ('[Setup "1a|4/6/6/6/6/1b|4 a 2 -"]\n[Player1 "A"]\n[Player2 "B"]\n[Player3 "C"]\n', "names 3 players"),
    ],
)
def test_bad_records(text, message):
    with pytest.raises(NotationError, match=message):
        parse_record(text)


def test_a_result_the_moves_do_not_give_is_refused():
    text = record_str(random_game(6, 2, seed=3), ["Ann", "Ben"])
    winner = "Ann" if '[Result "Ben"]' in text else "Ben"
    forged = text.replace('[Result "Ann"]', f'[Result "{winner}"]').replace('[Result "Ben"]', f'[Result "{winner}"]')
    with pytest.raises(NotationError, match="the Result tag says"):
        parse_record(forged)


def test_moves_after_the_end_are_refused():
    board = random_game(6, 2, seed=4)
    text = record_str(board, ["Ann", "Ben"]) + " 999. b1-b2\n"
    with pytest.raises(NotationError, match="the game is over"):
        parse_record(text)


def test_record_names_every_player():
    with pytest.raises(ValueError, match="needs 2 player names"):
        record_str(Board(size=6), ["Ann"])


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.txt")), ids=lambda p: p.stem)
def test_golden_games_replay_to_their_recorded_result(path):
    """Whole games kept as records: replaying them must give the same winner and end."""
    record: GameRecord = parse_record(path.read_text())  # checks every move and the Result tag
    board = record.board()
    assert board.is_game_over()
    assert record.tags["Termination"] == board.outcome().reason


def test_golden_games_cover_every_setup():
    names = {p.stem for p in GAMES.glob("*.txt")}
    assert {"8x8-2-players", "8x8-3-players", "8x8-4-players", "6x6-2-players"} <= names


def test_the_board_docstring_example_runs():
    import doctest

    from companion.games.pivit_board import board as board_module

    assert doctest.testmod(board_module).failed == 0


def test_illegal_push_raises_and_keeps_the_board():
    board = Board(size=6)
    with pytest.raises(IllegalMoveError):
        board.push(Move((1, 0), (1, 2)))
    assert board.move_stack == []
