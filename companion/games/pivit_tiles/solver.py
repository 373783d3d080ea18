"""The Pivit hand solver: arrange a hand into a correct grid, or prove that none exists.

This is the hint a stuck player gets and the proof that a dealt hand was
playable. `solve` returns "solved" with a grid that passes `check_grid` using
exactly the hand's tiles, "impossible" when no grid exists, or "timeout".

How: every correct grid of two or more tiles is a connected structure of
lines (rows and columns of one colour or one design, crossing at shared
tiles). The search in _solver_search enumerates such structures exhaustively,
with pruning that is only ever sound, so "impossible" means no structure
exists that can be drawn, and therefore no grid; each structure it finds is
drawn on the grid by _solver_layout (an exhaustive search too), and if one
cannot be drawn the search goes on. The order of tiles inside a line is free,
so only which tiles share lines and where lines cross is searched, never tile
orders. A second, heuristic search (_solver_grow) builds grids line by line;
it often finds one first, but never decides "impossible". When neither
decides at once, _solver_core looks for a few hard-to-place tiles that no set
of lines can place (a proof about those tiles alone, sound for the whole hand).
"""
from __future__ import annotations

import itertools
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable

from companion.games.pivit_tiles._solver_core import COUNT_PARTNERS, core_proof, placeable
from companion.games.pivit_tiles._solver_grow import GrowSearch
from companion.games.pivit_tiles._solver_layout import LayoutGaveUp, choose_wilds, lay_out
from companion.games.pivit_tiles._solver_search import (
    GROUP_CELLS,
    Deadline,
    Effort,
    LineSearch,
    SearchGaveUp,
    SearchTimeout,
    groups_of,
)
from companion.games.pivit_tiles.grid import Grid, grid_str, normalise
from companion.games.pivit_tiles.tiles import (
    DESIGNS,
    WILD,
    TileSet,
    get_tileset,
    parse_tile,
    tile_name,
)

STATUSES = ("solved", "impossible", "timeout")
# Placements the first (tree-only) pass spends drawing one structure before
# moving on to the next; the full pass draws without a limit.
TREE_LAYOUT_STEPS = 200
# Placements spent checking that a partly built structure can still be drawn.
PARTIAL_LAYOUT_STEPS = 60
# Effort of the first attempt of each search, by shortest line (3: standard
# rules, 2: younger players); each later attempt doubles it. Tree search:
# drawing steps (and search nodes, where counted); growth search: lines
# placed. With lines of two the growth search does better, so it gets more.
TREE_EFFORT = {3: 10000, 2: 300}
GROW_EFFORT = {3: 200, 2: 500}
# Standard rules: before the tree pass meant to finish, short tree passes with
# these limits (search nodes and drawing steps), the first in the natural order,
# the others in seeded orders. Most hands, impossible ones included, are decided
# by the first; a hand with a grid that the natural order reaches only after
# thousands of nodes is often found by another order in a few dozen (restarts
# against a heavy tail). A probe that runs out decides nothing.
PROBE_EFFORT = (300, 300, 600, 1200)
# The probes (by index in PROBE_EFFORT) whose search covers first the copy with the fewest
# lines per copy of its tile still to cover (LineSearch's weigh_copies), not the copy with the
# fewest lines: three copies of a tile with too few lines for them all go first. The others
# keep the plain order, which does better on most hands.
PROBE_WEIGHED = frozenset({1})
# Standard rules: when the first CORE_AFTER_PROBES probes do not decide, the
# few-tiles proofs (_solver_core: the counting proof and the core searches) run
# before the next probe. A hand the first probe leaves undecided is a hard one,
# and the impossible ones among them often fail for a few tiles with too few
# partners, which those proofs show in a few milliseconds where the probes and
# the tree pass take up to seconds (hands two trades from a bench hand: three
# 5R with too few partners, 1.6 s -> 0.03 s). More than len(PROBE_EFFORT): only
# the counting proof, after the first tree pass gives up.
CORE_AFTER_PROBES = 1
# Younger players: from attempt YOUNG_RESTART_FROM on, before each tree pass,
# short tree passes in fresh seeded orders (restarts against the heavy tail,
# as the probes above): 2 ** (attempt + 1) of them, YOUNG_RESTART_EFFORT each,
# twice the tree pass's effort. Some playable hands two trades from a bench
# hand were out of the doubling passes' reach for 10 s of CPU, where 1 to 6 %
# of such short passes find a grid. None of the 1,000 random young hands of
# bench/solver.py gets that far, so none does more work than before.
YOUNG_RESTART_EFFORT = 300
YOUNG_RESTART_FROM = 3
# The restarts' seeds start past any attempt's own seed.
RESTART_SEEDS = 1000
# Steps of a core search asked again on another hand (cells_unplaceable).
CORE_REUSE_STEPS = 2000
# Whether to check that partial structures can still be drawn, by (tree pass?,
# shortest line): worth its cost where undrawable structures are common.
PARTIAL_CHECKS = {(True, 3): False, (False, 3): False, (True, 2): True, (False, 2): True}


