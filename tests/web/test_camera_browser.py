"""The camera check in a real browser: a phone photographs a finished grid (a synthetic render
uploaded through the page's file input), sees the verdict, the annotated picture and the grid as
read drawn as tiles, confirms the places the reader was unsure of or thinks may hold a missing
tile, corrects a misread tile with one tap on its picture, records the verdict, and the other
phone sees it live.

The reader's "missing" places, and the service's refusal (409) to record while unsure or missing
places are not settled, are the camera helper's to add; until the service says them itself the
test puts them in front of its real answers, as that contract says they will look.
"""
from __future__ import annotations

import json
import re

import pytest

from companion.games.pivit_tiles.tiles import tile_name

from .browser import Shots, create_table, join, no_sideways_scroll, tap

pytestmark = pytest.mark.browser

GOOD = {(r, c): d + col for r, col in enumerate("RGBY") for c, d in enumerate("123456")}


def photo_file(tmp_path, cells, name):
    import cv2

    from vision.synthetic import Scene, render

    image = render(cells, "classic", Scene(seed=11, rotation=8, size=(800, 600), tile_px=48)).image
    path = tmp_path / name
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


class Doubts:
    """The places the reader doubts, kept as the service will keep them: a correction of a place
    (the same tile, another, or none) settles it; recording the verdict before that is a 409."""

    def __init__(self, page, table_id, unsure, missing):
        self.open = {"unsure": [list(c) for c in unsure], "missing": [list(c) for c in missing]}
        self.refused = 0
        page.route(re.compile(rf".*/api/tables/{table_id}/camera-checks(\?.*|/[\w-]+(/corrections)?)$"), self.answer)
        page.route(re.compile(rf".*/api/tables/{table_id}/camera-checks/[\w-]+/verify$"), self.verify)

    def answer(self, route):
        if route.request.url.endswith("/corrections"):
            for cell in json.loads(route.request.post_data)["cells"]:
                for kind in self.open:
                    self.open[kind] = [c for c in self.open[kind] if c != [cell["row"], cell["col"]]]
        real = route.fetch()
        body = real.json()
        body["unsure"] = sorted(set(map(tuple, body.get("unsure", []))) | set(map(tuple, self.open["unsure"])))
        body["missing"] = self.open["missing"]
        route.fulfill(response=real, body=json.dumps(body))

    def verify(self, route):
        if self.open["unsure"] or self.open["missing"]:
            self.refused += 1
            route.fulfill(status=409, content_type="application/json",
                          body=json.dumps({"error": "look at the unsure and missing places first"}))
        else:
            route.continue_()


