"""The hand solver's search over line structures (private to solver.py).

A finished grid of two or more tiles is, abstractly, a set of *lines*: each a
set of distinct tiles of one colour or one design, 3..6 of them (2..6 in the
younger-players variation), each a row or a column. Every tile copy of the
hand lies in one or two lines, at most one row and one column; a row and a
column share at most one copy (the cell where they cross); two rows share
none; and the lines joined by their crossings are one connected group. Every
grid gives such a structure, so when none exists the hand is impossible: that
is the solver's proof, and it needs no geometry. When one exists, the layout
(_solver_layout) tries to draw it as a grid; if that fails the search goes on
to the next structure, so the search stays exhaustive either way.

The search covers one uncovered copy at a time, always the one with the
fewest possible lines, and branches over every line that can hold it: which
colour or design, which other tiles, whether each of them is a new copy or a
crossing with a copy already placed, and how many wilds. When every copy is
placed but the lines form several groups, it branches over lines made of
placed copies that join groups. It never branches on symmetric choices:
copies of one tile not yet placed are interchangeable, so only the first is
tried; a wild in a line is a "joker" whose concrete tile is chosen only at the
end; a group of lines not yet joined to the rest can be transposed as a
whole, so a new line's orientation is fixed by its first crossing (or is
"row" when it crosses nothing) and other groups it touches are transposed to
fit; and lines are ordered by a key so that each structure is reached along
one path only (see _cover_copy).

What keeps impossible hands fast: a copy with no possible line fails at once,
and so does a group of lines none of whose free slots can still take a line
leading out of it. A group with a single such slot left is settled first: the
line through that slot is in every finished structure, so branching on it is
exhaustive and finds dead ends early.
"""
from __future__ import annotations

import itertools
import random
import time
from typing import Callable

# A cell is design_index * 6 + colour_index: one of the 36 distinct tiles.
# Groups 0..5 are the colours (their lines are colour lines), 6..11 the
# designs; a cell lies in colour group cell % 6 and design group 6 + cell // 6.
GROUP_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(d * 6 + g for d in range(6)) for g in range(6)
) + tuple(tuple(g * 6 + c for c in range(6)) for g in range(6))
# The same groups as masks over the cells (bit x for cell x).
GROUP_MASKS: tuple[int, ...] = tuple(sum(1 << y for y in cells) for cells in GROUP_CELLS)
MAX_LINE = 6  # six designs and six colours exist, so no line holds more


def groups_of(cell: int) -> tuple[int, int]:
    """The colour group and the design group of a cell."""
    return cell % 6, 6 + cell // 6


