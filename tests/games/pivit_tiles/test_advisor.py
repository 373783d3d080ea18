"""The trade advisor: exact probabilities worked out by hand, cross-checks against the
plain solver (brute force and a 10,000-draw Monte Carlo), the p_two estimate's
statistics, and the `companion pivit advise` command's contract."""
from __future__ import annotations

import gc
import json
import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from companion.cli import main
from companion.games.pivit_tiles import advisor as advisor_module
from companion.games.pivit_tiles.advisor import AdviceError, advise, unseen_pile
from companion.games.pivit_tiles.check import check_grid
from companion.games.pivit_tiles.solver import few_tiles_proof, hard_tiles, solve
from companion.games.pivit_tiles.tiles import TileError, get_tileset

CLASSIC = get_tileset("classic")

# Two seeded random unplayable 24-tile hands (bench/advisor.py --seed 1, hands 5
# and 7): one whose candidates are cheap to brute-force, one with a wild whose
# best trade has a probability well inside (0, 1).
HAND_LONELY = "1B 4O 2O 5P 2B 2R 6O 1B 4R 3B 6B 4P 3R 4P 2B 6R 4Y 3O 1B 2Y 5G 6Y 1O 1O".split()
HAND_WILD = "1R 5G 1R 3R 6Y 6G 3G 4G 4Y 2R 1B 4G 6G 3O 1G 4G 5B 2O ** 6B 2R 3O 3O 1B".split()
# A playable 24-tile hand: four colour rows of six designs.
HAND_PLAYABLE = [f"{d}{c}" for c in "RGBY" for d in "123456"]


def by_trade(advice):
    return {a.trade: a for a in advice.advice}


# -- the plain solver as the reference -------------------------------------------


class Reference:
    """Brute force with nothing but `solve`: every draw enumerated, every hand solved."""

    def __init__(self, tileset="classic", young=False):
        self.ts = get_tileset(tileset)
        self.young = young
        self.cache: dict[tuple, bool] = {}

    def playable(self, hand) -> bool:
        key = tuple(sorted(hand))
        if key not in self.cache:
            result = solve(list(hand), self.ts, self.young, timeout=None)
            self.cache[key] = result.status == "solved"
        return self.cache[key]

    @staticmethod
    def traded(hand, out, into):
        new = list(hand)
        new.remove(out)
        new.append(into)
        return new

    def p_one(self, hand, trade, unseen: Counter) -> Fraction:
        pile = unseen + Counter([trade])
        total = sum(pile.values())
        good = sum(n for d, n in pile.items() if self.playable(self.traded(hand, trade, d)))
        return Fraction(good, total)

    def p_two(self, hand, trade, unseen: Counter) -> Fraction:
        """The best second trade after seeing the first draw, by full enumeration."""
        pile = unseen + Counter([trade])
        total = sum(pile.values())
        value = Fraction(0)
        for d1, n in pile.items():
            h1 = self.traded(hand, trade, d1)
            if self.playable(h1):
                v = Fraction(1)
            else:
                left = pile - Counter([d1])
                v = max(self.p_one(h1, t2, left) for t2 in set(h1))
            value += n * v
        return value / total


# -- hand-made cases, worked out on paper -------------------------------------------


def test_red_pair_needs_a_red_third():
    # 1R 2R 4B: three tiles make one line, and 1R 2R only fit a red line.
    # Unseen 3R 5G 6G. Trading 4B: the pile is 3R 5G 6G 4B, and only 3R works: 1/4.
    # Trading 1R (or 2R) leaves 2R 4B, which share neither colour nor design: 0.
    # Two trades, 4B first: 3R wins (1/4); 4B back is the same hand (then 1/4);
    # 5G or 6G: trade it back for 1/4. So 1/4 + 3/4 * 1/4 = 7/16.
    # 1R first: 1R back (1/4) then 1/4; 3R (1/4) gives 2R 3R 4B, then trading 4B
    # wins on 1R: 1/4; 5G or 6G leave two tiles that share nothing: 0. So 1/8.
    advice = advise(["1R", "2R", "4B"], unseen=["3R", "5G", "6G"])
    assert advice.playable is False and advice.grid is None
    assert [a.trade for a in advice.advice] == ["4B", "1R", "2R"]
    got = by_trade(advice)
    assert got["4B"].p_one == pytest.approx(1 / 4) and got["4B"].p_two == pytest.approx(7 / 16)
    assert got["1R"].p_one == 0 and got["1R"].p_two == pytest.approx(1 / 8)
    assert got["2R"].p_one == 0 and got["2R"].p_two == pytest.approx(1 / 8)
    assert advice.p_two_exact and all(a.p_two_stderr is None for a in advice.advice)


def test_default_pile_is_the_box_minus_the_hand():
    # The pile when trading 4B from 1R 2R 4B: 114 - 3 + 1 = 112 tiles. The hand is
    # playable with any of 3R 4R 5R 6R (3 copies each) or a wild (6): 18 of 112.
    advice = advise(["1R", "2R", "4B"], trades=1)
    got = by_trade(advice)
    assert got["4B"].p_one == pytest.approx(18 / 112)
    assert got["4B"].p_two == got["4B"].p_one and got["4B"].p_two_stderr is None
    assert got["1R"].p_one == 0 and got["2R"].p_one == 0


def test_young_players_pair():
    # Younger players: two tiles make a line. 1R 4B share nothing. Unseen 2R 5G.
    # Trade 4B: pile 2R 5G 4B, 2R works: 1/3. Trade 1R: 4B pairs with neither: 0.
    # Two trades from 4B: 2R (1/3) wins; 4B back (1/3) then 1/3; 5G (1/3): trade it
    # back for 1/3. So 1/3 + 2/3 * 1/3 = 5/9.
    advice = advise(["1R", "4B"], young=True, unseen=["2R", "5G"])
    got = by_trade(advice)
    assert got["4B"].p_one == pytest.approx(1 / 3) and got["4B"].p_two == pytest.approx(5 / 9)
    assert got["1R"].p_one == 0
    # Without the variation no pair of tiles is ever a grid.
    assert all(a.p_one == 0 for a in advise(["1R", "4B"], unseen=["2R", "5G"]).advice)


def test_drawing_a_wild():
    # 1R 2R 4B with unseen ** 5G: trading 4B, the wild completes the red line: 1/3.
    # Trading 1R, even a wild cannot join 2R and 4B, so every draw fails (the
    # advisor learns this from the one hand 2R 4B **).
    got = by_trade(advise(["1R", "2R", "4B"], unseen=["**", "5G"], trades=1))
    assert got["4B"].p_one == pytest.approx(1 / 3)
    assert got["1R"].p_one == 0 and got["2R"].p_one == 0


