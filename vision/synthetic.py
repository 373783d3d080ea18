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
- a table of wood planks, plain cloth of some colour, or white; or, drawn on
  the table plane so that it shares the tiles' perspective, a printed game
  board (lines, coloured squares, numbers, letters, a word game's premium
  squares and their words), gingham, stripes, dots, florals, or wooden
  planks with grain, seams and knots; crumbs on the table;
- hand placement: tiles touching or with small gaps, jittered and turned by
  a degree or two;
- the camera: rotation up to 45 degrees, mild perspective, a lighting
  gradient, an optional soft shadow, a colour cast, blur, noise and JPEG
  artefacts; or a pinhole camera (`camera_tilt`, `camera_azimuth`,
  `camera_fov`) up to 55 degrees from straight down and more, with tiles
  that stand `thickness` high (their sides show, their tops lie on their
  own plane) and depth of field;
- light in colour: a lamp of a colour temperature against an ambient light
  of another, in linear light, falling with the cube of the distance, the
  phone's exposure and partial white balance (`lamp_kelvin`, `relight`,
  `lamp_light`), glare on glossy tiles; camera shake, the phone's sharpening;
- the file as a phone writes it: a JPEG stored as the sensor read it with an
  EXIF Orientation tag 1, 3, 6 or 8 (`encode_photo`).

`random_grid` makes grids that pass the grid check, or that fail it with
one fault put in; `synthetic_photo` puts the two together.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np  # a test and bench tool: never on the command line's start-up path

from companion.games.pivit_tiles import artwork
from vision.design import design_polygons

BLACK_BGR = tuple(float(v) for v in reversed(artwork.FACE_RGB))

BACKGROUNDS = ("wood", "cloth", "white")
# Surfaces drawn on the table plane (so they share the tiles' perspective): a printed
# game board with lines, coloured squares, numbers and letters; a word game's board
# (premium squares with their words, letters and numbers along its edges); patterned
# cloths (gingham checks, stripes, polka dots, florals); wooden planks with their grain.
PLANE_BACKGROUNDS = ("board", "wordgame", "checks", "stripes", "dots", "florals", "planks")
DEFAULT_FOV = 70.0  # a phone's main camera across the long side, degrees
UNIT_SQUARE = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])  # a tile, in tiles


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
    # A real camera (pinhole) instead of the flat map above, when camera_tilt > 0 or
    # camera_fov > 0: the lens `camera_tilt` degrees from straight down, leaning
    # towards `camera_azimuth` (degrees on the table, 90 = towards the picture's
    # bottom before `rotation`), with `camera_fov` degrees across the long side.
    # `tile_px` is then a tile's side at the grid's middle, across the tilt.
    camera_tilt: float = 0.0
    camera_azimuth: float = 90.0
    camera_fov: float = 0.0
    board_pitch: float = 1.08  # "board": printed squares, in tiles
    board_turn: float = 0.0  # "board": degrees the printed squares are turned from the tiles' grid
    board_offset: tuple[float, float] = (0.0, 0.0)  # "board": where its lines cross, in tiles
    pattern_size: float = 1.0  # "checks", "stripes", "dots": repeat length, in tiles
    pattern_colours: tuple[tuple[float, float, float], ...] = ()  # their BGR colours (0-255)
    cast_far: tuple[float, float, float] | None = None  # the light's B, G, R gains at the gradient's far end
    # EXIF orientation the JPEG is stored with, as a phone does: 1, 3, 6 or 8 (its pixels as
    # the sensor read them, and the tag that turns them upright); 0 writes no EXIF block.
    orientation: int = 0
    # Tiles stand this high (in tiles; pinhole camera only): at an angle the sides facing
    # the lens show, nearer tiles hide the foot of farther ones, and the tops, where the
    # designs are, lie on a plane above the table's.
    thickness: float = 0.0
    # A lamp beside the table, in linear light (see lamp_light), when lamp_kelvin > 0: its
    # colour temperature, the room's, its direction in the picture (radians, 0 = right),
    # its share of the light at the middle, and how far the phone's white balance corrects.
    lamp_kelvin: float = 0.0
    ambient_kelvin: float = 6500.0
    lamp_side: float = 0.0
    lamp_strength: float = 0.8
    white_balance: float = 0.5
    shake: tuple[float, float] = (0.0, 0.0)  # camera shake: blur length in pixels, direction in degrees
    sharpen: float = 0.0  # the phone's sharpening: an unsharp mask's amount
    glare: float = 0.0  # a lamp's reflection on glossy tiles: brightness of the highlights (0 none, 1 white)
    focus: float = 0.0  # depth of field (pinhole camera only): blur in pixels at the far side, the middle sharp
    crumbs: int = 0  # dark specks on the table (crumbs, dirt, bits of eraser) around the grid
    # A finger over the grid: its tip (x, y on the table, tiles from the grid's middle), the
    # direction it comes from (degrees on the table) and its width (tiles); () for none.
    finger: tuple = ()


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


# What each paint looks like in a daylight photo (BGR, black face included): the printed
# tiles as a phone sees them (companion.games.pivit_tiles.artwork, the one source).
PAINT_BGR = {c: paint.photo_bgr for c, paint in artwork.PAINTS.items()}


def paint_bgr(colour: str) -> tuple[float, float, float]:
    """The BGR (0-255) a design of this colour shows in daylight, black face included."""
    return PAINT_BGR[colour]


def wild_sectors(colours: str) -> list[tuple[str, Any]]:
    """A wild's eight-point star cut into one 60-degree sector per colour: (colour, polygon)."""
    return [(colour, np.array(poly)) for colour, poly in artwork.wild_sectors(colours)]


def _background(scene: Scene, rng, to_image=None):
    """The bare table, float32 BGR 0-255 (surfaces of PLANE_BACKGROUNDS drawn through `to_image`)."""
    import cv2

    width, height = scene.size
    if scene.background in PLANE_BACKGROUNDS:
        return _plane_background(scene, rng, to_image if to_image is not None else scene_map(scene))
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


def cell_pitch(scene: Scene) -> float:
    """Distance between neighbouring cells' middles on the table, in tiles (room for jitter and turn)."""
    return 1.0 + scene.gap + 2 * scene.jitter + math.sqrt(2) * math.sin(math.radians(scene.turn))


def scene_map(scene: Scene, height: float = 0.0):
    """3x3 map from the table plane (tiles, origin at the grid's middle) to picture pixels.

    With a pinhole camera, `height` lifts the plane towards the camera (the
    tiles' tops lie `scene.thickness` above the table); the flat map ignores it.
    """
    if scene.camera_tilt > 0 or scene.camera_fov > 0:
        return _pinhole_map(scene, height)
    return _plane_to_image(scene, scene.tile_px)


