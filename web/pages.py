"""The pages people see: the tables, a live table, the history, a game's chart and exports.

Server-rendered with Jinja; the live parts are small scripts in web/static.
A game may have its own partial, templates/games/<game id>.html, with its
script static/games/<game id>.js; a game without one gets the generic
partial, which shows the engine's JSON and a button per allowed action.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request, url_for
from jinja2 import TemplateNotFound

from companion.games import available_games, get_game
from web import get_service
from web.api import public_url, table_url
from web.chart import score_chart
from web.history import export_csv, export_json, finished_games, local_time, player_statistics
from web.option_words import form_options
from web.qr import qr_svg

bp = Blueprint("pages", __name__)


def _game_template(game_id: str) -> str:
    name = f"games/{game_id}.html"
    try:
        current_app.jinja_env.get_template(name)
    except TemplateNotFound:
        return "games/_generic.html"
    return name


def _game_script(game_id: str) -> str:
    import os

    static = current_app.static_folder or ""
    if os.path.exists(os.path.join(static, "games", f"{game_id}.js")):
        return url_for("static", filename=f"games/{game_id}.js")
    return url_for("static", filename="games/_generic.js")


@bp.get("/")
def home():
    service = get_service()
    config = current_app.config["COMPANION"]
    games = []
    for game_id in available_games():
        game = get_game(game_id)
        options = {**game.default_options(), **{k: v for k, v in config.games.get(game_id, {}).items()
                                                 if k in game.default_options()}}
        # Options with a fixed set of values get a menu (games may list them).
        choices = getattr(game, "option_choices", lambda: {})()
        games.append({"id": game.id, "title": game.title, "min_players": game.min_players,
                      "max_players": game.max_players, "options": options, "choices": choices,
                      "fields": form_options(game.id, options, choices)})
    url = public_url() + "/"
    return render_template("home.html", tables=service.tables(), games=games, url=url, qr=qr_svg(url))


@bp.get("/tables/<table_id>")
def table(table_id: str):
    t = get_service().get(table_id)
    url = table_url(t.id)
    return render_template(
        "table.html", table=t, url=url, qr=qr_svg(url), initial=t.view(),
        game_template=_game_template(t.game.id), game_script=_game_script(t.game.id),
        simulated=_simulated(),
    )


def _simulated() -> bool:
    """Draw the simulated display and buzzer? SIMULATED_DEVICES is a bool or a callable asked each time."""
    value = current_app.config["SIMULATED_DEVICES"]
    return bool(value() if callable(value) else value)


@bp.get("/games/pivit-tiles/artwork.js")
def pivit_artwork():
    """The Pivit tile's picture as data for the pages' tile renderer (static/games/pivit-art.js).

    Made from companion.games.pivit_tiles.artwork, the one source the camera's synthetic
    photos use too; a script file, not inline, because the pages allow only their own scripts.
    """
    body, etag = _artwork_script()
    response = Response(body, mimetype="text/javascript")
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"  # revalidated (a 304) on each load, new after an upgrade
    return response.make_conditional(request)


@lru_cache(maxsize=1)
def _artwork_script() -> tuple[str, str]:
    from companion.games.pivit_tiles.artwork import phone_artwork

    data = json.dumps(phone_artwork(), separators=(",", ":"), sort_keys=True)
    body = f"// Made from companion/games/pivit_tiles/artwork.py: do not edit.\nwindow.PivitArtwork = {data};\n"
    return body, hashlib.sha256(body.encode()).hexdigest()[:20]


@bp.get("/history")
def history():
    games = finished_games(get_service().tables())
    return render_template("history.html", games=games, stats=player_statistics(games), local_time=local_time)


def _target(t) -> Any:
    state = t.game.to_json(t.state)
    target = state.get("target") if isinstance(state, dict) else None
    return target if isinstance(target, (int, float)) and not isinstance(target, bool) else None


@bp.get("/tables/<table_id>/chart.svg")
def chart(table_id: str):
    t = get_service().get(table_id)
    svg = score_chart(t.players, t.score_steps(), _target(t), title=f"{t.game.title}: score progression")
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/tables/<table_id>/export.csv")
def export_table_csv(table_id: str):
    t = get_service().get(table_id)
    response = Response(export_csv(t), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{t.game.id}-{t.id}.csv"'
    return response


@bp.get("/tables/<table_id>/export.json")
def export_table_json(table_id: str):
    service = get_service()
    t = service.get(table_id)
    body = json.dumps(export_json(t, service.store.entries(t.id)), indent=1, ensure_ascii=False)
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="{t.game.id}-{t.id}.json"'
    return response
