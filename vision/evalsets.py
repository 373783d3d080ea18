"""Evaluation sets for the camera check in the wild: seeded synthetic photos, one set per condition.

Real phone photos of grids held at an angle, on other tables and under other
lamps cannot ship with the project, so the reader is judged on these instead
(and on warps and relightings of the development photos, bench/vision_transforms.py).
Every photo is a pure function of (condition, seed, size): `make_photo`
renders one, `write_evalset` writes a folder of NAME.jpg + NAME.json in the
qwirkle-photos truth format with a `"condition"` field, which
`companion vision eval` scores per condition.

The conditions (each also varies everything `vision.synthetic` varies: tile
sets, wilds, rotation on the table, gaps, hand placement, blur, noise, JPEG):

- plain: a phone held over the grid (0-15 degrees), wood, cloth or white table;
- oblique: held in front of the grid, 25-55 degrees from straight down;
- steep: 50-55 degrees, the far side of the grid about half the near side;
- turned: the photo stored as the sensor saw it with an EXIF orientation tag
  (1, 3, 6 or 8: upright, upside down, sideways either way), the grid at any
  angle;
- board: tiles on a printed game board (lines, coloured squares, numbers and
  letters), its squares lined up with the tiles or not;
- cloth: a patterned tablecloth (gingham checks, stripes, dots or florals);
- wood: wooden planks in perspective, pale beech to dark walnut, grain,
  seams and knots;
- groups: two or three separate groups of tiles on one table;
- tinted: a cool blue-white lamp from one side and a warm room, or warm
  tungsten light, and a strong brightness gradient: half of them lit in
  linear light by a lamp of a colour temperature (2300-9500 K) against an
  ambient light of another, the phone's white balance correcting part of it;
- packed: tiles in solid blocks with no gaps;
- rough: blur, camera shake, heavy noise, strong JPEG compression and the
  phone's sharpening halos;
- mixed: all of the above at once, drawn at random;

and beyond what a careful player does, where the reader should read the
grid, or say where it is not sure or a tile may be missing, or ask for a
better photo, but never be confidently wrong:

- large: a late game's grid of 25-45 tiles, its far tiles small at an angle;
- occluded: a finger over the grid, covering part of a tile or more;
- cutoff: part of the grid outside the picture;
- extreme: 58-63 degrees from straight down, and blurred.

Every photo is a JPEG with an EXIF block, as a phone writes it, and its tiles
stand 0.1-0.3 of their side high, so that at an angle their sides show. Now
and then, in any condition: the lamp mirrored in glossy tiles (more under
the tinted lamps), crumbs on the table, the phone's sharpening; at an angle,
the far side out of focus.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np  # a test and bench tool: never on the command line's start-up path

from vision.synthetic import (
    BACKGROUNDS,
    Rendered,
    Scene,
    cell_pitch,
    random_grid,
    render,
    scene_map,
)

CONDITIONS = ("plain", "oblique", "steep", "turned", "board", "cloth", "wood", "groups", "tinted", "packed", "rough", "mixed",
              "large", "occluded", "cutoff", "extreme")
# What "mixed" draws from (fixed, so that adding a condition does not change its photos).
MIXED_FROM = ("oblique", "steep", "turned", "board", "cloth", "wood", "groups", "tinted", "packed", "rough")
# Beyond a careful player's photo: the reader should read them, or say where it is not sure,
# where a tile may be missing, or ask for a better photo; never be confidently wrong.
BEYOND = ("large", "occluded", "cutoff", "extreme")
TEST_SIZE = (1200, 900)  # small enough for the test suite, tiles still tens of pixels
PHONE_SIZE = (4032, 3024)  # a 12-megapixel phone photo

COOL_LAMP = (1.32, 1.04, 0.74)  # B, G, R gains of a blue-white LED
WARM_ROOM = (0.82, 0.97, 1.18)
TUNGSTEN = (0.62, 0.86, 1.22)


@dataclass
class EvalPhoto:
    """One photo of an evaluation set: its file bytes, the truth grid, and how it was made."""

    name: str
    condition: str
    data: bytes
    cells: dict[tuple[int, int], str]
    tileset: str
    scene: Scene
    rendered: Rendered

    def truth_json(self) -> dict:
        return {
            "image": self.name + ".jpg",
            "tileset": self.tileset,
            "condition": self.condition,
            "tiles": [{"row": r, "col": c, "tile": t} for (r, c), t in sorted(self.cells.items())],
            "scene": {k: _plain(v) for k, v in vars(self.scene).items() if k not in ("pattern_colours",)},
        }


def _plain(value: Any):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return round(value, 4)
    return value


def make_photo(condition: str, seed: int, size: tuple[int, int] = TEST_SIZE) -> EvalPhoto:
    """The photo number `seed` of a condition's set. Raises ValueError for an unknown condition."""
    if condition not in CONDITIONS:
        raise ValueError(f"no evaluation condition {condition!r}; the conditions are {', '.join(CONDITIONS)}")
    # One stream per (condition, seed), independent of the order photos are made in.
    rng = np.random.default_rng([CONDITIONS.index(condition), seed])
    if condition == "mixed":
        picks = set(rng.choice(MIXED_FROM, size=int(rng.integers(2, 5)), replace=False))
    else:
        picks = {condition}
    tileset = str(rng.choice(["classic", "connect"]))
    cells = _grid(rng, tileset, picks)
    scene = _scene(rng, size, picks)
    scene = fit_in_frame(scene, cells, float(rng.uniform(0.55, 0.9)))
    if "occluded" in picks:
        scene = replace(scene, finger=_finger(rng, scene, cells))
    if "cutoff" in picks:
        scene = _cut_off(rng, scene, cells)
    rendered = render(cells, tileset, scene)
    name = f"{condition}-{seed:04d}"
    # The truth is the grid the photo shows: a tile wholly beyond the picture's edge (a part of a
    # loose grid the cut-off set moved out, touching no tile in the picture) is in no photo.
    height, width = rendered.image.shape[:2]
    shown = {cell: tile for cell, tile in rendered.cells.items()
             if cell not in rendered.corners or _in_picture(rendered.corners[cell], width, height)}
    return EvalPhoto(name, condition, rendered.data, shown, tileset, rendered.scene, rendered)


