"""Scrabble Junior as an event-sourced engine: the rules and state under `game.GAME` (id "scrabble-junior").

Turn flow, from the rulebook: on your turn cover two board letters with
matching tiles, each on the next open letter of a word (`rules`); if you can
play only one tile, play it and draw one; if you can play none, exchange two
tiles with the pool; with the pool empty, pass. Draw as many tiles as you
played. Each word completed takes a chip from the kitty. The game ends when
every tile is on the board; most chips wins.

Events, one per tap on a phone (``player`` is the index of the player to move)::

    {"type": "cover", "player": 0, "cell": "Je"}          # one tile on square Je
    {"type": "cover", "player": 0, "cell": "Je", "letter": "J"}  # letter optional, checked
    {"type": "end-turn", "player": 0}                     # real tiles: "I can play only one"
    {"type": "exchange", "player": 0, "tiles": ["Q", "X"]}  # digital tiles name the two
    {"type": "pass", "player": 0}                         # only with the pool empty

Two modes (option ``tiles``): "digital", where the companion deals seeded
racks and enforces must-play, and "real", where the players use the box's
tiles and the companion records only where each tile went (it tracks how
many tiles each rack and the pool hold, not which). Decisions the rulebook
leaves open are in docs/rules/scrabble-junior.md.

This module is the rules and the state: `new_state`, `apply` and the
queries on a state. What the phones see is `view` (with the strategy tip
from `advice`), and `game.GAME` puts them together for the table service.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from companion.games.base import OptionError, RuleError
from companion.games.scrabble_junior.layout import Layout, builtin_layout, builtin_layouts, parse_layout
from companion.games.scrabble_junior.rules import (
    IllegalCoverError,
    can_play_two,
    check_cover,
    legal_turns,
    playable_cells,
    second_tiles,
    words_completed_by,
)

DIGITAL, REAL = "digital", "real"
MIN_PLAYERS, MAX_PLAYERS = 2, 4
RACK_SIZE = 7  # "Draw seven tiles from the pool"
KITTY = 44  # scoring chips in the box
TILES_PER_TURN = 2


class TurnError(RuleError):
    """The turn rules forbid this now (not your turn, must play, no exchange with an empty pool...)."""


@dataclass(frozen=True)
class Setup:
    """What a game is set up with; never changes during the game."""

    players: tuple[str, ...]
    layout: Layout
    tiles: str  # DIGITAL or REAL
    seed: int | str
    kitty: int
    auto_pass: bool
    first_player: int


@dataclass(frozen=True)
class Turn:
    """One finished turn, for the history and the chips-won display."""

    number: int
    player: int
    kind: str  # "play", "exchange" or "pass"
    cells: tuple[int, ...] = ()  # covered, in order
    words: tuple[int, ...] = ()  # completed, in order
    drew: int = 0
    exchanged: int = 0
    auto: bool = False  # a pass the companion made for a player who could do nothing else


@dataclass(frozen=True)
class State:
    """A position: the board, racks, pool, chips, and where the current turn stands.

    With real tiles `racks` and `pool` are None and only the counts are known.
    """

    setup: Setup
    covered: frozenset[int]
    placements: tuple[tuple[int, int, int], ...]  # (cell, player, turn number), in play order
    completed_by: tuple[int | None, ...]  # word -> player who completed it
    chips: tuple[int, ...]
    racks: tuple[tuple[str, ...], ...] | None  # sorted letters, digital only
    rack_counts: tuple[int, ...]
    pool: tuple[str, ...] | None  # in draw order, digital only
    pool_count: int
    player: int  # whose turn it is
    this_turn: tuple[int, ...]  # cells covered so far this turn
    this_turn_words: tuple[int, ...]  # words completed so far this turn
    history: tuple[Turn, ...]

    @property
    def turn_number(self) -> int:
        """1 for the first turn of the game, counting exchanges and passes."""
        return len(self.history) + 1

    @property
    def finished(self) -> bool:
        return len(self.covered) == self.setup.layout.size

    @property
    def kitty(self) -> int:
        """Chips left in the kitty."""
        return self.setup.kitty - sum(self.chips)

    def rack(self, player: int) -> tuple[str, ...] | None:
        """The letters on `player`'s rack, or None with real tiles."""
        return None if self.racks is None else self.racks[player]


