"""The Pivit tile game's rounds and scoring, as a pure event fold.

`GAME.apply(state, event)` returns the state after one event, or raises a
RuleError saying why the rulebook forbids it. Events (the table service and
its API use the same words):

    start-round                  "go": tiles are turned over, the race is on
    trade {player}               a trade token is tossed in for a new tile
    done {player}                3-4 players: takes the highest stick in the centre;
                                 2 players: asks the other player to verify
    return-stick {player}        the player found an error in their own grid
    verify {player, valid, source: manual|camera}
    timer-expired                the one-minute timer ran out
    next-round                   tiles back in the centre, tokens retrieved
    leave {player}               between rounds only (docs/rules/pivit-tiles.md)

Every decision the rulebook leaves open is written in docs/rules/pivit-tiles.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, NotRequired

from companion.games.base import OptionError, RuleError

GAME_ID = "pivit-tiles"

# Phases: setup -> playing -> (3-4p) verifying -> [race] -> scored -> setup ... -> finished
#                         -> (2p)  playing <-> waiting verify -> last-minute -> scored


@dataclass(frozen=True)
class Options:
    target: int  # points that win the game
    stick_values: tuple[int, ...]  # highest first; 2 players use the top two as finisher/second
    tokens: int  # trade tokens per player per round
    timer_seconds: float
    young: bool  # younger-players variation: lines of two tiles allowed
    tiles: int  # tiles per grid
    tie_break: str  # "share" or "play-on"
    hints: bool  # "I'm stuck" hints allowed on the phones
    tileset: str  # "classic" or "connect": which colours the grid checks accept


@dataclass
class State:
    players: tuple[str, ...]
    options: Options
    scores: list[int]
    active: list[bool]
    round: int = 0
    phase: str = "setup"
    tokens: list[int] = field(default_factory=list)
    centre: list[int] = field(default_factory=list)  # stick values in the centre, highest first
    holder: dict[int, int] = field(default_factory=dict)  # player -> stick value held
    finish_order: list[int] = field(default_factory=list)  # who took a stick / was verified, in order
    verified: dict[int, bool] = field(default_factory=dict)
    pending: list[int] = field(default_factory=list)  # said done, waiting for verification, in order
    racers: list[int] = field(default_factory=list)
    timer_running: bool = False
    finisher: int | None = None  # 2 players: the verified first finisher
    second_done: bool = False  # 2 players: the other player completed in time
    rounds: list[dict] = field(default_factory=list)  # per-round results, for history and charts
    winners: list[int] = field(default_factory=list)
    last: str = ""  # what just happened, in words, for the phones

    def clone(self) -> "State":
        return replace(
            self,
            scores=list(self.scores),
            active=list(self.active),
            tokens=list(self.tokens),
            centre=list(self.centre),
            holder=dict(self.holder),
            finish_order=list(self.finish_order),
            verified=dict(self.verified),
            pending=list(self.pending),
            racers=list(self.racers),
            rounds=list(self.rounds),
            winners=list(self.winners),
        )

    @property
    def two_player(self) -> bool:
        return sum(self.active) == 2


def _bool(options: dict, key: str, default: bool) -> bool:
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise OptionError(f"option {key!r} must be true or false, not {value!r}")
    return value


def _number(options: dict, key: str, default, low, high, integer=True):
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and value != int(value)):
        kind = "a whole number" if integer else "a number"
        raise OptionError(f"option {key!r} must be {kind}, not {value!r}")
    if not low <= value <= high:
        raise OptionError(f"option {key!r} must be between {low} and {high}, not {value!r}")
    return int(value) if integer else float(value)


def parse_options(options: dict[str, Any], players: int) -> Options:
    """Validated options with the rulebook's defaults. Raises OptionError."""
    known = set(PivitTiles.default_options(None)) | {"seed", "pin"}
    unknown = set(options) - known
    if unknown:
        raise OptionError(f"unknown option {sorted(unknown)[0]!r} for Pivit tiles")
    sticks = options.get("stick_values", [4, 2, 1])
    if (
        not isinstance(sticks, (list, tuple))
        or len(sticks) != 3
        or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 99 for v in sticks)
        or list(sticks) != sorted(sticks, reverse=True)
    ):
        raise OptionError("option 'stick_values' must be three whole numbers 0-99, highest first, like [4, 2, 1]")
    target_default = 20 if players == 2 else 24
    target = options.get("target")
    young = _bool(options, "young", False)
    tie_break = options.get("tie_break", "share")
    if tie_break not in ("share", "play-on"):
        raise OptionError("option 'tie_break' must be 'share' or 'play-on'")
    return Options(
        target=target_default if target is None else _number(options, "target", target_default, 1, 999),
        stick_values=tuple(sticks),
        tokens=_number(options, "tokens", 2, 0, 9),
        timer_seconds=_number(options, "timer_seconds", 60, 1, 3600, integer=False),
        young=young,
        tiles=_number(options, "tiles", 24, 1, 114),
        tie_break=tie_break,
        hints=_hints(options, young),
        tileset=_tileset(options),
    )


