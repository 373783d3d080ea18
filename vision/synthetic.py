"""A seeded renderer of realistic photos of tile grids, for tests and benches.

Every picture is a pure function of its seed and options: the same seed gives
the same pixels again (NumPy's PCG64 generator, OpenCV's drawing and JPEG
encoder; a different OpenCV version may round a few pixels differently).

What it draws, after the printed tiles:

- black square tiles with a slightly lighter bevelled rim and a soft drop
  shadow, one coloured design each: 1 circle, 2 clover, 3 diamond, 4 square,
  5 four-point star (points to the tile's corners), 6 eight-point star, with
  the proportions of the printed designs (vision.design's prototypes);
- wilds: an eight-point star painted in the six colours of the set, one
  60-degree sector each (the project's convention for a wild's look; the
  reader calls any design painted in three or more colours a wild);
- the classic (purple) and connect (white) tile sets;
- a table of wood planks, plain cloth of some colour, or white;
- hand placement: tiles touching or with small gaps, jittered and turned by
  a degree or two;
- the camera: rotation up to 45 degrees, mild perspective, a lighting
  gradient, an optional soft shadow, a colour cast, blur, noise and JPEG
  artefacts.

`random_grid` makes grids that pass the grid check, or that fail it with
one fault put in; `synthetic_photo` puts the two together.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np  # a test and bench tool: never on the command line's start-up path

from vision.design import STAR8, design_polygons

BLACK_BGR = (22.0, 18.0, 16.0)

BACKGROUNDS = ("wood", "cloth", "white")


@dataclass(frozen=True)
class Scene:
    """Everything random about one picture but the grid itself."""

    size: tuple[int, int] = (640, 480)  # width, height of the picture
    background: str = "wood"
    background_tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # cloth colour or wood shade
    tile_px: float = 40.0  # tile side in pixels near the grid's middle
    rotation: float = 0.0  # degrees
    tilt: tuple[float, float] = (0.0, 0.0)  # perspective, fraction of foreshortening across the picture
    centre: tuple[float, float] = (0.5, 0.5)  # where the grid's middle lands, fractions of width, height
    gap: float = 0.02  # space between neighbouring tiles, in tiles
    jitter: float = 0.02  # hand placement: each tile off its place by up to this, in tiles
    turn: float = 1.0  # hand placement: each tile turned by up to this, in degrees
    light: tuple[float, float, float] = (0.0, 0.0, 1.0)  # gradient x, y per picture, and mean brightness
    shadow: float = 0.0  # depth of a soft shadow across part of the picture (0 none)
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains of the light
    blur: float = 0.0  # Gaussian sigma in pixels
    noise: float = 0.0  # sensor noise sigma, 0-255 scale
    jpeg_quality: int = 0  # 0 keeps the picture lossless
    seed: int = 0  # for the textures and noise


@dataclass
class Rendered:
    image: Any  # BGR uint8
    cells: dict[tuple[int, int], str]  # the truth, normalised to the bounding box
    tileset: str
    scene: Scene
    data: bytes = b""  # the encoded file (JPEG if the scene asks for it, else PNG)
    corners: dict[tuple[int, int], Any] = field(default_factory=dict)  # 4 x 2 image corners of each tile


def random_scene(
    rng, size: tuple[int, int] = (640, 480), grid_span: tuple[int, int] = (6, 6), max_rotation: float = 45.0, **overrides
) -> Scene:
    """A plausible photo set-up drawn from `rng` (numpy Generator); keyword overrides win.

    `grid_span` (rows, cols) sizes the tiles so the grid fits in the picture
    at any rotation. At exactly 45 degrees rows and columns swap roles, so
    tests that compare cells keep `max_rotation` a little below it.
    """
    width, height = size
    rotation = float(rng.uniform(-max_rotation, max_rotation))
    span = max(grid_span) * 1.42 + 1.5  # a diagonal's worth of tiles, plus a margin
    tile_px = float(min(width, height) / span * rng.uniform(0.7, 1.0))
    tile_px = max(tile_px, 22.0)
    background = str(rng.choice(BACKGROUNDS))
    if background == "cloth":
        # A plain cloth of some colour, not so dark that black tiles vanish into it.
        hue = rng.uniform(0, 1, 3)
        tint = tuple(float(0.35 + 0.65 * h) for h in hue)
    elif background == "wood":
        tint = (float(rng.uniform(0.85, 1.1)),) * 3
    else:
        tint = (float(rng.uniform(0.95, 1.02)), float(rng.uniform(0.97, 1.02)), float(rng.uniform(0.97, 1.03)))
    scene = Scene(
        size=size,
        background=background,
        background_tint=tint,
        tile_px=tile_px,
        rotation=rotation,
        tilt=(float(rng.uniform(-0.12, 0.12)), float(rng.uniform(-0.12, 0.12))),
        centre=(float(rng.uniform(0.45, 0.55)), float(rng.uniform(0.45, 0.55))),
        gap=float(rng.choice([0.0, 0.0, 0.02, 0.05])),
        jitter=float(rng.uniform(0.0, 0.04)),
        turn=float(rng.uniform(0.0, 2.0)),
        light=(float(rng.uniform(-0.35, 0.35)), float(rng.uniform(-0.35, 0.35)), float(rng.uniform(0.8, 1.1))),
        shadow=float(rng.choice([0.0, 0.0, rng.uniform(0.25, 0.45)])),
        cast=(float(rng.uniform(0.9, 1.1)), 1.0, float(rng.uniform(0.9, 1.1))),
        blur=float(rng.uniform(0.0, 1.0)),
        noise=float(rng.uniform(0.0, 4.0)),
        jpeg_quality=int(rng.choice([0, 60, 75, 90])),
        seed=int(rng.integers(0, 2**31)),
    )
    return replace(scene, **overrides)


# What each paint looks like in a daylight photo (BGR, black face included): the
# printed tiles as a phone sees them. Purple is not in the measured set: a violet.
PAINT_BGR = {
    "R": (46.0, 27.0, 159.0),
    "O": (31.0, 62.0, 170.0),
    "Y": (18.0, 158.0, 153.0),
    "G": (40.0, 96.0, 8.0),
    "B": (168.0, 95.0, 7.0),
    "P": (160.0, 68.0, 121.0),
    "W": (224.0, 215.0, 184.0),
}


def paint_bgr(colour: str) -> tuple[float, float, float]:
    """The BGR (0-255) a design of this colour shows in daylight, black face included."""
    return PAINT_BGR[colour]


def wild_sectors(colours: str) -> list[tuple[str, Any]]:
    """A wild's eight-point star cut into one 60-degree sector per colour: (colour, polygon)."""
    outer, inner = STAR8
    # The star's outline, densely, so a sector can follow it.
    a = np.arange(16) * math.pi / 8
    r = np.where(np.arange(16) % 2 == 0, outer, inner)
    corners = np.column_stack([r * np.cos(a), r * np.sin(a)])
    dense = []
    for k in range(16):
        p, q = corners[k], corners[(k + 1) % 16]
        for t in np.linspace(0, 1, 12, endpoint=False):
            dense.append(p + (q - p) * t)
    dense = np.array(dense)
    angles = np.arctan2(dense[:, 1], dense[:, 0]) % (2 * math.pi)
    sectors = []
    n = len(colours)
    for k, colour in enumerate(colours):
        lo, hi = 2 * math.pi * k / n, 2 * math.pi * (k + 1) / n
        inside = dense[(angles >= lo) & (angles < hi)]
        order = np.argsort(np.arctan2(inside[:, 1], inside[:, 0]) % (2 * math.pi))
        sectors.append((colour, np.vstack([[0.0, 0.0], inside[order]])))
    return sectors


