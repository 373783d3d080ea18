"""`companion pivit check` as a user runs it: output, JSON contract and exit codes."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.cli import main

FULL = "\n".join(" ".join(f"{d}{c}" for d in "123456") for c in "RGBY") + "\n"
BROKEN = FULL.replace("3G", "3B", 1)  # row 1 gets a blue tile, column 2 a repeated colour


@pytest.fixture
def grids(tmp_path):
    (tmp_path / "good.txt").write_text(FULL)
    (tmp_path / "bad.txt").write_text(BROKEN)
    return tmp_path


def run(capsys, *args, stdin=None, monkeypatch=None):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_grid_exit_0(grids, capsys):
    code, out, err = run(capsys, "pivit", "check", str(grids / "good.txt"))
    assert code == 0
    assert "valid (24 tiles)" in out
    assert err == ""


def test_invalid_grid_report_marks_faulty_cells(grids, capsys):
    code, out, _ = run(capsys, "pivit", "check", str(grids / "bad.txt"))
    assert code == 1
    assert "NOT valid, 2 faults" in out
    assert "[3B]" in out and "[1G]" in out
    assert "- mixed-line: Row 1, columns 0-5" in out


def test_json_one_object_per_file(grids, capsys):
    code, out, _ = run(capsys, "pivit", "check", "--json", str(grids / "good.txt"), str(grids / "bad.txt"))
    assert code == 1
    first, second = (json.loads(line) for line in out.splitlines())
    assert first == {"file": str(grids / "good.txt"), "valid": True, "tiles": 24, "violations": []}
    assert second["valid"] is False and second["tiles"] == 24
    assert {v["rule"] for v in second["violations"]} == {"mixed-line", "duplicate"}
    assert all(set(v) == {"rule", "cells", "message"} for v in second["violations"])
    assert [1, 2] in second["violations"][0]["cells"] or [1, 2] in second["violations"][1]["cells"]


def test_tiles_and_young_flags(tmp_path, capsys):
    (tmp_path / "pair.txt").write_text("1R 2R\n")
    code, out, _ = run(capsys, "pivit", "check", "--json", "--tiles", "0", str(tmp_path / "pair.txt"))
    assert code == 1 and json.loads(out)["violations"][0]["rule"] == "short-line"
    code, out, _ = run(capsys, "pivit", "check", "--json", "--tiles", "2", "--young", str(tmp_path / "pair.txt"))
    assert code == 0 and json.loads(out)["valid"] is True


def test_connect_tileset(tmp_path, capsys):
    (tmp_path / "w.txt").write_text("1W 2W 3W\n")
    code, _, err = run(capsys, "pivit", "check", "--tiles", "3", str(tmp_path / "w.txt"))
    assert code == 2 and "white is not in the classic tile set" in err
    code, _, _ = run(capsys, "pivit", "check", "--tiles", "3", "--tileset", "connect", str(tmp_path / "w.txt"))
    assert code == 0


@pytest.mark.parametrize(
    "content, message",
    [
        (b"1R 2R\n1R 9Z\n", "bad.txt:2:4: '9Z' is not a tile"),
        (b"1R 2R\n\xff\xfe\n", "bad.txt:2:1: not UTF-8 text"),
        (b"1R 1P 1X", "bad.txt:1:7: '1X' is not a tile"),
    ],
)
def test_unreadable_input_exit_2_one_line(tmp_path, capsys, content, message):
    (tmp_path / "bad.txt").write_bytes(content)
    code, out, err = run(capsys, "pivit", "check", str(tmp_path / "bad.txt"))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err


def test_missing_file_does_not_stop_the_others(grids, capsys):
    code, out, err = run(capsys, "pivit", "check", "--json", str(grids / "nope.txt"), str(grids / "good.txt"))
    assert code == 2
    assert "nope.txt: no such file" in err
    assert json.loads(out)["valid"] is True


def test_bad_flag_values_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["pivit", "check", "--tiles", "-3", "x"])
    assert exc.value.code == 2


def test_installed_command_reads_stdin():
    """The real entry point, as a shell user runs it, including `-` for standard input."""
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "pivit", "check", "--json", "-"],
        input=FULL, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["file"] == "<stdin>"
    proc = subprocess.run([sys.executable, "-m", "companion", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "pivit" in proc.stdout
