"""The practice computer prefers progress, so its games end (issue #17).

The rulebook has no draw. Before, a player whose last minion would lose by
promoting (or by being captured) fled for ever: `3B|4/8/8/8/8/8/8/3a-4 a 2 ba`
never ended, and in self-play 3 of 12 games hit a 1,000-move cap.
"""
from __future__ import annotations

from collections import Counter

import pytest

from companion.games.pivit_board import Board, computer, parse_position, rules
from companion.games.pivit_board.engine import DEFAULT_QUIET_LIMIT

# Positions where the old computer played on for ever (from the issue and from self-play).
# In each, the player with the last minions loses whether they promote or are captured.
FLIGHTS = [
    "3B|4/8/8/8/8/8/8/3a-4 a 2 ba",  # the issue's: promoting ties on masters and loses the tie-break
    "8/8/8/8/8/8/8/2B|1a-3 b 2 b",  # a lone minion with no master, fleeing
    "6a-1/8/8/8/8/8/8/6B|1 a 2 ba",
    "8/C-6a|/5B-2/8/8/8/8/8 a 3 cba",
    "8/8/8/7a-/8/8/6D-B|/8 a 4 dbac",
    "2a|B-2/6/6/6/6/6 a 2 ba",
]


@pytest.mark.parametrize("start", FLIGHTS)
@pytest.mark.parametrize("seed", range(5))
def test_a_losing_last_minion_stops_fleeing_and_the_game_ends_by_the_rules(start, seed):
    board = computer.self_play(parse_position(start), seed, max_turns=1000)
    assert board.is_game_over()
    assert board.outcome().reason in (rules.NO_MINIONS, rules.ONE_PLAYER)
    # Well before the table's quiet-turn limit would have to end it.
    assert len(board.history) < DEFAULT_QUIET_LIMIT


def test_the_losing_side_concedes_after_patience_and_not_before():
    start = parse_position(FLIGHTS[0])
    board = computer.self_play(start, 0)
    patience = computer.PATIENCE * start.players  # 10 rounds of 2 players
    assert len(board.history) == patience + 1
    last = board.history[-1]
    assert last.player == 0 and last.promoted  # a promotes: 1 master each, b's came first
    assert board.outcome().winners == (1,)
    # One quiet turn fewer in view and a still shies away from the losing promotion.
    position, history = board.positions[-1], board.positions[:-1]
    assert computer.choose_move(position, 0, history) == last.move
    shorter = computer.choose_move(position, 0, history[1:])
    assert not rules.play(position, shorter)[1].promoted


def test_only_a_player_losing_as_things_stand_concedes():
    # b (the first master) wins as things stand, a does not: only a gives up after patience.
    assert not computer._winning_as_things_stand(parse_position(FLIGHTS[0]))
    assert computer._winning_as_things_stand(parse_position(FLIGHTS[0].replace(" a 2 ", " b 2 ")))
    # Flipped first masters: a's promotion now wins, and a takes it at once, history or not.
    position = parse_position("3B|4/8/8/8/8/8/8/3a-4 a 2 ab")
    for history in ([], [position] * 50):
        after, ply = rules.play(position, computer.choose_move(position, 0, history))
        assert ply.promoted and rules.outcome(after).winners == (0,)


def test_a_conceding_player_offers_a_piece_or_ends_the_game_rather_than_shy_away():
    position = parse_position("2B|3/6/6/6/6/3a-2 a 2 b")  # a's last minion; b's master watches the c-file
    board = Board(position)
    safe, offer, promote = (board.parse_move(t) for t in ("d1-e1", "d1-c1", "d1-a1"))
    score = computer.score_move
    assert score(position, offer) < score(position, safe) and score(position, promote) <= -computer.WIN_VALUE / 2
    assert score(position, safe, conceding=True) < score(position, offer, conceding=True)
    assert score(position, offer, conceding=True) < score(position, promote, conceding=True)


def test_a_move_back_to_a_position_seen_since_the_last_progress_scores_less():
    position = parse_position(FLIGHTS[0])
    move = Board(position).parse_move("d1-c1")
    after = rules.play(position, move)[0]
    plain = computer.score_move(position, move)
    seen = Counter({computer.repetition_key(after): 2})
    assert computer.score_move(position, move, seen=seen) == plain - 2 * computer.REPEAT_PENALTY


def test_the_quiet_stretch_starts_after_the_last_capture_or_promotion():
    board = Board("6/6/1a|2a-1/6/6/1b-2B|1 a 2 b")
    for text in ("e4-d4", "e1-e2", "b4xb1", "e2-f2", "d4-d5", "f2-f3"):  # b4xb1 captures, then quiet
        board.push_str(text)
    stretch = computer.quiet_stretch(board.position, board.positions)
    assert stretch == board.positions[3:]  # the three positions after the capture
    assert computer.quiet_stretch(board.position, []) == []


def test_without_history_the_computer_plays_as_before():
    # No history: no repetitions seen and no patience spent, so the plain greedy score decides.
    position = parse_position(FLIGHTS[0])
    move = computer.choose_move(position, 0)
    assert not rules.play(position, move)[1].promoted
