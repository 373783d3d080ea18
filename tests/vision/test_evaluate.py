"""Scoring reads against truth: best translation, per-tile accuracy, exact photos."""
from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.evaluate import EvalSummary, PhotoScore, best_translation, load_truth, photo_pairs, score

TRUTH = {(0, 1): "4W", (1, 0): "5W", (1, 1): "1W", (2, 1): "1Y"}


def test_a_shifted_read_is_still_exact():
    shifted = {(r + 3, c - 2): t for (r, c), t in TRUTH.items()}
    assert best_translation(shifted, TRUTH) == (-3, 2)
    s = score("x", shifted, TRUTH, 12.0)
    assert s.exact and s.correct == 4 and s.extra == 0


def test_misread_missing_and_extra_tiles_count():
    read = dict(TRUTH)
    read[(0, 1)] = "4Y"  # misread
    del read[(2, 1)]  # missed
    read[(5, 5)] = "6G"  # seen where there is none
    s = score("x", read, TRUTH, 1.0)
    assert (s.truth, s.read, s.correct, s.extra, s.exact) == (4, 4, 2, 1, False)
    summary = EvalSummary([s, score("y", TRUTH, TRUTH, 3.0)])
    assert summary.tile_accuracy == pytest.approx(6 / 9)
    assert summary.exact_rate == 0.5
    assert summary.ms_per_photo == 2.0


def test_a_failed_read_scores_nothing():
    s = PhotoScore("x", 4, 0, 0, 0, 5.0, error="no tiles found")
    assert not s.exact
    assert EvalSummary([s]).tile_accuracy == 0.0


@given(
    cells=st.dictionaries(st.tuples(st.integers(0, 6), st.integers(0, 6)), st.sampled_from(["1R", "2O", "3Y", "**"]), min_size=1, max_size=12),
    dr=st.integers(-5, 5),
    dc=st.integers(-5, 5),
)
def test_any_translation_of_the_truth_is_exact(cells, dr, dc):
    moved = {(r + dr, c + dc): t for (r, c), t in cells.items()}
    assert score("x", moved, cells, 0.0).exact


def test_truth_files(tmp_path):
    (tmp_path / "a.jpg").write_bytes(b"")
    (tmp_path / "a.json").write_text(json.dumps({"image": "a.jpg", "tileset": "connect", "tiles": [{"row": 0, "col": 1, "tile": "4w"}]}))
    (tmp_path / "b.jpg").write_bytes(b"")  # no truth: left out
    (tmp_path / "c.json").write_text("{}")  # no photo: left out
    assert photo_pairs(str(tmp_path)) == [(str(tmp_path / "a.jpg"), str(tmp_path / "a.json"))]
    assert load_truth(str(tmp_path / "a.json")) == ({(0, 1): "4W"}, "connect", "")
    with pytest.raises(ValueError, match="not a truth file"):
        load_truth(str(tmp_path / "c.json"))
    with pytest.raises(ValueError, match="cannot list"):
        photo_pairs(str(tmp_path / "nowhere"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no photos"):
        photo_pairs(str(tmp_path / "empty"))
