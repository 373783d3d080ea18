"""The "I'm stuck" hints of the Pivit tile game (table option `hints`).

    POST /api/tables/<id>/hints          {"player": N, "tiles": ["3G", ...]} -> the hint
    GET  /api/tables/<id>/hints/<job>    the hint again, once its chances within two trades are in
    POST /api/tables/<id>/hand-photos?player=N   body: a photo of the loose tiles
                                          -> {"tiles": [...], "hand": "3G 1R ..."}

All need the table PIN (a hint costs the Pi real work). With two trade
tokens left, a hand that cannot be arranged is answered at once with the
one-trade advice (`"two_trades": "pending"`, a `poll` address); the chances
within two trades, which take the advisor seconds, are worked out behind it
(companion.hints.HintJobs, one hand at a time) and the poll address answers
the whole hint (`"two_trades": "done"`) when they are in. The hint changes
nothing at the table; following it is an ordinary `trade` action. The bodies
and answers are declared below (web.contract), before the views.
"""
from __future__ import annotations

from typing import Annotated, Literal

from flask import Blueprint, current_app, jsonify, request
from pydantic import Field

from companion.errors import InputError
from companion.hints import MAX_HAND, HintJobs, HintRefused, hint_rules, quick_hint
from web import get_service
from web.api import PinBody
from web.contract import PIN_HEADERS, Answer, Body, Error, Photo, Reply, Text, Whole, operation, pin_errors
from web.security import require_pin

bp = Blueprint("hints", __name__, url_prefix="/api/tables/<table_id>")


@bp.record_once
def _init(state) -> None:
    state.app.extensions["hint_jobs"] = HintJobs()


def jobs() -> HintJobs:
    return current_app.extensions["hint_jobs"]


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
    p_two: float | None = Field(description="The chance within the trades left; null while two_trades is pending.")
    p_two_stderr: float | None = None


class Hint(Answer):
    player: int
    tiles: int
    playable: bool
    grid: str | None = Field(description="An arrangement, in the grid-file format, or null.")
    cells: list[Cell] | None = Field(description="The same arrangement, 0-based from the top-left, or null.")
    trades_left: int
    advice: list[TradeAdvice] = Field(description="Best first, for the trade tokens the player has left.")
    two_trades: Literal["pending", "done"] = Field(description=(
        "pending: the chances within two trades are still being worked out (every p_two null); "
        "GET the poll address for them."))
    poll: str | None = Field(None, description="Where the whole hint is asked for while two_trades is pending.")
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
    answer, later = quick_hint(table, body.player, body.tiles)
    if later is not None:
        answer = _pending(table.id, jobs().submit(table.id, body.player, answer, later), answer)
    return jsonify(answer)


def _pending(table_id: str, job_id: str, answer: dict) -> dict:
    return dict(answer, poll=f"/api/tables/{table_id}/hints/{job_id}")


@operation(bp, "/hints/<job_id>", summary="A hint again: its chances within two trades once they are worked out",
           headers=PIN_HEADERS,
           replies={200: Reply("The hint: two_trades done, or still pending.", Hint), **HINT_ERRORS,
                    404: Reply("No such table, or no such hint (never asked, replaced by a newer question of "
                               "the same player, or forgotten ten minutes after it was worked out).", Error),
                    500: Reply("The chances within two trades could not be worked out.", Error)})
def poll_hint(table_id: str, job_id: str):
    """The poll address of a hint answered with its two-trade chances pending."""
    table = get_service().get(table_id)
    refused = require_pin(table, None)
    if refused:
        return refused
    state, answer = jobs().get(table.id, job_id)
    if state == "unknown":
        return jsonify({"error": "no such hint at this table (it was replaced or forgotten): ask again"}), 404
    if state == "failed":
        return jsonify({"error": "the chances within two trades could not be worked out: "
                                 "the chances after one trade stand"}), 500
    return jsonify(_pending(table.id, job_id, answer) if state == "pending" else answer)


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
