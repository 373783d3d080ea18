"""Quivit's grid: links, regions, what a rotation takes, free links and hints, by example and by property."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.quivit import grid as g
from companion.games.quivit.cards import COLORS, DIRECTIONS, Card, NotationError

# -- strategies ----------------------------------------------------------------------------

placed = st.builds(
    g.Placed,
    st.builds(Card, st.sampled_from([1, 2, 3, -1]), st.permutations(COLORS).map(tuple)),
    st.integers(0, 3),
)


@st.composite
def grids(draw, min_size=1, max_size=5, holes=True, blocks=True):
    rows = draw(st.integers(min_size, max_size))
    cols = draw(st.integers(min_size, max_size))
    place = st.one_of(st.none(), placed) if holes else placed
    cells = draw(st.lists(place, min_size=rows * cols, max_size=rows * cols))
    serial = iter(range(rows * cols))
    grid = tuple(
        tuple(
            None if p is None else g.Placed(p.card, p.turns, next(serial))
            for p in cells[r * cols:(r + 1) * cols]
        )
        for r in range(rows)
    )
    blocked = frozenset()
    if blocks:
        occupied = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] is not None]
        if occupied:
            blocked = frozenset(draw(st.lists(st.sampled_from(occupied), max_size=3)))
    return grid, blocked


def full_grids():
    return grids(5, 5, holes=False, blocks=False)


def cards_in(grid):
    return [(r, c) for r, row in enumerate(grid) for c, p in enumerate(row) if p is not None]


# -- a second, independent statement of the rule: card edges compared directly ---------------
#
# Left card A, right card B touch along A's top-right/B's top-left and A's
# bottom-right/B's bottom-left; top card A, bottom card B along A's
# bottom-left/B's top-left and A's bottom-right/B's top-right. A take is the
# union of the same-colour components (over these pairs) through the rotated
# card's quadrants, when a component has two or more quadrants.

TL, TR, BR, BL = range(4)
EDGE_PAIRS = {(0, 1): [(TR, TL), (BR, BL)], (1, 0): [(BL, TL), (BR, TR)]}


def reference_take(grid, blocked, cell, color=None):
    def colour(rc, q):
        p = grid[rc[0]][rc[1]]
        return None if p is None or rc in blocked else p.colors[q]

    adjacency: dict = {}
    rows, cols = len(grid), len(grid[0])
    for r in range(rows):
        for c in range(cols):
            for (dr, dc), pairs in EDGE_PAIRS.items():
                other = (r + dr, c + dc)
                if other[0] >= rows or other[1] >= cols:
                    continue
                for qa, qb in pairs:
                    ca, cb = colour((r, c), qa), colour(other, qb)
                    if ca is not None and ca == cb:
                        adjacency.setdefault(((r, c), qa), set()).add((other, qb))
                        adjacency.setdefault((other, qb), set()).add(((r, c), qa))
    taken = set()
    for q in range(4):
        start = (cell, q)
        if start not in adjacency or (color is not None and colour(cell, q) != color):
            continue
        seen, todo = {start}, [start]
        while todo:
            for nxt in adjacency.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        taken |= {rc for rc, _ in seen}
    return frozenset(taken)


# -- examples -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, taken, links",
    [
        # Two cards side by side touch along two pairs of squares: a1's
        # top-right/b1's top-left and a1's bottom-right/b1's bottom-left.
        ("YGRB1 GRYB1", {"a1", "b1"}, 1),  # green pair; red/blue pair differs
        ("YGBR1 GRYB1", {"a1", "b1"}, 2),  # green and blue pairs: one card taken once
        ("YRGB1 GRYB1", set(), 0),
        # One above the other: a1's bottom squares meet a2's top squares.
        ("RGBY1\nYRGB1", {"a1", "a2"}, 1),  # yellow pair
        ("RGBY1\nGRYB1", set(), 0),
        # a1's blue bottom-right meets b2's blue top-left only at a corner point:
        # no link. (a2 and b2 link in yellow, which a1 does not reach.)
        ("RGBY1 YRBG1\nGRYB1 BGRY1", set(), 1),
    ],
)
def test_links_between_neighbours(text, taken, links):
    grid, blocked = g.parse_grid(text)
    got = {g.cell_str(c) for c in g.take_from(grid, blocked, (0, 0)).cells}
    assert got == taken
    assert got == {g.cell_str(c) for c in reference_take(grid, blocked, (0, 0))}
    assert len(g.links(grid, blocked)) == links


def test_diagonal_card_joins_through_a_neighbour_only_in_the_same_colour():
    # a1's green bottom-right links b1's green bottom-left, which links b2's
    # green top-left: the region goes round the corner point and takes b2, the
    # "bonus adjacent card" that does not touch a1.
    grid, _ = g.parse_grid("RYGB1 RBYG2\nYRBG3 GBYR3")
    assert {g.cell_str(c) for c in g.take_from(grid, frozenset(), (0, 0)).cells} == {"a1", "b1", "b2"}
    # Here b1 links b2 in yellow instead: a different colour never carries the take on.
    grid, _ = g.parse_grid("RYGB1 RBYG2\nYRBG3 BYRG3")
    assert {g.cell_str(c) for c in g.take_from(grid, frozenset(), (0, 0)).cells} == {"a1", "b1"}
    assert frozenset({(1, 3), (2, 3)}) in g.links(grid)  # b1's bottom-right, b2's top-right


def test_a_blocked_card_links_with_nothing():
    grid, blocked = g.parse_grid("YGBR1 GRYB1#")
    assert g.take_from(grid, blocked, (0, 0)).cells == frozenset()
    assert g.links(grid, blocked) == frozenset()
    assert g.rotatable(grid, blocked) == ((0, 0),)


def test_empty_places_link_with_nothing():
    grid, blocked = g.parse_grid("YGBR1 .")
    assert g.take_from(grid, blocked, (0, 0)).cells == frozenset()
    with pytest.raises(ValueError):
        g.rotated(grid, (0, 1), 1)


def test_random_color_takes_only_the_rolled_colour():
    grid, blocked = g.parse_grid("RGBY1 GRBY2\nYRGB3 .")  # a1: green with b1, yellow with a2
    assert {g.cell_str(c) for c in g.take_from(grid, blocked, (0, 0)).cells} == {"a1", "b1", "a2"}
    assert {g.cell_str(c) for c in g.take_from(grid, blocked, (0, 0), "G").cells} == {"a1", "b1"}
    assert {g.cell_str(c) for c in g.take_from(grid, blocked, (0, 0), "Y").cells} == {"a1", "a2"}
    assert g.take_from(grid, blocked, (0, 0), "B").cells == frozenset()


def test_free_link_is_four_squares_of_one_colour_at_a_corner():
    grid, blocked = g.parse_grid("RGBY1 YRGB1\nGBYR1 BYRG1")
    (fl,) = g.free_links(grid, blocked)
    assert fl.color == "B" and fl.corner == (1, 1)
    assert set(fl.cells) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    blocked = frozenset({(1, 1)})
    assert g.free_links(grid, blocked) == ()
    assert g.free_link_cells(grid, frozenset(), "B") == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert g.free_link_cells(grid, frozenset(), "R") == ()


def test_parse_grid_errors():
    with pytest.raises(NotationError, match="row 2 has 1 places"):
        g.parse_grid("RGBY1 RGBY1\nRGBY1")
    with pytest.raises(NotationError, match="row 1, place 2"):
        g.parse_grid("RGBY1 RGBZ1")
    with pytest.raises(NotationError, match="empty grid"):
        g.parse_grid("  \n")


def test_describe_take():
    grid, blocked = g.parse_grid("RGBY1 GRBY2\nYRGB3 .")
    assert g.describe_take(g.take_from(grid, blocked, (0, 0)), grid) == "6 points: green a1 b1, yellow a1 a2"
    assert g.describe_take(g.take_from(grid, blocked, (1, 0), "R"), grid) == "no links"


# -- properties -----------------------------------------------------------------------------


@given(grids(), st.data())
def test_four_rotations_give_the_grid_back(gb, data):
    grid, _ = gb
    occupied = cards_in(grid)
    if not occupied:
        return
    cell = data.draw(st.sampled_from(occupied))
    once = grid
    for _ in range(4):
        once = g.rotated(once, cell, 1)
        assert once != grid or _ == 3
    assert once == grid
    assert g.rotated(g.rotated(grid, cell, 1), cell, -1) == grid
    assert g.rotated(g.rotated(grid, cell, 2), cell, 2) == grid
    assert g.rotated(grid, cell, 2) == g.rotated(g.rotated(grid, cell, 1), cell, 1)


@given(grids())
def test_links_are_symmetric_and_join_two_cards_of_one_colour(gb):
    grid, blocked = gb
    for link in g.links(grid, blocked):
        a, b = sorted(link)
        assert g.card_of(a) != g.card_of(b)
        assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
        assert g.square_color(grid, blocked, a) == g.square_color(grid, blocked, b) is not None
        assert b in g.region(grid, blocked, a) and a in g.region(grid, blocked, b)


@given(grids())
def test_takes_are_symmetric(gb):
    # B is in what A takes exactly when A is in what B takes.
    grid, blocked = gb
    takes = {cell: g.take_from(grid, blocked, cell).cells for cell in cards_in(grid)}
    for a, cells in takes.items():
        for b in cells:
            assert a in takes[b]


@given(grids())
def test_take_matches_the_card_edge_statement_of_the_rule(gb):
    grid, blocked = gb
    for cell in cards_in(grid):
        for color in (None, "R", "Y"):
            assert g.take_from(grid, blocked, cell, color).cells == reference_take(grid, blocked, cell, color)


@given(grids())
def test_a_region_stays_at_one_corner_point_and_a_take_in_the_3x3_block(gb):
    grid, blocked = gb
    for cell in cards_in(grid):
        take = g.take_from(grid, blocked, cell)
        assert len(take.cells) <= 9
        assert all(abs(r - cell[0]) <= 1 and abs(c - cell[1]) <= 1 for r, c in take.cells)
        assert not take.cells & blocked
        for _color, squares in take.regions:
            assert 2 <= len(squares) <= 4
            corners = {((y + 1) // 2, (x + 1) // 2) for y, x in squares}
            assert len(corners) == 1
        if take.cells:
            assert cell in take.cells and len(take.cells) >= 2


@given(grids())
def test_no_card_is_counted_twice(gb):
    grid, blocked = gb
    for cell in cards_in(grid):
        take = g.take_from(grid, blocked, cell)
        squares = [sq for _c, sqs in take.regions for sq in sqs]
        assert len(squares) == len(set(squares))  # regions are disjoint
        assert take.points(grid) == sum(grid[r][c].value for r, c in set(take.cells))
        assert len(take.regions) == len({c for c, _ in take.regions})  # one region per colour at most


def mirror(grid, blocked):
    """The grid seen in a mirror: columns reversed, each card's left and right squares swapped."""
    def flip(p):
        if p is None:
            return None
        tl, tr, br, bl = p.colors
        return g.Placed(Card(p.value, (tr, tl, bl, br)), 0, p.serial)

    cols = len(grid[0])
    return (
        tuple(tuple(flip(p) for p in reversed(row)) for row in grid),
        frozenset((r, cols - 1 - c) for r, c in blocked),
    )


