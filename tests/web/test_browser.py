"""Real phones, as far as a test can have them: Playwright driving Debian's Chromium at a phone
viewport (360 and 390 CSS px wide) against a real `companion serve`. Phones join through the
address in the QR code the host's page shows (decoded from a screenshot), play whole Pivit tile
games, and each sees the others' taps live. Screenshots are kept in test-artifacts/browser/.

Skipped with a reason where Chromium is absent, unless COMPANION_REQUIRE_BROWSER=1 (CI), where
a missing browser fails instead.
"""
from __future__ import annotations

import re
import time

import pytest

from . import browser as support
from .browser import Shots, card, create_table, join, no_sideways_scroll, tap, tap_for

pytestmark = pytest.mark.browser


def test_two_phones_play_a_whole_two_player_game(browser, server, width):
    from playwright.sync_api import expect

    shots = Shots(f"two-players-{width}")
    url = create_table(browser, server, ["Ann", "Bob"], shots, timer_seconds=2)
    ann = join(browser, url, "Ann", shots, width)
    bob = join(browser, url, "Bob", shots, width)

    # Round 1, played in full with the 2-second timer running out.
    tap(ann, "Go: start round 1")
    for page in (ann, bob):
        expect(page.locator("#pv-phase")).to_contain_text("Round 1: build your grid!")
    tap(bob, "Bob: trade a tile")
    expect(card(ann, 1).locator(".tokens")).to_contain_text("Trade tokens: 1 of 2")  # Bob's tap, on Ann's phone
    tap(ann, "Ann: trade a tile")
    expect(card(bob, 0).locator(".tokens")).to_contain_text("Trade tokens: 1 of 2")  # and the other way
    # Ann traded by mistake: undo from Bob's phone, everyone sees it. The undo line says it in words.
    expect(bob.locator("#undo-hint")).to_have_text("Undo takes back: Ann traded a tile.")
    bob.get_by_role("button", name="Undo: Ann traded a tile").click()
    expect(card(ann, 0).locator(".tokens")).to_contain_text("Trade tokens: 2 of 2")
    shots(ann, "after-undo-ann")
    tap(ann, "Ann: done")
    expect(bob.locator(".verify-ask")).to_have_text("Check Ann's grid:")
    shots(bob, "verify-bob")
    tap(bob, "Ann's grid is correct")
    expect(ann.locator("#undo-hint")).to_have_text("Undo takes back: Bob marked Ann's grid correct.")
    for page in (ann, bob):
        expect(page.locator("#timer-status")).to_have_text("Timer running")
        expect(page.locator("#timer-panel")).to_have_attribute("data-size", "large")
    # Every phone shows the same time left, from the server's deadline and its own clock offset.
    before = time.monotonic()
    left = [page.evaluate("window.companionTable.remainingMs()") for page in (ann, bob)]
    spread_ms = (time.monotonic() - before) * 1000
    assert 0 < left[0] <= 2000 and abs(left[0] - left[1]) <= spread_ms + 100
    shots(ann, "last-minute-ann")
    for page in (ann, bob):
        expect(page.locator("#timer-status")).to_have_text("Time's up!", timeout=6000)
        expect(page.locator("#countdown")).to_have_text("0:00")
        expect(page.locator("#sim-buzzer")).to_have_attribute("data-on", "1")
        assert page.evaluate("window.companionTable.alarms") == 1
    shots(bob, "times-up-bob")
    for page in (ann, bob):
        expect(card(page, 0).locator(".points")).to_have_text("6")  # 4 for finishing + 2 tokens
        expect(card(page, 1).locator(".points")).to_have_text("1")  # out of time, 1 token left
        expect(page.locator("#pv-phase")).to_contain_text("Round 1 is scored")
    # The round is scored: once heard, "Time's up!" gives way to the score, the timer a small line again.
    for page in (ann, bob):
        expect(page.locator("#timer-status")).to_have_text("Timer not set", timeout=8000)
        expect(page.locator("#timer-panel")).to_have_attribute("data-size", "small")
    shots(ann, "scored-ann")

    # Rounds 2 to 4: Bob finishes within the minute each time; Ann reaches 20 first.
    for round_no in (2, 3, 4):
        tap(bob, "Next round")
        tap(bob, f"Go: start round {round_no}")
        tap(ann, "Ann: done")
        tap(bob, "Ann's grid is correct")
        expect(bob.locator("#timer-status")).to_have_text("Timer running")
        tap(bob, "Bob: done")
        tap(ann, "Bob's grid is correct")
        expect(bob.locator("#timer-status")).to_have_text("Timer not set")
    for page in (ann, bob):
        expect(page.locator("#pv-winner")).to_have_text("Ann wins the game!")
        expect(card(page, 0).locator(".points")).to_have_text("24")
        expect(card(page, 1).locator(".points")).to_have_text("13")
        assert page.locator("#table-page").get_attribute("data-finished") == "1"
    shots(ann, "game-over-ann")
    shots(bob, "game-over-bob")
    assert ann.errors == [] and bob.errors == []
    # The finished game is in the history, with its date and time, its chart and its story.
    ann.goto(server + "/history")
    expect(ann.locator("table.stats").first).to_contain_text("Ann")
    expect(ann.locator(".finished > li").first.locator(".when")).to_contain_text(re.compile(r"\d{4}, \d\d:\d\d"))
    expect(ann.locator("img.chart").first).to_be_visible()
    ann.locator(".story > summary").first.click()
    expect(ann.locator(".story").first).to_contain_text("Bob marked Ann's grid correct")
    no_sideways_scroll(ann)  # the statistics fold into one card per player
    shots(ann, "history")
    ann.context.close()
    bob.context.close()