def test_trading_a_wild_away_never_helps():
    # 1R 4B ** cannot be arranged (1R and 4B share nothing, whatever the wild is).
    # Trading the wild gives 1R 4B x, which a wild could always imitate: 0.
    got = by_trade(advise(["1R", "4B", "**"], trades=1))
    assert got["**"].p_one == 0
    # Trading 4B (pile 112): 1R ** x is a line when x is another red tile (5 x 3),
    # another circle (5 x 3) or one of the 5 other wilds; not a second 1R: 35 of 112.
    assert got["4B"].p_one == pytest.approx(35 / 112)


def test_playable_hand_gets_an_arrangement_and_no_advice():
    advice = advise(HAND_PLAYABLE)
    assert advice.playable and advice.advice == []
    assert sorted(advice.grid.values()) == sorted(HAND_PLAYABLE)
    assert check_grid(advice.grid, "classic", tiles=24).valid


def test_no_trades_left():
    advice = advise(["1R", "2R", "4B"], trades=0)
    assert advice.playable is False and advice.advice == []


def test_empty_pile_returns_the_same_tile():
    # With nothing unseen the traded tile comes straight back: the same hand.
    got = by_trade(advise(["1R", "2R", "4B"], unseen=[]))
    assert got["4B"].p_one == 0 and got["4B"].p_two == 0


@pytest.mark.parametrize(
    "hand, unseen, trades, message",
    [
        ([], None, 2, "no tiles"),
        (["1R"] * 4 + ["2R"], None, 2, "4 copies of 1R"),
        (["**"] * 7, None, 2, "7 copies of \\*\\*"),
        (["1R", "1R", "2R"], ["1R", "1R"], 2, "2 unseen 1R .* and 2 in the hand"),
        (["1R", "2R", "3G"], None, 3, "0, 1 or 2 trades"),
    ],
)
def test_impossible_inputs(hand, unseen, trades, message):
    with pytest.raises(AdviceError, match=message):
        advise(hand, trades=trades, unseen=unseen)


def test_tiles_outside_the_set():
    with pytest.raises(TileError, match="purple is not in the connect tile set"):
        advise(["1P", "2R", "3R"], tileset="connect")


def test_unseen_pile():
    assert sum(unseen_pile(HAND_PLAYABLE).values()) == 90
    assert unseen_pile(["1R"], unseen=["2R", "2R", "**"]) == Counter({"2R": 2, "**": 1})


# -- cross-checks against the plain solver ----------------------------------------

SMALL_TILES = [f"{d}{c}" for d in "1234" for c in "ROYG"] + ["**"]


@st.composite
def small_deals(draw):
    """A hand of 2-5 tiles and an unseen pile of 0-5, from a crowded corner of the box."""
    box = [t for t in SMALL_TILES for _ in range(3 if t != "**" else 6)]
    order = draw(st.permutations(box))
    n_hand = draw(st.integers(2, 5))
    n_unseen = draw(st.integers(0, 5))
    return list(order[:n_hand]), list(order[n_hand : n_hand + n_unseen]), draw(st.booleans())


@settings(max_examples=80)
@given(small_deals())
def test_small_hands_match_brute_force(deal):
    """Every p_one and every exact p_two equals full enumeration with the plain solver."""
    hand, unseen, young = deal
    advice = advise(hand, young=young, unseen=unseen, timeout=None, trade_timeout=None)
    ref = Reference(young=young)
    assert advice.playable == ref.playable(hand)
    if advice.playable:
        assert advice.advice == []
        return
    assert advice.p_two_exact
    assert sorted(a.trade for a in advice.advice) == sorted(set(hand))
    pile = Counter(unseen)
    for a in advice.advice:
        assert a.p_one == pytest.approx(float(ref.p_one(hand, a.trade, pile)))
        assert a.p_two == pytest.approx(float(ref.p_two(hand, a.trade, pile)))
    keys = [(-round(a.p_two * 100), -a.p_one) for a in advice.advice]
    assert keys == sorted(keys)


@settings(max_examples=40)
@given(small_deals())
def test_estimate_never_beats_best_play(deal):
    """Forced to estimate, p_two is a policy's chance: at most the best play's, up to its noise."""
    hand, unseen, young = deal
    exact = advise(hand, young=young, unseen=unseen, timeout=None, trade_timeout=None)
    estimate = advise(
        hand, young=young, unseen=unseen, timeout=None, trade_timeout=None, exact_limit=0, exact_hands=0, exact_best=0, samples=400
    )
    assert estimate.playable == exact.playable
    best = {a.trade: a for a in exact.advice}
    for a in estimate.advice:
        assert a.p_one == best[a.trade].p_one
        assert a.p_one <= a.p_two <= 1
        assert a.p_two <= best[a.trade].p_two + 4 * a.p_two_stderr + 0.01


def test_every_candidate_of_a_dealt_hand_matches_brute_force():
    advice = advise(HAND_LONELY, trades=1, timeout=None, trade_timeout=None)
    ref = Reference()
    pile = unseen_pile(HAND_LONELY)
    assert not advice.playable
    for a in advice.advice:
        assert a.p_one == pytest.approx(float(ref.p_one(HAND_LONELY, a.trade, pile))), a.trade
    assert advice.advice[0].p_one == pytest.approx(18 / 91)


# A younger players' hand (bench/advisor.py --young, seed 1, the first hand):
# three 2Y whose only partners are 3Y and 5Y, and 4G whose only partners are
# 6G and 4R. Dozens of hands one trade away were "unknown" (the structure
# search ran for minutes); a few tiles' proof now decides them.
HAND_YOUNG_HARD = "1B 1B 1O 1R 2Y 2Y 2Y 3B 3B 3O 3P 3R 3R 3Y 4G 4G 4G 4R 5B 5B 5O 5R 5Y 6G".split()


def test_young_hand_whose_neighbours_need_a_few_tiles_proof():
    advice = advise(HAND_YOUNG_HARD, young=True, trades=1, timeout=None, trade_timeout=None)
    assert not advice.playable and advice.unknown == 0
    ref = Reference(young=True)
    pile = unseen_pile(HAND_YOUNG_HARD)
    best = by_trade(advice)
    for trade in ("2Y", "1R"):
        assert best[trade].p_one == pytest.approx(float(ref.p_one(HAND_YOUNG_HARD, trade, pile))), trade
    # Some of those hands are impossible only through the proof, and it names its tiles.
    drawn = Reference.traded(HAND_YOUNG_HARD, "1R", "2G")
    assert few_tiles_proof(drawn, young=True) == ["2Y", "4G"]
    assert not ref.playable(drawn)


# A dealt hand (bench/advisor.py, seed 1, the 17th unplayable hand) whose two 2G no set of
# lines can place (their partners 2O, 2B, 4G and the other 2G are too few). Most hands a
# trade away leave that problem as it is: the same search on their own copies proves them
# impossible, where the solver was asked about 478 of them.
HAND_HARD_TILES = "5B 5R 5Y 6R 4B 4Y 5R 3P 4B 3B 3R 2G 5Y 6B 4P 1P 1Y 5O 4G 1B 2O 2B 2G 4R".split()


