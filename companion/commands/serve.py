"""`companion serve`: the table service every phone at the table talks to.

One process owns everything that needs a single owner (the event log, the
timer, GPIO, the serial link, the camera) and serves the pages and the API
with web.server: one event loop holds every phone's connection and live
stream, the Flask app runs in a few worker threads, and no client address
can hold more than its share (see docs/api.md, "Limits per client").
It prints the address by IP (Android phones cannot resolve `.local` names)
and its QR code. Only the standard library is imported at module level.
"""
from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from collections import deque
from typing import Any, Callable

from companion.errors import InputError

log = logging.getLogger("companion.serve")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the table service: live scorekeeping for every phone at the table",
        description=("Serve the tables on the local network: pages for phones, the JSON API under /api "
                     "and the authoritative timer. Prints the address and a QR code to scan."),
    )
    parser.add_argument("--host", default=None,
                        help="address to listen on (default 0.0.0.0: every network of this machine)")
    parser.add_argument("--port", type=int, default=None, help="port to listen on (default 8080; 0 picks a free one)")
    parser.add_argument("--data-dir", default=None,
                        help="where the event log is kept (default $XDG_DATA_HOME/companion, ~/.local/share/companion)")
    parser.add_argument("--config", default=None,
                        help="TOML config file (default ~/.config/companion/config.toml if it exists)")
    parser.add_argument("--simulate-hardware", action="store_true",
                        help="use the device simulator instead of GPIO and the serial port")
    parser.add_argument("--club", default=None, metavar="URL",
                        help="ship every game to the club server at URL (docs/club.md; [club] url in config.toml)")
    parser.add_argument("--club-code", default=None, metavar="CODE",
                        help="the club's join code, needed the first time ([club] code)")
    parser.set_defaults(handler=run)


def _club_outbox(config, args, service):
    """The outbox to the club server, if one is named (--club or [club] url); None otherwise."""
    from companion.outbox import Outbox

    url = args.club if args.club is not None else config.club.url
    if not url:
        if args.club_code:
            raise InputError("--club-code needs --club URL (or [club] url in config.toml)")
        return None
    if not url.startswith(("http://", "https://")):
        raise InputError(f"--club {url}: the club server's address starts with http:// or https://")
    code = args.club_code if args.club_code is not None else config.club.code
    return Outbox(service, url, code or None, config.data_dir, name=config.club.name)


# How long "back after a disconnection" and the like stay on the page's status line.
RECENT_SECONDS = 30.0
# Simulated display and buzzer changes kept for the page to catch up on between polls
# (a buzzer tick lasts 40 ms, far less than the page's poll interval).
VIEW_HISTORY = 200
FAULTS = ("unplug", "replug", "reboot", "freeze", "thaw", "noise")
NOT_SIMULATED = "virtual buttons and faults exist only under `companion serve --simulate-hardware`"
# What the Pico link reports that a person at the table should know about.
LINK_EVENTS = frozenset({"connected", "lost", "not-answering", "reconnected", "rebooted", "resync"})
# What a flaky cable delivers (the "noise" fault): garbage, a frame with a bad checksum, a half line.
NOISE = b"\x00\xff\xfeline noise\r\n@7 tick running 1000 *0000\n@8 tick runn"
_RANK = {"off": 0, "ok": 1, "recovered": 2, "fault": 3}


class NotSimulated(Exception):
    """A virtual button or fault was asked for, but the devices are real (or absent)."""


