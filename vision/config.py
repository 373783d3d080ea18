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
# from the evaluation sets (docs/vision.md): no tile at or above it may be wrong. At 0.25
# (before 2026-11-26) 8 wrong tiles of the long sets were sure, at 0.30-0.41; at 0.45 none
# is, for 1.4 more right tiles in 100 asked about (2.0-2.5% in all).
SURE_AT = 0.45


@dataclass(frozen=True)
class DecodeConfig:
    """Reading image bytes with bounded memory."""

    max_bytes: int = 40_000_000  # an upload larger than this is refused (413)
    max_pixels: int = 64_000_000  # JPEGs: decoded at reduced size, so this bounds memory
    max_pixels_full: int = 25_000_000  # other formats decode at full size first
    min_side: int = 64  # a smaller picture cannot show a grid of tiles
    target_long_side: int = 2000  # JPEGs are decoded at 1/2, 1/4 or 1/8 down to about this
    # The grid reader decodes smaller first (a 12-megapixel JPEG at 1/4; its Huffman
    # decoding is most of a decode's cost at any size, and the read's later stages cost
    # per tile more than per pixel: about 4% of the read's CPU saved against 1/2, see
    # docs/vision.md), and twice as large again while its tiles come out smaller than
    # `min_tile_px`.
    grid_long_side: int = 1000
    min_tile_px: float = 28.0


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
    min_hole_share: float = 0.5  # of a hole's area: a mask's hole at its centre smaller is a piece of it (tile_evidence)
    min_faceless_area: int = 60  # work-image pixels: a dark blob without a design smaller than this is a speck
    # A table whose brightness (HSV value) around a blob is mostly this or more is clipped by the camera
    # (find.faces_without_design): lit more than it shows, so a face's level over it reads too light.
    clipped: int = 250


