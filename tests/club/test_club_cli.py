"""The club's command-line contracts: bad input is exit 2 with one line naming it; [club] in config.toml."""
from __future__ import annotations

import pytest

from companion.cli import main
from companion.config import parse_config
from companion.errors import InputError


@pytest.mark.parametrize("argv, words", [
    (["club", "serve", "--database", "ftp://club"], "--database ftp://"),
    (["club", "serve", "--port", "70000"], "--port 70000"),
    (["serve", "--club-code", "K7M2QX9A"], "--club-code needs --club"),
    (["serve", "--club", "club-pi:8090"], "--club club-pi:8090"),
])
def test_bad_club_options_are_one_line_and_exit_2(argv, words, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    if argv[0] == "serve":
        argv = argv + ["--data-dir", str(tmp_path / "data"), "--port", "0", "--host", "127.0.0.1"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_an_unreachable_postgresql_is_one_line(capsys):
    assert main(["club", "serve", "--database", "postgresql://nobody:secret@127.0.0.1:1/club"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot open the club database" in err and len(err.splitlines()) == 1
    assert "secret" not in err  # never the password


def test_the_club_section_of_the_config():
    config = parse_config({"club": {"url": "http://club:8090/", "code": "K7M2QX9A", "name": "Table 3"}})
    assert (config.club.url, config.club.code, config.club.name) == ("http://club:8090/", "K7M2QX9A", "Table 3")
    with pytest.raises(InputError, match=r"\[club\] url"):
        parse_config({"club": {"url": "club:8090"}})
    with pytest.raises(InputError, match="unknown key 'pin' in \\[club\\]"):
        parse_config({"club": {"pin": "1"}})
