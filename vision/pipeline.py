"""The whole read: photo in, grid of tiles with confidences out.

    decode (capture) -> find_tiles -> estimate_plane -> fit_in_plane (rectified) -> check_view
      -> per tile: cell_patch -> design_outline, colour_sample (designs compared for all tiles at once)
      -> classify_colours (per photo; an unsure design under a tinted light read again in white light)
      -> assemble_grid

Detection works on the photo scaled to about a thousand pixels; the patches
each tile is read from are cut from the decoded photo at its full decoded
resolution. If the tiles turn out small in the frame (a far-away shot), the
detection is run again at a higher resolution.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from vision.assemble import TileReading, assemble_grid, grid_text, tile_code
from vision.colour import Calibration, ColourSample, classify_colours, colour_sample
from vision.config import SURE_AT, DesignConfig, VisionConfig
from vision.design import array_median, blur_of, design_fits, percentiles
from vision.errors import ClassifyError, NoTilesError, RetakePhotoError, VisionError
from vision.find import face_levels, find_tiles, work_image
from vision.lattice import Lattice, cell_patch, clear_designs
from vision.occluder import covered_cells


@dataclass
class ReadResult:
    """A photo read as a grid. `grid` is the grid-file text; `tiles` one reading per tile."""

    tiles: list[TileReading]
    grid: str
    elapsed_ms: float
    image: Any = field(repr=False)  # the decoded BGR photo the lattice refers to
    lattice: Lattice = field(repr=False)
    origin: tuple[int, int] = (0, 0)  # lattice cell of grid cell (0, 0)
    samples: dict[tuple[int, int], ColourSample] = field(default_factory=dict, repr=False)  # by grid cell
    offsets: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict, repr=False)  # tile off its node
    # Where each tile's middle lies across the photo (x, y from -1 to 1), by grid cell: where the light
    # was estimated (vision.colour.classify_colours).
    positions: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict, repr=False)
    # Grid cells where a tile may be missing: the reader saw part of a tile there (black
    # face) but could not read it. In the tiles' frame; may lie outside their bounding box.
    missing: list[tuple[int, int]] = field(default_factory=list)

    def cells(self) -> dict[tuple[int, int], str]:
        """The grid as the project's dict of (row, col) -> tile."""
        return {(t.row, t.col): t.tile for t in self.tiles}

    def unsure(self) -> list[tuple[int, int]]:
        """The cells of the tiles the reader is not sure of."""
        return [(t.row, t.col) for t in self.tiles if not t.sure]

    def to_json(self, image_name: str | None = None) -> dict:
        return {
            "image": image_name,
            "tiles": [t.to_json() for t in self.tiles],
            "missing": [[r, c] for r, c in self.missing],
            "grid": self.grid,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }

    def annotated(self, violations: Iterable[Any] | None = None, max_side: int = 1280, missing=None):
        """The photo with every tile labelled, each violation's cells outlined and each cell where a
        tile may be missing marked (BGR array); `missing` overrides the reader's own list."""
        from vision.annotate import annotate

        return annotate(self.image, self.lattice, self.tiles, self.origin, violations, max_side, offsets=self.offsets,
                        missing=self.missing if missing is None else missing)

    def annotated_png(self, violations: Iterable[Any] | None = None, max_side: int = 1280, missing=None) -> bytes:
        """The annotated picture as PNG bytes; `violations` from the grid check, objects or JSON dicts."""
        from vision.annotate import encode_png

        return encode_png(self.annotated(violations, max_side, missing))


def _locate(image, config: VisionConfig):
    """(lattice in `image` pixels, tiles, cells where a tile may be missing, cells where one may be
    missing for a clear design only (GridInPlane.clear_missing), the first search's clean designs, cells
    left unasked for a dark lighter than the nearest tiles' faces (GridInPlane.pale)).

    The table plane's homography from the designs found (vision.plane), at a
    higher resolution if the tiles are small, then the lattice fitted in the
    rectified plane and decided cell by cell (vision.lattice). Raises
    RetakePhotoError for a view that cannot be read reliably.
    """
    import numpy as np

    from vision.lattice import check_view, fit_in_plane
    from vision.plane import estimate_plane, plane_pitch

    find_cfg = config.find
    work, scale = work_image(image, find_cfg)
    candidates = find_tiles(work, find_cfg)
    plane = estimate_plane(candidates, config.plane)
    pitch = plane_pitch(plane)
    if pitch < config.lattice.min_pitch and scale < 1.0:
        wanted = min(1.0, scale * 1.5 * config.lattice.min_pitch / max(pitch, 1.0))
        find_cfg = replace(find_cfg, work_long_side=int(max(image.shape[:2]) * wanted))
        work, scale = work_image(image, find_cfg)
        candidates = find_tiles(work, find_cfg)
        plane = estimate_plane(candidates, config.plane)
    grid = fit_in_plane(image, plane, scale, find_cfg, config.lattice, candidates)
    check_view(grid, 1.0, config.lattice)
    trusted = candidates.trusted
    if grid.printed:
        # Designs the rectified view judged print (a board's square beside the tiles) are no tiles
        # left out.
        trusted = trusted & ~_on_cells(grid.lattice, candidates.centres / scale, grid.printed, config.lattice)
    if plane.printed:
        # Groups of designs on faces far lighter than the tiles' (vision.plane.estimate_plane): print.
        trusted = trusted.copy()
        trusted[np.asarray(plane.printed)] = False
    if plane.off_grid:
        # Lone designs the plane would not bend its map to take in (vision.plane._join) are print
        # when the lattice leaves them as far off its nodes: a board's dark square with a number.
        at = grid.lattice.to_lattice(candidates.centres[plane.off_grid] / scale)
        far = np.abs(at - np.rint(at)).max(axis=1) > config.plane.lone_join_offset
        trusted = trusted.copy()
        trusted[np.asarray(plane.off_grid)[far]] = False
    seen = Seen(candidates.centres[trusted] / scale, candidates.areas[trusted] / scale ** 2, candidates.face[trusted],
                candidates.asymmetry[trusted], face_levels(candidates, np.nonzero(trusted)[0]), candidates,
                np.nonzero(trusted)[0])
    missing = list(grid.missing)
    asked = missing + list(grid.cut_off) + list(grid.clear_missing)
    missing += faceless_tiles(grid.lattice, candidates, scale, [t.cell for t in grid.tiles], asked, config)
    missing += untrusted_designs(grid.lattice, candidates, scale, [t.cell for t in grid.tiles], missing + asked,
                                 config)
    return grid.lattice, grid.tiles, missing, grid.clear_missing, seen, grid.pale, grid.glimpsed