@dataclass(frozen=True)
class LatticeConfig:
    """Fitting the lattice in the rectified plane and deciding cell by cell (vision.lattice).

    Lengths are in cells unless they say otherwise; shares are of a tile's area.
    """

    min_pitch: float = 24.0  # work-image pixels; smaller tiles are found again at a higher resolution
    cell_px: int = 32  # pixels per cell of the rectified picture
    region_margin: int = 2  # cells looked at around the tiles' box
    max_cells: int = 60  # rows or columns of the region at most (more: not one grid)
    rectify_rounds: int = 3  # the photo is rectified again while the correction moves cells
    settled_move: float = 0.08  # by more than this
    max_residual: float = 0.38  # a design further from its node is not on the grid
    # A design more than `max_dark_design_offset` off its node whose dark ring is more than
    # `max_off_node_level_ratio` times as light as the tiles' faces is print, not a tile's design
    # (lattice._evidence). On the evaluation sets (seeds 0-23, every condition) the tiles' designs
    # sat at most 0.20 off their nodes (held-out steep 25's slanted stray tile 0.23, 1.16 times as
    # light: asked about); a board's printed squares beside tiles 0.24-0.34 off, ringed 1.19-1.63
    # times as light as the faces (tiles' faces 0.73-1.48, 95% under 1.15).
    max_dark_design_offset: float = 0.25
    max_off_node_level_ratio: float = 1.15
    # Nearer: more than `max_light_design_offset` off, ringed more than `max_light_level_ratio` times
    # as light as the faces, is print too. On seeds 0-23 of every condition the tiles' designs more
    # than 0.15 off their nodes sat at most 0.198 off, ringed at most 1.32 times as light (0.165
    # off); a board's printed squares read as a tile or asked about 0.237-0.238 off, 1.3-1.5 times.
    max_light_design_offset: float = 0.21
    max_light_level_ratio: float = 1.25
    max_correction_perspective: float = 0.02  # of the rectified plane's correction, per cell
    max_correction_scale: float = 0.25  # the correction may stretch cells by this much at most
    min_design_area: float = 0.05  # of a cell: smaller holes are specks
    max_design_area: float = 0.72  # of a cell: a bigger hole is an empty cell ringed by tiles
    min_tileness: float = 0.6  # dark share of a tile's corners or side middles (its black face)
    min_trusted_face: float = 0.4  # corners or side middles, for a tile with a trusted design
    min_trusted_band: float = 0.35  # dark share of the band inside the edge of a tile with a trusted design
    min_face_band: float = 0.8  # the same for a tile whose design is not four-fold symmetric or no hole
    min_side_band: float = 0.55  # and on its least dark side
    max_untrusted_asymmetry: float = 0.6  # a design more lopsided than this is print, not a tile's
    # A design read as a tile whose sides facing no tile (at least this many) are all lighter than this
    # is print between tiles, ringed by their faces only (lattice._ringed_by_neighbours).
    min_print_outer_sides: int = 2
    max_print_outer_side: float = 0.45
    min_print_level_ratio: float = 1.1
    # A cell whose face is a tile's (corners or side middles) but whose band is broken on a side is
    # measured again where a square of the tile's size fits it best, up to this far (see
    # lattice._register_squares).
    square_search: float = 0.1
    min_square_face: float = 0.5
    # A design not trusted (a highlight bent its outline or broke its ring) is a tile's, beside a
    # tile, when it sits this near its node, ringed (min_tileness, min_trusted_band) by face at most
    # this times as light as the tiles' (lattice._decide). Tinted seeds 0-95: such tiles 0.63-0.93
    # face, 0.45-0.76 band, 0.98-1.31 as light; a board's printed square (board 13) 0.55 face.
    max_glared_offset: float = 0.15
    max_glared_level_ratio: float = 1.35
    min_added_tileness: float = 0.75  # face of a tile found without a clean hole
    min_added_band: float = 0.6  # and the band inside its edge (a design touching it or a tile standing up thins it)
    min_added_side: float = 0.3  # and on its least dark side
    min_missing_face: float = 0.5  # corners or side middles of a cell asked about (see lattice._decide)
    # A cell between two tiles of a line whose corners and side middles are this much face round a
    # bright middle is asked about (lattice._decide): plain 176's glared circle, off its node, measured
    # 0.76 with its sides at the node 0.24-0.31; empty cells beside tiles, their sides and shadows,
    # measured up to 0.51 in steep and oblique views.
    min_between_face: float = 0.7
    # A cell beside a tile read, dark along two sides that meet at a corner (at least `min_corner_side`
    # each), its corners or side middles `min_corner_face`, a bright middle, tile-black: a tile laid
    # off its node towards that corner (lattice._dark_corner), asked about.
    min_corner_side: float = 0.5
    min_corner_face: float = 0.35
    # and as dark as the tiles' faces: a board's print beside tiles is lighter (board 55: such cells
    # 1.38-1.60 times the faces' level, read "not sure"; the tiles found so 1.07-1.33)
    max_corner_level_ratio: float = 1.35
    # A band against a tile standing away from the camera at least this dark is that tile's thick side
    # seen at an angle, filling it along the tile's whole edge: not one of the corner's sides (extreme
    # 223, 219, oblique 256, steep 249: 0.98-1.0; a tile's face off its node over part of it: tinted
    # 272 0.51, mixed 180, extreme 250 and 217 0.54-0.88).
    min_thick_side_band: float = 0.9
    min_missing_face_dark: float = 0.35  # dark share of a cell with a tile's face beside a tile: "may be missing"
    min_missing_side: float = 0.15  # and the face on its least dark side, for any "may be missing"
    min_missing_three_sides: float = 0.4  # or on its second least dark side, beside a tile (see lattice._decide)
    missing_face_level_ratio: float = 2.0  # and as dark as the tiles' faces (a board's printed square is not)
    # Or half the cell or more as dark as the tiles' own faces, beside a tile, with face along
    # three sides: a tile with a design too dark to stand out (a deep green beside a red).
    min_missing_black: float = 0.5
    missing_black_level_ratio: float = 1.35
    min_missing_black_sides: float = 0.3
    default_face_level: float = 0.15  # a tile face's brightness over the table's, when no design says
    max_face_level_ratio: float = 2.5  # tile-black: at most this times the tiles' own face level
    face_level_margin: float = 0.12  # or that level plus this share of the table's brightness
    max_outside: float = 0.25  # of a cell: more outside the photo and it is not read
    # A dark blob with no design hole off the cells read or asked about (find.faces_without_design):
    # a tile whose design ran out through its margin, "may be missing", when its convex hull is
    # a tile's size on the lattice (cells), it is no fuller of it than a "C" (a tile turned over,
    # a board's plain dark square, fills it), and it is as dark as the tiles' faces. A circle takes
    # 0.53 of its tile, its face the rest of the hull, and a highlight across the margin takes part of
    # that too (tinted 189: 0.39 of its hull; 0.4 was the bound): the least is a circle's face less a
    # third.
    faceless_hull_cells: tuple[float, float] = (0.7, 1.7)
    # Tiles laid apart take less of a cell than one: with a gap of an eighth of a tile and jitter (the
    # evaluation sets' widest, a pitch of 1.25 tiles) a whole tile's hull is 0.64 of a cell, less where a
    # highlight across a corner cuts the hull (plain 222: a glared blue square 0.69, cloth 236: a wild
    # glared at its corner 0.67, dropped without a word). Beside a tile read, a blob from this share of
    # a cell is a tile's face (pipeline.faceless_tiles).
    min_gap_hull_cells: float = 0.55
    # Such a blob the photo's edge cuts, beside a tile read or apart from the tiles where the table
    # around it is not at the camera's clip: part of a tile's face shows, at least this share of a cell.
    min_cut_hull_cells: float = 0.3
    # Less of a cell than that, a sliver of a tile's face the photo's edge cuts, its design outside the
    # photo: at least this share of a cell, running along the edge for at least `min_sliver_run` of the
    # tile's side, this solid (a band with straight sides) and at most `max_sliver_level_ratio` times
    # the tiles' faces' level, over a clipped table too (cutoff 404 and 191: a tile's face 0.16 and 0.04
    # of a cell at the edge, 0.95 and 0.94 solid, 0.97 and 0.99 of the faces' level, dropped without a
    # word). A board's dark print cut by the edge measured 1.08-1.26 (board 0-383: its squares and
    # lines, asked about on twelve photos read exactly at 0.8 solid and 1.25), a black printed "0" 1.00
    # but 0.88 solid (board 188): its curve leaves its hull less full than a band.
    min_sliver_hull_cells: float = 0.03
    min_sliver_run: float = 0.5
    min_sliver_solidity: float = 0.9
    max_sliver_level_ratio: float = 1.05
    max_faceless_solidity: float = 0.9
    min_faceless_solidity: float = 0.3
    max_faceless_level_ratio: float = 1.25
    # The blob's level is its grey pixels' (chroma under `max_face_chroma`) when they are at least this
    # share of it: a tile's face is most of the dark of a tile whose dark paint the loose mask took in
    # (groups 379: a deep green square under a highlight, 1.30 times the faces' level with its paint,
    # 0.95 without). A board's coloured print is mostly colour and keeps its level; a grey print has
    # nothing left out.
    min_faceless_grey: float = 0.5
    # ... and more than this outside, too little of it shows to tell whether a tile lies there: beside
    # a tile, the grid may go on outside the photo (refused as cut off)
    max_outside_unseen: float = 0.97
    # A cell this much outside the photo (its whole pitch square, not only a tile's square on its
    # node), the part that shows light (at most `max_unseen_cell_dark` of it dark), and the photo's own
    # pixels along its edge there light too (at most `max_unseen_edge_dark` of the `unseen_edge_px`
    # band where the cell, grown by `unseen_cell_reach` of a cell, meets the edge): no tile on it shows
    # in the photo, and the grid is not cut off there (lattice._unseen_cell). The photo's edge at the
    # last tiles' outer sides measured 0.97-1.00 outside and 0.00 dark in the cell beyond them (rough
    # 17, board 27, tinted 60 and 299); the cut-off set's slivers of a tile's face (1-3 pixels at
    # the photo's edge) are tile-black in the photo's own pixels.
    min_unseen_cell: float = 0.96
    max_unseen_cell_dark: float = 0.2
    unseen_cell_reach: float = 0.25
    unseen_edge_px: int = 2
    max_unseen_edge_dark: float = 0.05
    min_outside_cut: float = 0.05  # a cell this much outside the photo, tile-black where it shows: cut off
    min_cut_dark: float = 0.35  # tile-black share of the part that shows (a design's paint takes some)
    # A cell more than `cut_sliver_outside` outside (and at most max_outside_unseen) shows a sliver
    # along its edge beside the tiles: a tile cut off there shows its black edge band all across it
    # (cutoff 168-191: 0.95-1.00 of the sliver dark), and so does a loose tile there. Under
    # `min_sliver_dark` of it dark, it is the tile beside it, its thick side seen at an angle, and the
    # table (board 75, 136: 0.46-0.49, refused as cut off), or the board's print (board 55: 0.56,
    # asked about as a loose tile): neither cut off nor asked about. A sliver of a tile's face with its
    # design's paint in it measured 0.66 (cutoff 369, an orange tile at the photo's edge, dropped
    # without a word at 0.7), the table and sides beside a tile 0.40-0.49 (board 75, cutoff 89).
    cut_sliver_outside: float = 0.85
    min_sliver_dark: float = 0.6
    # A cell joining a tile read to a tile-black cell at its corner at the photo's edge (lattice.
    # _joined_at_edge) is the grid running out of the photo when the part of it that shows is tile-black
    # (`min_cut_dark`, `cut_level_ratio`), or, where a design's paint takes most of it (a circle cut by
    # the edge: cutoff 383, 0.30 dark), at least `min_join_dark` of it dark as dark as the tiles' own
    # faces (at most `join_level_ratio` times their level: 0.98 there; a board's letters and lines at
    # the photo's edge 1.29-1.49).
    min_join_dark: float = 0.25
    join_level_ratio: float = 1.1
    # and that part as dark as the tiles' own faces: a printed board's dark squares, the
    # side of a tile seen at an angle, are lighter (faces measured 0.73-1.43 times the
    # tiles' level on the evaluation sets' cut-off photos; boards' false cuts 1.9-2.4)
    cut_level_ratio: float = 1.5
    # A pixel of this much chroma (brightest minus dimmest channel, 0-255) is paint, not a tile's grey
    # face (find.colour_mask's bound): a cut cell's level is also measured without such pixels.
    max_face_chroma: int = 40
    min_missing_dark: float = 0.55  # tile-black share of a cell for "a tile may be missing here"
    # A tile's side seen at an angle darkens the cell beside it on the camera's side. A cell whose
    # dark bands all lie against tiles standing away from the camera (the tile is at least
    # `min_side_facing` of a step away from it) and whose other sides are lighter than
    # `max_open_side` is those tiles' sides, not a tile: not asked about.
    min_side_facing: float = 0.2
    max_open_side: float = 0.5
    # A cell dark all over, its middle too, no design seen, more than this times as light as the
    # tiles' faces: a board's printed square, not asked about (a tile turned over is as dark as
    # the faces; a design, even a dark paint, leaves the middle bright in the strict mask).
    max_plain_level_ratio: float = 1.35
    # A cell asked about beside a tile whose face shows as a tile's does (corners or side middles
    # at least `min_read_face`, the band on three sides at least `min_read_sides`, a bright
    # middle, as dark as the faces) is read as a tile whose design was not found: the design
    # reader reads it, not sure if it must, and it is asked about if no design is there.
    min_read_face: float = 0.75
    min_read_sides: float = 0.3
    # Any cell asked about is at most this times as light as the tiles' faces: a printed board's
    # dark squares beside the tiles measured 1.5-2.0, tiles whose design was not seen up to 1.6,
    # on the evaluation sets (seeds 0-23); the squares from 1.8 up are no longer asked about.
    missing_level_ratio: float = 1.75
    min_missing_band: float = 0.6  # or of its band, where a design was seen but not taken
    # A cell asked about is at most `max_near_level_ratio` times as light as the faces of the
    # `near_level_tiles` tiles read nearest it (lattice._lighter_than_near).
    max_near_level_ratio: float = 1.25
    near_level_tiles: int = 4
    # A tile read whose dark is lighter than that (lattice.TileCell.pale), and whose middle's light
    # pixels are at least `min_surface_light` times as bright as the table around them, is a board's
    # print unless its design reads sure: what was taken for its design is the board's own light
    # surface between printed strokes and lines (board 192, 217, 236, 239, mixed 32: 1.04-1.19), where a
    # tile's paint, beside its black face, is darker than the surface around the tiles (the tiles of
    # seeds 0-239 lighter than their neighbours and not sure, greens and blues: 0.46-0.75).
    min_surface_light: float = 0.95
    # Unless its design's paint is saturated: a colour's least channel over its greatest
    # (colour.ColourSample.design_bgr, floored at ColourConfig.paint_floor) under this is a tile's
    # paint, not the board's light surface (the print read on pale cells, board 192, 217, 236, 239 and
    # mixed 32: 0.50-0.69). Such a tile is kept, not sure, rather than dropped without a word (tinted
    # 313: a wild under a warm lamp's highlight, its face lit lighter than its neighbours', its cool
    # sectors too dark to count, read an orange star not sure at 0.065).
    max_pale_cell_paint: float = 0.3
    # A tile found from its black face alone (no clean design on it) whose dark is more than this many
    # times as light as the faces of the tiles read nearest it (lattice.TileCell.printed) is a board's
    # printed dark square unless a design reads sure on it: it is neither read "not sure" nor asked
    # about (board 240, 293: grey squares beside the tiles, 2.1 times as light; a tile's face, turned
    # over or its design unseen, is as black as its neighbours').
    min_printed_square_ratio: float = 1.8
    # Or a design seen on a cell not read, on a face as dark as the tiles' (at most
    # missing_level_ratio times their level): a lone tile off the grid, turned or
    # leaning so that its cell's measures fail, a tile whose design glare has broken open.
    min_lone_face: float = 0.5  # its corners or side middles
    min_lone_dark: float = 0.4  # and its tile-black share
    # Or a clear tile's design (lattice.clear_designs), ringed by face this share of the way round.
    clear_design_face: float = 0.9
    # Part of a tile showing from under a finger (lattice._partly_hidden): its corners or side
    # middles, its band, one outer side dark along nearly its whole length, as dark as the faces.
    # Set on the occluded photos (seeds 0-23), where the 41 tiles dropped under the finger had
    # 13-85% of them hidden; no cell of the other conditions' photos (seeds 0-47) passes. The same
    # shows where a tile's design runs out through its face, nudged off its node (cloth 42: face
    # 0.41) or far and blurred with its thick side in view (extreme 17: 1.23 times the faces' level).
    min_hidden_face: float = 0.4
    min_hidden_band: float = 0.35
    min_hidden_outer_side: float = 0.62
    hidden_level_ratio: float = 1.25
    # Where a tile's square fits the cell best (lattice._Evidence.squares), its outer side counts
    # only if every side of that square shows face: a highlight eats into one side of a tile, not
    # most of it (tinted 153: 0.51), while a board's print beside the tiles fitted so leaves a side
    # mostly light (board 0, 13: at most 0.38).
    min_hidden_fitted_side: float = 0.45
    # A glimpse of a tile's face under something (lattice._glimpsed): a cell beside a tile read whose
    # corners or side middles and square are partly as dark as the faces, and whose sides facing no
    # tile are dark along this much of one side at least and this much of a side in all (the tile's
    # own outer edge, cut by the finger: occluded 17, 31, 47, 85, 101, 145, 0.44-0.59 and 0.6-1.0; an
    # empty cell beside tiles in a steep or oblique view, their thick sides and shadows darkening
    # only the side facing them, at most 0.31 and 0.62; a board's printed squares up to 0.56 and
    # 0.92). Not asked about alone: it makes something of skin's hue standing apart from the table
    # by part of its spread, from the photo's edge over that cell, a finger (occluder.find_occluder).
    min_glimpse_face: float = 0.3
    min_glimpse_dark: float = 0.12
    glimpse_level_ratio: float = 1.15
    min_glimpse_side: float = 0.38
    min_glimpse_sides: float = 0.6
    max_tilt: float = 62.0  # degrees from straight down: a steeper photo is refused
    # The smallest cell over the largest (lattice._view: the square root of the map's area, which counts
    # the far cells' steeper view as well as their distance: 0.92 of the mean side's ratio on steep
    # seeds 0-287): less is refused as too oblique. A floor against a map gone wrong, not the limit of
    # what reads: at 0.3 it refused photos the issue asks to read (steep 176 and 255, 50-55 degrees,
    # 0.288 and 0.297) and 25 extreme photos within max_tilt (0.242-0.299), which read without a wrong
    # tile sure (22 of the 27 exact). The far tiles' own size, blur and readings say what they do.
    min_near_far: float = 0.22
    min_cell_photo_px: float = 12.0  # photo pixels: smaller cells are refused (move closer)
    # Tiles seen (clean designs on a black face, in the first search) that end up on no cell
    # read: a group of tiles the lattice left out, tiles under a hand. At least `min_unplaced`
    # and `max_unplaced_share` of the tiles read, or more than `max_unplaced`: refused.
    min_unplaced: int = 2
    max_unplaced_share: float = 0.4
    max_unplaced: int = 4
    unplaced_offset: float = 0.45  # cells from the node of a cell read: further, it is not that tile
    min_design_spacing: float = 0.5  # cells: two designs nearer are one tile's at most (pipeline._one_per_tile)
    # One clear tile left off is enough: a design as large as the tiles' read (a printed
    # letter's bowl or a small printed square is far smaller), four-fold symmetric.
    clear_unplaced_area: tuple[float, float] = (0.5, 2.2)  # of the median design read
    clear_unplaced_asymmetry: float = 0.2
    clear_unplaced_face: float = 0.9
    # A design left off whose ring just beyond its face's (`outer_face_ring`: standard deviations of
    # the design, from FindConfig.face_radius out) is dark under `max_light_outer` in at least
    # `min_light_sectors` of its eight sectors is a board's print (pipeline._print_holes): a tile's
    # black face runs on to the tile's edge, a printed line is thin with the board's light beyond it.
    # Print left out: 2-8 such sectors (board 102, 142, 205; mixed 58, 89, 141, 144, 322); real tiles left
    # out on seeds 0-407: 0 or 1 (packed 257's far star, its arm's tip at the tile's edge: 1).
    outer_face_ring: tuple[float, float] = (2.2, 2.6)
    max_light_outer: float = 0.2
    min_light_sectors: int = 2
    # Tiles lie side by side: a design seen off its node so far toward a tile read beside it that a
    # tile centred on it would lie over that tile by more than this (pitches) is no tile's
    # (lattice._overlaps). Neighbouring tiles' designs read on rough, packed and mixed seeds 0-11
    # sat 0.93-1.0 apart (tiles 0.9-1.0 of a pitch).
    max_tile_overlap: float = 0.15
    # A design of the first search not trusted but for its face (a highlight spilled onto it), on
    # no cell read or asked about, is asked about (pipeline.untrusted_designs) when as clear as
    # that otherwise, its face dark this share of the way round, and at most `max_dark_design_offset`
    # off a node (a board's printed squares: faces 0.53-0.75, 0.24-0.6 off the tiles' nodes).
    min_untrusted_face: float = 0.78


