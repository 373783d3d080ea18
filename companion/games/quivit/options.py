"""Quivit's table options: the rulebook's optional rules and the choices it leaves to the players.

Every optional rule is a switch here (Random Color, Color Blocking, Timed,
Drain the Deck, Double Rotation, Family Play), next to the two ways to play
("digital": the service deals a seeded virtual deck; "scorekeeping": the
players use the real cards and record what they take). Decisions the rulebook
leaves open are documented in docs/rules/quivit.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from companion.games.base import OptionError
from companion.games.quivit.cards import POINT_CARDS

MODES = ("digital", "scorekeeping")
DRAIN_SHORT_GRID = ("end", "play-on")
MAX_PLAYERS = 16  # four Family Play teams of four with one box
SIDES_PER_DECK = 4  # "enough cards for 4 players to play out a game of 5 rounds"
MAX_TEAM = 4

DEFAULTS: dict[str, Any] = {
    "mode": "digital",  # or "scorekeeping" for the real deck
    "seed": None,  # the digital deal's shuffle and flips, and the service's die rolls
    "decks": 1,  # boxes combined into one draw deck
    "rounds": 5,
    "first_player": 0,  # who starts with the timepiece (a side: a player, or a team in Family Play)
    "random_color": False,
    "color_blocking": False,
    "timed": False,
    "timer_seconds": 60,  # the Timed rule's turn, "shortened or extended" as the players like
    "drain_the_deck": False,
    "drain_threshold": 15,  # the game ends before a round when the draw deck holds this many or fewer
    "drain_short_grid": "end",  # an extra round whose refresh cannot fill the grid ends the game
    "double_rotation": False,
    # Where the rulebook's words are stretched, the default is their literal reading (docs/rules/quivit.md):
    "free_link_spends_double_rotate": False,  # "if the current player holds" the card: holding it is enough
    "free_link_takes_all": False,  # "may score all Free Links" through the card: the player may leave some
    "final_draw_counts_as_card": False,  # the end draw adds "the point value on the card to their final score"
    "current_player_may_block": False,  # "Free Links can be blocked by other players"
    "family_play": False,
    # Family Play: lists of player indices, e.g. [[0, 2], [1, 3]], or as typed on a phone,
    # "Ann, Cy / Bob, Di" (see parse_teams); empty: no teams. A string default makes the new-table
    # form show a text field for it.
    "teams": "",
    "team_names": "",  # Family Play: optional names, "Suns / Moons", default "Ann & Cy"
    "hints": False,  # show the best-rotation hint on the phones (learning games)
}

# Keys the table service keeps in a table's options for itself.
SERVICE_KEYS = {"pin"}

# The table service stores every option of a table, defaults included, so a table made before
# these three options existed has every other option and none of them. It was played under
# their old readings, and must replay under them: a Color Block by the current player in its
# event log would be refused, and a tie broken by the drawn card would change winner.
_OLD_READINGS = {"free_link_takes_all": True, "final_draw_counts_as_card": True, "current_player_may_block": True}
_STORED_BEFORE_THEM = frozenset(DEFAULTS) - set(_OLD_READINGS)


@dataclass(frozen=True)
class Options:
    mode: str
    seed: Any
    decks: int
    rounds: int
    first_player: int
    random_color: bool
    color_blocking: bool
    timed: bool
    timer_seconds: float
    drain_the_deck: bool
    drain_threshold: int
    drain_short_grid: str
    double_rotation: bool
    free_link_spends_double_rotate: bool
    free_link_takes_all: bool
    final_draw_counts_as_card: bool
    current_player_may_block: bool
    family_play: bool
    teams: tuple[tuple[int, ...], ...]  # every side's players; one player each without Family Play
    team_names: tuple[str, ...]
    hints: bool

    @property
    def digital(self) -> bool:
        return self.mode == "digital"

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "seed": self.seed,
            "decks": self.decks,
            "rounds": self.rounds,
            "first_player": self.first_player,
            "random_color": self.random_color,
            "color_blocking": self.color_blocking,
            "timed": self.timed,
            "timer_seconds": self.timer_seconds,
            "drain_the_deck": self.drain_the_deck,
            "drain_threshold": self.drain_threshold,
            "drain_short_grid": self.drain_short_grid,
            "double_rotation": self.double_rotation,
            "free_link_spends_double_rotate": self.free_link_spends_double_rotate,
            "free_link_takes_all": self.free_link_takes_all,
            "final_draw_counts_as_card": self.final_draw_counts_as_card,
            "current_player_may_block": self.current_player_may_block,
            "family_play": self.family_play,
            "teams": [list(t) for t in self.teams] if self.family_play else None,
            "team_names": list(self.team_names) if self.family_play else None,
            "hints": self.hints,
        }


def _bool(options: dict, key: str) -> bool:
    value = options.get(key, DEFAULTS[key])
    if not isinstance(value, bool):
        raise OptionError(f"option {key!r} must be true or false, not {value!r}")
    return value


def _whole(options: dict, key: str, low: int, high: int) -> int:
    value = options.get(key, DEFAULTS[key])
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise OptionError(f"option {key!r} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise OptionError(f"option {key!r} must be between {low} and {high}, not {value!r}")
    return int(value)


def _choice(options: dict, key: str, allowed: tuple[str, ...]) -> str:
    value = options.get(key, DEFAULTS[key])
    if value not in allowed:
        raise OptionError(f"option {key!r} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def parse_options(options: dict[str, Any] | None, players: list[str]) -> Options:
    """Validated options with the rulebook's defaults for this list of players. Raises OptionError."""
    options = dict(options or {})
    if _STORED_BEFORE_THEM <= set(options) and not set(_OLD_READINGS) & set(options):
        options.update(_OLD_READINGS)  # a table stored before the options existed
    unknown = set(options) - set(DEFAULTS) - SERVICE_KEYS
    if unknown:
        raise OptionError(f"unknown option {sorted(unknown)[0]!r} for Quivit")
    seed = options.get("seed")
    if seed is None:
        seed = 0  # the service puts a fresh seed in every table's options; 0 keeps tests and replays fixed
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise OptionError(f"option 'seed' must be a whole number or a string, not {seed!r}")
    timer = options.get("timer_seconds", DEFAULTS["timer_seconds"])
    if isinstance(timer, bool) or not isinstance(timer, (int, float)) or not 5 <= timer <= 600:
        raise OptionError(f"option 'timer_seconds' must be a number of seconds from 5 to 600, not {timer!r}")
    decks = _whole(options, "decks", 1, 4)
    family = _bool(options, "family_play")
    teams, names = _teams(options, players, family)
    if len(teams) > SIDES_PER_DECK * decks:
        who = "teams" if family else "players"
        raise OptionError(
            f"one box of cards is enough for {SIDES_PER_DECK} {who}; "
            f"{len(teams)} {who} need the option decks: {-(-len(teams) // SIDES_PER_DECK)}"
        )
    first = _whole(options, "first_player", 0, MAX_PLAYERS - 1)
    if first >= len(teams):
        raise OptionError(f"option 'first_player' must name one of the {len(teams)} {'teams' if family else 'players'}")
    return Options(
        mode=_choice(options, "mode", MODES),
        seed=seed,
        decks=decks,
        rounds=_whole(options, "rounds", 1, 20),
        first_player=first,
        random_color=_bool(options, "random_color"),
        color_blocking=_bool(options, "color_blocking"),
        timed=_bool(options, "timed"),
        timer_seconds=float(timer),
        drain_the_deck=_bool(options, "drain_the_deck"),
        drain_threshold=_whole(options, "drain_threshold", 0, POINT_CARDS),
        drain_short_grid=_choice(options, "drain_short_grid", DRAIN_SHORT_GRID),
        double_rotation=_bool(options, "double_rotation"),
        free_link_spends_double_rotate=_bool(options, "free_link_spends_double_rotate"),
        free_link_takes_all=_bool(options, "free_link_takes_all"),
        final_draw_counts_as_card=_bool(options, "final_draw_counts_as_card"),
        current_player_may_block=_bool(options, "current_player_may_block"),
        family_play=family,
        teams=teams,
        team_names=names,
        hints=_bool(options, "hints"),
    )