def untrusted_designs(lattice: Lattice, candidates, scale: float, tiles, asked, config: VisionConfig) -> list:
    """Cells off those read or asked about where the first search found a tile's design it did not
    trust: four-fold symmetric and the size of the trusted designs, on a node, ringed by face almost
    all round (`LatticeConfig.min_untrusted_face`) as dark as the tiles' faces. A highlight spilling
    from the design onto the face opens the ring where it lies, so such a tile is not trusted, sits on
    no cell read and counts for no tile left out (`unplaced`): it would be dropped without a word."""
    import numpy as np

    trusted = np.asarray(candidates.trusted, bool)
    doubted = np.nonzero(~trusted)[0]
    if not trusted.any() or not len(doubted):
        return []
    cfg = config.lattice
    doubted = doubted[clear_designs(candidates.areas[doubted], candidates.asymmetry[doubted], candidates.face[doubted],
                                     candidates.areas[trusted], cfg.min_untrusted_face, cfg)]
    if not len(doubted):
        return []
    face_level = float(array_median(face_levels(candidates, np.nonzero(trusted)[0])))
    at = lattice.to_lattice(candidates.centres[doubted] / scale)
    nodes = np.rint(at)
    off = np.linalg.norm(at - nodes, axis=1)
    taken = set(tiles) | set(asked)
    out = []
    for k, (col, row), d, level in zip(doubted.tolist(), nodes.tolist(), off.tolist(),
                                       face_levels(candidates, doubted).tolist()):
        cell = (int(row), int(col))
        if cell not in taken and d <= cfg.max_dark_design_offset and level <= cfg.max_faceless_level_ratio * face_level:
            out.append(cell)
            taken.add(cell)
    return out


def faceless_tiles(lattice: Lattice, candidates, scale: float, tiles, asked, config: VisionConfig) -> list:
    """Cells off those read or asked about where a tile's black face lies without a design hole
    (vision.find.faces_without_design): a tile whose design ran out through its margin, glare across
    its edge or a far tile's blur, would otherwise be dropped without a word. So would a tile's face
    the photo's edge cuts, its design cut open, beside a tile read: only part of it shows, so its hull
    is at least `LatticeConfig.min_cut_hull_cells` of a cell (cutoff 202: a yellow circle a quarter
    outside the photo, its face 0.54 of a cell, a gap from the tile beside it)."""
    import numpy as np

    from vision.find import faces_without_design

    cfg = config.lattice
    centres, areas, hull_areas, levels, clipped, cut, face_level = faces_without_design(
        candidates, config.find, cfg.max_face_chroma, cfg.min_faceless_grey)
    if not len(centres) or face_level is None:
        return []
    at = lattice.to_lattice(centres / scale)
    # A cell's area in work-image pixels where each blob lies.
    steps = [lattice.to_image(at + d) * scale for d in ((0.5, 0), (-0.5, 0), (0, 0.5), (0, -0.5))]
    across, down = steps[0] - steps[1], steps[2] - steps[3]
    cell_area = np.abs(across[:, 0] * down[:, 1] - across[:, 1] * down[:, 0])
    solidity = areas / np.maximum(hull_areas, 1e-9)
    low, high = cfg.faceless_hull_cells
    read = set(tiles)
    taken = read | set(asked)
    out = []
    for k in range(len(centres)):
        cell = (int(np.rint(at[k, 1])), int(np.rint(at[k, 0])))
        share = hull_areas[k] / max(cell_area[k], 1e-9)
        beside = _sides_read(cell, read) > 0
        sliver = False
        if cut[k] > 0:
            # The photo's edge cuts it, only part of it shows: a tile's face beside a tile read, or apart
            # from them where the table around it is not at the camera's clip (its level, bounded below,
            # says it is as dark as the tiles' faces): a loose tile running out of the photo beyond the
            # cells the lattice looked at (cutoff 334: two tiles 3 and 5 cells from the one read, their
            # designs cut open by the top edge, 0.48 and 0.89 of a cell, dropped without a word).
            fits = share >= cfg.min_cut_hull_cells and (beside or not clipped[k])
            # Less of it shows, a band along the edge: the sliver of a tile's face with its design
            # beyond the photo, solid, as dark as the tiles' faces (a board's print at the edge is
            # lighter, or curved), running along the edge for much of a tile's side (the lattice's
            # tile on the cell where it lies).
            side = lattice.tile * np.sqrt(cell_area[k])
            sliver = not fits and share >= cfg.min_sliver_hull_cells and cut[k] >= cfg.min_sliver_run * side \
                and solidity[k] >= cfg.min_sliver_solidity and levels[k] <= cfg.max_sliver_level_ratio * face_level
            if sliver:
                # Its tile's centre lies beyond it, outside the photo: half a tile's side from its
                # inner edge, out through the border nearest it (cutoff 404: the sliver's own centre
                # fell on the cell inside the photo).
                cell = _beyond_edge(lattice, centres[k], hull_areas[k] / cut[k], side, candidates.dark.shape, scale)
            fits = fits or sliver
        else:
            # Less of a cell than a tile laid flush is a tile laid apart from its neighbours: beside a tile
            # read (apart from them, a board's printed glyph made as large a blob: board 234, 0.61).
            fits = share >= low or (beside and share >= cfg.min_gap_hull_cells)
        if cell in taken or not fits or share > high:
            continue
        # Over a table the camera clipped, a blob's level is only an upper bound (find.faces_without_design):
        # a tile's face there, lit more than the tiles whose faces set face_level, measures lighter.
        if sliver or cfg.min_faceless_solidity <= solidity[k] <= cfg.max_faceless_solidity \
                and (clipped[k] or levels[k] <= cfg.max_faceless_level_ratio * face_level):
            out.append(cell)
            taken.add(cell)
    return out


def _beyond_edge(lattice: Lattice, centre, depth: float, side: float, shape, scale: float) -> tuple[int, int]:
    """The lattice cell of a tile of `side` (work-image pixels) whose face shows as a band `depth` deep
    at the photo's edge, centred on `centre` (work-image pixels, the band's middle): its centre lies half
    a side from the band's inner edge, out through the border of the work image (`shape`) nearest it."""
    import numpy as np

    height, width = shape[:2]
    x, y = float(centre[0]), float(centre[1])
    gaps = {(0.0, -1.0): y, (0.0, 1.0): height - y, (-1.0, 0.0): x, (1.0, 0.0): width - x}
    out = min(gaps, key=gaps.get)
    shift = max(0.0, (side - depth) / 2)
    point = np.array([[x + out[0] * shift, y + out[1] * shift]]) / scale
    col, row = lattice.to_lattice(point)[0]
    return int(np.rint(row)), int(np.rint(col))