def _background(scene: Scene, rng):
    """The bare table, float32 BGR 0-255."""
    import cv2

    width, height = scene.size
    tint = np.array(scene.background_tint, dtype=np.float32)
    if scene.background == "white":
        base = np.full((height, width, 3), 232.0, np.float32) * tint
        base += cv2.GaussianBlur(rng.normal(0, 3, (height, width)).astype(np.float32), (0, 0), 2)[..., None]
        return base
    if scene.background == "cloth":
        base = np.full((height, width, 3), 205.0, np.float32) * tint
        weave = rng.normal(0, 6, (height, width)).astype(np.float32)
        yy, xx = np.mgrid[0:height, 0:width]
        weave += 4 * np.sin(xx * 2.1).astype(np.float32) * np.sin(yy * 2.1).astype(np.float32)
        return base * (1 + weave[..., None] / 255.0)
    # Wood: planks along a random direction, each its own shade, with stretched grain.
    angle = rng.uniform(0, math.pi)
    diag = int(math.hypot(width, height)) + 4
    planks = np.zeros((diag, diag), np.float32)
    y = 0
    while y < diag:
        w = int(rng.uniform(0.08, 0.2) * min(width, height)) + 8
        planks[y : y + w] = rng.uniform(-18, 18)
        planks[y + w - 1 : y + w] = -35  # the seam between planks
        y += w
    grain = cv2.resize(rng.normal(0, 1, (diag // 6 + 1, 6)).astype(np.float32), (diag, diag), interpolation=cv2.INTER_CUBIC)
    lines = np.sin(np.arange(diag, dtype=np.float32)[:, None] * 0.9 + grain * 3.0) * 6.0
    texture = planks + lines + cv2.resize(rng.normal(0, 5, (diag // 3 + 1, diag // 40 + 1)).astype(np.float32), (diag, diag))
    rot = cv2.getRotationMatrix2D((diag / 2, diag / 2), math.degrees(angle), 1.0)
    rot[:, 2] += (width / 2 - diag / 2, height / 2 - diag / 2)
    texture = cv2.warpAffine(texture, rot, (width, height), borderMode=cv2.BORDER_REFLECT)
    beech = np.array([150.0, 185.0, 222.0], np.float32) * tint
    return beech[None, None, :] + texture[..., None] * np.array([0.8, 0.9, 1.0], np.float32)


def _plane_to_image(scene: Scene, pitch_px: float):
    """3x3 map from the table plane (tile units around the grid's middle) to picture pixels."""
    width, height = scene.size
    theta = math.radians(scene.rotation)
    c, s = math.cos(theta), math.sin(theta)
    rotate = np.array([[c * pitch_px, -s * pitch_px, 0], [s * pitch_px, c * pitch_px, 0], [0, 0, 1.0]])
    # Perspective: the far side of the picture foreshortened by `tilt`.
    px, py = scene.tilt[0] / width, scene.tilt[1] / height
    perspective = np.array([[1, 0, 0], [0, 1, 0], [px, py, 1.0]])
    move = np.array([[1, 0, scene.centre[0] * width], [0, 1, scene.centre[1] * height], [0, 0, 1.0]])
    return move @ perspective @ rotate


def _apply(h, pts):
    pts = np.asarray(pts, dtype=np.float64)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return homog[:, :2] / homog[:, 2:3]


def _fill(canvas, poly, colour) -> None:
    import cv2

    cv2.fillPoly(canvas, [np.round(poly * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def render(cells: dict[tuple[int, int], str], tileset: str = "classic", scene: Scene | None = None) -> Rendered:
    """A picture of the grid `cells` ((row, col) -> tile) as `scene` describes."""
    import cv2

    from companion.games.pivit_tiles.tiles import WILD, get_tileset

    scene = scene or Scene()
    colours = get_tileset(tileset).colours
    rng = np.random.default_rng(scene.seed)
    width, height = scene.size
    image = _background(scene, rng)

    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    mid_r, mid_c = (min(rows) + max(rows)) / 2, (min(cols) + max(cols)) / 2
    # Tiles are solid: room enough that no jittered, turned tile overlaps its neighbour.
    pitch = 1.0 + scene.gap + 2 * scene.jitter + math.sqrt(2) * math.sin(math.radians(scene.turn))
    to_image = _plane_to_image(scene, scene.tile_px)

    placed = {}
    for (r, c), tile in sorted(cells.items()):
        dx, dy = rng.uniform(-scene.jitter, scene.jitter, 2) if scene.jitter else (0.0, 0.0)
        turn = math.radians(rng.uniform(-scene.turn, scene.turn)) if scene.turn else 0.0
        centre = np.array([(c - mid_c) * pitch + dx, (r - mid_r) * pitch + dy])
        placed[r, c] = (tile, centre, turn)

    def tile_frame(centre, turn):
        ct, st = math.cos(turn), math.sin(turn)
        return lambda p: _apply(to_image, centre + np.asarray(p) @ np.array([[ct, st], [-st, ct]]))

    # Drop shadows first, all under every tile.
    shadow = np.zeros((height, width), np.float32)
    for tile, centre, turn in placed.values():
        frame = tile_frame(centre + np.array([0.06, 0.08]), turn)
        _fill(shadow, frame(np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])), 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, scene.tile_px * 0.08))
    image *= (1.0 - 0.45 * shadow)[..., None]

    corners_out = {}
    black = np.array(BLACK_BGR, np.float32)
    for (r, c), (tile, centre, turn) in sorted(placed.items()):
        frame = tile_frame(centre, turn)
        square = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])
        corners_out[r - min(rows), c - min(cols)] = frame(square)
        rim = tuple(float(x) for x in black * 2.2)
        _fill(image, frame(square * 0.99), rim)
        face = tuple(float(x) * rng.uniform(0.9, 1.15) for x in black)
        _fill(image, frame(square * 0.93), face)
        if tile == WILD:
            for colour, poly in wild_sectors(colours):
                _fill(image, frame(poly), paint_bgr(colour))
        else:
            paint = tuple(float(x) * rng.uniform(0.96, 1.04) for x in paint_bgr(tile[1]))
            for poly in design_polygons(tile[0]):
                _fill(image, frame(poly), paint)

    # The light: a gradient, perhaps a soft shadow, and its colour.
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    gx, gy, mean = scene.light
    light = mean * (1 + gx * (xx / width - 0.5) + gy * (yy / height - 0.5))
    if scene.shadow:
        edge = rng.uniform(0.2, 0.8)
        a = rng.uniform(0, 2 * math.pi)
        side = (xx / width - 0.5) * math.cos(a) + (yy / height - 0.5) * math.sin(a) - (edge - 0.5)
        softness = 0.08
        light *= 1 - scene.shadow * (1 / (1 + np.exp(-side / softness)))
    image *= light[..., None]
    image *= np.array(scene.cast, np.float32)
    if scene.blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), scene.blur)
    if scene.noise > 0:
        image += rng.normal(0, scene.noise, image.shape).astype(np.float32)
    picture = np.clip(image, 0, 255).astype(np.uint8)
    if scene.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        data = buf.tobytes()
        picture = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    else:
        ok, buf = cv2.imencode(".png", picture)
        data = buf.tobytes()
    truth = {(r - min(rows), c - min(cols)): t for (r, c), t in cells.items()}
    return Rendered(picture, truth, tileset, scene, data, corners_out)


# ---------------------------------------------------------------- grids


def random_grid(rng, tileset: str = "classic", tiles: int = 12, valid: bool = True, young: bool = False) -> dict[tuple[int, int], str]:
    """A grid of about `tiles` tiles (rows, cols from 0) that passes the grid check, or fails it.

    Valid grids are built as a spine line with lines crossing it, each line one
    colour with distinct designs or one design with distinct colours, and are
    confirmed with the grid check. An invalid grid is a valid one with one
    fault put in: a tile swapped for one that mixes its line, a tile taken
    out, or a stray tile. Raises RuntimeError if none is found in 200 tries.
    """
    from companion.games.pivit_tiles.check import check_grid
    from companion.games.pivit_tiles.tiles import get_tileset

    ts = get_tileset(tileset)
    for _ in range(200):
        grid = _spine_grid(rng, ts.colours, tiles)
        if not check_grid(grid, ts, young=young, tiles=0).valid:
            continue
        if valid:
            return grid
        broken = _break(rng, grid, ts.colours)
        if broken is not None and not check_grid(broken, ts, young=young, tiles=0).valid:
            return broken
    raise RuntimeError("no grid found; ask for fewer tiles")


def _line_tiles(rng, colours: str, length: int, through: str | None = None) -> tuple[list[str], int]:
    """`length` tiles sharing a colour or a design (including `through` if given) and its index."""
    designs = "123456"
    if through is None:
        through = str(rng.choice(list(designs))) + str(rng.choice(list(colours)))
    if rng.random() < 0.5:
        others = [d + through[1] for d in designs if d != through[0]]
    else:
        others = [through[0] + c for c in colours if c != through[1]]
    picked = list(rng.permutation(others)[: length - 1])
    at = int(rng.integers(0, length))
    return picked[:at] + [through] + picked[at:], at


def _spine_grid(rng, colours: str, tiles: int) -> dict[tuple[int, int], str]:
    length = int(rng.integers(3, 7))
    spine, _ = _line_tiles(rng, colours, length)
    grid = {(0, c): t for c, t in enumerate(spine)}
    # Cross lines at every other column, so they never touch each other.
    start = int(rng.integers(0, 2))
    for col in range(start, length, 2):
        if len(grid) >= tiles:
            break
        cross_len = int(rng.integers(3, 6))
        line, at = _line_tiles(rng, colours, cross_len, through=grid[0, col])
        for k, t in enumerate(line):
            grid[k - at, col] = t
    top = min(r for r, _ in grid)
    return {(r - top, c): t for (r, c), t in grid.items()}


def _break(rng, grid: dict, colours: str) -> dict | None:
    grid = dict(grid)
    kind = rng.integers(0, 3)
    cells = sorted(grid)
    if kind == 0:
        # Swap one tile for one sharing neither its colour nor its design.
        cell = cells[int(rng.integers(0, len(cells)))]
        t = grid[cell]
        choices = [d + c for d in "123456" for c in colours if d != t[0] and c != t[1]]
        grid[cell] = str(rng.choice(choices))
        return grid
    if kind == 1:
        # A stray tile off to one side, touching nothing.
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        grid[max(rows) + 2, max(cols) + 2] = str(rng.choice(list("123456"))) + str(rng.choice(list(colours)))
        return grid
    # Take one tile out: a line left with two tiles, or the grid split in two
    # (the caller keeps it only if the check then fails).
    r, c = cells[int(rng.integers(0, len(cells)))]
    del grid[r, c]
    return grid or None


def synthetic_photo(
    seed: int,
    tileset: str = "classic",
    tiles: int = 12,
    valid: bool = True,
    size: tuple[int, int] = (640, 480),
    wilds: int = 0,
    max_rotation: float = 45.0,
    **overrides,
) -> Rendered:
    """A random grid, photographed in a random scene, both from `seed`; keyword overrides go to the Scene."""
    rng = np.random.default_rng(seed)
    grid = random_grid(rng, tileset, tiles, valid)
    if wilds:
        cells = sorted(grid)
        for k in rng.permutation(len(cells))[:wilds]:
            grid[cells[int(k)]] = "**"
    rows = max(r for r, _ in grid) + 1
    cols = max(c for _, c in grid) + 1
    scene = random_scene(rng, size=size, grid_span=(rows, cols), max_rotation=max_rotation, **overrides)
    return render(grid, tileset, scene)
