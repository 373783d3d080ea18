"""The "I'm stuck" hints of the Pivit tile game (table option `hints`).

    POST /api/tables/<id>/hints          {"player": N, "tiles": ["3G", ...]} -> the hint
    POST /api/tables/<id>/hand-photos?player=N   body: a photo of the loose tiles
                                          -> {"tiles": [...], "hand": "3G 1R ..."}

Both need the table PIN (a hint costs the Pi real work). The hint changes
nothing at the table; following it is an ordinary `trade` action. The bodies
and answers are declared below (web.contract), before the views.
"""
from __future__ import annotations

from typing import Annotated

from flask import Blueprint, current_app, jsonify, request
from pydantic import Field

from companion.errors import InputError
from companion.hints import MAX_HAND, HintRefused, hint, hint_rules
from web import get_service
from web.api import PinBody
from web.contract import PIN_HEADERS, Answer, Body, Error, Photo, Reply, Text, Whole, operation, pin_errors
from web.security import require_pin

bp = Blueprint("hints", __name__, url_prefix="/api/tables/<table_id>")


class HintRequest(PinBody):
    player: Whole(0, 3, "Whose hand this is (index in the players list).")
    tiles: Annotated[list[Text(3, min_length=1)], Field(max_length=MAX_HAND, description=(
        "The tiles in the hand, like 3G, ** for a wild."))]


class Cell(Answer):
    row: int
    col: int
    tile: str


class TradeAdvice(Answer):
    trade: str
    p_one: float
    p_two: float
    p_two_stderr: float | None = None


class Hint(Answer):
    player: int
    tiles: int
    playable: bool
    grid: str | None = Field(description="An arrangement, in the grid-file format, or null.")
    cells: list[Cell] | None = Field(description="The same arrangement, 0-based from the top-left, or null.")
    trades_left: int
    advice: list[TradeAdvice] = Field(description="Best first, for the trade tokens the player has left.")
    p_two_exact: bool
    unknown: int
    certain: bool
    elapsed_ms: float


class HandPhotoQuery(Body):
    model_config = {"strict": False}  # query values are text

    player: Annotated[int, Field(ge=0, le=3)] | None = None


class HandTiles(Answer):
    tiles: list[str]
    hand: str
    elapsed_ms: float


HINT_ERRORS = {**pin_errors("Hints are off at this table, wrong PIN, or a cross-site request."),
               409: Reply("Not a Pivit tile table.", Error)}


@bp.errorhandler(HintRefused)
def _refused(exc: HintRefused):
    response = jsonify({"error": str(exc)})
    response.status_code = exc.status
    return response


@operation(bp, "/hints", "POST", summary="\"I'm stuck\": an arrangement of a Pivit hand, or which tile to trade",
           body=HintRequest, headers=PIN_HEADERS,
           replies={200: Reply("The hint.", Hint),
                    400: Reply("Not a hand of tiles of this tile set, or no such player.", Error), **HINT_ERRORS})
def give_hint(table_id: str, body: HintRequest):
    """Needs the table option hints (auto: on in the younger-players variation). Changes nothing at the table;
    following the advice is a trade action."""
    table = get_service().get(table_id)
    refused = require_pin(table, {"pin": body.pin} if body.pin is not None else None)
    if refused:
        return refused
    return jsonify(hint(table, body.player, body.tiles))


@operation(bp, "/hand-photos", "POST", summary="Read the loose tiles of a hand from a photo (to fill the hint's picker)",
           query=HandPhotoQuery, body=Photo("A photo of the loose tiles (image/jpeg, image/png), at most 25 MiB."),
           headers=PIN_HEADERS,
           replies={200: Reply("The tiles read.", HandTiles), 400: Reply("Not a usable photo.", Error),
                    422: Reply("No tiles found in the photo.", Error), **HINT_ERRORS,
                    413: Reply("The photo is larger than 25 MiB.", Error)})
def read_hand_photo(table_id: str, query: HandPhotoQuery):
    """Read the loose tiles of a hand from a photo, for the player to check before asking."""
    from vision.errors import VisionError

    table = get_service().get(table_id)
    tileset, _, _ = hint_rules(table)
    refused = require_pin(table, None)
    if refused:
        return refused
    request.max_content_length = current_app.config["MAX_PHOTO_BYTES"]
    if not request.content_length or not request.mimetype.startswith("image/"):
        raise InputError("send a photo of your tiles as image/jpeg or image/png")
    from vision import read_hand_bytes

    try:
        result = read_hand_bytes(request.get_data(), tileset)
    except VisionError as exc:
        response = jsonify({"error": str(exc)})
        response.status_code = getattr(exc, "status", 422)
        return response
    tiles = [t.tile for t in result.tiles]
    return jsonify({"tiles": tiles, "hand": " ".join(tiles), "elapsed_ms": round(result.elapsed_ms, 1)})