@dataclass
class Seen:
    """The clean designs of the first search (trusted candidates), in image pixels."""

    centres: Any  # N x 2 (x, y)
    areas: Any  # N, in image pixels
    face: Any  # N
    asymmetry: Any  # N
    levels: Any = None  # N: the brightness of the black around each over the table's (find.face_levels)
    found: Any = None  # the work image's vision.find.Candidates these are of (to measure them further)
    indices: Any = None  # N: each design's index among `found`'s


def _on_cells(lattice: Lattice, centres, cells, config):
    """Which of the image points `centres` sit on one of `cells` (within `unplaced_offset` of its node)."""
    import numpy as np

    at = lattice.to_lattice(centres) if len(centres) else np.zeros((0, 2))
    nodes = np.rint(at)
    off = np.linalg.norm(at - nodes, axis=1)
    have = set(cells)
    return np.array([(int(row), int(col)) in have and d <= config.unplaced_offset for (col, row), d in zip(nodes, off)],
                    bool)


def unplaced(lattice: Lattice, seen, cells, config) -> tuple[int, int]:
    """(how many of the tiles `seen` sit on none of `cells`, the lattice cells read as tiles or
    asked about; how many of those are clear tiles: a design the size of those placed, four-fold
    symmetric, on a black face, or one as clear but larger on a node with a cell read on one side at most)."""
    if not len(seen.centres):
        return 0, 0
    left = ~_on_cells(lattice, seen.centres, cells, config)
    if not left.any():
        return 0, 0
    on = ~left
    if not on.any():
        return int(left.sum()), 0
    left &= _could_be_tiles(seen, ~left, config)
    left &= _one_per_tile(lattice, seen, ~left, left, config)
    left &= ~_over_placed(lattice, seen, ~left, left, config)
    # Print holes are no tiles, but are left out of the count only when they are all that is left
    # out: beside a design left out that is no print hole the lattice may have missed tiles, and the
    # photo is judged with all it left out (mixed 141: a print hole ringed by the board's lines beside
    # two designs left out, the photo refused; read with them alone, a printed blue square at the
    # photo's edge read sure as a tile).
    holes = _print_holes(seen, left, config)
    if holes.any() and not (left & ~holes).any():
        left &= ~holes
    # Sizes compared on the table, where every tile's design is its printed size: in the photo a far
    # tile's is smaller (packed 257: a far star left out, 0.41 of the median design read in pixels,
    # 0.57 on the table, its neighbour and it dropped without a word).
    areas = _on_table(lattice, seen.centres, seen.areas)
    placed = areas[on]
    clear = left & clear_designs(areas, seen.asymmetry, seen.face, placed, config.clear_unplaced_face, config)
    # Larger than the designs placed, as clear otherwise: an empty cell between tiles is such a hole,
    # their faces its ring, so on a node with tiles beside it on two sides or more (the others may close
    # with a board's print or a shadow: board 206, an empty cell between two columns of tiles, 2.9
    # times the designs' size); with one at most, the ring's face is its own tile's, a tile nearer the
    # camera than those placed, the lattice's map not bent enough for it (oblique 238: a near circle
    # 3.1 times the far designs' size, 0.86 of a cell on the map, dropped without a word).
    large = left & clear_designs(areas, seen.asymmetry, seen.face, placed, config.clear_unplaced_face, config,
                                 (config.clear_unplaced_area[1], float("inf")))
    if large.any():
        have = set(cells)
        for k, (col, row) in zip(large.nonzero()[0].tolist(), lattice.to_lattice(seen.centres[large]).tolist()):
            if _sides_read((round(row), round(col)), have) < 2:
                clear[k] = True
    return int(left.sum()), int(clear.sum())


def _on_table(lattice: Lattice, centres, areas):
    """`areas` (image pixels) of shapes at the image points `centres`, in the lattice's cells on the
    table: each over the lattice's area scale (pixels a cell) where it lies."""
    import numpy as np

    from vision.plane import jacobians

    # Every point's Jacobian at once (plane.jacobians: each the numbers of plane.jacobian at it).
    scale = np.abs(np.linalg.det(jacobians(lattice.homography, lattice.to_lattice(centres))))
    return np.asarray(areas, np.float64) / np.maximum(scale, 1e-9)


def _sides_read(cell, read: set) -> int:
    """How many of `cell`'s four neighbours on the lattice, (row, col) +- 1, are among the cells `read`."""
    row, col = cell
    return len({(row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)} & read)


def _print_holes(seen, left, config):
    """Which designs `left` (bool) are a board's print, no tile's: ringed by a thin dark line with
    the board's light surface beyond it. A tile's black face runs on from its design to the tile's
    edge; a light square between a board's lines, or between its lines and the tiles on it, is a hole
    as clear as a design, its ring of face the line round it (board 102: a square between the lines
    and a printed "START", 2.4 times the designs' size, counted as a tile left out and the photo, every
    tile read, refused). The dark share of the ring just beyond the face's (find.outer_faces) in each
    of eight sectors: under `max_light_outer` in `min_light_sectors` or more, a print hole. A real tile's
    design that nearly fills its face (packed 257's far star, an arm's tip at the tile's edge) leaves
    one such sector, the table beyond the edge."""
    import numpy as np

    from vision.find import outer_faces

    holes = np.zeros(len(left), bool)
    if seen.found is None or not np.any(left):
        return holes
    k = np.nonzero(left)[0]
    inner, outer = config.outer_face_ring
    shares = outer_faces(seen.found, seen.indices[k], inner, outer)
    # Sectors not measured (NaN) are not light.
    holes[k] = np.count_nonzero(shares < config.max_light_outer, axis=1) >= config.min_light_sectors
    return holes


def _one_per_tile(lattice: Lattice, seen, placed, left, config):
    """Which designs `left` (bool) to count as tiles left out: of designs `seen` closer together on the
    lattice's map than `min_design_spacing` of a cell, one only, the largest (or none beside a design
    `placed`). Tiles lie side by side, never one on another, so two tiles' designs are a tile's side
    apart; two designs nearer are one tile's at most: the two bowls of a board's printed "8" or "B"
    (board 109: three pairs 0.2-0.3 of a cell apart counted as six tiles left out, and the photo,
    every tile read, was refused)."""
    import numpy as np

    keep = np.asarray(left, bool).copy()
    if keep.sum() + np.count_nonzero(placed) < 2:
        return keep
    at = lattice.to_lattice(seen.centres)
    taken = [at[k] for k in np.nonzero(placed)[0]]
    for k in sorted(np.nonzero(keep)[0].tolist(), key=lambda k: -seen.areas[k]):
        if any(np.linalg.norm(at[k] - other) < config.min_design_spacing for other in taken):
            keep[k] = False
        else:
            taken.append(at[k])
    return keep


