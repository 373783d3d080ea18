"""The "I'm stuck" panel in a real browser: a player taps their tiles on the picker of pictured
tiles, sees an arrangement drawn as tiles (read back from the page and checked with the grid
check), or the trade advice, and trades from the advice; the other phone sees the trade live.

With two trade tokens left the chance within two trades comes later than the answer
(`"two_trades": "pending"` with a `poll` address): the panel shows the one-trade advice at once and
adds the two-trade figures when the address answers.
"""
from __future__ import annotations


import pytest

from companion.games.pivit_tiles.check import check_grid
from companion.games.pivit_tiles.tiles import tile_name

from .browser import Shots, create_table, join, no_sideways_scroll, tap

pytestmark = pytest.mark.browser

# The issue's own hand: every row that started with an empty cell used to be drawn one column off.
ROWS_OF_SIX = [d + c for c in "ROYG" for d in "123456"]


def pick(page, tiles):
    for tile in tiles:
        page.locator(f'#pvh-picker button[data-tile="{tile}"]').click()


def drawn_grid(page, where):
    """The arrangement as drawn, read back from the pictures' data-row, data-col and data-tile."""
    cells = page.locator(f"{where} svg[data-tile][data-row][data-col]").evaluate_all(
        "els => els.map(e => [Number(e.dataset.row), Number(e.dataset.col), e.dataset.tile, e.getAttribute('aria-label')])")
    for _, _, tile, label in cells:
        assert label == tile_name(tile)  # each tile is said in words: "green diamond"
    return {(r, c): tile for r, c, tile, _ in cells}


def test_stuck_player_sees_the_arrangement_drawn_as_tiles_then_trade_advice_and_trades(browser, server, width):
    from playwright.sync_api import expect

    shots = Shots(f"hints-{width}")
    url = create_table(browser, server, ["Ann", "Bob"], shots, hints="on")
    ann = join(browser, url, "Ann", shots, width)
    bob = join(browser, url, "Bob", shots, width)
    tap(ann, "Go: start round 1")
    # Only Ann's own phone offers Ann the hint.
    expect(bob.get_by_role("button", name="Ann: I'm stuck, show me a hint")).to_have_count(0)
    ann.get_by_role("button", name="Ann: I'm stuck, show me a hint").click()
    # The picker is 36 pictured tiles and the wild, each named in words, and it fits the phone.
    expect(ann.locator("#pvh-picker button.pick svg.tile-art")).to_have_count(36)
    expect(ann.locator('#pvh-picker button[data-tile="3G"]')).to_have_attribute(
        "aria-label", "green diamond: 0 in your hand. Tap to add one")
    expect(ann.locator('#pvh-wild svg[data-tile="**"]')).to_have_attribute("aria-label", "wild")
    pick(ann, ROWS_OF_SIX)
    expect(ann.locator("#pvh-total")).to_have_text("24 tiles entered")
    expect(ann.locator('#pvh-picker button[data-tile="4O"] .count')).to_have_text("×1")
    no_sideways_scroll(ann, "pvh-dialog")
    shots(ann, "picker", "pvh-dialog")
    tap(ann, "Show me")
    expect(ann.locator("#pvh-result .verdict")).to_contain_text("can be arranged")
    grid = drawn_grid(ann, "#pvh-result .tile-grid")
    assert sorted(grid.values()) == sorted(ROWS_OF_SIX)
    assert min(r for r, _ in grid) == 0 and min(c for _, c in grid) == 0
    result = check_grid(grid, "classic", young=False, tiles=24)
    assert result.valid, [v.message for v in result.violations]
    # Drawn where the data says: each tile's picture sits in its own row and column of the grid.
    boxes = ann.locator("#pvh-result .tile-grid svg[data-tile]").evaluate_all(
        "els => els.map(e => { const b = e.getBoundingClientRect(); return [Number(e.dataset.row), Number(e.dataset.col), b.x, b.y]; })")
    xs = {}
    for _, col, x, _ in boxes:
        xs.setdefault(col, set()).add(round(x))
    assert all(len(v) == 1 for v in xs.values()) and sorted(min(v) for v in xs.values()) == [min(xs[c]) for c in sorted(xs)]
    ann.locator("#pvh-result .tile-grid").scroll_into_view_if_needed()
    no_sideways_scroll(ann, "pvh-dialog")
    shots(ann, "arrangement", "pvh-dialog")

    # A hand that cannot be arranged: 3G shares nothing with the others. The answer comes at once
    # with the chance after one trade; the chance within two trades follows from its poll address.
    table_id = url.rstrip("/").rsplit("/", 1)[1]
    polls = []
    ann.on("request", lambda r: polls.append(r.headers.get("x-table-pin"))
           if f"/api/tables/{table_id}/hints/" in r.url and r.method == "GET" else None)
    tap(ann, "Clear")
    pick(ann, ["1R", "2R", "3G"])
    tap(ann, "Show me")
    expect(ann.locator("#pvh-result .verdict")).to_contain_text("No arrangement of these tiles exists")
    advice = ann.locator("#pvh-result ol.advice li")
    expect(advice.first).to_contain_text("% now")
    expect(advice.first.locator("svg.tile-art")).to_have_count(1)  # the tile to trade, pictured
    expect(ann.locator("#pvh-two-pending")).to_contain_text("Working out the chance within your two trades")
    shots(ann, "advice-one-trade", "pvh-dialog")
    expect(advice.first).to_contain_text("within two trades")  # added when the poll answers done
    expect(ann.locator("#pvh-two-pending")).to_have_count(0)
    assert polls and all(polls)  # the poll is the table's, with its PIN
    no_sideways_scroll(ann, "pvh-dialog")
    ann.locator("#pvh-result").scroll_into_view_if_needed()
    shots(ann, "advice", "pvh-dialog")
    advice.first.get_by_role("button").click()
    expect(ann.locator("#pvh-result")).to_contain_text("Traded: put the")
    expect(ann.locator("#pvh-total")).to_have_text("2 tiles entered (a hand holds 24)")
    # The trade is an ordinary action: Bob's phone sees Ann's token gone.
    expect(bob.locator('li.player[data-player="0"]')).to_contain_text("Trade tokens: 1 of 2")
    shots(bob, "after-trade")
    assert ann.errors == [] and bob.errors == []
    ann.context.close()
    bob.context.close()