def _hints(options: dict, young: bool) -> bool:
    """"auto" (the default) allows hints in the younger-players variation only; "on", "off" or a bool."""
    value = options.get("hints", "auto")
    if isinstance(value, bool):
        return value
    if value not in ("auto", "on", "off"):
        raise OptionError("option 'hints' must be 'auto', 'on' or 'off'")
    return young if value == "auto" else value == "on"


def _tileset(options: dict) -> str:
    value = options.get("tileset", "classic")
    if value not in ("classic", "connect"):
        raise OptionError("option 'tileset' must be 'classic' or 'connect'")
    return value


def _player(state: State, event: dict) -> int:
    if "player" not in event:
        raise RuleError(f"'{event['type']}' needs a player")
    p = event["player"]
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < len(state.players):
        raise RuleError(f"there is no player {p!r} at this table")
    if not state.active[p]:
        raise RuleError(f"{state.players[p]} has left the game")
    return p


def _require(state: State, *phases: str, what: str) -> None:
    if state.phase not in phases:
        raise RuleError(f"{what} {_PHASE_WHY.get(state.phase, 'not now')}")


_PHASE_WHY = {
    "setup": "is not possible before the round starts (say go first)",
    "playing": "is not possible while the round is being played",
    "verifying": "is not possible now: the round is over and the grids are being verified",
    "race": "is not possible during the one-minute race",
    "last-minute": "is not possible during the last minute",
    "scored": "is not possible now: the round is scored (start the next round)",
    "finished": "is not possible: the game is over",
}


