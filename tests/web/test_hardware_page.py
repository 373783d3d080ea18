"""The timer devices on the table page: GET /api/devices, virtual buttons and faults, the status line.

The Flask client tests run against the real simulated devices (the Pico's
firmware on a pty, gpiozero's mock pins) attached to a service with a manual
clock. The browser test drives Debian's Chromium against a real `companion
serve --simulate-hardware`: the page's virtual display shows the firmware's
digits counting down, its virtual timer button starts and pauses the
countdown, and an unplug shows on the page and recovers. Screenshots are kept
in test-artifacts/hardware/.
"""
from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import pytest

from companion.commands.serve import describe, open_hardware
from companion.config import Config
from web import create_app

PIN = "2468"
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "hardware"
FAST = {"heartbeat_seconds": 0.1, "answer_timeout_seconds": 0.6, "button_hold_seconds": 0.3,
        "done_button_pins": [5, 6]}

# The browser fixture (conftest.py) and the phone profile (browser.py) are shared.
from .browser import PHONE, _need_browser, serve_process  # noqa: E402


def wait_for(predicate, timeout=30.0, interval=0.02):
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= end:
            return value
        time.sleep(interval)


@pytest.fixture
def devices(service):
    """The simulated devices, opened as `companion serve --simulate-hardware` opens them."""
    pytest.importorskip("hardware.setup", reason="the hardware package is not installed")
    devices = open_hardware(Config(hardware=FAST), True, service.on_button)
    service.outputs.extend(devices.outputs)
    assert wait_for(lambda: devices.status()["timer"]["state"] == "connected")
    yield devices
    devices.close()


@pytest.fixture
def sim_client(service, devices):
    app = create_app({"TABLE_SERVICE": service, "START_TICKER": False, "TESTING": True,
                      "DEVICES": devices.status, "HARDWARE": devices, "SIMULATED_DEVICES": True,
                      "PUBLIC_URL": "http://192.168.1.20:8080"})
    return app.test_client()


def create(client, game="pivit-tiles", players=("Ann", "Bob")):
    response = client.post("/api/tables", json={"game": game, "players": list(players), "pin": PIN})
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def post(client, path, body=None, pin=PIN, **headers):
    if pin is not None:
        headers["X-Table-Pin"] = pin
    return client.post(path, json=body if body is not None else {}, headers=headers)


def panel(client, since=None):
    response = client.get("/api/devices" + ("" if since is None else f"?since={since}"))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def panel_when(client, predicate, since=None, timeout=30.0):
    """Poll GET /api/devices like the page does until `predicate(answer)`; the answer, or None."""
    def check():
        body = panel(client, since)
        return body if predicate(body) else None
    return wait_for(check, timeout)


# -- the status line, for people ----------------------------------------------------

SIM_GPIO = {"ok": True, "state": "mock", "detail": "mock pins (simulated hardware)"}


def link(event, age_s=1.0, **extra):
    return {"event": event, "detail": "", "age_s": age_s, **extra}


@pytest.mark.parametrize("timer,last,level,text", [
    ({"state": "connected", "simulated": True}, link("connected"), "ok", "Timer display connected (simulated Pico)"),
    ({"state": "connected"}, None, "ok", "Timer display connected"),
    ({"state": "searching"}, None, "off", "No timer display on USB"),
    ({"state": "searching"}, link("lost", 600), "fault",
     "Timer display disconnected: the countdown goes on; reconnecting…"),
    ({"state": "connecting"}, link("lost"), "fault", "Timer display found again: waiting for it to answer…"),
    ({"state": "not-answering"}, link("not-answering"), "fault",
     "Timer display not answering: the countdown goes on; reconnecting…"),
    ({"state": "connected"}, link("reconnected", 2.0, away_s=1.25), "recovered",
     "Timer display back after 1.2 s: countdown re-synced"),
    ({"state": "connected"}, link("reconnected", 31.0, away_s=1.0), "ok", "Timer display connected"),
    ({"state": "connected"}, link("rebooted"), "recovered", "Timer display restarted: countdown re-synced"),
    ({"state": "connected"}, link("resync"), "recovered",
     "Timer display had drifted: re-synced to the service's countdown"),
    ({"state": "incompatible"}, None, "fault", "Timer display needs new firmware (companion firmware flash)"),
    ({"state": "disabled"}, None, "off", "No USB timer display (off in the config)"),
    ({"ok": False, "detail": "status failed: boom"}, None, "fault", "status failed: boom"),
])
def test_the_timer_part_of_the_status_line(timer, last, level, text):
    summary = describe(timer, {"ok": True, "state": "disabled"}, last)
    assert summary["timer"] == {"state": timer.get("state"), "level": level, "text": text}
    assert summary["line"] == text + " · GPIO off"