def _pinhole(scene: Scene):
    """(picture map before the plane, world-to-camera rotation, translation, camera position) of the pinhole camera."""
    width, height = scene.size
    fov = math.radians(scene.camera_fov or DEFAULT_FOV)
    focal = max(width, height) / 2 / math.tan(fov / 2)
    tilt = math.radians(scene.camera_tilt)
    az = math.radians(scene.camera_azimuth)
    distance = focal / scene.tile_px  # in tiles: a tile at the middle is tile_px across
    lean = np.array([math.cos(az), math.sin(az), 0.0])  # the camera's foot lies this way
    # The table's z axis points away from the camera, so that seen from straight above
    # the plane's x runs right and its y down the picture, as in the flat map (no mirror).
    camera = distance * (math.sin(tilt) * lean - np.array([0.0, 0.0, math.cos(tilt)]))
    forward = -camera / np.linalg.norm(camera)
    down = lean - (lean @ forward) * forward  # the picture's bottom is the near side
    down /= np.linalg.norm(down)
    right = np.cross(down, forward)
    rotation = np.array([right, down, forward])
    t = -rotation @ camera
    theta = math.radians(scene.rotation)
    c, s = math.cos(theta), math.sin(theta)
    roll = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    k = np.array([[focal, 0, 0], [0, focal, 0], [0, 0, 1.0]])
    # Place the grid's middle (the plane's origin, which the lens looks at) where asked.
    move = np.array([[1, 0, scene.centre[0] * width], [0, 1, scene.centre[1] * height], [0, 0, 1.0]])
    return move @ roll @ k, rotation, t, camera


def _pinhole_map(scene: Scene, height: float = 0.0):
    """The plane-to-picture homography K [r1 r2 t] of a pinhole camera aimed at the grid's middle.

    The camera leans `camera_tilt` degrees from straight down towards
    `camera_azimuth`, and stands as far away as makes a tile at the grid's
    middle `tile_px` pixels across the tilt. The far side of the table is at
    the top of the picture before the picture is turned by `rotation` about
    its middle and moved so the grid's middle lands at `centre`. `height`
    lifts the plane towards the camera (z = -height).
    """
    pre, rotation, t, _ = _pinhole(scene)
    h = pre @ np.column_stack([rotation[:, 0], rotation[:, 1], t - height * rotation[:, 2]])
    return h / h[2, 2]


def camera_position(scene: Scene):
    """Where a pinhole scene's camera stands, in table coordinates (tiles; z < 0 is above the table)."""
    return _pinhole(scene)[3]


def _plane_background(scene: Scene, rng, to_image):
    """A surface printed on the table plane, seen through `to_image`: float32 BGR 0-255.

    Drawn on a canvas in table units around the grid and warped into the
    picture, so its lines and squares share the tiles' perspective. Beyond the
    canvas the pattern repeats.
    """
    import cv2

    width, height = scene.size
    inverse = np.linalg.inv(to_image)
    corners = _apply(inverse, np.array([(0, 0), (width, 0), (width, height), (0, height), (width / 2, height / 2)], np.float64))
    reach = float(min(np.abs(corners).max() + 1.0, 40.0))
    # Canvas resolution: the picture's finest scale near the middle, within memory.
    scale = float(np.clip(np.linalg.norm(to_image[:2, 0]) / to_image[2, 2] * 0.75, 12.0, 4096.0 / (2 * reach)))
    side = int(2 * reach * scale)
    canvas = _surface(scene, rng, side, scale, reach)
    # canvas pixel (i, j) is table point (j / scale - reach, i / scale - reach).
    from_canvas = np.array([[1 / scale, 0, -reach], [0, 1 / scale, -reach], [0, 0, 1.0]])
    warped = cv2.warpPerspective(canvas, to_image @ from_canvas, (width, height), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_WRAP)
    return warped.astype(np.float32)


def _surface(scene: Scene, rng, side: int, scale: float, reach: float):
    """The surface on a side x side canvas, `scale` pixels per tile, table origin at its middle."""
    import cv2

    tint = np.array(scene.background_tint, np.float32)
    colours = [np.array(c, np.float32) for c in scene.pattern_colours] or [np.array((200.0, 215.0, 225.0))]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    x = xx / scale - reach
    y = yy / scale - reach
    kind = scene.background
    if kind == "board":
        return _board(scene, rng, side, scale, reach, x, y)
    if kind == "wordgame":
        return _wordgame(scene, rng, side, scale, reach, x, y)
    if kind == "florals":
        return _florals(scene, rng, side, scale, colours)
    if kind == "planks":
        return _planks(scene, rng, side, scale, x, y)
    size = max(scene.pattern_size, 0.05)
    a = math.radians(scene.board_turn)
    u = x * math.cos(a) + y * math.sin(a)
    v = -x * math.sin(a) + y * math.cos(a)
    if kind == "checks":
        # Gingham: two colours and their overlap where bands cross.
        band_u = (np.floor(u / size) % 2).astype(np.float32)
        band_v = (np.floor(v / size) % 2).astype(np.float32)
        first, second = colours[0], colours[1 % len(colours)]
        mix = (first + second) / 2
        canvas = np.where(((band_u + band_v) == 0)[..., None], first, np.where(((band_u + band_v) == 2)[..., None], second, mix))
    elif kind == "stripes":
        index = (np.floor(u / size * len(colours)) % len(colours)).astype(np.int64)
        canvas = np.stack(colours)[index]
    else:  # dots
        ground, dot = colours[0], colours[1 % len(colours)]
        du = (u / size) % 1.0 - 0.5
        dv = (v / size) % 1.0 - 0.5
        inside = (du * du + dv * dv) < 0.09
        canvas = np.where(inside[..., None], dot, ground)
    canvas = canvas.astype(np.float32) * tint
    weave = cv2.GaussianBlur(rng.normal(0, 5, (side, side)).astype(np.float32), (0, 0), 0.7)
    return canvas * (1 + weave[..., None] / 255.0)


# What a printed game board's squares look like: mostly plain, some coloured premium squares.
BOARD_PLAIN = (190.0, 212.0, 220.0)
BOARD_PREMIUM = ((70.0, 70.0, 200.0), (160.0, 150.0, 235.0), (170.0, 110.0, 40.0), (225.0, 200.0, 150.0),
                 (90.0, 170.0, 90.0), (60.0, 60.0, 60.0))
BOARD_WORDS = ("2", "3", "x2", "x3", "DL", "TW", "7", "12", "A", "B", "8", "0", "START", "46")