def _over_placed(lattice: Lattice, seen, placed, left, config):
    """Which designs `left` (bool) a tile centred on would lie over two tiles or more, each centred on
    a design `placed`, by more than `max_tile_overlap` of a pitch (on the lattice's map, each tile
    `lattice.tile` of a pitch across). Tiles lie side by side, never one on another (lattice._overlaps):
    such a design is a hole in the gap where tiles meet, ringed on those sides by their black faces,
    the board's light surface between its lines (board 228 and 243: 0.4-0.53 of a cell off the
    nodes, under three tiles each by 0.17-0.38, counted as tiles left out, and the photos, every tile
    read, were refused). Under one tile only, it may be a tile beside it that the map, bent at its
    far end, puts too near it: packed 257's far star, left out 0.39 off its node, 0.28 under its
    neighbour, still counts."""
    import numpy as np

    over = np.zeros(len(left), bool)
    if not np.any(left) or not np.any(placed):
        return over
    at = lattice.to_lattice(seen.centres)
    tiles = at[np.asarray(placed, bool)]
    for k in np.nonzero(left)[0].tolist():
        apart = np.abs(tiles - at[k])
        depth = np.minimum(lattice.tile - apart[:, 0], lattice.tile - apart[:, 1])
        over[k] = int(np.count_nonzero(depth > config.max_tile_overlap)) >= 2
    return over


def _could_be_tiles(seen, placed, config):
    """Which designs `seen` could be a tile's: ringed by black about as dark as that of the designs
    `placed` (bool, on cells read: at most `missing_level_ratio` times their median level, the
    bound of a cell asked about). Only a black tile carries a design: the letters of a board's "TL"
    squares, on faces twice as light, counted as tiles left out and refused board photos whose
    every tile was read (98; mixed 113).

    (A bound on the design's area on the lattice's map, 0.05-0.72 of a cell, also left out the
    bowls of a board's printed "8" and "B", board photo 109, but on the held-out board photos it
    took three tiles of a photo refused before out of the count, dropped without a word: the map
    is the lattice's, which tiles left out show to be in doubt. Asked only where the designs
    placed are at least as many as those left out, with the tile's square as the measure (a design
    over 0.74 or under 0.06 of it), it read board 102 and 109, but read oblique 131, whose lattice
    was bent, with a lone tile measured 1.1 of a cell dropped without a word.)"""
    if seen.levels is None:
        return True
    return seen.levels <= config.missing_level_ratio * float(array_median(seen.levels[placed]))


def read_tile(image, lattice: Lattice, cell, offset, config: VisionConfig):
    """(patch, DesignReading, offset) of one tile, the patch centred on its design.

    The first patch is centred where the tile was found; if the design sits
    off its middle (a leaky hole's centroid, a tile nudged by hand), it is cut
    again around the design. Raises ClassifyError if there is no design.
    """
    reading = read_tiles(image, lattice, [(cell, offset)], config)[0]
    if reading is None:
        raise ClassifyError("no design on the tile")
    return reading


def read_tiles(image, lattice: Lattice, tiles, config: VisionConfig) -> list:
    """read_tile of each (cell, offset) of `tiles`, None for a tile with no design; the designs'
    outlines compared with the designs' all at once (vision.design.classify_designs), each up to its
    patch's blur (DesignReading.blur)."""
    from vision.design import classify_designs, design_outline, glared

    size = config.design.patch_size
    # The tile, not its cell: where tiles lie apart, the table between them stays out.
    border = (lattice.tile - 1) / 2

    def outline_of(patch):
        # The design's outline, then its blur (none measured for a patch without an outline); the glare
        # test that both ask for, taken once.
        glare = glared(patch, config.design)
        outline = design_outline(patch, config.design, glare)  # a new outline: its blur set in place
        outline.blur = unglared_blur(patch, config.design, glare)
        return outline

    cuts = []  # per tile: None, or [(patch, outline, offset)], a second cut around the design after it
    for cell, offset in tiles:
        patch = cell_patch(image, lattice, cell, size, border=border, offset=offset)
        try:
            outline = outline_of(patch)
        except ClassifyError:
            cuts.append(None)
            continue
        tried = [(patch, outline, offset)]
        dx, dy = (outline.centre[0] / size - 0.5) * lattice.tile, (outline.centre[1] / size - 0.5) * lattice.tile
        if 0.04 < max(abs(dx), abs(dy)) <= 0.25:
            moved = (offset[0] + dx, offset[1] + dy)
            second = cell_patch(image, lattice, cell, size, border=border, offset=moved)
            try:
                tried.append((second, outline_of(second), moved))
            except ClassifyError:
                pass
        cuts.append(tried)
    designs = iter(classify_designs([outline for tried in cuts if tried for _, outline, _ in tried], size))
    out = []
    for tried in cuts:
        if tried is None:
            out.append(None)
            continue
        (patch, _, offset), design = tried[0], next(designs)
        if len(tried) == 2:
            again = next(designs)
            # Keep the better-centred reading only if it is also the surer one: a patch
            # half on the table can mistake the table for the design.
            if again.confidence >= design.confidence:
                patch, design, offset = tried[1][0], again, tried[1][2]
        out.append((patch, design, offset))
    return out


def unglared_blur(patch, config: DesignConfig, glare: bool | None = None) -> float | None:
    """The blur a patch's design is compared with the designs up to (design.BLUR_REACH times it): its
    blur_of, but None (the designs' whole curves) for a patch with a highlight (design.glared), whose
    outline a highlight bends rather than blur, and whose blur measures the highlight's contrast (a
    sharp tile 0.06-0.08). Tinted 100: a wild under a highlight, its glared star's outline off every
    design, came out surer against the designs' sharp ends, was read again in white light and read as
    a red star."""
    from vision.design import glared

    if glare is None:
        glare = glared(patch, config)
    return None if glare else blur_of(patch, config, glare=False)


