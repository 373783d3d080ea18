"""Every table option of a game is written up in its rules page (docs/rules/), where its default is argued."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.games import get_game

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"quivit": "quivit.md", "scrabble-junior": "scrabble-junior.md"}


@pytest.mark.parametrize("game_id", PAGES)
def test_every_option_is_in_the_rules_page(game_id):
    text = (ROOT / "docs" / "rules" / PAGES[game_id]).read_text()
    missing = [key for key in get_game(game_id).default_options() if not re.search(rf"[`\"]{key}\b", text)]
    assert not missing, f"docs/rules/{PAGES[game_id]} does not say {missing}"