class PivitTiles:
    id = GAME_ID
    title = "Pivit (tile game)"
    min_players = 2
    max_players = 4

    events = {
        "start-round": {},
        "trade": {"player": int},
        "done": {"player": int},
        "return-stick": {"player": int},
        "verify": {"player": int, "valid": bool, "source": NotRequired[Literal["manual", "camera"]]},
        "timer-expired": {},
        "next-round": {},
        "leave": {"player": int},
    }

    def default_options(self) -> dict[str, Any]:
        return {
            "target": None,  # None: 24 for 3-4 players, 20 for 2
            "stick_values": [4, 2, 1],
            "tokens": 2,
            "timer_seconds": 60,
            "young": False,
            "tiles": 24,
            "tie_break": "share",
            "hints": "auto",  # "I'm stuck" hints: auto (on in the younger-players variation), on, off
            "tileset": "classic",
        }

    def option_choices(self) -> dict[str, list[str]]:
        """Options with a fixed set of values (the home page shows them as menus)."""
        return {"tileset": ["classic", "connect"], "tie_break": ["share", "play-on"], "hints": ["auto", "on", "off"]}

    def new_state(self, players: list[str], options: dict[str, Any]) -> State:
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise OptionError("players must be a list of names")
        if not self.min_players <= len(players) <= self.max_players:
            raise OptionError(f"Pivit is for 2 to 4 players, not {len(players)}")
        names = [p.strip() for p in players]
        if len(set(n.casefold() for n in names)) != len(names):
            raise OptionError("two players have the same name")
        opts = parse_options(options or {}, len(players))
        n = len(players)
        return State(
            players=tuple(names),
            options=opts,
            scores=[0] * n,
            active=[True] * n,
            tokens=[opts.tokens] * n,
        )

    # -- events -----------------------------------------------------------------

    def apply(self, state: State, event: dict[str, Any]) -> State:
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise RuleError("an action needs a type")
        handler = _HANDLERS.get(event["type"])
        if handler is None:
            raise RuleError(f"unknown action {event['type']!r} for Pivit tiles")
        s = state.clone()
        handler(s, event)
        return s

    def finished(self, state: State) -> bool:
        return state.phase == "finished"

    def timer_request(self, state: State) -> tuple[str, float] | None:
        if state.timer_running:
            return (f"round-{state.round}-{state.phase}", state.options.timer_seconds)
        return None

    def actions(self, state: State) -> list[dict[str, Any]]:
        """Every event the rules allow now; found by trying them, so it never disagrees with apply."""
        candidates: list[dict[str, Any]] = [{"type": t} for t in ("start-round", "timer-expired", "next-round")]
        for p, on in enumerate(state.active):
            if not on:
                continue
            for t in ("trade", "done", "return-stick", "leave"):
                candidates.append({"type": t, "player": p})
            candidates.append({"type": "verify", "player": p, "valid": True})
        allowed = []
        for ev in candidates:
            try:
                self.apply(state, ev)
            except RuleError:
                continue
            if ev["type"] == "verify":
                ev = {"type": "verify", "player": ev["player"]}  # valid or not: both allowed
            if ev["type"] == "timer-expired":
                continue  # the service's timer sends it, not a button
            allowed.append(ev)
        return allowed

    def describe(self, event: dict[str, Any], players: list[str]) -> str | None:
        """The event as a sentence for the phones' undo line and the history (see describe_event)."""
        return describe_event(event, players)

    def to_json(self, state: State) -> dict[str, Any]:
        o = state.options
        return {
            "phase": state.phase,
            "round": state.round,
            "two_player": state.two_player,
            "target": o.target,
            "options": {
                "stick_values": list(o.stick_values),
                "tokens": o.tokens,
                "timer_seconds": o.timer_seconds,
                "young": o.young,
                "tiles": o.tiles,
                "tie_break": o.tie_break,
                "hints": o.hints,
                "tileset": o.tileset,
            },
            "centre_sticks": list(state.centre),
            "players": [
                {
                    "name": name,
                    "score": state.scores[i],
                    "tokens": state.tokens[i],
                    "stick": state.holder.get(i),
                    "active": state.active[i],
                    "done": i in state.holder or i in state.pending or state.finisher == i,
                    "waiting_verify": i in state.pending,
                    "verified": state.verified.get(i),
                    "racing": i in state.racers,
                }
                for i, name in enumerate(state.players)
            ],
            "pending": list(state.pending),
            "timer_running": state.timer_running,
            "rounds": state.rounds,
            "winners": list(state.winners),
            "last": state.last,
        }


GAME = PivitTiles()


