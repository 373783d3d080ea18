"""Finished games, per-player statistics, and a game's export as CSV and JSON.

Scores and winners come from the engine's JSON through
`companion.tables.scores_of` / `winners_of`, so any game that reports them
gets history and charts. A player's "finishing time" is how long their games
took, from the first event to the end: the only measure every game shares.
Statistics are kept per game, since a Pivit score and a Scrabble Junior score
do not mean the same thing.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from companion.spreadsheet import cell
from companion.tables import Table, describe_event, scores_of, winners_of


@dataclass
class PlayerStats:
    name: str
    games: int = 0
    wins: int = 0
    score_total: float = 0.0
    scored_games: int = 0
    time_total_ms: int = 0

    @property
    def average_score(self) -> float | None:
        return self.score_total / self.scored_games if self.scored_games else None

    @property
    def average_minutes(self) -> float | None:
        return self.time_total_ms / self.games / 60000 if self.games else None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "games": self.games, "wins": self.wins,
                "average_score": self.average_score, "average_minutes": self.average_minutes}


@dataclass
class FinishedGame:
    table: Table
    scores: list[float] | None
    winners: list[int]
    started_ms: int
    finished_ms: int

    @property
    def duration_ms(self) -> int:
        return max(0, self.finished_ms - self.started_ms)

    @property
    def finished_text(self) -> str:
        return local_time(self.finished_ms)

    @property
    def finished_iso(self) -> str:
        return datetime.fromtimestamp(self.finished_ms / 1000).astimezone().isoformat(timespec="minutes")

    def story(self) -> list[tuple[int, str]]:
        """The game in sentences, in order: (time in ms, "Ann marked Cy's grid wrong")."""
        fold = self.table.fold
        return [(fold.event_ms[i], describe_event(self.table.game, event, self.table.players))
                for i, event in enumerate(fold.events)]


def finished_games(tables: list[Table]) -> list[FinishedGame]:
    """Every finished table, most recently finished first."""
    out = []
    for table in tables:
        if table.finished_ms is None:
            continue
        fold = table.fold  # replaced whole on each change: a consistent snapshot
        state = table.game.to_json(fold.state)
        started = fold.event_ms[0] if fold.event_ms else table.record.created_ms
        out.append(FinishedGame(table, scores_of(state, len(table.players)),
                                winners_of(state, len(table.players)), started, table.finished_ms))
    out.sort(key=lambda g: -g.finished_ms)
    return out


def player_statistics(games: list[FinishedGame]) -> dict[str, list[PlayerStats]]:
    """game title -> each player's statistics (players told apart by name, ignoring case), best first."""
    by_game: dict[str, dict[str, PlayerStats]] = {}
    for game in sorted(games, key=lambda g: g.finished_ms):  # a player keeps the spelling of their first game
        stats = by_game.setdefault(game.table.game.title, {})
        for i, name in enumerate(game.table.players):
            entry = stats.setdefault(name.casefold(), PlayerStats(name))
            entry.games += 1
            entry.wins += i in game.winners
            entry.time_total_ms += game.duration_ms
            if game.scores is not None:
                entry.score_total += game.scores[i]
                entry.scored_games += 1
    return {
        title: sorted(stats.values(), key=lambda s: (-s.wins, -(s.average_score or 0), s.name.casefold()))
        for title, stats in sorted(by_game.items())
    }


def local_time(ms: int, with_date: bool = True) -> str:
    """A moment as the table's clock says it: "Sat 23 Nov 2024, 14:05", or "14:05"."""
    moment = datetime.fromtimestamp(ms / 1000).astimezone()
    clock = f"{moment.hour:02d}:{moment.minute:02d}"
    return f"{moment:%a} {moment.day} {moment:%b %Y}, {clock}" if with_date else clock


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds")


def export_csv(table: Table) -> str:
    """The game's events in order (undone ones left out), with everyone's score after each."""
    fold = table.fold
    players = table.players
    has_scores = scores_of(table.game.to_json(fold.states[0]), len(players)) is not None
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    header = ["n", "time_utc", "event", "player", "player_name", "details"]
    if has_scores:
        header += [f"score {name}" for name in players]
    writer.writerow([cell(h) for h in header])
    for i, event in enumerate(fold.events):
        player = event.get("player")
        details = {k: v for k, v in event.items() if k not in ("type", "player")}
        row = [i + 1, _iso(fold.event_ms[i]), event["type"], player if player is not None else "",
               players[player] if isinstance(player, int) and 0 <= player < len(players) else "",
               json.dumps(details, sort_keys=True) if details else ""]
        if has_scores:
            row += scores_of(table.game.to_json(fold.states[i + 1]), len(players)) or [""] * len(players)
        writer.writerow([cell(c) for c in row])
    return out.getvalue()


def export_json(table: Table, entries: list) -> dict[str, Any]:
    """Everything about the game: who played, the options, the events, the full log and the final state."""
    fold = table.fold
    state = table.game.to_json(fold.state)
    return {
        "id": table.id,
        "game": table.game.id,
        "title": table.game.title,
        "players": table.players,
        "options": table.options,
        "created_ms": table.record.created_ms,
        "finished_ms": table.finished_ms,
        "version": table.published_version,
        "events": [{"n": i + 1, "at_ms": fold.event_ms[i], "event": e} for i, e in enumerate(fold.events)],
        "log": [{"seq": e.seq, "kind": e.kind, "body": e.body, "action_id": e.action_id, "at_ms": e.created_ms}
                for e in entries],
        "state": state,
        "scores": scores_of(state, len(table.players)),
        "winners": winners_of(state, len(table.players)) if table.finished_ms is not None else [],
    }