def _timer_words(timer: dict[str, Any], last: dict[str, Any] | None) -> tuple[str, str]:
    """(level, sentence) for the Pico timer's report; ``last`` is the latest link event with its age."""
    state = timer.get("state")
    recent = last if last is not None and last["age_s"] <= RECENT_SECONDS else None
    was_lost = last is not None and last["event"] in ("lost", "not-answering")
    if state == "connected":
        if recent and recent["event"] == "reconnected":
            away = recent.get("away_s")
            after = f" after {away:.1f} s" if isinstance(away, (int, float)) else ""
            return "recovered", f"Timer display back{after}: countdown re-synced"
        if recent and recent["event"] == "rebooted":
            return "recovered", "Timer display restarted: countdown re-synced"
        if recent and recent["event"] == "resync":
            return "recovered", "Timer display had drifted: re-synced to the service's countdown"
        return "ok", "Timer display connected" + (" (simulated Pico)" if timer.get("simulated") else "")
    if state == "searching":
        if was_lost:
            return "fault", "Timer display disconnected: the countdown goes on; reconnecting…"
        return "off", "No timer display on USB"
    if state == "connecting":
        if was_lost:
            return "fault", "Timer display found again: waiting for it to answer…"
        return "ok", "Timer display found: waiting for it to answer…"
    if state == "not-answering":
        return "fault", "Timer display not answering: the countdown goes on; reconnecting…"
    if state == "incompatible":
        return "fault", "Timer display needs new firmware (companion firmware flash)"
    if state == "disabled":
        return "off", "No USB timer display (off in the config)"
    if state == "closed":
        return "off", "Timer display closed"
    return ("ok" if timer.get("ok") else "fault"), str(timer.get("detail") or "No timer device")


def _gpio_words(gpio: dict[str, Any], simulated: bool) -> tuple[str, str]:
    """(level, sentence) for the GPIO report: real pins, mock pins or none."""
    state = gpio.get("state")
    if state == "mock":
        if simulated:
            return "ok", "GPIO: mock pins (simulated)"
        return "off", "GPIO: mock pins, no real GPIO here"
    if state == "active":
        return "ok", f"GPIO: real pins ({gpio.get('pin_factory') or 'gpiozero'})"
    if state == "disabled":
        return "off", "GPIO off"
    if gpio.get("attached") is False:
        return "off", "No GPIO"
    return ("ok" if gpio.get("ok") else "fault"), "GPIO: " + str(gpio.get("detail") or "unknown")


def describe(timer: dict[str, Any], gpio: dict[str, Any], last: dict[str, Any] | None = None) -> dict[str, Any]:
    """One line for people about the devices, from the /api/health reports of the timer and GPIO.

    ``last`` is the latest link event: {"event", "detail", "age_s", "away_s"?}.
    Answers {"level", "line", "timer": {"state", "level", "text"}, "gpio": {...}};
    a level is "ok", "off" (nothing attached, not a fault), "recovered" (a
    fault was just survived) or "fault".
    """
    timer_level, timer_text = _timer_words(timer, last)
    gpio_level, gpio_text = _gpio_words(gpio, bool(timer.get("simulated")))
    level = max((timer_level, gpio_level), key=_RANK.__getitem__)
    return {
        "level": level,
        "line": f"{timer_text} · {gpio_text}",
        "timer": {"state": timer.get("state"), "level": timer_level, "text": timer_text},
        "gpio": {"state": gpio.get("state"), "level": gpio_level, "text": gpio_text},
    }