def describe_event(event: dict[str, Any], players: list[str]) -> str | None:
    """An event in a sentence, with the right actor: "Ann marked Cy's grid wrong".

    `by` is the player whose phone tapped, when the phone said; without it the
    sentence names only the player the event is about. None for a type this
    game does not know.
    """
    def name(key: str) -> str | None:
        value = event.get(key)
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(players)
        return players[value] if ok else None

    kind, who, by = event.get("type"), name("player"), name("by")
    other = by is not None and by != who  # someone tapped for another player
    if kind == "start-round":
        return f"{by} said go and the round started" if by else "Go! The round started"
    if kind == "next-round":
        return f"{by} set up the next round" if by else "The next round was set up"
    if kind == "timer-expired":
        return "Time ran out"
    if kind == "timer-cancelled":
        return f"{by} cancelled the one-minute timer" if by else "The one-minute timer was cancelled"
    if who is None:
        return None
    if kind == "trade":
        return f"{by} recorded a trade for {who}" if other else f"{who} traded a tile"
    if kind == "done":
        return f"{by} said done for {who}" if other else f"{who} said done"
    if kind == "return-stick":
        return f"{by} returned {who}'s stick" if other else f"{who} returned the stick"
    if kind == "leave":
        return f"{by} said {who} left the game" if other else f"{who} left the game"
    if kind == "verify":
        verdict = "correct" if event.get("valid") else "wrong"
        if event.get("source") == "camera":
            return (f"{by} recorded the camera check: {who}'s grid is {verdict}" if by
                    else f"The camera check found {who}'s grid {verdict}")
        if by == who:
            return f"{who} marked their own grid {verdict}"
        return f"{by} marked {who}'s grid {verdict}" if by else f"{who}'s grid was marked {verdict}"
    return None


# -- handlers: each mutates the fresh copy it is given ------------------------------


def _start_round(s: State, ev: dict) -> None:
    _require(s, "setup", what="Starting a round")
    s.round += 1
    s.tokens = [s.options.tokens if on else 0 for on in s.active]
    if s.two_player:
        s.centre = []
    else:
        count = 2 if sum(s.active) == 3 else 3
        s.centre = list(s.options.stick_values[:count])
    s.phase = "playing"
    s.last = f"Round {s.round}: go!"


def _trade(s: State, ev: dict) -> None:
    p = _player(s, ev)
    name = s.players[p]
    if s.phase == "race":
        if p not in s.racers:
            raise RuleError(f"{name} is not in the race, so has no tiles to trade")
    elif s.phase == "last-minute":
        if p == s.finisher:
            raise RuleError(f"{name} has finished this round")
    else:
        _require(s, "playing", what="Trading")
    if p in s.holder:
        raise RuleError(f"{name} holds the {s.holder[p]} stick: return it before trading")
    if p in s.pending:
        raise RuleError(f"{name} said done and waits for verification; trading now would change the grid")
    if s.tokens[p] <= 0:
        raise RuleError(f"{name} has no trade tokens left this round")
    s.tokens[p] -= 1
    s.last = f"{name} is trading ({s.tokens[p]} token{'s' if s.tokens[p] != 1 else ''} left)"


def _done(s: State, ev: dict) -> None:
    p = _player(s, ev)
    name = s.players[p]
    if p in s.holder:
        raise RuleError(f"{name} already holds the {s.holder[p]} stick")
    if p in s.pending:
        raise RuleError(f"{name} already said done; verify the grid first")
    if s.phase == "race":
        if p not in s.racers:
            raise RuleError(f"{name} is not in the race")
        s.pending.append(p)
        s.last = f"{name} says done: verify the grid"
        return
    if s.phase == "last-minute":
        if p == s.finisher:
            raise RuleError(f"{name} has already finished this round")
        if not s.timer_running:
            raise RuleError("the minute is over")
        s.pending.append(p)
        s.last = f"{name} says done: verify the grid"
        return
    _require(s, "playing", what="Saying done")
    if s.two_player:
        s.pending.append(p)
        s.last = f"{name} says done: the other player verifies the grid"
        return
    value = s.centre.pop(0)
    s.holder[p] = value
    s.finish_order.append(p)
    s.last = f"{name} is done and takes the {value} stick"
    if not s.centre:
        s.phase = "verifying"
        s.last += "; all sticks are taken: verify every stick holder's grid"


def _return_stick(s: State, ev: dict) -> None:
    p = _player(s, ev)
    _require(s, "playing", what="Returning a stick")
    if p not in s.holder:
        raise RuleError(f"{s.players[p]} holds no scoring stick")
    value = s.holder.pop(p)
    s.finish_order.remove(p)
    s.centre.append(value)
    s.centre.sort(reverse=True)
    s.last = f"{s.players[p]} returns the {value} stick to fix their grid"


