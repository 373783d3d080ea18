"""The Pivit trade advisor: can this hand be arranged, and if not, which tile to trade?

The rulebook lets a player "trade in up to two tiles" a round: the tile goes
face down back into the mix and a new one is drawn. For a hand this module
says whether it can be arranged into a correct grid (with an arrangement), and
if not ranks every distinct tile of the hand as the tile to trade now, with:

- `p_one`: the exact probability that the hand is playable after this one
  trade. The draw is enumerated over the distinct tiles of the pile, each
  weighted by how many copies of it the pile holds; the pile is the unseen
  tiles plus the tile just returned (drawn straight back, it leaves the same
  hand).
- `p_two`: the probability that the hand is playable within the trades left
  (at most two), the second trade being chosen after seeing the first draw.
  Exact (the best second trade after every first draw, by branch and bound
  over the second trades: `_Advisor.best_second`) when that enumeration is
  small, for the best trades of a larger hand whose first draws rarely
  fail (`_Advisor.exact_two_within`), and always for the trade ranked first;
  otherwise a seeded estimate with its standard error, for the policy
  described in `_SecondTrade`.

The unseen pile defaults to the tile set's 114 tiles minus the hand. From the
player's seat every tile they have not seen is equally likely to be the one
they draw, whether it lies in the centre or in another player's hand, so the
draw is uniform over the unseen tiles. Tiles known to be elsewhere (say, in
other players' grids) are left out by listing the unseen tiles explicitly.

Playability comes from `solver.solve`, used as a black box, with four sound
shortcuts that save most of its calls: a hand with a tile that no line can
hold is impossible; a hand one tile away from a hand already arranged is
repaired from that grid when the repair passes the full check; a hand whose
few tiles with the fewest partners have too few partner copies for their
lines is impossible (`solver.few_tiles_proof`), and so is a hand whose copies
of the unplayable hand's hard tiles no set of lines can place
(`solver.hard_tiles`, asked again with `solver.cells_unplaceable`), or the
hard tiles of the tiles kept by the trade; and the
wild dominates: any grid for `hand - t + d` is a grid for `hand - t + **` with the
wild standing for d, so when the latter is impossible every draw after trading
t is impossible too. For one-trade advice the hands these leave undecided
stay open: every grid found later is offered to them, and the solver takes
them last, with a small budget of work first; a hand that needs more is
first rebuilt from a grid one swap away, its traded tile's lines taken
apart and put back (see `_Judge.decide_open`). A
solver timeout is "unknown": it is counted and treated as not playable, so
every probability is a lower bound. Every verdict is cached on the hand's
tile multiset.
"""
from __future__ import annotations

import gc
import math
import random
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator

from companion.games.pivit_tiles._solver_search import GROUP_MASKS
from companion.games.pivit_tiles.check import check_grid, find_lines, line_fault
from companion.games.pivit_tiles.grid import Grid
from companion.games.pivit_tiles.solver import cells_unplaceable, core_cells, few_tiles_proof, hard_tiles, solve
from companion.games.pivit_tiles.tiles import (
    COPIES,
    DESIGNS,
    WILD,
    WILDS,
    TileSet,
    get_tileset,
    parse_tile,
    tile_name,
)

# Trades the advisor looks ahead: the rulebook's two trade tokens.
MAX_TRADES = 2
# Seconds the solver may spend on the hand itself before it counts as
# "unknown", and on each hand after a trade. The solver (with the few-tiles
# proofs) decides every hand after a trade of the bench's hands in both
# variations in well under the trade limit, even on a busy machine, so that
# limit is only a guard against a pathological hand: the advice is exact.
DEFAULT_TIMEOUT = 2.0
TRADE_TIMEOUT = 10.0
# Samples per candidate tile for an estimated p_two (spread over the first draws).
DEFAULT_SAMPLES = 64
# Largest number of second-trade hands enumerated for an exact p_two.
EXACT_TWO_LIMIT = 4000
# Otherwise p_two is exact for the best trades by p_one while they judge at most
# this many new hands in all (see _Advisor.exact_two_within), estimated for the rest.
EXACT_TWO_HANDS = 300
# ... and only those with at most this many distinct first draws that leave the hand
# unplayable: each such draw asks for the best second trade, tens of hands judged.
EXACT_TWO_FAILS = 4
# The candidate ranked first always gets an exact p_two (see _advice): at most this many
# candidates are worked out for it, when an exact value ranks another estimated one first.
EXACT_BEST_TRIES = 3

# A hand (or a pile) in memory is a tuple of 37 counts: index design*6+colour
# for the 36 distinct tiles, then the wilds. It is its own memo key: the
# sorted multiset of the hand.
W = 36
SLOTS = 37


class AdviceError(ValueError):
    """A hand or an unseen pile that cannot happen with the tile set; the message is for the player."""


@dataclass(frozen=True)
class TradeAdvice:
    """One tile to trade now and how likely it is to make the hand playable.

    `p_two_stderr` is None when `p_two` is exact, else the standard error of
    the estimate.
    """

    trade: str
    p_one: float
    p_two: float
    p_two_stderr: float | None = None

    def to_json(self) -> dict:
        out = {"trade": self.trade, "p_one": self.p_one, "p_two": self.p_two}
        if self.p_two_stderr is not None:
            out["p_two_stderr"] = self.p_two_stderr
        return out


@dataclass(frozen=True)
class Advice:
    """What the advisor found for one hand.

    `grid` is an arrangement when the hand is playable. `advice` is empty for
    a playable hand or when no trades are left, else every distinct tile of
    the hand, best first. `unknown` counts the hands met whose solve timed
    out (each treated as not playable). `hands` counts the distinct hands
    judged, `solver_calls` those the solver had to decide.
    """

    playable: bool
    grid: Grid | None
    advice: list[TradeAdvice]
    trades: int
    p_two_exact: bool
    unknown: int
    hands: int
    solver_calls: int
    elapsed_ms: float
    root_unknown: bool = False
    # One-trade advice's work, for two-trade advice of the same hand to take over
    # (`advise(..., one_trade=this)`); None when there is none to carry on.
    work: "_OneTradeWork | None" = field(default=None, repr=False, compare=False)


def unseen_pile(hand: list[str], tileset: str | TileSet = "classic", unseen: list[str] | None = None) -> Counter:
    """The tiles that may be drawn: the tile set minus the hand, or `unseen` when given.

    `unseen` lists the tiles the player has not seen (not counting the
    hand): the tile set minus the hand minus the tiles known to be elsewhere.
    Raises AdviceError when the hand, or the hand and `unseen` together, hold
    more copies of a tile than a box has; TileError for a tile not in the set.
    """
    ts = get_tileset(tileset)
    held = Counter(parse_tile(t, ts) for t in hand)
    for tile, n in sorted(held.items()):
        if n > ts.max_copies(tile):
            raise AdviceError(
                f"the hand holds {n} copies of {tile} ({tile_name(tile)}); a box has only {ts.max_copies(tile)}"
            )
    box = Counter(ts.full_set())
    if unseen is None:
        box.subtract(held)
        return +box
    listed = Counter(parse_tile(t, ts) for t in unseen)
    for tile, n in sorted(listed.items()):
        if n + held[tile] > box[tile]:
            raise AdviceError(
                f"{n} unseen {tile} ({tile_name(tile)}) and {held[tile]} in the hand: "
                f"a box has only {box[tile]}"
            )
    return listed


