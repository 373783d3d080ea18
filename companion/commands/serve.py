"""`companion serve`: the table service every phone at the table talks to.

One process owns everything that needs a single owner (the event log, the
timer, GPIO, the serial link, the camera) and serves the pages and the API
with waitress, a production WSGI server, with a thread per open phone stream.
It prints the address by IP (Android phones cannot resolve `.local` names)
and its QR code. Only the standard library is imported at module level.
"""
from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass, field
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
    parser.set_defaults(handler=run)


@dataclass
class Devices:
    """What `hardware.setup.open_devices` gave us, or nothing when there is no hardware package."""

    outputs: list = field(default_factory=list)
    status: Callable[[], dict[str, Any]] = dict
    close: Callable[[], None] = lambda: None
    real_timer: bool = False


def open_hardware(config, simulate: bool, on_button) -> Devices:
    """Open the devices through the hardware package if it is installed.

    `hardware.setup.open_devices(config_dict, simulate, on_button)` gets the
    config file's tables as a dict and returns an object with `outputs` (the
    TimerOutputs to drive), `status()` ({"timer_device": {...}, "gpio": {...}})
    and `close()`. A bad [hardware] table is the user's to fix: its InputError
    is passed on (one line, exit 2). Any other failure to open a device leaves
    the service running without it, and /api/health says why.
    """
    def without(detail: str) -> Devices:
        def status() -> dict[str, Any]:
            return {
                "timer": {"ok": True, "simulated": True,
                          "detail": "no timer device: simulated display and buzzer on the table page"},
                "gpio": {"ok": False, "attached": False, "detail": detail},
                "camera": {"ok": False, "attached": False, "detail": "no camera attached to the service"},
                "hardware": {"ok": False, "detail": detail},
            }
        return Devices(status=status)

    try:
        from hardware.setup import open_devices  # lazily: the hardware package may not be installed
    except ImportError as exc:
        return without(f"hardware package not available ({exc})")
    try:
        opened = open_devices({"hardware": dict(config.hardware), "camera": dict(config.camera)}, simulate, on_button)
    except InputError:
        raise
    except Exception as exc:  # a device that cannot be opened must not keep the table from being served
        log.error("could not open the devices: %s", exc)
        return without(f"devices could not be opened: {exc}")
    outputs = list(opened) if isinstance(opened, (list, tuple)) else list(getattr(opened, "outputs", []) or [])

    def status() -> dict[str, Any]:
        report: dict[str, Any] = {}
        if hasattr(opened, "status"):
            try:
                report = dict(opened.status())
            except Exception as exc:
                report = {"hardware": {"ok": False, "detail": f"status failed: {exc}"}}
        if "timer_device" in report and "timer" not in report:
            report["timer"] = report.pop("timer_device")
        if "timer" not in report:
            statuses = []
            for output in outputs:
                try:
                    statuses.append({"name": getattr(output, "name", "?"), **output.status()})
                except Exception as exc:
                    statuses.append({"name": getattr(output, "name", "?"), "ok": False, "detail": str(exc)})
            report["timer"] = {"ok": bool(statuses) and all(s.get("ok") for s in statuses),
                               "outputs": statuses,
                               "detail": ", ".join(str(s.get("detail", s["name"])) for s in statuses) or "no outputs"}
        report["timer"].setdefault("simulated", simulate)
        report.setdefault("gpio", {"ok": False, "attached": False, "detail": "not reported by the hardware package"})
        report.setdefault("camera", {"ok": False, "attached": False, "detail": "no camera attached to the service"})
        return report

    def close() -> None:
        if hasattr(opened, "close"):
            opened.close()
        else:
            for output in outputs:
                output.close()

    return Devices(outputs=outputs, status=status, close=close, real_timer=bool(outputs) and not simulate)


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

    from companion.config import load_config
    from companion.store import EventStore, StoreError
    from companion.tables import TableService
    from companion.timer import PageTimerOutput

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    config = load_config(args.config).with_overrides(host=args.host, port=args.port, data_dir=args.data_dir)
    if not 0 <= config.server.port <= 65535:
        raise InputError(f"--port {config.server.port}: a port is 0 to 65535")
    try:
        config.data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{config.data_dir}: cannot create the data directory ({exc.strerror})") from None
    lock = _lock_data_dir(config.data_dir)
    try:
        store = EventStore(config.database)
    except StoreError as exc:
        raise InputError(str(exc)) from None

    from waitress import create_server

    from web import create_app
    from web.qr import print_qr, service_url

    from companion.camera_checks import CameraChecks

    service = TableService(store, outputs=[PageTimerOutput()], default_timer_seconds=config.timer.default_seconds)
    devices = open_hardware(config, args.simulate_hardware, service.on_button)
    camera_checks = CameraChecks()
    camera_checks.open_camera_in_background(dict(config.camera))
    service.outputs.extend(devices.outputs)
    # The app needs the address, which with --port 0 is known only once bound.
    app_box: list = []

    def application(environ, start_response):
        return app_box[0](environ, start_response)

    try:
        server = create_server(
            application, host=config.server.host, port=config.server.port,
            threads=config.server.worker_threads,
            # Every phone keeps a stream open; leave room for their page loads and API calls.
            connection_limit=max(100, 2 * config.server.max_streams + 16),
            channel_timeout=max(120, int(config.server.heartbeat_seconds * 4)),
            ident="companion",
        )
    except OSError as exc:
        service.close()
        devices.close()
        raise InputError(f"cannot listen on {config.server.host}:{config.server.port}: {exc.strerror or exc}") from None
    port = server.effective_port
    url = service_url(config.server.host, port, config.server.public_url)
    app_box.append(create_app({
        "TABLE_SERVICE": service, "COMPANION": config, "PUBLIC_URL": url,
        "DEVICES": devices.status, "SIMULATED_DEVICES": lambda: not physical_timer(devices),
        "CAMERA_CHECKS": camera_checks,
    }))

    def stop(signum, frame):
        # Wake every open stream so its thread can finish, then leave the server loop.
        service.stop_streams()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    out = sys.stdout
    tables = service.tables()
    print(f"companion serve: {len(tables)} table{'s' if len(tables) != 1 else ''} in {config.data_dir}", file=out)
    print(f"Listening on {config.server.host}:{port} with {config.server.worker_threads} threads", file=out)
    print(f"Open {url}/ on a phone on the same network, or scan:", file=out)
    try:
        print_qr(url + "/", out)
    except Exception as exc:  # a terminal that cannot draw it must not stop the service
        print(f"(no QR code: {exc})", file=out)
    print("Ctrl+C stops the service; the tables are kept.", file=out, flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        service.close()
        devices.close()
        camera_checks.close()
        if lock is not None:
            lock.close()
    return 0