@dataclass(frozen=True)
class DesignConfig:
    """Reading the design (the shape) of one tile from its rectified patch."""

    patch_size: int = 64  # a tile is resampled to this many pixels square
    inner: float = 0.86  # the design lies within this fraction of the tile, centred
    core: float = 0.76  # face and paint are told apart from this middle part of the tile
    min_contrast: float = 20.0  # a design is this much brighter than its tile's face (0-255)
    min_ratio: float = 1.5  # and this many times as bright
    # A design whose chroma (brightest minus dimmest channel, 0-255) stands this far above the
    # face's is told from the face by its chroma, which glare does not change (design._design_image).
    chroma_contrast: float = 30.0
    chroma_share: float = 0.35  # and is at least this share of its brightness where least glared (a white's is 0.17-0.27)
    glare_contrast: float = 40.0  # and whose dimmest channel shows a highlight this much above its median
    tinted_light: float = 1.1  # a design not sure is read again in white light when the light's strongest channel is this many times its weakest
    # A second reading of a glared design (read again in white light, or mended by its symmetry) that
    # reads another design is trusted as far as its own confidence when at least this share of the
    # pixels it changed lie under the highlight (design.glare_share): glare bends a design's outline
    # only where the lamp is mirrored. Tinted seeds 0-263: the second readings right 0.70-0.96 (81,
    # 141, 245, 261), wrong 0.02-0.44 (a glared wild's star, a square's mend to a star, a
    # mis-centred patch).
    min_glared_change: float = 0.6
    # A design read again in white light (pipeline.reread_in_white) as another design at least this sure
    # keeps its own confidence wherever the two outlines differ: under a strongly tinted light the
    # design's contrast against the face is the light's, not the paint's, and the first outline may be
    # bent where no highlight lies (tinted 250: a blue four-point star under a blue lamp read an
    # eight-point star at 0.24, in white light a four-point star at 0.78, 20% of the change under the
    # highlight).
    min_white_reread: float = 0.7
    # A cell the search left "a tile may be missing here" is a tile when its design, cut at its node,
    # reads at least this sure (pipeline.read_asked): well past SURE_AT, since the search did not trust
    # that design. On seeds 12-47 of board, occluded, mixed, large, groups, packed and extreme and
    # 0-119 of tinted, such designs read wrong (print, a finger, a glared wild) at most 0.37; right 0.49
    # (under a finger) and 0.70-0.94 (under a highlight).
    asked_sure: float = 0.6
    # A tile read on a cell whose dark is lighter than the nearest tiles' faces (lattice.GridInPlane.pale)
    # is trusted when its design spans this share (low, high) of the extent its design is printed at on
    # a tile (pipeline.at_print_size): a design is printed at one size on every tile's face, the patch
    # a tile's square. Designs read on found tiles (seeds 0-239, 12 photos of 8 conditions): 0.76-1.05;
    # the right tiles on pale cells (steep 153, 209, extreme 225) 0.83-0.90; board 224's printed blue
    # square under a cell, read as a square 0.79 sure, 1.29, and board 267's light squares between
    # dark lines 1.31-1.36. Past the upper bound a pale cell's design is larger than any tile's design
    # shows inside its face: print, not a tile (pipeline.beyond_print_size).
    print_extent: tuple[float, float] = (0.75, 1.1)
    clipped_chroma: int = 8  # a pixel whose brightest channel is clipped (250+) and this much chroma is paint
    # The band along the design window's border (a fraction of the tile) where thin lines (the
    # tile's edge, the table) are opened away before the design is picked (design.design_mask).
    edge_band: float = 0.05
    # Blur (design.blur_of, a fraction of the tile): past max_blur a photo is refused as blurred
    # (measured on the tile `sharp_percentile` percent of the way up from its sharpest: a far
    # side out of focus leaves the near tiles sharp), only when the blur is also more than
    # min_blur_px pixels of the photo: a tile 20 pixels wide is as soft as that by its pixels
    # alone and still read right. Measured with bench/vision_transforms.py on the development
    # photos (tiles about 75 px): a Gaussian blur of 3 px (0.042) is read with a few asks and
    # none wrong, 4 px (0.051) misread 3 tiles with confidence, 6 px (0.069) 71 (in 2026-11).
    max_blur: float = 0.046
    sharp_percentile: float = 25.0
    min_blur_px: float = 2.0
    # A tile of a photo read is asked about for its blur past this (pipeline.blur_doubt); short of it
    # its design's confidence decides, the designs' profiles being compared along their blur up to
    # 0.108, less a sharp tile's own measure (about 0.015). Designs misread through blur on the
    # evaluation sets (seeds 0-191, 1200x900) came out at most 0.22 sure up to 0.09, 0.39 at 0.1;
    # the development photos blurred whole and read anyway, right at 0.5 and more up to 0.1, wrong
    # (past 0.085) at most 0.2. It was 0.06 (0.046 in a photo whose median tile is past that), a
    # tile whose design read 0.8 sure kept sure up to 0.068: tiles of groups out of focus, right at
    # 0.46-0.9, were asked about (groups 0, 87, 114, 173; steep 116). Up to it the two readings of a
    # design that agree are also taken together (design.agreed_confidence), past the four numbers'
    # curves' end (0.06): the profile is compared along its own curve up to twice the patch's blur.
    max_tile_blur: float = 0.09


