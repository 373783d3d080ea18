"""Drawing a line structure as a grid, and choosing the wilds' tiles (private to solver.py).

The search (_solver_search) decides which copies form which lines, which
lines are rows and which are columns, and where they cross. Here the lines
get places: each row line is a run of cells in one grid row, each column line
a run in one grid column, two lines meet exactly at their crossing copy, and
no tile touches a tile of another line anywhere else (a touch would make a
new, unplanned line).

The order of tiles inside a line is free, so a placed line is just a run of
cells; which cell holds which of its copies is decided only when a crossing
line is placed through it ("pinning" the crossing copy there). The search
places one line at a time, always the one with the fewest possible runs left
(a line crossing two placed lines usually has one or none), and fails as soon
as some line next to the placed ones has no run left. It is exhaustive, so
"no drawing" is a proof.
"""
from __future__ import annotations


from companion.games.pivit_tiles._solver_search import GROUP_CELLS, Deadline, Effort, SearchTimeout

Cell = tuple[int, int]

# Inside the layout a cell (r, c) is the number (r + _MID) * _ROW + c + _MID:
# a step along a row is 1, along a column _ROW, and a cell is looked up by an
# int instead of a tuple. A drawing spans fewer than _MID cells each way (a
# hand has at most 114 tiles).
_ROW = 1024
_MID = 512
_ORIGIN = _MID * _ROW + _MID


class LayoutGaveUp(Exception):
    """The layout reached its step limit without deciding whether a drawing exists."""


def choose_wilds(
    line_group: list[int],
    line_cells: list[frozenset[int]],
    line_members: list[list[int]],
    slot: list[list[int]],
    wilds: list[int],
) -> dict[int, int] | None:
    """A concrete cell for every wild copy that fits all its lines at once, or None.

    A wild stands for a tile of its line's colour (or design) not already in
    that line, the same tile in its row and in its column, and two wilds in
    one line stand for different tiles.
    """
    options: dict[int, list[int]] = {}
    for w in wilds:
        allowed: set[int] | None = None
        for line in slot[w]:
            if line < 0:
                continue
            here = set(GROUP_CELLS[line_group[line]]) - line_cells[line]
            allowed = here if allowed is None else allowed & here
        options[w] = sorted(allowed or ())
    order = sorted(wilds, key=lambda w: len(options[w]))
    chosen: dict[int, int] = {}

    def clash(w: int, x: int) -> bool:
        for line in slot[w]:
            if line >= 0 and any(chosen.get(v) == x for v in line_members[line] if v != w):
                return True
        return False

    def place(k: int) -> bool:
        if k == len(order):
            return True
        w = order[k]
        for x in options[w]:
            if not clash(w, x):
                chosen[w] = x
                if place(k + 1):
                    return True
                del chosen[w]
        return False

    return dict(chosen) if place(0) else None


def _xy(cell: int) -> Cell:
    """The (row, column) of a cell numbered as in _Layout."""
    r, c = divmod(cell, _ROW)
    return r - _MID, c - _MID


