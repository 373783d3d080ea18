"""Every command that reads a user's text file refuses one far too large before reading it (issue 15).

A 54 MB grid file once took 3 GB of memory before the command was killed.
The files here are sparse: huge on disk in name only, so the test costs nothing.
"""
from __future__ import annotations

import pytest

from companion.cli import main

HUGE = 54 * 1024 * 1024


@pytest.fixture
def huge(tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.truncate(HUGE)  # 54 MB of NUL bytes, none of them written
    return path


@pytest.mark.parametrize("command", [
    ["pivit", "check"], ["pivit", "solve"], ["pivit", "advise"],
])
def test_a_huge_grid_or_hand_file_is_refused_at_once(command, huge, capsys):
    code = main([*command, str(huge)])
    out, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(huge) in lines[0] and "too large" in lines[0], err


def test_a_huge_config_file_is_refused(huge, tmp_path, capsys):
    code = main(["serve", "--config", str(huge), "--data-dir", str(tmp_path / "d"), "--port", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(huge) in err and "too large" in err