def test_the_hands_hard_tiles_decide_most_hands_a_trade_away():
    assert hard_tiles(HAND_HARD_TILES) == ["2G"]
    advice = advise(HAND_HARD_TILES, trades=1, timeout=None, trade_timeout=None)
    ref = Reference()
    pile = unseen_pile(HAND_HARD_TILES)
    for a in advice.advice:
        assert a.p_one == pytest.approx(float(ref.p_one(HAND_HARD_TILES, a.trade, pile))), a.trade
    assert advice.advice[0].trade == "2G" and advice.unknown == 0
    assert advice.solver_calls < 100, advice.solver_calls


# Another (the 18th): its 6R fit no line, but trading 4O leaves two 5O with too few partners,
# and trading 4G or 5G two 3G: the hard tiles of the 23 tiles kept decide most of those draws.
HAND_TRADE_CORES = "2P 3G 3P 3P 5O 4O 1Y 1B 4Y 6G 1O 5G 6R 5P 1R 1O 1B 5O 1P 4B 4G 3G 4P 2P".split()


def test_the_hard_tiles_of_the_tiles_kept_decide_draws():
    kept = list(HAND_TRADE_CORES)
    kept.remove("4O")
    assert hard_tiles(HAND_TRADE_CORES) == ["6R"] and hard_tiles(kept) == ["5O"]
    advice = advise(HAND_TRADE_CORES, trades=1, timeout=None, trade_timeout=None)
    ref = Reference()
    pile = unseen_pile(HAND_TRADE_CORES)
    for a in advice.advice:
        assert a.p_one == pytest.approx(float(ref.p_one(HAND_TRADE_CORES, a.trade, pile))), a.trade
    assert advice.unknown == 0
    assert advice.solver_calls < 66, advice.solver_calls  # 76 with the whole hand's hard tiles only


def test_the_counting_proof_is_asked_only_where_no_hard_tiles_were(monkeypatch):
    """With hard tiles asked (HAND_HARD_TILES: 2G) the counting proof is not asked again on the
    hands a trade away (it proved 3 of 2,422 of the bench's); with younger players, whose
    hard tiles are not asked, it decides most of HAND_YOUNG_HARD's. p_one stays exact."""
    asked = []
    proof = advisor_module.few_tiles_proof

    def counted(tiles, ts, young=False):
        found = proof(tiles, ts, young)
        asked.append(bool(found))
        return found

    monkeypatch.setattr(advisor_module, "few_tiles_proof", counted)
    advice = advise(HAND_HARD_TILES, trades=1, timeout=None, trade_timeout=None)
    # Asked once: on the hand itself, judged before its hard tiles are known.
    assert asked == [False] and advice.advice[0].trade == "2G" and advice.unknown == 0
    ref = Reference()
    pile = unseen_pile(HAND_HARD_TILES)
    for a in advice.advice[:3]:
        assert a.p_one == pytest.approx(float(ref.p_one(HAND_HARD_TILES, a.trade, pile))), a.trade
    advise(HAND_YOUNG_HARD, young=True, trades=1, timeout=None, trade_timeout=None)
    assert sum(asked) > 10


# A younger players' hand (bench/advisor.py --young, seed 1, the second hand) whose hands
# a trade away are mostly playable and rarely repaired from the grids found before them:
# the solver was asked about 39 of them one by one. Left open and offered every grid
# found later (and first solved with a small budget, so that a slow one waits for those
# grids), 16 need the solver.
HAND_YOUNG_OPEN = "3G 4G 2R 2O 6G 2G 2G 6B 1Y 3G 1Y 4O 3O 2G ** 2B 2R 5P 6R 4B 3B 1B 4Y 5P".split()


def test_hands_left_open_are_repaired_from_grids_found_later():
    advice = advise(HAND_YOUNG_OPEN, young=True, trades=1, timeout=None, trade_timeout=None)
    ref = Reference(young=True)
    pile = unseen_pile(HAND_YOUNG_OPEN)
    for a in advice.advice:
        assert a.p_one == pytest.approx(float(ref.p_one(HAND_YOUNG_OPEN, a.trade, pile))), a.trade
    assert advice.unknown == 0
    assert advice.solver_calls < 25, advice.solver_calls


def test_draws_the_hand_holds_are_judged_first(monkeypatch):
    # A grid after drawing a tile the hand holds has several cells of that
    # tile where the trade's other draws can be repaired in: judged first,
    # those draws leave fewer hands to the solver, with the same p_one.
    key = advisor_module._key(HAND_HARD_TILES, CLASSIC)
    order = advisor_module._draw_order(key)
    held = [d for d in order if key[d]]
    assert sorted(order) == list(range(advisor_module.SLOTS))
    assert order[: len(held)] == held
    assert [key[d] for d in held] == sorted((key[d] for d in held), reverse=True)
    kept = advise(HAND_HARD_TILES, trades=1, timeout=None, trade_timeout=None)
    monkeypatch.setattr(advisor_module, "_draw_order", lambda hand: list(range(advisor_module.SLOTS)))
    plain = advise(HAND_HARD_TILES, trades=1, timeout=None, trade_timeout=None)
    assert [(a.trade, a.p_one) for a in kept.advice] == [(a.trade, a.p_one) for a in plain.advice]
    assert kept.solver_calls < plain.solver_calls, (kept.solver_calls, plain.solver_calls)


def test_the_open_hands_budget_is_work_not_time():
    # The first round's budget counts the solver's deadline checks, so it
    # stops at the same point on any machine: the same steps every time.
    clock = advisor_module._work_clock()
    assert [clock() for _ in range(3)] == [1.0, 2.0, 3.0]
    # A hand a trade away from a bench hand that takes the solver thousands of steps.
    hand = "1G 1O 1P 1P 1R 1Y 2O 2P 2P 3B 3G 3P 3P 4Y 5G 5O 5P 5R 5R 5R 5Y 6B 6G 6P".split()
    runs = [solve(hand, timeout=3, clock=advisor_module._work_clock()) for _ in range(2)]
    assert runs[0].status == runs[1].status == "timeout"
    assert runs[0].steps == runs[1].steps


