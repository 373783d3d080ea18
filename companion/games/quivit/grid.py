"""The playing grid: colour squares, links, the cards a rotation takes, free links and hints.

Pure functions on an immutable grid. A grid is a tuple of rows, each a tuple
of places holding a `Placed` card or None (an empty place after the draw deck
ran out). Cards under a Color Block are listed in `blocked`: a block covers
the card, so its colour squares link with nothing, and it can be neither
rotated nor taken.

The link rule (docs/rules/quivit.md): picture the 5 x 5 cards as a 10 x 10
board of colour squares. Two squares of different cards that share an edge
and have the same colour are *linked*. A *region* is a set of same-coloured
squares connected through links. A rotation takes every card that has a
square in a region that contains a square of the rotated card and spans two
or more cards. Because a card's own four squares all differ in colour, a
region never crosses a card and never leaves the corner point its squares
meet at: a region holds at most the four squares around one corner point,
so it reaches at most the three cards around that corner besides the
rotated card, the diagonal one being the rulebook's "bonus adjacent card".
A *free link* is such a region of four squares: one colour meeting at a
corner of four cards.
"""
from __future__ import annotations

from dataclasses import dataclass

from companion.games.quivit.cards import (
    COLOR_NAMES,
    COLORS,
    DIRECTIONS,
    Card,
    NotationError,
    card_str,
    cell_str,
    parse_card,
)

Cell = tuple[int, int]  # (row, column) of a card
Square = tuple[int, int]  # (row, column) of a colour square on the doubled board


@dataclass(frozen=True)
class Placed:
    """A card lying in the grid: which card, how it is turned, and which physical copy it is."""

    card: Card
    turns: int = 0  # quarter turns clockwise from the printed orientation, 0-3
    serial: int = 0  # tells identical printed cards apart (the card's index in the deck)

    @property
    def colors(self) -> tuple[str, str, str, str]:
        """The colours as the card lies now, clockwise from the top-left."""
        return self.card.turned(self.turns)

    @property
    def value(self) -> int:
        return self.card.value

    def rotated(self, quarter_turns: int) -> "Placed":
        return Placed(self.card, (self.turns + quarter_turns) % 4, self.serial)


Grid = tuple[tuple[Placed | None, ...], ...]

# A square's position in its card: (row offset, column offset) -> quadrant index
# clockwise from the top-left (the order of the card notation).
_QUADRANT_AT = {(0, 0): 0, (0, 1): 1, (1, 1): 2, (1, 0): 3}
_OFFSET_OF = {q: rc for rc, q in _QUADRANT_AT.items()}


def size_of(grid: Grid) -> tuple[int, int]:
    return len(grid), len(grid[0]) if grid else 0