@pytest.mark.parametrize("players", [3, 4])
def test_phones_play_a_whole_three_and_four_player_game(browser, server, players, width):
    """A short game (target 6) to the end: sticks, an incorrect grid, the race and the timer. One
    phone taps for the others only after choosing to, on their card."""
    from playwright.sync_api import expect

    names = ["Ann", "Bob", "Cy", "Di"][:players]
    shots = Shots(f"{players}-players-{width}")
    # The race is won by taps, not by the clock: give it time enough on a loaded machine.
    url = create_table(browser, server, names, shots, timer_seconds=20, target=6)
    first = join(browser, url, names[0], shots, width)
    second = join(browser, url, names[-1], shots, width)
    tap(second, "Go: start round 1")
    expect(first.locator("#pv-centre")).to_have_text(
        "Sticks in the centre: 4, 2" if players == 3 else "Sticks in the centre: 4, 2, 1")
    # Hints are off at this table (the default, not the younger players' variation): no "I'm stuck".
    expect(first.get_by_role("button", name="Ann: done")).to_be_visible()
    expect(first.get_by_role("button", name="Ann: I'm stuck, show me a hint")).to_have_count(0)
    holders = names[:-1]
    tap(first, "Ann: done")
    for name in holders[1:]:
        # Ann's phone offers the others' Done only once Ann chooses to tap for them.
        expect(first.get_by_role("button", name=f"{name}: done", exact=True)).to_have_count(0)
        tap_for(first, name)
        tap(first, f"{name}: done")
    expect(second.locator("#pv-phase")).to_contain_text("Verify every stick holder's grid")
    expect(second.locator("#undo-hint")).to_contain_text(f"Ann said done for {holders[-1]}")
    for name in holders[:-1]:
        tap(second, f"{name}'s grid is correct")
    # The last stick holder's grid is wrong: they race the last player for the lowest stick.
    tap(second, f"{holders[-1]}'s grid is not correct")
    for page in (first, second):
        expect(page.locator("#pv-phase")).to_contain_text("one-minute race")
        expect(page.locator("#timer-status")).to_have_text("Timer running")
    shots(second, "race")
    tap(second, f"{names[-1]}: done")
    tap(first, f"{names[-1]}'s grid is correct")
    for page in (first, second):
        expect(page.locator("#pv-winner")).to_have_text("Ann wins the game!")
        expect(card(page, 0).locator(".points")).to_have_text("6")
        expect(card(page, players - 1).locator(".points")).to_have_text(str(2 + (1 if players == 4 else 2)))
    shots(first, "game-over")
    no_sideways_scroll(first)
    assert first.errors == [] and second.errors == []
    first.context.close()
    second.context.close()


def test_a_missing_browser_is_a_skip_unless_required(monkeypatch):
    monkeypatch.setattr(support, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.delenv("COMPANION_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="/nonexistent/chromium is not installed"):
        support._need_browser()
    monkeypatch.setenv("COMPANION_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="COMPANION_REQUIRE_BROWSER=1 but"):
        support._need_browser()
