"""The Pivit tile table page for the moment of play, on phones 360 and 390 CSS px wide (Chromium,
a real `companion serve`):

- the order: a locked phone joins first; then the countdown (a small line at rest, large while it
  runs), the game with this phone's own buttons first and large, Undo; "Invite phones" right under
  the game until the first move; the devices folded away; no sideways scrolling;
- this phone is a player: another player's buttons need an explicit "Tap for Bob";
- the race's edges: cancelling the one-minute race asks first and Undo takes the cancel back;
  taking back the verify that ended the race gives back the time that was left;
- a restart of the service: the phone reconnects by itself and the stale "cannot be reached" goes.
"""
from __future__ import annotations

import socket

import pytest

from .browser import (Shots, card, create_table, join, no_sideways_scroll, open_phone, serve_process, tap, tap_for,
                      unlock)

pytestmark = pytest.mark.browser


def box(locator):
    """The element's box. The live page redraws its buttons as events arrive, so an element found a moment
    ago may be replaced just before it is measured (Playwright then answers None): ask again."""
    for _ in range(50):
        found = locator.bounding_box()
        if found is not None:
            return found
        locator.page.wait_for_timeout(100)
    raise AssertionError(f"{locator} never had a box")


def top(page, selector):
    return box(page.locator(selector))["y"]


def remaining_ms(page):
    return page.evaluate("window.companionTable.remainingMs()")