def mend_by_symmetry(readings, config: DesignConfig) -> list:
    """read_tiles' readings, each not sure design under a highlight read again from its mask mended by
    the designs' four-fold symmetry (vision.design.four_fold) and kept when that reads the same design
    surer.

    A highlight joined to one side of a design, or biting into it, bends its outline one way only;
    the mended mask is the design's as far as its other three sides agree. Only a patch with a
    highlight (design.glared) is mended: without one, a design's doubt is its own (blur, a small
    tile), which its turns do not settle but only smooth towards what it looked like (a blurred
    clover of 20 pixels read as a diamond, 0.39 -> 0.60, sure and wrong). The mended reading of
    another design is kept only when most of what the mend changed lies under the highlight
    (design.glare_share at least `min_glared_change`: a bite the highlight took out of a square's
    side, filled; a blob of highlight on the face, dropped); elsewhere the change is the design's
    own shape, which the symmetry would only smooth towards another design. The
    paint's colour is still sampled in the first mask (the reading's `mask`): what the mend takes
    out (a highlight on the face) or fills in (paint a highlight paled) is pale, which the colour's
    sample leaves out (colour.colour_sample), and a tile whose design was sure reads as before.
    """
    from vision.design import classify_designs, four_fold, glare_share, glared, outline_of

    unsure = [k for k, r in enumerate(readings)
              if r is not None and r[1].confidence < SURE_AT and glared(r[0], config)]
    mended = [(k, four_fold(readings[k][1].mask)) for k in unsure]
    mended = [(k, mask) for k, mask in mended if mask.any()]
    again = classify_designs([outline_of(mask) for _, mask in mended], config.patch_size)
    out = list(readings)
    for (k, mask), reading in zip(mended, again):
        patch, design, offset = out[k]
        if reading.confidence > design.confidence and (
                reading.design == design.design
                or glare_share(patch, design.mask, mask, config) >= config.min_glared_change):
            out[k] = (patch, replace(reading, mask=design.mask), offset)
    return out


def read_asked(image, lattice: Lattice, found, asked, missing, config: VisionConfig, doubtful=()) -> list:
    """(tile, read_tiles' reading) of each tile `found`, and of each `asked` cell (one the search left
    "a tile may be missing here") whose design, cut at its node, reads at least `DesignConfig.asked_sure`
    sure: that cell taken out of `missing`, as a tile with no doubt. The search did not trust the design it found there (a highlight
    bent its outline or broke its ring of face); the tile's black face is there, on a node of the
    lattice, and the design's own reading, as any tile's, says whether it can be read. A cell in
    `doubtful` (its dark lighter than the nearest tiles' faces: GridInPlane.pale) gives a tile in doubt."""
    from vision.lattice import TileCell

    cuts = [(t.cell, t.offset) for t in found] + [(cell, (0.0, 0.0)) for cell in asked]
    readings = read_tiles(image, lattice, cuts, config)
    # Only a found tile's design is mended: an asked cell's may be no design at all (a finger, print),
    # which its quarter turns would make look like one.
    out = list(zip(found, mend_by_symmetry(readings[:len(found)], config.design)))
    pale = {k for k, cell in enumerate(asked) if cell in doubtful}
    for cell, reading in zip(asked, read_hidden(readings[len(found):], config.design, pale)):
        if reading is not None and reading[1].confidence >= config.design.asked_sure:
            if cell in doubtful and beyond_print_size(reading[1], config.design):
                # Lighter than the tiles' faces and its design larger than any tile's is printed: no
                # tile's face rings it, a board's square between its lines fills the cell (board 267,
                # 224: light and blue squares read as squares at 1.29-1.36 of a square's print).
                continue
            if cell in missing:
                missing.remove(cell)
            doubt = cell in doubtful and not at_print_size(reading[1], config.design)
            out.append((TileCell(cell, (0.0, 0.0), False, doubt), reading))
    return out


def read_hidden(readings, config: DesignConfig, pale=()) -> list:
    """read_tiles' readings of cells asked about, each under a highlight (design.glared) read less than
    `asked_sure` replaced by its reading with what the highlight hides read from the design's other
    quarters (design.mend_hidden) where that reads at least `asked_sure`: the search left the cell
    asked about because a highlight bent the design's outline (tinted 100: a blue circle, its lower
    half under a highlight, read as a clover 0.27 sure, mended a circle 0.91). Only pixels under the
    highlight are read from the rest: a finger or print is no highlight, and its shape stays its own.
    The paint's colour is still sampled in the first mask, as mend_by_symmetry's. A reading whose index
    is in `pale` (a cell lighter than the nearest tiles' faces: GridInPlane.pale) is left as it is: a
    board's print there is no tile's design, and a pale cell's reading not sure is not a tile."""
    from vision.design import classify_designs, glared, mend_hidden, outline_of

    mended = []
    for k, reading in enumerate(readings):
        if reading is not None and k not in pale and reading[1].confidence < config.asked_sure \
                and glared(reading[0], config):
            mask = mend_hidden(reading[0], reading[1].mask, config)
            if mask is not None and mask.any():
                mended.append((k, mask))
    again = classify_designs([outline_of(mask) for _, mask in mended], config.patch_size)
    out = list(readings)
    for (k, _), design in zip(mended, again):
        if design.confidence >= config.asked_sure:
            patch, first, offset = out[k]
            out[k] = (patch, replace(design, mask=first.mask), offset)
    return out


def at_print_size(design, config: DesignConfig) -> bool:
    """Whether a design read (a DesignReading, its mask in a tile's patch) spans across the tile the share
    its design is printed at on a tile's face (`DesignConfig.print_extent` times the artwork's widest
    extent). A tile's design is printed at one size on every tile, and a tile's patch is the tile's
    square, so a tile a highlight or the angle lit lighter than its neighbours (GridInPlane.pale) still
    shows its design at that size; a board's print under a cell (a coloured square, a letter) is as
    large or small as it was printed, and stays in doubt."""
    ratio = print_ratio(design)
    low, high = config.print_extent
    return ratio is not None and low <= ratio <= high


def beyond_print_size(design, config: DesignConfig) -> bool:
    """Whether a design read spans more of its tile's patch than any tile's design is printed at
    (`DesignConfig.print_extent`'s upper bound): a tile's black face rings its design on every side,
    so a design that large has no face round it."""
    ratio = print_ratio(design)
    return ratio is not None and ratio > config.print_extent[1]


def print_ratio(design) -> float | None:
    """A design read's widest span across its patch (rows or columns its mask covers, over the
    patch's side) over its artwork's widest extent (design.printed_extent): None if its mask is
    empty."""
    import numpy as np

    from vision.design import printed_extent

    rows = np.flatnonzero(np.asarray(design.mask).any(axis=1))
    cols = np.flatnonzero(np.asarray(design.mask).any(axis=0))
    if not len(rows):
        return None
    span = max(rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1) / design.mask.shape[0]
    return span / printed_extent(design.design)


