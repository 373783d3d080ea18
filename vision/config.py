"""Settings of every vision stage, passed in explicitly (no globals).

Each stage takes its own frozen dataclass; `VisionConfig` bundles them for the
pipeline. The defaults are set from the physical tiles (black squares, one
design covering roughly two thirds of the face) and from what a phone or a Pi
camera delivers, not from any one photo. Lengths are in pixels of the image
the stage works on, or in lattice pitches where they say so.
"""
from __future__ import annotations

from dataclasses import dataclass, field


# A tile read with a confidence below this is "not sure": the annotated picture marks
# it, the CLI names it and the phone asks the player to confirm it with a tap. Set
# from the evaluation sets (docs/vision.md): no tile at or above it may be wrong.
SURE_AT = 0.25


@dataclass(frozen=True)
class DecodeConfig:
    """Reading image bytes with bounded memory."""

    max_bytes: int = 40_000_000  # an upload larger than this is refused (413)
    max_pixels: int = 64_000_000  # JPEGs: decoded at reduced size, so this bounds memory
    max_pixels_full: int = 25_000_000  # other formats decode at full size first
    min_side: int = 64  # a smaller picture cannot show a grid of tiles
    target_long_side: int = 2000  # JPEGs are decoded at 1/2, 1/4 or 1/8 down to about this


@dataclass(frozen=True)
class FindConfig:
    """Finding the tiles: dark squares each holding one enclosed, brighter design."""

    work_long_side: int = 1024  # detection runs on the photo scaled to about this long side
    dark_ratio: float = 0.45  # a tile pixel is darker than this fraction of the local table
    face_ratio: float = 2.6  # and darker than this times the black faces' brightness
    face_margin: float = 0.15  # or than that level plus this fraction of the table, whichever is higher
    face_table_ratio: float = 0.6  # the face-relative threshold never exceeds this share of the table
    background_cells: int = 12  # the table brightness is estimated over 1/12 of the image
    min_design_area: int = 12  # pixels of the work image; smaller holes are noise
    max_design_fraction: float = 0.05  # of the work image; a larger hole is not a design
    max_aspect: float = 3.0  # a design's bounding box is not longer than this times its width
    min_fill: float = 0.2  # design area / bounding-box area; thin slivers are gaps between tiles
    close_margins: bool = True  # mend breaks of a pixel or two in the black margin around a design
    min_relative_area: float = 0.15  # of the larger designs' area; smaller holes are glare or dirt
    face_radius: float = 2.2  # standard deviations of a design: within this, a tile's face is all around it
    min_face: float = 0.85  # dark share of that face for a hole to count as a design (tile_evidence)
    max_asymmetry: float = 0.3  # four-fold asymmetry of a design's outline (tile_evidence)


@dataclass(frozen=True)
class LatticeConfig:
    """Fitting the square grid of cells to the tile centres."""

    neighbour_slack: float = 1.35  # neighbours lie within this times the nearest distance
    max_residual: float = 0.38  # pitches; a centre further from its cell's centre is not on the grid
    iterations: int = 4
    min_pitch: float = 24.0  # work-image pixels; smaller tiles are re-found at higher resolution
    max_design_area: float = 0.72  # of a cell; a bigger hole is an empty cell ringed by tiles
    min_design_area: float = 0.05  # of a cell
    min_tileness: float = 0.6  # dark share of a found tile's face (see lattice.tileness)
    min_added_tileness: float = 0.75  # the same for a tile whose design was not a clean hole
    min_face_band: float = 0.8  # dark share of the band inside a tile's edge (see lattice.face_band)


@dataclass(frozen=True)
class DesignConfig:
    """Reading the design (the shape) of one tile from its rectified patch."""

    patch_size: int = 64  # a tile is resampled to this many pixels square
    inner: float = 0.86  # the design lies within this fraction of the tile, centred
    core: float = 0.76  # face and paint are told apart from this middle part of the tile
    min_contrast: float = 20.0  # a design is this much brighter than its tile's face (0-255)
    min_ratio: float = 1.5  # and this many times as bright


@dataclass(frozen=True)
class ColourConfig:
    """Reading the colour of one tile's design."""

    erode: int = 2  # patch pixels trimmed off the design's edge, where colours blend
    wild_min_colours: int = 3  # a design painted in this many colours is a wild
    wild_min_share: float = 0.12  # each of them covering at least this share of the design


@dataclass(frozen=True)
class AssembleConfig:
    """Putting the readings together into a grid."""

    min_confidence: float = 0.0  # readings less sure than this are left out (0 keeps every tile)


@dataclass(frozen=True)
class VisionConfig:
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    find: FindConfig = field(default_factory=FindConfig)
    lattice: LatticeConfig = field(default_factory=LatticeConfig)
    design: DesignConfig = field(default_factory=DesignConfig)
    colour: ColourConfig = field(default_factory=ColourConfig)
    assemble: AssembleConfig = field(default_factory=AssembleConfig)