@dataclass(frozen=True)
class ColourConfig:
    """Reading the colour of one tile's design."""

    erode: int = 2  # patch pixels trimmed off the design's edge, where colours blend
    # The design's colour is the median of its least pale pixels, this share of them (glare on a glossy
    # tile pales the rest; colour.colour_sample); paleness is the least channel over the brightest, each
    # floored at `paint_floor` (linear light) so that dark pixels' noise does not count as colour.
    paint_share: float = 0.3
    # The black face's colour (subtracted from the design's) leaves out pixels brighter than its lower
    # quartile by more than this (0-255): a highlight on the face (colour._unglared).
    face_glare: int = 24
    paint_floor: float = 0.01
    # A design whose least pale pixels lie this far from their median colour (median distance in
    # log-chromaticity) is not one paint: its colour's confidence falls from 1 at half of it to 0 at it
    # (under SURE_AT from 0.93). On seeds 0-47 of the 16 conditions a single paint read right spread at
    # most 0.86 (99.9% under 0.47); a wild under glare read as white 1.28 and 1.37.
    paint_spread_limit: float = 1.2
    # A wild is painted in six colours, a sixth of it each: its fourth most common colour still
    # covers about 1/6. A single paint's pixels spill into its neighbours in hue under glare and
    # shade (a red's into orange and purple), so its third colour may reach 0.1, its fourth not.
    wild_min_colours: int = 4
    wild_min_share: float = 0.06
    # Glare pales a wild's sectors towards the light's colour, which the nearest paint read as white,
    # taking their share from the others (tinted 35, 107: the fourth colour 0.034-0.064). A pixel
    # farther than `wild_line_from` from every paint is also counted on the nearest paint's line
    # towards the light's colour (colour._glare_lines, `wild_line_steps` points each: the paint
    # paled), and the larger of the two fourth shares taken (colour._third_shares). Tinted and
    # mixed seeds 0-239: the single paints' fourth share at most 0.049 either way.
    wild_glare_lines: bool = True
    wild_line_steps: int = 8
    wild_line_from: float = 0.3
    # The least pale pixels of a design read as one paint (ColourSample.paint_chroma), of which more
    # than half this share lies nearest other paints, are no one paint: its confidence falls from 1
    # at half of it to 0 at it (colour._off_paint_shares). A wild whose other sectors a highlight
    # washed out keeps two or three paints there (0.45 and more); single paints on tinted and mixed
    # seeds 0-239 (5,581) at most 0.22. A design read a wild by its fourth colour is as sure as that
    # share says or, the surer, from 0 at half of it to 1 at it (glared wilds 0.45-0.60).
    max_off_paint: float = 0.45
    # A design whose least pale pixels are no one paint (at least `max_off_paint` off their most common
    # paint, a single paint's confidence 0 there) and whose fourth colour covers at least this share
    # (under the wild's `wild_min_share`: glare took it) is a wild, as sure as that share is far from
    # this bound towards the wild's (tinted 267: a wild under a warm lamp's highlight, 0.056 and 0.59,
    # read orange, not sure; now a wild, 0.87).
    min_glared_wild_share: float = 0.03
    # The light (colour.estimate_light), in log-chromaticity units; paints lie 2.3 and more apart.
    light_prior: float = 0.35  # a cast's usual size (the prior holds the estimate towards none)
    light_saturation_prior: float = 0.15  # how much more or less saturated a camera renders the paints
    light_gradient_prior: float = 0.35  # the same for its change from one side of the photo to the other
    light_huber: float = 0.5  # a tile this far from its paint counts less (a misread design, glare)
    light_start: float = 0.9  # the fit is also started from casts this strong, every way
    # Tiles this near in colour, put on one paint, are a cluster; a light that puts two clusters still
    # this far apart under it on one paint is no other reading of the photo (colour._joins_clusters).
    cluster_radius: float = 0.3
    cluster_gap: float = 0.8
    light_ambiguity: float = 1.0  # a light this close in cost to the best that reads a tile otherwise: not sure
    # A lamp beside the table falls off faster near it than the light's straight slide across the photo
    # says (LightEstimate: first order in the position), so the cast at a tile is known in direction
    # better than in strength. Where the light is tinted (its strongest channel at least
    # `strength_doubt_light` times its weakest at the tile), each paint is judged at the cast's strength
    # anywhere from 1 - `cast_strength_doubt` to 1 + it times the estimate's, the strength that brings it
    # nearest (colour._cast_margin): a tile 0.4-0.9 off its paint along the cast (tinted 212, 275, 282,
    # 300, the nearest paint right, the next 2-2.6 times as far) is judged by how far it lies across it.
    # A paint the cast's strength does not bring nearer keeps its distance (tinted 81's orange read red,
    # 0.94 against 1.31: margin 0.14 -> 0.16).
    cast_strength_doubt: float = 0.5
    strength_doubt_light: float = 1.25
    # Glare adds the light's own colour to a paint: a design paled all over lies on its paint's line
    # towards the light's colour. A tile the paints leave unsure is judged again against those lines,
    # each followed until the paint's least channel over its greatest reaches this (colour._glare_lines):
    # the designs paled all over on tinted seeds 0-167 measured 0.15-0.3, a white paint is 0.68.
    max_glared_paleness: float = 0.45
    # A design whose colour reads pale (its least channel over its greatest at least `pale_paint`, past
    # any design paled all over, above) while `max_paled_saturated` or more of its pixels, its edge
    # included, are saturated (under `saturated_paleness`) is no white: glare only pales, and a
    # highlight over its core left its paint at the edges. Its colour is not sure (colour_sample,
    # classify_colours). Turned 198: a yellow star under a highlight read white sure, 19% of its
    # pixels saturated; white designs read right on seeds 0-23 of 12 conditions (405): no
    # saturated pixel in their cores.
    pale_paint: float = 0.45
    saturated_paleness: float = 0.15
    max_paled_saturated: float = 0.1