def check_blur(blurs: list[float], tile_px: float, config: DesignConfig) -> None:
    """Raise RetakePhotoError ("blurred") for a photo too blurred to read, from its tiles' `blurs`.

    The photo is blurred when its sharper tiles are (`sharp_percentile`): a
    steep photo's far side out of focus leaves the near tiles sharp, and the
    lattice fitted on them. Its blurred tiles are judged one by one
    (blur_doubt).
    """
    if not blurs:
        return
    sharp = percentiles(blurs, [config.sharp_percentile])[0]
    if sharp > config.max_blur and sharp * tile_px > config.min_blur_px:
        raise RetakePhotoError(
            "the photo is blurred: hold the phone still, let it focus on the tiles, and take it again", "blurred")


def blur_doubt(blur: float | None, config: DesignConfig) -> bool:
    """Whether a tile whose patch measures `blur` (None: too little contrast, or a small tile's own
    softness) is asked about for its blur: past `max_tile_blur`.

    Short of it, the design's own confidence says whether it can be read: each
    design is compared with its curve from sharp to blurred (by 6% of a tile
    for the four numbers, 10.8% for the profile), so a design misread through
    blur comes out unsure (at most 0.39 on the evaluation sets, blurs of
    0.05-0.11), while tiles a little out of focus (a group of a photo farther
    away, a steep photo's far side) read right at 0.46-0.9. Past it the
    designs run off their curves' blurred ends, towards the circle.
    """
    return blur is not None and blur > config.max_tile_blur


def read_colours(patches, designs, samples, colours: str, calibration, config: VisionConfig, positions, pale=()) -> list:
    """The ColourReading of each tile (classify_colours), its design read again in white light where
    the light is tinted and the design unsure (reread_in_white: `designs` and `samples` updated; `pale`, the
    indices of tiles on pale cells, not mended there)."""
    readings = classify_colours(samples, colours, calibration, config.colour, positions)
    changed = reread_in_white(patches, designs, [c.light for c in readings], config.design, pale)
    if not changed:
        return readings
    for k in changed:
        samples[k] = colour_sample(patches[k], designs[k].mask, config.colour)
    return classify_colours(samples, colours, calibration, config.colour, positions)


def reread_in_white(patches, designs, lights, config: DesignConfig, pale=()) -> list[int]:
    """Read again, as in a white light, the designs not sure under a tinted one; the indices of those
    now read surer (their readings replaced in `designs`).

    A highlight is the lamp mirrored, in the lamp's colour: under a tinted lamp it has a colour of
    its own, which the design's outline takes for paint, or which takes the colour out of the paint it
    covers. With the light the tiles' paints show (`lights`, ColourReading.light) taken off the patch,
    a highlight is grey again; where a lamp from one side is of another colour than the room, it is
    not, so the patch is read again in the highlight's own colour too (colour.highlight_light), and
    the surer reading is kept. Only a patch with a highlight is read again (without one, the second
    cut would only be another draw at a design the first found unsure). A reading of another design
    than the first is kept (its outline is the better one) but no surer than the first, unless most
    of the pixels the two disagree on lie under the highlight (design.glare_share at least
    `min_glared_change`): then it is the first outline where the glare had not bent it, and keeps its
    own confidence. So does one read at least `min_white_reread` sure: under a strongly tinted light
    the design's contrast against the face is the light's, and the first outline may be bent where no
    highlight lies.
    """
    from vision.colour import highlight_light, white_balanced
    from vision.design import classify_designs, core_margin, design_fit, design_outline, glared, mend_hidden, outline_of

    def sureness(reading):
        # As far as the tile's confidence goes by its design (tile_confidence): a design read sure
        # whose shape is like none (a lobe lost to the highlight) is not sure.
        return min(reading.confidence, design_fit(reading.features))

    tried, mends = [], []
    for k, (design, light) in enumerate(zip(designs, lights)):
        if sureness(design) >= SURE_AT or max(light) < config.tinted_light * min(light):
            continue
        if not glared(patches[k], config):
            continue  # no highlight: the light's colour changes nothing the outline depends on
        # In the light the paints show there, and in the highlight's own (a lamp from one side
        # mirrored in the tile may be of another colour than the light on the paints); each outline
        # also with what the highlight hides read from the design's other quarters (design.mend_hidden).
        for seen in (light, highlight_light(patches[k], core_margin(patches[k].shape[0], config))):
            balanced = white_balanced(patches[k], seen)
            try:
                outline = design_outline(balanced, config)
            except ClassifyError:
                continue
            if design.confidence < SURE_AT:
                tried.append((k, outline))
            elif k in pale:
                continue
            else:
                mends.append((k, outline))
            # Not on a pale cell (a board's print there is no design to mend; its reading not sure is
            # dropped as print).
            mended = None if k in pale else mend_hidden(balanced, outline.mask, config)
            if mended is not None and mended.any():
                mends.append((k, outline_of(mended)))
    changed = []
    first = list(designs)
    again = classify_designs([outline for _, outline in tried + mends], config.patch_size)
    for (k, _), reading in zip(tried, again):
        if reading.confidence > designs[k].confidence:
            designs[k] = _held(reading, designs[k], patches[k], designs[k].confidence, config)
            if k not in changed:
                changed.append(k)
    # The mends, of the tiles the readings in white light left not sure, each held against the first
    # reading (not one read again before it, which may itself have been held at the first's confidence).
    unsure = {k for k, _ in mends if sureness(designs[k]) < SURE_AT}
    for (k, _), reading in zip(mends, again[len(tried):]):
        if k in unsure and sureness(reading) > sureness(designs[k]):
            # A mend (or the reading of a design sure but like none) reads the design only: the
            # colour is sampled in the mask it was before (a highlight's pixels the mend took for
            # paint are not the paint's colour: a wild's four paints, tinted 382).
            held = _held(reading, first[k], patches[k], sureness(designs[k]), config)
            designs[k] = replace(held, mask=designs[k].mask)
    return changed


def _held(reading, than, patch, confidence: float, config: DesignConfig):
    """A reading in white light (reread_in_white) of another design than `than` held at `confidence`,
    unless it is at least `min_white_reread` sure or most of what it changed lies under the highlight
    (design.glare_share): the two readings disagree, and not where the highlight lies, and the second
    is not clearly sure, so the tile stays as unsure as it was."""
    from vision.design import glare_share

    if reading.design != than.design and reading.confidence < config.min_white_reread \
            and glare_share(patch, than.mask, reading.mask, config) < config.min_glared_change:
        return replace(reading, confidence=confidence)
    return reading


