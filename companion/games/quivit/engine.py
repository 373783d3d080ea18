"""Quivit's rounds, turns, links and scoring, as a pure event fold.

`apply(state, event)` returns the state after one event or raises a
RuleError saying why the rulebook forbids it. This module is the rules and
the state; the best-rotation hint is `hints`, what the phones see is `view`,
and `game.GAME` (id "quivit") puts them together for the table service.
Two ways to play:

* digital (option mode "digital"): the engine deals a virtual deck shuffled
  from options["seed"], flips every new card to a seeded orientation, and the
  phones send rotations; the engine finds the links, takes the cards, scores
  them and refreshes the grid.
* scorekeeping (mode "scorekeeping"): the table plays with the real cards and
  the phones record the values of the cards each turn took; the engine adds
  points and cards, and tracks the draw deck, rounds, turn order, die, blocks
  and the timer.

Events (the API uses the same words; "player" is an index in the players list):

    block {player, card}          play a Color Block card on a card ("c3" or [row, col];
                                  scorekeeping may leave the place out)
    start-turn {player}           the current player: no (more) Color Blocks, go
    roll {player, color?}         Random Color: roll the die; the colour only when a
                                  scorekeeping table rolls the real die
    rotate {player, card, direction}   digital: right, left, or double (180 degrees,
                                  spends the Double Rotate card)
    claim-free-link {player, card, colors?}   digital, Double Rotation: select a card of a free
                                  link; colors: the card's free links to score (all if left out)
    take {player, cards: [values], double_rotate?, free_link?}   scorekeeping: the
                                  values of the cards the turn took ([] for none)
    timer-expired                 the Timed rule's turn ran out: nothing is taken
    draw {player, value?}         end of game, Double Rotation: draw for an unused card
                                  (the value only in scorekeeping)
    skip-draw {player}            keep the unused card without drawing

Every decision the rulebook leaves open is written in docs/rules/quivit.md.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from companion.games.base import OptionError, RuleError
from companion.games.quivit import grid as g
from companion.games.quivit.cards import (
    COLOR_NAMES,
    COLORS,
    DIRECTIONS,
    GRID_SIZE,
    POINT_CARD_COUNTS,
    POINT_CARDS,
    NotationError,
    SeededStream,
    card_str,
    cell_str,
    parse_cell,
    parse_color,
    parse_direction,
    point_deck,
    shuffled,
)
from companion.games.quivit.options import DEFAULTS, DRAIN_SHORT_GRID, MAX_PLAYERS, MODES, parse_options
from companion.games.quivit.state import Side, State

MIN_PLAYERS = 2
MAX_TAKE = 9  # a rotation reaches at most the 3 x 3 cards around the rotated one


def default_options() -> dict[str, Any]:
    """Every option with its default value."""
    return dict(DEFAULTS)


def option_choices() -> dict[str, list[str]]:
    """Options with a fixed set of values (the home page shows them as menus)."""
    return {"mode": list(MODES), "drain_short_grid": list(DRAIN_SHORT_GRID)}


def new_state(players: list[str], options: dict[str, Any]) -> State:
    """The grid dealt and flipped, the first turn about to start. Raises OptionError."""
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise OptionError("players must be a list of names")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise OptionError(f"Quivit is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    names = [p.strip() for p in players]
    if len({n.casefold() for n in names}) != len(names):
        raise OptionError("two players have the same name")
    opts = parse_options(options, names)
    sides = tuple(
        Side(
            name=opts.team_names[i],
            members=members,
            holds_block=opts.color_blocking,
            holds_double_rotate=opts.double_rotation,
        )
        for i, members in enumerate(opts.teams)
    )
    total = POINT_CARDS * opts.decks
    if opts.digital:
        deck = shuffled(tuple(range(total)), opts.seed, "deck")
        empty = tuple(tuple(None for _ in range(GRID_SIZE)) for _ in range(GRID_SIZE))
        s = State(tuple(names), opts, sides, empty, deck, len(deck), 0)
    else:
        s = State(tuple(names), opts, sides, None, (), total, 0)
    _refresh(s, "deal")
    s.last = "The grid is dealt and flipped"
    _begin_turn(s)
    return s


def apply(state: State, event: dict[str, Any]) -> State:
    """The state after `event`; never changes `state`. Raises RuleError when the rules forbid it."""
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise RuleError("an action needs a type")
    handler = _HANDLERS.get(event["type"])
    if handler is None:
        raise RuleError(f"unknown action {event['type']!r} for Quivit")
    if state.phase == "game-over":
        raise RuleError("the game is over")
    s = state.clone()
    handler(s, event)
    return s


def finished(state: State) -> bool:
    return state.phase == "game-over"


def timer_request(state: State) -> tuple[str, float] | None:
    """The Timed rule: one countdown per turn, from after Color Blocking until the rotation."""
    if state.options.timed and state.phase in ("color-die", "turn"):
        return (f"quivit-turn-{state.turn_number}", state.options.timer_seconds)
    return None


# -- queries ------------------------------------------------------------------------------


def may_double_rotate(s: State, side: Side) -> bool:
    """True if `side` may spend its Double Rotate card on a 180 degree rotation."""
    return s.options.double_rotation and side.holds_double_rotate


def may_claim_free_link(s: State, side: Side) -> bool:
    """True if `side` may claim a free link instead of rotating: "if the current player holds a Double Rotate card"."""
    return s.options.double_rotation and side.holds_double_rotate


def may_block(s: State, index: int) -> bool:
    """True if side `index` may play its Color Block card now, or would in the window before a turn.

    "Free Links can be blocked by other players": not the side whose turn it
    is, unless option current_player_may_block.
    """
    return s.sides[index].holds_block and (s.options.current_player_may_block or index != s.current_side)


def tie_break_cards(state: State, index: int) -> int:
    """The cards side `index` counts for the tie breaker: those taken, and with option
    final_draw_counts_as_card the card drawn at the end for an unused Double Rotate card."""
    side = state.sides[index]
    drew = side.final_draw is not None and state.options.final_draw_counts_as_card
    return side.cards + (1 if drew else 0)


def standings(state: State) -> list[int]:
    """Side indices, best first: highest score, then most cards (the rulebook's tie breaker)."""
    return sorted(range(len(state.sides)), key=lambda i: (-state.sides[i].score, -tie_break_cards(state, i), i))


def takeable_count(s: State) -> int:
    """Cards in the grid that a turn could still take (not under a Color Block)."""
    return s.grid_count - s.blocked_count


# -- turn flow ----------------------------------------------------------------------------


def _card(decks: int, index: int):
    return _deck_cards(decks)[index]


@lru_cache(maxsize=None)
def _deck_cards(decks: int) -> tuple:
    return point_deck(decks)  # immutable, so one copy serves every table


def _refresh(s: State, label: str) -> bool:
    """Fill the empty places from the draw deck, face down, then flip them. True if some stayed empty."""
    empty_places = GRID_SIZE * GRID_SIZE - s.grid_count
    if s.grid is None:
        drawn = min(empty_places, s.deck_count)
        s.deck_count -= drawn
        s.grid_count += drawn
        return drawn < empty_places
    flips = SeededStream(s.options.seed, f"flip|{label}")
    rows = [list(row) for row in s.grid]
    deck = list(s.deck)
    refilled = []
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            if rows[r][c] is None and deck:
                index = deck.pop(0)
                # A card flipped over lands in any of four orientations: the
                # rulebook lets it be flipped either way and never reoriented.
                rows[r][c] = g.Placed(_card(s.options.decks, index), flips.below(4), index)
                refilled.append((r, c))
    s.grid = tuple(tuple(row) for row in rows)
    s.deck = tuple(deck)
    s.deck_count = len(deck)
    s.grid_count += len(refilled)
    s.refilled = frozenset(refilled)
    return any(p is None for row in rows for p in row)


def _nothing_to_rotate(s: State) -> bool:
    return takeable_count(s) <= 0 or (s.grid is not None and not g.rotatable(s.grid, s.blocked))


def _begin_turn(s: State) -> None:
    s.turn_number += 1
    s.die = None
    if s.options.color_blocking and _anyone_may_block(s) and not _nothing_to_rotate(s):
        s.phase = "color-blocking"
    else:
        _after_blocking(s)


def _anyone_may_block(s: State) -> bool:
    return any(may_block(s, i) for i in range(len(s.sides)))


def _after_blocking(s: State) -> None:
    if _nothing_to_rotate(s):
        _finish(s, "no card is left in the grid to rotate")
        return
    s.phase = "color-die" if s.options.random_color else "turn"


def _end_turn(s: State, record: dict[str, Any], values: list[int]) -> None:
    """Score what the turn took, refresh the grid, and move on to the next turn, round or the end."""
    index = s.current_side
    assert index is not None
    side = s.sides[index]
    counted_later = s.extra_round
    if counted_later:
        s.with_side(index, pending=side.pending + tuple(values), turns=side.turns + 1)
    else:
        s.with_side(index, scored=side.scored + tuple(values), turns=side.turns + 1)
    for v in values:
        s.taken_values[v] = s.taken_values.get(v, 0) + 1
    s.grid_count -= len(values)
    short = _refresh(s, f"turn-{s.turn_number}")
    record.update(
        turn=s.turn_number,
        round=s.round,
        side=index,
        points=sum(values),
        values=list(values),
        counted_later=counted_later,
        refilled=[cell_str(c) for c in sorted(s.refilled)] if s.grid is not None else [],
        deck_after=s.deck_count,
    )
    s.history = s.history + (record,)
    said = s.last
    s.turn_in_round += 1
    if s.turn_in_round == len(s.sides):
        _end_round(s)
    elif short and s.extra_round and s.options.drain_short_grid == "end":
        _finish(s, "the draw deck could not refill the grid, so the game ends; this round's cards do not count")
    if s.phase not in ("final-draw", "game-over"):
        _begin_turn(s)
    if s.phase in ("final-draw", "game-over"):
        s.last = f"{said}. {s.last}"  # the last turn's news, then the end


def _end_round(s: State) -> None:
    s.sides = tuple(replace(side, scored=side.scored + side.pending, pending=()) for side in s.sides)
    s.round += 1
    s.turn_in_round = 0
    if s.round > s.options.rounds:
        played = s.round - 1
        rounds = f"{played} round{'s' if played != 1 else ''} played"
        if not s.options.drain_the_deck:
            _finish(s, rounds)
        elif s.deck_count <= s.options.drain_threshold:
            _finish(
                s, f"{rounds} and the draw deck holds {s.deck_count} cards ({s.options.drain_threshold} or fewer)"
            )


def _finish(s: State, reason: str) -> None:
    discarded = sum(len(side.pending) for side in s.sides)
    if discarded:
        s.uncounted = discarded
        s.uncounted_points = sum(sum(side.pending) for side in s.sides)
        s.sides = tuple(replace(side, pending=()) for side in s.sides)
    s.end_reason = reason
    s.die = None
    if s.options.double_rotation and s.deck_count > 0 and any(side.holds_double_rotate for side in s.sides):
        s.phase = "final-draw"
        s.last = f"Game over: {reason}. Unused Double Rotate cards may draw a card"
    else:
        _game_over(s)


def _game_over(s: State) -> None:
    s.phase = "game-over"
    order = standings(s)
    best = (s.sides[order[0]].score, tie_break_cards(s, order[0]))
    s.winners = tuple(i for i in order if (s.sides[i].score, tie_break_cards(s, i)) == best)
    names = " and ".join(s.sides[i].name for i in s.winners)
    verb = "win" if len(s.winners) > 1 else "wins"
    s.last = f"Game over: {s.end_reason}. {names} {verb} with {best[0]} points"


# -- events -------------------------------------------------------------------------------


def _player(s: State, ev: dict) -> int:
    if "player" not in ev:
        raise RuleError(f"'{ev['type']}' needs a player")
    p = ev["player"]
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < len(s.players):
        raise RuleError(f"there is no player {p!r} at this table")
    return p


def _turn_player(s: State, ev: dict, phase: str, what: str) -> int:
    """The player sending `ev`, who must be the one whose turn it is, in `phase`."""
    if s.phase != phase:
        raise RuleError(f"{what} {_PHASE_WHY[s.phase]}")
    p = _player(s, ev)
    current = s.current_player
    if p != current:
        side = s.sides[s.current_side]  # type: ignore[index]
        if len(side.members) > 1:
            raise RuleError(f"it is {s.players[current]}'s turn to rotate for {side.name}")  # type: ignore[index]
        raise RuleError(f"it is {s.players[current]}'s turn")  # type: ignore[index]
    return p


_PHASE_WHY = {
    "color-blocking": "has to wait: Color Block cards are being played (the current player starts the turn)",
    "color-die": "has to wait: roll the color die first",
    "turn": "is not possible now: the turn has started",
    "final-draw": "is not possible: the game is over and unused Double Rotate cards may draw",
    "game-over": "is not possible: the game is over",
}


def _cell(s: State, ev: dict, required: bool = True) -> tuple[int, int] | None:
    if ev.get("card") is None:
        if required:
            raise RuleError(f"'{ev['type']}' needs a card: its place in the grid, like c3")
        return None
    try:
        return parse_cell(ev["card"])
    except NotationError as exc:
        raise RuleError(str(exc)) from None


def _block(s: State, ev: dict) -> None:
    if not s.options.color_blocking:
        raise RuleError("this table does not play the Color Blocking rule")
    if s.phase != "color-blocking":
        raise RuleError("Color Block cards are played after the grid is refreshed, before the turn starts")
    p = _player(s, ev)
    index = s.side_of(p)
    side = s.sides[index]
    if not side.holds_block:
        raise RuleError(f"{side.name} has already played the Color Block card (one per game)")
    if not may_block(s, index):
        raise RuleError(
            f"Color Block cards are played by the other players before {s.players[s.current_player]}'s turn"  # type: ignore[index]
            " (the table's options do not let the current player block)"
        )
    cell = _cell(s, ev, required=s.grid is not None)
    if cell is not None:
        if cell in s.blocked:
            raise RuleError(f"the card at {cell_str(cell)} is already blocked")
        if s.grid is not None and s.grid[cell[0]][cell[1]] is None:
            raise RuleError(f"there is no card at {cell_str(cell)} to block")
    if takeable_count(s) <= 0:
        raise RuleError("there is no card left to block")
    if cell is not None:
        s.blocked = s.blocked | {cell}
    s.blocked_count += 1
    s.with_side(index, holds_block=False)
    where = f" on {cell_str(cell)}" if cell is not None else ""
    s.last = f"{s.players[p]} blocks the card{where} for the rest of the game"
    if not _anyone_may_block(s):
        _after_blocking(s)  # nobody can block any more: the turn starts


def _start_turn(s: State, ev: dict) -> None:
    _turn_player(s, ev, "color-blocking", "Starting the turn")
    _after_blocking(s)
    s.last = f"{s.players[s.current_player]}'s turn" if s.current_player is not None else s.last


def _roll(s: State, ev: dict) -> None:
    p = _turn_player(s, ev, "color-die", "Rolling the color die")
    color = ev.get("color")
    if color is not None:
        if s.options.digital:
            raise RuleError("in a digital game the service rolls the color die")
        try:
            color = parse_color(color)
        except NotationError:
            raise RuleError(f"the color die shows red, green, blue or yellow, not {ev['color']!r}") from None
    else:
        # Eight faces, two of each colour.
        face = SeededStream(s.options.seed, f"die|{s.turn_number}").below(8)
        color = COLORS[face // 2]
    s.die = color
    s.phase = "turn"
    s.last = f"{s.players[p]} rolls {COLOR_NAMES[color]}: only {COLOR_NAMES[color]} links score this turn"


def _rotate(s: State, ev: dict) -> None:
    if s.grid is None:
        raise RuleError("this table keeps score for the real cards: record the cards the turn took")
    p = _turn_player(s, ev, "turn", "Rotating a card")
    cell = _cell(s, ev)
    assert cell is not None
    try:
        direction = parse_direction(ev.get("direction"))
    except NotationError as exc:
        raise RuleError(str(exc)) from None
    _rotatable(s, cell)
    index = s.current_side
    side = s.sides[index]  # type: ignore[index]
    if direction == "double":
        if not s.options.double_rotation:
            raise RuleError("this table does not play the Double Rotation rule")
        if not side.holds_double_rotate:
            raise RuleError(f"{side.name} has already used the Double Rotate card")
        s.with_side(index, holds_double_rotate=False)  # type: ignore[arg-type]
    after = g.rotated(s.grid, cell, DIRECTIONS[direction])
    take = g.take_from(after, s.blocked, cell, s.die)
    record = {
        "player": p,
        "action": "rotate",
        "card": cell_str(cell),
        "direction": direction,
        "die": s.die,
        "double_rotate": direction == "double",
    }
    _take_cells(s, after, take, record, f"{s.players[p]} rotates {cell_str(cell)} {_DIRECTION_WORDS[direction]}")


_DIRECTION_WORDS = {"right": "right", "left": "left", "double": "twice (Double Rotate)"}


def _rotatable(s: State, cell: tuple[int, int]) -> None:
    if s.grid[cell[0]][cell[1]] is None:  # type: ignore[index]
        raise RuleError(f"there is no card at {cell_str(cell)}")
    if cell in s.blocked:
        raise RuleError(f"the card at {cell_str(cell)} is under a Color Block for the rest of the game")


def _claim_free_link(s: State, ev: dict) -> None:
    if s.grid is None:
        raise RuleError("this table keeps score for the real cards: record the cards the turn took")
    p = _turn_player(s, ev, "turn", "Claiming a free link")
    if not s.options.double_rotation:
        raise RuleError("free links are only claimed with the Double Rotation rule")
    index = s.current_side
    side = s.sides[index]  # type: ignore[index]
    if not side.holds_double_rotate:
        raise RuleError(f"{side.name} holds no Double Rotate card, so cannot claim a free link")
    cell = _cell(s, ev)
    assert cell is not None
    _rotatable(s, cell)
    if cell not in g.free_link_cells(s.grid, s.blocked, s.die):
        if s.die is not None and cell in g.free_link_cells(s.grid, s.blocked):
            raise RuleError(f"the free link at {cell_str(cell)} is not {COLOR_NAMES[s.die]}, the color rolled")
        raise RuleError(f"the card at {cell_str(cell)} is not in a free link (four squares of one colour)")
    links = _claimed_links(s, ev, cell)
    if s.options.free_link_spends_double_rotate:
        s.with_side(index, holds_double_rotate=False)  # type: ignore[arg-type]
    take = g.claim_take(s.grid, s.blocked, cell, s.die, links)
    record = {
        "player": p,
        "action": "free-link",
        "card": cell_str(cell),
        "direction": None,
        "die": s.die,
        "double_rotate": s.options.free_link_spends_double_rotate,
    }
    which = "the free link" if links is None else " and ".join(COLOR_NAMES[c] for c in links) + " free link"
    if links is not None and len(links) > 1:
        which = f"the {which}s"
    elif links is not None:
        which = f"the {which}"
    _take_cells(s, s.grid, take, record, f"{s.players[p]} claims {which} at {cell_str(cell)}")


def _claimed_links(s: State, ev: dict, cell: tuple[int, int]) -> tuple[str, ...] | None:
    """The colours of the free links through `cell` the claim scores (None: all), from the event's `colors`.

    "The player may score all Free Links that the selected card is involved
    with": unless option free_link_takes_all, the player may name some of them.
    """
    chosen = ev.get("colors")
    if chosen is None:
        return None
    if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
        raise RuleError("'colors' is a list of colours naming the free links to score, like [\"green\"]")
    letters = []
    for color in chosen:
        try:
            letters.append(parse_color(color))
        except NotationError:
            raise RuleError(f"a free link is red, green, blue or yellow, not {color!r}") from None
    if not letters:
        raise RuleError("name at least one free link to score, or leave 'colors' out to score them all")
    available = g.free_link_colors(s.grid, s.blocked, cell, s.die)  # type: ignore[arg-type]
    for letter in letters:
        if letter not in available:
            raise RuleError(f"there is no {COLOR_NAMES[letter]} free link through {cell_str(cell)}")
    links = tuple(c for c in available if c in letters)
    if s.options.free_link_takes_all and links != available:
        raise RuleError("this table's claim takes every free link through the card (option free_link_takes_all)")
    return links


def _take_cells(s: State, grid: g.Grid, take: g.Take, record: dict, said: str) -> None:
    cells = sorted(take.cells)
    record["cards"] = [
        {
            "cell": cell_str(c),
            "card": card_str(grid[c[0]][c[1]].card),  # type: ignore[union-attr]
            "value": grid[c[0]][c[1]].value,  # type: ignore[union-attr]
            "id": grid[c[0]][c[1]].serial,  # type: ignore[union-attr]
        }
        for c in cells
    ]
    record["colors"] = list(take.colors)
    values = [grid[r][c].value for r, c in cells]  # type: ignore[union-attr]
    s.grid = g.without(grid, cells)
    if cells:
        s.last = f"{said} and takes {len(cells)} cards for {sum(values)} points"
    else:
        s.last = f"{said}: no links"
    _end_turn(s, record, values)


def _take(s: State, ev: dict) -> None:
    if s.grid is not None:
        raise RuleError("in a digital game rotate a card; the engine finds the links")
    p = _turn_player(s, ev, "turn", "Taking cards")
    cards = ev.get("cards", [])
    if not isinstance(cards, list) or any(isinstance(v, bool) or v not in POINT_CARD_COUNTS for v in cards):
        raise RuleError("'take' needs cards: the value of each card taken (1, 2, 3 or -1), like [2, 1, 3]")
    if len(cards) == 1:
        raise RuleError("a link joins two cards, so a turn takes no cards or two or more")
    if len(cards) > MAX_TAKE:
        raise RuleError(f"one rotation reaches at most the {MAX_TAKE} cards around and including it")
    if len(cards) > takeable_count(s):
        raise RuleError(f"only {takeable_count(s)} cards in the grid can be taken")
    for value in set(cards):
        out = s.taken_values.get(value, 0) + cards.count(value)
        if out > POINT_CARD_COUNTS[value] * s.options.decks:
            raise RuleError(
                f"the deck has only {POINT_CARD_COUNTS[value] * s.options.decks} cards worth {value}, "
                f"and {s.taken_values.get(value, 0)} are already taken"
            )
    double = ev.get("double_rotate", False)
    free = ev.get("free_link", False)
    if not isinstance(double, bool) or not isinstance(free, bool):
        raise RuleError("double_rotate and free_link are true or false")
    index = s.current_side
    side = s.sides[index]  # type: ignore[index]
    if double or free:
        if double and free:
            raise RuleError("a free link is claimed instead of rotating: not both in one turn")
        if not s.options.double_rotation:
            raise RuleError("this table does not play the Double Rotation rule")
        if not side.holds_double_rotate:
            raise RuleError(f"{side.name} has already used the Double Rotate card")
        if free and len(cards) < 4:
            raise RuleError("a free link is four cards around a corner, so claiming one takes at least four")
        if double or s.options.free_link_spends_double_rotate:
            s.with_side(index, holds_double_rotate=False)  # type: ignore[arg-type]
    record = {
        "player": p,
        "action": "free-link" if free else "take",
        "card": None,
        "direction": "double" if double else None,
        "die": s.die,
        "double_rotate": double or (free and s.options.free_link_spends_double_rotate),
        "cards": [{"cell": None, "card": None, "value": v, "id": None} for v in cards],
        "colors": [],
    }
    points = sum(cards)
    s.last = f"{s.players[p]} takes {len(cards)} cards for {points} points" if cards else f"{s.players[p]} takes nothing"
    _end_turn(s, record, list(cards))


def _timer_expired(s: State, ev: dict) -> None:
    if not s.options.timed or s.phase not in ("color-die", "turn"):
        raise RuleError("no turn timer is running")
    p = s.current_player
    record = {
        "player": p,
        "action": "timeout",
        "card": None,
        "direction": None,
        "die": s.die,
        "double_rotate": False,
        "cards": [],
        "colors": [],
    }
    s.last = f"Time! {s.players[p]}'s turn ends with nothing taken"  # type: ignore[index]
    _end_turn(s, record, [])


def _final_draw_side(s: State, ev: dict) -> tuple[int, int]:
    if s.phase != "final-draw":
        raise RuleError("a card is drawn for an unused Double Rotate card only at the end of the game")
    p = _player(s, ev)
    index = s.side_of(p)
    side = s.sides[index]
    if not side.holds_double_rotate:
        raise RuleError(f"{side.name} used the Double Rotate card, so draws nothing")
    if side.draw_decided:
        raise RuleError(f"{side.name} has already decided about the draw")
    return p, index


def _draw(s: State, ev: dict) -> None:
    p, index = _final_draw_side(s, ev)
    card: dict[str, Any] = {"cell": None, "card": None, "id": None}
    if s.grid is not None:
        if ev.get("value") is not None:
            raise RuleError("in a digital game the card is drawn from the virtual deck")
        top, s.deck = s.deck[0], s.deck[1:]
        value = _card(s.options.decks, top).value
        card.update(card=card_str(_card(s.options.decks, top)), id=top)
    else:
        value = ev.get("value")
        if isinstance(value, bool) or value not in POINT_CARD_COUNTS:
            raise RuleError("'draw' needs the value of the card drawn: 1, 2, 3 or -1")
        if s.taken_values.get(value, 0) >= POINT_CARD_COUNTS[value] * s.options.decks:
            raise RuleError(f"every card worth {value} has already been taken")
    s.deck_count -= 1
    s.taken_values[value] = s.taken_values.get(value, 0) + 1
    side = s.sides[index]
    s.with_side(index, final_draw=value, draw_decided=True)  # its points count; as a card only by option
    card["value"] = value
    s.history = s.history + (
        {
            "turn": None,
            "round": None,
            "side": index,
            "player": p,
            "action": "final-draw",
            "card": None,
            "direction": None,
            "die": None,
            "double_rotate": False,
            "cards": [card],
            "colors": [],
            "points": value,
            "values": [value],
            "counted_later": False,
            "refilled": [],
            "deck_after": s.deck_count,
        },
    )
    s.last = f"{side.name} draws a card worth {value} for the unused Double Rotate card"
    _after_final_draw(s)


def _skip_draw(s: State, ev: dict) -> None:
    _p, index = _final_draw_side(s, ev)
    s.with_side(index, draw_decided=True)
    s.last = f"{s.sides[index].name} keeps the Double Rotate card without drawing"
    _after_final_draw(s)


def _after_final_draw(s: State) -> None:
    waiting = [side for side in s.sides if side.holds_double_rotate and not side.draw_decided]
    if not waiting or s.deck_count <= 0:
        said = s.last
        _game_over(s)
        s.last = f"{said}. {s.last}"


_HANDLERS = {
    "block": _block,
    "start-turn": _start_turn,
    "roll": _roll,
    "rotate": _rotate,
    "claim-free-link": _claim_free_link,
    "take": _take,
    "timer-expired": _timer_expired,
    "draw": _draw,
    "skip-draw": _skip_draw,
}
