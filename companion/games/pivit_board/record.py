"""Game records: whole games written out and read back, in the spirit of PGN.

A record is tag lines, a blank line, then the turns in order::

    [Game "Pivit board"]
    [Board "6x6"]
    [Player1 "Ann"]
    [Player2 "Ben"]
    [Result "Ben"]
    [Termination "no minions remain"]

    1. b1-b2 2. c1-c2 3. b2xd2 4. a2-b2 5. f5-f6=M 6. -- ...

Each turn is numbered; a move is in the compact notation with ``x`` for a
capture and ``=M`` for a promotion, and ``--`` is a turn lost to the clock.
Turns skipped for having no legal move are not written (the rules skip them).
A ``Setup`` tag holds the starting position string when the game did not
start from the standard setup. ``Result`` names the winner (winners sharing a
win are joined by `` & ``) or is ``*`` while the game goes on. Text in braces
is a comment. Reading a record replays it, so every move is checked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from companion.games.pivit_board.board import Board
from companion.games.pivit_board.notation import PASS, Move, NotationError
from companion.games.pivit_board.position import (
    STARTING_SQUARES,
    Position,
    parse_position,
    position_str,
    starting_position,
)
from companion.games.pivit_board.rules import IllegalMoveError, Outcome

GAME_TAG = "Pivit board"
UNFINISHED = "*"
_TAG_RE = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_NUMBER_RE = re.compile(r"\b\d+\.+")  # turn numbers: "12." (also glued to a move: "12.b1-b2")


@dataclass(frozen=True)
class GameRecord:
    """A game read from a record: who played, where it started, and every turn."""

    players: tuple[str, ...]
    start: Position
    moves: tuple[Move | None, ...]  # None: a turn lost to the clock
    tags: dict[str, str] = field(default_factory=dict)

    def board(self) -> Board:
        """A Board with every turn of the record pushed (so `pop` walks back through the game)."""
        board = Board(self.start, names=self.players)
        for move in self.moves:
            if move is None:
                board.lose_turn()
            else:
                board.push(move)
        return board


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def result_str(outcome: Outcome | None, players: Sequence[str]) -> str:
    """The Result tag value: the winner's name, winners joined by " & ", or "*"."""
    if outcome is None:
        return UNFINISHED
    return " & ".join(players[p] for p in outcome.winners)


def record_str(
    board: Board,
    players: Sequence[str],
    *,
    outcome: Outcome | None = None,
    tags: dict[str, str] | None = None,
) -> str:
    """The record of every turn on `board`'s stack, from its root position.

    `outcome` overrides the board's own (for a game ended by a table option,
    such as the quiet-turn limit); `tags` adds tag lines. Raises ValueError if
    `players` does not name every player.
    """
    # Replay to label captures and promotions as they happened.
    replay = Board(board.root())
    labels = []
    for move in board.move_stack:
        if move is None:
            labels.append(PASS)
            replay.lose_turn()
        else:
            labels.append(replay.move_label(move))
            replay.push(move)
    return format_record(board.root(), players, labels, outcome or board.outcome(), tags)


def format_record(
    start: Position,
    players: Sequence[str],
    labels: Sequence[str],
    outcome: Outcome | None,
    tags: dict[str, str] | None = None,
) -> str:
    """A record from turns already labelled (``b1xb4``, ``--``): no replay, for callers that keep labels.

    Raises ValueError if `players` does not name every player.
    """
    if len(players) != start.players:
        raise ValueError(f"the record needs {start.players} player names, not {len(players)}")
    lines = [f'[Game "{GAME_TAG}"]', f'[Board "{start.size}x{start.size}"]']
    lines += [f'[Player{i + 1} "{_escape(name)}"]' for i, name in enumerate(players)]
    standard = (start.size, start.players) in STARTING_SQUARES and start == starting_position(start.size, start.players)
    if not standard:
        lines.append(f'[Setup "{position_str(start)}"]')
    lines.append(f'[Result "{_escape(result_str(outcome, players))}"]')
    if outcome is not None:
        lines.append(f'[Termination "{outcome.reason}"]')
    lines += [f'[{key} "{_escape(value)}"]' for key, value in (tags or {}).items()]
    lines.append("")
    line = ""
    for number, label in enumerate(labels, start=1):
        token = f"{number}. {label}"
        if line and len(line) + 1 + len(token) > 78:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> GameRecord:
    """Read a game record and replay it, checking every move.

    Raises NotationError naming the line or turn at fault: a missing or bad
    tag, an unreadable or illegal move, moves after the game ended, or a
    Result that the moves do not give.
    """
    tags: dict[str, str] = {}
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            match = _TAG_RE.fullmatch(stripped)
            if not match:
                raise NotationError(f"record line {number}: {stripped!r} is not a tag like [Board \"8x8\"]")
            tags[match.group(1)] = _unescape(match.group(2))
        else:
            body.append(line)
    if tags.get("Game", GAME_TAG) != GAME_TAG:
        raise NotationError(f"the record is of {tags['Game']!r}, not {GAME_TAG!r}")
    players = []
    while f"Player{len(players) + 1}" in tags:
        players.append(tags[f"Player{len(players) + 1}"])
    if "Setup" in tags:
        start = parse_position(tags["Setup"])
        if tags.get("Board", f"{start.size}x{start.size}") != f"{start.size}x{start.size}":
            raise NotationError(f"the Board tag says {tags['Board']} but the Setup is {start.size}x{start.size}")
    else:
        board_tag = tags.get("Board", "8x8")
        match = re.fullmatch(r"(\d+)x\1", board_tag)
        if not match:
            raise NotationError(f"the Board tag is 6x6 or 8x8, not {board_tag!r}")
        try:
            start = starting_position(int(match.group(1)), len(players))
        except ValueError as exc:  # OptionError: no setup for this size and count
            raise NotationError(f"the record's players and board: {exc}") from None
    if len(players) != start.players:
        raise NotationError(f"the record names {len(players)} players (Player1, Player2, ...) but the game has {start.players}")
    movetext = _NUMBER_RE.sub(" ", re.sub(r"\{[^}]*\}", " ", "\n".join(body)))
    board = Board(start, names=players)
    moves: list[Move | None] = []
    for token in movetext.split():
        number = len(moves) + 1
        try:
            if token == PASS:
                board.lose_turn()
                moves.append(None)
            else:
                moves.append(board.push_str(token))
        except (NotationError, IllegalMoveError) as exc:
            raise NotationError(f"turn {number} {token!r}: {exc}") from None
    result = tags.get("Result", UNFINISHED)
    outcome = board.outcome()
    if outcome is not None and result != result_str(outcome, players):
        raise NotationError(
            f"the Result tag says {result!r} but the moves give {result_str(outcome, players)!r} "
            f"({outcome.reason})"
        )
    return GameRecord(tuple(players), start, tuple(moves), tags)