def test_a_hand_the_repairs_miss_is_rebuilt_from_a_grid_one_swap_away():
    # 1R 2R 3R / 1O / 1Y 2Y 3Y, with 2R traded for 3O: 3O fits neither 2R's cell
    # nor any cell beside the grid once 2R has left (3R is then cut off), so the
    # repairs fail; taking 3R out too and putting both back gives
    # 1R . 3R / 1O . 3O / 1Y 2Y 3Y.
    ts = get_tileset("classic")
    grid = {(0, 0): "1R", (0, 1): "2R", (0, 2): "3R", (1, 0): "1O", (2, 0): "1Y", (2, 1): "2Y", (2, 2): "3Y"}
    assert check_grid(grid, ts, tiles=7).valid
    judge = advisor_module._Judge(ts, False, None)
    known = advisor_module._key(list(grid.values()), ts)
    judge._remember(known, grid)
    after = sorted(grid.values())
    after[after.index("2R")] = "3O"
    key = advisor_module._key(after, ts)
    assert judge._swap_into_known_grid(key) is None
    rebuilt = judge._rebuild(key)
    assert rebuilt is not None
    assert check_grid(rebuilt, ts, tiles=7).valid
    assert sorted(rebuilt.values()) == sorted(after)
    # A hand with no grid is never rebuilt: every grid offered passes the full check.
    assert judge._rebuild(advisor_module._swap(known, advisor_module._index("2R", ts), advisor_module._index("6P", ts))) is None


def test_the_cycle_collector_is_paused_during_the_advice():
    # The advice frees its objects by reference counting; the collector's
    # passes over them are time spent finding almost nothing. Paused for the
    # advice, it is back on after it, and left off if it was off.
    passes = []

    def counted(phase, info):
        if phase == "start":
            passes.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(counted)
    try:
        advice = advise(HAND_LONELY, trades=1, timeout=None, trade_timeout=None)
    finally:
        gc.callbacks.remove(counted)
    assert advice.solver_calls > 0
    # At most the one pass that the first allocation after the advice starts.
    assert len(passes) <= 1, passes
    assert gc.isenabled()
    gc.disable()
    try:
        advise(HAND_LONELY, trades=1, timeout=None, trade_timeout=None)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_best_trade_matches_monte_carlo():
    """Soundness: 10,000 seeded draws with the plain solver agree within three standard errors."""
    advice = advise(HAND_WILD, trades=1, timeout=None, trade_timeout=None)
    best = advice.advice[0]
    p = best.p_one
    assert 0.05 < p < 0.95  # a case where the simulation can disagree
    ref = Reference()
    pile = list((unseen_pile(HAND_WILD) + Counter([best.trade])).elements())
    rng = random.Random(2024)
    n = 10_000
    hits = sum(ref.playable(Reference.traded(HAND_WILD, best.trade, rng.choice(pile))) for _ in range(n))
    assert abs(hits / n - p) <= 3 * math.sqrt(p * (1 - p) / n)


# -- the p_two estimate --------------------------------------------------------------


def test_red_line_after_two_trades():
    # 1R 2R 4B with unseen 3R 5R 6R. Trading 4B: any red works, 3/4; drawn back,
    # trade it again: 3/4 + 1/4 * 3/4 = 15/16. Trading 1R: never playable at once
    # (2R and 4B share nothing), but after drawing a red (3/4) trading 4B then
    # succeeds with 3/4 (the pile is two reds, 1R and 4B), and after drawing 1R
    # back (1/4) so does trading 4B: p_two = 3/4.
    got = by_trade(advise(["1R", "2R", "4B"], unseen=["3R", "5R", "6R"]))
    assert (got["4B"].p_one, got["4B"].p_two) == (pytest.approx(3 / 4), pytest.approx(15 / 16))
    assert (got["1R"].p_one, got["1R"].p_two) == (0, pytest.approx(3 / 4))
    assert (got["2R"].p_one, got["2R"].p_two) == (0, pytest.approx(3 / 4))


def test_exact_p_two_drops_second_trades_that_cannot_win(monkeypatch):
    # A dealt hand with a short pile, so p_two is exact. After each first draw the best
    # second trade is a maximum over the hand's tiles; a second trade is judged only
    # until its failed draws leave it unable to beat the best so far. The same p_two as
    # working out every second trade in full, and as the plain solver, for fewer hands.
    unseen = ["3Y", "1R", "**"]
    kwargs = dict(unseen=unseen, exact_limit=10**6, timeout=None, trade_timeout=None)
    fast = advise(HAND_LONELY, **kwargs)

    def every_second_trade(self, h1, d1, back):
        return max(self.p_one(h1, t2) for t2 in self.candidates(h1))

    monkeypatch.setattr(advisor_module._Advisor, "best_second", every_second_trade)
    full = advise(HAND_LONELY, **kwargs)
    assert fast.p_two_exact and full.p_two_exact
    assert [(a.trade, a.p_one, a.p_two) for a in fast.advice] == [(a.trade, a.p_one, a.p_two) for a in full.advice]
    assert fast.hands < full.hands
    ref = Reference()
    for a in fast.advice[:2]:
        assert a.p_two == pytest.approx(float(ref.p_two(HAND_LONELY, a.trade, Counter(unseen)))), a.trade
    assert 0 < fast.advice[0].p_one < fast.advice[0].p_two < 1


def test_draws_left_waiting_by_a_second_trade_expected_to_lose_keep_p_two_exact(monkeypatch):
    # A second trade expected to lose judges first the draws the solver decides within
    # SECOND_BUDGET, the others after them, and stops once its failed draws leave it unable to
    # win. With a budget of one deadline check most draws the solver must decide wait; the
    # values are the same as with every draw decided at once, and as the brute force's.
    unseen = ["3Y", "1R", "**"]
    kwargs = dict(unseen=unseen, exact_limit=10**6, timeout=None, trade_timeout=None)
    waited = []
    within = advisor_module._Judge.within

    def counted(self, key, budget):
        verdict = within(self, key, budget)
        waited.append(verdict is advisor_module._OPEN)
        return verdict

    monkeypatch.setattr(advisor_module._Judge, "within", counted)
    monkeypatch.setattr(advisor_module, "SECOND_BUDGET", 1)
    tight = advise(HAND_LONELY, **kwargs)
    assert any(waited)
    monkeypatch.setattr(advisor_module, "SECOND_BUDGET", 10**9)
    waited.clear()
    loose = advise(HAND_LONELY, **kwargs)
    assert not any(waited)
    assert tight.p_two_exact and loose.p_two_exact
    assert [(a.trade, a.p_one, a.p_two) for a in tight.advice] == [(a.trade, a.p_one, a.p_two) for a in loose.advice]
    ref = Reference()
    for a in tight.advice[:3]:
        assert a.p_two == pytest.approx(float(ref.p_two(HAND_LONELY, a.trade, Counter(unseen)))), a.trade