# --- set-up ---------------------------------------------------------------


def default_options() -> dict[str, Any]:
    """Every option with its default value."""
    return {
        "tiles": DIGITAL,  # or REAL: the box's tiles, the companion records placements only
        "seed": 0,  # the deal and exchanges come from this; the service should pick a fresh one
        "layout": "standard",  # a layout shipped in boards/
        "layout_text": "",  # or a whole layout in the text format, used instead when given
        "kitty": KITTY,
        "auto_pass": True,  # pass for a player who can only pass
        "first_player": 0,
    }


def option_choices() -> dict[str, list[str]]:
    """Options with a fixed set of values (the home page shows them as menus)."""
    return {"tiles": [DIGITAL, REAL], "layout": builtin_layouts()}


def new_state(players: list[str], options: dict[str, Any]) -> State:
    """The dealt game. Raises OptionError (LayoutError for a bad layout_text)."""
    return _deal(_read_options(players, options))


def _rng(setup: Setup, purpose: str) -> random.Random:
    # String seeds are hashed with SHA-512 by random.Random, so the stream is
    # the same on every machine and Python run: replay gives the same deal.
    return random.Random(f"scrabble-junior/{setup.seed}/{purpose}")


def _read_options(players: list[str], options: dict[str, Any]) -> Setup:
    if not isinstance(players, (list, tuple)) or not all(
        isinstance(p, str) and p.strip() for p in players
    ):
        raise OptionError("players must be a list of names")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise OptionError(f"Scrabble Junior needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    merged = {**default_options(), **(options or {})}
    tiles = merged["tiles"]
    if tiles not in (DIGITAL, REAL):
        raise OptionError(f"option tiles must be {DIGITAL!r} or {REAL!r}, not {tiles!r}")
    seed = merged["seed"]
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise OptionError(f"option seed must be a whole number or a string, not {seed!r}")
    if merged["layout_text"]:
        if not isinstance(merged["layout_text"], str):
            raise OptionError("option layout_text must be the text of a board layout")
        layout = parse_layout(merged["layout_text"], name="layout_text")
    else:
        if not isinstance(merged["layout"], str):
            raise OptionError(f"option layout must be a layout name, not {merged['layout']!r}")
        layout = builtin_layout(merged["layout"])
    kitty = merged["kitty"]
    if isinstance(kitty, bool) or not isinstance(kitty, int) or kitty < len(layout.words):
        raise OptionError(
            f"option kitty must be a whole number of chips, at least one per word "
            f"({len(layout.words)}), not {kitty!r}"
        )
    if not isinstance(merged["auto_pass"], bool):
        raise OptionError(f"option auto_pass must be true or false, not {merged['auto_pass']!r}")
    first = merged["first_player"]
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(players):
        raise OptionError(
            f"option first_player must be a player number from 0 to {len(players) - 1}, not {first!r}"
        )
    return Setup(
        players=tuple(p.strip() for p in players),
        layout=layout,
        tiles=tiles,
        seed=seed,
        kitty=kitty,
        auto_pass=merged["auto_pass"],
        first_player=first,
    )


def _deal(setup: Setup) -> State:
    layout = setup.layout
    count = len(setup.players)
    rack_counts = []
    left = layout.size
    for _ in range(count):
        rack_counts.append(min(RACK_SIZE, left))
        left -= rack_counts[-1]
    racks = pool = None
    if setup.tiles == DIGITAL:
        bag = sorted(layout.letters)
        _rng(setup, "deal").shuffle(bag)
        racks, at = [], 0
        for n in rack_counts:
            racks.append(tuple(sorted(bag[at : at + n])))
            at += n
        racks, pool = tuple(racks), tuple(bag[at:])
    state = State(
        setup=setup,
        covered=frozenset(),
        placements=(),
        completed_by=(None,) * len(layout.words),
        chips=(0,) * count,
        racks=racks,
        rack_counts=tuple(rack_counts),
        pool=pool,
        pool_count=left,
        player=setup.first_player,
        this_turn=(),
        this_turn_words=(),
        history=(),
    )
    return _skip_forced_passes(state)


# --- turn rules -----------------------------------------------------------


def legal_cells(state: State) -> list[int]:
    """Cells the player to move may cover with their next tile, applying must-play-two.

    With digital tiles, a first tile that would leave no second tile playable
    is left out when some pair of tiles could be played. With real tiles the
    rack is unknown, so this is every coverable cell (if the rack is not empty).
    """
    if state.finished or state.rack_counts[state.player] == 0:
        return []
    layout = state.setup.layout
    rack = state.rack(state.player)
    if rack is None or state.this_turn:
        return playable_cells(layout, state.covered, rack)
    return sorted({turn[0] for turn in legal_turns(layout, state.covered, rack)})


def must(state: State) -> str | None:
    """What the rules require of the player to move, with digital tiles.

    "play-two", "play-one", "exchange" or "pass"; None with real tiles (the
    racks are unknown) and once the game is over.
    """
    if state.finished or state.racks is None:
        return None
    layout = state.setup.layout
    rack = state.racks[state.player]
    if state.this_turn:
        return "play-one"
    if can_play_two(layout, state.covered, rack):
        return "play-two"
    if playable_cells(layout, state.covered, rack):
        return "play-one"
    return "exchange" if state.pool_count else "pass"


def _must_pass(state: State, player: int) -> bool:
    if state.pool_count:
        return False
    rack = state.rack(player)
    if rack is None:
        return state.rack_counts[player] == 0
    return not playable_cells(state.setup.layout, state.covered, rack)


def _skip_forced_passes(state: State) -> State:
    """With auto_pass, pass for each player who can only pass, in turn order."""
    if not state.setup.auto_pass:
        return state
    for _ in range(len(state.setup.players)):
        if state.finished or not _must_pass(state, state.player):
            return state
        record = Turn(state.turn_number, state.player, "pass", auto=True)
        state = _next_player(replace(state, history=state.history + (record,)))
    # Some player always holds a tile for a coverable square while squares are
    # open (the tiles are the board's letters), so a whole round of passes
    # cannot happen; reaching here means the state was built wrongly.
    raise AssertionError("every player had to pass: the tiles and the board disagree")


def _next_player(state: State) -> State:
    return replace(state, player=(state.player + 1) % len(state.setup.players))


def _draw(state: State, player: int, wanted: int) -> tuple[State, int]:
    """`player` draws up to `wanted` tiles from the front of the pool."""
    n = min(wanted, state.pool_count)
    counts = list(state.rack_counts)
    counts[player] += n
    state = replace(state, rack_counts=tuple(counts), pool_count=state.pool_count - n)
    if state.racks is not None:
        racks = list(state.racks)
        racks[player] = tuple(sorted(racks[player] + state.pool[:n]))
        state = replace(state, racks=tuple(racks), pool=state.pool[n:])
    return state, n


def _end_turn(state: State, kind: str, exchanged: int = 0) -> State:
    """Close the current turn: draw as many tiles as were played, record it, pass play to the left."""
    player = state.player
    state, drew = _draw(state, player, len(state.this_turn))
    record = Turn(
        number=state.turn_number,
        player=player,
        kind=kind,
        cells=state.this_turn,
        words=state.this_turn_words,
        drew=drew,
        exchanged=exchanged,
    )
    state = replace(state, history=state.history + (record,), this_turn=(), this_turn_words=())
    if state.finished:
        return state
    return _skip_forced_passes(_next_player(state))


def player_name(state: State, player: int) -> str:
    """The name of `player`."""
    return state.setup.players[player]


def _first_playable(state: State) -> str:
    layout = state.setup.layout
    cell = playable_cells(layout, state.covered, state.rack(state.player))[0]
    return f"you can play your {layout.letters[cell]} on {layout.name_of(cell)}, so you must play"


def _cover(state: State, event: dict[str, Any]) -> State:
    layout = state.setup.layout
    player = state.player
    name = event.get("cell")
    try:
        cell = layout.cell_at(name)
    except ValueError as exc:
        raise IllegalCoverError(str(exc)) from None
    letter = layout.letters[cell]
    claimed = event.get("letter")
    if claimed is not None and (not isinstance(claimed, str) or claimed.upper() != letter):
        raise IllegalCoverError(f"the square {name} is {letter}, not {claimed!r}")
    if state.rack_counts[player] == 0:
        raise TurnError(f"{player_name(state, player)} has no tiles left")
    check_cover(layout, state.covered, cell)
    rack = state.rack(player)
    if rack is not None:
        if letter not in rack:
            raise IllegalCoverError(f"{player_name(state, player)} has no {letter} tile")
        if (
            not state.this_turn
            and not second_tiles(layout, state.covered, rack, cell)
            and can_play_two(layout, state.covered, rack)
        ):
            raise TurnError(
                f"you can play two tiles this turn, but after the {letter} on {name} you "
                f"could not play a second one: cover another letter first"
            )
    words = words_completed_by(layout, state.covered, cell)
    completed_by = list(state.completed_by)
    for w in words:
        completed_by[w] = player
    chips = list(state.chips)
    chips[player] += len(words)
    counts = list(state.rack_counts)
    counts[player] -= 1
    state = replace(
        state,
        covered=state.covered | {cell},
        placements=state.placements + ((cell, player, state.turn_number),),
        completed_by=tuple(completed_by),
        chips=tuple(chips),
        rack_counts=tuple(counts),
        this_turn=state.this_turn + (cell,),
        this_turn_words=state.this_turn_words + words,
    )
    if rack is not None:
        left = Counter(rack)
        left[letter] -= 1
        racks = list(state.racks)
        racks[player] = tuple(sorted(left.elements()))
        state = replace(state, racks=tuple(racks))
    if (
        state.finished
        or len(state.this_turn) == TILES_PER_TURN
        or state.rack_counts[player] == 0
        # Digital tiles: "If you can play only one tile, draw one tile from
        # the pool afterwards" -- the companion knows, so the turn ends here.
        or (rack is not None and not playable_cells(layout, state.covered, state.racks[player]))
    ):
        return _end_turn(state, "play")
    return state


def _end_turn_event(state: State, event: dict[str, Any]) -> State:
    if state.racks is not None:
        raise TurnError(
            "with digital tiles the companion ends your turn itself; you can still cover "
            + " or ".join(state.setup.layout.name_of(c) for c in legal_cells(state))
        )
    if not state.this_turn:
        raise TurnError(
            "cover a letter first; if you can play no tile, exchange two tiles "
            "(or pass when the pool is empty)"
        )
    return _end_turn(state, "play")


def _mid_turn_error(state: State) -> TurnError:
    ending = " or end the turn" if state.racks is None else ""
    return TurnError(f"you have already covered a letter this turn: cover a second one{ending}")


def _exchange(state: State, event: dict[str, Any]) -> State:
    player = state.player
    if state.this_turn:
        raise _mid_turn_error(state)
    if state.pool_count == 0:
        raise TurnError("the pool is empty, so there is nothing to exchange with: pass instead")
    n = min(TILES_PER_TURN, state.rack_counts[player], state.pool_count)
    if n == 0:
        raise TurnError(f"{player_name(state, player)} has no tiles to exchange")
    if state.racks is None:
        # Real tiles: the companion only counts; the rack and pool sizes do not change.
        return _end_turn(state, "exchange", exchanged=n)
    layout = state.setup.layout
    rack = state.racks[player]
    if playable_cells(layout, state.covered, rack):
        raise TurnError(_first_playable(state))
    tiles = event.get("tiles")
    if not isinstance(tiles, list) or len(tiles) != n or not all(isinstance(t, str) for t in tiles):
        plural = "s" if n > 1 else ""
        raise TurnError(f'name the {n} tile{plural} you give back, like "tiles": ["Q", "X"]')
    given = Counter(t.upper() for t in tiles)
    if given - Counter(rack):
        named = " and ".join(sorted(given.elements()))
        raise TurnError(f"{player_name(state, player)} does not hold {named}")
    # Draw first, then put the given tiles back and mix the pool, so the
    # player never draws back the very tiles they gave up.
    drawn = state.pool[:n]
    pool = list(state.pool[n:]) + sorted(given.elements())
    _rng(state.setup, f"exchange/{state.turn_number}").shuffle(pool)
    racks = list(state.racks)
    racks[player] = tuple(sorted((Counter(rack) - given + Counter(drawn)).elements()))
    state = replace(state, racks=tuple(racks), pool=tuple(pool))
    return _end_turn(state, "exchange", exchanged=n)


def _pass(state: State, event: dict[str, Any]) -> State:
    if state.this_turn:
        raise _mid_turn_error(state)
    if state.pool_count:
        raise TurnError(
            f"there are {state.pool_count} tiles in the pool: if you cannot play, exchange two tiles"
        )
    rack = state.rack(state.player)
    if rack is not None and playable_cells(state.setup.layout, state.covered, rack):
        raise TurnError(_first_playable(state))
    return _end_turn(state, "pass")


_HANDLERS = {"cover": _cover, "end-turn": _end_turn_event, "exchange": _exchange, "pass": _pass}


def apply(state: State, event: dict[str, Any]) -> State:
    """The state after `event`. Raises RuleError (IllegalCoverError, TurnError) naming the rule."""
    if not isinstance(event, dict):
        raise RuleError("an event must be an object with a type")
    kind = event.get("type")
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise RuleError(f"unknown event type {kind!r}; known: {', '.join(_HANDLERS)}")
    if state.finished:
        raise TurnError(f"the game is over: all {state.setup.layout.size} tiles are on the board")
    player = event.get("player")
    if player != state.player or isinstance(player, bool):
        raise TurnError(f"it is {player_name(state, state.player)}'s turn")
    return handler(state, event)


# --- queries --------------------------------------------------------------


def winners(state: State) -> list[int]:
    """The players with the most chips (more than one on a tie); empty until the game ends."""
    if not state.finished:
        return []
    best = max(state.chips)
    return [p for p, c in enumerate(state.chips) if c == best]


def actions(state: State) -> list[dict[str, Any]]:
    """The events allowed now; "cover" lists its legal squares under "cells"."""
    if state.finished:
        return []
    p = state.player
    found: list[dict[str, Any]] = []
    cells = legal_cells(state)
    if cells:
        names = [state.setup.layout.name_of(c) for c in cells]
        found.append({"type": "cover", "player": p, "cells": names})
    exchange = min(TILES_PER_TURN, state.rack_counts[p], state.pool_count)
    if state.racks is None:
        # Real tiles: the rack is unknown, so every turn option the counts allow is offered.
        if state.this_turn:
            found.append({"type": "end-turn", "player": p})
        elif exchange:
            found.append({"type": "exchange", "player": p, "count": exchange})
        elif not state.pool_count:
            found.append({"type": "pass", "player": p})
    elif not cells:
        if exchange:
            found.append({"type": "exchange", "player": p, "count": exchange})
        else:
            found.append({"type": "pass", "player": p})
    return found