def _in_picture(quad, width: int, height: int) -> bool:
    """Whether a tile's picture (4 x 2 image corners) overlaps the width x height frame."""
    import cv2

    frame = np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float32)
    area, _ = cv2.intersectConvexConvex(np.asarray(quad, np.float32).reshape(-1, 2), frame)
    return area > 0


def _grid(rng, tileset: str, picks: set[str]) -> dict[tuple[int, int], str]:
    if "large" in picks:
        return _with_wilds(rng, _large_grid(rng, tileset, int(rng.integers(25, 46))))
    if "packed" in picks:
        return _packed_blocks(rng, tileset)
    if "groups" in picks:
        return _groups(rng, tileset)
    grid = random_grid(rng, tileset, int(rng.integers(6, 25)), valid=bool(rng.random() < 0.7))
    return _with_wilds(rng, grid)


def _large_grid(rng, tileset: str, count: int) -> dict[tuple[int, int], str]:
    """A late game's grid: lines of two to six tiles crossing each other, `count` tiles in all."""
    grid = {(0, c): _random_tile(rng, tileset) for c in range(int(rng.integers(3, 7)))}
    for _ in range(2000):
        if len(grid) >= count:
            break
        cells = sorted(grid)
        r, c = cells[int(rng.integers(0, len(cells)))]
        dr, dc = ((0, 1), (1, 0))[int(rng.integers(0, 2))]
        start = int(rng.integers(-4, 1))
        for k in range(start, start + int(rng.integers(2, 7))):
            cell = (r + k * dr, c + k * dc)
            if cell not in grid and len(grid) < count:
                grid[cell] = _random_tile(rng, tileset)
    return _normalised(grid)


def _finger(rng, scene: Scene, cells) -> tuple:
    """A finger's tip over one of the tiles (a little off its middle), coming from any side."""
    pitch = cell_pitch(scene)
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    r, c = sorted(cells)[int(rng.integers(0, len(cells)))]
    x = (c - (min(cols) + max(cols)) / 2) * pitch + float(rng.uniform(-0.35, 0.35))
    y = (r - (min(rows) + max(rows)) / 2) * pitch + float(rng.uniform(-0.35, 0.35))
    return (x, y, float(rng.uniform(0, 360)), float(rng.uniform(0.6, 0.9)))