def _verify(s: State, ev: dict) -> None:
    p = _player(s, ev)
    name = s.players[p]
    valid = ev.get("valid")
    if not isinstance(valid, bool):
        raise RuleError("'verify' needs valid: true or false")
    source = ev.get("source", "manual")
    if source not in ("manual", "camera"):
        raise RuleError("'verify' source must be 'manual' or 'camera'")
    if s.phase == "verifying":
        if p not in s.holder:
            raise RuleError(f"{name} holds no stick, so there is no grid of theirs to verify")
        if p in s.verified:
            raise RuleError(f"{name}'s grid is already verified")
        s.verified[p] = valid
        s.last = f"{name}'s grid is {'correct' if valid else 'NOT correct'}"
        if len(s.verified) == len(s.holder):
            _after_verification(s)
        return
    if s.phase in ("race", "last-minute") or (s.phase == "playing" and s.two_player):
        if p not in s.pending:
            raise RuleError(f"{name} has not said done")
        if s.pending[0] != p:
            first = s.players[s.pending[0]]
            raise RuleError(f"verify {first} first: they said done before {name}")
        s.pending.pop(0)
        if s.phase == "race":
            _race_verified(s, p, valid)
        elif s.phase == "playing":
            _two_player_first(s, p, valid)
        else:
            _two_player_second(s, p, valid)
        return
    _require(s, "verifying", what="Verifying")


def _after_verification(s: State) -> None:
    """All stick holders verified: score, or pass the sticks down and open the race."""
    wrong = [p for p in s.holder if not s.verified[p]]
    if not wrong:
        _score_round(s)
        return
    # The incorrect grid's stick passes down the holders: correct holders, in
    # stick order, take the highest sticks; the lowest sticks become free.
    by_value = sorted(s.holder, key=lambda p: -s.holder[p])
    sticks = sorted(s.holder.values(), reverse=True)
    correct = [p for p in by_value if s.verified[p]]
    s.holder = {p: sticks[i] for i, p in enumerate(correct)}
    s.centre = sticks[len(correct):]
    s.finish_order = list(correct)
    s.racers = [p for p in range(len(s.players)) if s.active[p] and p not in s.holder]
    s.verified = {p: True for p in correct}
    s.phase = "race"
    s.timer_running = True
    names = " and ".join(s.players[p] for p in s.racers)
    free = ", ".join(str(v) for v in s.centre)
    s.last = f"Incorrect grid: {names} race for the {free} stick{'s' if len(s.centre) > 1 else ''} — one minute!"


def _race_verified(s: State, p: int, valid: bool) -> None:
    name = s.players[p]
    if valid:
        value = s.centre.pop(0)
        s.holder[p] = value
        s.verified[p] = True
        s.finish_order.append(p)
        s.racers.remove(p)
        s.last = f"{name}'s grid is correct: {name} claims the {value} stick"
    else:
        s.last = f"{name}'s grid is NOT correct: keep racing" if s.timer_running else f"{name}'s grid is NOT correct"
    _maybe_end_race(s)


def _maybe_end_race(s: State) -> None:
    if not s.centre or not s.racers or (not s.timer_running and not s.pending):
        s.timer_running = False
        s.pending = []
        _score_round(s)


def _two_player_first(s: State, p: int, valid: bool) -> None:
    name = s.players[p]
    if not valid:
        s.last = f"{name}'s grid is not correct: play goes on, no penalty"
        return
    s.finisher = p
    s.verified[p] = True
    s.finish_order.append(p)
    s.pending = []
    s.phase = "last-minute"
    s.timer_running = True
    other = s.players[_other(s, p)]
    s.last = f"{name}'s grid is correct: {other} has one minute!"


def _two_player_second(s: State, p: int, valid: bool) -> None:
    name = s.players[p]
    if valid:
        s.second_done = True
        s.verified[p] = True
        s.finish_order.append(p)
        s.timer_running = False
        s.last = f"{name} completed the grid in time"
        _score_round(s)
    elif s.timer_running:
        s.last = f"{name}'s grid is not correct: keep going"
    else:
        s.last = f"{name}'s grid is not correct and the minute is over"
        _score_round(s)