def test_check_with_camera_confirm_doubts_correct_a_tile_and_record(browser, server, tmp_path, width):
    from playwright.sync_api import expect

    shots = Shots(f"camera-{width}")
    url = create_table(browser, server, ["Ann", "Bob"], shots)
    table_id = url.rstrip("/").rsplit("/", 1)[1]
    ann = join(browser, url, "Ann", shots, width)
    bob = join(browser, url, "Bob", shots, width)
    tap(ann, "Go: start round 1")
    tap(ann, "Ann: done")

    # Bob checks Ann's grid. The photo shows a blue diamond in the green row; the reader is unsure
    # of the red circle in the corner and thinks a tile may be missing below the grid.
    doubts = Doubts(bob, table_id, unsure=[(0, 0)], missing=[(4, 0)])
    wrong = dict(GOOD)
    wrong[1, 2] = "3B"
    bob.get_by_role("button", name="Check Ann's grid with the camera").click()
    dialog = bob.locator("#pvc-dialog")
    expect(dialog).to_be_visible()
    bob.locator("#pvc-file").set_input_files(str(photo_file(tmp_path, wrong, "ann.jpg")))
    expect(bob.locator("#pvc-verdict")).to_contain_text("NOT correct so far", timeout=20000)
    expect(bob.locator("#pvc-faults li")).to_have_count(2)
    expect(bob.locator("#pvc-image")).to_have_attribute("src", re.compile(r"/camera-checks/[\w-]+/annotated\.png"))
    # The annotated picture really arrives (a PNG the browser can draw).
    bob.wait_for_function("() => { const i = document.getElementById('pvc-image');"
                          " return i.complete && i.naturalWidth > 0; }", timeout=20000)
    # The grid as read is drawn as tiles, each at its place and named in words.
    pictures = bob.locator("#pvc-grid svg[data-tile]")
    expect(pictures).to_have_count(24)
    read = pictures.evaluate_all(
        "els => els.map(e => [Number(e.dataset.row), Number(e.dataset.col), e.dataset.tile, e.getAttribute('aria-label')])")
    assert {(r, c): t for r, c, t, _ in read} == wrong
    assert all(label == tile_name(t) for _, _, t, label in read)
    # The doubtful places are marked with signs, not colour alone, and the verdict is not offered yet.
    # (The reader may doubt more tiles of this photo by itself: those are confirmed the same way.)
    corner = bob.locator('#pvc-grid button[data-row="0"][data-col="0"]')
    below = bob.locator('#pvc-grid button[data-row="4"][data-col="0"]')
    expect(corner.locator(".badge")).to_have_text("?")
    expect(corner).to_have_attribute("aria-label", re.compile(r"red circle, hard to read\. Tap to confirm or correct$"))
    expect(below.locator(".badge")).to_have_text("+?")
    expect(below).to_have_attribute("aria-label", re.compile(r"a tile may be missing here"))
    unsure = bob.locator("#pvc-grid button.unsure").evaluate_all(
        "els => els.map(e => [e.dataset.row, e.dataset.col, e.querySelector('svg').getAttribute('aria-label')])")
    missing = bob.locator("#pvc-grid button.missing").evaluate_all("els => els.map(e => [e.dataset.row, e.dataset.col])")
    assert ["0", "0", "red circle"] in unsure and ["4", "0"] in missing
    expect(bob.locator("#pvc-unsettled")).to_contain_text(
        f"the {len(unsure) + len(missing)} places marked ? or +? first")
    expect(bob.locator("#pvc-confirm")).to_be_hidden()
    no_sideways_scroll(bob, "pvc-dialog")
    bob.locator("#pvc-grid").scroll_into_view_if_needed()
    shots(bob, "doubts", "pvc-dialog")

    # Yes, each of those is the tile the camera read; and there is no tile where one may be missing.
    for row, col, name in unsure:
        bob.locator(f'#pvc-grid button[data-row="{row}"][data-col="{col}"]').click()
        bob.get_by_role("button", name=f"Yes, it is the {name}").click()
        expect(bob.locator(f'#pvc-grid button[data-row="{row}"][data-col="{col}"] .badge')).to_have_text("✓")
    expect(bob.locator("#pvc-unsettled")).to_contain_text(
        "the place marked ? or +? first" if len(missing) == 1 else f"the {len(missing)} places")
    for row, col in missing:
        bob.locator(f'#pvc-grid button[data-row="{row}"][data-col="{col}"]').click()
        bob.locator("#pvc-fix").get_by_role("button", name="No tile here").click()
    expect(bob.locator("#pvc-unsettled")).to_be_hidden()
    expect(bob.locator("#pvc-confirm")).to_be_visible()
    shots(bob, "faulty", "pvc-dialog")

    # Ann says the photo was taken while she was still swapping: the tile there is 3G. One tap on
    # the misread tile, one on the picture of the right one.
    misread = bob.locator('#pvc-grid button[data-row="1"][data-col="2"]')
    expect(misread).to_have_attribute("aria-label", re.compile(r"blue diamond, in a faulty line\. Tap to correct$"))
    misread.click()
    expect(bob.locator("#pvc-fix-where")).to_contain_text("the camera read a blue diamond")
    no_sideways_scroll(bob, "pvc-dialog")
    shots(bob, "choose-tile", "pvc-dialog")
    bob.locator('#pvc-fix-tiles button[data-tile="3G"]').click()
    expect(bob.locator("#pvc-verdict")).to_contain_text("is correct (24 tiles)")
    expect(bob.locator('#pvc-grid svg[data-row="1"][data-col="2"]')).to_have_attribute("data-tile", "3G")
    shots(bob, "corrected", "pvc-dialog")
    bob.get_by_role("button", name="Record Ann's grid as correct").click()
    expect(dialog).to_be_hidden()
    assert doubts.refused == 0

    # Both phones now show the last minute for Bob, and who recorded what.
    for page in (ann, bob):
        expect(page.locator("#pv-phase")).to_contain_text("one minute left")
        expect(page.locator('li.player[data-player="0"]')).to_contain_text("Grid verified correct")
        expect(page.locator("#undo-hint")).to_have_text("Undo takes back: The camera check found Ann's grid correct.")
    shots(ann, "recorded-ann")
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
    ann.context.close()
    bob.context.close()


def test_recording_before_the_doubts_are_settled_is_refused_and_shown(browser, server, tmp_path, width):
    """The service refuses the verdict while a doubtful place is open (another phone may have
    recorded a newer reading): the panel says why and marks what is left."""
    from playwright.sync_api import expect

    shots = Shots(f"camera-refused-{width}")
    url = create_table(browser, server, ["Ann", "Bob"], shots)
    table_id = url.rstrip("/").rsplit("/", 1)[1]
    bob = join(browser, url, "Bob", shots, width)
    tap(bob, "Go: start round 1")
    tap(bob, "Bob: done")
    doubts = Doubts(bob, table_id, unsure=[], missing=[])
    bob.get_by_role("button", name="Check Bob's grid with the camera").click()
    bob.locator("#pvc-file").set_input_files(str(photo_file(tmp_path, GOOD, "bob.jpg")))
    expect(bob.locator("#pvc-verdict")).to_contain_text("correct", timeout=20000)
    doubted = bob.locator("#pvc-grid button.unsure, #pvc-grid button.missing")  # whatever the reader doubts by itself
    for left in range(doubted.count(), 0, -1):
        doubted.first.click()
        bob.locator("#pvc-fix-quick button").first.click()  # yes, the tile read (or: no tile here)
        expect(doubted).to_have_count(left - 1)
    expect(bob.locator("#pvc-confirm")).to_be_visible()
    doubts.open["missing"] = [[-1, 3]]  # the service learns of a doubt the phone has not seen
    bob.get_by_role("button", name="Record Bob's grid as correct").click()
    expect(bob.locator("#pvc-status")).to_have_text("Not recorded: look at the unsure and missing places first")
    expect(bob.locator("#pvc-confirm")).to_be_hidden()
    expect(bob.locator('#pvc-grid button[data-row="-1"][data-col="3"] .badge')).to_have_text("+?")
    shots(bob, "refused", "pvc-dialog")
    assert doubts.refused == 1 and bob.errors == []
    bob.context.close()