def _cut_off(rng, scene: Scene, cells) -> Scene:
    """The scene moved so that 15-45% of the grid's picture lies beyond one edge of the frame."""
    h = scene_map(scene, scene.thickness)
    homog = np.hstack([grid_corners(scene, cells), np.ones((len(cells) * 4, 1))]) @ h.T
    pts = homog[:, :2] / homog[:, 2:3]
    width, height = scene.size
    side = int(rng.integers(0, 4))
    share = float(rng.uniform(0.15, 0.45))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    x, y = scene.centre
    if side == 0:
        x -= (lo[0] + share * (hi[0] - lo[0])) / width
    elif side == 1:
        x += (width - hi[0] + share * (hi[0] - lo[0])) / width
    elif side == 2:
        y -= (lo[1] + share * (hi[1] - lo[1])) / height
    else:
        y += (height - hi[1] + share * (hi[1] - lo[1])) / height
    return replace(scene, centre=(float(x), float(y)))


def _with_wilds(rng, grid: dict) -> dict:
    if rng.random() < 0.3:
        cells = sorted(grid)
        for k in rng.permutation(len(cells))[: int(rng.integers(1, 3))]:
            grid[cells[int(k)]] = "**"
    return grid


def _random_tile(rng, tileset: str) -> str:
    from companion.games.pivit_tiles.tiles import get_tileset

    return str(rng.choice(list("123456"))) + str(rng.choice(list(get_tileset(tileset).colours)))


def _packed_blocks(rng, tileset: str) -> dict[tuple[int, int], str]:
    """One or two solid blocks of tiles, no cell empty inside a block."""
    grid: dict[tuple[int, int], str] = {}
    col = 0
    for _ in range(int(rng.integers(1, 3))):
        rows, cols = int(rng.integers(2, 5)), int(rng.integers(3, 6))
        top = int(rng.integers(0, 3))
        for r in range(rows):
            for c in range(cols):
                grid[top + r, col + c] = _random_tile(rng, tileset)
        col += cols + int(rng.integers(0, 3))  # blocks touching, or apart
    return _normalised(grid)


def _groups(rng, tileset: str) -> dict[tuple[int, int], str]:
    """Two or three grids side by side on one lattice, two or more empty cells apart."""
    grid: dict[tuple[int, int], str] = {}
    col = 0
    for _ in range(int(rng.integers(2, 4))):
        part = random_grid(rng, tileset, int(rng.integers(3, 9)), valid=True)
        shift = int(rng.integers(-2, 3))
        for (r, c), t in part.items():
            grid[r + shift, c + col] = t
        col += max(c for _, c in part) + 1 + int(rng.integers(2, 4))
    return _with_wilds(rng, _normalised(grid))


def _normalised(grid: dict) -> dict:
    top = min(r for r, _ in grid)
    left = min(c for _, c in grid)
    return {(r - top, c - left): t for (r, c), t in grid.items()}