class Devices:
    """The service's handle on what `hardware.setup.open_devices` opened, or on its absence.

    ``outputs`` are the TimerOutputs the service drives. ``status()`` is the
    /api/health report with a sentence per part; ``panel(since)`` is what the
    table page polls (GET /api/devices). Under simulation ``press`` and
    ``fault`` act on the simulated Pico and the mock GPIO pins, so a virtual
    tap goes page -> simulator -> firmware -> serial -> host -> service.
    """

    def __init__(self, *, simulate: bool = False, unavailable: str = "",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.opened: Any = None
        self.outputs: list = []
        self.simulate = simulate
        self.unavailable = unavailable
        self._clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, dict[str, Any]] | None = None  # (when, the latest link event)
        self._lost_at: float | None = None
        self._views: deque[dict[str, Any]] = deque(maxlen=VIEW_HISTORY)
        self._seq = 0

    def attach(self, opened: Any) -> None:
        """Take what open_devices returned; under simulation, follow the virtual display and buzzer."""
        self.opened = opened
        self.outputs = list(opened.outputs)
        simulator = getattr(opened, "simulator", None)
        if simulator is not None:
            simulator.subscribe(self._on_output)

    @property
    def simulated(self) -> bool:
        """True when the devices are the simulator and mock pins (virtual buttons and faults work)."""
        return getattr(self.opened, "simulator", None) is not None

    @property
    def real_timer(self) -> bool:
        return bool(self.outputs) and not self.simulate

    # -- what the devices report ----------------------------------------------

    def on_event(self, event: dict[str, Any]) -> None:
        """open_devices' on_event: remember the latest link event (called from the link thread)."""
        if event.get("source") != "link" or event.get("event") not in LINK_EVENTS:
            return
        now = self._clock()
        kind = event["event"]
        record = {"event": kind, "detail": str(event.get("detail", ""))}
        with self._lock:
            if kind in ("lost", "not-answering"):
                if self._lost_at is None:
                    self._lost_at = now
            elif kind == "reconnected" and self._lost_at is not None:
                record["away_s"] = round(now - self._lost_at, 1)
                self._lost_at = None
            if kind == "rebooted" and self._last is not None and self._last[1]["event"] in ("lost", "not-answering"):
                return  # a replugged, USB-powered Pico boots: "reconnected" follows and says it all
            self._last = (now, record)

    def _on_output(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._seq += 1
            self._views.append({"n": self._seq, **event})

    def last_event(self) -> dict[str, Any] | None:
        """The latest link event with its age in seconds, or None."""
        with self._lock:
            if self._last is None:
                return None
            when, record = self._last
            return {**record, "age_s": round(self._clock() - when, 1)}

    def _report(self) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.opened is None:
            detail = self.unavailable or "no devices opened"
            report: dict[str, Any] = {
                "timer": {"ok": True, "simulated": True,
                          "detail": "no timer device: simulated display and buzzer on the table page"},
                "gpio": {"ok": False, "attached": False, "detail": detail},
                "hardware": {"ok": False, "detail": detail},
            }
            summary = {"level": "off", "line": "No timer device: this page shows the countdown",
                       "timer": {"state": None, "level": "off", "text": "No timer device"},
                       "gpio": {"state": None, "level": "off", "text": "No GPIO"}}
        else:
            try:
                report = dict(self.opened.status())
            except Exception as exc:  # a device's bug must not take /api/health down with it
                log.exception("device status failed")
                report = {"hardware": {"ok": False, "detail": f"status failed: {exc}"}}
            report["timer"] = dict(report.pop("timer_device", None)
                                   or {"ok": False, "detail": "not reported by the hardware package"})
            report["timer"].setdefault("simulated", self.simulate)
            report["gpio"] = dict(report.get("gpio") or {"ok": False, "attached": False,
                                                         "detail": "not reported by the hardware package"})
            last = self.last_event()
            summary = describe(report["timer"], report["gpio"], last)
            report["timer"]["last_event"] = last
        report["timer"]["summary"] = summary["timer"]["text"]
        report["timer"]["level"] = summary["timer"]["level"]
        report["gpio"]["summary"] = summary["gpio"]["text"]
        report["gpio"]["level"] = summary["gpio"]["level"]
        return report, summary

    def status(self) -> dict[str, Any]:
        """For /api/health: {"timer": {...}, "gpio": {...}}, each with "ok", "detail", "summary" and "level"."""
        return self._report()[0]

    def panel(self, since: int | None = None) -> dict[str, Any]:
        """What the table page polls: the status line, the virtual display and buzzer, the virtual buttons.

        ``since`` is the "next" of the previous answer: the display and buzzer
        changes after it come in "events" (a 40 ms buzzer tick falls between
        two polls). None (a first poll) or a number from before a restart
        gives no events.
        """
        _, summary = self._report()
        view = None
        events: list[dict[str, Any]] = []
        if self.simulated:
            try:
                view = self.opened.simulated_view()
            except Exception:
                log.exception("simulated view failed")
        with self._lock:
            latest = self._seq
            if since is not None and since <= latest:
                events = [e for e in self._views if e["n"] > since]
        return {
            "simulated": self.simulated,
            "status": summary,
            "view": view,
            "events": events,
            "next": latest,
            "buttons": self.buttons(),
            "faults": list(FAULTS) if self.simulated else [],
        }

    # -- virtual buttons and faults (simulation only) --------------------------

    def buttons(self) -> list[dict[str, Any]]:
        """The virtual buttons: the Pico's timer button and every GPIO button ("timer", "done-N")."""
        if not self.simulated:
            return []
        out: list[dict[str, Any]] = [{"name": "timer", "device": "pico"}]
        for button in getattr(self.opened, "buttons", []):
            entry: dict[str, Any] = {"name": button.name, "device": "gpio"}
            kind, _, number = button.name.rpartition("-")
            if kind and number.isdigit():
                entry["player"] = int(number)
            out.append(entry)
        return out

    def check_press(self, button: Any, action: Any, device: Any = None) -> str:
        """The device a virtual press goes to ("pico" or "gpio"). Raises NotSimulated, or InputError
        for a button, action or device that does not exist."""
        if not self.simulated:
            raise NotSimulated(NOT_SIMULATED)
        if action not in ("press", "hold"):
            raise InputError("action is press or hold")
        if device is None:
            device = "pico" if button == "timer" else "gpio"
        if device not in ("pico", "gpio"):
            raise InputError("device is pico or gpio")
        names = [b["name"] for b in self.buttons() if b["device"] == device]
        if not isinstance(button, str) or button not in names:
            raise InputError(f"button is one of {', '.join(names)} on the {device}")
        return device

    def press(self, button: str, action: str, device: str | None = None) -> None:
        """Press (or hold) a virtual button; returns at once, the service hears it through the device.

        Raises NotSimulated or InputError (see check_press).
        """
        device = self.check_press(button, action, device)
        self.opened.press(button, action, device)

    def fault(self, kind: Any) -> None:
        """Do to the simulated Pico what goes wrong with a real one.

        "unplug" (a USB-powered Pico goes dark), "replug", "reboot", "freeze"
        (stops answering), "thaw", "noise" (garbage and a half line on the
        link). Raises NotSimulated, InputError for another fault, and
        TimeoutError if the simulator does not answer.
        """
        if not self.simulated:
            raise NotSimulated(NOT_SIMULATED)
        if kind not in FAULTS:
            raise InputError(f"fault is one of {', '.join(FAULTS)}")
        simulator = self.opened.simulator
        if kind == "noise":
            simulator.inject_to_host(NOISE)
        else:
            getattr(simulator, kind)()

    def close(self) -> None:
        if self.opened is not None:
            self.opened.close()


def open_hardware(config, simulate: bool, on_button) -> Devices:
    """Open the devices through the hardware package if it is installed.

    `hardware.setup.open_devices(config_dict, simulate, on_button, on_event=...)`
    gets the config file's tables as a dict. A bad [hardware] table is the
    user's to fix: its InputError is passed on (one line, exit 2). Any other
    failure to open a device leaves the service running without it, and
    /api/health says why.
    """
    devices = Devices(simulate=simulate)
    try:
        from hardware.setup import open_devices  # lazily: the hardware package may not be installed
    except ImportError as exc:
        devices.unavailable = f"hardware package not available ({exc})"
        return devices
    try:
        opened = open_devices({"hardware": dict(config.hardware), "camera": dict(config.camera)}, simulate,
                              on_button, on_event=devices.on_event)
    except InputError:
        raise
    except Exception as exc:  # a device that cannot be opened must not keep the table from being served
        log.error("could not open the devices: %s", exc)
        devices.unavailable = f"devices could not be opened: {exc}"
        return devices
    devices.attach(opened)
    return devices


def physical_timer(devices: Devices) -> bool:
    """True while a real display or buzzer shows the countdown (then the page need not simulate one).

    A Pico timer counts once connected; GPIO once on real pins (not gpiozero's mock pins).
    """
    if not devices.real_timer:
        return False
    try:
        report = devices.status()
    except Exception:
        return False
    timer, gpio = report.get("timer") or {}, report.get("gpio") or {}
    return (timer.get("state") == "connected" and not timer.get("simulated")) or gpio.get("state") == "active"


def _lock_data_dir(data_dir) -> Any:
    """Hold a lock on the data directory so two services never write one log. Raises InputError."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on a Pi
        return None
    path = data_dir / "serve.lock"
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise InputError(f"{data_dir}: another `companion serve` is using this data directory") from None
    return handle


def run(args: argparse.Namespace) -> int:
    import signal
    from dataclasses import replace

    from companion.config import load_config
    from companion.store import EventStore, StoreError, private_dir
    from companion.tables import TableService
    from companion.timer import PageTimerOutput

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    config = load_config(args.config).with_overrides(host=args.host, port=args.port, data_dir=args.data_dir)
    if not 0 <= config.server.port <= 65535:
        raise InputError(f"--port {config.server.port}: a port is 0 to 65535")
    try:
        private_dir(config.data_dir)
    except OSError as exc:
        raise InputError(f"{config.data_dir}: cannot create the data directory ({exc.strerror})") from None
    lock = _lock_data_dir(config.data_dir)
    try:
        store = EventStore(config.database)
    except StoreError as exc:
        raise InputError(str(exc)) from None

    from web import create_app
    from web.qr import print_qr, service_url
    from web.server import Limits, Server

    from companion.camera_checks import CameraChecks

    service = TableService(store, outputs=[PageTimerOutput()], default_timer_seconds=config.timer.default_seconds)
    try:
        outbox = _club_outbox(config, args, service)
    except InputError:
        service.close()
        raise
    devices = open_hardware(config, args.simulate_hardware, service.on_button)
    camera_checks = CameraChecks()
    service.outputs.extend(devices.outputs)
    threads = config.server.worker_threads
    limits = Limits(
        connections_per_client=config.server.max_connections_per_client,
        connections=config.server.max_connections,
        requests_per_client=max(1, threads // 2),
        idle_seconds=config.server.idle_seconds,
    )
    try:
        # The app needs the address, which with --port 0 is known only once bound.
        server = Server(None, config.server.host, config.server.port, threads=threads, limits=limits)
    except OSError as exc:
        service.close()
        devices.close()
        raise InputError(f"cannot listen on {config.server.host}:{config.server.port}: {exc.strerror or exc}") from None
    # The camera is opened once the port is ours: a thread still inside cv2's import when a taken
    # port ends the process makes the C++ runtime abort it (exit -6, not 2).
    camera_checks.open_camera_in_background(dict(config.camera))
    port = server.port
    url = service_url(config.server.host, port, config.server.public_url)
    app = create_app({
        "TABLE_SERVICE": service, "COMPANION": config, "PUBLIC_URL": url,
        "DEVICES": devices.status, "HARDWARE": devices, "SIMULATED_DEVICES": lambda: not physical_timer(devices),
        "CAMERA_CHECKS": camera_checks, "OUTBOX": outbox,
    })
    server.app = app
    # The largest body any route takes (a photo), with room for a form's framing.
    server.limits = replace(server.limits, max_body=max(
        app.config["MAX_CONTENT_LENGTH"], app.config["MAX_PHOTO_BYTES"]) + 64 * 1024)

    def stop(signum, frame):
        # The server ends every open stream, lets the requests being served finish, and returns.
        server.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    out = sys.stdout
    tables = service.tables()
    print(f"companion serve: {len(tables)} table{'s' if len(tables) != 1 else ''} in {config.data_dir}", file=out)
    print(f"Listening on {config.server.host}:{port} with {threads} threads "
          f"(up to {config.server.max_streams} live phones)", file=out)
    print(f"Open {url}/ on a phone on the same network, or scan:", file=out)
    try:
        print_qr(url + "/", out)
    except Exception as exc:  # a terminal that cannot draw it must not stop the service
        print(f"(no QR code: {exc})", file=out)
    if outbox is not None:
        outbox.start()
        print(f"Shipping every game to the club at {outbox.url}", file=out)
    print("Ctrl+C stops the service; the tables are kept.", file=out, flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if outbox is not None:
            outbox.stop()
        service.close()
        devices.close()
        camera_checks.close()
        if lock is not None:
            lock.close()
    return 0
