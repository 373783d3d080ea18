"""Errors a user can cause, shared by every front end (CLI, web, hardware).

The CLI turns an InputError into one line on stderr and exit status 2; the web
turns it into HTTP 4xx with {"error": message}. Rule violations inside a game
are `companion.games.base.RuleError`, a ValueError.
"""
from __future__ import annotations


class InputError(Exception):
    """Input that could not be read: a bad file, token, option or upload.

    The message names the input (file, line, column where known) and is shown
    to the user as it is.
    """