def _scene(rng, size: tuple[int, int], picks: set[str]) -> Scene:
    """Everything random about the picture but the grid, for the conditions in `picks`."""
    tilt = float(rng.uniform(0.0, 15.0))
    if "oblique" in picks:
        tilt = float(rng.uniform(25.0, 55.0))
    elif "steep" in picks:
        tilt = float(rng.uniform(50.0, 55.0))
    elif "extreme" in picks:
        tilt = float(rng.uniform(58.0, 63.0))
    elif "large" in picks:
        tilt = float(rng.uniform(0.0, 45.0))
    elif picks & {"board", "cloth", "wood", "groups", "tinted", "packed", "turned", "rough", "occluded", "cutoff"}:
        tilt = float(rng.uniform(0.0, 40.0))
    background = str(rng.choice(BACKGROUNDS))
    tint = (1.0, 1.0, 1.0)
    if background == "cloth":
        tint = tuple(float(0.35 + 0.65 * h) for h in rng.uniform(0, 1, 3))
    elif background == "wood":
        tint = (float(rng.uniform(0.85, 1.1)),) * 3
    extra: dict[str, Any] = {}
    if "board" in picks:
        background = str(rng.choice(["board", "wordgame"]))
        tint = (1.0, 1.0, 1.0)
        aligned = rng.random() < 0.6
        extra.update(
            board_pitch=float(rng.uniform(0.9, 1.4)),
            board_turn=float(rng.uniform(-45, 45)),
            board_offset=(float(rng.uniform(0, 1)), float(rng.uniform(0, 1))),
            pattern_colours=(tuple(float(x) for x in rng.uniform([150, 180, 190], [215, 235, 240])),),
        )
        if aligned:
            extra["_aligned"] = True
    elif "cloth" in picks:
        background = str(rng.choice(["checks", "stripes", "dots", "florals"]))
        tint = (1.0, 1.0, 1.0)
        n = int(rng.integers(2, 4))
        colours = []
        for _ in range(n):
            bright = rng.uniform(0.45, 1.0)
            colours.append(tuple(float(x) for x in 250 * bright * rng.uniform(0.45, 1.0, 3)))
        extra.update(pattern_colours=tuple(colours), pattern_size=float(rng.uniform(0.25, 2.5)),
                     board_turn=float(rng.uniform(-45, 45)))
    elif "wood" in picks:
        background = "planks"
        tint = (float(rng.uniform(0.45, 1.1)),) * 3
        extra.update(pattern_size=float(rng.uniform(2.5, 6.0)), board_turn=float(rng.uniform(0, 180)))
    light = (float(rng.uniform(-0.35, 0.35)), float(rng.uniform(-0.35, 0.35)), float(rng.uniform(0.8, 1.1)))
    cast = (float(rng.uniform(0.9, 1.1)), 1.0, float(rng.uniform(0.9, 1.1)))
    cast_far = None
    if "tinted" in picks:
        angle = rng.uniform(0, 2 * math.pi)
        strength = float(rng.uniform(0.5, 0.9))
        light = (strength * math.cos(angle), strength * math.sin(angle), float(rng.uniform(0.75, 1.05)))
        if rng.random() < 0.5:
            # A lamp of one colour temperature against a room of another, in linear light.
            cool = rng.random() < 0.6
            light = (0.0, 0.0, 1.0)
            extra.update(
                lamp_kelvin=float(rng.uniform(5500, 9500) if cool else rng.uniform(2300, 3200)),
                ambient_kelvin=float(rng.uniform(2700, 4000) if cool else rng.uniform(5000, 7000)),
                lamp_side=float(rng.uniform(0, 2 * math.pi)),
                lamp_strength=float(rng.uniform(0.6, 0.95)),
                white_balance=float(rng.uniform(0.2, 0.8)),
            )
        elif rng.random() < 0.65:
            cast, cast_far = COOL_LAMP, WARM_ROOM
        else:
            cast = tuple(float(g * rng.uniform(0.95, 1.05)) for g in TUNGSTEN)
    orientation = 1
    if "turned" in picks:
        # All four a phone writes, upright (1) included: the tag must be harmless too.
        orientation = int(rng.choice([1, 3, 6, 8]))
    gap = float(rng.choice([0.0, 0.0, 0.02, 0.05, 0.12]))
    jitter = float(rng.uniform(0.0, 0.04))
    turn = float(rng.uniform(0.0, 2.0))
    if "packed" in picks:
        gap, jitter, turn = 0.0, float(rng.uniform(0.0, 0.015)), float(rng.uniform(0.0, 0.8))
    blur, noise, quality = float(rng.uniform(0.0, 1.2)), float(rng.uniform(0.0, 4.0)), int(rng.choice([70, 80, 90]))
    shake, sharpen = (0.0, 0.0), float(rng.uniform(0.0, 0.5))
    if "extreme" in picks:
        blur, noise = float(rng.uniform(1.2, 2.5)), float(rng.uniform(2.0, 6.0))
    if "rough" in picks:
        blur, noise, quality = float(rng.uniform(1.0, 2.5)), float(rng.uniform(4.0, 10.0)), int(rng.uniform(35, 65))
        shake, sharpen = (float(rng.uniform(0.0, 6.0)) * size[0] / 1200, float(rng.uniform(0, 180))), float(rng.uniform(0.3, 1.2))
    # Everywhere now and then, more where it belongs: the lamp mirrored in glossy tiles,
    # the far side out of focus (close-up shots at an angle), crumbs on the table.
    glare = float(rng.uniform(0.3, 0.9)) if rng.random() < (0.6 if "tinted" in picks else 0.15) else 0.0
    focus = float(rng.uniform(0.0, 2.5 if picks & {"oblique", "steep"} else 1.0)) * size[0] / 1200
    crumbs = int(rng.integers(10, 60)) if rng.random() < 0.3 else 0
    scene = Scene(
        size=size,
        background=background,
        background_tint=tint,
        tile_px=40.0,  # set by fit_in_frame
        rotation=float(rng.uniform(-8, 8)),  # the phone's roll; the grid's own angle comes from the azimuth
        camera_tilt=max(tilt, 0.01),
        camera_azimuth=float(rng.uniform(0, 360)),
        camera_fov=float(rng.uniform(62, 78)),
        centre=(float(rng.uniform(0.45, 0.55)), float(rng.uniform(0.45, 0.55))),
        gap=gap,
        jitter=jitter,
        turn=turn,
        light=light,
        shadow=float(rng.choice([0.0, 0.0, rng.uniform(0.2, 0.4)])),
        cast=cast,
        cast_far=cast_far,
        blur=blur * size[0] / 1200,
        noise=noise,
        jpeg_quality=quality,
        orientation=orientation,
        thickness=float(rng.uniform(0.1, 0.3)),
        shake=shake,
        sharpen=sharpen,
        glare=glare,
        focus=focus,
        crumbs=crumbs,
        seed=int(rng.integers(0, 2**31)),
        **{k: v for k, v in extra.items() if not k.startswith("_")},
    )
    if extra.get("_aligned"):
        # The board's squares under the tiles: same pitch and angle, lines between tiles.
        pitch = cell_pitch(scene)
        scene = replace(scene, board_pitch=pitch, board_turn=0.0, board_offset=(pitch / 2, pitch / 2))
    return scene


