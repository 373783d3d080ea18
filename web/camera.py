"""Camera checks of a player's Pivit grid: upload or capture, correct a cell, record the verdict.

    POST /api/tables/<id>/camera-checks?player=N   body: the photo (image/*) -> 201 {check}
    POST /api/tables/<id>/camera-checks?player=N&source=camera   no body: the table's camera
                                                    takes the picture -> 201 {check}
    GET  /api/tables/<id>/camera-checks/<cid>       -> {check}
    GET  /api/tables/<id>/camera-checks/<cid>/annotated.png
    POST /api/tables/<id>/camera-checks/<cid>/corrections  {"cells": [{row, col, tile|null}]}
    POST /api/tables/<id>/camera-checks/<cid>/verify        -> the table, after the
                                                    verify {player, valid, source: camera} event;
                                                    409 while unsure or missing cells are unsettled

Views stay thin: companion.camera_checks reads and checks, the table service
records the verdict. Changing anything needs the table PIN, like every action.
The bodies and answers are declared below (web.contract), before the views.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal

from flask import Blueprint, Response, current_app, jsonify, request, url_for
from pydantic import Field

from companion.camera_checks import CameraCheckError, GridRules
from companion.errors import InputError
from web import get_service
from web.api import CHANGE_REPLIES, Mutation, PinBody, table_response
from web.contract import MAX_ITEMS, PIN_HEADERS, Answer, Body, Error, Photo, Reply, Text, Whole, operation, pin_errors
from web.security import require_pin

bp = Blueprint("camera", __name__, url_prefix="/api/tables/<table_id>/camera-checks")

PHOTO_TYPES = ("image/", "application/octet-stream")

# -- requests and answers ------------------------------------------------------------------


class CheckQuery(Body):
    model_config = {"strict": False}  # query values are text: "1" is player 1

    player: Annotated[int, Field(ge=0, le=3, description="Whose grid this is (index in the players list).")]
    source: Literal["photo", "camera"] = Field(
        "photo", description="photo: the body is the photo; camera: no body, the table's camera takes the picture.")


class Correction(Body):
    row: Whole(-50, 50)
    col: Whole(-50, 50)
    tile: Text(4, min_length=1, description="3G, ** for a wild; null: no tile there.") | None = Field(
        description="Required: null removes a tile the camera saw where there is none.")


class Corrections(PinBody):
    cells: Annotated[list[Correction], Field(min_length=1, max_length=MAX_ITEMS)]


class CheckedTile(Answer):
    row: int
    col: int
    tile: str
    confidence: float
    corrected: bool


class CameraCheck(Answer):
    id: str
    table: str
    player: int
    revision: int = Field(description="How many corrections were applied.")
    grid: str = Field(description="The grid as read, in the grid-file format.")
    tiles: list[CheckedTile]
    unsure: list[list[int]] = Field(description="Cells read with low confidence: worth a second look.")
    valid: bool
    violations: list[dict[str, Any]]
    rules: dict[str, Any]
    elapsed_ms: float
    annotated_url: str


CHECK_ERRORS = {404: Reply("No such table or check.", Error)}


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


@operation(bp, "", "POST", summary="Read and check a photo of a player's Pivit grid", query=CheckQuery,
           body=Photo("The photo (image/jpeg, image/png, image/webp; or the form field photo), at most 25 MiB. "
                      "Leave it out only with ?source=camera.", required=False, form_field="photo"),
           headers=PIN_HEADERS,
           replies={201: Reply("The check: the grid as read, the verdict with the table's rules, and the annotated "
                               "picture's address. Nothing is recorded until its verify is posted.", CameraCheck),
                    400: Reply("Not a usable photo, no photo (without ?source=camera), or no such player.", Error),
                    409: Reply("source=camera with no camera attached, or not a Pivit tile table.", Error),
                    413: Reply("The photo is larger than 25 MiB.", Error),
                    422: Reply("No grid of tiles found in the photo.", Error),
                    **{k: v for k, v in pin_errors().items() if k not in (413, 415)}})
def create(table_id: str, query: CheckQuery):
    """Send the photo as the body; ``?source=camera`` with no body asks the table's camera to take it."""
    table, rules = _table_and_rules(table_id)
    refused = require_pin(table, None)
    if refused:
        return refused
    player = _player(table, query.player)
    request.max_content_length = current_app.config["MAX_PHOTO_BYTES"]
    photo = None
    if query.source == "camera":
        if request.content_length:
            raise InputError("source=camera takes no body: send either a photo or ?source=camera")
    else:
        if request.mimetype == "multipart/form-data":
            upload = request.files.get("photo")
            if upload is None:
                raise InputError("send the photo in a form field named 'photo'")
            photo = upload.read()
        elif request.content_length and request.mimetype.startswith(PHOTO_TYPES):
            photo = request.get_data()
        elif request.content_length:
            raise InputError(f"send the photo as image/jpeg or image/png, not {request.mimetype or 'no type'}")
        if not photo:
            raise InputError("the photo is empty: send it as the body, or use the table's camera with ?source=camera")
    check = checks().check(table.id, player, rules, photo)
    return jsonify(_check_json(check)), 201


@operation(bp, "/<check_id>", summary="A recent camera check (kept in memory, the last few per table)",
           replies={200: Reply("The check.", CameraCheck), **CHECK_ERRORS})
def show(table_id: str, check_id: str):
    table = get_service().get(table_id)
    return jsonify(_check_json(checks().get(table.id, check_id)))


@operation(bp, "/<check_id>/annotated.png", summary="The photo with every tile labelled and the faulty lines "
           "outlined", replies={200: Reply("PNG.", media="image/png", schema={"type": "string", "format": "binary"}),
                                 **CHECK_ERRORS})
def annotated(table_id: str, check_id: str):
    table = get_service().get(table_id)
    png = checks().annotated_png(table.id, check_id)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "private, max-age=300"})


@operation(bp, "/<check_id>/corrections", "POST", summary="Correct misread cells (one tap on the phone); the grid "
           "is checked again", body=Corrections, headers=PIN_HEADERS,
           replies={200: Reply("The check after the corrections.", CameraCheck), **pin_errors(),
                    404: Reply("No such table or check.", Error)})
def correct(table_id: str, check_id: str, body: Corrections):
    table = get_service().get(table_id)
    refused = require_pin(table, {"pin": body.pin} if body.pin is not None else None)
    if refused:
        return refused
    check = checks().correct(table.id, check_id, [cell.model_dump() for cell in body.cells])
    return jsonify(_check_json(check))


@operation(bp, "/<check_id>/verify", "POST", summary="Record the check's verdict as the round's verify event "
           "(source: camera)", body=Mutation, body_required=False, headers=PIN_HEADERS,
           replies={**CHANGE_REPLIES, 404: Reply("No such table or check.", Error),
                    409: Reply("The rules do not allow verifying this player now, or a version conflict.", Error)})
def verify(table_id: str, check_id: str, body: Mutation):
    """Record the check's verdict as the round's verify event (the engine decides if it is allowed now)."""
    service = get_service()
    table = service.get(table_id)
    refused = require_pin(table, {"pin": body.pin} if body.pin is not None else None)
    if refused:
        return refused
    check, valid = checks().verdict(table.id, check_id)
    event = {"type": "verify", "player": check.player, "valid": valid, "source": "camera"}
    table, duplicate = service.act(table.id, event, body.action_id, body.expected_version)
    return table_response(table, duplicate=duplicate)