@given(grids())
def test_takes_do_not_depend_on_which_side_of_the_table_you_sit(gb):
    grid, blocked = gb
    mgrid, mblocked = mirror(grid, blocked)
    cols = len(grid[0])
    for r, c in cards_in(grid):
        here = g.take_from(grid, blocked, (r, c)).cells
        there = g.take_from(mgrid, mblocked, (r, cols - 1 - c)).cells
        assert there == {(rr, cols - 1 - cc) for rr, cc in here}
    assert len(g.free_links(grid, blocked)) == len(g.free_links(mgrid, mblocked))


@given(grids())
def test_every_free_link_is_taken_whole_by_each_of_its_cards(gb):
    grid, blocked = gb
    for fl in g.free_links(grid, blocked):
        for cell in fl.cells:
            assert set(fl.cells) <= g.take_from(grid, blocked, cell).cells


@given(grids(min_size=2, max_size=4), st.sampled_from([None, "G"]), st.booleans(), st.booleans())
def test_hints_list_every_play_with_what_it_would_take(gb, color, double, free):
    grid, blocked = gb
    hints = g.hints(grid, blocked, color, double_rotate=double, free_link=free)
    rotations = [h for h in hints if h.direction != "free-link"]
    assert len(rotations) == len(g.rotatable(grid, blocked)) * (3 if double else 2)
    assert [h.points for h in hints] == sorted((h.points for h in hints), reverse=True)
    for h in hints:
        if h.direction == "free-link":
            assert h.cell in g.free_link_cells(grid, blocked, color)
            after = grid
        else:
            after = g.rotated(grid, h.cell, DIRECTIONS[h.direction])
        take = g.take_from(after, blocked, h.cell, color)
        assert (h.cells, h.points) == (take.cells, take.points(after))
        assert h.to_json()["count"] == len(h.cells)


@given(grids(holes=True, blocks=True))
def test_grid_notation_round_trip(gb):
    grid, blocked = gb
    again, again_blocked = g.parse_grid(g.grid_str(grid, blocked))
    assert again_blocked == blocked
    assert [[None if p is None else (p.colors, p.value) for p in row] for row in again] == [
        [None if p is None else (p.colors, p.value) for p in row] for row in grid
    ]