def square_color(grid: Grid, blocked: frozenset[Cell], square: Square) -> str | None:
    """The colour of a square on the doubled board; None off the board, on an empty place or under a block."""
    y, x = square
    rows, cols = size_of(grid)
    if not (0 <= y < 2 * rows and 0 <= x < 2 * cols):
        return None
    cell = (y // 2, x // 2)
    placed = grid[cell[0]][cell[1]]
    if placed is None or cell in blocked:
        return None
    return placed.colors[_QUADRANT_AT[(y % 2, x % 2)]]


def squares_of(cell: Cell) -> tuple[Square, Square, Square, Square]:
    """A card's four squares on the doubled board, clockwise from the top-left."""
    r, c = cell
    return tuple((2 * r + dy, 2 * c + dx) for dy, dx in (_OFFSET_OF[q] for q in range(4)))  # type: ignore[return-value]


def card_of(square: Square) -> Cell:
    return (square[0] // 2, square[1] // 2)


def _neighbours(square: Square):
    y, x = square
    yield (y - 1, x)
    yield (y + 1, x)
    yield (y, x - 1)
    yield (y, x + 1)


def links(grid: Grid, blocked: frozenset[Cell] = frozenset()) -> frozenset[frozenset[Square]]:
    """Every link: a pair of same-coloured squares of two cards that share an edge."""
    rows, cols = size_of(grid)
    found = set()
    for y in range(2 * rows):
        for x in range(2 * cols):
            color = square_color(grid, blocked, (y, x))
            if color is None:
                continue
            for other in ((y + 1, x), (y, x + 1)):
                if card_of(other) != card_of((y, x)) and square_color(grid, blocked, other) == color:
                    found.add(frozenset({(y, x), other}))
    return frozenset(found)


def region(grid: Grid, blocked: frozenset[Cell], square: Square) -> frozenset[Square]:
    """The same-coloured squares connected to `square` through links (itself included)."""
    return _region_on(colour_board(grid, blocked), square)


Board = list[list[str | None]]


def colour_board(grid: Grid, blocked: frozenset[Cell] = frozenset()) -> Board:
    """The doubled board of colour squares: None for an empty place or a blocked card."""
    rows, cols = size_of(grid)
    return [[square_color(grid, blocked, (y, x)) for x in range(2 * cols)] for y in range(2 * rows)]


def _region_on(board: Board, square: Square) -> frozenset[Square]:
    y0, x0 = square
    color = board[y0][x0]
    if color is None:
        return frozenset()
    height, width = len(board), len(board[0])
    seen = {square}
    todo = [square]
    while todo:
        for y, x in _neighbours(todo.pop()):
            if 0 <= y < height and 0 <= x < width and (y, x) not in seen and board[y][x] == color:
                seen.add((y, x))
                todo.append((y, x))
    return frozenset(seen)


def _regions_through(board: Board, cell: Cell, color: str | None) -> tuple[tuple[str, frozenset[Square]], ...]:
    regions = []
    for y, x in squares_of(cell):
        reg_color = board[y][x]
        if reg_color is None or (color is not None and reg_color != color):
            continue
        reg = _region_on(board, (y, x))
        if len(reg) >= 2:
            regions.append((reg_color, reg))
    return tuple(regions)


@dataclass(frozen=True)
class Take:
    """What one rotated (or selected) card takes: the regions and the cards in them."""

    cell: Cell
    regions: tuple[tuple[str, frozenset[Square]], ...]  # (colour, squares) per linked region

    @property
    def cells(self) -> frozenset[Cell]:
        """Every card taken, each once, the rotated card included when anything links."""
        return frozenset(card_of(sq) for _, sq_set in self.regions for sq in sq_set)

    def points(self, grid: Grid) -> int:
        return sum(grid[r][c].value for r, c in self.cells)  # type: ignore[union-attr]

    @property
    def colors(self) -> tuple[str, ...]:
        return tuple(color for color, _ in self.regions)


def take_from(grid: Grid, blocked: frozenset[Cell], cell: Cell, color: str | None = None) -> Take:
    """The cards taken when `cell` has just been rotated (or selected in a free link).

    Every region through one of the card's squares that spans two or more
    cards is taken; with `color` (Random Color) only regions of that colour.
    """
    return Take(cell, _regions_through(colour_board(grid, blocked), cell, color))


def rotated(grid: Grid, cell: Cell, quarter_turns: int) -> Grid:
    """The grid with the card at `cell` turned `quarter_turns` clockwise (negative: left)."""
    r, c = cell
    placed = grid[r][c]
    if placed is None:
        raise ValueError(f"no card at {cell_str(cell)}")
    row = grid[r][:c] + (placed.rotated(quarter_turns),) + grid[r][c + 1:]
    return grid[:r] + (row,) + grid[r + 1:]


def without(grid: Grid, cells) -> Grid:
    """The grid with the cards at `cells` removed (their places empty)."""
    gone = set(cells)
    return tuple(
        tuple(None if (r, c) in gone else p for c, p in enumerate(row)) for r, row in enumerate(grid)
    )


@dataclass(frozen=True)
class FreeLink:
    """Four squares of one colour meeting at a corner of four cards."""

    corner: Cell  # the corner point: between cards (r-1, c-1) and (r, c)
    color: str
    cells: tuple[Cell, Cell, Cell, Cell]


def free_links(grid: Grid, blocked: frozenset[Cell] = frozenset()) -> tuple[FreeLink, ...]:
    """Every free link in the grid, in reading order of their corner points."""
    rows, cols = size_of(grid)
    found = []
    for r in range(1, rows):
        for c in range(1, cols):
            squares = [(2 * r - 1, 2 * c - 1), (2 * r - 1, 2 * c), (2 * r, 2 * c - 1), (2 * r, 2 * c)]
            colors = {square_color(grid, blocked, sq) for sq in squares}
            if len(colors) == 1 and None not in colors:
                cells = ((r - 1, c - 1), (r - 1, c), (r, c - 1), (r, c))
                found.append(FreeLink((r, c), colors.pop(), cells))
    return tuple(found)


def rotatable(grid: Grid, blocked: frozenset[Cell]) -> tuple[Cell, ...]:
    """Places holding a card that may be rotated: not empty, not under a Color Block."""
    return tuple(
        (r, c) for r, row in enumerate(grid) for c, p in enumerate(row) if p is not None and (r, c) not in blocked
    )


@dataclass(frozen=True)
class Hint:
    """One possible play and what it would take."""

    cell: Cell
    direction: str  # "right", "left", "double" or "free-link"
    points: int
    cells: frozenset[Cell]
    colors: tuple[str, ...]
    links: tuple[str, ...] = ()  # a free-link claim: the colours of the free links it scores

    def to_json(self) -> dict:
        return {
            "card": cell_str(self.cell),
            "direction": self.direction,
            "points": self.points,
            "cards": [cell_str(c) for c in sorted(self.cells)],
            "count": len(self.cells),
            "colors": list(self.colors),
            "links": list(self.links),
        }


def hints(
    grid: Grid,
    blocked: frozenset[Cell] = frozenset(),
    color: str | None = None,
    double_rotate: bool = False,
    free_link: bool = False,
    choose_links: bool = False,
) -> list[Hint]:
    """Every card and rotation with the points it would take, best first.

    Left and right for every rotatable card; "double" (180 degrees) too when
    the player holds a Double Rotate card; "free-link" for each card in a
    free link when the player may claim one, and with `choose_links` one per
    choice of the free links through a card in more than one. `color` is the
    Random Color die. Ties are ordered by more cards, then reading order, so
    the list is stable.
    """
    out = []
    directions = ["right", "left"] + (["double"] if double_rotate else [])
    board = colour_board(grid, blocked)
    for cell in rotatable(grid, blocked):
        placed = grid[cell[0]][cell[1]]
        squares = squares_of(cell)
        for direction in directions:
            # Try the rotation on the board in place: only the card's own four squares change.
            for (y, x), shown in zip(squares, placed.card.turned(placed.turns + DIRECTIONS[direction])):  # type: ignore[union-attr]
                board[y][x] = shown
            take = Take(cell, _regions_through(board, cell, color))
            out.append(Hint(cell, direction, _points(grid, take.cells), take.cells, take.colors))
        for (y, x), shown in zip(squares, placed.colors):  # type: ignore[union-attr]
            board[y][x] = shown
    if free_link:
        for cell in free_link_cells(grid, blocked, color):
            available = free_link_colors(grid, blocked, cell, color)
            choices = _subsets(available) if choose_links else [available]
            for links in choices:
                take = claim_take(grid, blocked, cell, color, links)
                out.append(Hint(cell, "free-link", _points(grid, take.cells), take.cells, take.colors, links))
    order = {"right": 0, "left": 1, "double": 2, "free-link": 3}
    out.sort(key=lambda h: (-h.points, -len(h.cells), h.cell, order[h.direction]))
    return out


def _subsets(colors: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every non-empty choice of `colors`, all of them first."""
    n = len(colors)
    masks = sorted(range(1, 2**n), key=lambda m: (-bin(m).count("1"), m))
    return [tuple(c for i, c in enumerate(colors) if m >> i & 1) for m in masks]


def _points(grid: Grid, cells: frozenset[Cell]) -> int:
    # A rotation does not change a card's value, so the grid before it gives the points.
    return sum(grid[r][c].value for r, c in cells)  # type: ignore[union-attr]


def free_link_colors(grid: Grid, blocked: frozenset[Cell], cell: Cell, color: str | None = None) -> tuple[str, ...]:
    """The colours of the free links `cell` is part of (of `color` only, with Random Color), in colour order.

    A card's four squares all differ in colour, so its free links (one per
    corner at most) differ in colour too: a colour names one of them.
    """
    found = {fl.color for fl in free_links(grid, blocked) if cell in fl.cells and (color is None or fl.color == color)}
    return tuple(c for c in COLORS if c in found)


def claim_take(
    grid: Grid, blocked: frozenset[Cell], cell: Cell, color: str | None = None, links: tuple[str, ...] | None = None
) -> Take:
    """What selecting `cell` of a free link takes: as if it was rotated, less the free links left out.

    `links` are the colours of the free links through the card to score
    (None: all of them); the card's other links are taken as after a
    rotation. Raises ValueError when `links` names no free link of the card.
    """
    full = take_from(grid, blocked, cell, color)
    if links is None:
        return full
    available = free_link_colors(grid, blocked, cell, color)
    if not links or not set(links) <= set(available):
        raise ValueError(f"{links!r} are not free links of {cell_str(cell)} ({available!r})")
    left_out = set(available) - set(links)
    return Take(cell, tuple((c, squares) for c, squares in full.regions if c not in left_out))


def free_link_cells(grid: Grid, blocked: frozenset[Cell], color: str | None = None) -> tuple[Cell, ...]:
    """The cards a player with a Double Rotate card may select: those in a free link (of `color`)."""
    cells = {cell for fl in free_links(grid, blocked) if color is None or fl.color == color for cell in fl.cells}
    return tuple(sorted(cells))


# -- grid notation: one row per line, cards like RGBY2, "." empty, "#" after a blocked card -----


def parse_grid(text: str) -> tuple[Grid, frozenset[Cell]]:
    """A grid written one row per line -> (grid, blocked places). Raises NotationError.

    Each card is written as it lies now (colours clockwise from its top-left
    square, then its value), ``.`` is an empty place and a ``#`` after a card
    marks a Color Block on it. Rows must all have the same length.
    """
    rows = [line.split() for line in text.strip().splitlines() if line.strip()]
    if not rows:
        raise NotationError("an empty grid")
    width = len(rows[0])
    grid = []
    blocked = set()
    serial = 0
    for r, tokens in enumerate(rows):
        if len(tokens) != width:
            raise NotationError(f"grid row {r + 1} has {len(tokens)} places, row 1 has {width}")
        row = []
        for c, token in enumerate(tokens):
            if token == ".":
                row.append(None)
                continue
            if token.endswith("#"):
                blocked.add((r, c))
                token = token[:-1]
            try:
                card = parse_card(token)
            except NotationError as exc:
                raise NotationError(f"grid row {r + 1}, place {c + 1}: {exc}") from None
            row.append(Placed(card, 0, serial))
            serial += 1
        grid.append(tuple(row))
    return tuple(grid), frozenset(blocked)


def grid_str(grid: Grid, blocked: frozenset[Cell] = frozenset()) -> str:
    """The grid in the notation `parse_grid` reads, each card as it lies now."""
    lines = []
    for r, row in enumerate(grid):
        tokens = []
        for c, p in enumerate(row):
            if p is None:
                tokens.append(".")
            else:
                tokens.append(card_str(p.card, p.turns) + ("#" if (r, c) in blocked else ""))
        lines.append(" ".join(f"{t:<7}" for t in tokens).rstrip())
    return "\n".join(lines) + "\n"


def describe_take(take: Take, grid: Grid) -> str:
    """``"10 points: green c3 d3 d2, yellow c3 c4"`` for the phones and the docs."""
    if not take.regions:
        return "no links"
    parts = []
    for color, squares in take.regions:
        cells = sorted({card_of(sq) for sq in squares})
        parts.append(f"{COLOR_NAMES[color]} " + " ".join(cell_str(c) for c in cells))
    return f"{take.points(grid)} points: " + ", ".join(parts)
