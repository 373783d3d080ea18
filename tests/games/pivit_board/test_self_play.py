"""Self-play: the practice computer playing every seat finishes every game (issue #17).

200 seeded games on every board size and player count the engine has a setup
for, each ending by the rulebook (no minions remain, or only one player
remains, or nobody can move) without the table's quiet-turn limit having to
step in. The 200 games take about a minute, so they run in the long pass
(`-m long`); the quick run plays every tenth of them. Figures (game lengths,
quiet stretches, time) come from bench/pivit_board.py.
"""
from __future__ import annotations

import pytest

from companion.games.pivit_board import STARTING_SQUARES, computer, rules, starting_position
from companion.games.pivit_board.engine import DEFAULT_QUIET_LIMIT, GAME

SETUPS = sorted(STARTING_SQUARES)
GAMES = 200
QUICK_EVERY = 10  # the quick run plays seeds 0, 10, 20, ... of the 200
MAX_TURNS = 1000  # only a safety net: the longest of the 800 games is under 200 turns
RULEBOOK_ENDS = (rules.NO_MINIONS, rules.ONE_PLAYER, rules.NO_MOVES)


def check_self_play(size: int, players: int, seeds) -> None:
    for seed in seeds:
        board = computer.self_play(starting_position(size, players), seed, max_turns=MAX_TURNS)
        where = f"{size}x{size}, {players} players, seed {seed}: "
        assert board.is_game_over(), where + f"still going after {MAX_TURNS} turns: {board.position_str()}"
        assert board.outcome().reason in RULEBOOK_ENDS, where + board.outcome().reason
        assert computer.longest_quiet_stretch(board) < DEFAULT_QUIET_LIMIT, where + "the quiet-turn limit would have ended it"


@pytest.mark.parametrize(("size", "players"), SETUPS)
def test_a_seeded_sample_of_self_play_games_ends_by_the_rules(size, players):
    check_self_play(size, players, range(0, GAMES, QUICK_EVERY))


@pytest.mark.long
@pytest.mark.parametrize(("size", "players"), SETUPS)
def test_200_seeded_self_play_games_end_by_the_rules(size, players):
    check_self_play(size, players, range(GAMES))


@pytest.mark.parametrize(("size", "players"), SETUPS)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_computer_move_button_finishes_games_at_a_table(size, players, seed):
    """The table's path: the default options, and every turn the view's suggestion."""
    state = GAME.new_state(["Ann", "Ben", "Cleo", "Dev"][:players], {"board_size": size, "seed": seed})
    for _ in range(MAX_TURNS):
        if GAME.finished(state):
            break
        state = GAME.apply(state, {"type": "move", "player": state.position.turn, "move": GAME.suggest_move(state)})
    assert GAME.finished(state)
    assert GAME.outcome(state).reason in RULEBOOK_ENDS
