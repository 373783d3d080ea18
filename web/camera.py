"""Camera checks of a player's Pivit grid: upload or capture, correct a cell, record the verdict.

    POST /api/tables/<id>/camera-checks?player=N   body: the photo (image/*), or empty to
                                                    use the table's camera -> 201 {check}
    GET  /api/tables/<id>/camera-checks/<cid>       -> {check}
    GET  /api/tables/<id>/camera-checks/<cid>/annotated.png
    POST /api/tables/<id>/camera-checks/<cid>/corrections  {"cells": [{row, col, tile|null}]}
    POST /api/tables/<id>/camera-checks/<cid>/verify        -> the table, after the
                                                    verify {player, valid, source: camera} event;
                                                    409 while unsure or missing cells are unsettled

Views stay thin: companion.camera_checks reads and checks, the table service
records the verdict. Changing anything needs the table PIN, like every action.
"""
from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from companion.camera_checks import CameraCheckError, GridRules
from companion.errors import InputError
from web import get_service
from web.api import _body, table_response
from web.security import require_pin

bp = Blueprint("camera", __name__, url_prefix="/api/tables/<table_id>/camera-checks")

PHOTO_TYPES = ("image/", "application/octet-stream")


def checks():
    return current_app.extensions["camera_checks"]


def _check_json(check) -> dict:
    body = check.to_json()
    body["annotated_url"] = url_for(
        "camera.annotated", table_id=check.table_id, check_id=check.id, r=check.revision
    )
    return body


def _table_and_rules(table_id: str):
    table = get_service().get(table_id)
    if table.game.id != "pivit-tiles":
        raise CameraCheckError("camera checks read Pivit tile grids; this table plays another game", 409)
    o = table.state.options
    return table, GridRules(tileset=o.tileset, young=o.young, tiles=o.tiles)


def _player(table, value) -> int:
    try:
        player = int(value)
    except (TypeError, ValueError):
        raise InputError("say whose grid this is: ?player=N (N counts players from 0)") from None
    if not 0 <= player < len(table.players):
        raise InputError(f"there is no player {player} at this table")
    return player


@bp.errorhandler(CameraCheckError)
def _camera_error(exc: CameraCheckError):
    body = {"error": str(exc)}
    if exc.reason:
        body["reason"] = exc.reason  # the photo cannot be read reliably: take it again (see docs/api.md)
    response = jsonify(body)
    response.status_code = exc.status
    return response


@bp.post("")
def create(table_id: str):
    table, rules = _table_and_rules(table_id)
    refused = require_pin(table, None)
    if refused:
        return refused
    player = _player(table, request.args.get("player"))
    request.max_content_length = current_app.config["MAX_PHOTO_BYTES"]
    photo = None
    if request.content_length:
        if request.mimetype == "multipart/form-data":
            upload = request.files.get("photo")
            if upload is None:
                raise InputError("send the photo in a form field named 'photo'")
            photo = upload.read()
        elif request.mimetype.startswith(PHOTO_TYPES):
            photo = request.get_data()
        else:
            raise InputError(f"send the photo as image/jpeg or image/png, not {request.mimetype or 'no type'}")
        if not photo:
            raise InputError("the photo is empty")
    check = checks().check(table.id, player, rules, photo)
    return jsonify(_check_json(check)), 201


@bp.get("/<check_id>")
def show(table_id: str, check_id: str):
    table = get_service().get(table_id)
    return jsonify(_check_json(checks().get(table.id, check_id)))


@bp.get("/<check_id>/annotated.png")
def annotated(table_id: str, check_id: str):
    table = get_service().get(table_id)
    png = checks().annotated_png(table.id, check_id)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "private, max-age=300"})


@bp.post("/<check_id>/corrections")
def correct(table_id: str, check_id: str):
    table = get_service().get(table_id)
    body = _body()
    refused = require_pin(table, body)
    if refused:
        return refused
    check = checks().correct(table.id, check_id, body.get("cells"))
    return jsonify(_check_json(check))


@bp.post("/<check_id>/verify")
def verify(table_id: str, check_id: str):
    """Record the check's verdict as the round's verify event (the engine decides if it is allowed now)."""
    service = get_service()
    table = service.get(table_id)
    body = _body()
    refused = require_pin(table, body)
    if refused:
        return refused
    check, valid = checks().verdict(table.id, check_id)
    event = {"type": "verify", "player": check.player, "valid": valid, "source": "camera"}
    table, duplicate = service.act(table.id, event, body.get("action_id"), body.get("expected_version"))
    return table_response(table, duplicate=duplicate)
