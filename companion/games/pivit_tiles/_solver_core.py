"""Proofs of impossibility from a few hard-to-place tiles (private to solver.py).

A hand often fails because of a handful of tiles with few partners: three
copies of a tile whose colour and design only two other tiles share, say.
The full structure search (_solver_search) finds that out only after trying
every way to place the other, easy tiles, which in the younger-players
variation (lines of two) can take minutes. This module looks at those few
tiles alone.

Take a set C of tiles of the hand (the *core*). In any correct grid, the
lines that hold a copy of a core tile hold only that tile's partners (tiles
of its colour or design) and wilds, every copy of the core lies in one or two
of them, and each connected group of those lines either is the whole grid or
reaches the rest of the grid: some copy in it, not of the core, lies in a
second line with no core copy, so that copy has a partner outside the core
(enough of them for a line: min_line - 1 distinct tiles or wilds of its colour
or design that are not core tiles). So if no set of lines exists with

- every copy of the core in one or two lines, no copy in more than two;
- each line of one colour or one design, its tiles distinct, min_line to six
  of them, wilds free to stand for any tile of it, but a wild in two lines
  stands for one tile of both lines' colour or design that neither line
  already holds (as in every grid);
- two lines sharing at most one copy (a row and a column meet at one cell);
- every connected group of these lines holding every copy of the hand, or
  having a copy not of the core in one line only that could lead outside;

then no grid exists. This is a relaxation (the grid's geometry, which lines
are rows, and the tiles of wilds in one line only are ignored), so it can only ever say
"impossible" truthfully, and only when its search ran to the end.

The search gives each core copy in turn all of its lines (lines it shares
with core copies handled earlier were made then), and prunes a branch as soon
as some group of lines can no longer reach outside or a core copy has no
partner left. Copies of one tile are interchangeable: a line takes the first
copy of a tile not yet in any line, and core copies of one tile not yet in any
line get their lines in increasing order.
"""
from __future__ import annotations

import itertools

from companion.games.pivit_tiles._solver_search import (
    GROUP_CELLS,
    GROUP_MASKS,
    MAX_LINE,
    Deadline,
    SearchTimeout,
    groups_of,
)

# Which cores are tried: tiles with at most this many distinct partners
# (counting each wild as one), sets of up to CORE_SIZE of them, each search
# limited to CORE_STEPS steps (a core whose search runs out proves nothing),
# all of a hand's searches to CORE_TOTAL_STEPS.
TIGHT_PARTNERS = 4
CORE_SIZE = 3
# The counting proof, asked by the solver once its first attempt has not
# decided, looks at tiles with one partner more: a tile of three copies with
# five partners (three 5P whose partners are 1P, 5R, 5O, 5G and a wild) may
# join two tight tiles in a core whose copies outnumber their partners'
# (young hands two trades from a bench hand that the structure search could
# not decide in 10 s of CPU). Asked on every hand (few_tiles_proof, for the
# advisor), that costs about 5 % more work for no proof on the bench hands.
COUNT_PARTNERS = 5
CORE_STEPS = 10000
CORE_TOTAL_STEPS = 40000


# Whether a wild in two lines must stand for one tile of both (see _wild_fits).
# Always on; a switch so that the tests can show what the rule proves.
WILD_TILES = True


class _OutOfSteps(Exception):
    pass


