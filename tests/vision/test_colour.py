"""Colour classification: the paints, a light's colour cast, wilds, and per-table calibration."""
from __future__ import annotations

import json

import numpy as np
import pytest

from vision.colour import (
    DEFAULT_PAINTS,
    Calibration,
    calibrate,
    classify_colours,
    colour_sample,
    log_chroma,
    to_linear,
)
from vision.design import design_mask, draw_design
from vision.errors import CalibrationError
from vision.synthetic import PAINT_BGR, wild_sectors

SETS = {"classic": "ROYGBP", "connect": "ROYGBW"}


def _patch(colour_bgr, design="1", gains=(1.0, 1.0, 1.0), light=1.0):
    """A 64-pixel tile patch: black face, one design in `colour_bgr`, lit by `light` with channel `gains`."""
    grey = draw_design(design, 64).astype(np.float32)
    weight = (grey - grey.min()) / (grey.max() - grey.min())
    face = np.array([22, 18, 16], np.float32)
    paint = np.array(colour_bgr, np.float32)
    patch = (face + weight[..., None] * (paint - face)) * np.array(gains, np.float32) * light
    return np.clip(patch, 0, 255).astype(np.uint8)


def _sample(colour_bgr, **kw):
    patch = _patch(colour_bgr, **kw)
    return colour_sample(patch, design_mask(patch))


@pytest.mark.parametrize("tileset", ["classic", "connect"])
def test_every_paint_is_read(tileset):
    colours = SETS[tileset]
    samples = [_sample(PAINT_BGR[c]) for c in colours]
    readings = classify_colours(samples, colours)
    assert [r.colour for r in readings] == list(colours)
    assert all(r.confidence > 0.3 for r in readings)


@pytest.mark.parametrize("light", [0.45, 0.7, 1.0, 1.3])
def test_brightness_does_not_change_a_colour(light):
    # Shadow or a bright lamp: the log-chromaticity stays put.
    colours = "ROYGBW"
    samples = [_sample(PAINT_BGR[c], light=light) for c in colours]
    assert [r.colour for r in classify_colours(samples, colours)] == list(colours)


@pytest.mark.parametrize(
    "gains",
    [(0.85, 1.0, 1.15), (1.15, 1.0, 0.85), (1.0, 0.9, 1.0), (0.6, 1.0, 1.6), (1.6, 1.0, 0.6)],
    ids=["warm", "cool", "magenta", "tungsten", "shade"],
)
def test_a_colour_cast_leaves_every_paint_nearest_its_own(gains):
    colours = "ROYGBW"
    samples = [_sample(PAINT_BGR[c], design=d, gains=gains) for c in colours for d in "135"]
    readings = classify_colours(samples, colours)
    assert [r.colour for r in readings] == [c for c in colours for _ in "135"]


def test_red_and_orange_are_far_apart():
    red, orange = (np.array(DEFAULT_PAINTS[c]) for c in "RO")
    assert np.linalg.norm(red - orange) > 2.0


def test_log_chroma_of_grey_is_zero():
    assert np.allclose(log_chroma(to_linear([[128, 128, 128]])), 0.0, atol=1e-5)


def _wild_patch(colours):
    import cv2

    size = 64
    canvas = np.full((size * 4, size * 4, 3), (22, 18, 16), np.uint8)
    for colour, poly in wild_sectors(colours):
        pts = np.round((poly * size * 4 + size * 2) * 16).astype(np.int32)
        cv2.fillPoly(canvas, [pts], PAINT_BGR[colour], cv2.LINE_AA, shift=4)
    return cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("tileset", ["classic", "connect"])
def test_a_design_in_many_colours_is_a_wild(tileset):
    colours = SETS[tileset]
    patch = _wild_patch(colours)
    samples = [colour_sample(patch, design_mask(patch)), _sample(PAINT_BGR["R"])]
    readings = classify_colours(samples, colours)
    assert readings[0].colour == "*"
    assert readings[1].colour == "R"


def test_calibration_round_trip(tmp_path):
    samples = {c: [_sample(PAINT_BGR[c])] for c in "ROYGBW"}
    calibration = calibrate(samples, source="table.jpg")
    path = tmp_path / "calibration.json"
    calibration.save(str(path))
    loaded = Calibration.load(str(path))
    assert loaded.source == "table.jpg"
    assert loaded.samples == {c: 1 for c in "ROYGBW"}
    for c in "ROYGBW":
        assert np.allclose(loaded.paints[c], calibration.paints[c], atol=1e-3)


def test_calibration_reads_a_table_whose_light_fools_the_defaults():
    # A cast strong enough to push orange past red: a calibration under the same light
    # tells them apart again.
    gains = (1.0, 0.5, 1.0)  # a deep magenta light: half the green
    assert [r.colour for r in classify_colours([_sample(PAINT_BGR["O"], gains=gains)], "ROYGBW")] == ["R"]
    calibration = calibrate({c: [_sample(PAINT_BGR[c], gains=gains)] for c in "ROYGBW"})
    oranges = [_sample(PAINT_BGR["O"], design=d, gains=gains) for d in "123456"]
    readings = classify_colours(oranges, "ROYGBW", calibration)
    assert {r.colour for r in readings} == {"O"}


def test_calibration_needs_every_colour_it_is_given():
    with pytest.raises(CalibrationError, match="no B tile"):
        calibrate({"R": [_sample(PAINT_BGR["R"])], "B": []})


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"kind": "something else"}',
        '{"kind": "companion-colour-calibration", "version": 2, "paints": {"Q": [1, 2]}}',
        '{"kind": "companion-colour-calibration", "version": 2, "paints": {"R": [1]}}',
        '{"kind": "companion-colour-calibration", "version": 2}',
    ],
)
def test_a_bad_calibration_file_is_a_clear_error(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CalibrationError) as info:
        Calibration.load(str(path))
    assert str(path) in str(info.value)


def test_a_missing_calibration_file_is_a_clear_error(tmp_path):
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(str(tmp_path / "nope.json"))
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="not JSON"):
        Calibration.load(str(tmp_path / "broken.json"))


def test_calibration_json_is_plain_data():
    data = calibrate({c: [_sample(PAINT_BGR[c])] for c in "RO"}).to_json()
    assert json.loads(json.dumps(data)) == data