def tile_confidence(design, colour, fit: float | None = None, alone: bool = False) -> float:
    """A tile's confidence from its design and colour readings: the lesser of the two, and of how like
    a design its shape is (vision.design.design_fit: a design a highlight took a lobe of is like none;
    `fit` when the caller has it), but a wild's is its colour's alone (a wild is "**" whatever shape its
    paint takes). The design's is both its readings' together where they agree (DesignReading.agreed,
    design.agreed_confidence); `alone`: each reading's alone (agreed left out), as for a reading
    whose `agreed` is None."""
    from vision.colour import WILD_COLOUR
    from vision.design import design_fit

    if colour.colour == WILD_COLOUR:
        return colour.confidence
    confidence = design.confidence if alone or design.agreed is None else design.agreed
    return min(confidence, colour.confidence, design_fit(design.features) if fit is None else fit)


def load_reader() -> None:
    """Import everything a read uses (NumPy, OpenCV and every stage) without running any of it:
    for a process about to fork workers that will read photos."""
    import cv2  # noqa: F401
    import numpy.fft  # noqa: F401

    import companion.games.pivit_tiles.grid  # noqa: F401
    import companion.games.pivit_tiles.tiles  # noqa: F401
    import vision.capture  # noqa: F401
    import vision.lattice  # noqa: F401
    import vision.plane  # noqa: F401


def use_opencv_threads(config: VisionConfig) -> None:
    """Run OpenCV on `config.opencv_threads` threads in this process (0 leaves it as it is)."""
    if config.opencv_threads:
        import cv2

        if cv2.getNumThreads() != config.opencv_threads:
            cv2.setNumThreads(config.opencv_threads)


def read_image(
    image,
    tileset: str = "classic",
    calibration: Calibration | None = None,
    config: VisionConfig | None = None,
    started: float | None = None,
) -> ReadResult:
    """Read the grid in a BGR photo (numpy uint8, H x W x 3).

    Works on any BGR array: a decoded upload, or a frame from
    vision.capture's PiCamera or Webcam. Raises NoTilesError (no tile
    found), LatticeError (no grid fits) or TileError for an unknown tile set
    name.
    """
    from companion.games.pivit_tiles.tiles import get_tileset

    t0 = time.perf_counter() if started is None else started
    cfg = config or VisionConfig()
    use_opencv_threads(cfg)
    colours = get_tileset(tileset).colours
    # Cells asked about for a clear design only are left out of the finger's count and the designs'
    # placing: a design clear in both searches yet on no tile read is `unplaced`'s to refuse. They are
    # read as the cells asked about are (read_asked): a design read there at least `asked_sure` is the
    # tile's (rough 311: a red circle under a highlight spilling onto its face, its cell's measures
    # failed, read 0.71 sure as a circle; the photo was refused with it left out).
    lattice, found, missing, clear_missing, seen, pale, glimpsed = _locate(image, cfg)
    covered = covered_cells(image, lattice, [t.cell for t in found], missing, cfg.occluder, glimpsed)
    if len(covered) >= cfg.occluder.refuse_cells:
        raise RetakePhotoError(
            f"a finger or a hand covers part of the grid ({len(covered)} places where a tile may be hidden): "
            "take the photo again with nothing over the tiles", "covered")
    # A cell the search left "a tile may be missing here" (a tile's black face there, its design not
    # trusted: a highlight bent its outline or broke its ring of face) is read as a tile is, cut at
    # its node; a design read well sure there is the tile's (read_asked). So is one on a cell whose dark
    # is lighter than the nearest tiles' faces (GridInPlane.pale), but in doubt: print is not asked
    # about, and a design read there may be a tile a highlight or the angle lit lighter than its
    # neighbours (steep 209: left out of the asked cells, it was dropped without a word) or a board's
    # printed design on a printed square.
    # A pale cell that other evidence put back among the missing (faceless_tiles, untrusted_designs) is
    # asked about as they are, once.
    pale = [cell for cell in pale if cell not in covered and cell not in missing]
    clear_missing = [cell for cell in clear_missing if cell not in covered]
    asked = [cell for cell in missing if cell not in covered] + pale + clear_missing
    missing += covered
    tile_px = lattice.pitch * lattice.tile
    cells, designs, samples, offsets, blurs, tile_blurs, patches, pales, printed = (
        [], [], [], [], [], [], [], [], [])
    placed_in_doubt = []  # per tile read: its group's place on the grid is not clear (TileCell.doubt)
    for tile, reading in read_asked(image, lattice, found, asked, missing, cfg, set(pale)):
        if reading is None:
            # Black face but no design that can be read: a tile may be there, turned over or
            # covered; the player is asked rather than told it is empty. A face far lighter than the
            # nearest tiles' is a board's printed square (TileCell.printed): no tile to ask about.
            if not tile.printed:
                missing.append(tile.cell)
            continue
        patch, design, offset = reading
        blur = blur_of(patch, cfg.design) if design.blur is None else design.blur  # measured as its design was read
        if blur is not None:
            blurs.append(blur)
            blur = blur if blur * tile_px > cfg.design.min_blur_px else None  # a small tile's own softness
        cells.append(tile.cell)
        tile_blurs.append(blur)
        placed_in_doubt.append(tile.doubt)
        pales.append(tile.pale)
        printed.append(tile.printed)
        offsets.append(offset)
        # A pale cell's reading is judged by each reading alone (agreed left out): the bound below that
        # tells a board's print from a tile (not sure: print) was measured on those, and a printed
        # square can read as a square to both readings (board 190, on a cell not pale: 0.34 and 0.26, left
        # not sure by its colour, 0.00).
        designs.append(replace(design, agreed=None) if tile.pale else design)
        patches.append(patch)
        samples.append(colour_sample(patch, design.mask, cfg.colour))
    if not cells:
        raise NoTilesError("no tiles found in the photo")
    left_out, clear = unplaced(lattice, seen, cells + missing, cfg.lattice)
    if clear or left_out > cfg.lattice.max_unplaced or (
            left_out >= cfg.lattice.min_unplaced and left_out >= cfg.lattice.max_unplaced_share * len(cells)):
        raise RetakePhotoError(
            f"{left_out} of the tiles in the photo could not be placed on the grid: make sure nothing covers "
            "them and take the photo again from above the whole grid", "unplaced")
    missing += [cell for cell in clear_missing if cell not in cells]
    check_blur(blurs, tile_px, cfg.design)
    doubts = [d or blur_doubt(b, cfg.design) for d, b in zip(placed_in_doubt, tile_blurs)]
    # Where each tile lies across the photo (-1 to 1): the light's colour may change across it.
    middles = lattice.to_image([(c[1] + o[0], c[0] + o[1]) for c, o in zip(cells, offsets)])
    height, width = image.shape[:2]
    positions = middles / [width / 2, height / 2] - 1
    colour_readings = read_colours(patches, designs, samples, colours, calibration, cfg, positions,
                                   {k for k, (pale, square) in enumerate(zip(pales, printed)) if pale or square})
    # How like a design each shape is, every tile's at once (both confidences below take it).
    fits = design_fits([d.features for d in designs])
    readings = [
        (cell, tile_code(d.design, c.colour), tile_confidence(d, c, fit), doubt)
        for cell, d, c, doubt, fit in zip(cells, designs, colour_readings, doubts, fits)
    ]
    # Whether each tile is doubted by its design's readings taken alone (DesignReading.agreed left
    # out), for the photo's "unsure" refusal below.
    doubted = [reading[3] or (reading[2] if d.agreed is None else tile_confidence(d, c, fit, alone=True))
               < SURE_AT for reading, d, c, fit in zip(readings, designs, colour_readings, fits)]
    # A tile whose dark is lighter than the faces of the tiles nearest it, its "design" as bright as the
    # surface around the tiles (TileCell.pale), that reads as no tile's (not sure) is a board's print: a
    # digit's strokes and the board's lines round a light square, the square's own surface taken for a
    # design (board 217, 236, 239: read "not sure" at 0.00-0.07). A tile's face is as black as its
    # neighbours' and its paint darker than the board; a pale cell's design that does not read sure is
    # not asked about either (read_asked). A design in a saturated paint is no board's light surface: a
    # tile a highlight lit lighter than its neighbours (LatticeConfig.max_pale_cell_paint), kept not sure.
    # So is a tile found from a face far lighter than its neighbours' (TileCell.printed: a board's printed
    # dark square, board 293) whose design does not read sure.
    kept = [k for k, (reading, pale, square, design, sample)
            in enumerate(zip(readings, pales, printed, designs, samples))
            if not (pale and ((reading[2] < SURE_AT
                               and sample.paleness(cfg.colour.paint_floor) >= cfg.lattice.max_pale_cell_paint)
                              or beyond_print_size(design, cfg.design)))
            and not (square and reading[2] < SURE_AT)]
    if len(kept) < len(readings):
        readings, cells, samples, offsets, doubted, placed_in_doubt = (
            [seq[k] for k in kept] for seq in (readings, cells, samples, offsets, doubted, placed_in_doubt))
        positions = positions[kept]
    assembled = assemble_grid(readings, cfg.assemble)
    # The photo is judged as a whole on what each reading alone doubts: a lattice sheared off the
    # tiles distorts every patch and drops tiles, which two readings agreeing on one patch do not
    # vouch for (extreme 236, beyond 55 degrees: 4 of its 6 tiles read, each doubted, 2 dropped;
    # with one diamond's readings agreeing, 3 of 4 not sure, under the share, and the 2 dropped
    # tiles were confidently wrong).
    unsure = sum(doubted)
    if unsure >= cfg.assemble.min_unsure_tiles and unsure > cfg.assemble.max_unsure_share * len(assembled.tiles):
        raise RetakePhotoError(
            f"the reader is not sure of {unsure} of the {len(assembled.tiles)} tiles in the photo: take it again "
            "from above the grid, in even light, with nothing over the tiles", "unsure")
    if any(placed_in_doubt):
        # A group of tiles apart from the others placed on the grid by a small margin over another
        # place (vision.plane.estimate_plane: doubtful_groups). "Not sure" on its tiles cannot say
        # it: placed a cell off, its tiles sit on cells where there are none and the cells where
        # they lie are read empty without a word (groups 328: two lone stars and a line of three
        # across their line, 4-7 cells beside a line of twelve that fixes no perspective off it,
        # all placed a row off, the stars by margins 0.26 and 0.38, the line by 0.12; four tiles
        # dropped, two stars read sure on empty cells). A tile so placed is never read sure
        # (TileCell.doubt), so the refusal takes no photo from those read exactly.
        raise RetakePhotoError(
            "a group of tiles lies apart from the others and the photo does not show clearly which cells it "
            "is on: take the photo again from above the whole grid, or move the groups closer together",
            "unplaced")
    top, left = assembled.origin
    by_cell = {(cell[0] - top, cell[1] - left): sample for cell, sample in zip(cells, samples)}
    offset_by_cell = {(cell[0] - top, cell[1] - left): off for cell, off in zip(cells, offsets)}
    position_by_cell = {(cell[0] - top, cell[1] - left): (float(x), float(y)) for cell, (x, y) in zip(cells, positions)}
    elapsed = (time.perf_counter() - t0) * 1000
    return ReadResult(
        tiles=assembled.tiles,
        grid=grid_text(assembled.tiles),
        elapsed_ms=elapsed,
        image=image,
        lattice=lattice,
        origin=assembled.origin,
        samples=by_cell,
        offsets=offset_by_cell,
        positions=position_by_cell,
        missing=sorted((r - top, c - left) for r, c in set(missing)),
    )