def _partnered_slow(x: int, y: int) -> bool:
    return x < 0 or y < 0 or (x != y and (x % 6 == y % 6 or x // 6 == y // 6))


# _PARTNERED[x][y] for cells 0..35 and -1 (a wild: the last entry, so that
# Python's index -1 finds it).
_CELLS_AND_WILD = list(range(36)) + [-1]
_PARTNERED = [[_partnered_slow(x, y) for y in _CELLS_AND_WILD] for x in _CELLS_AND_WILD]


# Each cell's partners as a mask over the 36 cells (its colour and design
# groups, without itself).
_PARTNER_MASK = [(GROUP_MASKS[x % 6] | GROUP_MASKS[6 + x // 6]) & ~(1 << x) for x in range(36)]


def _held(cells: list[int]) -> int:
    """The mask of the distinct tiles among `cells` (bit x for cell x; wilds, -1, left out)."""
    held = 0
    for x in cells:
        if x >= 0:
            held |= 1 << x
    return held


def _partnered(x: int, y: int) -> bool:
    """Can copies of cells x and y (-1: a wild) share a line?"""
    return _PARTNERED[x][y]


def core_proof(
    cells: list[int],
    min_line: int,
    deadline: Deadline | None = None,
    steps: int = CORE_STEPS,
    search: bool = True,
    count_partners: int = TIGHT_PARTNERS,
) -> tuple[int, ...] | None:
    """The cells of a core that no set of lines can place (so the hand is impossible), or None.

    `cells[i]` is the cell of copy i, -1 for a wild. None means no core was
    proved, not that the hand has a grid. The counting proof comes first (a
    fraction of a millisecond); `search` adds the searches (up to
    CORE_TOTAL_STEPS steps). The counting proof looks at the tiles with at most
    `count_partners` distinct partners (wilds counted). Raises SearchTimeout after `deadline`.
    """
    if len(cells) <= 1:
        return None  # a hand of one tile is a grid of one tile, with no line
    held = _held(cells)
    present = [x for x in range(36) if held >> x & 1]
    wilds = cells.count(-1)
    partnered = {x: (_PARTNER_MASK[x] & held).bit_count() + wilds for x in present}
    core = _counted_core(cells, [x for x in present if partnered[x] <= count_partners], min_line)
    if core is not None or not search:
        return core
    tight = [x for x in present if partnered[x] <= TIGHT_PARTNERS]
    partners = {x: {y for y in present if _PARTNERED[x][y]} for x in present}
    spent = 0
    for core in _cores(tight, partners, wilds):
        if spent >= CORE_TOTAL_STEPS:
            return None
        answer, used = _placeable(_problem(cells, core, min_line), deadline, steps)
        if answer is False:
            return core
        spent += used
    return None


def placeable(cells: list[int], core: tuple[int, ...], min_line: int, steps: int = CORE_STEPS) -> bool | None:
    """Whether some set of lines places every copy of the tiles `core` (sorted cells) among the
    copies `cells`: False proves the hand impossible, as in core_proof; None: the search ran out
    of `steps`. Remembered per problem."""
    return _placeable(_problem(cells, core, min_line), None, steps)[0]


def _too_few_partners(m: int, q: int, whole: bool, min_line: int) -> bool:
    """The counting proof, for core tiles that pairwise share no colour and no design.

    Then every line holding a core copy holds exactly one (copies of a tile
    never share a line). Count, over those lines and the copies in them: m
    core copies, q partner copies (not of the core; wilds included), L lines,
    E memberships, k groups. Each group is connected, so E >= m + q + L - k.
    Each line holds one core copy, so the core copies' memberships number L,
    and the partner copies' memberships E - L are at least (min_line - 1) L
    >= (min_line - 1) m. A partner copy lies in two lines at most, and each
    group has one that leads out and so lies in one of these lines only:
    E - L <= 2q - k. Hence q >= m and 2q - k >= (min_line - 1) m, with
    k >= 1. When the lines hold every copy of the hand no group needs to
    lead out: q >= m - 1 and 2q >= (min_line - 1) m. The hand has at least
    q partner copies; too few of them prove it impossible. `whole`: the core
    and partner copies are the whole hand.
    """
    if whole:
        return q < m - 1 or 2 * q < (min_line - 1) * m
    return q < m or 2 * q - 1 < (min_line - 1) * m


def _counted_core(cells: list[int], tight: list[int], min_line: int) -> tuple[int, ...] | None:
    """The first core (smallest first, then in itertools.combinations order) of up to CORE_SIZE + 1
    of the tiles `tight`, sharing no colour and no design, that the counting proof rules out; or None.

    A proof needs no more partner copies than core copies (q <= m, for lines of two or three),
    and adding a tile adds at most its copies to m and never lowers q: a partial core with
    more partner copies than the most copies its other tiles can bring is not extended.
    """
    at: dict[int, int] = {}  # cell -> bit j for each copy j of it (-1: the wilds)
    for j, y in enumerate(cells):
        at[y] = at.get(y, 0) | 1 << j
    wild_copies = at.get(-1, 0)
    copies = [at[x].bit_count() for x in tight]
    partner_copies = []  # bit j: copy j partners x (wilds partner every tile)
    for x in tight:
        bits = wild_copies
        partners = _PARTNER_MASK[x]
        for y, mask in at.items():
            if y >= 0 and partners >> y & 1:
                bits |= mask
        partner_copies.append(bits)
    most = max(copies, default=0) if min_line <= 3 else len(cells)
    n = len(cells)
    found: list[int] = []

    def extend(size: int, begin: int, taken: list[int], m: int, union: int) -> bool:
        if not size:
            q = union.bit_count()
            if _too_few_partners(m, q, m + q == n, min_line):
                found.extend(taken)
                return True
            return False
        if union.bit_count() > m + most * size:
            return False
        for k in range(begin, len(tight) - size + 1):
            x = tight[k]
            if all(x % 6 != tight[y] % 6 and x // 6 != tight[y] // 6 for y in taken):
                taken.append(k)
                if extend(size - 1, k + 1, taken, m + copies[k], union | partner_copies[k]):
                    return True
                taken.pop()
        return False

    for size in range(1, CORE_SIZE + 2):
        if extend(size, 0, [], 0, 0):
            return tuple(tight[k] for k in found)
    return None


def _cores(tight: list[int], partners: dict[int, set[int]], wilds: int):
    """The cores to search, smallest first."""
    for size in range(1, CORE_SIZE + 1):
        for core in itertools.combinations(tight, size):
            # A core of unrelated tiles proves nothing its parts do not; with
            # a wild every tile is related (they may compete for it).
            if (
                size > 1
                and not wilds
                and not all(any(y != x and (y in partners[x] or partners[x] & partners[y]) for y in core) for x in core)
            ):
                continue
            yield core


# The searches' answers and steps by problem: hands a trade apart mostly pose
# the same problem for a core (the tiles far from it do not enter it).
# Bounded; an answer depends only on its key, and a remembered search counts
# its steps again, so a hand's verdict never depends on what was asked before.
_ANSWERS: dict[tuple, tuple[bool | None, int]] = {}
_ANSWERS_KEPT = 20000


def _problem(cells: list[int], core: tuple[int, ...], min_line: int) -> tuple:
    """What the core's search depends on: the core, the copies that may share its lines (core
    tiles, their partners, wilds) in order, which of them could lead out, whether other copies
    exist, and the shortest line."""
    in_core = 0
    related = 0  # the core's tiles and their partners
    for c in core:
        in_core |= 1 << c
        related |= _PARTNER_MASK[c]
    related |= in_core
    near = sorted(x for x in cells if x < 0 or related >> x & 1)
    held = _held(cells)
    outside = held & ~in_core
    wilds = cells.count(-1)
    lead_out = tuple(
        x
        for x in range(36)
        if (related & outside) >> x & 1
        and any(
            0 < (GROUP_MASKS[g] & outside & ~(1 << x)).bit_count() + wilds >= min_line - 1 for g in groups_of(x)
        )
    )
    return core, tuple(near), lead_out, len(near) < len(cells), min_line


def _placeable(problem: tuple, deadline: Deadline | None, steps: int) -> tuple[bool | None, int]:
    """(True or False: whether the problem's lines exist, None: the search ran out of steps; steps used).

    Raises SearchTimeout (and then remembers nothing).
    """
    key = problem + (steps,)
    if key in _ANSWERS:
        return _ANSWERS[key]
    core, near, lead_out, others, min_line = problem
    search = _CoreSearch(list(near), core, set(lead_out), others, min_line, deadline, steps)
    try:
        answer: bool | None = search.run()
    except _OutOfSteps:
        answer = None
    if len(_ANSWERS) >= _ANSWERS_KEPT:
        _ANSWERS.clear()
    _ANSWERS[key] = answer, steps - max(search.steps_left, 0)
    return _ANSWERS[key]


class _CoreSearch:
    """Whether some set of lines places every copy of the core tiles `core` (see the module docstring).

    `cells` are the copies that may share a line with a core copy, `lead_out`
    the tiles among them that could lead out to the other copies, `others`
    whether other copies exist.
    """

    def __init__(
        self,
        cells: list[int],
        core: tuple[int, ...],
        lead_out: set[int],
        others: bool,
        min_line: int,
        deadline: Deadline | None,
        steps: int,
    ):
        self.cells = cells
        self.n = len(cells)
        self.min_line = min_line
        self.deadline = deadline
        self.steps_left = steps
        in_core = set(core)
        self.in_core = [x in in_core for x in cells]
        self.copies: dict[int, list[int]] = {}
        for i, x in enumerate(cells):
            self.copies.setdefault(x, []).append(i)
        # Core copies by tile, the tile with the fewest partner copies first;
        # copies of one tile next to each other.
        self.order = sorted(
            (i for i in range(self.n) if self.in_core[i]),
            key=lambda i: (sum(1 for y in cells if y != cells[i] and _partnered(cells[i], y)), cells[i], i),
        )
        self.can_lead_out = {x: x < 0 or x in lead_out for x in cells}
        self.others = others
        self.lines: list[tuple[int, tuple[int, ...], tuple]] = []  # (group, copies, key)
        self.made_by: list[int] = []  # the step (index in order) that made each line
        self.lines_of: list[list[int]] = [[] for _ in cells]
        self.done = [False] * self.n  # core copies whose lines are all chosen
        self.was_new: dict[int, bool] = {}  # step -> its copy was in no line when the step began
        self.finished_keys: dict[int, tuple] = {}  # step -> the keys of the lines its copy made

    def run(self) -> bool:
        return self._step(0)

    def _open(self, j: int) -> bool:
        return not self.done[j] and len(self.lines_of[j]) < 2

    def _step(self, k: int) -> bool:
        self.steps_left -= 1
        if self.steps_left < 0:
            raise _OutOfSteps
        if self.deadline is not None and self.steps_left & 63 == 0 and self.deadline.passed():
            raise SearchTimeout
        if not self._alive(k):
            return False
        if k == len(self.order):
            return True
        i = self.order[k]
        fresh = k not in self.was_new
        if fresh:
            self.was_new[k] = not self.lines_of[i]
        try:
            return self._give_lines(k, i)
        finally:
            if fresh:
                del self.was_new[k]

    def _before(self, k: int) -> tuple | None:
        """The line keys of the previous copy of the same tile, when both began in no line."""
        if k == 0 or not self.was_new[k] or not self.was_new.get(k - 1):
            return None
        if self.cells[self.order[k - 1]] != self.cells[self.order[k]]:
            return None
        return self.finished_keys[k - 1]

    def _give_lines(self, k: int, i: int) -> bool:
        before = self._before(k)
        made = sorted(self.lines[line][2] for line in self.lines_of[i] if self.made_by[line] == k)
        if self.lines_of[i] and (before is None or tuple(made) >= before):
            self.done[i] = True
            self.finished_keys[k] = tuple(made)
            ok = self._step(k + 1)
            self.done[i] = False
            del self.finished_keys[k]
            if ok:
                return True
        if len(self.lines_of[i]) >= 2:
            return False
        floor = made[-1] if made else (before[0] if before else None)
        for group, members, key in self._lines_through(i):
            if floor is not None and key < floor:
                continue
            self._add(group, members, key, k)
            ok = self._step(k)
            self._remove()
            if ok:
                return True
        return False

    def _lines_through(self, i: int):
        """(group, copies, key) for every new line through copy i. The key: group and cells."""
        x = self.cells[i]
        mine = {j for line in self.lines_of[i] for j in self.lines[line][1]}
        wilds = [j for j in self.copies.get(-1, ()) if j not in mine and self._open(j)]
        in_lines = [j for j in wilds if self.lines_of[j]]
        new = [j for j in wilds if not self.lines_of[j]]  # interchangeable: the first ones are taken
        wild_sets = [
            used + tuple(new[:fresh])
            for jokers in range(len(wilds) + 1)
            for fresh in range(min(jokers, len(new)) + 1)
            if jokers - fresh <= len(in_lines)
            for used in itertools.combinations(in_lines, jokers - fresh)
        ]
        for g in groups_of(x):
            choices = {}
            for y in GROUP_CELLS[g]:
                if y == x or y not in self.copies:
                    continue
                options = []
                took_new = False
                for j in self.copies[y]:
                    if j in mine or not self._open(j):
                        continue
                    if not self.lines_of[j]:
                        if took_new:
                            continue  # copies in no line are interchangeable
                        took_new = True
                    options.append(j)
                if options:
                    choices[y] = options
            others = sorted(choices)
            for size in range(min(MAX_LINE - 1, len(others)) + 1):
                for sub in itertools.combinations(others, size):
                    for picked in itertools.product(*(choices[y] for y in sub)):
                        if not self._apart((i,) + picked):
                            continue
                        concrete = None
                        for chosen in wild_sets:
                            if not self.min_line <= 1 + size + len(chosen) <= MAX_LINE:
                                continue
                            members = (i,) + picked + chosen
                            if not self._apart(members):
                                continue
                            if WILD_TILES and any(self.lines_of[j] for j in chosen):
                                if concrete is None:
                                    concrete = {self.cells[j] for j in (i,) + picked}
                                if not all(self._wild_fits(j, g, concrete) for j in chosen if self.lines_of[j]):
                                    continue
                            yield g, members, (g, tuple(sorted(self.cells[j] for j in members)))

    def _wild_fits(self, j: int, g: int, concrete: set[int]) -> bool:
        """Can wild j, already in a line, stand for one tile in it and in a new line of group g
        holding the tiles `concrete`? In any grid a wild in two lines stands for one tile of both
        lines' colour or design, and repeats no tile of either."""
        (line,) = self.lines_of[j]
        g1 = self.lines[line][0]
        if (g1 < 6) == (g < 6):
            return g1 == g
        colour, design = (g1, g) if g1 < 6 else (g, g1)
        x = (design - 6) * 6 + colour
        return x not in concrete and all(self.cells[k] != x for k in self.lines[line][1])

    def _apart(self, members: tuple[int, ...]) -> bool:
        """No two of these copies already share a line (two lines share at most one copy)."""
        seen = set()
        for j in members:
            for line in self.lines_of[j]:
                if line in seen:
                    return False
                seen.add(line)
        return True

    def _add(self, group: int, members: tuple[int, ...], key: tuple, k: int) -> None:
        line = len(self.lines)
        self.lines.append((group, members, key))
        self.made_by.append(k)
        for j in members:
            self.lines_of[j].append(line)

    def _remove(self) -> None:
        _, members, _ = self.lines.pop()
        self.made_by.pop()
        for j in members:
            self.lines_of[j].pop()

    def _alive(self, k: int) -> bool:
        """False when some core copy has no partner left, or some group of lines can never reach out."""
        cells = self.cells
        waiting = [i for i in self.order[k:] if self._open(i)]
        for i in self.order[k:]:
            if not self.lines_of[i] and not any(
                j != i and self._open(j) and _partnered(cells[i], cells[j]) for j in range(self.n)
            ):
                return False
        if not self.lines:
            return True
        parent = list(range(len(self.lines)))

        def find(a: int) -> int:
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        placed = 0
        for lines in self.lines_of:
            if lines:
                placed += 1
            if len(lines) == 2:
                a, b = find(lines[0]), find(lines[1])
                if a != b:
                    parent[a] = b
        groups = {find(line) for line in range(len(self.lines))}
        if placed == self.n and not self.others and len(groups) == 1:
            return True
        reaching = set()
        for j, lines in enumerate(self.lines_of):
            if len(lines) != 1:
                continue
            root = find(lines[0])
            if root in reaching:
                continue
            if self.in_core[j]:
                if not self.done[j]:
                    reaching.add(root)  # it may still get a second line
            elif self.can_lead_out[cells[j]] or any(
                i != j and _partnered(cells[j], cells[i]) for i in waiting
            ):
                reaching.add(root)
        return groups <= reaching