def test_a_pilot_out_of_budget_only_changes_the_policy(monkeypatch):
    """A pilot's hand the solver does not decide within PILOT_BUDGET counts as a failed attempt
    and is left unjudged. With a budget of one deadline check, on a dealt hand with a short pile
    forced to estimate: some pilot hands run out, every verdict the advice keeps is the plain
    solver's, p_one is exact, no hand is unknown, and the estimates stay at most best play's,
    up to their noise."""
    unseen = ["3Y", "1R", "**", "6P", "2G"]
    kwargs = dict(unseen=unseen, timeout=None, trade_timeout=None)
    exact = by_trade(advise(HAND_LONELY, exact_limit=10**6, **kwargs))
    judges, undecided = [], []
    judge_init, within = advisor_module._Judge.__init__, advisor_module._Judge.within

    def kept(self, *args):
        judge_init(self, *args)
        judges.append(self)

    def counted(self, key, budget):
        verdict = within(self, key, budget)
        undecided.append(verdict is advisor_module._OPEN)
        return verdict

    monkeypatch.setattr(advisor_module._Judge, "__init__", kept)
    monkeypatch.setattr(advisor_module._Judge, "within", counted)
    monkeypatch.setattr(advisor_module, "PILOT_BUDGET", 1)
    estimate = advise(HAND_LONELY, exact_limit=0, exact_hands=0, exact_best=0, samples=200, **kwargs)
    assert any(undecided) and estimate.unknown == 0
    ts = get_tileset("classic")
    for key, verdict in judges[0].verdicts.items():
        assert verdict == (solve(advisor_module._tiles(key, ts), ts).status == "solved"), key
    for a in estimate.advice:
        assert a.p_one == exact[a.trade].p_one
        assert a.p_one <= a.p_two <= 1
        assert a.p_two <= exact[a.trade].p_two + 4 * a.p_two_stderr + 0.01


def test_estimate_is_unbiased_with_the_stated_standard_error():
    # The same deal, forced to estimate. Trading 1R: drawing 1R back is exact
    # (1/4 of the draws, worth the best p_one 3/4); after a red the policy's
    # follow-up trade is 4B (its pilot succeeds, trading 2R never does), which
    # succeeds with 3/4: the sampled draws carry 3/4 of the weight.
    n = 2000
    advice = advise(["1R", "2R", "4B"], unseen=["3R", "5R", "6R"], samples=n, exact_limit=0, exact_hands=0, exact_best=0)
    assert not advice.p_two_exact
    got = by_trade(advice)["1R"]
    drawn = math.ceil(n * 3 / 4)
    expected_se = 0.75 * math.sqrt(0.75 * 0.25 / (drawn - 1))
    assert got.p_two_stderr == pytest.approx(expected_se, rel=0.15)
    assert abs(got.p_two - 3 / 4) <= 3 * expected_se
    # Trading 4B every first draw is decided exactly: no sampling, no error.
    four_b = by_trade(advice)["4B"]
    assert four_b.p_two == pytest.approx(15 / 16) and four_b.p_two_stderr == 0


@pytest.mark.parametrize(
    "hand, unseen",
    [
        (["1R", "2R", "4B"], ["3R", "5R", "6R"]),
        (["1R", "2R", "4B", "5B"], ["3R", "5R", "6R", "4R", "1B", "**"]),
        (["1R", "1O", "2Y", "3R", "3B"], ["2R", "4R", "1Y", "3Y", "3O", "2B", "**"]),
    ],
)
def test_the_candidate_ranked_first_always_gets_an_exact_p_two(hand, unseen):
    # Forced to estimate (no full enumeration, no budget for the best trades by p_one),
    # the candidate ranked first is still worked out exactly: the same value as the full
    # enumeration's, with no standard error, and the others keep their estimates.
    kwargs = dict(unseen=unseen, samples=64, timeout=None, trade_timeout=None)
    exact = by_trade(advise(hand, **kwargs))
    advice = advise(hand, exact_limit=0, exact_hands=0, **kwargs)
    assert not advice.p_two_exact
    assert advice.advice[0].p_two_stderr is None
    # An exact value may rank another estimated candidate first: it is worked out too.
    worked_out = [a for a in advice.advice if a.p_two_stderr is None]
    assert 1 <= len(worked_out) <= advisor_module.EXACT_BEST_TRIES and len(worked_out) < len(advice.advice)
    for a in worked_out:
        assert a.p_two == exact[a.trade].p_two, a.trade
    keys = [(-round(a.p_two * 100), -a.p_one) for a in advice.advice]
    assert keys == sorted(keys)
    # Turned off, every candidate is estimated.
    off = advise(hand, exact_limit=0, exact_hands=0, exact_best=0, **kwargs)
    assert all(a.p_two_stderr is not None for a in off.advice)


def test_estimated_p_two_on_a_dealt_hand():
    first = advise(HAND_LONELY, samples=32, seed=7, timeout=None, trade_timeout=None, exact_hands=0, exact_best=0)
    again = advise(HAND_LONELY, samples=32, seed=7, timeout=None, trade_timeout=None, exact_hands=0, exact_best=0)
    assert first.advice == again.advice  # seeded: the same advice every time
    assert not first.p_two_exact
    for a in first.advice:
        assert a.p_two_stderr is not None and a.p_two_stderr >= 0
        assert a.p_one <= a.p_two <= 1
    keys = [(-round(a.p_two * 100), -a.p_one) for a in first.advice]
    assert keys == sorted(keys)


# A dealt hand (bench/advisor.py --seed 1, hand 16) whose best trade, a 2G, makes it
# playable 96 % of the time: its exact p_two judges few hands two trades away.
HAND_TWO_2G = "1B 1P 1Y 2B 2G 2G 2O 3B 3P 3R 4B 4B 4G 4P 4R 4Y 5B 5O 5R 5R 5Y 5Y 6B 6R".split()


def test_the_best_trades_p_two_is_exact_on_a_dealt_hand():
    # The full pile is too big to enumerate every second trade, but the best trades by
    # p_one are worked out exactly while they judge few hands; the others are estimated.
    # HAND_LONELY's best trades (p_one 0.20) would judge thousands: all estimated.
    advice = advise(HAND_TWO_2G, samples=32, seed=7, timeout=None, trade_timeout=None)
    assert not advice.p_two_exact
    exact = [a for a in advice.advice if a.p_two_stderr is None]
    estimated = [a for a in advice.advice if a.p_two_stderr is not None]
    assert exact and estimated
    assert min(a.p_one for a in exact) >= max(a.p_one for a in estimated)
    # The same values as the exact p_two of a fresh advice with no budget to stop it.
    ts = get_tileset("classic")
    judge = advisor_module._Judge(ts, False, None)
    root = advisor_module._key(HAND_TWO_2G, ts)
    judge.cores.append(hard_tiles(HAND_TWO_2G, ts))
    pile = advisor_module._key(list(unseen_pile(HAND_TWO_2G).elements()), ts)
    work = advisor_module._Advisor(judge, root, pile, ts)
    work.one_trade_all()
    for a in exact:
        assert a.p_two == work.exact_two(advisor_module._index(a.trade, ts)), a.trade
        assert a.p_one <= a.p_two <= 1
    assert advice.advice[0].trade == "2G" and advice.advice[0].p_two_stderr is None
    # Its best trades leave the hand unplayable after a dozen first draws: not even tried.
    lonely = advise(HAND_LONELY, samples=32, seed=7, timeout=None, trade_timeout=None, exact_hands=10**6, exact_best=0)
    assert all(a.p_two_stderr is not None for a in lonely.advice)