class _Layout:
    """The backtracking state: runs of the placed lines and the pinned crossing copies.

    The search backjumps: a failure comes back with the set of placed lines
    whose places explain it (the lines that block every run of some line,
    and the lines that fix where that line may cross), and a line not in that
    set is not worth moving, so its other runs are skipped.
    """

    def __init__(self, line_orient, line_members, slot, deadline, max_steps, effort):
        self.effort = effort
        self.orient = line_orient
        self.members = line_members
        self.n_lines = len(line_orient)
        self.deadline = deadline
        self.max_steps = max_steps
        self.steps = 0
        # neighbours[line] = [(other line, crossing copy), ...]
        self.neighbours: list[list[tuple[int, int]]] = [[] for _ in line_orient]
        for i, (r, c) in enumerate(slot):
            if r >= 0 and c >= 0:
                self.neighbours[r].append((c, i))
                self.neighbours[c].append((r, i))
        self.crosses = [{other for other, _ in pairs} for pairs in self.neighbours]
        self.placed_crossing = [0] * self.n_lines  # how many lines crossing each one are placed
        self.run: dict[int, list[int]] = {}  # placed line -> its cells in order
        # Occupied cell -> the placed lines through it (two at a crossing,
        # whose copy is then pinned there: a copy is pinned once both its
        # lines are placed).
        self.owner: dict[int, list[int]] = {}
        self.pinned: dict[int, int] = {}  # crossing copy -> its cell
        self.pin_at: dict[int, int] = {}  # cell -> the crossing copy pinned there
        self.root = -1

    def solve(self) -> bool:
        if self.n_lines == 0:
            return True
        # Start from the line with the most crossings: the crowded part of a
        # structure is where a drawing fails, so it is best settled first.
        root = max(range(self.n_lines), key=lambda line: len(self.neighbours[line]))
        self.root = root
        length = len(self.members[root])
        step = self._step(root)
        self._put(root, [_ORIGIN + t * step for t in range(length)], [])
        if self._search() is True:
            return True
        self._take(root, [])
        return False

    def _step(self, line: int) -> int:
        """The difference between neighbouring cells of the line: 1 along a row, _ROW down a column."""
        return 1 if self.orient[line] == 0 else _ROW

    def _search(self, before: dict | None = None, last: int = -1) -> bool | set[int]:
        """True once every line is placed; else the placed lines that explain the failure.

        `before` holds the (runs, blame) worked out one placement earlier,
        before `last` was placed: a line that does not cross `last` keeps
        those of its runs that `last` leaves free (`_kept`), in their order.
        """
        if len(self.run) == self.n_lines:
            return True
        self.steps += 1
        if self.effort is not None:
            self.effort.spend()
        if self.max_steps is not None and self.steps > self.max_steps:
            raise LayoutGaveUp
        if self.deadline is not None and self.steps & 31 == 1 and self.deadline.passed():
            raise SearchTimeout
        best = -1
        best_runs: list = []
        best_why: set[int] = set()
        found: dict[int, tuple[list, set[int]]] = {}
        crosses = self.crosses[last] if last >= 0 else ()
        placed_crossing = self.placed_crossing
        for line in range(self.n_lines):
            if not placed_crossing[line] or line in self.run:
                continue
            earlier = before.get(line) if before is not None and line not in crosses else None
            runs, why = self._runs(line) if earlier is None else self._kept(line, last, *earlier)
            if not runs:
                return why  # forward check: this line can no longer be drawn
            found[line] = (runs, why)
            if best < 0 or len(runs) < len(best_runs):
                best, best_runs, best_why = line, runs, why
                if len(runs) == 1:
                    break
        if best < 0:
            return set()  # not one connected group (the search never offers one)
        if len(self.run) == 1:
            best_runs = self._canonical(best_runs)
        conflict = set(best_why)
        for cells, pins in best_runs:
            self._put(best, cells, pins)
            result = self._search(found, best)
            if result is True:
                return True
            self._take(best, pins)
            if best not in result:
                return result  # moving this line cannot help: jump back
            conflict |= result
        conflict.discard(best)
        return conflict

    def _kept(self, line: int, last: int, runs: list, why: set[int]) -> tuple[list, set[int]]:
        """`_runs(line)` from its runs before `last` was placed (a line it does not cross).

        Placing a line only takes runs away: a run stays if it is still clear
        of every other line (the test of `_runs`, where only `last` can now be
        in the way), so the runs are those `_runs` would give, in its order.
        The runs lost are blamed on `last`, the others on what was blamed
        before (the same lines, still in place).
        """
        step = self._step(line)
        side = _ROW + 1 - step
        owner = self.owner
        crossing = {other for other, _ in self.neighbours[line] if other in self.run}
        kept = []
        for cells, pins in runs:
            if owner.get(cells[0] - step) or owner.get(cells[-1] + step):
                continue
            for cell in cells:
                lines_here = owner.get(cell)
                if lines_here is None:
                    if owner.get(cell + side) or owner.get(cell - side):
                        break
                elif len(lines_here) != 1 or lines_here[0] not in crossing:
                    break
            else:
                kept.append((cells, pins))
        if len(kept) < len(runs):
            why = why | {last}
        return kept, why

    def _canonical(self, runs):
        """The runs of the first line crossing the root that are not mirror images of others.

        Mirroring the whole drawing along the root, or across it, gives a
        drawing too; so the first crossing line may be taken to cross the
        root's first half and to reach at least as far on its far side.
        """
        root_length = len(self.members[self.root])
        along = 1 if self.orient[self.root] == 0 else 0  # coordinate along the root
        out = []
        for cells, pins in runs:
            (anchor,) = [_xy(cell) for _, cell in pins]
            if 2 * anchor[along] > root_length - 1:
                continue
            across = [_xy(cell)[1 - along] for cell in cells]
            if -min(across) > max(across):
                continue
            out.append((cells, pins))
        return out

    def _runs(self, line: int):
        """(every run the line can take now with the copies it pins, the lines to blame for the rest).

        A run from a start cell is taken if it crosses exactly its placed
        neighbours at free cells and touches nothing else; else the placed
        lines in its way are blamed (the first found: a line it would run on
        into, one it would touch side-on, a crossing already taken or a line
        it does not cross, or, when it misses a line it must cross, those).
        """
        length = len(self.members[line])
        step = self._step(line)
        side = _ROW + 1 - step  # to the cells beside the line's
        beyond = length * step
        run = self.run
        owner = self.owner
        pin_at = self.pin_at
        placed = [(other, i) for other, i in self.neighbours[line] if other in run]
        crossing_of = {other: i for other, i in placed}
        crossings = len(crossing_of)
        why = set(crossing_of)  # where the line may cross depends on these
        anchor_line = placed[0][0]
        anchors = []
        for cell in run[anchor_line]:
            if cell in pin_at:
                why.update(owner[cell])  # a crossing already took that cell
            else:
                anchors.append(cell)
        out = []
        # The anchors lie across the line (they are on a line it crosses), so
        # no start is met twice.
        for anchor in anchors:
            for t in range(length):
                start = anchor - t * step
                ends = owner.get(start - step) or owner.get(start + beyond)
                if ends:
                    why.update(ends)  # the run would run on into another line
                    continue
                cells = []
                pins = []
                cell = start
                for _ in range(length):
                    cells.append(cell)
                    lines_here = owner.get(cell)
                    if lines_here is None:
                        beside = owner.get(cell + side) or owner.get(cell - side)
                        if beside:
                            why.update(beside)  # would touch another line side-on
                            break
                    elif len(lines_here) != 1 or lines_here[0] not in crossing_of:
                        why.update(lines_here)  # a crossing already, or a line it does not cross
                        break
                    else:
                        pins.append((crossing_of[lines_here[0]], cell))
                    cell += step
                else:
                    if len(pins) != crossings:
                        why.update(crossing_of)  # misses a line it must cross
                    else:
                        out.append((cells, pins))
        return out, why

    def _put(self, line, cells, pins):
        self.run[line] = cells
        for other in self.crosses[line]:
            self.placed_crossing[other] += 1
        for cell in cells:
            self.owner.setdefault(cell, []).append(line)
        for copy, cell in pins:
            self.pinned[copy] = cell
            self.pin_at[cell] = copy

    def _take(self, line, pins):
        for other in self.crosses[line]:
            self.placed_crossing[other] -= 1
        for cell in self.run.pop(line):
            here = self.owner[cell]
            here.remove(line)
            if not here:
                del self.owner[cell]
        for copy, cell in pins:
            del self.pinned[copy]
            del self.pin_at[cell]

    def positions(self) -> dict[int, Cell]:
        """Every copy's cell: crossing copies where pinned, the others in the remaining cells."""
        pos = {copy: _xy(cell) for copy, cell in self.pinned.items()}
        for line, cells in self.run.items():
            free = [_xy(cell) for cell in cells if cell not in self.pin_at]
            plain = [i for i in self.members[line] if i not in self.pinned]
            pos.update(zip(plain, free))
        return pos


def lay_out(
    line_orient: list[int],
    line_members: list[list[int]],
    slot: list[list[int]],
    deadline: Deadline | None = None,
    max_steps: int | None = None,
    effort: Effort | None = None,
) -> dict[int, Cell] | None:
    """A grid cell for every copy so that the runs of the grid are exactly the given lines, or None.

    None means no drawing exists. Raises SearchTimeout after `deadline`,
    LayoutGaveUp after `max_steps` placements without an answer, and
    SearchGaveUp when `effort` runs out.
    """
    layout = _Layout(line_orient, line_members, slot, deadline, max_steps, effort)
    return layout.positions() if layout.solve() else None