def read_image_bytes(data: bytes, tileset: str = "classic", calibration: Calibration | None = None, config: VisionConfig | None = None) -> ReadResult:
    """Read the grid in a photo's bytes (JPEG, PNG, WebP or BMP).

    The photo is decoded at about `DecodeConfig.grid_long_side` first and
    read; if its tiles come out smaller than `min_tile_px` (a grid far away
    in a large photo), or too small to read, it is decoded twice as large and
    read again, up to its full size.

    Raises a VisionError subclass whose `.status` is an HTTP hint: 400
    BadImageError (not a usable photo), 413 ImageTooLargeError, 422
    NoTilesError or LatticeError (no grid found). An unknown tile set name
    raises TileError.
    """
    from vision.capture import decode_image_bytes

    t0 = time.perf_counter()
    cfg = config or VisionConfig()
    target = cfg.decode.grid_long_side
    while True:
        decoded = decode_image_bytes(data, replace(cfg.decode, target_long_side=target))
        larger = decoded.scale < 1.0 and max(decoded.image.shape[:2]) < max(decoded.info.width, decoded.info.height)
        try:
            result = read_image(decoded.image, tileset, calibration, cfg, started=t0)
        except RetakePhotoError as error:
            if error.reason == "small" and larger:
                target *= 2
                continue
            raise
        if result.lattice.pitch * result.lattice.tile < cfg.decode.min_tile_px and larger:
            target *= 2
            continue
        return result


def read_image_file(path: str, tileset: str = "classic", calibration: Calibration | None = None, config: VisionConfig | None = None) -> ReadResult:
    """Read the grid in a photo file. Raises OSError for an unreadable file, and as read_image_bytes."""
    from vision.capture import read_photo_bytes

    cfg = config or VisionConfig()
    return read_image_bytes(read_photo_bytes(path, cfg.decode), tileset, calibration, cfg)


__all__ = ["ReadResult", "VisionError", "read_image", "read_image_bytes", "read_image_file", "load_reader", "use_opencv_threads"]