@dataclass(frozen=True)
class AssembleConfig:
    """Putting the readings together into a grid."""

    min_confidence: float = 0.0  # readings less sure than this are left out (0 keeps every tile)
    # A photo where the reader is not sure of most tiles (at least `min_unsure_tiles` of them,
    # and more than `max_unsure_share`) is read wrong as a whole more often than tile by tile (a
    # lattice sheared off the tiles distorts every patch): a better photo is asked for
    # (RetakePhotoError "unsure") instead of a tap on every tile. On the evaluation sets (seeds
    # 0-47 of every condition, 1200x900) it refuses two photos: held-out mixed 24 (5 of 5 unsure,
    # 2 on wrong cells) and extreme 14 (10 of 12 unsure, beyond 55 degrees). In the named
    # conditions the most unsure photo read right had 61% of its tiles unsure; a 12 MP bench
    # photo (groups 0, its far side blurred) 71%, every tile right.
    max_unsure_share: float = 0.75
    min_unsure_tiles: int = 3


@dataclass(frozen=True)
class PlaneConfig:
    """Placing the tiles found on cells and the first homography of the table plane (vision.plane).

    Lengths are in a design's round frame (its second moments whitened: a
    tile is 4.9 to 6.4 units wide, depending on its design) or in cells.
    """

    reach_whitened: float = 22.0  # neighbours are looked for within this (about 3.5 cells)
    axis_tolerance: float = 20.0  # degrees: a neighbour this near a grid direction lies along it
    default_step: float = 5.8  # units per cell where a tile has no neighbour along the grid
    outline_reach: float = 4.5  # outline within this of a design is its tile's (or its neighbours') edge
    min_coherence: float = 0.5  # of the outline's length: agreement of its pieces on one grid direction
    min_outline: float = 3.0  # units of outline for it to decide the grid's direction at a tile
    neighbour_slack: float = 1.35  # nearest neighbours: within this times the nearest one's distance
    reach_cells: int = 3  # neighbours up to this many cells away (across gaps) are linked
    max_offset_error: float = 0.3  # cells: a neighbour this far off a whole-cell step is no lattice neighbour
    max_join_error: float = 0.35  # cells: a separate group must fit the joint map this well
    # A separate group of two designs or more whose faces' level (find.face_levels, median) is more
    # than this times the largest group's is print, not joined (estimate_plane). Seeds 0-47 of
    # board and groups, 0-21 of tinted: groups of tiles joined 0.77-1.25 times; a board's prints
    # 1.76-2.9 (a row-number strip 2.44).
    max_group_level_ratio: float = 1.6
    # The lattice grows from the largest group whose faces are not that much lighter than the
    # darkest group's of this many designs or more (plane._darkest_first): a board's printed
    # squares can outnumber the tiles.
    main_group_min_size: int = 2
    # A separate group whose every design the lattice's map puts within this of a node (cells) is
    # also tried with each design on its own node (plane._join).
    snap_join_offset: float = 0.15
    # A group's best shift on the edge of the shifts tried (one cell each way of where the lattice's
    # map puts it) has the shifts round it tried too, up to this many times (plane._join).
    join_reach: int = 3
    join_reach_min_size: int = 2  # designs in the group, at least (a lone design is tried one cell each way only)
    shape_weight: float = 0.5  # weight of the tiles' ellipses against their centres in placing a group
    # A group placed by less than this over the next place (relative score, plane._join) is in doubt:
    # the photo is refused as "unplaced" (pipeline.read_image).
    min_placement_margin: float = 0.2
    # A lone design more than `lone_join_offset` cells off the nodes of the map of `lone_join_min_tiles`
    # tiles or more, whose joint map fits the tiles' ellipses `lone_join_bend` times worse than the
    # map before and by `lone_join_rise` more (plane._shape_error), is not joined (plane._join). On
    # seeds 0-23 of the 16 conditions the board's print so joined sat 0.2-0.5 off and bent the map
    # 1.7-15 times (+0.04 to +0.18); real lone tiles that far off bent it at most 1.4 times, or by
    # +0.05 at 1.3 times.
    lone_join_offset: float = 0.15
    lone_join_min_tiles: int = 5
    lone_join_bend: float = 1.5
    lone_join_rise: float = 0.03
    # A group of two designs closer than this (cells, on the grid's map) is judged as a lone design
    # is (above): two tiles cannot lie closer than a tile's side. A board's "x2" glyphs: 0.58.
    pair_join_min_step: float = 0.8


