"""Bench the reader on the labelled photos made harder: tilted, stored turned, relit, and more.

    .venv/bin/python bench/vision_transforms.py [DIR] [--every N] [--only NAME,...] [--full]

For each photo of DIR (default: the development photos) with a NAME.json
truth file (every N-th, default all), each transform below is applied to
the decoded photo, the result saved as the phone would save it (JPEG,
quality 92, with an EXIF orientation tag), and read from those bytes and
scored as `companion vision eval` scores (vision.evaluate: best quarter
turn and translation; the truth grid never changes). Nothing is written to
disk. Photos are worked on at half their size (2016x1512 for a 12-megapixel
photo, about what the reader decodes anyway); `--full` keeps them whole.

- tilt T (azimuth A): the table plane seen by a phone T degrees from straight
  down (a homography: a pinhole camera with a 70-degree lens, looking at the
  grid's middle from as close as keeps the whole grid in the frame), the
  far side leaning towards A degrees; past the photo's edges, its table's
  colour;
- exif O: stored as the sensor saw it, with EXIF orientation O (1, 3, 6, 8);
- cool LED / tungsten / LED + room: relit in linear light by a lamp to one
  side (colour temperature, light falling with the cube of the distance)
  against an ambient light, the phone's white balance correcting part of it;
- the older ones: turned, darkened, brightened, gradient, soft shadow, colour
  casts, blur, noise, JPEG, shrunk; and combinations.

Prints one row per transform: accuracy, photos exact, confidently wrong,
not sure, missing, refused, time per photo. Passes or fails nothing.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = next(
    (d for d in (os.path.join(up, "shared", "data", "qwirkle-photos", "dev") for up in (os.path.dirname(ROOT), os.path.dirname(os.path.dirname(ROOT)))) if os.path.isdir(d)),
    os.path.join(os.path.dirname(ROOT), "shared", "data", "qwirkle-photos", "dev"),
)
QUALITY = 92


def shake(im, length: int):
    """Motion blur: the phone moved `length` pixels sideways while the shutter was open."""
    import cv2
    import numpy as np

    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length
    return cv2.filter2D(im, -1, kernel)


def grid_box(im):
    """A box (x0, y0, x1, y1) around the photo's black tiles, with a tile's worth of margin.

    Only to frame the tilted views (the whole grid in the picture, as a player
    frames it); the reader never sees it.
    """
    import cv2
    import numpy as np

    small = cv2.resize(im, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    dark = cv2.morphologyEx((small.max(axis=2) < 70).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero(dark)
    if len(xs) < 20:
        h, w = im.shape[:2]
        return 0.0, 0.0, float(w), float(h)
    x0, x1 = np.percentile(xs, [0.5, 99.5]) * 4
    y0, y1 = np.percentile(ys, [0.5, 99.5]) * 4
    pad = 0.08 * max(x1 - x0, y1 - y0)
    return float(x0 - pad), float(y0 - pad), float(x1 + pad), float(y1 + pad)


def tilted(im, tilt: float, azimuth: float, roll: float = 0.0):
    """The photo's table plane as seen `tilt` degrees from straight down, the far side towards `azimuth`.

    A pinhole camera (70-degree lens) looks at the middle of the grid from as
    close as keeps the whole grid in the picture (vision.synthetic's camera
    model, one "tile" being one pixel of the photo). Beyond the photo's
    edges, its table's colour.
    """
    import cv2
    import numpy as np

    from vision.synthetic import Scene, scene_map

    h, w = im.shape[:2]
    x0, y0, x1, y1 = grid_box(im)
    middle = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    box = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64) - middle
    to_plane = np.array([[1, 0, -middle[0]], [0, 1, -middle[1]], [0, 0, 1.0]])

    def view(px: float):
        return scene_map(Scene(size=(w, h), camera_tilt=max(tilt, 0.01), camera_azimuth=azimuth, camera_fov=70.0,
                               rotation=roll, tile_px=px))

    lo, hi = 0.05, 4.0
    for _ in range(30):
        mid = (lo + hi) / 2
        p = np.hstack([box, np.ones((4, 1))]) @ view(mid).T
        p = p[:, :2] / p[:, 2:3]
        inside = (p[:, 0] >= 0.03 * w).all() and (p[:, 0] <= 0.97 * w).all() and (p[:, 1] >= 0.03 * h).all() and (p[:, 1] <= 0.97 * h).all()
        lo, hi = (mid, hi) if inside else (lo, mid)
    edge = np.concatenate([im[0], im[-1], im[:, 0], im[:, -1]])
    table = tuple(float(x) for x in np.median(edge, axis=0))
    return cv2.warpPerspective(im, view(lo) @ to_plane, (w, h), flags=cv2.INTER_AREA if lo < 1 else cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=table)


def transforms():
    """name -> function(picture) -> picture, or (picture, EXIF orientation)."""
    import cv2
    import numpy as np

    from vision.synthetic import kelvin_bgr, lamp_light, relight

    rng = np.random.default_rng(0)

    def turn(im, degrees):
        h, w = im.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
        c, s = abs(m[0, 0]), abs(m[0, 1])
        nw, nh = int(h * s + w * c), int(h * c + w * s)
        m[0, 2] += nw / 2 - w / 2
        m[1, 2] += nh / 2 - h / 2
        return cv2.warpAffine(im, m, (nw, nh), borderMode=cv2.BORDER_REPLICATE)

    def light(im, field):
        return np.clip(im * field[..., None], 0, 255).astype(np.uint8)

    def gradient(im, strength):
        h, w = im.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        return light(im, 1 + strength * (xx / w - 0.5) + strength * (yy / h - 0.5))

    def shadow(im, depth):
        h, w = im.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        side = (xx / w - 0.55) * 0.7 + (yy / h - 0.6) * 0.7
        return light(im, 1 - depth / (1 + np.exp(-side / 0.05)))

    def cast(im, gains):
        return np.clip(im * np.array(gains, np.float32), 0, 255).astype(np.uint8)

    def jpeg(im, quality):
        return cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)

    def scale(im, f):
        return cv2.resize(im, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)

    def lamp(im, lamp_k, ambient_k, side, strength=0.8, balance=0.5):
        h, w = im.shape[:2]
        return relight(im, lamp_light((w, h), lamp_k, ambient_k, side, strength, height=0.35, distance=0.7), balance)

    table = {
        "as is": lambda im: im,
        "tilt 15": lambda im: tilted(im, 15, 90),
        "tilt 30": lambda im: tilted(im, 30, 90),
        "tilt 30 az 200": lambda im: tilted(im, 30, 200, 8),
        "tilt 45": lambda im: tilted(im, 45, 90),
        "tilt 45 az 135": lambda im: tilted(im, 45, 135, -6),
        "tilt 55": lambda im: tilted(im, 55, 90),
        "tilt 55 az 45": lambda im: tilted(im, 55, 45),
        "tilt 55 az 300": lambda im: tilted(im, 55, 300, 12),
        "exif 1": lambda im: (im, 1),
        "exif 3": lambda im: (im, 3),
        "exif 6": lambda im: (im, 6),
        "exif 8": lambda im: (im, 8),
        "cool LED": lambda im: lamp(im, 7500, 3000, math.pi),
        "cool LED strong": lambda im: lamp(im, 9500, 2700, 0.6, strength=0.95, balance=0.3),
        "tungsten lamp": lambda im: lamp(im, 2600, 6000, -1.2, strength=0.85),
        "tungsten room": lambda im: relight(im, np.ones(im.shape, np.float32) * kelvin_bgr(2700), 0.3),
        "turned 20": lambda im: turn(im, 20),
        "turned -35": lambda im: turn(im, -35),
        "turned 40": lambda im: turn(im, 40),
        "half as bright": lambda im: (im * 0.5).astype(np.uint8),
        "1.3x as bright": lambda im: np.clip(im * 1.3, 0, 255).astype(np.uint8),
        "gradient": lambda im: gradient(im, 0.6),
        "soft shadow": lambda im: shadow(im, 0.45),
        "warm light": lambda im: cast(im, (0.8, 1.0, 1.15)),
        "cool light": lambda im: cast(im, (1.15, 1.0, 0.85)),
        "blur 2 px": lambda im: cv2.GaussianBlur(im, (0, 0), 2.0),
        "blur 4 px": lambda im: cv2.GaussianBlur(im, (0, 0), 4.0),
        "blur 3 px": lambda im: cv2.GaussianBlur(im, (0, 0), 3.0),
        "blur 5 px": lambda im: cv2.GaussianBlur(im, (0, 0), 5.0),
        "blur 6 px": lambda im: cv2.GaussianBlur(im, (0, 0), 6.0),
        "blur 8 px": lambda im: cv2.GaussianBlur(im, (0, 0), 8.0),
        "blur 12 px": lambda im: cv2.GaussianBlur(im, (0, 0), 12.0),
        "blur 16 px": lambda im: cv2.GaussianBlur(im, (0, 0), 16.0),
        "shake 24 px": lambda im: shake(im, 24),
        "jpeg 40": lambda im: jpeg(im, 40),
        "noise": lambda im: np.clip(im + rng.normal(0, 6, im.shape), 0, 255).astype(np.uint8),
        "half size": lambda im: scale(im, 0.5),
        "quarter size": lambda im: scale(im, 0.25),
        "tilt 40 + LED": lambda im: lamp(tilted(im, 40, 70), 8000, 3000, 2.5),
        "tilt 50 + exif 6": lambda im: (tilted(im, 50, 250, -10), 6),
        "all at once": lambda im: (jpeg(shadow(lamp(tilted(im, 45, 160, 5), 7000, 3200, 0.3), 0.3), 60), 8),
    }
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", default=DEFAULT_DIR, metavar="DIR")
    parser.add_argument("--every", type=int, default=1, help="use every N-th photo (default 1)")
    parser.add_argument("--only", help="comma-separated transform names")
    parser.add_argument("--full", action="store_true", help="work on the photos at full size (default half)")
    args = parser.parse_args()

    sys.path.insert(0, ROOT)
    import cv2

    from vision.errors import VisionError
    from vision.evaluate import EvalSummary, PhotoScore, load_truth, photo_pairs, score_result, table
    from vision.pipeline import read_image_bytes
    from vision.synthetic import encode_photo

    steps = transforms()
    names = args.only.split(",") if args.only else list(steps)
    unknown = [n for n in names if n not in steps]
    if unknown:
        sys.exit(f"bench: no transform {unknown[0]!r}; they are: {', '.join(steps)}")
    try:
        pairs = photo_pairs(args.folder)[:: max(1, args.every)]
    except ValueError as exc:
        sys.exit(f"bench: {exc}")
    results = {name: EvalSummary() for name in names}
    started = time.perf_counter()
    for photo, truth_path in pairs:
        truth, tileset, _ = load_truth(truth_path)
        base = cv2.imread(photo, cv2.IMREAD_COLOR if args.full else cv2.IMREAD_REDUCED_COLOR_2)
        name = os.path.basename(photo)
        for step in names:
            out = steps[step](base)
            picture, orientation = out if isinstance(out, tuple) else (out, 1)
            _, data = encode_photo(picture, QUALITY, orientation)
            try:
                s = score_result(name, read_image_bytes(data, tileset), truth, step)
            except VisionError as exc:
                s = PhotoScore(name, len(truth), 0, 0, 0, 0.0, str(exc), step)
            results[step].photos.append(s)
    print(f"{len(pairs)} photos of {args.folder}, {'full' if args.full else 'half'} size, "
          f"{len(names)} transforms ({time.perf_counter() - started:.0f} s)")
    lines = table(results, total=False, first="transform")
    print(lines[0])
    for row, summary in zip(lines[1:], results.values()):
        wrong = [p.name for p in summary.photos if not p.exact]
        print(row + (f"  ({', '.join(wrong[:6])}{' ...' if len(wrong) > 6 else ''})" if wrong else ""))


if __name__ == "__main__":
    main()
