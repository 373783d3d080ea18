"""The "I'm stuck" hints of the Pivit tile game (table option `hints`).

    POST /api/tables/<id>/hints          {"player": N, "tiles": ["3G", ...]} -> the hint
    POST /api/tables/<id>/hand-photos?player=N   body: a photo of the loose tiles
                                          -> {"tiles": [...], "hand": "3G 1R ..."}

Both need the table PIN (a hint costs the Pi real work). The hint changes
nothing at the table; following it is an ordinary `trade` action.
"""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from companion.errors import InputError
from companion.hints import HintRefused, hint, hint_rules
from web import get_service
from web.api import _body
from web.security import require_pin

bp = Blueprint("hints", __name__, url_prefix="/api/tables/<table_id>")


@bp.errorhandler(HintRefused)
def _refused(exc: HintRefused):
    response = jsonify({"error": str(exc)})
    response.status_code = exc.status
    return response


@bp.post("/hints")
def give_hint(table_id: str):
    table = get_service().get(table_id)
    body = _body()
    refused = require_pin(table, body)
    if refused:
        return refused
    return jsonify(hint(table, body.get("player"), body.get("tiles")))


@bp.post("/hand-photos")
def read_hand_photo(table_id: str):
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
