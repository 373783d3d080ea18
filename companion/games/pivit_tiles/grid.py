"""Grid files: one grid row per line, cells separated by whitespace, "." empty.

A grid in memory is a dict mapping (row, col) to a tile string. Rows and
columns are 0-based from the top-left of the file; blank lines are empty rows
and rows may be ragged.
"""
from __future__ import annotations

from companion.games.pivit_tiles.tiles import TileError, TileSet, get_tileset, parse_tile

Grid = dict[tuple[int, int], str]


class GridError(ValueError):
    """A grid text that cannot be read; the message names source:line:col."""


def parse_grid(text: str, tileset: str | TileSet = "classic", source: str = "<grid>") -> Grid:
    """The grid a text describes. Raises GridError (a ValueError) naming the bad cell."""
    ts = get_tileset(tileset)
    cells: Grid = {}
    for row, line in enumerate(text.splitlines()):
        pos = 0
        for col, token in enumerate(line.split()):
            pos = line.index(token, pos)
            if token != ".":
                try:
                    cells[row, col] = parse_tile(token, ts)
                except TileError as exc:
                    raise GridError(f"{source}:{row + 1}:{pos + 1}: {exc}") from None
            pos += len(token)
    return cells


def normalise(cells: Grid) -> Grid:
    """The same grid shifted so its bounding box starts at (0, 0)."""
    if not cells:
        return {}
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return {(r - top, c - left): t for (r, c), t in cells.items()}


def grid_str(cells: Grid) -> str:
    """The grid as text, normalised to its bounding box: the inverse of parse_grid."""
    if not cells:
        return ""
    cells = normalise(cells)
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    rows = []
    for r in range(height):
        # Empty cells are padded to a tile's width so columns line up.
        row = [cells.get((r, c), " .") for c in range(width)]
        while row and row[-1] == " .":
            row.pop()
        rows.append(" ".join(row))
    return "\n".join(rows)
