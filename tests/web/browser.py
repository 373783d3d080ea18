"""What every real-browser test shares: the phone profile, the skip-or-fail rule for a
missing Chromium, screenshots, the QR reader, the host making a table of any game and the phone
steps of joining it, and the JSON API as a script calls it.

The `server` and `browser` fixtures built on these live in conftest.py.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts" / "browser"
PIN = "4321"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True,
         "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                       "Chrome/126.0 Mobile Safari/537.36"}
# The phones every browser test of the Pivit tile page runs on: a small Android (360 x 740 CSS px)
# and a common current one (390 x 844).
SCREENS = {360: {"width": 360, "height": 740}, 390: {"width": 390, "height": 844}}


def phone(width: int = 390) -> dict:
    """The browser context options of a phone `width` CSS px wide."""
    return {**PHONE, "viewport": SCREENS[width]}

pytestmark = pytest.mark.browser


def _need_browser():
    missing = None
    if not os.path.exists(CHROMIUM):
        missing = f"{CHROMIUM} is not installed (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError as exc:
            missing = f"playwright is not importable ({exc})"
    if missing:
        if os.environ.get("COMPANION_REQUIRE_BROWSER") == "1":
            pytest.fail(f"COMPANION_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)


class Shots:
    """Numbered full-page screenshots of one test, kept as artefacts under test-artifacts/."""

    def __init__(self, name, root=ARTIFACTS):
        self.dir = root / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.n = 0

    def __call__(self, page, label, dialog=None):
        """The whole page; with `dialog` (an id), the open dialog as seen, the part in view."""
        self.n += 1
        path = str(self.dir / f"{self.n:02d}-{label}.png")
        if dialog:
            page.locator(f"#{dialog}").screenshot(path=path)
        else:
            page.screenshot(path=path, full_page=True)


def decode_qr(png: bytes) -> str:
    """The text of the QR code in a screenshot, as a phone's camera reads it.

    A screenshot of the code alone can be small and tight at its edges, so it gets a white
    quiet zone and is tried at a few scales; a phone would simply move closer.
    """
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    image = cv2.copyMakeBorder(image, 16, 16, 16, 16, cv2.BORDER_CONSTANT, value=255)
    # The code drawn at a fractional module size has grey, uneven modules, which a detector may
    # miss at one scale and read at another: a few scales, as drawn and thresholded, and both of
    # OpenCV's detectors (2 of 1,000 random table addresses drawn at 168 pixels missed with the
    # first alone, none now; the CI rehearsal met one).
    _, sharp = cv2.threshold(image, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    detectors = [cv2.QRCodeDetector()]
    if hasattr(cv2, "QRCodeDetectorAruco"):
        detectors.append(cv2.QRCodeDetectorAruco())
    for detector in detectors:
        for picture in (image, sharp):
            for scale in (2, 3, 4, 1, 5):
                scaled = cv2.resize(picture, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
                text, _, _ = detector.detectAndDecode(scaled)
                if text:
                    return text
    raise AssertionError("the QR code could not be read")


def call_api(server, path, body=None):
    """The real server's JSON API, as a host's tablet or a scorekeeper's script calls it: GET, or
    POST with `body`; the table PIN goes along."""
    request = urllib.request.Request(server + path, method="POST" if body is not None else "GET",
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


DESK = {"viewport": {"width": 1024, "height": 900}}


def create_table(browser, server, players, shots=None, game="pivit-tiles", host=DESK, **options):
    """The host makes a table of `game` on the home page's form (on a screen like `host`, browser
    context options), with `options` typed into the form's fields; returns the address in the QR code
    of the table page."""
    from playwright.sync_api import expect

    context = browser.new_context(**host)
    page = context.new_page()
    page.goto(server + "/")
    if game == "pivit-tiles":
        expect(page.get_by_label("Game")).to_have_value("pivit-tiles")  # the home page's first game
    else:
        page.get_by_label("Game").select_option(game)
    while page.locator("#player-list input").count() < len(players):
        page.get_by_role("button", name="Add a player").click()
    for i, name in enumerate(players):
        page.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    page.locator("fieldset.options:not([hidden]) details.advanced > summary").click()  # "More options"
    for key, value in options.items():
        field = page.locator(f"#opt-{game}-{key}")
        if isinstance(value, bool):  # switches are tick boxes
            field.set_checked(value)
        elif field.evaluate("e => e.tagName") == "SELECT":  # options with fixed values are menus
            field.select_option(str(value))
        else:
            field.fill(str(value))
    page.get_by_label("Table PIN").fill(PIN)
    page.get_by_role("button", name="Create the table").click()
    page.wait_for_url(re.compile(r"/tables/\w+$"))
    # The host's screen shows the PIN to tell the players.
    expect(page.locator("#host-pin-value")).to_have_text(PIN)
    page.locator("#invite summary").click()
    address = page.locator("#table-address").inner_text()
    scanned = decode_qr(page.locator("#table-qr svg").screenshot())
    assert scanned == address == page.url
    if shots:
        shots(page, "host")
    context.close()
    return scanned


def open_phone(browser, url, width=390):
    """A phone `width` CSS px wide opens the table's address and is live; `page.errors` collects script errors."""
    from playwright.sync_api import expect

    context = browser.new_context(**phone(width))
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(url)
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    return page


