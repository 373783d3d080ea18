"""Growing a grid line by line, the way a player builds one (private to solver.py).

The structure search (_solver_search) covers the most constrained tile first,
wherever it lands, and joins the pieces at the end; with lines of two tiles
(the younger-players variation) a hand allows so many lines that it can cover
every tile in separate clusters and then spend long trying to join them. This
search never lets the grid fall apart: it starts from one line and every new
line crosses a tile already on the grid, at a place on the grid where it fits,
so every state is a drawable, connected partial grid.

It is a heuristic search with a limited effort, not a proof: it cannot say a
hand is impossible (the structure search does that). Within a line the tiles'
order is free, so a line holds a run of cells and a tile is pinned to a cell
only when a crossing line is placed through it.
"""
from __future__ import annotations

import itertools
import random

from companion.games.pivit_tiles._solver_layout import choose_wilds
from companion.games.pivit_tiles._solver_search import (
    GROUP_CELLS,
    MAX_LINE,
    Deadline,
    Effort,
    SearchTimeout,
    OPTION_TABLES,
    groups_of,
)

Cell = tuple[int, int]


class GrowSearch:
    """Depth-first growth of one connected grid from the copies `cells` (-1: a wild)."""

    def __init__(
        self,
        cells: list[int],
        min_line: int,
        deadline: Deadline | None,
        effort: Effort,
        shuffle_seed: int | None = None,
    ) -> None:
        self.n = len(cells)
        self.cell = list(cells)
        self.min_line = min_line
        self.table = OPTION_TABLES[min_line]
        self.deadline = deadline
        self.effort = effort
        self.rng = None if shuffle_seed is None else random.Random(shuffle_seed)
        self.slot = [[-1, -1] for _ in cells]
        self.uncovered: list[list[int]] = [[] for _ in range(36)]
        self.wilds_uncovered: list[int] = []
        for i, x in enumerate(cells):
            (self.wilds_uncovered if x < 0 else self.uncovered[x]).append(i)
        self.left = self.n
        self.orient: list[int] = []
        self.group: list[int] = []
        self.concrete: list[set[int]] = []  # the concrete cells in each line
        self.members: list[list[int]] = []
        self.run: list[list[Cell]] = []
        self.owner: dict[Cell, list[int]] = {}
        self.pinned: dict[int, Cell] = {}
        self.pin_at: dict[Cell, int] = {}
        self._undo: list[tuple[int, list[int], int | None]] = []
        self.wild_tile: dict[int, int] = {}  # wilds crossing a colour line and a design line: their tile
        self.nodes = 0

    # -- public ------------------------------------------------------------------

    def grow(self) -> dict[int, Cell] | None:
        """Every copy's cell in a grid holding all of them, or None if this search found none.

        Raises SearchGaveUp when the effort runs out and SearchTimeout after the deadline.
        """
        x = self._most_constrained_start()
        if x is None:
            return None
        return self._place_root(x)

    # -- the first line ----------------------------------------------------------

    def _most_constrained_start(self) -> int | None:
        """The tile with the fewest possible lines (the first line holds it), or None."""
        best, best_count = None, 1 << 30
        wilds = len(self.wilds_uncovered)
        masks = self._masks()
        for x in range(36):
            if self.uncovered[x]:
                gc, gd = groups_of(x)
                count = self.table[masks[gc]][x // 6][wilds] + self.table[masks[gd]][x % 6][wilds]
                if count < best_count:
                    best, best_count = x, count
        return best if best_count > 0 else None

    def _place_root(self, x: int) -> dict[int, Cell] | None:
        q = self.uncovered[x][0]
        for g, others, jokers in self._line_options(x, None):
            self._add_line(0, g, [q], others, jokers, None)
            found = self._step()
            if found is not None:
                return found
            self._remove_line()
        return None

    # -- growing -----------------------------------------------------------------

    def _masks(self) -> list[int]:
        """Six-bit masks per group of the cells that still have an uncovered copy or an open slot."""
        masks = [0] * 12
        for x in range(36):
            if self.uncovered[x]:
                gc, gd = groups_of(x)
                masks[gc] |= 1 << (x // 6)
                masks[gd] |= 1 << (x % 6)
        for i in self._open_slots():
            x = self.cell[i]
            if x >= 0:
                gc, gd = groups_of(x)
                masks[gc] |= 1 << (x // 6)
                masks[gd] |= 1 << (x % 6)
        return masks

    def _open_slots(self) -> list[int]:
        return [i for i, (r, c) in enumerate(self.slot) if (r < 0) != (c < 0)]

    def _step(self) -> dict[int, Cell] | None:
        """Grow on from here: the first finished grid below this state, or None."""
        self.nodes += 1
        self.effort.spend()
        if self.deadline is not None and self.nodes & 31 == 1 and self.deadline.passed():
            raise SearchTimeout
        if self.left == 0:
            return self._finish()
        open_slots = self._open_slots()
        wilds_free = len(self.wilds_uncovered) + sum(1 for i in open_slots if self.cell[i] < 0)
        masks = self._masks()
        # Every uncovered tile must still have some line (an over-estimate: sound to fail on).
        best = None
        best_key = None
        for x in range(36):
            if not self.uncovered[x]:
                continue
            gc, gd = groups_of(x)
            count = self.table[masks[gc]][x // 6][wilds_free] + self.table[masks[gd]][x % 6][wilds_free]
            if count == 0:
                return None
            anchors = sum(1 for i in open_slots if self._may_share(x, i))
            key = (anchors == 0, anchors, count)
            if best_key is None or key < best_key:
                best, best_key = x, key
        if best is None:
            target = -1  # only wilds are left
            anchors = len(open_slots)
        else:
            target = best
            anchors = 0 if best_key[0] else best_key[1]
        if anchors == 0:
            return None
        return self._attach(target, open_slots)

    def _may_share(self, x: int, i: int) -> bool:
        """Could tile cell x share a line with open-slot copy i?"""
        y = self.cell[i]
        if y < 0:
            return True
        return y != x and (y % 6 == x % 6 or y // 6 == x // 6)

    def _attach(self, x: int, open_slots: list[int]) -> dict[int, Cell] | None:
        """Branch over every line holding an uncovered copy of x (-1: a wild) that crosses the grid."""
        q = self.uncovered[x][0] if x >= 0 else self.wilds_uncovered[0]
        options = []
        for i in open_slots:
            if x >= 0 and not self._may_share(x, i):
                continue
            for g, others, jokers in self._line_options(x, i):
                options.append((len(others) + jokers, i, g, others, jokers))
        # Lines without wilds first (wilds are scarce and fit anywhere later), then
        # the longest lines (fewer lines, fewer crossings to place).
        if self.rng is not None:
            self.rng.shuffle(options)
        options.sort(key=lambda o: (o[4], -o[0]))  # a stable sort: random order among equals
        for _, i, g, others, jokers in options:
            line_members = [i, q]
            for placement in self._placements(i, 2 + len(others) + jokers):
                self._add_line(1 - self.orient[self._line_of(i)], g, line_members, others, jokers, placement)
                found = self._step()
                if found is not None:
                    return found
                self._remove_line()
        return None

    def _line_of(self, i: int) -> int:
        r, c = self.slot[i]
        return r if r >= 0 else c

    def _line_options(self, x: int, i: int | None):
        """(group, other new cells, new wilds) for lines holding an uncovered copy of cell x
        (-1: a wild) and the open-slot copy i (None: the first line)."""
        y = -1 if i is None else self.cell[i]
        if x >= 0:
            groups = [g for g in groups_of(x) if y < 0 or g in groups_of(y)]
        elif y >= 0:
            groups = list(groups_of(y))
        else:
            groups = list(range(12))
        crossing_wild = self._line_of(i) if i is not None and y < 0 else None
        spare_wilds = len(self.wilds_uncovered) - (1 if x < 0 else 0)
        taken = {c for c in (x, y) if c >= 0}
        fixed = len(taken) + (1 if x < 0 else 0) + (1 if y < 0 and i is not None else 0)
        for g in groups:
            pool = [z for z in GROUP_CELLS[g] if z not in taken and self.uncovered[z]]
            for k in range(min(len(pool), MAX_LINE - fixed), -1, -1):
                for others in itertools.combinations(pool, k):
                    if crossing_wild is not None:
                        # A wild already on the grid stands for one tile in both its lines.
                        if not self._wild_fits(i, crossing_wild, g, taken.union(others)):
                            continue
                    for jokers in range(0, min(spare_wilds, MAX_LINE - fixed - k) + 1):
                        if fixed + k + jokers >= self.min_line:
                            yield g, others, jokers

    def _wild_tile(self, line: int, g: int) -> int:
        """The tile a wild in `line` and in a crossing line of group g must be: a cell, -1 if
        only its colour (or design) is fixed, -2 if no tile can be both."""
        g1 = self.group[line]
        if (g1 < 6) == (g < 6):
            return -1 if g1 == g else -2
        colour, design = (g1, g) if g1 < 6 else (g, g1)
        return (design - 6) * 6 + colour

    def _wild_fits(self, w: int, line: int, g: int, cells: set[int]) -> bool:
        """Can wild w, now in `line`, also be in a new line of group g with concrete `cells`?"""
        tile = self._wild_tile(line, g)
        if tile == -2:
            return False
        if tile < 0:
            return True
        if tile in self.concrete[line] or tile in cells:
            return False
        # Another wild of that line already standing for the same tile?
        return all(self.wild_tile.get(v) != tile for v in self.members[line] if v != w)

    def _placements(self, i: int, length: int):
        """Runs of `length` cells for a line crossing open-slot copy i, with the cell pinned for i."""
        line = self._line_of(i)
        dr, dc = (0, 1) if self.orient[line] == 1 else (1, 0)  # the new line is perpendicular
        # i is in one line only, so not pinned yet: any cell of its line not
        # taken by a crossing can be its.
        anchors = [cell for cell in self.run[line] if cell not in self.pin_at]
        offsets = sorted(range(length), key=lambda t: -abs(2 * t - (length - 1)))
        for anchor in anchors:
            ar, ac = anchor
            for t in offsets:
                sr, sc = ar - t * dr, ac - t * dc
                if self._run_fits(sr, sc, dr, dc, length, anchor):
                    yield [(sr + k * dr, sc + k * dc) for k in range(length)], anchor

    def _run_fits(self, sr: int, sc: int, dr: int, dc: int, length: int, anchor: Cell) -> bool:
        """The run's cells other than the anchor are empty, touch no tile side-on, and the
        cells past its ends are empty."""
        owner = self.owner
        if (sr - dr, sc - dc) in owner or (sr + length * dr, sc + length * dc) in owner:
            return False
        for k in range(length):
            cell = (sr + k * dr, sc + k * dc)
            if cell == anchor:
                continue
            r, c = cell
            if cell in owner or (r + dc, c + dr) in owner or (r - dc, c - dr) in owner:
                return False
        return True

    # -- changing the grid -------------------------------------------------------

    def _add_line(self, orient, g, fixed_members, others, jokers, placement):
        """Add a line: `fixed_members` (an open-slot copy then the target, or just the target),
        one uncovered copy of each cell in `others`, and `jokers` uncovered wilds.
        `placement` is (cells, anchor cell) or None for the first line."""
        members = list(fixed_members)
        for z in others:
            members.append(self.uncovered[z][0])
        wild_pool = [w for w in self.wilds_uncovered if w not in members]
        members.extend(wild_pool[:jokers])
        line = len(self.orient)
        if placement is None:
            length = len(members)
            cells = [(0, k) if orient == 0 else (k, 0) for k in range(length)]
            anchor = None
        else:
            cells, anchor = placement
        self.orient.append(orient)
        self.group.append(g)
        self.concrete.append({self.cell[m] for m in members if self.cell[m] >= 0})
        self.members.append(members)
        self.run.append(cells)
        new = []
        for m in members:
            if self.slot[m][0] < 0 and self.slot[m][1] < 0:
                new.append(m)
            self.slot[m][orient] = line
        for m in new:
            x = self.cell[m]
            (self.wilds_uncovered if x < 0 else self.uncovered[x]).remove(m)
        self.left -= len(new)
        for cell in cells:
            self.owner.setdefault(cell, []).append(line)
        first = fixed_members[0]
        if placement is not None and self.cell[first] < 0:
            tile = self._wild_tile(self._other_line(first, line), g)
            if tile >= 0:
                self.wild_tile[first] = tile
        pin = None
        if anchor is not None:
            pin = fixed_members[0]
            self.pinned[pin] = anchor
            self.pin_at[anchor] = pin
        self._undo.append((line, new, pin))
        return line

    def _other_line(self, i: int, line: int) -> int:
        r, c = self.slot[i]
        return c if r == line else r

    def _remove_line(self) -> None:
        line, new, pin = self._undo.pop()
        orient = self.orient.pop()
        self.group.pop()
        self.concrete.pop()
        members = self.members.pop()
        cells = self.run.pop()
        for m in members:
            self.slot[m][orient] = -1
        self.wild_tile.pop(members[0], None)
        for m in sorted(new):
            x = self.cell[m]
            pool = self.wilds_uncovered if x < 0 else self.uncovered[x]
            pool.append(m)
            pool.sort()
        self.left += len(new)
        for cell in cells:
            here = self.owner[cell]
            here.remove(line)
            if not here:
                del self.owner[cell]
        if pin is not None:
            del self.pin_at[self.pinned.pop(pin)]

    def _finish(self) -> dict[int, Cell] | None:
        """Every copy's cell: crossing copies where pinned, the others in their line's free cells.

        None if the wilds cannot all be given tiles (then the search goes on).
        """
        wilds = [i for i, x in enumerate(self.cell) if x < 0]
        if wilds and choose_wilds(self.group, [frozenset(c) for c in self.concrete], self.members, self.slot, wilds) is None:
            return None
        pos = dict(self.pinned)
        for line, cells in enumerate(self.run):
            free = [cell for cell in cells if cell not in self.pin_at]
            plain = [m for m in self.members[line] if m not in self.pinned]
            pos.update(zip(plain, free))
        return pos
