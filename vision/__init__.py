"""Camera check of tile grids: read every tile of a photographed grid.

The pipeline is a chain of pure stages (vision.find, vision.lattice,
vision.colour, vision.design, vision.assemble), each a function with its
config passed in that raises a VisionError subclass when it gives up;
vision.capture is the only module that touches a camera. Importing this
package is cheap: the stages, OpenCV and NumPy load on first use.

For the web page: `read_image_bytes(data, tileset="classic", calibration=None)`
returns a ReadResult with `.tiles`, `.grid`, `.elapsed_ms` and
`.annotated_png(violations=None)`; its errors carry `.status` 400, 413 or 422.
For loose tiles spread on the table (the "I'm stuck" hand):
`read_hand_bytes(data, tileset="classic", calibration=None)` returns a
HandResult with `.tiles`, `.hand`, `.elapsed_ms` and `.annotated_png()`, and
raises the same errors.
"""
from __future__ import annotations

from vision.errors import (
    BadImageError,
    CalibrationError,
    ClassifyError,
    ImageTooLargeError,
    LatticeError,
    NoTilesError,
    RetakePhotoError,
    VisionError,
)

# The rest loads on first use (PEP 562): a grid read never needs the hand reader's code, and a
# process that reads photos pays for compiling only the modules it runs.
_LAZY = {
    "Calibration": "vision.colour",
    "HandResult": "vision.hand",
    "HandTile": "vision.hand",
    "read_hand": "vision.hand",
    "read_hand_bytes": "vision.hand",
    "read_hand_file": "vision.hand",
    "ReadResult": "vision.pipeline",
    "read_image": "vision.pipeline",
    "read_image_bytes": "vision.pipeline",
    "read_image_file": "vision.pipeline",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "BadImageError",
    "Calibration",
    "CalibrationError",
    "ClassifyError",
    "HandResult",
    "HandTile",
    "ImageTooLargeError",
    "LatticeError",
    "NoTilesError",
    "ReadResult",
    "RetakePhotoError",
    "VisionError",
    "read_hand",
    "read_hand_bytes",
    "read_hand_file",
    "read_image",
    "read_image_bytes",
    "read_image_file",
]