@dataclass(frozen=True)
class SolveResult:
    """What the solver found for one hand.

    `status` is one of STATUSES. `grid` is set only when solved. `reason` is
    one sentence for the player when not solved: why the hand is impossible,
    or that the time ran out. `steps` counts the search steps (partial
    structures and grids tried): a measure of the work, independent of the
    machine.
    """

    status: str
    grid: Grid | None
    elapsed_ms: float
    reason: str = ""
    steps: int = 0

    def to_json(self) -> dict:
        """{"status", "grid" (grid text, "" if none), "elapsed_ms", "reason", "steps"}."""
        return {
            "status": self.status,
            "grid": grid_str(self.grid) if self.grid is not None else "",
            "elapsed_ms": round(self.elapsed_ms, 3),
            "reason": self.reason,
            "steps": self.steps,
        }


def solve(
    hand: list[str],
    tileset: str | TileSet = "classic",
    young: bool = False,
    timeout: float | None = 2.0,
    *,
    clock: Callable[[], float] = time.perf_counter,
) -> SolveResult:
    """Arrange every tile of `hand` into one correct grid, or prove that none exists.

    `young` allows lines of two tiles (the younger-players variation).
    `timeout` is in seconds on `clock` (None: no limit): wall-clock time by
    default; time.thread_time counts only this thread's CPU, so that a busy
    machine slows the answer down instead of turning it into a timeout.
    Deterministic: the same hand, in the same order, always gives the same
    answer and grid, unless the time runs out (the verdict never depends on
    the order). Raises TileError (a ValueError) for a tile that is not in the
    tile set, and ValueError for a timeout that is not positive.
    """
    started = time.perf_counter()
    if timeout is not None and not timeout > 0:
        raise ValueError(f"the timeout must be a positive number of seconds, not {timeout!r}")
    ts = get_tileset(tileset)
    tiles, cells = _parsed(hand, ts)

    def result(status: str, grid: Grid | None, reason: str = "", steps: int = 0) -> SolveResult:
        return SolveResult(status, grid, (time.perf_counter() - started) * 1000.0, reason, steps)

    excess = _too_many_copies(tiles, ts)
    if excess:
        return result("impossible", None, excess)
    if len(tiles) <= 1:
        return result("solved", {(0, 0): tiles[0]} if tiles else {})
    min_line = 2 if young else 3
    lonely = _lonely_tile(cells, min_line)
    if lonely is not None:
        return result("impossible", None, _lonely_reason(tiles[lonely], young))

    deadline = None if timeout is None else Deadline(timeout, clock)
    try:
        solver = _HandSolver(cells, min_line, deadline)
        found, steps = solver.run()
    except _TimedOut as exc:
        return result(
            "timeout", None, f"no answer within {timeout:g} s; the hand may still have a grid", exc.steps
        )
    if found is None and solver.core:
        return result("impossible", None, _core_reason(solver.core, ts), steps)
    if found is None:
        return result(
            "impossible",
            None,
            "no arrangement of these tiles forms a correct grid "
            f"(every possible set of lines was tried: {steps} steps)",
            steps,
        )
    grid = normalise({cell: tiles[i] for i, cell in found.items()})
    return result("solved", grid, "", steps)