def _other(s: State, p: int) -> int:
    return next(i for i, on in enumerate(s.active) if on and i != p)


def _timer_expired(s: State, ev: dict) -> None:
    if not s.timer_running:
        raise RuleError("no timer is running")
    s.timer_running = False
    if s.phase == "race":
        # Racers who said done before the buzzer are still verified.
        s.racers = [p for p in s.racers if p in s.pending]
        s.last = "Time! " + ("Verify the grids that were done in time" if s.pending else "No one claims the stick")
        _maybe_end_race(s)
    else:  # last-minute
        s.last = "Time!" + (" Verify the grid that was done in time" if s.pending else "")
        if not s.pending:
            _score_round(s)


def _score_round(s: State) -> None:
    result = {"round": s.round, "points": [], "sticks": [], "tokens": list(s.tokens)}
    for p in range(len(s.players)):
        if not s.active[p]:
            points, stick = 0, None
        elif s.two_player:
            hi, lo = s.options.stick_values[0], s.options.stick_values[1]
            stick = hi if p == s.finisher else lo if s.second_done and p in s.verified else None
            points = (stick or 0) + s.tokens[p]
        else:
            stick = s.holder.get(p)
            points = (stick or 0) + s.tokens[p]
        s.scores[p] += points
        result["points"].append(points)
        result["sticks"].append(stick)
    result["scores"] = list(s.scores)
    result["finish_order"] = list(s.finish_order)
    s.rounds.append(result)
    s.phase = "scored"
    s.timer_running = False
    s.pending = []
    s.racers = []
    summary = ", ".join(f"{s.players[p]} +{result['points'][p]}" for p in range(len(s.players)) if s.active[p])
    s.last = f"Round {s.round} scored: {summary}"
    _check_winner(s)


def _check_winner(s: State) -> None:
    target = s.options.target
    reached = [p for p in range(len(s.players)) if s.active[p] and s.scores[p] >= target]
    if not reached:
        return
    best = max(s.scores[p] for p in reached)
    top = [p for p in reached if s.scores[p] == best]
    if len(top) > 1 and s.options.tie_break == "play-on":
        s.last += f"; tie at {best}: play another round"
        return
    s.winners = top
    s.phase = "finished"
    s.last += "; " + " and ".join(s.players[p] for p in top) + (" win" if len(top) > 1 else " wins") + " the game!"


def _next_round(s: State, ev: dict) -> None:
    _require(s, "scored", what="Moving to the next round")
    s.phase = "setup"
    s.centre = []
    s.holder = {}
    s.finish_order = []
    s.verified = {}
    s.pending = []
    s.racers = []
    s.finisher = None
    s.second_done = False
    s.tokens = [s.options.tokens if on else 0 for on in s.active]
    s.last = "Return all tiles face down, mix them, take your trade tokens back and draw a new hand"


def _leave(s: State, ev: dict) -> None:
    p = _player(s, ev)
    if s.phase not in ("setup", "scored"):
        raise RuleError("a player can leave only between rounds: finish or score this round first")
    if sum(s.active) <= 2:
        # The last opponent leaving ends the game: the one who stays wins.
        s.active[p] = False
        s.winners = [_other_active(s)]
        s.phase = "finished"
        s.last = f"{s.players[p]} left; {s.players[s.winners[0]]} wins the game"
        return
    s.active[p] = False
    s.tokens[p] = 0
    s.last = f"{s.players[p]} left the game"


def _other_active(s: State) -> int:
    return next(i for i, on in enumerate(s.active) if on)


_HANDLERS = {
    "start-round": _start_round,
    "trade": _trade,
    "done": _done,
    "return-stick": _return_stick,
    "verify": _verify,
    "timer-expired": _timer_expired,
    "next-round": _next_round,
    "leave": _leave,
}