@pytest.mark.parametrize("gpio,simulated,level,text", [
    ({"state": "mock"}, True, "ok", "GPIO: mock pins (simulated)"),
    ({"state": "mock"}, False, "off", "GPIO: mock pins, no real GPIO here"),
    ({"state": "active", "pin_factory": "LGPIOFactory"}, False, "ok", "GPIO: real pins (LGPIOFactory)"),
    ({"state": "disabled"}, False, "off", "GPIO off"),
    ({"ok": False, "attached": False}, False, "off", "No GPIO"),
])
def test_the_gpio_part_of_the_status_line(gpio, simulated, level, text):
    summary = describe({"state": "connected", "simulated": simulated}, gpio)
    assert summary["gpio"]["level"] == level and summary["gpio"]["text"] == text


def test_the_line_takes_the_worst_level():
    assert describe({"state": "searching"}, {"state": "disabled"})["level"] == "off"
    assert describe({"state": "connected"}, {"state": "disabled"})["level"] == "ok"
    assert describe({"state": "not-answering"}, {"state": "active"})["level"] == "fault"
    assert describe({"state": "connected"}, {"state": "mock"}, link("rebooted"))["level"] == "recovered"


# -- GET /api/devices ------------------------------------------------------------------

def test_without_devices_the_page_counts_by_itself(client):
    body = panel(client)
    assert body["simulated"] is False and body["view"] is None and body["buttons"] == [] and body["faults"] == []
    assert body["status"]["line"] == "No timer device: this page shows the countdown"
    table_id = create(client)
    assert panel(client)["active_table"] == table_id
    html = client.get(f"/tables/{table_id}").get_data(as_text=True)
    assert 'id="device-status"' in html and 'data-source="page"' in html
    assert "Press the timer button" not in html and "/static/devices.js" in html


def test_under_simulation_the_panel_has_the_firmwares_view_buttons_and_faults(sim_client, devices):
    body = panel(sim_client)
    assert body["simulated"] is True
    assert body["status"]["level"] == "ok"
    assert body["status"]["line"] == "Timer display connected (simulated Pico) · GPIO: mock pins (simulated)"
    view = body["view"]
    assert view["powered"] and view["link"] == "connected" and view["display"] == "--:--"  # the firmware at boot
    assert view["gpio"] == {"buzzer": "off", "led_running": "off", "led_last_seconds": "off"}
    assert body["buttons"] == [{"name": "timer", "device": "pico"}, {"name": "timer", "device": "gpio"},
                               {"name": "done-0", "device": "gpio", "player": 0},
                               {"name": "done-1", "device": "gpio", "player": 1}]
    assert body["faults"] == ["unplug", "replug", "reboot", "freeze", "thaw", "noise"]
    assert body["active_table"] is None


def test_since_gives_the_display_and_buzzer_changes_between_polls(sim_client, devices):
    first = panel(sim_client)
    table_id = create(sim_client)
    assert post(sim_client, f"/api/tables/{table_id}/timer", {"command": "start", "seconds": 1.5}).status_code == 200
    # The simulated Pico counts down 0:02, 0:01 (with its tick), 0:00 and sounds: a 40 ms tick is never lost.
    body = panel_when(sim_client, lambda b: any(e.get("buzzer") == "on" for e in b["events"]), first["next"])
    assert body, "no buzzer change reached the page"
    changes = body["events"]
    numbers = [e["n"] for e in changes]
    assert numbers == sorted(numbers) and numbers[0] == first["next"] + 1
    assert any(e.get("display") == "0:01" for e in changes)
    latest = panel(sim_client, changes[-1]["n"])
    assert all(e["n"] > changes[-1]["n"] for e in latest["events"])
    # A cursor from before a restart (past the newest change) gives no stale events.
    assert panel(sim_client, latest["next"] + 1000)["events"] == []
    assert panel(sim_client)["events"] == []