@pytest.mark.parametrize(
    "hand, young, unseen",
    [
        (HAND_TWO_2G, False, None),  # the best trades exact, the others estimated
        (["1R", "1O", "2Y", "3R", "3B"], False, ["2R", "4R", "1Y", "3Y", "3O", "2B", "**"]),  # all exact
        (["1R", "2O", "3Y", "4G"], True, None),  # younger players
    ],
)
def test_two_trade_advice_goes_on_from_the_one_trade_advice(monkeypatch, hand, young, unseen):
    # What the hint service does: the one-trade advice at once, then the two-trade advice
    # taking over its work. The answer is the one worked out from scratch, and nothing a
    # trade away is worked out again.
    kwargs = dict(young=young, unseen=unseen, samples=32, seed=7, timeout=None, trade_timeout=None)
    fresh = advise(hand, **kwargs)
    one = advise(hand, trades=1, **kwargs)
    assert one.work is not None
    assert {a.trade: a.p_one for a in one.advice} == {a.trade: a.p_one for a in fresh.advice}

    def again(self):
        raise AssertionError("the one-trade work done again")

    with monkeypatch.context() as patched:
        patched.setattr(advisor_module._Advisor, "one_trade_all", again)
        resumed = advise(hand, one_trade=one, **kwargs)
    assert resumed.advice == fresh.advice
    assert (resumed.playable, resumed.p_two_exact, resumed.unknown) == (fresh.playable, fresh.p_two_exact, 0)
    assert resumed.work is None  # two-trade advice leaves nothing to go on from
    # The work is taken once (it has moved on since): asked again, the advice starts afresh.
    assert advise(hand, one_trade=one, **kwargs).advice == fresh.advice


def test_one_trade_work_is_for_its_own_hand_pile_and_variation():
    hand, unseen = ["1R", "2R", "4B"], ["3R", "5R", "6R"]
    one = advise(hand, trades=1, unseen=unseen)
    for other in (dict(hand=["1R", "2R", "5B"], unseen=unseen), dict(hand=hand, unseen=unseen[:2]),
                  dict(hand=hand, unseen=unseen, young=True), dict(hand=hand, unseen=unseen, tileset="connect")):
        with pytest.raises(ValueError, match="another hand"):
            advise(one_trade=one, **other)
    # A playable hand and advice with no trade left have no trade work to carry on.
    assert advise(HAND_PLAYABLE, trades=1).work is None
    assert advise(hand, trades=0, unseen=unseen).work is None


def test_second_trades_expected_to_lose_are_dropped_after_cheap_proofs():
    # HAND_TWO_2G traded 4B (p_one 0.32): after a first draw that leaves the 2G problem,
    # the best second trade is 2G. Every other second trade is dropped after a few draws
    # far from the hard tiles (proved impossible at once), without its hand with a wild
    # drawn being judged (on main each cost a solver call: 1,825 of 3,810 solver calls of
    # that hand's exact p_two went to such hands and their draws); the maximum is the
    # same as every second trade worked out in full by a fresh advisor.
    ts = get_tileset("classic")

    def advisor():
        judge = advisor_module._Judge(ts, False, None)
        judge.cores.append(hard_tiles(HAND_TWO_2G, ts))
        root = advisor_module._key(HAND_TWO_2G, ts)
        pile = advisor_module._key(list(unseen_pile(HAND_TWO_2G).elements()), ts)
        return advisor_module._Advisor(judge, root, pile, ts)

    work = advisor()
    work.one_trade_all()
    far = work._far_from_cores()
    assert not far >> advisor_module.W & 1
    assert {advisor_module._tile_of(i, ts)[0] for i in range(36) if far >> i & 1} == set("13456")
    assert not any(advisor_module._tile_of(i, ts)[1] == "G" for i in range(36) if far >> i & 1)
    index = {tile: advisor_module._index(tile, ts) for tile in ("4B", "2G")}
    t1 = index["4B"]
    failed = [d for d, _ in work.first_draws(t1) if d != t1 and not work.after_one(t1, d)]
    assert len(failed) > 10
    fresh = advisor()
    for d1 in failed[:3]:
        h1 = advisor_module._swap(work.root, t1, d1)
        best = work.best_second(h1, d1, work.p_one(work.root, t1))
        losers = [t2 for t2 in work.candidates(h1) if t2 not in (d1, index["2G"])]
        assert all(advisor_module._swap(h1, t2, advisor_module.W) not in work.judge.verdicts for t2 in losers)
        assert best == max(fresh.p_one(h1, t2) for t2 in fresh.candidates(h1)) == work.p_one(h1, index["2G"])


# -- the command -----------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    (tmp_path / "red.txt").write_text("1R 2R\n4B\n")
    (tmp_path / "unseen.txt").write_text("3R 5G 6G\n")
    (tmp_path / "good.txt").write_text(" ".join(HAND_PLAYABLE) + "\n")
    return tmp_path


