"""Schemathesis hooks for test_contract_fuzz.py, loaded by `st run` from its configuration.

JSON Schema cannot say every rule of a new table: two names equal but for
case or spaces, sticks highest first, an option's range. The game's own
checks say them (a 400 naming the option). So a new-table body that the
schema allows but the game refuses is not sent as a *valid* case: the hook
asks the same checks the service uses. Invalid (negative) cases go through
untouched, and so does anything those checks would not turn into a 400,
so a server error there still fails the run.
"""
from __future__ import annotations

import schemathesis

from companion.errors import InputError
from companion.games import get_game
from companion.tables import check_players


@schemathesis.hook("filter_case")
def the_game_can_set_it_up(context, case) -> bool:
    operation = context.operation
    if operation is None or operation.path != "/api/tables" or operation.method.upper() != "POST":
        return True
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return True
    body = case.body
    if not isinstance(body, dict) or not isinstance(body.get("game"), str):
        return True
    try:
        game = get_game(body["game"])
        names = check_players(game, body.get("players"))
        options = {key: value for key, value in (body.get("options") or {}).items()
                   if key != "pin" and value is not None}
        game.new_state(names, {**game.default_options(), **options})
    except (InputError, ValueError, TypeError):  # what TableService.create answers with a 400
        return False
    return True