def advise(
    hand: list[str],
    tileset: str | TileSet = "classic",
    young: bool = False,
    trades: int = MAX_TRADES,
    unseen: list[str] | None = None,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    trade_timeout: float | None = TRADE_TIMEOUT,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    exact_limit: int = EXACT_TWO_LIMIT,
    exact_hands: int = EXACT_TWO_HANDS,
    exact_best: int = EXACT_BEST_TRIES,
    one_trade: Advice | None = None,
) -> Advice:
    """Whether `hand` can be arranged, and if not, every tile to trade ranked best first.

    `trades` is the trade tokens left (0, 1 or 2): with 1, p_two equals p_one.
    `unseen` is as for `unseen_pile`. `timeout` is the solver's limit in
    seconds for the hand itself (wall clock), `trade_timeout` for each hand
    after a trade (this thread's CPU time; None: no limit). `samples` and
    `seed` drive the p_two
    estimate, used when an exact p_two would enumerate more than
    `exact_limit` hands, except for the best trades by p_one while their exact
    p_two judges at most about `exact_hands` new hands (0: none), and except the
    candidate ranked first, made exact whatever it costs (up to `exact_best`
    times, when the exact value moves another estimated one first). Ranking: p_two (the chance within the trades left)
    to the whole percent, then p_one, then the tile's notation. Deterministic
    for a given seed (barring solver timeouts).

    `one_trade` is this hand's advice with one trade left (same tile set,
    variation and pile), already given: its work (the hand's verdict, every
    draw after a trade judged, every p_one) is taken over instead of being
    done again, and the answer is the one worked out from scratch. The work
    is taken once; a second call with the same `one_trade` starts afresh.
    Raises ValueError when `one_trade` is another hand's advice.

    Raises AdviceError for an
    empty hand, a hand or pile a box cannot hold, or trades outside 0..2;
    TileError for a tile not in the tile set.
    """
    started = time.perf_counter()
    ts = get_tileset(tileset)
    if not hand:
        raise AdviceError("the hand has no tiles")
    if not 0 <= trades <= MAX_TRADES:
        raise AdviceError(f"the advisor looks at 0, 1 or 2 trades, not {trades}")
    pile = unseen_pile(hand, ts, unseen)
    with _collector_paused():
        work = one_trade.work.take(_key(hand, ts), _key(list(pile.elements()), ts), ts, young) \
            if one_trade is not None and one_trade.work is not None else None
        if work is None:
            work = _OneTradeWork.worked_out(hand, ts, young, trades, pile, timeout, trade_timeout)
        else:
            work.judge.timeout = trade_timeout
        return _advice(work, trades, samples, seed, exact_limit, exact_hands, exact_best, started)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the block, back on after it (unless it was off already).

    The advice allocates millions of short-lived lists, tuples and dicts,
    freed by reference counting as it goes; the collector's passes over the
    young ones took about 5 % of a median hand's one-trade advice (its own
    callbacks, 6 bench hands: 0.127 of 2.5 s of CPU) and free only the few
    thousand objects of recursive helper closures (a few MB at most), which
    the first pass after the block collects (about 1 ms). Another thread's
    advice may turn it back on early: that costs time, never a result.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _OneTradeWork:
    """The hand's verdict and one-trade advice's work (`_Advisor.one_trade_all`: every hand a trade
    away judged, every p_one), which two-trade advice goes on from."""

    def __init__(self, judge: _Judge, root: tuple[int, ...], pile: tuple[int, ...], young: bool,
                 playable: bool, work: _Advisor | None, p_one: dict[int, float]) -> None:
        self.judge = judge
        self.root = root
        self.pile = pile
        self.young = young
        self.playable = playable
        self.work = work
        self.p_one = p_one
        self.taken = False

    @classmethod
    def worked_out(cls, hand: list[str], ts: TileSet, young: bool, trades: int, pile: Counter,
                   timeout: float | None, trade_timeout: float | None) -> "_OneTradeWork":
        """The hand judged and, when it is unplayable and `trades` is not 0, every p_one."""
        judge = _Judge(ts, young, timeout)
        root = _key(hand, ts)
        unseen = _key(list(pile.elements()), ts)
        root_playable = judge.playable(root)
        # Every other hand judged is one after a trade. Their guard counts this
        # thread's CPU time: a phone's request or a busy Pi slows the advice down
        # but does not leave a hand undecided (which would make p_one inexact).
        judge.timeout = trade_timeout
        judge.clock = time.thread_time
        if root_playable or not trades:
            return cls(judge, root, unseen, young, root_playable, None, {})
        # Standard rules only: with younger players the few-tiles proofs
        # already decide such hands (the solver runs the core searches), and
        # asking again cost more than it saved.
        core = [] if young else hard_tiles(hand, ts, young)
        if core:
            judge.cores.append(core)
        work = _Advisor(judge, root, unseen, ts)
        return cls(judge, root, unseen, young, False, work, work.one_trade_all())

    def take(self, root: tuple[int, ...], pile: tuple[int, ...], ts: TileSet, young: bool
             ) -> "_OneTradeWork | None":
        """This work for going on with the advice of `root` (None when taken already: it has
        moved on since). Raises ValueError when it is another hand's, pile's or variation's."""
        if (root, pile, ts.colours, young) != (self.root, self.pile, self.judge.ts.colours, self.young):
            raise ValueError("one_trade is the advice of another hand, pile, tile set or variation")
        if self.taken:
            return None
        self.taken = True
        return self


def _advice(
    state: _OneTradeWork,
    trades: int,
    samples: int,
    seed: int,
    exact_limit: int,
    exact_hands: int,
    exact_best: int,
    started: float,
) -> Advice:
    """`advise` once its arguments are checked and one-trade advice is worked out (see there)."""
    judge, root, ts = state.judge, state.root, state.judge.ts
    advice: list[TradeAdvice] = []
    exact = True
    if not state.playable and trades > 0:
        work, p_one = state.work, state.p_one
        assert work is not None
        if trades == 1:
            p_two = {t: (p, None) for t, p in p_one.items()}
        else:
            cost = work.exact_two_cost()
            exact = cost <= exact_limit
            if exact:
                p_two = {t: (work.exact_two(t), None) for t in p_one}
            else:
                p_two = work.exact_two_within(exact_hands)
                second = _SecondTrade(work, samples, seed)
                for t in p_one:
                    if t not in p_two:
                        p_two[t] = second.estimate(t)
                # The candidate shown first gets best play's exact p_two, whatever it costs:
                # the player follows it. An exact value can rank another estimated candidate
                # first (an estimate is a policy's, a lower bound of best play, give or take
                # its error): that one is then worked out too, up to `exact_best` in all.
                for _ in range(exact_best):
                    top = min(p_one, key=lambda t: _rank(p_one[t], p_two[t][0], t))
                    if p_two[top][1] is None:
                        break
                    p_two[top] = (work.exact_two(top), None)
        for t, p in p_one.items():
            value, se = p_two[t]
            advice.append(TradeAdvice(_tile_of(t, ts), p, value, se))
        advice.sort(key=lambda a: _rank(a.p_one, a.p_two, _index(a.trade, ts)))
    return Advice(
        playable=state.playable,
        grid=judge.grids.get(root),
        advice=advice,
        trades=trades,
        p_two_exact=exact,
        unknown=len(judge.unknown),
        hands=len(judge.verdicts),
        solver_calls=judge.solver_calls,
        elapsed_ms=(time.perf_counter() - started) * 1000.0,
        root_unknown=root in judge.unknown,
        work=state if trades == 1 and not state.playable else None,
    )


def _rank(p_one: float, p_two: float, tile: int) -> tuple[int, float, int]:
    """The advice's order, best first: p_two to the whole percent (finer differences are below
    what an estimate resolves), then p_one (the better chance now may save a trade token, worth a
    point), then the tile's notation (`1R 1O ... 6P **`, the order of the tile indices)."""
    return (-round(p_two * 100), -p_one, tile)


# -- hands as count vectors ---------------------------------------------------


def _index(tile: str, ts: TileSet) -> int:
    return _indices(ts)[tile]