def unlock(page, me):
    """The phone says who it is and unlocks with the PIN."""
    from playwright.sync_api import expect

    page.locator("#me-select").select_option(label=me)
    page.locator("#pin-input").fill(PIN)
    page.get_by_role("button", name="Unlock").click()
    expect(page.locator("#pin-status")).to_have_text("Unlocked: this phone can tap.")


def join(browser, url, me, shots, width=390):
    """A phone `width` CSS px wide scans the code, says who it is and unlocks with the PIN."""
    page = open_phone(browser, url, width)
    unlock(page, me)
    shots(page, f"joined-{me}")
    return page


def tap(page, name):
    page.get_by_role("button", name=name, exact=True).click()


def tap_for(page, name):
    """This phone is someone else's: choose, on purpose, to tap for `name` (their card's buttons open)."""
    page.get_by_role("button", name=f"Tap for {name} on this phone", exact=True).click()


def no_sideways_scroll(page, dialog=None):
    """Nothing on the page (or in the open dialog) is wider than the screen: no sideways scrolling."""
    widths = page.evaluate("""(id) => {
        const d = document.documentElement, box = id && document.getElementById(id);
        const r = box && box.getBoundingClientRect();
        return { page: d.scrollWidth, screen: window.innerWidth,
                 dialog: box ? [box.scrollWidth, box.clientWidth, r.left, r.right] : null };
    }""", dialog)
    assert widths["page"] <= widths["screen"], f"the page is {widths['page']} px wide on a {widths['screen']} px screen"
    if dialog:
        scroll, client, left, right = widths["dialog"]
        assert scroll <= client, f"#{dialog} scrolls sideways: {scroll} px of content in {client} px"
        assert left >= 0 and right <= widths["screen"], f"#{dialog} does not fit the screen: {left}-{right} px"


def card(page, player):
    return page.locator(f'li.player[data-player="{player}"]')


@contextmanager
def serve_process(data: Path, *extra_args: str):
    """A real `companion serve` on a free loopback port, data in `data`; yields its base URL.

    On leaving it is stopped with SIGTERM, as a user's Ctrl+C or systemd would, and must exit
    with status 0 and no traceback in its output.
    """
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_CONFIG_HOME": str(data / "config")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data),
         *extra_args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    port = None
    lines: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"Listening on 127\.0\.0\.1:(\d+)", line)
        if match:
            port = int(match.group(1))
            break
    if port is None:
        proc.kill()
        pytest.fail(f"companion serve {' '.join(extra_args)} did not start:\n" + "".join(lines))
    # Keep reading its output so a full pipe never blocks the server.
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    yield f"http://127.0.0.1:{port}"
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("companion serve did not stop on SIGTERM")
    reader.join(5)
    assert proc.returncode == 0, "".join(lines)
    assert "Traceback" not in "".join(lines), "".join(lines)
