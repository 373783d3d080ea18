"""The grid check, table-driven from the rulebook's rules and picture captions."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from companion.games.pivit_tiles.check import RULES, check_grid
from companion.games.pivit_tiles.grid import parse_grid
from companion.games.pivit_tiles.tiles import TILESETS

# A valid 24-tile grid: rows are colour lines, columns design lines.
FULL = "\n".join(" ".join(f"{d}{c}" for d in "123456") for c in "RGBY")


def rules_of(text, **kw):
    kw.setdefault("tiles", 0)
    return [v.rule for v in check_grid(parse_grid(text, kw.pop("tileset", "classic")), **kw).violations]


CASES = [
    # (name, grid, options, expected rule ids)
    ("product grid of 24 tiles", FULL, {"tiles": 24}, []),
    ("caption: row all one colour", "1B 2B 3B", {}, []),
    ("caption: column all one design", "4R\n4O\n4Y\n4G", {}, []),
    ("caption: wild is any blue tile not already in the row", "1B ** 3B 4B", {}, []),
    ("caption: duplicate colour in a column is not allowed", "1R\n2B\n3R", {}, ["mixed-line"]),
    ("caption: a row of two tiles is not complete", "1R 2R", {}, ["short-line"]),
    ("younger players may keep rows of two", "1R 2R", {"young": True}, []),
    ("younger players: a mixed pair is still wrong", "1R 2B", {"young": True}, ["mixed-line"]),
    ("same tile twice in a line", "1R 2R 1R", {}, ["duplicate"]),
    ("seven tiles in one line", "1R 2R 3R 4R 5R 6R **", {}, ["duplicate"]),
    ("six with a wild is fine", "1R 2R 3R 4R 5R **", {}, []),
    ("two groups", "1R 2R 3R\n\n4G 5G 6G", {}, ["disconnected"]),
    ("tile count", "1R 2R 3R", {"tiles": 24}, ["tile-count"]),
    ("four copies of one tile", "1R 2R 3R\n1R . .\n1B 2B 3B\n1R\n1G 2G 3G\n1R\n1Y 2Y 3Y", {},
     ["too-many-copies", "duplicate"]),
    ("seven wilds", "** ** ** ** ** **\n**", {}, ["too-many-copies", "short-line"]),
    ("caption: wild stands for one tile in its row and column",
     "1R 2R 3R\n.  2G\n.  2B", {}, []),
    ("wild at a crossing: blue in its row and a diamond in its column",
     "1B ** 2B\n.  3R\n.  3G", {}, []),
    ("wild cannot be design 1 and design 3 at once", "1B ** 1Y\n.  3R\n.  3G", {}, ["wild-conflict"]),
    ("two wilds in one line must differ", "1R ** **\n2R\n3R", {}, []),
    ("a wild at a corner is red in its row and a diamond in its column", "1R 2R **\n.  .  3G\n.  .  3B", {}, []),
    ("a wild whose row leaves only designs its column already has", "1R 2R 3R 4R 5R **\n.  .  .  .  .  6G\n.  .  .  .  .  6B", {}, []),
    ("row needs a red eight-point star but the column already holds one", "1R 2R 3R 4R 5R **\n.  .  .  .  .  6R\n.  .  .  .  .  6B", {}, ["wild-conflict"]),
    ("connect set colours", "1W 2W 3W", {"tileset": "connect"}, []),
]


@pytest.mark.parametrize("name, text, options, expected", CASES, ids=[c[0] for c in CASES])
def test_rulebook_cases(name, text, options, expected):
    assert rules_of(text, **options) == expected


def test_wild_conflict_names_every_cell_of_both_lines():
    result = check_grid(parse_grid("1B ** 1Y\n.  3R\n.  3G"), tiles=0)
    (v,) = result.violations
    assert v.rule == "wild-conflict"
    assert v.cells == [(0, 0), (0, 1), (0, 2), (1, 1), (2, 1)]
    assert "wild" in v.message


def test_violation_cells_point_at_the_line():
    result = check_grid(parse_grid("1R 2R 3R\n.  .  4G\n.  .  5B"), tiles=0)
    (v,) = result.violations
    assert (v.rule, v.cells) == ("mixed-line", [(0, 2), (1, 2), (2, 2)])
    assert v.message.startswith("column 2, rows 0-2 (3R 4G 5B)")


def test_every_rule_id_is_reachable():
    seen = {r for _, text, opts, expected in CASES for r in expected}
    assert seen == set(RULES)


# -- properties: the verdict does not depend on where or which way round the grid lies --

classic = TILESETS["classic"].tiles()
tile_st = st.one_of(st.sampled_from(classic), st.just("**"))
cells_st = st.dictionaries(st.tuples(st.integers(0, 5), st.integers(0, 5)), tile_st, min_size=1, max_size=20)


def valid_grid_st():
    """Valid grids built from the product pattern: a random choice of rows, columns and a wild."""
    return st.tuples(
        st.lists(st.sampled_from("ROYGBP"), min_size=3, max_size=4, unique=True),
        st.lists(st.sampled_from("123456"), min_size=3, max_size=6, unique=True),
        st.booleans(),
    ).map(lambda a: {
        (r, c): ("**" if a[2] and (r, c) == (1, 1) else d + colour)
        for r, colour in enumerate(a[0]) for c, d in enumerate(a[1])
    })


def signature(cells, **kw):
    result = check_grid(cells, tiles=0, **kw)
    return result.valid, sorted(v.rule for v in result.violations)


@given(st.one_of(cells_st, valid_grid_st()), st.integers(-50, 50), st.integers(-50, 50))
def test_verdict_invariant_under_transpose_mirror_shift(cells, dr, dc):
    base = signature(cells)
    assert signature({(c, r): t for (r, c), t in cells.items()}) == base
    assert signature({(r, -c): t for (r, c), t in cells.items()}) == base
    assert signature({(-r, c): t for (r, c), t in cells.items()}) == base
    assert signature({(r + dr, c + dc): t for (r, c), t in cells.items()}) == base


@given(valid_grid_st())
def test_product_grids_are_valid(cells):
    assert signature(cells) == (True, [])