@pytest.mark.parametrize("since", ["x", "-1", "1.5", "9" * 13])
def test_a_bad_since_is_a_400(sim_client, since):
    response = sim_client.get(f"/api/devices?since={since}")
    assert response.status_code == 400 and "since" in response.get_json()["error"]


# -- POST /api/tables/<id>/devices/press ---------------------------------------------------

def test_the_virtual_timer_button_goes_through_the_pico(sim_client, service, devices):
    table_id = create(sim_client)
    response = post(sim_client, f"/api/tables/{table_id}/devices/press", {"button": "timer"})
    assert response.status_code == 202
    assert response.get_json() == {"button": "timer", "action": "press", "device": "pico", "table": table_id}
    table = service.get(table_id)
    assert wait_for(lambda: table.view()["timer"]["status"] == "running")
    assert service.store.entries(table_id)[-1].kind == "timer"  # the service heard the button, not the API
    assert post(sim_client, f"/api/tables/{table_id}/devices/press", {"action": "hold"}).status_code == 202
    assert wait_for(lambda: table.view()["timer"]["status"] == "idle")


def test_a_press_claims_the_timer_for_its_table(sim_client, service, devices):
    mine = create(sim_client)
    other = create(sim_client)
    assert service.active_id == other
    assert post(sim_client, f"/api/tables/{mine}/devices/press", {"button": "timer", "device": "gpio"}).status_code == 202
    assert service.active_id == mine
    assert wait_for(lambda: service.get(mine).view()["timer"]["status"] == "running")
    assert service.get(other).view()["timer"]["status"] == "idle"


def test_a_players_virtual_button_says_done(sim_client, service, devices):
    table_id = create(sim_client)
    post(sim_client, f"/api/tables/{table_id}/actions", {"type": "start-round"})
    assert post(sim_client, f"/api/tables/{table_id}/devices/press", {"button": "done-1"}).status_code == 202
    table = service.get(table_id)
    assert wait_for(lambda: table.view()["state"]["players"][1]["done"])
    assert table.view()["last_change"]["event"] == {"type": "done", "player": 1}


@pytest.mark.parametrize("body,message", [
    ({"button": "nosuch"}, "button is one of timer, done-0, done-1 on the gpio"),
    ({"button": "done-0", "device": "pico"}, "button is one of timer on the pico"),
    ({"button": "timer", "action": "tap"}, "action: input should be 'press' or 'hold'"),
    ({"button": "timer", "device": "usb"}, "device: input should be 'pico' or 'gpio'"),
    ({"button": ["timer"]}, "button: input should be a valid string"),
])
def test_a_press_of_a_button_that_is_not_there_is_a_400(sim_client, body, message):
    table_id = create(sim_client)
    response = post(sim_client, f"/api/tables/{table_id}/devices/press", body)
    assert response.status_code == 400 and message in response.get_json()["error"]


