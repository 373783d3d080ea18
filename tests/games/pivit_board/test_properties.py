"""Hypothesis properties: undo is exact, generation and validation agree, replay is deterministic."""
from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.pivit_board import STARTING_SQUARES, Board, Move, parse_position, position_str
from companion.games.pivit_board.engine import GAME
from companion.games.pivit_board.record import parse_record, record_str

setups = st.sampled_from(sorted(STARTING_SQUARES))


def _long_game(seed: int, length: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(10_000) for _ in range(length)]


# Move picks: short hand-shrinkable lists, or long seeded ones that reach the end game.
choices = st.one_of(
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=80),
    st.builds(_long_game, st.integers(min_value=0, max_value=2**32), st.integers(min_value=50, max_value=300)),
)


def play_out(size, players, picks, *, clock=False) -> Board:
    """A board after following `picks` (indexes into the legal moves; -1 loses a turn if `clock`)."""
    board = Board(size=size, players=players)
    for pick in picks:
        if board.is_game_over():
            break
        if clock and pick % 13 == 0:
            board.lose_turn()
        else:
            moves = board.legal_moves
            board.push(moves[pick % len(moves)])
    return board


@given(setups, choices)
def test_push_then_pop_restores_every_position(setup, picks):
    board = Board(size=setup[0], players=setup[1])
    positions = [board.position]
    for pick in picks:
        if board.is_game_over():
            break
        if pick % 13 == 0:
            board.lose_turn()
        else:
            moves = board.legal_moves
            board.push(moves[pick % len(moves)])
        positions.append(board.position)
    while board.history:
        board.pop()
        positions.pop()
        assert board.position == positions[-1]
    assert len(positions) == 1


@given(setups, choices)
def test_generated_moves_are_exactly_the_moves_validation_accepts(setup, picks):
    board = play_out(*setup, picks)
    size = board.size
    generated = set(board.legal_moves)
    for move in generated:
        board.validate(move)  # never raises for a generated move
    for square, _ in board.pieces(board.turn):
        for target in ((f, r) for f in range(size) for r in range(size)):
            assert board.is_legal(Move(square, target)) == (Move(square, target) in generated)


@given(setups, choices)
def test_position_strings_round_trip_through_play(setup, picks):
    board = play_out(*setup, picks)
    text = board.position_str()
    parsed = parse_position(text)
    assert position_str(parsed) == text
    assert parsed.squares == board.position.squares and parsed.turn == board.turn


@given(setups, choices)
def test_records_replay_to_the_same_game(setup, picks):
    board = play_out(*setup, picks, clock=True)
    names = ["Ann", "Ben", "Cleo", "Dev"][: board.players]
    record = parse_record(record_str(board, names))
    assert record.board().position == board.position


@pytest.mark.long  # about 20 s of whole games: in the long pass, which .ci/run also runs
@given(setups, choices)
def test_replaying_the_event_log_is_deterministic_and_pure(setup, picks):
    size, players = setup
    names = ["Ann", "Ben", "Cleo", "Dev"][:players]
    options = {"board_size": size, "clock_seconds": 30}
    state = GAME.new_state(names, options)
    events, seen = [], [(state, GAME.to_json(state))]
    for pick in picks:
        if GAME.finished(state):
            break
        if pick % 17 == 0:
            event = {"type": "timer-expired"}
        else:
            moves = [f"{sq}-{t}" for sq, ts in GAME.actions(state)[0]["moves"].items() for t in ts]
            event = {"type": "move", "player": state.position.turn, "move": moves[pick % len(moves)]}
        state = GAME.apply(state, event)
        events.append(event)
        seen.append((state, GAME.to_json(state)))
    # apply never changed a state it was given: every earlier view still reads the same
    for earlier, view in seen:
        assert GAME.to_json(earlier) == view
    # the same events always give the same state, and undo is replay without the last event
    replay = GAME.new_state(names, options)
    for count, event in enumerate(events, start=1):
        replay = GAME.apply(replay, event)
        assert replay == seen[count][0]
