"""The camera check in a real browser: a phone photographs a finished grid (a synthetic render
uploaded through the page's file input), sees the verdict and the annotated picture, corrects a
misread tile with one tap, records the verdict, and the other phone sees it live.
"""
from __future__ import annotations

import re

import pytest

from .browser import Shots, create_table, join, tap

pytestmark = pytest.mark.browser

GOOD = {(r, c): d + col for r, col in enumerate("RGBY") for c, d in enumerate("123456")}


def photo_file(tmp_path, cells, name):
    import cv2

    from vision.synthetic import Scene, render

    image = render(cells, "classic", Scene(seed=11, rotation=8, size=(800, 600), tile_px=48)).image
    path = tmp_path / name
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def test_check_with_camera_correct_a_tile_and_record(browser, server, tmp_path):
    from playwright.sync_api import expect

    shots = Shots("camera")
    url = create_table(browser, server, ["Ann", "Bob"], shots)
    ann = join(browser, url, "Ann", shots)
    bob = join(browser, url, "Bob", shots)
    tap(ann, "Go: start round 1")
    tap(ann, "Ann: done")

    # Bob checks Ann's grid. The photo shows a blue diamond in the green row.
    wrong = dict(GOOD)
    wrong[1, 2] = "3B"
    bob.get_by_role("button", name="Check Ann's grid with the camera").click()
    dialog = bob.locator("#pvc-dialog")
    expect(dialog).to_be_visible()
    bob.locator("#pvc-file").set_input_files(str(photo_file(tmp_path, wrong, "ann.jpg")))
    expect(bob.locator("#pvc-verdict")).to_contain_text("NOT correct", timeout=20000)
    expect(bob.locator("#pvc-faults li")).to_have_count(2)
    expect(bob.locator("#pvc-image")).to_have_attribute("src", re.compile(r"/camera-checks/[\w-]+/annotated\.png"))
    # The annotated picture really arrives (a PNG the browser can draw).
    bob.wait_for_function("() => { const i = document.getElementById('pvc-image');"
                          " return i.complete && i.naturalWidth > 0; }", timeout=20000)
    shots(bob, "faulty")

    # Ann says the photo was taken while she was still swapping: the tile there is 3G.
    bob.get_by_role("button", name="row 1, column 2: blue diamond, in a faulty line. Tap to correct").click()
    bob.locator("#pvc-tile").select_option("3G")
    bob.get_by_role("button", name="Correct this tile").click()
    expect(bob.locator("#pvc-verdict")).to_contain_text("is correct (24 tiles)")
    shots(bob, "corrected")
    bob.get_by_role("button", name="Record Ann's grid as correct").click()
    expect(dialog).to_be_hidden()

    # Both phones now show the last minute for Bob.
    for page in (ann, bob):
        expect(page.locator("#pv-phase")).to_contain_text("one minute left")
        expect(page.locator('li.player[data-player="0"]')).to_contain_text("Grid verified correct")
    shots(ann, "recorded-ann")
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
