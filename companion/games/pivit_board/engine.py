"""The Pivit board game as an event-sourced table game (`GAME`, id "pivit-board").

Events::

    move {player, move: "b1-b4"}   the player to move slides a piece (x and =M accepted)
    timer-expired                  the per-turn clock ran out: the player to move loses the turn

Options (`default_options`):

    board_size     8 or 6 (6x6 is for 2 players)
    clock_seconds  0 for no clock, else seconds per turn on the physical timer
    quiet_limit    end the game after this many turns without a capture or promotion
                   (default 100, so a game that cannot progress still ends); 0 for no limit
    start          "" for the standard setup, or a position string to start from
    seed           seeds the computer opponent's tie-breaks (suggest_move)

Turns go clockwise, which is the order of the players list; the first player
moves first. Skips (no legal move), players knocked out and the end of the
game all follow from the rules (`rules`); the state records them so the
phones can show them. Every decision is in docs/rules/pivit-board.md.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from companion.games.base import OptionError, RuleError
from companion.games.pivit_board import computer, rules
from companion.games.pivit_board.board import Board
from companion.games.pivit_board.notation import FILES, NotationError, move_str, square_name
from companion.games.pivit_board.pieces import MAX_PLAYERS, OWNER_LETTERS, Piece
from companion.games.pivit_board.position import (
    BOARD_SIZES,
    Position,
    parse_position,
    position_str,
    starting_position,
)
from companion.games.pivit_board.record import format_record, parse_record
from companion.games.pivit_board.rules import Outcome, Ply

GAME_ID = "pivit-board"
SERVICE_OPTIONS = {"pin"}  # options the table service may add for itself; ignored here
# The quiet-turn limit is on by default (issue #17): the rulebook has no draw, and a
# lone minion fleeing a master, or a last minion whose promotion would lose, can go on
# forever. 100 turns is generous: the practice computer's own games never go more than
# about 50 turns without a capture or promotion (bench/pivit_board.py).
DEFAULT_QUIET_LIMIT = 100
DEFAULT_OPTIONS: dict[str, Any] = {
    "board_size": 8, "clock_seconds": 0, "quiet_limit": DEFAULT_QUIET_LIMIT, "start": "", "seed": 0,
}


@dataclass(frozen=True)
class Options:
    board_size: int
    clock_seconds: int
    quiet_limit: int
    start: str
    seed: int | str


class Turn(NamedTuple):
    ply: Ply
    label: str  # the move as a record writes it ("b1xb4=M"), or "--"


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    options: Options
    start: Position
    position: Position
    history: tuple[Turn, ...] = ()
    quiet: int = 0  # turns since the last capture or promotion
    ended: Outcome | None = None  # set when the quiet-turn limit ends the game
    # The positions of those quiet turns, oldest first: the practice computer reads them
    # to avoid repeating itself and to know how long the game has gone nowhere.
    recent: tuple[Position, ...] = ()


def quiet_reason(limit: int) -> str:
    return f"{limit} turns without a capture or promotion"


def _whole(options: dict, key: str, default: int, allowed: str, check) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not check(value):
        raise OptionError(f"option {key!r} must be {allowed}, not {value!r}")
    return value


def parse_options(options: dict[str, Any], players: int) -> tuple[Options, Position]:
    """Validated options and the starting position they give. Raises OptionError."""
    unknown = set(options) - set(DEFAULT_OPTIONS) - SERVICE_OPTIONS
    if unknown:
        raise OptionError(f"unknown option {sorted(unknown)[0]!r} for the Pivit board game")
    size = _whole(options, "board_size", 8, "6 or 8", lambda v: v in BOARD_SIZES)
    clock = _whole(options, "clock_seconds", 0, "0 (no clock) or 5 to 3600 seconds", lambda v: v == 0 or 5 <= v <= 3600)
    quiet = _whole(options, "quiet_limit", DEFAULT_QUIET_LIMIT, "0 (no limit) or 10 to 1000 turns",
                   lambda v: v == 0 or 10 <= v <= 1000)
    seed = options.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise OptionError(f"option 'seed' must be a number or text, not {seed!r}")
    start_text = options.get("start") or ""
    if not isinstance(start_text, str):
        raise OptionError(f"option 'start' must be a position string, not {start_text!r}")
    if start_text:
        try:
            start = parse_position(start_text)
        except NotationError as exc:
            raise OptionError(f"option 'start': {exc}") from None
        if start.size != size:
            raise OptionError(f"option 'start' is a {start.size}x{start.size} position but the board is {size}x{size}")
        if start.players != players:
            raise OptionError(f"option 'start' is for {start.players} players, not {players}")
        start = replace(start, ply=0)  # a custom start whose player to move is stuck is settled by the parser
    else:
        start = starting_position(size, players)
    return Options(size, clock, quiet, start_text, seed), start


def _piece_json(piece: Piece) -> dict[str, Any]:
    return {"owner": piece.owner, "kind": piece.kind, "axis": str(piece.axis), "symbol": piece.symbol}


class PivitBoard:
    id = GAME_ID
    title = "Pivit (board game)"
    min_players = 2
    max_players = MAX_PLAYERS

    events = {"move": {"player": int, "move": str}, "timer-expired": {}}

    def default_options(self) -> dict[str, Any]:
        return dict(DEFAULT_OPTIONS)

    def new_state(self, players: list[str], options: dict[str, Any]) -> State:
        """The position before the first move. Raises OptionError."""
        if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
            raise OptionError("players must be a list of names")
        if not self.min_players <= len(players) <= self.max_players:
            raise OptionError(f"Pivit is for 2 to 4 players, not {len(players)}")
        parsed, start = parse_options(dict(options or {}), len(players))
        return State(players=tuple(players), options=parsed, start=start, position=start)

    # -- events ---------------------------------------------------------------
    def apply(self, state: State, event: dict[str, Any]) -> State:
        """The state after `event`. Raises RuleError saying why the rules forbid it."""
        kind = event.get("type")
        if kind == "move":
            return self._move(state, event)
        if kind == "timer-expired":
            if not state.options.clock_seconds or self.finished(state):
                raise RuleError("no turn clock is running")
            after, ply = rules.lose_turn(state.position)
            return self._after(state, after, Turn(ply, "--"))
        raise RuleError(f"the Pivit board game has no {kind!r} event")

    def _move(self, state: State, event: dict[str, Any]) -> State:
        if "player" not in event:
            raise RuleError("a move event names its player")
        player = event["player"]
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < len(state.players):
            raise RuleError(f"there is no player {player!r} at this table")
        if self.finished(state):
            raise RuleError("the game is over")
        turn = state.position.turn
        if player != turn:
            raise RuleError(f"it is {state.players[turn]}'s turn, not {state.players[player]}'s")
        text = event.get("move")
        if not isinstance(text, str):
            raise RuleError("a move event needs a move like b1-b4")
        board = Board(state.position, names=state.players)
        move = board.parse_move(text)  # NotationError or IllegalMoveError, both RuleErrors
        label = board.move_label(move)
        after, ply = rules.play(state.position, move)
        return self._after(state, after, Turn(ply, label))

    def _after(self, state: State, after: Position, turn: Turn) -> State:
        progress = turn.ply.captured is not None or turn.ply.promoted
        quiet = 0 if progress else state.quiet + 1
        recent = () if progress else state.recent + (state.position,)
        ended = None
        limit = state.options.quiet_limit
        if limit and quiet >= limit and rules.outcome(after) is None:
            ended = rules.decide(after, quiet_reason(limit))
        return replace(state, position=after, history=state.history + (turn,), quiet=quiet, ended=ended,
                       recent=recent)

    # -- reading the state -------------------------------------------------------
    def outcome(self, state: State) -> Outcome | None:
        return rules.outcome(state.position) or state.ended

    def finished(self, state: State) -> bool:
        return self.outcome(state) is not None

    def timer_request(self, state: State) -> tuple[str, float] | None:
        """A countdown of `clock_seconds` for each turn while the game goes on."""
        if not state.options.clock_seconds or self.finished(state):
            return None
        return f"turn-{state.position.ply}", float(state.options.clock_seconds)

    def legal_targets(self, state: State) -> dict[str, list[str]]:
        """For the player to move: square of each piece that can move -> the squares it may land on."""
        if self.finished(state):
            return {}
        position = state.position
        found = {}
        for square, _ in position.pieces(position.turn):
            targets = rules.targets(position, square)
            if targets:
                found[square_name(square)] = [square_name(t) for t in targets]
        return found

    def actions(self, state: State) -> list[dict[str, Any]]:
        """The move the player to move may make, with every piece's legal targets."""
        if self.finished(state):
            return []
        return [{"type": "move", "player": state.position.turn, "moves": self.legal_targets(state)}]

    def suggest_move(self, state: State) -> str | None:
        """The practice computer's move for the player to move, or None once the game is over.

        Deterministic for the state and the table's seed; apply it as an
        ordinary move event. The computer sees the quiet turns so far, so it
        avoids repeating positions and concedes a game it cannot win rather
        than drag it out (see `computer`).
        """
        if self.finished(state):
            return None
        move = computer.choose_move(state.position, state.options.seed, state.recent)
        return None if move is None else move_str(move)

    def board(self, state: State) -> Board:
        """A Board replaying the state's history (push/pop, records, diagrams)."""
        board = Board(state.start, names=state.players)
        for turn in state.history:
            if turn.ply.move is None:
                board.lose_turn()
            else:
                board.push(turn.ply.move)
        return board

    def export_record(self, state: State) -> str:
        """The game so far as a record (see `record`)."""
        tags = {}
        if state.options.quiet_limit:  # written whenever set, so importing keeps it (no tag: no limit)
            tags["QuietLimit"] = str(state.options.quiet_limit)
        if state.options.clock_seconds:
            tags["Clock"] = str(state.options.clock_seconds)
        labels = [turn.label for turn in state.history]
        return format_record(state.start, state.players, labels, self.outcome(state), tags)

    def import_record(self, text: str) -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
        """(players, options, events) that replay a game record at a new table.

        Raises NotationError (a RuleError) saying what is wrong with the record.
        """
        record = parse_record(text)
        options = self.default_options()
        options["board_size"] = record.start.size
        if "Setup" in record.tags:
            options["start"] = record.tags["Setup"]
        options["quiet_limit"] = 0  # a record without a QuietLimit tag was played without one
        for tag, key in (("QuietLimit", "quiet_limit"), ("Clock", "clock_seconds")):
            if tag in record.tags:
                if not record.tags[tag].isdigit():
                    raise NotationError(f"the {tag} tag must be a whole number, not {record.tags[tag]!r}")
                options[key] = int(record.tags[tag])
        if None in record.moves and not options["clock_seconds"]:
            raise NotationError("the record has turns lost to the clock (--) but no Clock tag")
        events: list[dict[str, Any]] = []
        board = Board(record.start)
        for move in record.moves:
            if move is None:
                events.append({"type": "timer-expired"})
                board.lose_turn()
            else:
                events.append({"type": "move", "player": board.turn, "move": move_str(move)})
                board.push(move)
        return list(record.players), options, events

    def to_json(self, state: State) -> dict[str, Any]:
        """Everything a phone needs to draw the board and the table around it."""
        position = state.position
        outcome = self.outcome(state)
        turn = None if outcome else position.turn
        masters = rules.masters(position)
        alive = position.players_in()
        first_turn: dict[int, int] = {}
        for number, entry in enumerate(state.history, start=1):
            if entry.ply.promoted:
                first_turn.setdefault(entry.ply.player, number)
        players = []
        for index, name in enumerate(state.players):
            minions, _ = position.piece_counts(index)
            captured = [_piece_json(t.ply.captured) for t in state.history if t.ply.captured and t.ply.player == index]
            lost = sum(1 for t in state.history if t.ply.captured and t.ply.captured.owner == index)
            players.append({
                "index": index,
                "name": name,
                "letter": OWNER_LETTERS[index],
                "in_game": index in alive,
                "minions": minions,
                "masters": masters[index],
                "score": masters[index],
                "captured": captured,
                "lost": lost,
                "first_master_order": (
                    position.first_masters.index(index) + 1 if index in position.first_masters else None
                ),
                "first_master_turn": first_turn.get(index),
            })
        targets = self.legal_targets(state)
        pieces = []
        for square, piece in position.pieces():
            name = square_name(square)
            pieces.append({
                "square": name,
                "file": square[0],
                "rank": square[1],
                **_piece_json(piece),
                "targets": [square_name(t) for t in rules.targets(position, square)],
                "movable": name in targets,
            })
        history = []
        for number, entry in enumerate(state.history, start=1):
            ply = entry.ply
            history.append({
                "turn": number,
                "player": ply.player,
                "name": state.players[ply.player],
                "move": None if ply.move is None else move_str(ply.move),
                "label": entry.label,
                "from": None if ply.move is None else square_name(ply.move.from_square),
                "to": None if ply.move is None else square_name(ply.move.to_square),
                "timeout": ply.move is None,
                "captured": None if ply.captured is None else _piece_json(ply.captured),
                "promoted": ply.promoted,
                "knocked_out": list(ply.knocked_out),
                "skipped": list(ply.skipped),
                "text": self._describe(state, entry),
            })
        return {
            "game": GAME_ID,
            "board_size": position.size,
            "files": FILES[: position.size],
            "corners": [square_name(c) for c in position.corners],
            "turn": turn,
            "turn_name": None if turn is None else state.players[turn],
            "players": players,
            "pieces": pieces,
            "moves": targets,
            "history": history,
            "last_move": history[-1] if history else None,
            "quiet_turns": state.quiet,
            "quiet_limit": state.options.quiet_limit,
            "clock_seconds": state.options.clock_seconds,
            "finished": outcome is not None,
            # The service's generic readers: scores (masters, what the game is won on) and winners.
            "scores": list(masters),
            "winners": [] if outcome is None else list(outcome.winners),
            "outcome": None if outcome is None else {
                "reason": outcome.reason,
                "winners": list(outcome.winners),
                "winner_names": [state.players[p] for p in outcome.winners],
                "masters": list(outcome.masters),
            },
            "message": self._message(state, outcome),
            # The practice computer's move for the player to move, so a phone's
            # "computer move" button can send it as an ordinary move (None once over).
            "suggestion": self.suggest_move(state),
            "position": position_str(position),
            "record": self.export_record(state),
        }

    def _describe(self, state: State, entry: Turn) -> str:
        ply, names = entry.ply, state.players
        if ply.move is None:
            text = f"{names[ply.player]} ran out of time"
        else:
            text = f"{names[ply.player]} {entry.label}"
            if ply.captured is not None:
                text += f", capturing {names[ply.captured.owner]}'s {ply.captured.kind}"
            if ply.promoted:
                text += ", promoted to master"
        for out in ply.knocked_out:
            text += f"; {names[out]} is out"
        for skipped in ply.skipped:
            text += f"; {names[skipped]} has no legal move and is skipped"
        return text

    def _message(self, state: State, outcome: Outcome | None) -> str:
        names = state.players
        if outcome is None:
            return f"{names[state.position.turn]} to move"
        winners = " and ".join(names[p] for p in outcome.winners)
        verb = "win" if len(outcome.winners) > 1 else "wins"
        return f"{winners} {verb}: {outcome.reason}"


GAME = PivitBoard()