TEAM_SEPARATORS = re.compile(r"\s*(?:/|;|\n)\s*")
MEMBER_SEPARATORS = re.compile(r"\s*(?:,|&|\+)\s*")


def parse_teams(text: str, players: list[str]) -> list[list[int]]:
    """``"Ann, Cy / Bob, Di"`` -> ``[[0, 2], [1, 3]]``: Family Play teams as a phone types them.

    Teams are separated by ``/``, ``;`` or new lines, their members by ``,``,
    ``&`` or ``+``; a member is a player's name (any case) or a player's number
    counted from 1. Raises OptionError naming what it cannot read.
    """
    if not isinstance(text, str) or not text.strip():
        raise OptionError("Family Play needs teams, like: Ann, Cy / Bob, Di")
    by_name = {name.casefold(): i for i, name in enumerate(players)}
    teams = []
    for t, part in enumerate(TEAM_SEPARATORS.split(text.strip())):
        members = [m for m in MEMBER_SEPARATORS.split(part) if m]
        if not members:
            raise OptionError(f"team {t + 1} names nobody: write teams like Ann, Cy / Bob, Di")
        team = []
        for member in members:
            if member.casefold() in by_name:
                team.append(by_name[member.casefold()])
            elif member.isdigit() and 1 <= int(member) <= len(players):
                team.append(int(member) - 1)
            else:
                raise OptionError(f"team {t + 1} names {member!r}, who is not at this table")
        teams.append(team)
    return teams