@pytest.mark.parametrize("path", ["press", "fault"])
def test_presses_and_faults_need_the_pin_and_this_origin(sim_client, path):
    table_id = create(sim_client)
    url = f"/api/tables/{table_id}/devices/{path}"
    body = {"button": "timer"} if path == "press" else {"fault": "noise"}
    assert post(sim_client, url, body, pin=None).status_code == 401
    assert post(sim_client, url, body, pin="0000").status_code == 403
    assert post(sim_client, url, body, Origin="http://evil.example").status_code == 403
    response = sim_client.post(url, data="button=timer", headers={"X-Table-Pin": PIN,
                                                                  "Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 415
    assert post(sim_client, f"/api/tables/nosuch/devices/{path}", body).status_code == 404


@pytest.mark.parametrize("path,body", [("press", {"button": "timer"}), ("fault", {"fault": "unplug"})])
def test_without_simulation_virtual_buttons_and_faults_are_a_409(client, service, path, body):
    table_id = create(client)
    response = post(client, f"/api/tables/{table_id}/devices/{path}", body)
    assert response.status_code == 409 and "--simulate-hardware" in response.get_json()["error"]
    # Real (here: no) devices opened without simulation: still no virtual buttons.
    real = open_hardware(Config(hardware={"serial_port": "none", "gpio": "off"}), False, service.on_button)
    try:
        app = create_app({"TABLE_SERVICE": service, "START_TICKER": False, "HARDWARE": real, "DEVICES": real.status})
        response = post(app.test_client(), f"/api/tables/{table_id}/devices/{path}", body)
        assert response.status_code == 409
        assert panel(app.test_client())["status"]["line"] == "No USB timer display (off in the config) · GPIO off"
    finally:
        real.close()


# -- POST /api/tables/<id>/devices/fault ------------------------------------------------------

def test_an_unplug_shows_on_the_panel_and_health_and_recovers(sim_client, service, devices):
    table_id = create(sim_client)
    post(sim_client, f"/api/tables/{table_id}/timer", {"command": "start", "seconds": 30})
    assert wait_for(lambda: panel(sim_client)["view"]["display"] in ("0:30", "0:29"))
    response = post(sim_client, f"/api/tables/{table_id}/devices/fault", {"fault": "unplug"})
    assert response.status_code == 200 and response.get_json()["fault"] == "unplug"
    lost = panel_when(sim_client, lambda b: b["status"]["level"] == "fault")
    assert lost["status"]["timer"]["text"] == "Timer display disconnected: the countdown goes on; reconnecting…"
    assert lost["view"]["powered"] is False and lost["view"]["display"] == ""  # a USB-powered Pico goes dark
    health = sim_client.get("/api/health").get_json()
    assert health["timer"]["ok"] is False and health["timer"]["level"] == "fault"
    assert health["timer"]["summary"].startswith("Timer display disconnected")
    assert health["timer"]["last_event"]["event"] == "lost"
    assert health["gpio"]["summary"] == "GPIO: mock pins (simulated)"
    assert service.get(table_id).view()["timer"]["status"] == "running"  # the service counts on

    assert post(sim_client, f"/api/tables/{table_id}/devices/fault", {"fault": "replug"}).status_code == 200
    back = panel_when(sim_client, lambda b: b["status"]["level"] == "recovered")
    assert re.fullmatch(r"Timer display back after \d+\.\d s: countdown re-synced", back["status"]["timer"]["text"])
    # Re-synced: the rebooted firmware shows the service's countdown again, not its boot dashes.
    assert panel_when(sim_client, lambda b: re.fullmatch(r"0:[23]\d", b["view"]["display"]))
    health = sim_client.get("/api/health").get_json()["timer"]
    # At least once: on a loaded machine a late heartbeat can make the link reconnect again.
    assert health["ok"] and health["last_event"]["event"] == "reconnected" and health["reconnects"] >= 1


def test_a_frozen_timer_is_not_answering_until_it_thaws(sim_client, devices):
    table_id = create(sim_client)
    post(sim_client, f"/api/tables/{table_id}/devices/fault", {"fault": "freeze"})
    assert wait_for(lambda: panel(sim_client)["status"]["timer"]["state"] == "not-answering")
    assert panel(sim_client)["view"]["frozen"] is True
    post(sim_client, f"/api/tables/{table_id}/devices/fault", {"fault": "thaw"})
    assert wait_for(lambda: panel(sim_client)["status"]["level"] == "recovered")


def test_noise_on_the_link_is_rejected_and_counted(sim_client, devices):
    table_id = create(sim_client)
    assert post(sim_client, f"/api/tables/{table_id}/devices/fault", {"fault": "noise"}).status_code == 200
    assert wait_for(lambda: sim_client.get("/api/health").get_json()["timer"]["rejected_lines"] >= 1)
    assert panel(sim_client)["status"]["timer"]["state"] == "connected"


@pytest.mark.parametrize("body", [{}, {"fault": "explode"}, {"fault": 3}])
def test_an_unknown_fault_is_a_400(sim_client, body):
    table_id = create(sim_client)
    response = post(sim_client, f"/api/tables/{table_id}/devices/fault", body)
    assert response.status_code == 400 and response.get_json()["error"].startswith("fault: ")


# -- the page ------------------------------------------------------------------------------

def test_the_page_has_virtual_buttons_for_the_configured_players(sim_client):
    table_id = create(sim_client, players=("Ann", "Bob", "Cy"))
    html = sim_client.get(f"/tables/{table_id}").get_data(as_text=True)
    assert 'data-source="simulator"' in html and 'id="device-status"' in html
    assert 'data-button="timer" data-action="press">Press the timer button' in html
    assert 'data-button="timer" data-action="hold">Hold the timer button' in html
    # done_button_pins has two pins: Ann and Bob get a button, Cy has none.
    assert "Ann's done button" in html and "Bob's done button" in html and "Cy's done button" not in html
    for label in ("Unplug the timer", "Plug the timer back in", "Restart the timer", "Freeze the timer",
                  "Unfreeze the timer", "Noise on the cable"):
        assert label in html
    assert html.index("/static/table.js") < html.index("/static/devices.js")


def test_names_on_the_virtual_buttons_are_escaped(sim_client):
    table_id = create(sim_client, players=('<b>"Zed"</b>&', "Bob"))
    html = sim_client.get(f"/tables/{table_id}").get_data(as_text=True)
    assert "&lt;b&gt;&#34;Zed&#34;&lt;/b&gt;&amp;'s done button" in html and "<b>\"Zed\"" not in html


# -- a real browser against a real `companion serve --simulate-hardware` ------------------------

class Shots:
    def __init__(self, name):
        self.dir = ARTIFACTS / name
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.glob("*.png"):
            old.unlink()
        self.n = 0

    def __call__(self, page, label):
        self.n += 1
        page.screenshot(path=str(self.dir / f"{self.n:02d}-{label}.png"), full_page=True)


@pytest.fixture(scope="module")
def sim_server(tmp_path_factory):
    """`companion serve --simulate-hardware` on a free loopback port, with two players' done buttons."""
    _need_browser()
    pytest.importorskip("hardware.setup", reason="the hardware package is not installed")
    data = tmp_path_factory.mktemp("serve-hw")
    config = data / "companion.toml"
    config.write_text("[timer]\ndefault_seconds = 20\n\n[hardware]\ndone_button_pins = [5, 6]\n")
    with serve_process(data, "--config", str(config), "--simulate-hardware") as url:
        yield url


def api(server, method, path, body=None):
    request = urllib.request.Request(server + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def seconds(text: str) -> int:
    minutes, secs = text.split(":")
    return int(minutes) * 60 + int(secs)


@pytest.mark.browser
def test_the_page_shows_the_firmwares_countdown_and_its_buttons_and_faults_act_through_it(browser, sim_server):
    from playwright.sync_api import expect

    shots = Shots("simulated-timer")
    table = api(sim_server, "POST", "/api/tables", {"game": "pivit-tiles", "players": ["Ann", "Bob"], "pin": PIN})
    context = browser.new_context(**PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{sim_server}/tables/{table['id']}")
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    page.locator("#pin-input").fill(PIN)
    page.get_by_role("button", name="Unlock").click()
    expect(page.locator("#pin-status")).to_have_text("Unlocked: this phone can tap.")
    status_line = page.locator("#device-status")
    display = page.locator("#sim-display")
    expect(status_line).to_have_text("Timer display connected (simulated Pico) · GPIO: mock pins (simulated)")
    expect(status_line).to_have_attribute("data-level", "ok")
    expect(display).to_have_text("--:--")  # what the firmware shows at boot, not the service's "–:––"
    page.locator("#simulated-devices").scroll_into_view_if_needed()
    shots(page, "booted")

    # The virtual timer button: through the firmware, the serial link and the host to the service.
    page.get_by_role("button", name="Press the timer button").click()
    expect(page.locator("#timer-status")).to_have_text("Timer running")
    seen = []
    end = time.monotonic() + 6
    while len(set(seen)) < 3 and time.monotonic() < end:
        text = display.inner_text()
        if re.fullmatch(r"\d:\d\d", text) and (not seen or seen[-1] != text):
            seen.append(text)
        time.sleep(0.1)
    values = [seconds(t) for t in seen]
    assert len(values) >= 3 and values == sorted(values, reverse=True), seen
    assert all(a - b == 1 for a, b in zip(values, values[1:])), seen  # one second at a time, as the Pico counts
    assert 15 <= values[-1] <= 20
    # The firmware's display and the service's countdown agree (within the second they tick over).
    assert abs(seconds(display.inner_text()) - seconds(page.locator("#countdown").inner_text())) <= 1
    expect(page.locator("#sim-gpio")).to_contain_text("running LED on")
    shots(page, "running")

    page.get_by_role("button", name="Press the timer button").click()
    expect(page.locator("#timer-status")).to_have_text("Timer paused")
    paused_at = page.locator("#countdown").inner_text()
    expect(display).to_have_text(paused_at)  # the host told the Pico where the service paused
    shown = set()
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        shown.add(display.inner_text())
        time.sleep(0.05)
    assert shown <= {paused_at, ""}, shown  # a paused Pico blinks its digits, and they stay put
    expect(page.locator("#countdown")).to_have_text(paused_at)
    shots(page, "paused")

    # Unplug the (USB-powered) timer: it goes dark, the page says so, the service counts on.
    page.locator("#sim-faults summary").click()
    page.get_by_role("button", name="Unplug the timer").click()
    expect(status_line).to_have_attribute("data-level", "fault")
    expect(status_line).to_contain_text("Timer display disconnected: the countdown goes on; reconnecting…")
    expect(display).to_have_attribute("data-powered", "0")
    expect(page.locator("#sim-state")).to_have_text("Display dark: no power")
    page.get_by_role("button", name="Resume timer").click()  # from the page: the service does not need the display
    expect(page.locator("#timer-status")).to_have_text("Timer running")
    time.sleep(1.2)
    expect(display).to_have_text("")
    shots(page, "unplugged")
    page.get_by_role("button", name="Plug the timer back in").click()
    expect(status_line).to_have_attribute("data-level", "recovered", timeout=6000)
    expect(status_line).to_contain_text(re.compile(r"Timer display back after \d+\.\d s: countdown re-synced"))
    expect(display).to_have_attribute("data-powered", "1")
    expect(display).to_have_text(re.compile(r"^0:1\d$"))  # re-synced to the running countdown
    assert abs(seconds(display.inner_text()) - seconds(page.locator("#countdown").inner_text())) <= 1
    shots(page, "replugged")

    # Holding the timer button cancels the countdown.
    page.get_by_role("button", name="Hold the timer button").click()
    expect(page.locator("#timer-status")).to_have_text("Timer not set", timeout=5000)

    # A short countdown runs out: the firmware's buzzer ticks and sounds the alarm on the page.
    api(sim_server, "POST", f"/api/tables/{table['id']}/timer", {"command": "start", "seconds": 2})
    expect(page.locator("#sim-buzzer")).to_have_text("Buzzer sounding", timeout=5000)  # the tick at 0:01
    expect(display).to_have_text(re.compile(r"^0:0[01]$"))
    expect(page.locator("#timer-status")).to_have_text("Time's up!", timeout=5000)
    expect(display).to_have_text("0:00")
    expect(page.locator("#sim-buzzer")).to_have_text("Buzzer sounding")  # the alarm: 2 s of beeps
    shots(page, "alarm")
    # The tick and the alarm's eight beeps, none lost between two polls.
    expect(page.locator("#sim-buzzer")).to_have_text("Buzzer quiet", timeout=5000)
    assert page.evaluate("window.companionDevices.buzzes") >= 9
    assert errors == []
    context.close()