def few_tiles_proof(hand: list[str], tileset: str | TileSet = "classic", young: bool = False) -> list[str]:
    """A few tiles of `hand` with too few partners to be placed, so the hand has no grid; [] if none found.

    The counting proof of _solver_core alone: a fraction of a millisecond,
    where `solve` spends tens of milliseconds on a hand that fails this way
    (solve uses it too, and more, when its first attempt does not decide).
    [] proves nothing either way. Raises TileError for a tile that is not in
    the tile set.
    """
    ts = get_tileset(tileset)
    _, cells = _parsed(hand, ts)
    core = core_proof(cells, 2 if young else 3, search=False)
    return [] if core is None else _core_tiles(core, ts)


def hard_tiles(hand: list[str], tileset: str | TileSet = "classic", young: bool = False) -> list[str]:
    """A few tiles of `hand` that no set of lines can place, so the hand has no grid; [] if none found.

    The proofs of _solver_core, the searches included (limited in steps; a
    few milliseconds on the bench's hands): the counting proof of
    `few_tiles_proof`, then exhaustive searches over the lines of a few tiles
    with few partners. [] proves nothing.
    Raises TileError for a tile that is not in the tile set.
    """
    ts = get_tileset(tileset)
    _, cells = _parsed(hand, ts)
    core = core_proof(cells, 2 if young else 3, search=True)
    return [] if core is None else _core_tiles(core, ts)


def core_cells(core: list[str], tileset: str | TileSet = "classic") -> tuple[int, ...]:
    """The distinct cells (design index * 6 + colour index) of the tiles `core`, sorted: the core
    as `cells_unplaceable` takes it. Raises TileError for a tile that is not in the tile set."""
    return tuple(sorted(set(_parsed(core, get_tileset(tileset))[1])))


def cells_unplaceable(cells: list[int], core: tuple[int, ...], young: bool = False) -> bool:
    """True when the copies of the core's tiles in the hand provably cannot all be placed in lines.

    The hand is given as cells (design index * 6 + colour index, -1 for a wild), for a caller
    that holds hands as counts, and the core by `core_cells` (any tiles of the hand, say the
    `hard_tiles` of a hand a trade away: hands a trade apart mostly pose the same problem for
    them). The search of _solver_core, its answer remembered per problem. True proves the hand
    impossible; False proves nothing, nor does a search that runs out of its steps.
    """
    if len(cells) <= 1 or any(x < 0 or x not in cells for x in core):
        return False
    return placeable(cells, core, 2 if young else 3, CORE_REUSE_STEPS) is False


def _cell(tile: str, ts: TileSet) -> int:
    return -1 if tile == WILD else DESIGNS.index(tile[0]) * 6 + ts.colours.index(tile[1])


# Token -> (tile, cell) per tile set's colours: the advisor asks about
# thousands of hands of the same few dozen tokens.
_PARSED: dict[str, dict[str, tuple[str, int]]] = {}


def _parsed(hand: list[str], ts: TileSet) -> tuple[list[str], list[int]]:
    """The tiles of `hand` normalised (parse_tile) and their cells. Raises TileError."""
    known = _PARSED.setdefault(ts.colours, {})
    tiles = []
    cells = []
    for token in hand:
        entry = known.get(token)
        if entry is None:
            tile = parse_tile(token, ts)
            entry = known[token] = (tile, _cell(tile, ts))
        tiles.append(entry[0])
        cells.append(entry[1])
    return tiles, cells