def run(capsys, *args):
    code = main(["pivit", "advise", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json_unplayable(files, capsys):
    code, out, err = run(capsys, "--json", "--unseen", files / "unseen.txt", files / "red.txt")
    assert code == 1 and err == ""
    result = json.loads(out)
    assert set(result) == {"file", "playable", "advice", "unknown", "elapsed_ms"}
    assert result["file"] == str(files / "red.txt") and result["playable"] is False
    assert [a["trade"] for a in result["advice"]] == ["4B", "1R", "2R"]
    assert result["advice"][0] == {"trade": "4B", "p_one": 0.25, "p_two": 0.4375}
    assert result["unknown"] == 0 and result["elapsed_ms"] >= 0


def test_cli_json_playable(files, capsys):
    code, out, _ = run(capsys, "--json", files / "good.txt")
    assert code == 0
    result = json.loads(out)
    assert result["playable"] is True and result["advice"] == []
    from companion.games.pivit_tiles.grid import parse_grid

    grid = parse_grid(result["grid"])
    assert check_grid(grid, tiles=24).valid and sorted(grid.values()) == sorted(HAND_PLAYABLE)


def test_cli_json_estimate_has_standard_errors(tmp_path, capsys):
    (tmp_path / "hand.txt").write_text(" ".join(HAND_LONELY))
    code, out, _ = run(capsys, "--json", tmp_path / "hand.txt")
    assert code == 1
    advice = json.loads(out)["advice"]
    # The candidate shown first gets an exact p_two (no standard error), the others estimates.
    assert set(advice[0]) == {"trade", "p_one", "p_two"}
    assert all(set(a) == {"trade", "p_one", "p_two", "p_two_stderr"} for a in advice[1:])


def test_cli_human_report(files, capsys):
    code, out, _ = run(capsys, "--unseen", files / "unseen.txt", files / "red.txt")
    assert code == 1
    lines = out.splitlines()
    assert "not playable" in lines[0]
    assert lines[2].split() == ["4B", "blue", "square", "25.0%", "43.8%"]
    code, out, _ = run(capsys, "--trades", "1", "--unseen", files / "unseen.txt", files / "red.txt")
    assert "within" not in out and out.splitlines()[2].split() == ["4B", "blue", "square", "25.0%"]
    code, out, _ = run(capsys, files / "good.txt")
    assert code == 0 and "playable (24 tiles)" in out


def test_cli_young_and_tileset(tmp_path, capsys):
    (tmp_path / "pair.txt").write_text("1W 2W")
    code, out, _ = run(capsys, "--json", "--young", "--tileset", "connect", tmp_path / "pair.txt")
    assert code == 0 and json.loads(out)["playable"] is True


@pytest.mark.parametrize(
    "content, unseen, fragment",
    [
        ("1R 7Q 4B", None, "hand.txt:1:4: '7Q' is not a tile"),
        ("", None, "hand.txt: the hand has no tiles"),
        ("1R 1R 1R 1R", None, "hand.txt: the hand holds 4 copies of 1R"),
        ("1R 1R 2R", "1R 1R", "unseen.txt: 2 unseen 1R (red circle) and 2 in the hand"),
        ("1R 2R 4B", "3R 9Z", "unseen.txt:1:4: '9Z' is not a tile"),
        ("1R 2R 1P", None, "hand.txt:1:7: '1P': colour purple is not in the connect tile set"),
    ],
)
def test_cli_bad_input_one_line_naming_the_file(tmp_path, capsys, content, unseen, fragment):
    (tmp_path / "hand.txt").write_text(content)
    args = ["--tileset", "connect"] if "connect" in fragment else []
    if unseen is not None:
        (tmp_path / "unseen.txt").write_text(unseen)
        args += ["--unseen", tmp_path / "unseen.txt"]
    code, out, err = run(capsys, *args, tmp_path / "hand.txt")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err


def test_cli_missing_files(tmp_path, capsys):
    code, _, err = run(capsys, tmp_path / "nope.txt")
    assert code == 2 and "nope.txt: no such file" in err
    (tmp_path / "hand.txt").write_text("1R 2R 4B")
    code, _, err = run(capsys, "--unseen", tmp_path / "gone.txt", tmp_path / "hand.txt")
    assert code == 2 and "gone.txt: no such file" in err and err.count("\n") == 1


def test_cli_trades_out_of_range(tmp_path, capsys):
    (tmp_path / "hand.txt").write_text("1R 2R 4B")
    with pytest.raises(SystemExit) as exc:
        main(["pivit", "advise", "--trades", "3", str(tmp_path / "hand.txt")])
    assert exc.value.code == 2
    assert "must be 0, 1 or 2" in capsys.readouterr().err


# -- an independent brute force on a reduced box ------------------------------------------
#
# Three designs, three colours, three copies each and two wilds: every hand of up to five
# tiles is tried on every grid shape (conftest.py). Nothing here uses the solver or the
# advisor's shortcuts.

REDUCED_BOX = [f"{d}{c}" for d in "123" for c in "ROY" for _ in range(3)] + ["**"] * 2


class BruteForce(Reference):
    """The Reference's enumeration of draws, with the shape brute force deciding every hand."""

    def __init__(self, has_grid, young):
        super().__init__(young=young)
        self.has_grid = has_grid

    def playable(self, hand) -> bool:
        key = tuple(sorted(hand))
        if key not in self.cache:
            self.cache[key] = self.has_grid(list(hand), self.young)
        return self.cache[key]


@st.composite
def reduced_deals(draw, most: int):
    order = draw(st.permutations(REDUCED_BOX))
    n_hand = draw(st.integers(2, most))
    n_unseen = draw(st.integers(0, 6))
    return list(order[:n_hand]), list(order[n_hand : n_hand + n_unseen]), draw(st.booleans())


@settings(max_examples=40)
@given(deal=reduced_deals(most=5))
def test_p_one_matches_an_independent_brute_force(deal, brute_force_has_grid):
    """p_one, exactly, against trying every arrangement of every hand after the trade."""
    hand, unseen, young = deal
    advice = advise(hand, young=young, unseen=unseen, trades=1)
    brute = BruteForce(brute_force_has_grid, young)
    assert advice.playable == brute.playable(hand)
    assert advice.unknown == 0
    for a in advice.advice:
        assert Fraction(a.p_one).limit_denominator(100) == brute.p_one(hand, a.trade, Counter(unseen)), a.trade


@settings(max_examples=30)
@given(deal=reduced_deals(most=4))
def test_exact_p_two_matches_an_independent_brute_force(deal, brute_force_has_grid):
    hand, unseen, young = deal
    advice = advise(hand, young=young, unseen=unseen)
    brute = BruteForce(brute_force_has_grid, young)
    assert advice.unknown == 0
    if advice.playable:
        return
    assert advice.p_two_exact
    for a in advice.advice:
        assert a.p_two_stderr is None
        assert a.p_two == pytest.approx(float(brute.p_two(hand, a.trade, Counter(unseen)))), a.trade


def test_the_guard_after_a_trade_counts_cpu_time(monkeypatch):
    # The guard on each hand after a trade reads this thread's CPU clock, so a
    # busy machine (wall time passing while the advice waits for a core) does
    # not leave neighbours undecided. A CPU clock that stands still never
    # runs out; one that jumps a second per reading runs out at once.
    monkeypatch.setattr(advisor_module.time, "thread_time", lambda: 0.0)
    still = advise(HAND_LONELY, trades=1, timeout=None, trade_timeout=1e-9)
    assert still.solver_calls > 0 and still.unknown == 0
    ticks = iter(range(10**9))
    monkeypatch.setattr(advisor_module.time, "thread_time", lambda: float(next(ticks)))
    jumping = advise(HAND_LONELY, trades=1, timeout=None, trade_timeout=0.5)
    assert jumping.unknown > 0
    assert [a.p_one for a in still.advice] != [a.p_one for a in jumping.advice]


def test_the_repairs_fit_masks_agree_with_line_fault():
    # The repairs test a tile against a cell's lines by a mask of the tiles that
    # fit each line; it must say exactly what check.line_fault says of the line
    # with that tile, for lines of every kind (mixed, duplicated, all wilds, full).
    from companion.games.pivit_tiles.check import line_fault

    ts = get_tileset("classic")
    every = ts.tiles() + ["**"]
    rng = random.Random(7)
    lines = [[], ["**"] * 5, ["**"] * 6, ["1R", "1R"], ["1R", "2O"], ["1R", "**", "2O"]]
    for _ in range(3000):
        kind = rng.randrange(3)
        if kind == 0:  # one colour
            colour = rng.choice(ts.colours)
            pool = [f"{d}{colour}" for d in "123456"] + ["**"]
        elif kind == 1:  # one design
            design = rng.choice("123456")
            pool = [f"{design}{c}" for c in ts.colours] + ["**"]
        else:
            pool = every
        lines.append([rng.choice(pool) for _ in range(rng.randrange(1, 7))])
    for line in lines:
        mask = advisor_module._fit_mask(line, ts)
        for tile in every:
            fits = bool(mask >> advisor_module._index(tile, ts) & 1)
            assert fits == (line_fault(line + [tile]) is None), (line, tile)


def test_a_tile_put_in_place_where_no_wild_is_beside_is_confirmed_by_its_mask_alone():
    # The repairs skip the full check for a tile put in the cell of the tile it replaces when
    # that cell's row and column hold no wild (the site's `plain`): the grid is then valid
    # exactly when the tile fits both lines' masks. Every cell of grids of hands with and
    # without wilds, in both variations, and every tile of the set a box still has.
    ts = get_tileset("classic")
    every = ts.tiles() + ["**"]
    rng = random.Random(11)
    plain_sites = 0
    for young in (False, True):
        judge = advisor_module._Judge(ts, young, None)
        hands = [HAND_PLAYABLE, HAND_WILD[:18], HAND_YOUNG_OPEN] + [rng.sample(ts.full_set(), 14) for _ in range(30)]
        for hand in hands:
            key = advisor_module._key(hand, ts)
            if not judge.playable(key):
                continue
            grid = judge.grids[key]
            for old in sorted(set(grid.values())):
                sites, _ = judge._sites(key, old)
                for cell, fits, plain in sites:
                    assert plain == all(grid.get(q) != "**" for line in _lines_through(grid, cell) for q in line)
                    if not plain:
                        continue
                    plain_sites += 1
                    for tile in every:
                        swapped = dict(grid)
                        swapped[cell] = tile
                        if Counter(swapped.values())[tile] > ts.max_copies(tile):
                            continue  # not a hand: the advisor judges none (and the check says so)
                        valid = check_grid(swapped, ts, young, tiles=len(swapped)).valid
                        assert valid == bool(fits >> advisor_module._index(tile, ts) & 1), (hand, cell, tile)
    assert plain_sites > 200


def _lines_through(grid, cell):
    """The cells of the row and the column through `cell`, without it (as far as the tiles reach)."""
    r, c = cell
    out = []
    for dr, dc in ((0, 1), (1, 0)):
        line = []
        for sign in (1, -1):
            k = 1
            while (r + sign * dr * k, c + sign * dc * k) in grid:
                line.append((r + sign * dr * k, c + sign * dc * k))
                k += 1
        out.append(line)
    return out


def test_hands_as_counts_give_the_solvers_cells():
    """The advisor hands the hard-tiles search its hands as cells (`_cells`), not tile names:
    the same cells, in the same order, as the solver parses from the names (`_tiles`)."""
    from companion.games.pivit_tiles.solver import _parsed

    ts = get_tileset("connect")
    rng = random.Random(5)
    for _ in range(200):
        hand = rng.sample(ts.full_set(), rng.randrange(1, 30))
        key = advisor_module._key(hand, ts)
        assert advisor_module._cells(key) == _parsed(advisor_module._tiles(key, ts), ts)[1]


def test_a_tile_taken_out_leaves_a_connected_grid_connected_exactly_when_the_walk_says_so():
    # The repairs ask whether a grid stays connected once a tile has left by a walk
    # between that tile's neighbours only; it must agree with the full grouping,
    # on random connected shapes with rings and branches, for every tile taken out.
    from companion.games.pivit_tiles.check import groups

    rng = random.Random(11)
    asked = disconnected = 0
    for _ in range(300):
        cells = {(0, 0)}
        for _ in range(rng.randrange(2, 30)):
            r, c = rng.choice(sorted(cells))
            dr, dc = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
            cells.add((r + dr, c + dc))
        grid = {cell: "1R" for cell in cells}
        for r, c in sorted(cells):
            rest = dict(grid)
            del rest[r, c]
            beside = [nb for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if nb in rest]
            if len(beside) < 2:
                continue
            whole = len(groups(rest)) == 1
            assert advisor_module._joined(rest, beside) == whole, (sorted(cells), (r, c))
            asked += 1
            disconnected += not whole
    assert asked > 1000 and 100 < disconnected < asked - 100


def test_the_wilds_dominance_is_asked_within_a_budget():
    # HAND_LONELY (bench hand 5) traded 1O for a third 4P, then 6Y for a wild: impossible,
    # and seconds of the solver's search to prove it (three 4P, a wild among their five
    # partners). Asked for the wild's dominance, it is left unjudged after the budget:
    # nothing is proved, nothing is cached, and the draws are judged one by one.
    ts = get_tileset("classic")
    judge = advisor_module._Judge(ts, False, None)
    root = advisor_module._key(HAND_LONELY, ts)
    index = {tile: advisor_module._index(tile, ts) for tile in ("1O", "4P", "6Y")}
    h1 = advisor_module._swap(root, index["1O"], index["4P"])
    hard = advisor_module._swap(h1, index["6Y"], advisor_module.W)
    assert not judge.impossible_within(hard, advisor_module.DOMINANCE_BUDGET)
    assert hard not in judge.verdicts and judge.solver_calls == 1
    # A hand the shortcuts prove impossible is (the hand itself: its 5G has one partner, 5P).
    assert judge.impossible_within(root, advisor_module.DOMINANCE_BUDGET)
    assert judge.verdicts[root] is False and judge.solver_calls == 1
    # A playable hand within the budget is judged, and its grid kept for the repairs.
    playable = advisor_module._key(HAND_PLAYABLE, ts)
    assert not judge.impossible_within(playable, advisor_module.DOMINANCE_BUDGET)
    assert judge.verdicts[playable] is True and playable in judge.grids


def test_the_policys_lonely_free_draws_are_the_draws_that_pass_the_lonely_tile_test():
    # The policy's bound asks this of every second trade after every failed first draw, by
    # counts per colour and design (and a shortcut when no tile of the base is short of
    # partners); it must equal the lonely-tile test of the hand with the draw, in both variations.
    rng = random.Random(5)
    checked = 0
    for _ in range(4000):
        base = [0] * advisor_module.SLOTS
        for x in rng.sample(range(advisor_module.SLOTS), rng.randrange(1, 20)):
            base[x] = rng.randrange(1, 3)
        if sum(base) == 0:
            continue
        pile = [rng.randrange(0, 3) for _ in range(advisor_module.SLOTS)]
        skip, min_line = rng.randrange(advisor_module.SLOTS), rng.choice((2, 3))
        got = advisor_module._lonely_free_draws(tuple(base), pile, skip, min_line)
        want = [
            (d, n) for d, n in enumerate(pile)
            if n and d != skip and not advisor_module._has_lonely_tile(tuple(b + (i == d) for i, b in enumerate(base)), min_line)
        ]
        assert got == want
        checked += bool(want)
    assert checked > 1000