# groups_of and each cell's position in its two groups, looked up rather than
# computed in the search's inner loops.
_GROUPS = [groups_of(x) for x in range(36)]
# _OTHERS[x][g]: the cells of group g (one of x's) other than x, with their
# bit in the group's mask.
_OTHERS = [
    {g: tuple((p, y) for p, y in enumerate(GROUP_CELLS[g]) if y != x) for g in groups_of(x)} for x in range(36)
]
# _MASK_BITS[x]: x's colour group and its bit there (by design), x's design group and its bit
# there (by colour).
_MASK_BITS = [(x % 6, 1 << (x // 6), 6 + x // 6, 1 << (x % 6)) for x in range(36)]
# _OTHER_CELLS[x][g]: the same cells without their bits.
_OTHER_CELLS = [{g: tuple(y for _, y in pairs) for g, pairs in others.items()} for others in _OTHERS]
# _LINE_OPTIONS[(x, g, mask)]: (cells, sub, k) for every choice of other cells
# `sub` (k of them, largest k first, each in combination order) of the cells of
# group g in `mask` other than x; cells is sub with x, sorted.
_LINE_OPTIONS: dict[tuple[int, int, int], list[tuple[tuple[int, ...], tuple[int, ...], int]]] = {}


def _line_options(x: int, g: int, mask: int) -> list[tuple[tuple[int, ...], tuple[int, ...], int]]:
    key = (x, g, mask)
    options = _LINE_OPTIONS.get(key)
    if options is None:
        others = [y for p, y in _OTHERS[x][g] if mask >> p & 1]
        options = [
            (tuple(sorted((x,) + sub)), sub, k)
            for k in range(min(len(others), MAX_LINE - 1), -1, -1)
            for sub in itertools.combinations(others, k)
        ]
        _LINE_OPTIONS[key] = options
    return options


# _GROUP_OPTIONS[(x, g, mask, wilds, min_line)]: _cover_copy's lines of group g for a copy of
# cell x, as (g, cells, other cells, jokers, key) in the order they are tried (at most
# 36 x 2 x 64 x 7 x 2 entries).
_GROUP_OPTIONS: dict[tuple[int, int, int, int, int], list[tuple]] = {}


def _group_options(x: int, g: int, mask: int, wilds: int, min_line: int) -> list[tuple]:
    key = (x, g, mask, wilds, min_line)
    options = _GROUP_OPTIONS.get(key)
    if options is None:
        options = [
            (g, cells, sub, jokers, (g, cells, jokers))
            for cells, sub, k in _line_options(x, g, mask)
            for jokers in range(max(0, min_line - 1 - k), min(wilds, MAX_LINE - 1 - k) + 1)
        ]
        _GROUP_OPTIONS[key] = options
    return options


def _option_table(min_line: int) -> list[list[list[int]]]:
    """table[mask][pos][wilds]: how many lines through position `pos` a group allows.

    A line is a subset S of the available positions `mask` containing `pos`,
    plus j <= `wilds` jokers, with min_line <= |S| + j <= 6. Used to pick the
    most constrained copy and to fail at once when a copy has no line left.
    """
    table = [[[0] * 7 for _ in range(6)] for _ in range(64)]
    for mask in range(64):
        for pos in range(6):
            if not mask >> pos & 1:
                continue
            sizes = [bin(sub).count("1") for sub in range(64) if sub & ~mask == 0 and sub >> pos & 1]
            for wilds in range(7):
                table[mask][pos][wilds] = sum(
                    1 for s in sizes for j in range(wilds + 1) if min_line <= s + j <= MAX_LINE
                )
    return table


OPTION_TABLES = {3: _option_table(3), 2: _option_table(2)}


class SearchTimeout(Exception):
    """The search ran past its deadline."""


class Deadline:
    """A moment on a clock that the searches check every few dozen nodes.

    The clock is the wall clock (time.perf_counter) for a player waiting on
    one answer, or this thread's CPU time (time.thread_time) for a guard that
    must not depend on how busy the machine is: the advisor's hands after a
    trade, whose verdicts must all be decided for the advice to be exact.
    """

    __slots__ = ("at", "clock")

    def __init__(self, seconds: float, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.at = clock() + seconds

    def passed(self) -> bool:
        return self.clock() > self.at


class SearchGaveUp(Exception):
    """An attempt used up its effort (a restart with another order may do better)."""


class Effort:
    """The work of one attempt, with an optional limit.

    Drawing steps always count; search nodes (and the drawing of partial
    structures) count only when `count_search` is set, so that an attempt
    meant to prove a hand impossible is limited only in its drawing.
    """

    def __init__(self, limit: int | None = None, count_search: bool = True) -> None:
        self.spent = 0
        self.limit = limit
        self.count_search = count_search

    def spend(self, amount: int = 1) -> None:
        """Count work. Raises SearchGaveUp past the limit."""
        self.spent += amount
        if self.limit is not None and self.spent > self.limit:
            raise SearchGaveUp


class LineSearch:
    """Exhaustive search for a connected line structure holding every copy of a hand.

    `cells[i]` is the cell of copy i, or -1 for a wild. `accept` is called on
    each complete connected structure (with the search itself, to read
    `line_orient`, `line_group`, `line_cells`, `line_members` and `slot`) and
    returns True to stop, False to go on searching.
    """

    def __init__(
        self,
        cells: list[int],
        min_line: int,
        accept: Callable[["LineSearch"], bool],
        deadline: Deadline | None = None,
        trees_only: bool = False,
        drawable: Callable[["LineSearch", list[int]], bool] | None = None,
        shuffle_seed: int | None = None,
        effort: Effort | None = None,
        weigh_copies: bool = False,
    ) -> None:
        self.trees_only = trees_only
        self.rings_cut = False  # did trees_only ever forbid a line? (if not, all structures were trees)
        self.drawable = drawable
        # A seeded order of the lines tried (for restarts; any order keeps the
        # search exhaustive) and the effort this attempt may spend.
        self.rng = None if shuffle_seed is None else random.Random(shuffle_seed)
        self.effort = effort if effort is not None else Effort()
        self.n = len(cells)
        self.cell = list(cells)
        self.min_line = min_line
        self.table = OPTION_TABLES[min_line]
        self.accept = accept
        self.deadline = deadline
        # slot[i] = [row line, column line] of copy i, -1 when free.
        self.slot = [[-1, -1] for _ in cells]
        self.copies_of: list[list[int]] = [[] for _ in range(36)]
        self.wilds: list[int] = []
        for i, x in enumerate(cells):
            (self.wilds if x < 0 else self.copies_of[x]).append(i)
        self.present = [x for x in range(36) if self.copies_of[x]]
        # With weigh_copies, the copy to cover is the one with the fewest lines per copy of its
        # tile still to cover (copies of a tile never share a line). Any order keeps the search
        # exhaustive (the keys' floors of _cover_copy hold whichever uncovered copy of a tile
        # goes first); this one reaches three copies of a tile that have too few lines first.
        # copies_left[i]: copy i and the copies of its tile after it, as the weight's divisor.
        self.copies_left: list[int] | None = None
        if weigh_copies:
            self.copies_left = [0] * self.n
            for copies in self.copies_of:
                for k, i in enumerate(copies):
                    self.copies_left[i] = len(copies) - k + 1
        # Where copies are free, kept up to date by _take and _give_back as lines are placed
        # and taken back, not worked out afresh at each node: per cell its first uncovered copy
        # (-1 if none) and the lines of its copies that have one slot left; the uncovered
        # wilds; the lines of wilds with one slot left; per group, how many cells have an
        # uncovered copy, and as bits the cells that have an uncovered copy or a free slot.
        self.first_new = [copies[0] if copies else -1 for copies in self.copies_of]
        self.free_lines: list[list[int]] = [[] for _ in range(36)]
        self.wilds_new = len(self.wilds)
        self.wild_lines: list[int] = []
        self.group_new = [0] * 12
        self.masks = [0] * 12
        for x in self.present:
            colour, design_bit, design, colour_bit = _MASK_BITS[x]
            self.group_new[colour] += 1
            self.group_new[design] += 1
            self.masks[colour] |= design_bit
            self.masks[design] |= colour_bit
        self.line_orient: list[int] = []  # 0 row, 1 column
        self.line_group: list[int] = []
        self.line_cells: list[frozenset[int]] = []  # the concrete cells (not the jokers)
        self.line_members: list[list[int]] = []
        self.nodes = 0
        self._comp: list[int] = []  # group of each line (a line of the group), kept by _commit
        self._critical: tuple[int, int] | None = None  # see _components_alive
        # Symmetry breaking (see _cover_copy): the key of the line that covered
        # each copy when it was the copy being covered, and per cell (-1: the
        # wilds) the key of the last such line.
        self.first_key: list[tuple | None] = [None] * self.n
        self.floor: dict[int, tuple] = {}
        # Copies whose free slot can take no line any more (in this branch).
        self.dead: set[int] = set()
        self.dead_log: list[int] = []

    def crossings(self) -> int:
        """How many copies lie in two lines."""
        return sum(1 for r, c in self.slot if r >= 0 and c >= 0)

    # -- the search ----------------------------------------------------------

    def run(self) -> bool:
        """True once `accept` took a structure; False when none exists. Raises SearchTimeout."""
        return self._node()

    def _uncovered(self, i: int) -> bool:
        s = self.slot[i]
        return s[0] < 0 and s[1] < 0

    def _node(self) -> bool:
        self.nodes += 1
        if self.effort.count_search:
            self.effort.spend()
        if self.deadline is not None and self.nodes & 63 == 1 and self.deadline.passed():
            raise SearchTimeout
        first_new = self.first_new
        snap = (first_new, self.free_lines, self.wilds_new, self.wild_lines, self.group_new)
        wilds_free = self.wilds_new + len(self.wild_lines)
        masks = self.masks
        best = -1
        best_copy = -1
        best_count = 1 << 30
        table = self.table
        copies_left = self.copies_left
        for x in self.present:
            q = first_new[x]
            if q < 0:
                continue
            d, c = divmod(x, 6)
            count = table[masks[c]][d][wilds_free] + table[masks[6 + d]][c][wilds_free]
            if copies_left is not None and count:
                count = count * 12 // copies_left[q]
            if count < best_count:
                best, best_copy, best_count = x, q, count
                if count == 0:
                    return False
        open_wild = next((i for i in self.wilds if self._uncovered(i)), -1)
        if not self._components_alive(best >= 0 or open_wild >= 0, snap):
            return False
        if self._critical is not None and best_count > 1:
            # A group of lines with one way out: settle that way out first.
            return self._cover_slot(*self._critical, masks, wilds_free)
        if best >= 0:
            return self._cover_copy(best_copy, best, masks, wilds_free)
        if open_wild >= 0:
            return self._cover_wild(open_wild, masks, wilds_free)
        if len(set(self._comp)) <= 1:
            return self.accept(self)
        return self._connect(snap)

    def _components(self) -> list[int]:
        """The connected group (by crossings) of each line."""
        nl = len(self.line_orient)
        parent = list(range(nl))

        def find(a: int) -> int:
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for r, c in self.slot:
            if r >= 0 and c >= 0:
                a, b = find(r), find(c)
                if a != b:
                    parent[a] = b
        return [find(line) for line in range(nl)]

    def _components_alive(self, tiles_left: bool, snap) -> bool:
        """False when some group of lines can never join the rest (and so the hand fails).

        Also sets `_critical` to (copy, line) when some group of lines has a
        single free slot that can still lead out of it: every finished
        structure then has a line through that slot.
        """
        comp = self._comp
        self._critical = None
        roots = set(comp)
        if len(roots) <= 1 and not tiles_left:
            return True
        if len(roots) == 0:
            return True
        by_root: dict[int, list[int]] = {}
        for line, root in enumerate(comp):
            by_root.setdefault(root, []).append(line)
        for lines in by_root.values():
            ways_out = self._ways_out(lines, snap)
            if not ways_out:
                return False
            if len(ways_out) == 1 and self._critical is None:
                self._critical = ways_out[0]
        return True

    def _ways_out(self, lines: list[int], snap) -> list[tuple[int, int]]:
        """Up to two free slots (copy, its line) of this group of lines that are still alive."""
        dead = self.dead
        found = []
        slot = self.slot
        for line in lines:
            for i in self.line_members[line]:
                s = slot[i]
                if (s[0] < 0 or s[1] < 0) and i not in dead:
                    if self._slot_alive(i, line, snap):
                        found.append((i, line))
                        if len(found) == 2:
                            return found
                    else:
                        # Tiles only get used up further down this branch: it stays dead.
                        dead.add(i)
                        self.dead_log.append(i)
        return found

    def _slot_alive(self, i: int, line: int, snap, rings: bool | None = None) -> bool:
        """Could copy i, now only in `line`, still get a crossing line that joins its group of
        lines to a tile outside it? (An over-estimate: sound to prune on.)

        Such a line holds min_line - 1 other copies, at least one from outside
        the group (uncovered, or in another group); in the full search the
        rest may be copies of the group itself (closing a ring), in the tree
        search not (`rings`: allowed or not; by default, as the search).
        Copies already crossed must come from distinct lines.
        """
        if rings is None:
            rings = not self.trees_only
        x = self.cell[i]
        if x < 0:
            # A wild: try each tile it may stand for in its line.
            here = GROUP_CELLS[self.line_group[line]]
            alive = any(self._cell_alive(y, 0, line, snap, rings) for y in here if y not in self.line_cells[line])
        else:
            alive = self._cell_alive(x, 1 if snap[0][x] >= 0 else 0, line, snap, rings)
        if not alive and not rings and not self.rings_cut and self._slot_alive(i, line, snap, True):
            # The slot could still lead out by closing a ring: the tree search
            # prunes it, and so cuts off structures with rings, like a ring
            # refused in _cross. Not saying so would let the tree pass's "no
            # tree" stand for "no structure" (solve's _after_trees): a hand
            # whose grids all have rings was called impossible whenever the
            # order of the search led the tree pass here rather than to a
            # refused crossing (one-trade draws of bench hands; a playable
            # hand in 14 of 300 renamings of its colours and designs). Once
            # said, it need not be asked again.
            self.rings_cut = True
        return alive

    def _cell_alive(self, x: int, new_here: int, line: int, snap, rings: bool) -> bool:
        """_slot_alive for a copy standing for cell x; `new_here` is 1 if x has an uncovered copy."""
        first_new, free_lines, wilds_new, wild_lines, group_new = snap
        comp = self._comp
        here = comp[line]
        if wild_lines:
            wilds_out = wilds_new + sum(1 for other in wild_lines if comp[other] != here)
            wilds_in = sum(1 for other in wild_lines if other != line and comp[other] == here) if rings else 0
        else:
            wilds_out = wilds_new
            wilds_in = 0
        need = self.min_line - 1
        groups = _GROUPS[x]
        for g in groups:
            left = group_new[g] - new_here
            if left >= 1 and left + wilds_out + wilds_in >= need:
                return True  # enough uncovered tiles of that colour or design
        others = _OTHER_CELLS[x]
        for g in groups:
            out_cells = 0  # cells with an uncovered copy
            cross_out = 0  # cells with a copy in another group of lines
            lines_out = 0  # (as bits)
            cross_in = 0  # cells with only copies in this group of lines
            lines_in = 0
            for y in others[g]:
                if first_new[y] >= 0:
                    out_cells += 1
                    continue
                free = free_lines[y]
                if not free:
                    continue
                crossed = False
                for other in free:
                    if comp[other] != here:
                        lines_out |= 1 << other
                        crossed = True
                if crossed:
                    cross_out += 1
                elif rings:
                    # Two crossings with one line are impossible: not with `line` itself.
                    for other in free:
                        if other != line:
                            lines_in |= 1 << other
                            crossed = True
                    if crossed:
                        cross_in += 1
            reach_out = out_cells + min(cross_out, lines_out.bit_count()) + wilds_out
            if reach_out >= 1 and reach_out + min(cross_in, lines_in.bit_count()) + wilds_in >= need:
                return True
        return False

    # -- branching -----------------------------------------------------------

    def _cover_copy(self, q: int, x: int, masks: list[int], wilds_free: int) -> bool:
        """Branch over every line that can hold the uncovered copy q of cell x.

        Lines are ordered by a key (group, cells, jokers). A finished structure
        can be reached along several paths: the copy covered now may lie in
        two lines, and copies of one tile are interchangeable. Taking, each
        time, the line of smallest key among those that could hold the copy
        keeps exactly one path: so this line's key may not be below the key
        of the line that last covered a copy of this tile, and a later line
        through q as a crossing may not have a smaller key than this one.
        """
        floor = self.floor.get(x)
        colour, design = _GROUPS[x]
        options = _group_options(x, colour, masks[colour], wilds_free, self.min_line) + _group_options(
            x, design, masks[design], wilds_free, self.min_line
        )
        if floor is not None:
            options = [option for option in options if option[4] >= floor]
        # Lines without wilds first: wilds are scarce and fit anywhere later.
        if self.rng is not None:
            self.rng.shuffle(options)
        for g, cells, sub, jokers, key in options:
            if self._try_line(q, x, g, cells, sub, jokers, key):
                return True
        return False

    def _cover_wild(self, q: int, masks: list[int], wilds_free: int) -> bool:
        """Branch over every line for an uncovered wild once all concrete copies are placed."""
        floor = self.floor.get(-1)
        for g in range(12):
            mask = masks[g]
            others = [y for p, y in enumerate(GROUP_CELLS[g]) if mask >> p & 1]
            for k in range(min(len(others), MAX_LINE - 1), -1, -1):
                for sub in itertools.combinations(others, k):
                    for jokers in range(0, min(wilds_free - 1, MAX_LINE - 1 - k) + 1):
                        if self.min_line <= 1 + k + jokers:
                            key = (g, sub, jokers + 1)
                            if floor is not None and key < floor:
                                continue
                            if self._try_line(q, -1, g, sub, sub, jokers, key):
                                return True
        return False

    def _cover_slot(self, i: int, line: int, masks: list[int], wilds_free: int) -> bool:
        """Branch over every line through the free slot of copy i (in `line`) that leads out of
        its group of lines: the group's only way out, so some such line is in every
        finished structure, and it is the one line through that slot."""
        x = self.cell[i]
        here = self._comp[line]
        wild = x < 0
        if wild:
            g1 = self.line_group[line]
            groups = [g for g in range(12) if (g < 6) != (g1 < 6) or g == g1]
            spare = wilds_free - 1  # other wilds besides i
        else:
            groups = list(groups_of(x))
            spare = wilds_free
        for g in groups:
            mask = masks[g]
            others = [y for p, y in enumerate(GROUP_CELLS[g]) if y != x and mask >> p & 1]
            for k in range(min(len(others), MAX_LINE - 1), -1, -1):
                for sub in itertools.combinations(others, k):
                    cells = sub if wild else tuple(sorted((x,) + sub))
                    for jokers in range(0, min(spare, MAX_LINE - 1 - k) + 1):
                        if self.min_line <= 1 + k + jokers:
                            state = _LineChoice(g, frozenset(cells), [], {}, set(), None)
                            state.key = (g, cells, jokers + (1 if wild else 0))
                            state.leaves = here
                            if wild and not self._wild_fits(line, state):
                                continue
                            if self.first_key[i] is not None and state.key < self.first_key[i]:
                                continue
                            if self._cross(state, i) is None:
                                continue
                            state.crossed.add(line)
                            state.members.append(i)
                            if self._fill(state, sub, 0, jokers):
                                return True
        return False

    def _connect(self, snap) -> bool:
        """Every copy is placed but the lines form several groups: branch over joining lines.

        A joining line holds only copies already placed (each gains its second
        line). In any finished structure, the lines missing here cross only
        lines already placed, so one of them crosses the group of line 0 and
        another group: trying just those keeps the search exhaustive.
        """
        first_new, free_lines, wilds_new, wild_lines, _ = snap
        comp = self._comp
        root = comp[0]
        comps_of = [{comp[line] for line in free_lines[y]} for y in range(36)]
        wild_comps = {comp[line] for line in wild_lines}
        # First a cheap test: the groups joined by the lines each colour or
        # design could still make (ignoring which copies they take) must
        # join everything.
        parent = {root: root for root in set(comp)}

        def find(a: int) -> int:
            while parent[a] != a:
                a = parent[a]
            return a

        for g in range(12):
            cells = [y for y in GROUP_CELLS[g] if free_lines[y]]
            if len(cells) + len(wild_lines) < self.min_line:
                continue
            reach = set().union(*(comps_of[y] for y in cells)) | wild_comps
            first = find(next(iter(reach)))
            for other in reach:
                other = find(other)
                if other != first:
                    parent[other] = first
        if len({find(a) for a in parent}) > 1:
            return False
        # The groups as bits: a line's reach is the union of its copies' groups.
        bit = {r: 1 << n for n, r in enumerate(parent)}
        comp_bits = [0] * 36
        for y in range(36):
            for r in comps_of[y]:
                comp_bits[y] |= bit[r]
        wild_bits = 0
        for r in wild_comps:
            wild_bits |= bit[r]
        root_bit = bit[root]
        shortest = max(self.min_line, 2)
        for g in range(12):
            cells = [y for y in GROUP_CELLS[g] if free_lines[y]]
            for k in range(min(len(cells), MAX_LINE), -1, -1):
                if k + min(len(wild_lines), MAX_LINE - k) < shortest:
                    continue
                for sub in itertools.combinations(cells, k):
                    reach = 0
                    for y in sub:
                        reach |= comp_bits[y]
                    for jokers in range(0, min(len(wild_lines), MAX_LINE - k) + 1):
                        if jokers == 1:
                            reach |= wild_bits
                        # It must be able to join the group of line 0 to another group.
                        if k + jokers >= shortest and reach & root_bit and reach & (reach - 1):
                            state = _LineChoice(g, frozenset(sub), [], {}, set(), None)
                            state.joining = True
                            state.key = (g, sub, jokers)
                            if self._fill(state, sub, 0, jokers):
                                return True
        return False

    def _try_line(
        self, q: int, x: int, g: int, cells: tuple[int, ...], todo: tuple[int, ...], jokers: int, key: tuple
    ) -> bool:
        """Choose copies for a new line of group g covering q (of cell x, -1 for a wild).

        The line holds q, one copy of each cell in `todo`, and `jokers` more wilds.
        """
        state = _LineChoice(g, frozenset(cells), [q], {}, set(), None)
        state.key = key
        state.target = q
        state.target_cell = x
        return self._fill(state, todo, 0, jokers)

    def _cross(self, state: "_LineChoice", i: int) -> int | None:
        """Take copy i (in exactly one line) as a crossing of the new line; its line, or None if impossible."""
        s = self.slot[i]
        line = s[0] if s[0] >= 0 else s[1]
        if line in state.crossed:
            return None
        free = 1 if s[0] >= 0 else 0  # the slot the new line would use, before any transposing
        comp = self._comp[line]
        if state.orient is None:
            state.orient = free
            state.flips[comp] = False
        elif comp in state.flips:
            if self.trees_only:
                self.rings_cut = True
                return None
            if free ^ state.flips[comp] != state.orient:
                return None
        else:
            state.flips[comp] = free != state.orient
        return line

    def _fill(self, state: "_LineChoice", todo: tuple[int, ...], k: int, jokers: int) -> bool:
        if k == len(todo):
            return self._fill_jokers(state, jokers, -1)
        y = todo[k]
        first_new = self.first_new[y]
        crossings = []
        for i in self.copies_of[y]:
            s = self.slot[i]
            if (s[0] < 0) != (s[1] < 0):
                crossings.append(i)
        if first_new >= 0 and not state.joining:
            state.members.append(first_new)
            if self._fill(state, todo, k + 1, jokers):
                return True
            state.members.pop()
        key = state.key
        first_key = self.first_key
        for i in crossings:
            if first_key[i] is not None and key < first_key[i]:
                continue
            saved = (state.orient, dict(state.flips))
            line = self._cross(state, i)
            if line is not None:
                state.crossed.add(line)
                state.members.append(i)
                if self._fill(state, todo, k + 1, jokers):
                    return True
                state.members.pop()
                state.crossed.discard(line)
            state.orient, state.flips = saved
        return False

    def _fill_jokers(self, state: "_LineChoice", jokers: int, after: int) -> bool:
        """Jokers: crossing wilds in increasing order, then the first uncovered wilds."""
        if jokers == 0:
            return self._commit(state)
        new_wilds = [i for i in self.wilds if self._uncovered(i) and i not in state.members]
        if len(new_wilds) >= jokers and not state.joining:
            state.members.extend(new_wilds[:jokers])
            if self._commit(state):
                return True
            del state.members[-jokers:]
        for i in self.wilds:
            if i <= after or i in state.members:
                continue
            s = self.slot[i]
            if not ((s[0] < 0) ^ (s[1] < 0)):
                continue
            line = s[0] if s[0] >= 0 else s[1]
            if not self._wild_fits(line, state):
                continue
            if self.first_key[i] is not None and state.key < self.first_key[i]:
                continue
            saved = (state.orient, dict(state.flips))
            if self._cross(state, i) is not None:
                state.crossed.add(line)
                state.members.append(i)
                if self._fill_jokers(state, jokers - 1, i):
                    return True
                state.members.pop()
                state.crossed.discard(line)
            state.orient, state.flips = saved
        return False

    def _wild_fits(self, line: int, state: "_LineChoice") -> bool:
        """Can one concrete tile stand for a wild in `line` and in the new line?"""
        g1, g2 = self.line_group[line], state.group
        if (g1 < 6) == (g2 < 6):
            return g1 == g2  # two colour lines: the same colour (so with designs free)
        colour, design = (g1, g2) if g1 < 6 else (g2, g1)
        x = (design - 6) * 6 + colour
        return x not in self.line_cells[line] and x not in state.cells

    def _commit(self, state: "_LineChoice") -> bool:
        """Place the chosen line, search on, and take it back."""
        if state.joining:
            root = self._comp[0]
            if len(state.flips) < 2 or root not in state.flips:
                return False
        if state.leaves is not None:
            # It must lead out of its group: a new copy, or a crossing with another group.
            if len(state.flips) < 2 and all(self.slot[m][0] >= 0 or self.slot[m][1] >= 0 for m in state.members):
                return False
        orient = 0 if state.orient is None else state.orient
        flipped = {root for root, flip in state.flips.items() if flip}
        if flipped:
            self._transpose(flipped)
        line = len(self.line_orient)
        self.line_orient.append(orient)
        self.line_group.append(state.group)
        self.line_cells.append(state.cells)
        self.line_members.append(list(state.members))
        taken = self._take(state.members, orient, line)
        target = state.target
        if target >= 0:
            saved_floor = self.floor.get(state.target_cell)
            self.floor[state.target_cell] = state.key
            self.first_key[target] = state.key
        saved_comp = self._comp
        # The groups of lines with the new one: it joins the groups it crosses.
        joined = {saved_comp[other] for other in state.crossed}
        if joined:
            self._comp = [line if root in joined else root for root in saved_comp]
            self._comp.append(line)
        else:
            self._comp = saved_comp + [line]
        dead_mark = len(self.dead_log)
        ok = (not state.crossed or self._still_drawable(line)) and self._node()
        self._comp = saved_comp
        while len(self.dead_log) > dead_mark:
            self.dead.discard(self.dead_log.pop())
        if target >= 0:
            self.first_key[target] = None
            if saved_floor is None:
                del self.floor[state.target_cell]
            else:
                self.floor[state.target_cell] = saved_floor
        self._give_back(state.members, orient, taken)
        self.line_orient.pop()
        self.line_group.pop()
        self.line_cells.pop()
        self.line_members.pop()
        if flipped:
            self._transpose(flipped)
        return ok

    def _take(self, members: list[int], orient: int, line: int) -> list[int]:
        """Put these copies in `line` (their slot `orient`) and bring the free copies up to
        date. Returns what _give_back needs: per member, where its other line was in the
        list of free lines it left (-1 for a copy that was uncovered)."""
        slot = self.slot
        cell = self.cell
        taken = []
        for i in members:
            s = slot[i]
            other = s[orient ^ 1]
            s[orient] = line
            x = cell[i]
            free = self.wild_lines if x < 0 else self.free_lines[x]
            if other < 0:
                # Uncovered until now: it gets a free slot.
                free.append(line)
                taken.append(-1)
                if x < 0:
                    self.wilds_new -= 1
                    continue
                if self.first_new[x] == i:
                    nxt = -1
                    for j in self.copies_of[x]:
                        if slot[j][0] < 0 and slot[j][1] < 0:
                            nxt = j
                            break
                    self.first_new[x] = nxt
                    if nxt < 0:
                        self.group_new[x % 6] -= 1
                        self.group_new[6 + x // 6] -= 1
            else:
                # A crossing: its free slot is taken.
                k = free.index(other)
                del free[k]
                taken.append(k)
                if x < 0:
                    continue
                if not free and self.first_new[x] < 0:
                    colour, design_bit, design, colour_bit = _MASK_BITS[x]
                    self.masks[colour] &= ~design_bit
                    self.masks[design] &= ~colour_bit
        return taken

    def _give_back(self, members: list[int], orient: int, taken: list[int]) -> None:
        """Undo _take: the members leave their slot `orient` again, in reverse order."""
        slot = self.slot
        cell = self.cell
        for n in range(len(members) - 1, -1, -1):
            i = members[n]
            k = taken[n]
            s = slot[i]
            s[orient] = -1
            x = cell[i]
            free = self.wild_lines if x < 0 else self.free_lines[x]
            if k < 0:
                free.pop()
                if x < 0:
                    self.wilds_new += 1
                else:
                    first = self.first_new[x]
                    if first < 0:
                        self.group_new[x % 6] += 1
                        self.group_new[6 + x // 6] += 1
                    if first < 0 or i < first:
                        self.first_new[x] = i
            else:
                if x >= 0 and not free and self.first_new[x] < 0:
                    colour, design_bit, design, colour_bit = _MASK_BITS[x]
                    self.masks[colour] |= design_bit
                    self.masks[design] |= colour_bit
                free.insert(k, s[orient ^ 1])

    def _still_drawable(self, line: int) -> bool:
        """False if the group of lines the new line joined can no longer be drawn on a grid.

        Lines added later only add constraints (a drawing of a structure,
        with the tiles of some lines removed, draws what is left), so an
        undrawable group can be pruned even in the proof search.
        """
        if self.drawable is None:
            return True
        comp = self._components()
        root = comp[line]
        return self.drawable(self, [other for other, r in enumerate(comp) if r == root])

    def _transpose(self, roots: set[int]) -> None:
        """Swap rows and columns in the groups of lines with these component roots."""
        lines = {line for line, root in enumerate(self._comp) if root in roots}
        for line in lines:
            self.line_orient[line] ^= 1
        for s in self.slot:
            if s[0] in lines or s[1] in lines:
                s[0], s[1] = s[1], s[0]


class _LineChoice:
    """The line being built: its group, concrete cells, chosen copies, and how it crosses."""

    __slots__ = (
        "group", "cells", "members", "flips", "crossed", "orient", "joining", "key", "target", "target_cell", "leaves"
    )

    def __init__(self, group, cells, members, flips, crossed, orient):
        self.group = group
        self.cells = cells
        self.members = members
        self.flips = flips  # component root -> transpose that group of lines?
        self.crossed = crossed  # lines this one already crosses (at most once each)
        self.orient = orient
        self.joining = False  # a line of copies already placed, joining groups of lines
        self.key: tuple = ()  # (group, sorted cells, jokers): orders lines for symmetry breaking
        self.target = -1  # the uncovered copy this line was made to cover (-1: a joining line)
        self.leaves: int | None = None  # the group of lines it must lead out of (see _cover_slot)
        self.target_cell = -1