def _core_tiles(core: tuple[int, ...], ts: TileSet) -> list[str]:
    return [DESIGNS[x // 6] + ts.colours[x % 6] for x in core]


def _core_reason(core: tuple[int, ...], ts: TileSet) -> str:
    names = ", ".join(f"{tile} ({tile_name(tile)})" for tile in _core_tiles(core, ts))
    return (
        f"no arrangement of these tiles forms a correct grid: {names} cannot all be placed in lines "
        "that also join the rest of the grid (every way was tried)"
    )


class _TimedOut(Exception):
    def __init__(self, steps: int) -> None:
        super().__init__(steps)
        self.steps = steps


class _HandSolver:
    """The searches for one hand, and the drawing of what they find.

    Two searches take turns, each attempt with a seeded order and twice the
    effort of the one before:
    - the tree search (_solver_search with trees_only): tree-shaped line
      structures (no ring of crossing lines), drawn when complete. Its first
      attempt is limited only in drawing, so it usually runs to the end: if
      it ends without a drawable tree, the full search (rings allowed, no
      limit) either finds a drawable structure or proves that none exists;
      only it says "impossible".
    - the growth search (_solver_grow): builds the grid line by line, always
      connected and drawn. It is fast where the tree search keeps finding
      structures that fall apart or cannot be drawn (common with lines of
      two), and useless for proofs; it leads in the younger-players
      variation and is a second opinion otherwise.
    Drawing failures cluster (a search keeps varying the last lines of a
    structure whose early lines are the trouble), which is why fresh orders
    and growing limits beat one long attempt.
    """

    def __init__(self, cells: list[int], min_line: int, deadline: Deadline | None) -> None:
        self.cells = cells
        self.min_line = min_line
        self.young = min_line < 3
        self.deadline = deadline
        self.wilds = [i for i, x in enumerate(cells) if x < 0]
        self.found: dict[int, tuple[int, int]] | None = None
        self.trees_given_up = 0  # trees whose drawing was abandoned at the step limit
        self.steps = 0
        self.core: tuple[int, ...] | None = None  # the cells _solver_core proved cannot be placed
        self.restarts = 0  # short seeded tree passes run (younger players)

    def run(self) -> tuple[dict[int, tuple[int, int]] | None, int]:
        """(copy -> cell, steps) for a drawable structure, or (None, steps) when none exists.

        Raises _TimedOut.
        """
        grow_exhausted = False  # one growth attempt ran out of options: others would too
        if not self.young:
            for probe, limit in enumerate(PROBE_EFFORT):
                outcome = self._structures(probe, trees_only=True, effort=Effort(limit), weigh=probe in PROBE_WEIGHED)
                if outcome is True:
                    return self.found, self.steps
                if outcome is False:
                    return self._after_trees(probe)
                # Past the first probe(s), the few-tiles proofs, searches included.
                if probe + 1 == CORE_AFTER_PROBES and self._core_proof(search=True):
                    return None, self.steps
        for attempt in itertools.count():
            if (self.young or attempt > 0) and not grow_exhausted:
                found = self._grow(attempt)
                if found is not None:
                    return found, self.steps
                grow_exhausted = self.grow_exhausted
            if self.young and attempt >= YOUNG_RESTART_FROM:
                for _ in range(2 << attempt):
                    self.restarts += 1
                    outcome = self._structures(
                        RESTART_SEEDS + self.restarts, trees_only=True, effort=Effort(YOUNG_RESTART_EFFORT)
                    )
                    if outcome is True:
                        return self.found, self.steps
                    if outcome is False:
                        return self._after_trees(attempt)
            outcome = self._structures(attempt, trees_only=True)
            if outcome is True:
                return self.found, self.steps
            if outcome is None and attempt == 0 and (self.young or CORE_AFTER_PROBES > len(PROBE_EFFORT)) and self._core_proof():
                return None, self.steps
            if outcome is False:
                return self._after_trees(attempt)
        raise AssertionError("unreachable")

    def _after_trees(self, attempt: int) -> tuple[dict[int, tuple[int, int]] | None, int]:
        """The answer once a tree pass tried every tree and could draw none."""
        # If the tree search never had to refuse a ring and drew every tree to
        # the end, it already was the full search; otherwise the full search
        # decides.
        if not self.rings_cut and not self.trees_given_up:
            return None, self.steps
        if self._structures(attempt, trees_only=False):
            return self.found, self.steps
        return None, self.steps

    def _core_proof(self, search: bool = False) -> bool:
        """True when a few tiles of the hand are proved impossible to place (see _solver_core); the
        counting proof, and the searches too with younger players or `search`."""
        try:
            self.core = core_proof(
                self.cells, self.min_line, self.deadline, search=self.young or search, count_partners=COUNT_PARTNERS
            )
        except SearchTimeout:
            raise _TimedOut(self.steps) from None
        return self.core is not None

    def _grow(self, attempt: int) -> dict[int, tuple[int, int]] | None:
        search = GrowSearch(
            self.cells,
            self.min_line,
            self.deadline,
            Effort(GROW_EFFORT[self.min_line] << attempt),
            shuffle_seed=attempt or None,
        )
        self.grow_exhausted = False
        try:
            found = search.grow()
        except SearchTimeout:
            raise _TimedOut(self.steps + search.nodes) from None
        except SearchGaveUp:
            self.steps += search.nodes
            return None
        self.steps += search.nodes
        self.grow_exhausted = found is None
        return found

    def _structures(
        self, attempt: int, trees_only: bool, effort: Effort | None = None, weigh: bool = False
    ) -> bool | None:
        """True: found a drawable structure. False: none exists (of this kind). None: gave up.

        `effort` replaces the attempt's usual effort (a probe's limit).
        """
        if effort is not None:
            pass
        elif trees_only:
            # The first attempt outside the younger-players variation is the
            # one meant to finish: only its drawing is limited.
            effort = Effort(TREE_EFFORT[self.min_line] << attempt, count_search=self.young or attempt > 0)
        else:
            effort = Effort()
        search = LineSearch(
            self.cells,
            self.min_line,
            self.accept,
            self.deadline,
            trees_only=trees_only,
            drawable=self.drawable if PARTIAL_CHECKS[(trees_only, self.min_line)] else None,
            shuffle_seed=attempt or None,
            effort=effort,
            weigh_copies=weigh,
        )
        try:
            solved = search.run()
        except SearchTimeout:
            raise _TimedOut(self.steps + search.nodes) from None
        except SearchGaveUp:
            self.steps += search.nodes
            return None
        self.steps += search.nodes
        self.rings_cut = search.rings_cut
        return solved

    def accept(self, search: LineSearch) -> bool:
        """Draw a complete structure; True (and keep the drawing) if it can be drawn."""
        if search.trees_only:
            limit: int | None = TREE_LAYOUT_STEPS
            effort: Effort | None = search.effort
        elif search.crossings() == len(search.line_orient) - 1 and not self.trees_given_up:
            return False  # a tree: the first pass already proved it cannot be drawn
        else:
            limit = None
            effort = None
        if choose_wilds(search.line_group, search.line_cells, search.line_members, search.slot, self.wilds) is None:
            return False
        try:
            layout = lay_out(search.line_orient, search.line_members, search.slot, self.deadline, limit, effort)
        except LayoutGaveUp:
            self.trees_given_up += 1
            return False
        if layout is None:
            return False
        self.found = layout
        return True

    def drawable(self, search: LineSearch, lines: list[int]) -> bool:
        """False only if this group of lines of a partial structure is proved undrawable."""
        if len(lines) < 3:
            return True
        index = {line: k for k, line in enumerate(lines)}
        members = [search.line_members[line] for line in lines]
        slot = [[index.get(r, -1), index.get(c, -1)] for r, c in search.slot]
        orient = [search.line_orient[line] for line in lines]
        effort = search.effort if search.effort.count_search else None
        try:
            return lay_out(orient, members, slot, self.deadline, PARTIAL_LAYOUT_STEPS, effort) is not None
        except LayoutGaveUp:
            return True  # undecided: keep searching


def _too_many_copies(tiles: list[str], ts: TileSet) -> str:
    """A sentence if the hand holds more copies of a tile than a box has (no grid can pass the check)."""
    for tile, count in sorted(Counter(tiles).items()):
        limit = ts.max_copies(tile)
        if count > limit:
            return f"the hand holds {count} copies of {tile} ({tile_name(tile)}); a box has only {limit}"
    return ""


def _lonely_tile(cells: list[int], min_line: int) -> int | None:
    """A copy that no line can hold even on its own (too few partners of its colour or design), or None.

    This is implied by the full search too; it is checked first because it
    is the most common reason a dealt hand fails and it makes a clear hint.
    """
    wilds = cells.count(-1)
    present = set(cells)
    for i, x in enumerate(cells):
        if x < 0:
            continue
        best = max(sum(1 for y in GROUP_CELLS[g] if y in present) for g in groups_of(x))
        if best + wilds < min_line:
            return i
    return None


def _lonely_reason(tile: str, young: bool) -> str:
    need = "one more tile" if young else "two more tiles"
    return (
        f"{tile} ({tile_name(tile)}) fits no line: a line needs {need} of its colour or of its "
        "design, all different, and the hand does not have them, even counting wilds"
    )
