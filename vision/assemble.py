"""Stage 5, assemble the grid: one tile per cell with a confidence, in grid notation.

Cells come from the lattice in its own coordinates; the grid is shifted so
row 0 and column 0 are the top-left of its bounding box, rows growing down
the image (the lattice already chose its row axis as the one nearest the
image's downward direction). A cell's confidence is the lesser of its design
and colour confidences: each is 1 when the reading is far nearer its
prototype than the runner-up and 0 at a tie, so a player can be asked to
confirm the least sure cells first.
"""
from __future__ import annotations

from dataclasses import dataclass

from vision.config import SURE_AT, AssembleConfig
from vision.errors import NoTilesError

WILD = "**"


@dataclass(frozen=True)
class TileReading:
    row: int
    col: int
    tile: str  # "3G" or "**"
    confidence: float
    sure: bool = True  # False: "not sure", the player is asked to look (vision.config.SURE_AT and the reader's checks)

    def to_json(self) -> dict:
        return {"row": self.row, "col": self.col, "tile": self.tile, "confidence": round(self.confidence, 3),
                "sure": self.sure}


@dataclass
class Assembled:
    tiles: list[TileReading]  # sorted by row, then column
    origin: tuple[int, int]  # lattice (row, col) of grid cell (0, 0)

    def cells(self) -> dict[tuple[int, int], str]:
        return {(t.row, t.col): t.tile for t in self.tiles}


def tile_code(design: str, colour: str) -> str:
    """A tile in the project's notation from a design digit and a colour letter ("*" for a wild)."""
    return WILD if colour == "*" else design + colour


def assemble_grid(readings: list[tuple], config: AssembleConfig | None = None) -> Assembled:
    """The grid from (lattice cell, tile, confidence[, doubt]) readings. Raises NoTilesError if there are none.

    A reading is sure when its confidence is at least SURE_AT and the reader
    had no other doubt about it (`doubt` True: its design was not a clean
    hole, its patch was cut short by the photo's edge, ...).
    """
    cfg = config or AssembleConfig()
    kept = [r for r in readings if r[2] >= cfg.min_confidence]
    if not kept:
        raise NoTilesError("no tiles could be read in the photo")
    top = min(r[0][0] for r in kept)
    left = min(r[0][1] for r in kept)
    tiles = sorted(
        (TileReading(r[0][0] - top, r[0][1] - left, r[1], float(r[2]),
                     sure=bool(r[2] >= SURE_AT and not (len(r) > 3 and r[3])))
         for r in kept),
        key=lambda t: (t.row, t.col),
    )
    return Assembled(tiles, (top, left))


def grid_text(tiles: list[TileReading]) -> str:
    """The grid in the project's grid-file notation."""
    from companion.games.pivit_tiles.grid import grid_str

    return grid_str({(t.row, t.col): t.tile for t in tiles})