def teams_str(teams, players: list[str]) -> str:
    """``[[0, 2], [1, 3]]`` -> ``"Ann, Cy / Bob, Di"``, the text `parse_teams` reads."""
    return " / ".join(", ".join(players[p] for p in team) for team in teams)


def parse_team_names(text: str) -> list[str]:
    """``"Suns / Moons"`` -> ``["Suns", "Moons"]``: separated like teams (``/``, ``;`` or new lines)."""
    return TEAM_SEPARATORS.split(text.strip()) if text.strip() else []


def _teams(options: dict, players: list[str], family: bool) -> tuple[tuple[tuple[int, ...], ...], tuple[str, ...]]:
    raw = options.get("teams")
    raw_names = options.get("team_names")
    # The new-table form sends empty text for an option left blank.
    if raw == "":
        raw = None
    if raw_names == "":
        raw_names = None
    if not family:
        if raw is not None or raw_names is not None:
            raise OptionError("teams are for Family Play: turn on the option family_play")
        return tuple((i,) for i in range(len(players))), tuple(players)
    if isinstance(raw, str):
        raw = parse_teams(raw, players)
    if isinstance(raw_names, str):
        raw_names = parse_team_names(raw_names)
    if not isinstance(raw, list) or not raw:
        raise OptionError("Family Play needs teams: lists of player numbers, like [[0, 2], [1, 3]], or Ann, Cy / Bob, Di")
    teams = []
    seen: set[int] = set()
    for t, team in enumerate(raw):
        if not isinstance(team, list) or not team:
            raise OptionError(f"team {t + 1} must be a list of player numbers, like [0, 2]")
        if len(team) > MAX_TEAM:
            raise OptionError(f"team {t + 1} has {len(team)} players; a team has at most {MAX_TEAM}")
        for p in team:
            if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < len(players):
                raise OptionError(f"team {t + 1} names player {p!r}, who is not at this table")
            if p in seen:
                raise OptionError(f"{players[p]} is in two teams")
            seen.add(p)
        teams.append(tuple(team))
    missing = [players[p] for p in range(len(players)) if p not in seen]
    if missing:
        raise OptionError(f"{missing[0]} is in no team")
    if len(teams) < 2:
        raise OptionError("Family Play needs at least two teams")
    if raw_names is None:
        names = [" & ".join(players[p] for p in team) for team in teams]
    else:
        if (
            not isinstance(raw_names, list)
            or len(raw_names) != len(teams)
            or not all(isinstance(n, str) and n.strip() for n in raw_names)
        ):
            raise OptionError("option 'team_names' must give one name per team")
        names = [n.strip() for n in raw_names]
        if len({n.casefold() for n in names}) != len(names):
            raise OptionError("two teams have the same name")
    return tuple(teams), tuple(names)
