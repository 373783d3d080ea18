"""The JSON API under /api: tables, actions, undo and redo, the timer, health.

Every answer is JSON; every error is ``{"error": "..."}`` with a 4xx status
(the engine's own message when the rules forbid an action). The routes are
described for machines in /api/openapi.json (web.openapi) and for people in
docs/api.md.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for

import companion
from companion.errors import InputError
from companion.games import available_games, get_game
from web import get_service
from web.security import require_pin

bp = Blueprint("api", __name__, url_prefix="/api")


def _body() -> dict[str, Any]:
    """The JSON object in the request body ({} when there is none). Raises InputError."""
    if not request.content_length:
        return {}
    data = request.get_json(silent=True)
    if data is None:
        raise InputError("the request body is not valid JSON")
    if not isinstance(data, dict):
        raise InputError("the request body must be a JSON object")
    return data


def table_response(table, status: int = 200, duplicate: bool = False, extra: str = "") -> Response:
    """The table as JSON, straight from its serialised form (no re-encoding per request)."""
    body = table.view_json()
    if duplicate:
        extra += '"duplicate":true,'
    if extra:
        body = "{" + extra + body[1:]
    return Response(body, status=status, mimetype="application/json")


def public_url() -> str:
    """The address phones reach this service on (PUBLIC_URL, else the request's own)."""
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def table_url(table_id: str) -> str:
    return public_url() + url_for("pages.table", table_id=table_id)


@bp.get("/health")
def health():
    service = get_service()
    database = service.store.health()
    devices_fn = current_app.config.get("DEVICES")
    devices = devices_fn() if devices_fn else {}
    state = service.health()
    detail = f"{state['tables']} table{'s' if state['tables'] != 1 else ''}; timer thread " + (
        "running" if state["ticker"] else "not started")
    body = {
        "status": "ok" if database["ok"] else "error",
        "version": companion.__version__,
        "service": {"ok": True, "detail": detail, **state},
        "database": database,
        "timer": devices.get("timer", {"ok": True, "simulated": True,
                                        "detail": "no timer device: simulated display and buzzer on the table page"}),
        "gpio": devices.get("gpio", {"ok": False, "attached": False, "detail": "no GPIO devices attached"}),
        "camera": current_app.extensions["camera_checks"].status(),
    }
    if "hardware" in devices:
        body["hardware"] = devices["hardware"]
    return jsonify(body), 200 if database["ok"] else 503


@bp.get("/time")
def server_time():
    """The server's wall clock, for phones to measure their offset (and the round trip)."""
    return jsonify({"server_time_ms": int(get_service().clock.time() * 1000)})


@bp.get("/games")
def games():
    out = []
    for game_id in available_games():
        game = get_game(game_id)
        out.append({
            "id": game.id, "title": game.title,
            "min_players": game.min_players, "max_players": game.max_players,
            "options": game.default_options(),
            "timed": hasattr(game, "timer_request"),
        })
    return jsonify({"games": out})


@bp.get("/tables")
def list_tables():
    service = get_service()
    return jsonify({"tables": [
        {"id": t.id, "game": t.game.id, "title": t.game.title, "players": t.players,
         "version": t.published_version, "finished": t.finished_ms is not None,
         "created_ms": t.record.created_ms, "finished_ms": t.finished_ms}
        for t in service.tables()
    ]})


@bp.post("/tables")
def create_table():
    body = _body()
    table, pin = get_service().create(body.get("game"), body.get("players"), body.get("options"), body.get("pin"))
    url = table_url(table.id)
    extra = f'"pin":{json.dumps(pin)},"url":{json.dumps(url)},'
    response = table_response(table, status=201, extra=extra)
    response.headers["Location"] = url_for("api.get_table", table_id=table.id)
    return response


@bp.get("/tables/<table_id>")
def get_table(table_id: str):
    return table_response(get_service().get(table_id))


@bp.get("/tables/<table_id>/events")
def table_events(table_id: str):
    """The whole log, undo, redo and timer entries included."""
    service = get_service()
    table = service.get(table_id)
    entries = service.store.entries(table.id)
    return jsonify({
        "id": table.id, "version": table.published_version,
        "entries": [{"seq": e.seq, "kind": e.kind, "body": e.body, "action_id": e.action_id,
                     "at_ms": e.created_ms} for e in entries],
    })


def _mutation(table_id: str):
    service = get_service()
    table = service.get(table_id)
    body = _body()
    refused = require_pin(table, body)
    return service, table, body, refused


@bp.post("/tables/<table_id>/pin")
def check_table_pin(table_id: str):
    """Is this the PIN? Lets a phone unlock before its first tap (counted like any wrong PIN)."""
    _, _, _, refused = _mutation(table_id)
    return refused or jsonify({"ok": True})


@bp.post("/tables/<table_id>/actions")
def post_action(table_id: str):
    service, table, body, refused = _mutation(table_id)
    if refused:
        return refused
    table, duplicate = service.act(table.id, body, body.get("action_id"), body.get("expected_version"))
    return table_response(table, duplicate=duplicate)


@bp.post("/tables/<table_id>/undo")
def undo(table_id: str):
    service, table, body, refused = _mutation(table_id)
    if refused:
        return refused
    table, duplicate = service.undo(table.id, body.get("action_id"), body.get("expected_version"))
    return table_response(table, duplicate=duplicate)


@bp.post("/tables/<table_id>/redo")
def redo(table_id: str):
    service, table, body, refused = _mutation(table_id)
    if refused:
        return refused
    table, duplicate = service.redo(table.id, body.get("action_id"), body.get("expected_version"))
    return table_response(table, duplicate=duplicate)


@bp.post("/tables/<table_id>/timer")
def timer(table_id: str):
    service, table, body, refused = _mutation(table_id)
    if refused:
        return refused
    table, duplicate = service.timer(table.id, body.get("command"), body.get("seconds"),
                                     body.get("action_id"), body.get("expected_version"))
    return table_response(table, duplicate=duplicate)


# -- the timer devices: status line, virtual display and buttons ---------------

NO_DEVICES = {
    "simulated": False,
    "status": {"level": "off", "line": "No timer device: this page shows the countdown",
               "timer": {"state": None, "level": "off", "text": "No timer device"},
               "gpio": {"state": None, "level": "off", "text": "No GPIO"}},
    "view": None, "events": [], "next": 0, "buttons": [], "faults": [],
}


def _hardware():
    """The service's devices (companion.commands.serve.Devices), or None when the app has none."""
    return current_app.config.get("HARDWARE")


def _simulated_hardware():
    """The devices if they are simulated; else None (virtual buttons and faults answer 409)."""
    hardware = _hardware()
    return hardware if hardware is not None and hardware.simulated else None


def _not_simulated() -> Response:
    response = jsonify({"error": "virtual buttons and faults exist only under "
                                 "`companion serve --simulate-hardware`"})
    response.status_code = 409
    return response


@bp.get("/devices")
def devices():
    """The one-line device status, and under simulation the virtual display, buzzer and buttons.

    The page polls it while visible; ``?since=`` is the previous answer's
    ``next``, and the answer's ``events`` are the display and buzzer changes
    since then.
    """
    since = request.args.get("since")
    if since is not None:
        if not since.isascii() or not since.isdigit() or len(since) > 12:
            raise InputError("since is the \"next\" number of the previous answer")
        since = int(since)
    hardware = _hardware()
    body = hardware.panel(since) if hardware is not None else dict(NO_DEVICES)
    body["active_table"] = get_service().active_id
    return jsonify(body)


@bp.post("/tables/<table_id>/devices/press")
def press_button(table_id: str):
    """Press or hold a virtual button for this table (simulation only): it goes through the devices."""
    service, table, body, refused = _mutation(table_id)
    if refused:
        return refused
    hardware = _simulated_hardware()
    if hardware is None:
        return _not_simulated()
    button, action = body.get("button", "timer"), body.get("action", "press")
    device = hardware.check_press(button, action, body.get("device"))
    # The physical buttons act on the active table: pressing one on this page claims the timer for it.
    service.activate(table.id)
    hardware.press(button, action, device)
    return jsonify({"button": button, "action": action, "device": device, "table": table.id}), 202


@bp.post("/tables/<table_id>/devices/fault")
def device_fault(table_id: str):
    """Unplug, replug, reboot, freeze or thaw the simulated timer, or put noise on its link."""
    _, _, body, refused = _mutation(table_id)
    if refused:
        return refused
    hardware = _simulated_hardware()
    if hardware is None:
        return _not_simulated()
    fault = body.get("fault")
    try:
        hardware.fault(fault)
    except TimeoutError:
        response = jsonify({"error": "the simulated timer did not answer"})
        response.status_code = 503
        return response
    return jsonify({"fault": fault, "status": hardware.panel()["status"]})


@bp.get("/openapi.json")
def openapi():
    from web.openapi import document

    return jsonify(document(public_url()))
