"""`companion vision evalset` writes a condition's photos and truth; `vision eval` reports by condition."""
from __future__ import annotations

import json

import pytest
from PIL import Image

from companion.cli import main


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_evalset_then_eval_by_condition(capsys, tmp_path):
    folder = tmp_path / "sets"
    status, out, err = _run(capsys, "vision", "evalset", "--conditions", "turned,packed", "--count", "2", "--seed", "5",
                            "--size", "640x480", str(folder))
    assert status == 0, err
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"{c}-{s:04d}.{ext}" for c in ("packed", "turned") for s in (5, 6) for ext in ("jpg", "json")]
    truth = json.loads((folder / "turned-0005.json").read_text())
    assert truth["image"] == "turned-0005.jpg" and truth["condition"] == "turned"
    assert truth["tileset"] in ("classic", "connect") and truth["tiles"]
    assert {"row", "col", "tile"} == set(truth["tiles"][0])
    with Image.open(folder / "turned-0005.jpg") as image:  # a phone's JPEG: an EXIF orientation tag
        assert image.getexif().get(0x0112) == truth["scene"]["orientation"]

    status, out, err = _run(capsys, "vision", "eval", str(folder))
    assert status == 0, err
    lines = out.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("condition"))
    rows = {line.split()[0]: line.split() for line in lines[header + 1 : header + 4]}
    assert set(rows) == {"packed", "turned", "all"}
    assert rows["all"][1] == "4"  # photos
    assert lines[-1].startswith("all: per-tile accuracy")

    status, out, err = _run(capsys, "vision", "eval", "--json", str(folder))
    docs = [json.loads(line) for line in out.splitlines()]
    photos, groups, total = docs[:4], docs[4:6], docs[6]
    assert {d["condition"] for d in photos} == {"packed", "turned"}
    assert [g["condition"] for g in groups] == ["packed", "turned"] and all(g["photos"] == 2 for g in groups)
    assert total["photos"] == 4 and total["tiles"] == sum(g["tiles"] for g in groups)
    assert set(total) == {"photos", "tiles", "tile_accuracy", "exact_rate", "confidently_wrong", "unsure", "missing", "refused", "ms_per_photo"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--conditions", "foggy"], "no condition 'foggy'"),
        (["--size", "big"], "WIDTHxHEIGHT"),
        (["--size", "100x100"], "200 to 8000"),
        (["--count", "0"], "1 to 10000"),
    ],
)
def test_evalset_bad_options(capsys, tmp_path, argv, message):
    status, out, err = _run(capsys, "vision", "evalset", *argv, str(tmp_path / "x"))
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
