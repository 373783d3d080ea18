"""The table's web front: JSON API, live stream and the phones' pages.

`create_app(test_config)` builds the Flask app around one
`companion.tables.TableService`: `companion serve` passes the service it
made (with the devices attached); tests pass their own (with a manual clock)
or just a DATA_DIR. Blueprints, one per concern:

- `web.api`: JSON under /api (tables, actions, undo/redo, timer, health, OpenAPI),
- `web.camera`, `web.hints`: camera checks of a Pivit grid, "I'm stuck" hints,
- `web.stream`: /api/tables/<id>/stream, the live text/event-stream,
- `web.pages`: server-rendered pages (home, table, history, chart, exports).

Every /api route is declared with its request and answer models
(`web.contract.operation`): the same declaration checks the requests and
makes /api/openapi.json. Views are thin: they read the request, call the
service and render.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from flask import Flask, current_app, jsonify, request

from companion.config import Config



def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """The Flask app. Config keys (all optional):

    TABLE_SERVICE   a ready companion.tables.TableService (else one is made on DATA_DIR)
    COMPANION       a companion.config.Config (defaults otherwise)
    DATA_DIR        where the event log lives when no service is given
    PUBLIC_URL      the address phones use (QR code); default: the request's own
    DEVICES         callable returning {"timer": {...}, "gpio": {...}, "camera": {...}} for /api/health
    SIMULATED_DEVICES  draw the simulated display and buzzer on the table page (a bool, or a callable
                    asked on each page: True while no physical timer shows the countdown)
    START_TICKER    start the service's timer thread (default True)
    HARDWARE        the serve command's Devices (simulated display, buttons, faults) for /api/devices
    CAMERA_CHECKS   a companion.camera_checks.CameraChecks (default: one with no camera; phones upload)
    OUTBOX          the club outbox (companion.outbox.Outbox) of `serve --club`, for /api/health and /api/club/players
    MAX_PHOTO_BYTES the largest photo upload accepted (default 25 MiB; other requests keep the small cap)
    HEARTBEAT_SECONDS, MAX_STREAMS, MAX_STREAMS_PER_CLIENT  the live stream (default: the [server] config)
    PIN_ATTEMPTS, PIN_LOCKOUT_SECONDS  wrong PINs in a row that lock one address out of a table, and for how long
    TABLE_PIN_ATTEMPTS, TABLE_PIN_WINDOW, TABLE_PIN_MAX_BACKOFF  wrong PINs looked at per table per window
                    from all addresses together, and the longest rest of the PIN check after that (web.security)
    """
    app = Flask(__name__)
    app.config.from_mapping(
        TABLE_SERVICE=None,
        COMPANION=None,
        DATA_DIR=None,
        PUBLIC_URL="",
        DEVICES=None,
        SIMULATED_DEVICES=True,
        START_TICKER=True,
        PIN_ATTEMPTS=5,
        PIN_LOCKOUT_SECONDS=30.0,
        TABLE_PIN_ATTEMPTS=30,
        TABLE_PIN_WINDOW=30.0,
        TABLE_PIN_MAX_BACKOFF=3600.0,
        CAMERA_CHECKS=None,
        MAX_PHOTO_BYTES=25 * 1024 * 1024,
        OUTBOX=None,
    )
    if test_config:
        app.config.from_mapping(test_config)
    config: Config = app.config["COMPANION"] or Config()
    if app.config["DATA_DIR"]:
        config = config.with_overrides(data_dir=app.config["DATA_DIR"])
    app.config["COMPANION"] = config
    app.config["MAX_CONTENT_LENGTH"] = config.server.max_request_bytes
    app.config.setdefault("HEARTBEAT_SECONDS", config.server.heartbeat_seconds)
    app.config.setdefault("MAX_STREAMS", config.server.max_streams)
    app.config.setdefault("MAX_STREAMS_PER_CLIENT", config.server.max_streams_per_client)
    app.json.sort_keys = False

    service = app.config["TABLE_SERVICE"]
    if service is None:
        from companion.store import EventStore
        from companion.tables import TableService
        from companion.timer import PageTimerOutput

        Path(config.data_dir).mkdir(parents=True, exist_ok=True)
        service = TableService(
            EventStore(config.database),
            outputs=[PageTimerOutput()],
            default_timer_seconds=config.timer.default_seconds,
        )
        app.config["TABLE_SERVICE"] = service
    if app.config["START_TICKER"]:
        service.start_ticker()

    if app.config["CAMERA_CHECKS"] is None:
        from companion.camera_checks import CameraChecks

        app.config["CAMERA_CHECKS"] = CameraChecks()
    app.extensions["camera_checks"] = app.config["CAMERA_CHECKS"]

    from web import api, camera, hints, pages, security, stream

    security.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(camera.bp)
    app.register_blueprint(hints.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(pages.bp)
    _register_errors(app)
    from web.contract import checked_app

    checked_app(app)  # every /api route declared, or the app does not start
    return app


def get_service():
    """The TableService of the current app."""
    return current_app.config["TABLE_SERVICE"]


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


# The routes whose body is a photo, with the photo limit instead of the small one.
PHOTO_ENDPOINTS = frozenset({"camera.create", "hints.read_hand_photo"})


def too_large_message(endpoint: str | None) -> str:
    """What a 413 says: the limit of the route asked (a photo's, or any other body's)."""
    if endpoint in PHOTO_ENDPOINTS:
        limit = current_app.config["MAX_PHOTO_BYTES"]
        return f"the photo is larger than {limit / 2**20:g} MiB ({limit} bytes): send a smaller picture"
    return f"the request is larger than {current_app.config['MAX_CONTENT_LENGTH']} bytes"


def _register_errors(app: Flask) -> None:
    from flask import render_template
    from werkzeug.exceptions import HTTPException

    from companion.errors import InputError
    from companion.games.base import RuleError
    from companion.store import StoreError, StoreFull
    from companion.tables import NothingToUndo, TableNotFound, VersionConflict
    from companion.timer import TimerError

    def error(status: int, message: str, **extra: Any):
        if wants_json():
            response = jsonify({"error": message, **extra})
            response.status_code = status
            return response
        return render_template("error.html", status=status, message=message), status

    app.register_error_handler(TableNotFound, lambda e: error(404, str(e)))
    app.register_error_handler(InputError, lambda e: error(400, str(e)))
    # The request was well formed; the table's state (its game's rules now) refuses it.
    app.register_error_handler(RuleError, lambda e: error(409, str(e)))
    app.register_error_handler(TimerError, lambda e: error(409, str(e)))
    app.register_error_handler(NothingToUndo, lambda e: error(409, str(e)))
    app.register_error_handler(
        VersionConflict, lambda e: error(409, str(e), version=e.current, expected_version=e.expected))
    app.register_error_handler(StoreError, lambda e: error(503, f"the event log cannot be written: {e}"))
    app.register_error_handler(StoreFull, lambda e: error(503, str(e)))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        messages = {
            404: "no such page",
            405: "that method is not allowed here",
            413: too_large_message(request.endpoint),
        }
        response = error(exc.code or 500, messages.get(exc.code, exc.description or exc.name))
        if exc.code == 405 and hasattr(exc, "valid_methods") and exc.valid_methods:
            if isinstance(response, tuple):
                return response
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response
