"""Hints for a stuck Pivit player: can my hand be arranged, and if not, what should I trade?

The table option `hints` (on by default in the younger-players variation)
lets a player enter their tiles on their phone, by hand or from a photo of
the loose tiles, and see either an arrangement or the trade advice of
`companion.games.pivit_tiles.advisor`. The hint itself changes nothing at the
table; following its advice is an ordinary `trade` event.

The solver and the advisor are imported on the first hint, never at start-up.
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any, Callable

from companion.errors import InputError

log = logging.getLogger(__name__)

MAX_HAND = 40  # more tiles than any hand holds: refuse before any work is done


class HintRefused(Exception):
    """The table does not allow a hint now; `status` is the HTTP status that fits."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


def hint_rules(table) -> tuple[str, bool, Any]:
    """(tileset, young, options) of a Pivit tile table that allows hints. Raises HintRefused."""
    if table.game.id != "pivit-tiles":
        raise HintRefused("hints are for the Pivit tile game")
    options = table.state.options
    if not options.hints:
        raise HintRefused("this table does not allow hints (table option 'hints')", 403)
    return options.tileset, options.young, options


def parse_hand_tiles(tiles: Any, tileset: str) -> list[str]:
    """The hand a phone sent: a list of tiles like ["3G", "**"]. Raises InputError naming the bad one."""
    from companion.games.pivit_tiles.tiles import TileError, parse_tile

    if not isinstance(tiles, list) or not tiles:
        raise InputError("'tiles' must be a list of the tiles in your hand, like [\"3G\", \"1R\", \"**\"]")
    if len(tiles) > MAX_HAND:
        raise InputError(f"a hand of {len(tiles)} tiles? Pivit hands hold 24")
    hand = []
    for i, tile in enumerate(tiles):
        if not isinstance(tile, str):
            raise InputError(f"tile {i + 1} is not a tile like 3G")
        try:
            hand.append(parse_tile(tile, tileset))
        except TileError as exc:
            raise InputError(f"tile {i + 1}: {exc}") from None
    return hand


def quick_hint(table, player: int, tiles: Any, defer: bool = True
               ) -> tuple[dict[str, Any], Callable[[], dict[str, Any]] | None]:
    """The hint for `player`'s hand at `table` (an arrangement, or trade advice for the tokens left)
    at once, and what is still to come: (answer, later).

    With `defer` and two trade tokens left, a hand that cannot be arranged is
    answered with the one-trade advice (`"two_trades": "pending"`, every
    `p_two` None), and `later` is a function, touching no table, that works out
    the whole two-trade answer (`"two_trades": "done"`): the chance within two
    trades takes the advisor seconds where one trade takes a fraction of one.
    Otherwise the answer is whole and `later` is None.

    Raises HintRefused (hints off, another game, no such player) and
    InputError (a bad hand, or one a box cannot hold).
    """
    tileset, young, _ = hint_rules(table)
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < len(table.players):
        raise InputError(f"there is no player {player!r} at this table")
    hand = parse_hand_tiles(tiles, tileset)
    trades = max(0, min(2, table.state.tokens[player]))
    if not (defer and trades == 2):
        return _answer(player, hand, trades, _advise(hand, tileset, young, trades)), None
    one = _advise(hand, tileset, young, 1)
    answer = _answer(player, hand, trades, one)
    if answer["playable"]:
        return answer, None
    # The whole answer goes on from the one-trade advice's work (every hand a trade away judged)
    # rather than doing it again: the same answer, about a quarter of a second sooner.
    return answer, lambda: _answer(player, hand, trades, _advise(hand, tileset, young, trades, one))


def _advise(hand: list[str], tileset: str, young: bool, trades: int, one_trade: Any = None) -> Any:
    """The advisor's Advice for `trades` trades (see advise, and its `one_trade`). Raises InputError
    for a hand or pile a box cannot hold."""
    from companion.games.pivit_tiles.advisor import AdviceError, advise

    try:
        return advise(hand, tileset, young=young, trades=trades, one_trade=one_trade)
    except AdviceError as exc:
        raise InputError(str(exc)) from None


