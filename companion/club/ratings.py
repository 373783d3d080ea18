"""Ratings per player per game, with their uncertainty: openskill's Plackett-Luce model.

Plackett-Luce is made for free-for-all games of any number of players and
understands ties (equal ranks). Every player starts at mu 25, sigma 25/3;
each finished game moves the players' mu and shrinks their sigma. The shown
rating is the conservative ``mu - 3 sigma`` (openskill's ordinal), which only
climbs as the club becomes sure of a player; the uncertainty is shown beside it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass
class Rating:
    player_id: int
    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict:
        return {"player_id": self.player_id, "rating": round(self.ordinal, 2), "mu": round(self.mu, 3),
                "sigma": round(self.sigma, 3), "games": self.games}


class Rater:
    """Ratings built game by game: `rate` more games (oldest first), `ratings()` as they stand."""

    def __init__(self) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.current: dict[int, object] = {}
        self.played: dict[int, int] = {}
        self._view: dict[int, Rating] | None = None

    def rate(self, games: Iterable[Sequence[tuple[int, int]]]) -> None:
        """Each game is [(player id, rank), ...], rank 1 first; a game of one player (or a player
        listed twice) teaches nothing and is skipped."""
        model, current = self.model, self.current
        for game in games:
            ids = [player for player, _ in game]
            if len(ids) < 2 or len(set(ids)) != len(ids):
                continue
            teams = [[current.get(player) or model.rating()] for player in ids]
            rated = model.rate(teams, ranks=[rank for _, rank in game])
            for player, (rating,) in zip(ids, rated):
                current[player] = rating
                self.played[player] = self.played.get(player, 0) + 1
            self._view = None

    def ratings(self) -> dict[int, Rating]:
        if self._view is None:
            self._view = {p: Rating(p, r.mu, r.sigma, self.played[p]) for p, r in self.current.items()}
        return self._view


def rate_games(games: Iterable[Sequence[tuple[int, int]]]) -> dict[int, Rating]:
    """Ratings after `games`, oldest first; each game is [(player id, rank), ...] with rank 1 first."""
    rater = Rater()
    rater.rate(games)
    return rater.ratings()
