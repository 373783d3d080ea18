"""Bench the reader on labelled photos made harder: turned, darkened, shadowed, cast, blurred, squeezed.

    .venv/bin/python bench/vision_transforms.py [DIR] [--every N] [--only NAME,...]

For each photo of DIR with a NAME.json truth file (every N-th, default all),
each transform below is applied to the decoded photo in memory and the
result read and scored (best translation; a turn by less than 45 degrees
keeps rows and columns). Shows how far from the folder's own conditions
the reader still holds. Prints figures; passes nothing.
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.join(os.path.dirname(ROOT), "shared", "data", "qwirkle-photos", "dev")


def transforms():
    import cv2
    import numpy as np

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

    def perspective(im, k):
        h, w = im.shape[:2]
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[w * k, 0], [w * (1 - k), 0], [w, h], [0, h]])
        return cv2.warpPerspective(im, cv2.getPerspectiveTransform(src, dst), (w, h), borderMode=cv2.BORDER_REPLICATE)

    def scale(im, f):
        return cv2.resize(im, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)

    return {
        "as is": lambda im: im,
        "turned 20": lambda im: turn(im, 20),
        "turned -35": lambda im: turn(im, -35),
        "turned 40": lambda im: turn(im, 40),
        "half as bright": lambda im: (im * 0.5).astype(np.uint8),
        "1.3x as bright": lambda im: np.clip(im * 1.3, 0, 255).astype(np.uint8),
        "gradient": lambda im: gradient(im, 0.6),
        "soft shadow": lambda im: shadow(im, 0.45),
        "warm light": lambda im: cast(im, (0.8, 1.0, 1.15)),
        "cool light": lambda im: cast(im, (1.15, 1.0, 0.85)),
        "tungsten": lambda im: cast(im, (0.6, 0.9, 1.25)),
        "blur 2 px": lambda im: cv2.GaussianBlur(im, (0, 0), 2.0),
        "blur 4 px": lambda im: cv2.GaussianBlur(im, (0, 0), 4.0),
        "jpeg 40": lambda im: jpeg(im, 40),
        "noise": lambda im: np.clip(im + rng.normal(0, 6, im.shape), 0, 255).astype(np.uint8),
        "perspective": lambda im: perspective(im, 0.08),
        "half size": lambda im: scale(im, 0.5),
        "quarter size": lambda im: scale(im, 0.25),
        "all at once": lambda im: jpeg(shadow(cast(gradient(turn(im, -28), 0.5), (0.85, 1.0, 1.1)), 0.35), 50),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", default=DEFAULT_DIR, metavar="DIR")
    parser.add_argument("--every", type=int, default=1, help="use every N-th photo (default 1)")
    parser.add_argument("--only", help="comma-separated transform names")
    args = parser.parse_args()

    sys.path.insert(0, ROOT)
    from vision.capture import read_image_file
    from vision.errors import VisionError
    from vision.evaluate import EvalSummary, PhotoScore, load_truth, photo_pairs, score
    from vision.pipeline import read_image

    table = transforms()
    names = args.only.split(",") if args.only else list(table)
    pairs = photo_pairs(args.folder)[:: max(1, args.every)]
    results = {name: EvalSummary() for name in names}
    for photo, truth_path in pairs:
        truth, tileset, _ = load_truth(truth_path)
        base = read_image_file(photo).image
        for name in names:
            try:
                result = read_image(table[name](base), tileset)
                s = score(os.path.basename(photo), result.cells(), truth, result.elapsed_ms)
            except VisionError as exc:
                s = PhotoScore(os.path.basename(photo), len(truth), 0, 0, 0, 0.0, str(exc))
            results[name].photos.append(s)
    print(f"{len(pairs)} photos of {args.folder}")
    for name, summary in results.items():
        wrong = [p.name for p in summary.photos if not p.exact]
        print(f"{name:16s} tiles {100 * summary.tile_accuracy:6.2f}%  exact {sum(p.exact for p in summary.photos)}/{len(summary.photos)}"
              + (f"  ({', '.join(wrong)})" if wrong else ""))


if __name__ == "__main__":
    main()