def _board(scene: Scene, rng, side: int, scale: float, reach: float, x, y):
    """A printed board: squares of `board_pitch` tiles with dark lines, coloured squares and print."""
    import cv2

    pitch = scene.board_pitch
    a = math.radians(scene.board_turn)
    ox, oy = scene.board_offset
    u = ((x - ox) * math.cos(a) + (y - oy) * math.sin(a)) / pitch
    v = (-(x - ox) * math.sin(a) + (y - oy) * math.cos(a)) / pitch
    plain = np.array(scene.pattern_colours[0] if scene.pattern_colours else BOARD_PLAIN, np.float32)
    canvas = np.empty((side, side, 3), np.float32)
    canvas[:] = plain * np.array(scene.background_tint, np.float32)
    # Coloured premium squares on a random pattern of cells.
    cu, cv = np.floor(u).astype(np.int64), np.floor(v).astype(np.int64)
    key = (cu * 7919 + cv * 104729 + scene.seed) % 1009
    premium = key < 1009 * 0.22
    colour_index = key % len(BOARD_PREMIUM)
    palette = np.array(BOARD_PREMIUM, np.float32)
    canvas = np.where(premium[..., None], palette[colour_index], canvas)
    # Lines between squares, dark, a few percent of a square wide.
    line = 0.025 + 0.03 * (scene.seed % 3)
    fu, fv = u - np.floor(u), v - np.floor(v)
    on_line = (np.minimum(fu, 1 - fu) < line / 2) | (np.minimum(fv, 1 - fv) < line / 2)
    canvas = np.where(on_line[..., None], np.array((45.0, 45.0, 50.0), np.float32), canvas)
    canvas = np.clip(canvas, 0, 255).astype(np.uint8)  # OpenCV prints text on 8-bit pictures only
    # Print: numbers and letters in some squares, dark on light squares, white on dark ones.
    span = int(reach * 2 / pitch) + 2
    font = cv2.FONT_HERSHEY_SIMPLEX
    for _ in range(int(span * span * 0.15)):
        i, j = rng.integers(-span // 2, span // 2, 2)
        word = str(rng.choice(BOARD_WORDS))
        centre_u, centre_v = i + 0.5, j + 0.5
        px = ox + (centre_u * math.cos(a) - centre_v * math.sin(a)) * pitch
        py = oy + (centre_u * math.sin(a) + centre_v * math.cos(a)) * pitch
        cx, cy = (px + reach) * scale, (py + reach) * scale
        if not (0 <= cx < side and 0 <= cy < side):
            continue
        square = canvas[int(cy), int(cx)].astype(np.float32)
        ink = (245, 245, 245) if square.mean() < 120 else (35, 30, 30)
        size_px = pitch * scale * (0.55 if len(word) <= 2 else 0.8)
        font_scale = size_px / 22.0 / max(len(word), 1.5) * 1.6
        thickness = max(1, int(round(size_px / 14)))
        (tw, th), _ = cv2.getTextSize(word, font, font_scale, thickness)
        cv2.putText(canvas, word, (int(cx - tw / 2), int(cy + th / 2)), font, font_scale, ink, thickness, cv2.LINE_AA)
    grain = cv2.GaussianBlur(rng.normal(0, 4, (side, side)).astype(np.float32), (0, 0), 0.8)
    return canvas.astype(np.float32) * (1 + grain[..., None] / 255.0)


# A word game's board: premium squares (B, G, R) and the words printed on them.
WORDGAME_PREMIUMS = {
    "TW": ((52.0, 58.0, 196.0), ("TRIPLE", "WORD", "SCORE")),
    "DW": ((170.0, 165.0, 238.0), ("DOUBLE", "WORD", "SCORE")),
    "TL": ((150.0, 92.0, 30.0), ("TRIPLE", "LETTER", "SCORE")),
    "DL": ((230.0, 205.0, 150.0), ("DOUBLE", "LETTER", "SCORE")),
}
_WORDGAME_QUARTER = {
    (0, 0): "TW", (0, 7): "TW", (7, 0): "TW", (1, 1): "DW", (2, 2): "DW", (3, 3): "DW", (4, 4): "DW",
    (1, 5): "TL", (5, 1): "TL", (5, 5): "TL", (0, 3): "DL", (3, 0): "DL", (2, 6): "DL", (6, 2): "DL",
    (3, 7): "DL", (7, 3): "DL", (6, 6): "DL",
}


def _print_words(canvas, words, x0: float, y0: float, w: float, h: float, ink, bold: float = 1.0) -> None:
    """Words centred in a box of the 8-bit canvas, one per line, as large as fits."""
    import cv2

    font = cv2.FONT_HERSHEY_DUPLEX
    widest = max(cv2.getTextSize(word, font, 1.0, 1)[0][0] for word in words)
    size = min(w * 0.8 / max(widest, 1), h * 0.8 / (len(words) * 30))
    thick = max(1, int(round(size * 1.6 * bold)))
    for k, word in enumerate(words):
        (tw, th), _ = cv2.getTextSize(word, font, size, thick)
        y = y0 + h / 2 + (k - (len(words) - 1) / 2) * th * 1.5 + th / 2
        cv2.putText(canvas, word, (int(x0 + (w - tw) / 2), int(y)), font, size, ink, thick, cv2.LINE_AA)


def _wordgame(scene: Scene, rng, side: int, scale: float, reach: float, x, y):
    """A 15 x 15 word-game board on the table: cream squares, premium squares with their words,
    a star in the middle, column letters and row numbers in its frame; the table beyond it.

    The board is drawn square to its own axes (so its print is upright on it)
    and laid on the table turned by `board_turn` with a square's corner at
    `board_offset`; `board_pitch` is a square's side in tiles.
    """
    import cv2

    cells, half = 15, 7
    px = int(np.clip(scene.board_pitch * scale, 12, 160))  # board pixels per square
    border = int(px * 0.8)
    n = cells * px + 2 * border
    board = np.empty((n, n, 3), np.uint8)
    frame = tuple(float(v) for v in rng.uniform([20, 60, 20], [120, 150, 140]))
    board[:] = frame
    cream = (float(rng.uniform(175, 205)), float(rng.uniform(205, 228)), float(rng.uniform(215, 240)))
    line = max(1, int(px * rng.uniform(0.03, 0.08)))
    short = rng.random() < 0.5  # some editions print "TW", others "TRIPLE WORD SCORE"
    for r in range(cells):
        for c in range(cells):
            kind = _WORDGAME_QUARTER.get((min(r, cells - 1 - r), min(c, cells - 1 - c)))
            kind = kind or _WORDGAME_QUARTER.get((min(c, cells - 1 - c), min(r, cells - 1 - r)))
            colour = WORDGAME_PREMIUMS[kind][0] if kind else cream
            x0, y0 = border + c * px, border + r * px
            cv2.rectangle(board, (x0, y0), (x0 + px - 1, y0 + px - 1), tuple(v * 0.85 for v in cream), -1)
            cv2.rectangle(board, (x0 + line, y0 + line), (x0 + px - 1 - line, y0 + px - 1 - line), colour, -1)
            if (r, c) == (half, half):
                a = np.arange(10) * math.pi / 5 - math.pi / 2
                radius = np.where(np.arange(10) % 2 == 0, 0.4, 0.17) * px
                star = np.column_stack([x0 + px / 2 + radius * np.cos(a), y0 + px / 2 + radius * np.sin(a)])
                cv2.fillPoly(board, [np.round(star * 16).astype(np.int32)], (30, 30, 30), cv2.LINE_AA, shift=4)
            elif kind:
                ink = (245, 245, 245) if sum(colour) < 450 else (40, 40, 40)
                _print_words(board, (kind,) if short else WORDGAME_PREMIUMS[kind][1], x0 + line, y0 + line,
                             px - 2 * line, px - 2 * line, ink)
    ink = (235, 235, 235) if sum(frame) < 300 else (30, 30, 30)
    for k in range(cells):
        _print_words(board, (chr(ord("A") + k),), border + k * px, 0, px, border, ink)
        _print_words(board, (str(k + 1),), 0, border + k * px, border, px, ink)
    # Where each canvas pixel falls on the board: u, v in squares from square (half, half)'s corner.
    a = math.radians(scene.board_turn)
    ox, oy = scene.board_offset
    u = ((x - ox) * math.cos(a) + (y - oy) * math.sin(a)) / scene.board_pitch
    v = (-(x - ox) * math.sin(a) + (y - oy) * math.cos(a)) / scene.board_pitch
    map_x = ((u + half) * px + border - 0.5).astype(np.float32)
    map_y = ((v + half) * px + border - 0.5).astype(np.float32)
    alpha = np.dstack([board, np.full((n, n), 255, np.uint8)])
    laid = cv2.remap(alpha, map_x, map_y, cv2.INTER_AREA if px > scale * scene.board_pitch else cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)).astype(np.float32)
    table = np.empty((side, side, 3), np.float32)
    table[:] = np.array(scene.pattern_colours[1] if len(scene.pattern_colours) > 1 else (95.0, 130.0, 165.0), np.float32)
    table *= 1 + cv2.GaussianBlur(rng.normal(0, 6, (side, side)).astype(np.float32), (0, 0), 2.0)[..., None] / 255.0
    cover = laid[..., 3:] / 255.0
    return laid[..., :3] * cover + table * (1 - cover)


