"""Per-table colour calibration from one photo of tiles whose grid is known.

Lay out tiles showing every colour of the tile set (six tiles in a row will
do), photograph them under the table's usual light, and give the grid file
of what they are. The photo is read as usual; the read grid is matched to the
known one by design (colours are what is being calibrated, so they are not
trusted yet), and each colour's reference paint becomes the median colour of
its designs in the photo.
"""
from __future__ import annotations

from vision.colour import Calibration, calibrate, classify_colours
from vision.errors import CalibrationError


def calibrate_from_read(result, known: dict, tileset: str = "classic", source: str = "") -> tuple[Calibration, str]:
    """A Calibration from a ReadResult of the known grid `known` ((row, col) -> tile), and a report.

    Raises CalibrationError if the photo does not show that grid or a colour
    of the tile set is missing from it.
    """
    from companion.games.pivit_tiles.tiles import WILD, get_tileset
    from vision.evaluate import best_translation

    colours = get_tileset(tileset).colours
    present = {t[1] for t in known.values() if t != WILD}
    missing = [c for c in colours if c not in present]
    if missing:
        raise CalibrationError(f"the known grid has no {' or '.join(missing)} tile; show every colour of the {tileset} set")
    read_designs = {cell: s for cell, s in result.samples.items()}
    designs = {(t.row, t.col): t.tile[0] for t in result.tiles if t.tile != WILD}
    dr, dc = best_translation(designs, {cell: t[0] for cell, t in known.items() if t != WILD})
    by_colour: dict[str, list] = {c: [] for c in colours}
    matched = 0
    for (row, col), design in designs.items():
        truth = known.get((row + dr, col + dc))
        if truth is None or truth == WILD or truth[0] != design:
            continue
        matched += 1
        by_colour[truth[1]].append(read_designs[row, col])
    wanted = sum(1 for t in known.values() if t != WILD)
    if matched < max(1, 0.8 * wanted):
        raise CalibrationError(f"only {matched} of the {wanted} known tiles were found in the photo; is it the grid in the file?")
    calibration = calibrate(by_colour, source)
    # How the default paints did on the same tiles, to show what the calibration changes.
    samples = [s for c in colours for s in by_colour[c]]
    truths = [c for c in colours for _ in by_colour[c]]
    before = classify_colours(samples, colours)
    wrong = sum(1 for r, t in zip(before, truths) if r.colour != t)
    lines = [f"calibrated {len(calibration.paints)} colours from {matched} tiles; the default paints misread {wrong} of them"]
    for letter in colours:
        x, y = calibration.paints[letter]
        lines.append(f"  {letter}: ln R/G {x:+.2f}, ln B/G {y:+.2f} ({calibration.samples[letter]} tiles)")
    return calibration, "\n".join(lines)