def _tile_of(i: int, ts: TileSet) -> str:
    return _names(ts)[i]


# The 37 tiles' names and their indices, per tile set's colours: the advisor
# turns thousands of hands into tiles and back.
_NAMES: dict[str, list[str]] = {}
_INDICES: dict[str, dict[str, int]] = {}


def _names(ts: TileSet) -> list[str]:
    names = _NAMES.get(ts.colours)
    if names is None:
        names = _NAMES[ts.colours] = [DESIGNS[i // 6] + ts.colours[i % 6] for i in range(W)] + [WILD]
    return names


def _indices(ts: TileSet) -> dict[str, int]:
    indices = _INDICES.get(ts.colours)
    if indices is None:
        indices = _INDICES[ts.colours] = {tile: i for i, tile in enumerate(_names(ts))}
    return indices


def _key(tiles: list[str], ts: TileSet) -> tuple[int, ...]:
    counts = [0] * SLOTS
    for t in tiles:
        counts[_index(parse_tile(t, ts), ts)] += 1
    return tuple(counts)


def _cells(key: tuple[int, ...]) -> list[int]:
    """The hand `key` as the solver's cells, in the order of `_tiles`: the index of each
    concrete copy (design index * 6 + colour index, as the solver numbers them), -1 per wild."""
    cells: list[int] = []
    for i in range(W):
        n = key[i]
        if n:
            cells += [i] * n
    return cells + [-1] * key[W]


def _swap(key: tuple[int, ...], out: int, into: int) -> tuple[int, ...]:
    """The hand `key` with one `out` traded for one `into`."""
    k = list(key)
    k[out] -= 1
    k[into] += 1
    return tuple(k)


def _less(key: tuple[int, ...], tile: int) -> tuple[int, ...]:
    """The hand `key` without one `tile`."""
    k = list(key)
    k[tile] -= 1
    return tuple(k)


def _tiles(key: tuple[int, ...], ts: TileSet) -> list[str]:
    names = _names(ts)
    tiles: list[str] = []
    for i, n in enumerate(key):
        if n:
            tiles += [names[i]] * n
    return tiles


def _has_lonely_tile(key: tuple[int, ...], min_line: int) -> bool:
    """True if some tile fits no line even with every wild: too few distinct partners.

    A line is distinct tiles of one colour or one design, so a tile needs
    min_line - 1 other distinct tiles (or wilds) of its colour or its design:
    its colour or its design must hold min_line - wilds distinct tiles, itself included.
    """
    need = min_line - key[W]
    if need <= 1:
        return False
    colours = [0] * 6
    designs = [0] * 6
    present = [x for x in range(36) if key[x]]
    for x in present:
        colours[x % 6] += 1
        designs[x // 6] += 1
    return any(colours[x % 6] < need and designs[x // 6] < need for x in present)


def _lonely_free_draws(base: tuple[int, ...], pile: list[int], skip: int, min_line: int) -> list[tuple[int, int]]:
    """(draw, copies) for the draws d in `pile` (d != skip) for which base + d passes the lonely-tile test.

    These include every playable draw, found without a solver call: the
    counts of distinct tiles per colour and per design are taken once for
    `base`, and a draw only changes the counts of its own colour and design.
    """
    drawn = [(d, n) for d, n in enumerate(pile) if n and d != skip]
    if sum(base) == 0:
        return drawn
    wilds = base[W]
    colours = [0] * 6
    designs = [0] * 6
    present = [x for x in range(36) if base[x]]
    for x in present:
        colours[x % 6] += 1
        designs[x // 6] += 1
    short = [x for x in present if max(colours[x % 6], designs[x // 6]) + wilds < min_line]
    if not short:
        # The usual case (the policy asks it about every second trade of every failed first
        # draw): only a new tile without partners enough fails.
        need = min_line - 1 - wilds
        return [(d, n) for d, n in drawn if d == W or base[d] or colours[d % 6] >= need or designs[d // 6] >= need]
    out = []
    for d, n in drawn:
        if d == W:
            fits = all(max(colours[x % 6], designs[x // 6]) + wilds + 1 >= min_line for x in short)
        elif base[d]:
            fits = not short
        else:
            c, g = d % 6, d // 6
            fits = max(colours[c], designs[g]) + 1 + wilds >= min_line and all(
                max(colours[x % 6] + (x % 6 == c), designs[x // 6] + (x // 6 == g)) + wilds >= min_line
                for x in short
            )
        if fits:
            out.append((d, n))
    return out


def _draw_order(hand: tuple[int, ...]) -> list[int]:
    """The draws in the order one-trade advice judges them: the tiles `hand` holds first, most
    copies first, then by index.

    The hands a trade away that only the solver can decide are taken in this order, and each
    grid found is offered to the others (see _Judge.decide_open). A grid after drawing a tile
    the hand holds has two or more copies of it, and every copy's cell is a place where the
    other draws of that trade can be repaired in: a copy in one line takes any tile of that
    line's colour or design, where a lone copy at a crossing takes almost none. Judged first,
    such draws leave fewer hands to the solver (20 bench hands: 1,184 -> 1,063 solver calls,
    the same p_one).
    """
    return sorted(range(SLOTS), key=lambda d: -hand[d])


# Masks of tiles: bit i for the tile of index i (see _index), bit W for a wild.
_ALL_TILES = (1 << SLOTS) - 1


def _fit_mask(line: list[str], ts: TileSet) -> int:
    """The mask of the tiles t for which `line + [t]` is a correct line on its own (check.line_fault).

    line_fault's rules: at most six tiles, no concrete tile twice, and the
    concrete tiles (two or more) of one colour or of one design; wilds fill
    the rest. So a tile fits a line of one colour (or one design) when it
    has that colour (or design) and is not in it yet, and a wild fits any
    line that is correct on its own.
    """
    if len(line) >= 6:
        return 0
    seen = colours = designs = 0
    for t in line:
        if t == WILD:
            continue
        i = _index(t, ts)
        if seen >> i & 1:
            return 0
        seen |= 1 << i
        colours |= 1 << (i % 6)
        designs |= 1 << (i // 6)
    if not seen:
        return _ALL_TILES
    fits = 0
    if colours & (colours - 1) == 0:
        fits |= GROUP_MASKS[colours.bit_length() - 1]  # the colour's tiles
    if designs & (designs - 1) == 0:
        fits |= GROUP_MASKS[6 + designs.bit_length() - 1]  # the design's tiles
    if not fits:
        return 0  # mixed already: nothing mends it
    return (fits & ~seen) | 1 << W


# -- judging hands --------------------------------------------------------------


_UNJUDGED = object()
# The solver's first round on the hands left open after a trade (see
# _Judge.decide_open), in deadline checks: the solver checks its deadline
# every 64 search nodes or 32 drawing steps.
OPEN_BUDGET = 40
# Before a hand still open after that round is solved in full, it is rebuilt
# from the grids one swap away (_Judge._rebuild), placing at most
# REBUILD_STEPS tiles in all: such hands take the solver 0.3 s and more, a
# failed rebuild a few tens of milliseconds.
REBUILD_STEPS = 300
# The solver's budget (deadline checks, as OPEN_BUDGET) for a hand with a wild drawn two trades
# from the root, asked for the wild's dominance (_Advisor._dominated_within): playable ones take a
# few checks; some impossible ones take seconds of search, which the draws judged one by one
# (mostly proved impossible by the hard tiles at once) do not.
DOMINANCE_BUDGET = OPEN_BUDGET
# The solver's budget (deadline checks, as OPEN_BUDGET) for a pilot's hand two trades from the
# root (see _Pilot): a pilot only chooses the estimate's policy, so a hand it leaves undecided
# counts as a failure (the estimate stays unbiased for the policy chosen); the hands that take
# more are mostly impossible ones that no few tiles prove, 0.1 to 0.9 s each.
PILOT_BUDGET = 10
# The same for a draw after a second trade expected to lose (see _Advisor._p_one_above): a draw
# not decided within it is judged in full after the others.
SECOND_BUDGET = 10


def _work_clock() -> Callable[[], float]:
    """A clock that ticks once per reading: a deadline on it is a budget of work, not of time."""
    ticks = 0

    def clock() -> float:
        nonlocal ticks
        ticks += 1
        return float(ticks)

    return clock


_OPEN = object()  # only the solver can decide the hand (so far)


class _Judge:
    """Decides whether hands are playable, caching every verdict and every grid found.

    A verdict is True (arranged), False (proved impossible) or None (the
    solver timed out: counted in `unknown`, treated as not playable).
    """

    def __init__(self, ts: TileSet, young: bool, timeout: float | None) -> None:
        self.ts = ts
        self.young = young
        self.min_line = 2 if young else 3
        self.timeout = timeout
        self.clock: Callable[[], float] = time.perf_counter
        self.verdicts: dict[tuple[int, ...], bool | None] = {}
        self.grids: dict[tuple[int, ...], Grid] = {}
        # (hand minus one tile a) -> [(hand, a)] for every arranged hand: the
        # arranged hands one swap away from a hand being judged.
        self.near: dict[tuple[int, ...], list[tuple[tuple[int, ...], int]]] = {}
        self.unknown: set[tuple[int, ...]] = set()
        # The unplayable hand's hard tiles (solver.hard_tiles): most hands a
        # trade away keep the problem they pose, and asking it again on such a
        # hand's own copies takes a remembered answer or a short search.
        self.cores: list[list[str]] = []
        # While the draws of one trade are judged: the hard tiles of the tiles kept.
        self.trade_cores: list[list[str]] = []
        self.solver_calls = 0
        # Hands left open for the solver (see settled; an ordered set),
        # indexed like `near`; grids found and not yet offered to them.
        self.open: dict[tuple[int, ...], None] = {}
        self.open_near: dict[tuple[int, ...], list[tuple[tuple[int, ...], int]]] = {}
        self.fresh: list[tuple[int, ...]] = []
        # The repairs' geometry per grid (see _sites and _spots).
        self.site_memo: dict[tuple[tuple[int, ...], str], list] = {}
        self.spot_memo: dict[tuple[tuple[int, ...], tuple[int, int]], list] = {}
        self.fit_memo: dict[tuple[str, ...], int] = {}
        self.core_memo: dict[tuple[str, ...], tuple[int, ...]] = {}
        self.names = _names(ts)

    def playable(self, key: tuple[int, ...]) -> bool:
        verdict = self.verdicts.get(key, _UNJUDGED)
        if verdict is _UNJUDGED:
            verdict = self._decide(key)
            self.verdicts[key] = verdict
        return bool(verdict)

    def known_impossible(self, key: tuple[int, ...]) -> bool:
        """True only when the hand is proved impossible (not for a timeout)."""
        self.playable(key)
        return self.verdicts[key] is False

    def impossible_within(self, key: tuple[int, ...], budget: int) -> bool:
        """True when `key` is proved impossible, by the shortcuts or by the solver within `budget`
        (deadline checks, as OPEN_BUDGET). A hand the solver does not decide within it is left
        unjudged (False: nothing is proved)."""
        return self.within(key, budget) is False

    def within(self, key: tuple[int, ...], budget: int) -> object:
        """The verdict on `key` (as `playable`'s, None for a timeout) if the shortcuts or the solver
        within `budget` (deadline checks, as OPEN_BUDGET) decide it, else _OPEN, the hand left
        unjudged."""
        verdict = self.verdicts.get(key, _UNJUDGED)
        if verdict is _UNJUDGED:
            verdict = self._without_solver(key)
            if verdict is _OPEN:
                verdict = self._solve(key, budget)
                if verdict is _OPEN:
                    return _OPEN
            self.verdicts[key] = verdict
        return verdict

    def _decide(self, key: tuple[int, ...]) -> bool | None:
        verdict = self._without_solver(key)
        if verdict is _OPEN:
            verdict = self._solve(key)
        return verdict

    def _without_solver(self, key: tuple[int, ...]) -> object:
        """True, False, or _OPEN when only the solver can decide `key` (for now)."""
        if key[W] > WILDS or max(key[:W]) > COPIES:
            return False
        if sum(key) > 1 and _has_lonely_tile(key, self.min_line):
            return False
        cores = self.cores + self.trade_cores
        if cores:
            cells = _cells(key)
            for core in cores:
                if cells_unplaceable(cells, self._core_cells(core), self.young):
                    return False
        grid = self._swap_into_known_grid(key)
        if grid is not None:
            self._remember(key, grid)
            return True
        # After the repairs (a proof never holds for a repaired hand, and a
        # repair that cannot succeed is turned away by the fit masks), and
        # only where no hard tiles were asked: once they were, the counting
        # proof decided 3 of 2,422 such hands of the 20 bench hands, for more
        # time than the solver spent on those 3 (it runs that proof itself
        # when its first attempt does not decide).
        if not cores and few_tiles_proof(_tiles(key, self.ts), self.ts, self.young):
            return False
        return _OPEN

    def _core_cells(self, core: list[str]) -> tuple[int, ...]:
        """`solver.core_cells` of a hard-tiles core, worked out once per core."""
        name = tuple(core)
        cells = self.core_memo.get(name)
        if cells is None:
            cells = self.core_memo[name] = core_cells(core, self.ts)
        return cells

    def _solve(self, key: tuple[int, ...], budget: int | None = None) -> bool | None | object:
        """The solver's verdict on `key` (None: timed out, counted unknown).

        With a `budget` (deadline checks of the solver, a few dozen search
        nodes each: the same work on any machine) a hand that needs more is
        left _OPEN instead.
        """
        self.solver_calls += 1
        if budget is None:
            timeout, clock = self.timeout, self.clock
        else:
            timeout, clock = budget, _work_clock()
        result = solve(_tiles(key, self.ts), self.ts, self.young, timeout, clock=clock)
        if result.status == "timeout":
            if budget is not None:
                return _OPEN
            self.unknown.add(key)
            return None
        if result.status == "impossible":
            return False
        self._remember(key, result.grid)
        return True

    def settled(self, key: tuple[int, ...]) -> bool:
        """Decide `key` if no solver is needed (judged before, or judged now without it).

        False leaves it open, for `decide_open`: from now on every grid found
        is offered to it.
        """
        if key in self.verdicts or key in self.open:
            return key in self.verdicts
        verdict = self._without_solver(key)
        if verdict is _OPEN:
            self.open[key] = None
            for a in range(SLOTS):
                if key[a]:
                    self.open_near.setdefault(_less(key, a), []).append((key, a))
        else:
            self.verdicts[key] = verdict
        self._spread()
        return verdict is not _OPEN

    def decide_open(self) -> None:
        """Decide every hand left open by `settled`, sharing the grids found.

        Hands one trade from an unplayable hand are mostly one swap from each
        other. Each was offered to the grids known when it was judged and to
        every grid found since; now the solver takes those still open one at
        a time, in order, and every grid it (or a repair) finds is offered to
        the hands still open one swap from it. A first round gives each hand
        a small budget (OPEN_BUDGET): most are decided within it, and the few
        that are not are often repaired from the grids found meanwhile, before
        the second round solves them in full; in that round each is first
        rebuilt from the grids one swap away (`_rebuild`). A repaired or
        rebuilt grid is checked in full, so the verdicts are the solver's.
        """
        for budget in (OPEN_BUDGET, None):
            for key in list(self.open):
                if key in self.verdicts:
                    continue
                if budget is None:
                    grid = self._rebuild(key)
                    if grid is not None:
                        self.verdicts[key] = True
                        self._remember(key, grid)
                        self._spread()
                        continue
                verdict = self._solve(key, budget)
                if verdict is not _OPEN:
                    self.verdicts[key] = verdict
                    self._spread()
        self.open.clear()
        self.open_near.clear()

    def _spread(self) -> None:
        """Repair the open hands one swap from each grid found since the last call."""
        while self.fresh:
            known = self.fresh.pop()
            for b in range(SLOTS):
                if not known[b]:
                    continue
                old = self.names[b]
                for key, a in self.open_near.get(_less(known, b), ()):
                    if key in self.verdicts or a == b:
                        continue
                    repaired = self._repair(known, old, self.names[a])
                    if repaired is not None:
                        self.verdicts[key] = True
                        self._remember(key, repaired)

    def _remember(self, key: tuple[int, ...], grid: Grid) -> None:
        self.grids[key] = grid
        if self.open:
            self.fresh.append(key)
        for a in range(SLOTS):
            if key[a]:
                self.near.setdefault(_less(key, a), []).append((key, a))

    def _swap_into_known_grid(self, key: tuple[int, ...]) -> Grid | None:
        """A grid for `key` repaired from a known grid of a hand one tile away, or None."""
        for b in range(SLOTS):
            if not key[b]:
                continue
            new = self.names[b]
            for known, a in self.near.get(_less(key, b), ()):
                repaired = self._repair(known, self.names[a], new)
                if repaired is not None:
                    return repaired
        return None

    def _repair(self, known: tuple[int, ...], old: str, new: str) -> Grid | None:
        """The grid of `known` with one `old` replaced by `new`, if a simple repair passes the check, else None.

        First `new` takes a cell of `old`; failing that, that cell is emptied
        and `new` tries every empty cell next to the grid. Only the row and
        column through a changed cell can go wrong, so those are tested
        first, by the masks of the tiles that fit there (from `_sites`, the
        grid's geometry worked out once: most tiles fit no cell, and are
        turned away by one test); a grid that passes is confirmed by the full
        check, except a tile put in `old`'s cell whose row and column hold no
        wild (`_sites`' `plain`): the same cells stay connected, the lines
        elsewhere are the known grid's, and its two lines are correct by the
        mask, which is all the check would see there (the copies are within a
        box's: `_without_solver` turns away any other hand before a repair).
        """
        grid = self.grids[known]
        sites, reach = self._sites(known, old)
        if new == WILD:
            # A wild can stand for the tile it replaces: every line stays correct.
            swapped = dict(grid)
            swapped[sites[0][0]] = new
            return swapped
        bit = 1 << _index(new, self.ts)
        if not reach & bit:
            return None
        for cell, fits, plain in sites:
            if fits & bit:
                swapped = dict(grid)
                swapped[cell] = new
                confirmed = swapped if plain else self._confirmed(swapped)
                if confirmed is not None:
                    return confirmed
        for cell, _, _ in sites:
            for spot, fits in self._spots(known, cell):
                if fits & bit:
                    moved = dict(grid)
                    del moved[cell]
                    moved[spot] = new
                    confirmed = self._confirmed(moved)
                    if confirmed is not None:
                        return confirmed
        return None

    def _rebuild(self, key: tuple[int, ...]) -> Grid | None:
        """A grid for `key` rebuilt from a known grid one swap away (see _rebuilt), or None."""
        steps = [REBUILD_STEPS]
        for b in range(SLOTS):
            if not key[b]:
                continue
            new = _tile_of(b, self.ts)
            for known, a in self.near.get(_less(key, b), ()):
                grid = _rebuilt(self.grids[known], _tile_of(a, self.ts), new, self.min_line, self._confirmed, steps)
                if grid is not None:
                    return grid
                if steps[0] <= 0:
                    return None
        return None

    def _confirmed(self, grid: Grid) -> Grid | None:
        return grid if check_grid(grid, self.ts, self.young, tiles=len(grid)).valid else None

    def _sites(self, known: tuple[int, ...], old: str) -> tuple[list, int]:
        """([(cell, fits, plain)], reach) for the cells of `old` in the grid of `known`.

        `fits` is the mask of the tiles that fit the other tiles of the
        cell's row and column (`_fit_mask`), `plain` whether those hold no
        wild (no wild's tile then depends on the cell), `reach` the union of those and of
        the masks of every spot a tile may move to once a cell of `old` is
        empty (`_spots`): a tile outside `reach` cannot be repaired in. Worked
        out once per grid and tile: every hand one swap from `known` asks the
        same.
        """
        memo = self.site_memo.get((known, old))
        if memo is None:
            grid = self.grids[known]
            sites = []
            reach = 0
            for cell, tile in grid.items():
                if tile == old:
                    lines = _runs_beside(grid, cell)
                    fits = self._lines_mask(lines)
                    sites.append((cell, fits, not any(WILD in line for line in lines)))
                    reach |= fits
                    for _, moved in self._spots(known, cell):
                        reach |= moved
            memo = self.site_memo[known, old] = (sites, reach)
        return memo

    def _lines_mask(self, lines: list[list[str]]) -> int:
        """The tiles that fit every one of `lines` (`_fit_mask`; a tile on a cell joins its row and its
        column). Each line's mask is worked out once: grids a swap apart share most lines."""
        fits = _ALL_TILES
        for line in lines:
            key = tuple(line)
            mask = self.fit_memo.get(key)
            if mask is None:
                mask = self.fit_memo[key] = _fit_mask(line, self.ts)
            fits &= mask
        return fits

    def _spots(self, known: tuple[int, ...], cell: tuple[int, int]) -> list:
        """(spot, fits) where a tile may go once the tile on `cell` has left the grid of `known`.

        Each empty cell beside what is left, with the mask of the tiles that
        fit the other tiles of the lines it would be in (every such line long
        enough; see `_fit_mask`); none when what
        is left has a short line or falls apart. Worked out once per grid
        and cell.
        """
        memo = self.spot_memo.get((known, cell))
        if memo is not None:
            return memo
        grid = self.grids[known]
        out: list = []
        self.spot_memo[known, cell] = out
        r, c = cell
        # What is left of the row and column through the emptied cell: a part
        # of two tiles becomes a short line; longer parts stay correct lines.
        for dr, dc in ((0, 1), (1, 0)):
            for sign in (1, -1):
                n = 0
                while (r + sign * dr * (n + 1), c + sign * dc * (n + 1)) in grid:
                    n += 1
                if 2 <= n < self.min_line:
                    return out
        rest = dict(grid)
        del rest[cell]
        # A tile with one neighbour leaves a connected grid connected.
        beside = [nb for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if nb in rest]
        if len(beside) > 1 and not _joined(rest, beside):
            return out
        frontier = sorted(
            {
                (y + dy, x + dx)
                for (y, x) in rest
                for dy, dx in ((0, 1), (1, 0), (0, -1), (-1, 0))
                if (y + dy, x + dx) not in rest and (y + dy, x + dx) != cell
            }
        )
        for spot in frontier:
            lines = _runs_beside(rest, spot)
            # With the new tile each line is one longer: it must reach the shortest line.
            if all(len(line) + 1 >= self.min_line for line in lines) and all(
                line_fault(line) is None for line in lines
            ):
                out.append((spot, self._lines_mask(lines)))
        return out


def _rebuilt(
    grid: Grid, old: str, new: str, min_line: int, confirm: Callable[[Grid], Grid | None], steps: list[int]
) -> Grid | None:
    """`grid` with one `old` traded for `new`, its lines near the change rebuilt; None if not found.

    For each cell of `old`: the tile leaves, and so do the tiles of its row
    and column that lie in no other line; those and `new` are then put back
    one at a time beside what is left (a small depth-first search, spending
    `steps[0]`, shared by the calls for one hand), each keeping the lines it
    joins correct on their own. A grid is returned only if `confirm` (the
    full check) accepts it.
    """
    for cell, tile in sorted(grid.items()):
        if tile != old:
            continue
        rest = dict(grid)
        del rest[cell]
        free = [new]
        r, c = cell
        for dr, dc in ((0, 1), (1, 0)):
            for sign in (1, -1):
                k = 1
                while (q := (r + sign * dr * k, c + sign * dc * k)) in grid:
                    if (q[0] + dc, q[1] + dr) not in grid and (q[0] - dc, q[1] - dr) not in grid:
                        free.append(rest.pop(q))
                    k += 1
        found = _put_back(rest, free, min_line, confirm, steps)
        if found is not None or steps[0] <= 0:
            return found
    return None


def _short_runs(grid: Grid, min_line: int) -> int:
    """How many runs of the grid have two or more tiles but fewer than `min_line`."""
    return sum(len(line) < min_line for line in find_lines(grid))


def _put_back(
    rest: Grid, free: list[str], min_line: int, confirm: Callable[[Grid], Grid | None], steps: list[int]
) -> Grid | None:
    """A grid of `rest` plus every tile of `free`, each put beside what is there, that `confirm` accepts.

    The tile with the fewest cells where its row and column stay correct
    goes first. A short line needs a tile, and a tile lengthens two lines at
    most, so more short lines than twice the tiles left is a dead end.
    """
    if _short_runs(rest, min_line) > 2 * len(free):
        return None
    if not free:
        return confirm(dict(rest))
    spots = []
    for spot in sorted(
        {
            (y + dy, x + dx)
            for (y, x) in rest
            for dy, dx in ((0, 1), (1, 0), (0, -1), (-1, 0))
            if (y + dy, x + dx) not in rest
        }
    ):
        spots.append((spot, _runs_beside(rest, spot)))
    best: tuple[str, list] | None = None
    for tile in sorted(set(free)):
        fits = [spot for spot, runs in spots if all(line_fault(run + [tile]) is None for run in runs)]
        if fits and (best is None or len(fits) < len(best[1])):
            best = (tile, fits)
    if best is None:
        return None
    tile, fits = best
    left = list(free)
    left.remove(tile)
    for spot in fits:
        if steps[0] <= 0:
            return None
        steps[0] -= 1
        rest[spot] = tile
        found = _put_back(rest, left, min_line, confirm, steps)
        del rest[spot]
        if found is not None:
            return found
    return None


def _joined(grid: Grid, cells: list[tuple[int, int]]) -> bool:
    """True if `cells` (tiles of `grid`) are in one orthogonally connected group.

    The walk stops as soon as it has met all of them. For a connected grid
    with one tile taken out, `cells` being that tile's neighbours, this is
    whether what is left is connected: every tile reached the removed one
    through one of its neighbours.
    """
    start = cells[0]
    wanted = set(cells)
    wanted.discard(start)
    seen = {start}
    stack = [start]
    while stack:
        r, c = stack.pop()
        for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nb in grid and nb not in seen:
                seen.add(nb)
                stack.append(nb)
                if nb in wanted:
                    wanted.discard(nb)
                    if not wanted:
                        return True
    return False


def _along(grid: Grid, spot: tuple[int, int], dr: int, dc: int) -> list[str]:
    """The tiles in a run with `spot` along (dr, dc): those before it, nearest first, then those after."""
    r, c = spot
    run = []
    for sign in (-1, 1):
        k = 1
        while (r + sign * dr * k, c + sign * dc * k) in grid:
            run.append(grid[r + sign * dr * k, c + sign * dc * k])
            k += 1
    return run


def _runs_beside(grid: Grid, spot: tuple[int, int]) -> list[list[str]]:
    """The tiles of the row and the column that a tile on `spot` is (or would be) in, without that tile
    (non-empty parts only): the other tiles of its lines."""
    return [run for run in (_along(grid, spot, 0, 1), _along(grid, spot, 1, 0)) if run]


# -- the probabilities ----------------------------------------------------------


@dataclass
class _Advisor:
    """Trade probabilities around one unplayable hand `root` with unseen pile `unseen`."""

    judge: _Judge
    root: tuple[int, ...]
    unseen: tuple[int, ...]
    ts: TileSet
    one: dict[tuple[tuple[int, ...], int], float] = field(default_factory=dict)
    root_p_one: dict[int, float] | None = None
    far: int | None = None
    hard: dict[tuple[int, ...], list[str]] = field(default_factory=dict)

    def pile(self, hand: tuple[int, ...], trade: int) -> list[int]:
        """The pile a trade of `trade` from `hand` draws from: unseen tiles plus the returned tile.

        Whatever left the root hand went back to the pile, whatever came in
        left it: pile = unseen + root - hand + trade.
        """
        return [
            self.unseen[i] + self.root[i] - hand[i] + (1 if i == trade else 0) for i in range(SLOTS)
        ]

    def p_one(self, hand: tuple[int, ...], trade: int) -> float:
        """The exact probability that `hand` is playable after trading `trade` (cached)."""
        memo = self.one.get((hand, trade))
        if memo is not None:
            return memo
        pile = self.pile(hand, trade)
        total = sum(pile)
        good = 0
        if not self._dominated_out(hand, trade):
            for d in range(SLOTS):
                if pile[d] and d != trade and self.judge.playable(_swap(hand, trade, d)):
                    good += pile[d]
        p = good / total
        self.one[hand, trade] = p
        return p

    def _dominated_out(self, hand: tuple[int, ...], trade: int) -> bool:
        """True when trading for a wild is proved impossible, so every draw is."""
        if trade != W and hand[W] >= WILDS:
            return False  # a seventh wild is not a real hand: no shortcut
        return self.judge.known_impossible(_swap(hand, trade, W))

    def candidates(self, hand: tuple[int, ...]) -> list[int]:
        return [i for i in range(SLOTS) if hand[i]]

    def one_trade_all(self) -> dict[int, float]:
        """p_one of every tile of the root: every draw decided the cheap ways first, then the rest together."""
        judge = self.judge
        draws = _draw_order(self.root)
        for t in self.candidates(self.root):
            # The hard tiles of the 23 tiles kept (standard rules, see advise):
            # every draw adds one tile to them, and most draws leave the
            # problem those tiles pose as it is.
            core = [] if judge.young else hard_tiles(_tiles(_less(self.root, t), self.ts), self.ts)
            judge.trade_cores = [core] if core and core not in judge.cores else []
            if self._dominated_out(self.root, t):
                continue
            pile = self.pile(self.root, t)
            for d in draws:
                if pile[d] and d != t:
                    judge.settled(_swap(self.root, t, d))
        judge.trade_cores = []
        judge.decide_open()
        return {t: self.p_one(self.root, t) for t in self.candidates(self.root)}

    def first_draws(self, t1: int) -> list[tuple[int, int]]:
        """(draw, copies in the pile) for trading t1 from the root."""
        pile = self.pile(self.root, t1)
        return [(d, n) for d, n in enumerate(pile) if n]

    def best_one(self) -> float:
        return max(self.p_one(self.root, t) for t in self.candidates(self.root))

    def after_one(self, t1: int, d1: int) -> bool:
        """playable(root - t1 + d1), using the wild's proof when it covers every draw."""
        if d1 == t1 or self._dominated_out(self.root, t1):
            return False
        return self.judge.playable(_swap(self.root, t1, d1))

    def exact_two_cost(self) -> int:
        """Second-trade hands an exact p_two would judge at most: first draws x second trades x second draws."""
        cost = 0
        for t1 in self.candidates(self.root):
            draws = len(self.first_draws(t1))
            cost += draws * len(self.candidates(self.root)) * (draws + 1)
        return cost

    def exact_two(self, t1: int) -> float:
        """The exact probability of a playable hand within two trades, the second chosen best."""
        draws = self.first_draws(t1)
        total = sum(n for _, n in draws)
        value = 0.0
        for d1, n in draws:
            value += n * self._after_first(t1, d1)
        return value / total

    def _after_first(self, t1: int, d1: int) -> float:
        """The chance of a playable hand after trading t1 and drawing d1, the second trade chosen best."""
        if d1 == t1:
            return self.best_one()
        if self.after_one(t1, d1):
            return 1.0
        return self.best_second(_swap(self.root, t1, d1), d1, self.p_one(self.root, t1))

    def exact_two_within(self, hands: int) -> dict[int, tuple[float, None]]:
        """{t1: (exact p_two, None)} for the root's best trades by p_one, while they judge at most
        about `hands` new hands in all.

        The best trades by p_one are the cheap ones: most of their first draws
        make the hand playable, and after the others the best second trade is
        usually known at once. Only trades with at most EXACT_TWO_FAILS first
        draws that leave the hand unplayable are tried (those verdicts are known
        from p_one). Each is worked out first draw by first draw;
        once the hands judged pass the budget (checked after each first draw,
        so the same work on any machine), the one under way and the rest are
        left to the estimate.
        """
        if hands <= 0:
            return {}
        judged = self.judge.verdicts
        limit = len(judged) + hands
        one = self.root_one()
        out: dict[int, tuple[float, None]] = {}
        for t1 in sorted(one, key=lambda t: (-one[t], t)):
            draws = self.first_draws(t1)
            failed = sum(1 for d1, _ in draws if d1 != t1 and not self.after_one(t1, d1))
            if failed > EXACT_TWO_FAILS:
                return out  # the next ones have no better p_one: as costly, or more
            value = 0.0
            for d1, n in draws:
                value += n * self._after_first(t1, d1)
                if len(judged) > limit:
                    return out
            out[t1] = (value / sum(n for _, n in draws), None)
        return out

    def best_second(self, h1: tuple[int, ...], d1: int, back: float) -> float:
        """max over t2 of p_one(h1, t2), exact, for h1 = root - t1 + d1 with p_one(root, t1) = `back`.

        Trading d1 back is trading t1 again, from the same pile: worth `back`.
        Every other t2, the root's best trades first, is worked out only as
        far as it could still beat the best so far (`_p_one_above`): a trade
        whose failed draws already leave it at or below that value cannot be
        the maximum, so it is dropped there. The result is the same maximum
        as working out every p_one in full.
        """
        best = back
        root_one = self.root_one()
        others = [t2 for t2 in self.candidates(h1) if t2 != d1]
        others.sort(key=lambda t2: (-root_one.get(t2, 0.0), t2))
        with self.asking(h1):
            for i, t2 in enumerate(others):
                p = self._p_one_above(h1, t2, best, first=i == 0)
                if p is not None:
                    best = p
        return best

    def hard_of(self, hand: tuple[int, ...]) -> list[str]:
        """`solver.hard_tiles` of an unplayable `hand` (standard rules; [] with younger players,
        see advise), worked out once per hand."""
        core = self.hard.get(hand)
        if core is None:
            core = self.hard[hand] = [] if self.judge.young else hard_tiles(_tiles(hand, self.ts), self.ts)
        return core

    @contextmanager
    def asking(self, h1: tuple[int, ...]) -> Iterator[None]:
        """The hard tiles of the unplayable hand `h1` (a first draw that failed) asked on every hand
        judged in the block, as the hard tiles of the tiles kept by a trade in one_trade_all: most
        second trades and draws leave the problem they pose as it is."""
        judge = self.judge
        core = self.hard_of(h1)
        kept = judge.trade_cores
        judge.trade_cores = [core] if core and core not in judge.cores else []
        try:
            yield
        finally:
            judge.trade_cores = kept

    def root_one(self) -> dict[int, float]:
        """p_one of every tile of the root (worked out once, by one_trade_all)."""
        if self.root_p_one is None:
            self.root_p_one = {t: self.p_one(self.root, t) for t in self.candidates(self.root)}
        return self.root_p_one

    def _p_one_above(self, hand: tuple[int, ...], trade: int, floor: float, first: bool = True) -> float | None:
        """p_one(hand, trade) when it is above `floor`, else None, judging no more draws than that needs.

        Once the copies judged not playable leave at most `floor` even if
        every draw left were playable, the trade cannot beat `floor` and the
        rest is not judged. A value it returns is p_one's, to the last bit
        (the same count over the same total). `first` (the trade expected to
        be the maximum, whose every draw is judged anyway): its hand with a
        wild drawn is asked first, within DOMINANCE_BUDGET, for the wild's
        dominance and for a grid that the draws are repaired from, and the
        draws go most copies first. Either way the wild drawn is judged last:
        it is playable whenever a concrete draw is (a repair), and such a hand
        can be impossible and take the solver seconds to prove it.
        Otherwise the trade is expected to be dropped: the wild's dominance is
        used only when already known, and the draws that touch no hard tile
        (sharing neither colour nor design with one: mostly proved impossible
        by the hard tiles at once) go first, so that it is dropped after a few
        cheap proofs (`_far_from_cores`).
        """
        memo = self.one.get((hand, trade))
        if memo is not None:
            return memo if memo > floor else None
        pile = self.pile(hand, trade)
        total = sum(pile)
        left = total - pile[trade]  # drawing `trade` back leaves the hand unplayable
        if left / total <= floor:
            return None
        if self._dominated_within(hand, trade) if first else self._dominated_known(hand, trade):
            return None
        far = 0 if first else self._far_from_cores()
        good = 0
        order = [d for d in sorted(range(SLOTS), key=lambda d: (not far >> d & 1, d == W, -pile[d]))
                 if pile[d] and d != trade]
        # A trade expected to lose is dropped by its first failed draws; those the solver cannot
        # decide within SECOND_BUDGET (mostly impossible hands no few tiles prove, 0.1 to 0.5 s
        # each) wait until the others were judged, which often drop the trade without them.
        budget = None if first else SECOND_BUDGET
        waiting = []
        for rounds in (0, 1):
            for d in waiting if rounds else order:
                key = _swap(hand, trade, d)
                if budget is None:
                    verdict = self.judge.playable(key)
                else:
                    verdict = self.judge.within(key, budget)
                    if verdict is _OPEN:
                        waiting.append(d)
                        continue
                left -= pile[d]
                if verdict:
                    good += pile[d]
                elif (good + left) / total <= floor:
                    return None
            budget = None
        p = good / total
        self.one[hand, trade] = p
        return p if p > floor else None

    def _dominated_within(self, hand: tuple[int, ...], trade: int) -> bool:
        """True when trading for a wild is proved impossible within a small budget of the solver's work.

        Such a hand two trades from the root can be impossible and yet take the solver seconds to
        prove it (three 4P, a wild among their few partners); when it is not decided within
        DOMINANCE_BUDGET it is left unjudged and the draws are judged one by one.
        """
        if trade != W and hand[W] >= WILDS:
            return False
        return self.judge.impossible_within(_swap(hand, trade, W), DOMINANCE_BUDGET)

    def _dominated_known(self, hand: tuple[int, ...], trade: int) -> bool:
        """True when trading for a wild is already known to be impossible (nothing judged for it)."""
        return self.judge.verdicts.get(_swap(hand, trade, W)) is False

    def _far_from_cores(self) -> int:
        """The mask of the tiles sharing neither colour nor design with any tile of the root's hard
        tiles (no wild): a draw of one leaves the problem those tiles pose as it is."""
        if self.far is None:
            near = 1 << W
            for core in self.judge.cores:
                for tile in core:
                    i = _index(tile, self.ts)
                    for j in range(W):
                        if j // 6 == i // 6 or j % 6 == i % 6:
                            near |= 1 << j
            self.far = _ALL_TILES & ~near if self.judge.cores else 0
        return self.far


class _SecondTrade:
    """The seeded estimate of p_two, for hands where exact enumeration is too big.

    p_two(t1) is split exactly over the first draw d1, each weighted by its
    copies in the pile: a playable hand counts 1, and drawing t1 back leaves
    the same hand, whose best second trade is the root's best p_one. After
    any other first draw d1 that leaves the hand unplayable, the second trade
    follows a policy that scores each tile t2 of the hand h1 = root - t1 + d1:

    - trading d1 back scores its exact value, p_one(t1) (it is trading t1
      from the root, from the same pile);
    - any other t2 scores bound * rate. The bound is the share of draws that
      leave no tile of h1 - t2 + d2 without a possible line (the lonely-tile
      test, no solver call): it holds every playable draw. The rate is the
      share of such draws that are playable, from a seeded pilot of `PILOT`
      pairs of draws over this candidate's first draws (see `_Pilot`). The
      bound sees a hand that fails for want of partners; the rate sees one
      that fails for its structure.

    Only the `CONTENDERS` tiles with the highest bounds (then the highest root
    p_one) are scored, so pilots stay few; the best score wins, trading back
    on a tie. Trading back is exact; the other first draws (the "sampled
    mass") are estimated from fresh seeded pairs of draws: d1 in proportion
    to its copies among them, then d2 from the pile of the policy's trade; a
    sample scores 1 when the hand after both trades is playable. Samples per
    candidate: `samples` times the sampled mass. The estimate is unbiased for
    the policy; the policy can miss the best second trade, so it estimates a
    lower bound of best play.
    """

    CONTENDERS = 8
    PILOT = 8

    def __init__(self, work: _Advisor, samples: int, seed: int) -> None:
        self.work = work
        self.samples = samples
        self.seed = seed
        self.root_one = work.root_one()
        self.pilots: dict[tuple[int, int], _Pilot] = {}

    def bounded_draws(self, h1: tuple[int, ...], t2: int) -> tuple[list[tuple[int, int]], int]:
        """The draws after trading t2 from h1 that pass the lonely-tile test, and the pile's size."""
        pile = self.work.pile(h1, t2)
        return _lonely_free_draws(_less(h1, t2), pile, t2, self.work.judge.min_line), sum(pile)

    def pilot(self, t1: int, t2: int, strata: list[tuple[int, int]]) -> "_Pilot":
        key = (t1, t2)
        if key not in self.pilots:
            firsts = [d1 for d1, n in strata if d1 != t2 for _ in range(n)]
            self.pilots[key] = _Pilot(self, t1, t2, firsts, random.Random(f"{self.seed}:pilot:{t1}:{t2}"))
        return self.pilots[key]

    def choose(self, t1: int, d1: int, strata: list[tuple[int, int]]) -> int:
        """The second trade after trading t1 and drawing d1 (unplayable); d1 itself means trading it back."""
        work = self.work
        h1 = _swap(work.root, t1, d1)
        bounds = {}
        for t2 in work.candidates(h1):
            if t2 != d1:
                draws, total = self.bounded_draws(h1, t2)
                bounds[t2] = sum(n for _, n in draws) / total
        ranked = sorted(bounds, key=lambda t2: (-bounds[t2], -self.root_one.get(t2, 0.0), t2))
        best, best_score = d1, self.root_one[t1]
        for t2 in ranked[: self.CONTENDERS]:
            if bounds[t2] <= best_score:
                break  # a score never exceeds its bound
            score = self.pilot(t1, t2, strata).score(bounds[t2], best_score)
            if score > best_score:
                best, best_score = t2, score
        return best

    def estimate(self, t1: int) -> tuple[float, float]:
        """(p_two, standard error) for trading t1 now."""
        work = self.work
        back = self.root_one[t1]
        draws = work.first_draws(t1)
        total = sum(n for _, n in draws)
        exact = 0.0
        strata: list[tuple[int, int]] = []
        for d1, n in draws:
            if d1 == t1:
                exact += n * work.best_one()
            elif work.after_one(t1, d1):
                exact += n
            else:
                strata.append((d1, n))
        sampled: list[tuple[int, int]] = []  # (d1, second trade), once per copy of d1
        for d1, n in strata:
            t2 = self.choose(t1, d1, strata)
            if t2 == d1:
                exact += n * back  # trading the drawn tile back is trading t1 again
            else:
                sampled.extend([(d1, t2)] * n)
        if not sampled:
            return exact / total, 0.0
        rng = random.Random(f"{self.seed}:{t1}")
        piles: dict[int, list[int]] = {}
        n_samples = max(2, math.ceil(self.samples * len(sampled) / total))
        hits = 0
        for _ in range(n_samples):
            d1, t2 = rng.choice(sampled)
            h1 = _swap(work.root, t1, d1)
            pile = piles.get(d1)
            if pile is None:
                pile = piles[d1] = work.pile(h1, t2)
            d2 = _draw(rng, pile)
            if d2 != t2 and work.judge.playable(_swap(h1, t2, d2)):
                hits += 1
        share = len(sampled) / total
        mean = hits / n_samples
        stderr = share * math.sqrt(mean * (1.0 - mean) / (n_samples - 1))
        return exact / total + share * mean, stderr


class _Pilot:
    """The seeded pilot for trading t1 then t2: PILOT draw pairs, drawn only as far as a decision needs.

    An attempt draws d1 from the candidate's unplayable first draws and d2
    from the draws after trading t2 that pass the lonely-tile test; it
    succeeds when that hand is playable (an attempt with no such d2 fails).
    The rate is (successes + 1) / (PILOT + 2). The attempts are a fixed
    seeded sequence, so stopping once the outcome cannot change the policy's
    choice gives the same choice as running them all.
    """

    def __init__(self, owner: _SecondTrade, t1: int, t2: int, firsts: list[int], rng: random.Random) -> None:
        self.owner = owner
        self.t1 = t1
        self.t2 = t2
        self.firsts = firsts
        self.rng = rng
        self.tried = 0
        self.hits = 0

    def _attempt(self) -> None:
        owner, work = self.owner, self.owner.work
        self.tried += 1
        if not self.firsts:
            return
        h1 = _swap(work.root, self.t1, self.rng.choice(self.firsts))
        draws, _ = owner.bounded_draws(h1, self.t2)
        if draws:
            d2 = _draw_from(self.rng, draws)
            self.hits += work.judge.within(_swap(h1, self.t2, d2), PILOT_BUDGET) is True

    def score(self, bound: float, to_beat: float) -> float:
        """bound * rate, or -1 as soon as it is sure not to beat `to_beat`."""
        total = self.owner.PILOT
        while True:
            if bound * (self.hits + (total - self.tried) + 1) / (total + 2) <= to_beat:
                return -1.0
            if self.tried == total:
                return bound * (self.hits + 1) / (total + 2)
            self._attempt()


def _draw_from(rng: random.Random, draws: list[tuple[int, int]]) -> int:
    """One tile from (tile, copies) pairs, each copy equally likely."""
    k = rng.randrange(sum(n for _, n in draws))
    for tile, n in draws:
        if k < n:
            return tile
        k -= n
    raise AssertionError("unreachable: k is below the total")


def _draw(rng: random.Random, pile: list[int]) -> int:
    """One tile drawn from a pile of counts, each copy equally likely."""
    return _draw_from(rng, [(tile, n) for tile, n in enumerate(pile) if n])