def _florals(scene: Scene, rng, side: int, scale: float, colours):
    """A flowered cloth: flowers of five petals round a heart, and leaves, on a ground colour."""
    import cv2

    ground = colours[0]
    petals = [tuple(float(v) for v in c) for c in colours[1:]] or [tuple(float(v) for v in rng.uniform(40, 240, 3))]
    leaf = (float(rng.uniform(30, 90)), float(rng.uniform(100, 170)), float(rng.uniform(40, 110)))
    canvas = np.empty((side, side, 3), np.float32)
    canvas[:] = ground * np.array(scene.background_tint, np.float32)
    unit = max(scene.pattern_size, 0.1) * scale  # a flower's spacing in canvas pixels
    for _ in range(int((side / unit) ** 2 * 0.6) + 1):
        cx, cy = rng.uniform(0, side, 2)
        size = rng.uniform(0.2, 0.45) * unit
        turn = rng.uniform(0, 2 * math.pi)
        for k in range(2):
            a = turn + k * 2.4
            centre = (int(cx + math.cos(a) * size * 1.4), int(cy + math.sin(a) * size * 1.4))
            cv2.ellipse(canvas, centre, (max(1, int(size * 0.7)), max(1, int(size * 0.3))), math.degrees(a), 0, 360, leaf, -1, cv2.LINE_AA)
        colour = petals[int(rng.integers(0, len(petals)))]
        for k in range(5):
            a = turn + k * 2 * math.pi / 5
            cv2.circle(canvas, (int(cx + math.cos(a) * size * 0.55), int(cy + math.sin(a) * size * 0.55)), max(1, int(size * 0.45)), colour, -1, cv2.LINE_AA)
        cv2.circle(canvas, (int(cx), int(cy)), max(1, int(size * 0.25)), tuple(float(v) for v in rng.uniform(60, 240, 3)), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(canvas, (0, 0), 0.7)


def _planks(scene: Scene, rng, side: int, scale: float, x, y):
    """Wooden planks on the table plane: each its own shade, grain lines that wander, knots, dark seams.

    The planks run along `board_turn`, `pattern_size` tiles wide (a plank of
    a table is several tiles wide); `background_tint` shades the wood, from
    pale beech (1) to dark walnut (0.45).
    """
    import cv2

    a = math.radians(scene.board_turn)
    u = x * math.cos(a) + y * math.sin(a)
    v = -x * math.sin(a) + y * math.cos(a)
    width = max(scene.pattern_size, 1.0)
    plank = np.floor(v / width)
    shade = ((plank * 7919.0 + scene.seed) % 97.0) / 97.0 * 0.24 - 0.12  # each plank its own shade
    # Grain: lines along the plank, bent by slow noise, their spacing varying from plank to plank.
    bend = cv2.resize(rng.normal(0, 1, (24, 24)).astype(np.float32), (side, side), interpolation=cv2.INTER_CUBIC)
    spacing = 0.1 + ((plank * 104729.0 + scene.seed) % 89.0) / 89.0 * 0.2  # tiles between grain lines
    lines = np.sin((v + 0.35 * bend + 0.1 * np.sin(u * 0.7)) / spacing * 2 * math.pi)
    grain = 0.08 * lines**3
    seam = np.abs((v / width) - np.round(v / width)) * width < 0.025
    texture = shade + grain - 0.3 * seam
    for _ in range(int(rng.integers(0, 4))):  # knots
        kx, ky = rng.uniform(-6, 6, 2)
        r2 = ((u - kx) / rng.uniform(0.3, 0.6)) ** 2 + ((v - ky) / rng.uniform(0.12, 0.25)) ** 2
        texture = texture - rng.uniform(0.2, 0.35) * np.exp(-r2)
    fine = cv2.GaussianBlur(rng.normal(0, 0.03, (side, side)).astype(np.float32), (0, 0), 1.0)
    beech = np.array([150.0, 185.0, 222.0], np.float32) * np.array(scene.background_tint, np.float32)
    return beech[None, None, :] * (1 + (texture + fine)[..., None]) * np.array([0.95, 0.98, 1.0], np.float32)


def _apply(h, pts):
    pts = np.asarray(pts, dtype=np.float64)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return homog[:, :2] / homog[:, 2:3]


def _fill(canvas, poly, colour) -> None:
    import cv2

    cv2.fillPoly(canvas, [np.round(poly * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def render(cells: dict[tuple[int, int], str], tileset: str = "classic", scene: Scene | None = None) -> Rendered:
    """A picture of the grid `cells` ((row, col) -> tile) as `scene` describes."""
    from companion.games.pivit_tiles.tiles import get_tileset

    scene = scene or Scene()
    colours = get_tileset(tileset).colours
    rng = np.random.default_rng(scene.seed)
    to_image = scene_map(scene)
    image = _background(scene, rng, to_image)

    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    mid_r, mid_c = (min(rows) + max(rows)) / 2, (min(cols) + max(cols)) / 2
    # Tiles are solid: room enough that no jittered, turned tile overlaps its neighbour.
    pitch = cell_pitch(scene)

    placed = {}
    for (r, c), tile in sorted(cells.items()):
        dx, dy = rng.uniform(-scene.jitter, scene.jitter, 2) if scene.jitter else (0.0, 0.0)
        turn = math.radians(rng.uniform(-scene.turn, scene.turn)) if scene.turn else 0.0
        centre = np.array([(c - mid_c) * pitch + dx, (r - mid_r) * pitch + dy])
        placed[r, c] = (tile, centre, turn)

    picture, data, corners = _photograph(image, placed, colours, scene, to_image, rng)
    corners_out = {(r - min(rows), c - min(cols)): quad for (r, c), quad in corners.items()}
    truth = {(r - min(rows), c - min(cols)): t for (r, c), t in cells.items()}
    return Rendered(picture, truth, tileset, scene, data, corners_out)


def _frame(to_image, centre, turn: float, squash=None):
    """Tile units (around a tile's middle) to pixels through `to_image`, for a tile at `centre` turned by `turn`."""
    ct, st = math.cos(turn), math.sin(turn)
    turned = np.array([[ct, st], [-st, ct]])
    if squash is not None:
        turned = turned @ np.asarray(squash).T
    return lambda p: _apply(to_image, centre + np.asarray(p) @ turned)


def _draw_top(image, frame, tile: str, colours: str, black, rng) -> None:
    """A tile's bevelled black top and its painted design, drawn through `frame`."""
    from companion.games.pivit_tiles.tiles import WILD

    rim = tuple(float(x) for x in black * 2.2)
    _fill(image, frame(UNIT_SQUARE * 0.99), rim)
    face = tuple(float(x) * rng.uniform(0.9, 1.15) for x in black)
    _fill(image, frame(UNIT_SQUARE * 0.93), face)
    if tile == WILD:
        for colour, poly in wild_sectors(colours):
            _fill(image, frame(poly), paint_bgr(colour))
    else:
        paint = tuple(float(x) * rng.uniform(0.96, 1.04) for x in paint_bgr(tile[1]))
        for poly in design_polygons(tile[0]):
            _fill(image, frame(poly), paint)


def _soft_blur(image, sigma: float):
    """A Gaussian blur; on pictures over 4 megapixels with a wide sigma, done at a smaller scale.

    A soft shadow or a defocus over 6 pixels wide has no detail a quarter
    of its width, so at 12 megapixels it is blurred at 1/2 to 1/4 scale and
    brought back, several times faster. Smaller pictures are blurred as is
    (so the evaluation sets' small photos keep their pixels).
    """
    import cv2

    height, width = image.shape[:2]
    if height * width <= 4_000_000 or sigma <= 6:
        return cv2.GaussianBlur(image, (0, 0), sigma)
    f = 4 if sigma > 12 else 2
    small = cv2.resize(image, (width // f, height // f), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def _draw_finger(image, scene: Scene, on_table, above) -> None:
    """A finger reaching over the grid (through `above`, a plane over the tiles) and its soft shadow on the table."""
    x, y, angle, width = scene.finger
    a = math.radians(angle)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    tip = np.array([x, y])
    # The outline: a rounded tip, then straight sides running 15 tiles back, out of the picture.
    arc = np.linspace(-math.pi / 2, math.pi / 2, 16)
    round_tip = [tip + (width / 2) * (-math.cos(t) * along + math.sin(t) * across) for t in arc]
    outline = np.array(round_tip + [tip + 15 * along + width / 2 * across, tip + 15 * along - width / 2 * across])
    height, width_px = image.shape[:2]
    shade = np.zeros((height, width_px), np.float32)
    _fill(shade, _apply(on_table, outline + np.array([0.15, 0.2])), 1.0)
    shade = _soft_blur(shade, max(1.0, scene.tile_px * 0.25))
    image *= (1 - 0.4 * shade)[..., None]
    skin = np.array([120.0, 150.0, 205.0], np.float32)
    mask = np.zeros((height, width_px), np.float32)
    _fill(mask, _apply(above, outline), 1.0)
    # Rounded: lighter along its middle, darker at its sides (a soft ramp across the mask).
    core = _soft_blur(mask, max(1.0, scene.tile_px * width * 0.15))
    image[...] = image * (1 - mask[..., None]) + (skin * (0.55 + 0.5 * core[..., None])) * mask[..., None]


def _photograph(image, placed: dict, colours: str, scene: Scene, to_image, rng):
    """Lay the tiles on the table `image` and take the picture: (BGR uint8, encoded bytes, corners).

    `placed` maps a key to (tile, centre, turn) or (tile, centre, turn,
    squash): centre in tile units on the table plane, turn in radians, squash
    a 2 x 2 map applied on the plane after the turn (a tile leaning on
    another looks shortened towards it). Tiles are drawn in key order, later
    ones on top. Draws drop shadows, bevelled black tiles and designs, then
    the light, blur, noise and JPEG the scene asks for. `corners` maps each
    key to the tile's four image corners.
    """
    import cv2

    width, height = scene.size

    def tile_frame(centre, turn, squash=None):
        return _frame(to_image, centre, turn, squash)

    if scene.crumbs:
        # Crumbs and dirt: small dark flecks on the table, none under a tile.
        centres = np.array([p[1] for p in placed.values()])
        low, high = centres.min(axis=0) - 3, centres.max(axis=0) + 3
        for _ in range(scene.crumbs):
            spot = rng.uniform(low, high)
            if np.abs(centres - spot).max(axis=1).min() < 0.75:
                continue
            radii = rng.uniform(0.02, 0.09, 2)
            a = np.linspace(0, 2 * math.pi, 10, endpoint=False) + rng.uniform(0, 1)
            speck = spot + np.column_stack([radii[0] * np.cos(a), radii[1] * np.sin(a)]) * rng.uniform(0.6, 1.4, (10, 1))
            _fill(image, _apply(to_image, speck), tuple(float(v) for v in rng.uniform(15, 90, 3)))

    # Drop shadows first, all under every tile.
    shadow = np.zeros((height, width), np.float32)
    for tile, centre, turn, *squash in placed.values():
        frame = tile_frame(centre + np.array([0.06, 0.08]), turn, *squash)
        _fill(shadow, frame(UNIT_SQUARE), 1.0)
    shadow = _soft_blur(shadow, max(1.0, scene.tile_px * 0.08))
    image *= (1.0 - 0.45 * shadow)[..., None]

    corners_out = {}
    black = np.array(BLACK_BGR, np.float32)
    pinhole = scene.camera_tilt > 0 or scene.camera_fov > 0
    if scene.thickness > 0 and pinhole:
        # Standing tiles: farthest first, each with the sides that face the lens, then its top.
        top = scene_map(scene, scene.thickness)
        eye = camera_position(scene)[:2]
        order = sorted(placed, key=lambda key: -float(np.linalg.norm(placed[key][1] - eye)))
        for key in order:
            tile, centre, turn, *squash = placed[key]
            foot, head = tile_frame(centre, turn, *squash)(UNIT_SQUARE), _frame(top, centre, turn, *squash)
            lifted = head(UNIT_SQUARE)
            ct, st = math.cos(turn), math.sin(turn)
            on_table = centre + UNIT_SQUARE @ np.array([[ct, st], [-st, ct]])
            for k in range(4):
                mid = (on_table[k] + on_table[(k + 1) % 4]) / 2
                if np.dot(mid - centre, eye - mid) > 0:  # this side faces the camera
                    side = (foot[k], foot[(k + 1) % 4], lifted[(k + 1) % 4], lifted[k])
                    _fill(image, np.array(side), tuple(float(x) for x in black * 1.25))
            corners_out[key] = lifted
            _draw_top(image, head, tile, colours, black, rng)
    else:
        for key, (tile, centre, turn, *squash) in sorted(placed.items()):
            frame = tile_frame(centre, turn, *squash)
            corners_out[key] = frame(UNIT_SQUARE)
            _draw_top(image, frame, tile, colours, black, rng)

    if scene.glare > 0:
        # The lamp mirrored in glossy tiles: soft white highlights on some tops, over face and paint.
        highlight = np.zeros((height, width), np.float32)
        top = scene_map(scene, scene.thickness) if pinhole else to_image
        for key in sorted(placed):
            tile, centre, turn, *squash = placed[key]
            if rng.random() > 0.35:
                continue
            middle = rng.uniform(-0.3, 0.3, 2)
            radii = rng.uniform(0.1, 0.3, 2)
            a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
            blob = middle + np.column_stack([radii[0] * np.cos(a), radii[1] * np.sin(a)])
            _fill(highlight, _frame(top, centre, turn, *squash)(blob), float(rng.uniform(0.5, 1.0)))
        highlight = _soft_blur(highlight, max(1.0, scene.tile_px * 0.06))
        image += (255.0 * scene.glare * highlight)[..., None]

    if scene.finger:
        _draw_finger(image, scene, to_image, scene_map(scene, scene.thickness + 0.4) if pinhole else to_image)

    if scene.focus > 0 and pinhole:
        # Depth of field: sharp at the grid's middle, blurring towards the far side (and a
        # little towards the near one), by each pixel's distance along the table from the lens.
        inverse = np.linalg.inv(to_image)
        ys, xs = np.mgrid[0:height:8, 0:width:8].astype(np.float64)
        pts = np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
        plane = inverse @ pts
        w_ = np.where(np.abs(plane[2]) < 1e-12, 1e-12, plane[2])
        eye = camera_position(scene)
        dist = np.hypot(np.hypot(plane[0] / w_ - eye[0], plane[1] / w_ - eye[1]), eye[2])
        dist = np.where(plane[2] * np.sign(inverse[2, 2]) > 0, dist, dist.max())
        mid = float(np.linalg.norm(eye))
        amount = np.clip(np.where(dist > mid, (dist - mid) / (0.5 * mid), (mid - dist) / mid), 0, 1).reshape(xs.shape)
        amount = cv2.resize(amount.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)[..., None]
        image = image * (1 - amount) + _soft_blur(image, scene.focus) * amount

    # The light: a gradient, perhaps a soft shadow, and its colour.
    yy, xx = (a.astype(np.float32) for a in np.ogrid[0:height, 0:width])
    gx, gy, mean = scene.light
    light = mean * (1 + gx * (xx / width - 0.5) + gy * (yy / height - 0.5))
    if scene.shadow:
        edge = rng.uniform(0.2, 0.8)
        a = rng.uniform(0, 2 * math.pi)
        side = (xx / width - 0.5) * math.cos(a) + (yy / height - 0.5) * math.sin(a) - (edge - 0.5)
        softness = 0.08
        light *= 1 - scene.shadow * (1 / (1 + np.exp(-side / softness)))
    image *= light[..., None]
    if scene.cast_far is None:
        image *= np.array(scene.cast, np.float32)
    else:
        # Light of another colour from one side (a cool lamp beside a warm room): the cast
        # slides from `cast` to `cast_far` along the brightness gradient.
        along = gx * (xx / width - 0.5) + gy * (yy / height - 0.5)
        span = max(abs(gx), abs(gy), 1e-6)
        weight = np.clip(0.5 - along / span, 0.0, 1.0)[..., None]
        near, far = np.array(scene.cast, np.float32), np.array(scene.cast_far, np.float32)
        image *= near * (1 - weight) + far * weight
    if scene.lamp_kelvin:
        lamp = lamp_light(scene.size, scene.lamp_kelvin, scene.ambient_kelvin, scene.lamp_side, scene.lamp_strength)
        image = _relit(image, lamp, scene.white_balance)
    if scene.blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), scene.blur)
    length, angle = scene.shake
    if length >= 1:
        size = int(math.ceil(length)) | 1
        kernel = np.zeros((size, size), np.float32)
        dx, dy = math.cos(math.radians(angle)) * length / 2, math.sin(math.radians(angle)) * length / 2
        c = size // 2
        cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
        image = cv2.filter2D(image, -1, kernel / kernel.sum())
    if scene.sharpen > 0:
        image += scene.sharpen * (image - cv2.GaussianBlur(image, (0, 0), max(0.8, min(width, height) / 1500)))
    if scene.noise > 0:
        image += rng.normal(0, scene.noise, image.shape).astype(np.float32)
    picture = np.clip(image, 0, 255).astype(np.uint8)
    picture, data = encode_photo(picture, scene.jpeg_quality, scene.orientation)
    return picture, data, corners_out


# ---------------------------------------------------------------- light in colour

GAMMA = 2.2  # display values to linear light and back (near enough sRGB's curve)

# A black body's colour as an sRGB display shows it (R, G, B, 0-255), by temperature in
# kelvin (after Mitchell Charity's black-body colour table, 2-degree observer, D65 white).
_BLACK_BODY = (
    (1500, (255, 109, 0)), (2000, (255, 137, 14)), (2500, (255, 161, 72)), (2700, (255, 169, 87)),
    (3000, (255, 180, 107)), (3500, (255, 196, 137)), (4000, (255, 209, 163)), (4500, (255, 219, 186)),
    (5000, (255, 228, 206)), (5500, (255, 236, 224)), (6000, (255, 243, 239)), (6500, (255, 249, 253)),
    (7000, (245, 243, 255)), (8000, (227, 233, 255)), (9000, (214, 225, 255)), (10000, (204, 219, 255)),
    (12000, (191, 211, 255)),
)


def kelvin_bgr(kelvin: float):
    """Linear-light B, G, R gains of a lamp of colour temperature `kelvin`, daylight (6500 K) 1, 1, 1.

    Interpolated in mireds (a million over the temperature), in which equal
    steps look like equal changes of colour; the brightest channel is 1.
    """
    mired = 1e6 / min(max(float(kelvin), 1500.0), 12000.0)
    mireds = np.array([1e6 / t for t, _ in _BLACK_BODY])[::-1]
    rgbs = np.array([rgb for _, rgb in _BLACK_BODY], np.float64)[::-1]
    rgb = np.array([np.interp(mired, mireds, rgbs[:, k]) for k in range(3)])
    gains = ((rgb / 255.0) ** GAMMA) / ((np.array(dict(_BLACK_BODY)[6500], np.float64) / 255.0) ** GAMMA)
    return (gains / gains.max())[::-1].astype(np.float32)


def relight(picture, light, white_balance: float = 0.5):
    """A BGR uint8 picture (taken in even daylight) as if lit by `light` (H x W x 3 linear gains).

    Works in linear light, as light adds up; then the phone's exposure puts
    the bright part of the scene where it was, and its white balance pulls
    the picture's mean colour `white_balance` of the way back to grey (phones
    correct a colour cast only partly).
    """
    return (np.clip(_relit(picture.astype(np.float32), light, white_balance), 0, 255) + 0.5).astype(np.uint8)


def _relit(image, light, white_balance: float):
    """relight() on a float32 picture (0-255), giving float32."""
    linear = np.power(np.clip(image, 0, 255) / 255.0, GAMMA).astype(np.float32)
    step = max(1, int(math.sqrt(linear.shape[0] * linear.shape[1] / 40000)))
    luminance = np.array([0.0722, 0.7152, 0.2126], np.float32)
    before = float(np.percentile(linear[::step, ::step].reshape(-1, 3) @ luminance, 90))
    linear *= light
    sample = linear[::step, ::step].reshape(-1, 3)
    exposure = before / max(float(np.percentile(sample @ luminance, 90)), 1e-6)
    means = sample.mean(axis=0) + 1e-6
    balance = np.power(means.mean() / means, white_balance).astype(np.float32)
    linear *= (exposure * balance)[None, None, :]
    return np.power(np.clip(linear, 0, 1), 1 / GAMMA) * np.float32(255.0)


def lamp_light(size: tuple[int, int], lamp_kelvin: float, ambient_kelvin: float, side: float, strength: float = 0.8,
               height: float = 0.5, distance: float = 0.9):
    """Linear B, G, R gains over a picture lit by a small lamp to one side and an even ambient light.

    The lamp stands `distance` (in picture widths from the middle) towards
    the angle `side` (radians; 0 is the right), `height` above the table, and
    gives `strength` of the light at the picture's middle: its light falls
    with the cube of the distance, so the near side is several times
    brighter than the far side. Ambient light is the rest.
    """
    width, height_px = size
    scale = max(width, height_px)
    yy, xx = np.mgrid[0:height_px, 0:width].astype(np.float32)
    lx, ly = width / 2 + math.cos(side) * distance * scale, height_px / 2 + math.sin(side) * distance * scale
    h2 = (height * scale) ** 2
    falloff = (h2 + (distance * scale) ** 2) ** 1.5 / np.power((xx - lx) ** 2 + (yy - ly) ** 2 + h2, 1.5)
    light = (1 - strength) * kelvin_bgr(ambient_kelvin)[None, None, :] + strength * falloff[..., None] * kelvin_bgr(lamp_kelvin)[None, None, :]
    return light.astype(np.float32)


# How a phone stores an upright picture for each EXIF orientation: quarter turns
# counter-clockwise (np.rot90's k) applied to the upright pixels.
STORED_TURNS = {0: 0, 1: 0, 3: 2, 6: 1, 8: 3}


def encode_photo(picture, jpeg_quality: int = 0, orientation: int = 0):
    """(upright picture as decoded, file bytes): PNG if quality is 0, else JPEG stored as `orientation` says.

    A phone keeps the sensor's pixels and an EXIF Orientation tag saying how to
    turn them upright; so does this, for orientations 1, 3, 6 and 8 (JPEG only;
    0 writes no EXIF block). Raises ValueError for another orientation, or one
    asked of a PNG.
    """
    import cv2

    if orientation not in STORED_TURNS:
        raise ValueError(f"EXIF orientation {orientation} is not a quarter turn")
    if not jpeg_quality:
        if orientation:
            raise ValueError("an EXIF orientation needs a JPEG")
        ok, buf = cv2.imencode(".png", picture)
        return picture, buf.tobytes()
    stored = np.ascontiguousarray(np.rot90(picture, STORED_TURNS[orientation]))
    ok, buf = cv2.imencode(".jpg", stored, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
    data = buf.tobytes()
    if orientation:
        data = with_exif_orientation(data, orientation)
    upright = np.ascontiguousarray(np.rot90(cv2.imdecode(buf, cv2.IMREAD_COLOR), -STORED_TURNS[orientation]))
    return upright, data


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an EXIF (APP1) segment holding just an Orientation tag, right after its SOI marker.

    As a phone writes it: the encoder's JFIF (APP0) segment is dropped, since
    both want to come first and phones write EXIF only.
    """
    import struct

    # TIFF header (little-endian), one IFD with one SHORT entry: tag 0x0112 Orientation.
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
    tiff += struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0)
    payload = b"Exif\x00\x00" + tiff
    rest = 2
    if jpeg[2:4] == b"\xff\xe0":  # JFIF
        rest = 4 + struct.unpack(">H", jpeg[4:6])[0]
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[rest:]


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


# ---------------------------------------------------------------- loose hands
#
# A hand spread on the table before it is arranged: tiles anywhere, each
# turned its own way, some pushed against others (edge to edge or a corner
# against an edge), photographed with the same tables, light and camera as
# the grids.

@dataclass
class RenderedHand:
    image: Any  # BGR uint8
    tiles: list[str]  # the truth: one entry per tile drawn, in drawing order
    centres: Any  # float64 N x 2: image (x, y) of each tile's middle
    corners: list[Any]  # 4 x 2 image corners of each tile
    touching: int  # tiles that touch at least one other tile
    tileset: str
    scene: Scene
    data: bytes = b""  # the encoded file (JPEG if the scene asks for it, else PNG)


def random_hand(rng, tileset: str = "classic", tiles: int = 12, wilds: int = 0) -> list[str]:
    """`tiles` tiles drawn from one box of the tile set (three of each tile), `wilds` of them wilds.

    Raises ValueError if the box does not hold that many.
    """
    from companion.games.pivit_tiles.tiles import COPIES, WILD, WILDS, get_tileset

    ts = get_tileset(tileset)
    if not 0 <= wilds <= min(WILDS, tiles) or tiles - wilds > COPIES * len(ts.tiles()):
        raise ValueError(f"a {ts.name} box has no hand of {tiles} tiles with {wilds} wilds")
    box = [t for t in ts.tiles() for _ in range(COPIES)]
    drawn = [box[int(k)] for k in rng.permutation(len(box))[: tiles - wilds]] + [WILD] * wilds
    return [drawn[int(k)] for k in rng.permutation(len(drawn))]


def tile_square(centre, turn: float):
    """The four corners (4 x 2, table units) of a tile at `centre` turned by `turn` radians."""
    c, s = math.cos(turn), math.sin(turn)
    return np.asarray(centre, np.float64) + UNIT_SQUARE @ np.array([[c, s], [-s, c]])


def squares_overlap(a, b, gap: float = 0.0) -> bool:
    """True if two convex quadrilaterals come closer than `gap` along every separating axis."""
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        for nx, ny in np.column_stack([-edges[:, 1], edges[:, 0]]):
            n = np.array([nx, ny]) / math.hypot(nx, ny)
            pa, pb = a @ n, b @ n
            if pa.max() + gap <= pb.min() or pb.max() + gap <= pa.min():
                return False
    return True


def scatter_tiles(rng, count: int, touching: float = 0.4, spread: float = 3.0, leaning: float = 0.0) -> list[tuple]:
    """(centre, turn) or (centre, turn, squash) of `count` tiles spread on the table, centred on 0.

    Each tile after the first is, with probability `touching`, slid against a
    tile already down (from a random side, at its own random turn) until they
    touch; otherwise it lands anywhere in a region of about `spread` square
    tiles per tile, apart from the others. A tile slid against another is,
    with probability `leaning`, leaning on it instead: it reaches a few
    hundredths of a tile over the other's edge, lies on top of it, and looks
    shortened by a few percent towards it (`squash`, a 2 x 2 map on the table
    plane; tiles are drawn in order, so it is drawn over the other). No
    other tiles overlap. Units are tile sides.
    """
    placed: list[tuple] = []
    squares: list[Any] = []
    width = math.sqrt(count * spread * 4 / 3)
    height = width * 3 / 4

    def free(square, gap: float, but: int = -1) -> bool:
        return not any(squares_overlap(square, other, gap) for k, other in enumerate(squares) if k != but)

    while len(placed) < count:
        spot = None
        if placed and rng.random() < touching:
            for _ in range(30):
                which = int(rng.integers(0, len(squares)))
                anchor = squares[which]
                middle = anchor.mean(axis=0)
                phi = rng.uniform(0, 2 * math.pi)
                direction = np.array([math.cos(phi), math.sin(phi)])
                turn = rng.uniform(0, math.pi / 2)
                # The two squares overlap for a range of distances [0, t*] along the ray
                # (their Minkowski difference is convex and holds 0): find t* by halving.
                lo, hi = 0.0, 2.0
                for _ in range(30):
                    mid = (lo + hi) / 2
                    if squares_overlap(anchor, tile_square(middle + mid * direction, turn)):
                        lo = mid
                    else:
                        hi = mid
                if leaning and len(placed[which]) == 2 and rng.random() < leaning:
                    # Resting on the other's edge: over it by a little, and foreshortened.
                    centre = middle + (hi - rng.uniform(0.03, 0.08)) * direction
                    factor = rng.uniform(0.94, 0.98)
                    squash = np.eye(2) - (1 - factor) * np.outer(direction, direction)
                    square = tile_square(centre, turn)
                    inside = abs(centre[0]) < width / 2 + 1 and abs(centre[1]) < height / 2 + 1
                    if inside and free(square, 0.0, but=which):
                        spot = (centre, turn, squash)
                        break
                    continue
                centre = middle + (hi + rng.uniform(0.0, 0.012)) * direction
                square = tile_square(centre, turn)
                inside = abs(centre[0]) < width / 2 + 1 and abs(centre[1]) < height / 2 + 1
                if inside and free(square, 0.0):
                    spot = (centre, turn)
                    break
        if spot is None:
            for _ in range(200):
                centre = rng.uniform([-width / 2, -height / 2], [width / 2, height / 2])
                turn = rng.uniform(0, math.pi / 2)
                if free(tile_square(centre, turn), 0.08):
                    spot = (centre, turn)
                    break
        if spot is None:
            width, height = width * 1.1, height * 1.1  # crowded: spread wider
            continue
        placed.append(spot)
        squares.append(tile_square(spot[0], spot[1]))
    middle = (np.min([s.min(axis=0) for s in squares], axis=0) + np.max([s.max(axis=0) for s in squares], axis=0)) / 2
    return [(spot[0] - middle, *spot[1:]) for spot in placed]


def render_hand(tiles: list[str], spots: list[tuple], tileset: str = "classic", scene: Scene | None = None) -> RenderedHand:
    """A picture of loose `tiles`, each at its (centre, turn) or (centre, turn, squash) of `spots`.

    The picture is taken as `scene` describes (see scatter_tiles for squash).

    The scene's `tile_px`, `rotation`, `tilt` and `centre` place the table
    plane in the picture as for a grid; its gap, jitter and turn are not used.
    """
    from companion.games.pivit_tiles.tiles import get_tileset

    scene = scene or Scene()
    colours = get_tileset(tileset).colours
    rng = np.random.default_rng(scene.seed)
    to_image = scene_map(scene)
    image = _background(scene, rng, to_image)
    placed = {k: (tile, np.asarray(spot[0], np.float64), float(spot[1]), *spot[2:]) for k, (tile, spot) in enumerate(zip(tiles, spots))}
    picture, data, corners = _photograph(image, placed, colours, scene, to_image, rng)
    squares = [tile_square(spot[0], spot[1]) for spot in spots]
    touching = sum(
        any(squares_overlap(a, b, 0.02) for j, b in enumerate(squares) if j != k) for k, a in enumerate(squares)
    )
    centres = _apply(to_image, np.array([spot[0] for spot in spots], np.float64).reshape(-1, 2))
    return RenderedHand(picture, list(tiles), centres, [corners[k] for k in range(len(tiles))], touching, tileset, scene, data)


def synthetic_hand(
    seed: int,
    tileset: str = "classic",
    tiles: int = 12,
    wilds: int = 0,
    size: tuple[int, int] = (800, 600),
    touching: float = 0.4,
    leaning: float = 0.0,
    **overrides,
) -> RenderedHand:
    """A random hand scattered on a random table, both from `seed`; keyword overrides go to the Scene.

    `touching` and `leaning` are scatter_tiles'.

    The tiles are made as large as lets the whole spread, turned by the
    scene's rotation and foreshortened by its tilt, fit in the picture.
    """
    rng = np.random.default_rng(seed)
    hand = random_hand(rng, tileset, tiles, wilds)
    spots = scatter_tiles(rng, tiles, touching, spread=float(rng.uniform(2.2, 4.0)), leaning=leaning)
    scene = random_scene(rng, size=size, grid_span=(1, 1))
    theta = math.radians(overrides.get("rotation", scene.rotation))
    c, s = math.cos(theta), math.sin(theta)
    corners = np.vstack([tile_square(spot[0], spot[1]) for spot in spots]) @ np.array([[c, s], [-s, c]])
    extent = corners.max(axis=0) - corners.min(axis=0)
    middle = (corners.max(axis=0) + corners.min(axis=0)) / 2
    tile_px = float(min(0.84 * size[0] / extent[0], 0.84 * size[1] / extent[1]) * rng.uniform(0.85, 1.0))
    # Put the spread's middle at the picture's middle (the plane turns about its origin).
    placement = {"tile_px": tile_px, "centre": (0.5 - middle[0] * tile_px / size[0], 0.5 - middle[1] * tile_px / size[1])}
    scene = replace(scene, **{**placement, **overrides})
    return render_hand(hand, spots, tileset, scene)
