"""The pure parts of the club: ratings (openskill) built game by game, and proposed seatings."""
from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from companion.club.ratings import Rater, rate_games
from companion.club.seatings import propose, table_sizes


def season(n: int, seed: int = 3):
    rng = random.Random(seed)
    games = []
    for _ in range(n):
        ids = rng.sample(range(12), rng.randint(2, 4))
        scores = [rng.randint(0, 5) for _ in ids]
        games.append([(p, 1 + sum(x > s for x in scores)) for p, s in zip(ids, scores)])
    return games


def test_ratings_built_game_by_game_are_those_of_the_whole_season():
    games = season(60)
    whole = rate_games(games)
    rater = Rater()
    for start in range(0, 60, 7):
        rater.rate(games[start:start + 7])
    assert {p: (r.mu, r.sigma, r.games) for p, r in rater.ratings().items()} == \
           {p: (r.mu, r.sigma, r.games) for p, r in whole.items()}


def test_winners_go_up_and_ties_share_and_uncertainty_shrinks():
    rated = rate_games([[(1, 1), (2, 2), (3, 2), (4, 4)]] * 5)
    assert rated[1].mu > rated[2].mu == rated[3].mu > rated[4].mu
    assert all(r.sigma < 25 / 3 for r in rated.values()) and rated[1].games == 5
    assert rate_games([[(1, 1)], [(2, 1), (2, 2)]]) == {}  # one player, or a player twice: nothing to learn


@given(st.integers(2, 60))
def test_every_player_is_seated_once_at_a_table_of_two_to_four(count):
    sizes = table_sizes(count)
    assert sum(sizes) == count and all(2 <= s <= 4 for s in sizes)
    met = {frozenset((a, a + 1)) for a in range(0, count, 2)}
    tables = propose(list(range(count)), met)
    assert sorted(p for t in tables for p in t) == list(range(count))
    assert [len(t) for t in tables] == sizes


def test_a_swap_keeps_tonights_opponents_apart_where_it_can():
    met = {frozenset((0, 1)), frozenset((2, 3))}
    tables = propose([0, 1, 2, 3, 4, 5, 6, 7], met)
    repeats = sum(frozenset((a, b)) in met for t in tables for a in t for b in t if a < b)
    assert repeats == 0
