"""The "I'm stuck" panel in a real browser: a player enters their tiles on the 6 x 6 picker,
sees an arrangement or the trade advice, and trades from the advice; the other phone sees the
trade live."""
from __future__ import annotations

import pytest

from .browser import Shots, create_table, join, tap

pytestmark = pytest.mark.browser


def pick(page, tiles):
    for tile in tiles:
        page.locator(f'#pvh-picker button[data-tile="{tile}"]').click()


def test_no_hint_button_where_hints_are_off(browser, server):
    from playwright.sync_api import expect

    url = create_table(browser, server, ["Ann", "Bob"], Shots("hints-off"), tiles=3)
    ann = join(browser, url, "Ann", Shots("hints-off"))
    tap(ann, "Go: start round 1")
    expect(ann.get_by_role("button", name="Ann: done")).to_be_visible()
    expect(ann.get_by_role("button", name="Ann: I'm stuck, show me a hint")).to_have_count(0)
    assert ann.errors == []


def test_stuck_player_gets_an_arrangement_then_trade_advice_and_trades(browser, server):
    """A three-tile hand keeps the tapping short; the rules are the same as for 24."""
    from playwright.sync_api import expect

    shots = Shots("hints")
    url = create_table(browser, server, ["Ann", "Bob"], shots, tiles=3, tokens=1, hints="on")
    ann = join(browser, url, "Ann", shots)
    bob = join(browser, url, "Bob", shots)
    tap(ann, "Go: start round 1")
    # Only Ann's own phone offers Ann the hint.
    expect(bob.get_by_role("button", name="Ann: I'm stuck, show me a hint")).to_have_count(0)
    ann.get_by_role("button", name="Ann: I'm stuck, show me a hint").click()
    pick(ann, ["1R", "2R", "3R"])
    expect(ann.locator("#pvh-total")).to_have_text("3 tiles entered")
    tap(ann, "Show me")
    expect(ann.locator("#pvh-result .verdict")).to_contain_text("can be arranged")
    expect(ann.locator("#pvh-result table td.tile")).to_have_count(3)
    shots(ann, "arrangement")

    # A hand that cannot be arranged: 3R shares nothing with the others.
    tap(ann, "Clear")
    pick(ann, ["1R", "2R", "3G"])
    tap(ann, "Show me")
    expect(ann.locator("#pvh-result .verdict")).to_contain_text("No arrangement of these tiles exists")
    advice = ann.locator("#pvh-result ol.advice li")
    expect(advice.first).to_contain_text("% now")
    shots(ann, "advice")
    advice.first.get_by_role("button").click()
    expect(ann.locator("#pvh-result")).to_contain_text("Traded: put")
    expect(ann.locator("#pvh-total")).to_have_text("2 tiles entered (a hand holds 3)")
    # The trade is an ordinary action: Bob's phone sees Ann's token gone.
    expect(bob.locator('li.player[data-player="0"]')).to_contain_text("Trade tokens: 0 of 1")
    shots(bob, "after-trade")
    assert ann.errors == [] and bob.errors == []