def _answer(player: int, hand: list[str], trades: int, advice: Any) -> dict[str, Any]:
    """The hint's answer for `trades` tokens left from `advice` (worked out for fewer trades, it
    leaves the two-trade chances pending)."""
    from companion.games.pivit_tiles.grid import grid_str, normalise

    pending = advice.trades < trades and not advice.playable
    return {
        "player": player,
        "tiles": len(hand),
        "playable": advice.playable,
        "grid": grid_str(advice.grid) if advice.grid is not None else None,
        # The same arrangement as data, for drawing: 0-based row and column from the top-left.
        "cells": None if advice.grid is None else [
            {"row": r, "col": c, "tile": t} for (r, c), t in sorted(normalise(advice.grid).items())],
        "trades_left": trades,
        "advice": [dict(a.to_json(), p_two=None) if pending else a.to_json() for a in advice.advice],
        "two_trades": "pending" if pending else "done",
        "p_two_exact": advice.p_two_exact and not pending,
        "unknown": advice.unknown,
        # False when the solver ran out of time on the hand itself: "not playable" is then a guess.
        "certain": not advice.root_unknown,
        "elapsed_ms": round(advice.elapsed_ms, 1),
    }


@dataclass
class _Job:
    table_id: str
    player: int
    pending: dict[str, Any]  # the answer given at once, two-trade chances pending
    later: Callable[[], dict[str, Any]] | None  # None once run
    result: dict[str, Any] | None = None
    failed: bool = False
    done_at: float | None = None  # time.monotonic() when worked out


class HintJobs:
    """The two-trade answers still being worked out: one hand at a time, on one background thread.

    A question of a player replaces that player's question still waiting (not
    one already being worked out); at most `waiting` questions wait in all
    (the oldest is dropped: its poll answers "no such hint"); an answer is
    kept `keep_seconds` after it is worked out, at most `keep` answers. So
    however often a phone asks, the Pi works out one hand at a time and holds
    a bounded number of answers. Thread-safe.
    """

    def __init__(self, waiting: int = 8, keep: int = 32, keep_seconds: float = 600.0):
        self.waiting = waiting
        self.keep = keep
        self.keep_seconds = keep_seconds
        self._cond = threading.Condition()
        self._jobs: OrderedDict[str, _Job] = OrderedDict()  # oldest first
        self._queue: deque[str] = deque()
        self._worker: threading.Thread | None = None

    def submit(self, table_id: str, player: int, pending: dict[str, Any],
               later: Callable[[], dict[str, Any]]) -> str:
        """Queue `later` (quick_hint's); returns the id its answer is asked for by."""
        job_id = secrets.token_urlsafe(12)
        with self._cond:
            self._forget_old()
            for waiting_id in [j for j in self._queue
                               if (self._jobs[j].table_id, self._jobs[j].player) == (table_id, player)]:
                self._queue.remove(waiting_id)
                del self._jobs[waiting_id]
            while len(self._queue) >= self.waiting:
                del self._jobs[self._queue.popleft()]
            self._jobs[job_id] = _Job(table_id, player, pending, later)
            self._queue.append(job_id)
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="companion-hints", daemon=True)
                self._worker.start()
            self._cond.notify()
        return job_id

    def get(self, table_id: str, job_id: str) -> tuple[str, dict[str, Any] | None]:
        """("done", the whole answer), ("pending", the answer given at once), ("failed", None) or
        ("unknown", None): no such question at this table (never asked, replaced, or forgotten)."""
        with self._cond:
            self._forget_old()
            job = self._jobs.get(job_id)
            if job is None or job.table_id != table_id:
                return "unknown", None
            if job.failed:
                return "failed", None
            return ("done", job.result) if job.result is not None else ("pending", job.pending)

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                job = self._jobs[self._queue.popleft()]
                later, job.later = job.later, None
            result, failed = None, False
            try:
                result = later()
            except Exception:  # a bug, not the player's input (checked when the question was asked)
                log.exception("a two-trade hint could not be worked out")
                failed = True
            with self._cond:
                job.result, job.failed, job.done_at = result, failed, time.monotonic()
                self._forget_old()

    def _forget_old(self) -> None:
        """Drop answers worked out more than keep_seconds ago, and the oldest past `keep`."""
        now = time.monotonic()
        done = [job_id for job_id, job in self._jobs.items() if job.done_at is not None]
        for i, job_id in enumerate(done):
            if len(done) - i > self.keep or now - self._jobs[job_id].done_at > self.keep_seconds:
                del self._jobs[job_id]