def grid_corners(scene: Scene, cells: dict[tuple[int, int], str]):
    """Table-plane corners (tiles, grid middle at 0) of every tile of `cells` laid as `scene` lays them."""
    pitch = cell_pitch(scene)
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    mid_r, mid_c = (min(rows) + max(rows)) / 2, (min(cols) + max(cols)) / 2
    pts = []
    for r, c in cells:
        x, y = (c - mid_c) * pitch, (r - mid_r) * pitch
        pts += [(x - 0.5, y - 0.5), (x + 0.5, y - 0.5), (x + 0.5, y + 0.5), (x - 0.5, y + 0.5)]
    return np.array(pts, np.float64)


def fit_in_frame(scene: Scene, cells: dict[tuple[int, int], str], fill: float) -> Scene:
    """The scene with `tile_px` set so the grid's picture spans `fill` of the frame (whole grid inside)."""
    corners = grid_corners(scene, cells)
    width, height = scene.size
    margin = 0.04
    for _ in range(12):
        h = scene_map(scene)
        homog = np.hstack([corners, np.ones((len(corners), 1))]) @ h.T
        pts = homog[:, :2] / homog[:, 2:3]
        span = max((pts[:, 0].max() - pts[:, 0].min()) / width, (pts[:, 1].max() - pts[:, 1].min()) / height)
        # Keep inside the frame: room on each side of where the middle lands.
        cx, cy = scene.centre[0] * width, scene.centre[1] * height
        room = min(
            (cx - margin * width) / max(cx - pts[:, 0].min(), 1e-6),
            (width * (1 - margin) - cx) / max(pts[:, 0].max() - cx, 1e-6),
            (cy - margin * height) / max(cy - pts[:, 1].min(), 1e-6),
            (height * (1 - margin) - cy) / max(pts[:, 1].max() - cy, 1e-6),
        )
        factor = min(fill / span, room)
        if abs(factor - 1) < 0.005:
            break
        scene = replace(scene, tile_px=scene.tile_px * float(factor) ** 0.9)
    return scene


def near_far_ratio(scene: Scene, cells: dict[tuple[int, int], str]) -> float:
    """Smallest over largest tile side in the picture (1 straight from above, about 0.5 at 55 degrees)."""
    h = scene_map(scene)
    sides = []
    for k, quad in enumerate(grid_corners(scene, cells).reshape(-1, 4, 2)):
        homog = np.hstack([quad, np.ones((4, 1))]) @ h.T
        p = homog[:, :2] / homog[:, 2:3]
        sides.append(float(np.mean([np.linalg.norm(p[i] - p[(i + 1) % 4]) for i in range(4)])))
    return min(sides) / max(sides)


def write_evalset(folder: str, conditions=CONDITIONS, count: int = 20, seed: int = 0,
                  size: tuple[int, int] = TEST_SIZE, on_photo: Callable[[EvalPhoto], None] | None = None) -> int:
    """Write `count` photos of each condition to `folder` (NAME.jpg + NAME.json); the number written.

    Raises ValueError for an unknown condition and OSError if the folder cannot be written.
    """
    os.makedirs(folder, exist_ok=True)
    written = 0
    for condition in conditions:
        for k in range(count):
            photo = make_photo(condition, seed + k, size)
            with open(os.path.join(folder, photo.name + ".jpg"), "wb") as f:
                f.write(photo.data)
            with open(os.path.join(folder, photo.name + ".json"), "w", encoding="utf-8") as f:
                json.dump(photo.truth_json(), f)
                f.write("\n")
            written += 1
            if on_photo is not None:
                on_photo(photo)
    return written