@dataclass(frozen=True)
class OccluderConfig:
    """Finding something over the grid (a finger, a hand): vision.occluder. Lengths in tiles."""

    work_tile_px: float = 12.0  # the photo is looked at shrunk by a whole factor, a tile at most this many pixels
    tile_margin: float = 0.1  # the read tiles, grown by this (and table_gap), are kept out of the table's sample
    table_gap: float = 1.0  # the table is sampled farther than this from the tiles
    dark_ratio: float = 1.6  # darker than this times the tiles' faces (+ dark_margin) is no skin
    dark_margin: float = 10.0
    min_table_share: float = 0.1  # with less table than this in the photo, nothing is looked for
    # Skin: a* and b* above grey by these, and its colour (a*, b*) apart from the table's median by
    # min_apart and by apart_spread times the table's own spread (the spread_percentile-th
    # percentile of the table's distances from its median).
    min_skin_red: float = 5.0
    min_skin_yellow: float = 5.0
    min_apart: float = 6.0
    apart_spread: float = 1.5
    spread_percentile: float = 90.0
    # A limb standing apart from the table's median by this alone (and shaped like one) is left out
    # of the table's sample before its spread is measured: a finger over a tenth of the sample would
    # set the spread itself and stand apart from nothing.
    loose_apart: float = 6.0
    # ... unless more limbs than a hand's fingers stand apart so: a striped cloth's bands (10 in cloth
    # 152, refused as covered without this) repeat across the photo; fingers left out measured 1-2.
    max_loose_limbs: int = 5
    # When nothing stands apart so: a limb standing apart by smooth_spread times the spread only (a
    # finger of the wood's own hue) whose blocks' grain (fine detail, the photo less its blur by
    # grain_sigma pixels, running one way) is under max_grain times the table's grain_percentile-th
    # percentile (the fingers of occluded 0-239 on wood: at the wood's 0-4th percentile).
    smooth_spread: float = 0.7
    grain_sigma: float = 3.0
    max_grain: float = 0.8
    grain_percentile: float = 10.0
    # Then, a limb of skin's hue (standing apart by nothing) whose blocks' grain is under still_grain
    # times the table's grain_percentile-th percentile, found with a disc still_width wide (only a
    # finger's middle is free of grain) and at least still_length long (occluder._still_limbs): a
    # finger of the wood's hue and lightness (occluded 345, 353: 6.8 and 9.5 tiles; a patch of wood
    # whose grain curls away, wood 338: 2.3). 0: not looked for.
    still_grain: float = 1.0
    still_width: float = 0.2
    still_length: float = 4.0
    # Last, a limb of skin's hue whose lightness stands apart from the table's level round it (its
    # mean within step_scale tiles, where at least step_support of the weight is table) by step_spread
    # times the table's median step and min_step (occluder._step_limbs; L* * 2.55): a finger of the
    # table's own hue, lighter or darker.
    step_spread: float = 8.0
    min_step: float = 15.0
    step_scale: float = 2.0
    step_tile_px: float = 3.0  # the level is measured on a copy shrunk to about this many pixels a tile
    # ... and only where the table round it, within ring_width tiles, steps the same way by at most
    # max_ring_step times the threshold (its median): a finger lies on the table, stepping from it on
    # both sides; a lighter plank's or a lamp's pool's edge steps on one side only.
    ring_width: float = 0.5
    max_ring_step: float = 0.6
    step_support: float = 0.05
    # Then, a limb of skin's hue off the table's hue (occluder._hue_limbs): its colour's distance across
    # the table's hue (from the line through grey and the table's median a*, b*) over hue_spread times
    # the table's spread_percentile-th percentile of that distance and min_across, the table round it
    # (ring_width) not as far across (max_ring_step): a finger redder than a wood of about its colour
    # whose lamp-lit grain sets the colour's spread (occluded 383: the finger 6.4-7.7 across, the
    # wood's spread 1.1; 145's darker finger 4.3 at its median, the wood's 1.0; the edge of a lamp's
    # warmer half, tinted 362, is as far across on both sides). A table nearer grey than
    # min_hue_chroma has no hue. 0: not looked for.
    hue_spread: float = 2.0
    min_across: float = 3.0
    min_hue_chroma: float = 5.0
    # ... and only a limb on the red side of the table's hue at its median: skin is redder than wood
    # (the fingers found: 4.0-14.1 towards red), a lamp's warm light turns wood yellower (tinted 12: a
    # wedge beside the tiles 8.4 towards yellow, the table round it near its hue).
    hue_redward: bool = True
    # ... and only a limb that reaches the photo's edge (min_free_length is not for this search): a
    # finger found by its hue alone comes in from the edge (occluded 145, 290, 383), a redder streak of
    # a plank lies anywhere (the development photo 1_10 tilted 45 degrees: a streak 6.0 tiles long,
    # 0.7 wide, 5.9 towards red, inside the photo; refused as covered without this). False: as the
    # other searches, a long limb inside the photo counts.
    hue_from_edge: bool = True
    # A limb the colour search finds on a table of skin's hue (a* and b* above min_skin_red and
    # min_skin_yellow, min_hue_chroma from grey) whose colour lies along the table's hue (its median
    # distance across it, as for hue_spread, under min_across and under the table's own
    # spread_percentile-th percentile of that distance) is the table's own light, lighter or more
    # saturated: a shaded strip along the photo's edge (turned 373: 0.35 across, the table's 0.69), a
    # lighter streak of a pink wood (steep 375: 0.82, 1.46); both readable, refused as covered without
    # this. The fingers the colour search finds on such tables (occluded 0-407, 81 photos) lie 1.4
    # times that bound across at least (occluded 200: 4.27, the table's 3.57; 158: 1.94, 0.89), towards
    # red or towards yellow (a pink table). When every limb found is left out, the searches after it
    # are not made (what stands apart most is the table's own light). False: not asked.
    apart_off_hue: bool = True
    min_width: float = 0.3  # narrower than this is a printed line or a fleck, not a finger
    min_area: float = 1.0  # tiles squared
    # Over a glimpse of a tile's face (occluder._over_glimpses), a part of at least this many tiles
    # squared counts though it does not reach the photo's edge: a finger's shaded side may part it
    # from there (occluded 31: 4.4), and a speck or a tile's rim is far smaller.
    min_glimpse_patch: float = 3.0
    min_length: float = 2.0
    # A limb at least this long counts though it does not reach the photo's edge: a finger whose hand
    # is out of view of a photo taken from far (occluded 85: 14.7 tiles long, its end 0.3 tiles from the
    # photo's edge). 0: only limbs from the edge.
    min_free_length: float = 6.0
    # Its area over its length (a finger, shrunk with its soft edge and its shadow: 0.5-1.28).
    max_width: float = 1.3
    max_thickness: float = 1.8  # its widest disc (a finger: 0.5-1.35; a wedge of table in a corner: 2.4)
    # Its widest disc over its mean width (area over length) at most this: a finger is about as wide
    # all along (occluded 0-29: 1.03-1.71), a wedge of wood cut off by the photo's edge is not
    # (packed 305, mixed 324, refused as covered on main: 2.9). 0: not asked.
    max_taper: float = 2.2
    # Its outline at most this many times as long as its convex hull's (a finger: 1.0-1.25; a patch of
    # wood grain standing apart: 1.28-1.65).
    max_ragged: float = 1.3
    min_solidity: float = 0.55  # its area over its convex hull's
    reach: float = 0.3  # a cell is covered if the blob, grown by this, covers min_cover of it
    min_cover: float = 0.2
    max_run: int = 4  # cells covered in a row from the tiles read
    # A finger over this many cells beside the tiles (an empty cell under it cannot be told from a
    # hidden tile) refuses the photo ("covered"): one photo again beats confirming each cell.
    refuse_cells: int = 2


@dataclass(frozen=True)
class VisionConfig:
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    find: FindConfig = field(default_factory=FindConfig)
    plane: PlaneConfig = field(default_factory=PlaneConfig)
    lattice: LatticeConfig = field(default_factory=LatticeConfig)
    design: DesignConfig = field(default_factory=DesignConfig)
    colour: ColourConfig = field(default_factory=ColourConfig)
    assemble: AssembleConfig = field(default_factory=AssembleConfig)
    occluder: OccluderConfig = field(default_factory=OccluderConfig)
    # OpenCV's threads while reading (0: leave OpenCV's own setting). One: the reader's images
    # are small, so handing each call to a thread pool costs more than it gives (about a third
    # of a read's CPU on the dev photos, same outputs), and photos are read side by side by
    # processes (`vision read --jobs`) or the service's request threads instead.
    opencv_threads: int = 1