def test_the_game_comes_first_and_this_phone_is_a_player(browser, server, width):
    from playwright.sync_api import expect

    shots = Shots(f"table-page-{width}")
    url = create_table(browser, server, ["Ann", "Bob", "Cy"], shots, timer_seconds=30, target=30)

    # A phone that has not joined yet: joining comes first.
    ann = open_phone(browser, url, width)
    assert top(ann, "#me-card") < top(ann, "#timer-panel") < top(ann, "#game")
    no_sideways_scroll(ann)
    shots(ann, "locked")
    unlock(ann, "Ann")

    # Joined: the game first. The timer is a small line at rest, the devices are folded away, and
    # until the first move "Invite phones" sits right under the game.
    expect(ann.locator("#timer-panel")).to_have_attribute("data-size", "small")
    expect(ann.locator("#devices")).not_to_have_attribute("open", "")
    expect(ann.locator("#device-status")).to_be_hidden()
    expect(ann.locator("#invite")).to_have_attribute("data-prominent", "1")
    assert top(ann, "#timer-panel") < top(ann, "#pv-table-actions") < top(ann, "#invite") < top(ann, "#controls") \
        < top(ann, "#me-card") < top(ann, "#devices") < top(ann, "#scores")
    go = ann.get_by_role("button", name="Go: start round 1")
    assert box(go)["y"] + box(go)["height"] <= ann.viewport_size["height"]  # no scrolling to start
    expect(ann.locator("li.player").first).to_have_attribute("data-player", "0")  # Ann's own card first
    no_sideways_scroll(ann)
    shots(ann, "ready")
    go.click()

    # Ann's own buttons are large; Bob's and Cy's Trade and Done need a deliberate choice.
    done = ann.get_by_role("button", name="Ann: done", exact=True)
    expect(done).to_be_visible()
    assert box(done)["height"] >= 56
    assert top(ann, "#controls") < top(ann, "#me-card") < top(ann, "#invite")
    expect(ann.locator("#invite")).to_have_attribute("data-prominent", "0")
    expect(ann.get_by_role("button", name="Bob: done", exact=True)).to_have_count(0)
    expect(ann.get_by_role("button", name="Bob: trade a tile", exact=True)).to_have_count(0)
    shots(ann, "playing")
    done.click()
    tap_for(ann, "Cy")
    expect(ann.get_by_role("button", name="Cy: trade a tile", exact=True)).to_be_visible()
    ann.get_by_role("button", name="Stop tapping for Cy").click()  # changed her mind
    expect(ann.get_by_role("button", name="Cy: trade a tile", exact=True)).to_have_count(0)
    tap_for(ann, "Bob")
    expect(ann.get_by_role("button", name="Cy: done", exact=True)).to_have_count(0)  # the choice is for Bob only
    tap(ann, "Bob: done")
    expect(ann.locator("#undo-hint")).to_have_text("Undo takes back: Ann said done for Bob.")

    # Ann's grid is correct, Bob's is not: Bob and Cy race for the 2 stick, the countdown large.
    tap(ann, "Ann's grid is correct")
    tap(ann, "Bob's grid is not correct")
    expect(ann.locator("#pv-phase")).to_contain_text("one-minute race")
    expect(ann.locator("#timer-status")).to_have_text("Timer running")
    expect(ann.locator("#timer-panel")).to_have_attribute("data-size", "large")
    shots(ann, "race")

    # Cancelling the race's minute asks first, and "Keep it running" keeps it.
    tap(ann, "Cancel timer")
    expect(ann.locator("#timer-cancel-question")).to_have_text(
        "Cancel the one-minute race? Play goes on without a time limit; Undo brings it back.")
    no_sideways_scroll(ann)
    shots(ann, "cancel-asked")
    tap(ann, "Keep it running")
    expect(ann.locator("#timer-cancel-ask")).to_be_hidden()
    expect(ann.locator("#timer-status")).to_have_text("Timer running")
    # Cancelled for real, it is the last thing Undo takes back; the minute comes back with what it had left.
    left_before = remaining_ms(ann)
    tap(ann, "Cancel timer")
    tap(ann, "Yes, cancel it")
    expect(ann.locator("#timer-status")).to_have_text("Timer not set")
    expect(ann.locator("#pv-phase")).to_contain_text("one-minute race")  # the race goes on, untimed
    expect(ann.locator("#undo-hint")).to_have_text("Undo takes back: The one-minute timer was cancelled.")
    ann.get_by_role("button", name="Undo: The one-minute timer was cancelled").click()
    expect(ann.locator("#timer-status")).to_have_text("Timer running")
    assert 0 < remaining_ms(ann) <= left_before
    expect(ann.locator("#undo-hint")).to_have_text("Undo takes back: Ann marked Bob's grid wrong.")

    # The race minute, paused at some second, then Cy claims the stick: the round is scored. Undo of
    # that verify gives the race back with its minute where it was, not a fresh one.
    tap(ann, "Pause timer")
    expect(ann.locator("#timer-status")).to_have_text("Timer paused")
    paused_at = ann.locator("#countdown").inner_text()
    tap_for(ann, "Cy")
    tap(ann, "Cy: done")
    tap(ann, "Cy's grid is correct")
    expect(ann.locator("#pv-phase")).to_contain_text("Round 1 is scored")
    expect(ann.locator("#timer-status")).to_have_text("Timer not set")
    expect(card(ann, 2).locator(".points")).to_have_text("4")  # the 2 stick and 2 tokens
    ann.get_by_role("button", name="Undo: Ann marked Cy's grid correct").click()
    expect(ann.locator("#pv-phase")).to_contain_text("one-minute race")
    expect(ann.locator("#timer-status")).to_have_text("Timer paused")
    expect(ann.locator("#countdown")).to_have_text(paused_at)
    shots(ann, "race-undone")
    no_sideways_scroll(ann)
    assert ann.errors == []
    ann.context.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_after_a_restart_the_phone_reconnects_and_the_stale_error_goes(browser, tmp_path_factory, width):
    from playwright.sync_api import expect

    from .browser import _need_browser

    _need_browser()
    shots = Shots(f"reconnect-{width}")
    data = tmp_path_factory.mktemp("restart")
    port = free_port()
    with serve_process(data, "--port", str(port)) as server:
        url = create_table(browser, server, ["Ann", "Bob"], shots)
        ann = join(browser, url, "Ann", shots, width)
    # The service is down (a restart, a power cut): the phone says so, and a tap cannot get through.
    expect(ann.locator("#connection")).not_to_have_attribute("data-state", "live")
    tap(ann, "Go: start round 1")
    expect(ann.locator("#action-error")).to_have_text("the companion cannot be reached: check the Wi-Fi")
    shots(ann, "unreachable")
    with serve_process(data, "--port", str(port)):
        # Back: the phone reconnects by itself, and the error that is no longer true goes with it.
        expect(ann.locator("#connection")).to_have_attribute("data-state", "live", timeout=15000)
        expect(ann.locator("#action-error")).to_have_text("")
        shots(ann, "reconnected")
        tap(ann, "Go: start round 1")
        expect(ann.locator("#pv-phase")).to_contain_text("Round 1: build your grid!")
        ann.context.close()
    assert ann.errors == []
