"""The new-table form in the players' words: every option of every game has a label and a one-line
explanation, its menu choices are said plainly, and the options come grouped as common and advanced."""
from __future__ import annotations

import html as markup
import re

import pytest

from companion.games import available_games, get_game
from web.option_words import WORDS, form_options


@pytest.mark.parametrize("game_id", available_games())
def test_every_option_has_words(game_id):
    game = get_game(game_id)
    options = game.default_options()
    assert set(WORDS[game_id]) == set(options), "options without words, or words for options that went away"
    for key, words in WORDS[game_id].items():
        assert words.label and words.help and words.help.endswith(".") and "\n" not in words.help, key
        assert len(words.help) <= 110, (key, "one line on a phone is about this long")
    for key, values in getattr(game, "option_choices", lambda: {})().items():
        assert set(values) <= set(WORDS[game_id][key].choices), (key, "a menu choice without words")
    groups = form_options(game_id, options, getattr(game, "option_choices", lambda: {})())
    assert groups["common"], "a game shows at least one common option"
    assert sorted(f["key"] for g in groups.values() for f in g) == sorted(options)


def test_the_pivit_form_says_what_each_option_does(client):
    html = client.get("/").get_data(as_text=True)
    form = html[html.index('data-game="pivit-tiles"'):]
    form = form[:form.index("</fieldset>")]
    common, advanced = markup.unescape(form).split('<details class="advanced">')
    assert "Younger players" in common and "Rows and columns of two count" in common
    assert "\u201cI'm stuck\u201d hints" in common and "Automatic: on for younger players" in common
    assert "Points to win" in common
    for label in ("Race timer (seconds)", "Trade tokens each", "Tiles per grid", "Scoring sticks",
                  "A tie at the winning score", "Share the win", "Play another round", "Classic (with purple)"):
        assert label in advanced, label
    # Every field is described to screen readers by its explanation.
    for field_id in re.findall(r'id="(opt-pivit-tiles-\w+)"', form):
        assert f'aria-describedby="{field_id}-help"' in form and f'id="{field_id}-help"' in form
    # The values sent stay the engine's own.
    assert '<option value="play-on"' in advanced and '<option value="auto" selected>' in common
