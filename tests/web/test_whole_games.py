"""Whole Pivit tile games, 2, 3 and 4 players, played to the end through the API as the phones do,
with the service's own timer ending the one-minute races."""
from __future__ import annotations

import pytest


def play_two_player_round(api, service, clock, tid, expire: bool, trade: bool):
    api.act(tid, type="start-round")
    if trade:
        api.act(tid, type="trade", player=1)
    api.act(tid, type="done", player=0)
    # The other player verifies: first not correct (play goes on), then correct.
    after = api.act(tid, type="verify", player=0, valid=False)
    assert after["state"]["phase"] == "playing" and after["timer"]["status"] == "idle"
    api.act(tid, type="done", player=0)
    after = api.act(tid, type="verify", player=0, valid=True)
    assert after["state"]["phase"] == "last-minute"
    assert after["timer"]["status"] == "running" and after["timer"]["remaining_ms"] == 2000
    if expire:
        clock.advance(2)
        assert service.fire_due() == [tid]
        after = api.get(tid)
        assert after["timer"]["status"] == "expired"
    else:
        clock.advance(1)
        api.act(tid, type="done", player=1)
        after = api.act(tid, type="verify", player=1, valid=True)
        assert after["timer"]["status"] == "idle"  # the round ended: the rules stopped asking
    assert after["state"]["phase"] in ("scored", "finished")
    return after


def test_two_players_to_the_end(api, service, clock):
    table = api.create(players=("Ann", "Bob"), timer_seconds=2)
    tid = table["id"]
    expected = [0, 0]
    rounds = 0
    while True:
        rounds += 1
        expire = rounds % 2 == 1
        trade = rounds == 1
        after = play_two_player_round(api, service, clock, tid, expire, trade)
        expected[0] += 4 + 2
        expected[1] += (0 if expire else 2) + (1 if trade else 2)
        assert [p["score"] for p in after["state"]["players"]] == expected
        if after["finished"]:
            break
        api.act(tid, type="next-round")
    assert rounds == 4 and expected == [24, 11]
    assert after["state"]["winners"] == [0] and after["state"]["phase"] == "finished"
    assert after["finished_ms"] is not None
    # Nothing more can be played.
    assert "game is over" in api.act(tid, expect=409, type="next-round")["error"]


@pytest.mark.parametrize("players, sticks", [(3, [4, 2]), (4, [4, 2, 1])])
def test_three_and_four_players_to_the_end(api, service, clock, players, sticks):
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    table = api.create(players=names, timer_seconds=2)
    tid = table["id"]
    scores = [0] * players
    rounds = 0
    while True:
        rounds += 1
        start = api.act(tid, type="start-round")
        assert start["state"]["centre_sticks"] == sticks
        finishers = list(range(len(sticks)))  # players 0.. take the sticks in order
        if rounds == 1:
            # Ann finds an error in her own grid and returns her stick; Bob then takes the 4.
            api.act(tid, type="done", player=0)
            api.act(tid, type="return-stick", player=0)
            finishers = [1, 0] + finishers[2:]
            api.act(tid, type="trade", player=players - 1)
        for p in finishers:
            after = api.act(tid, type="done", player=p)
        assert after["state"]["phase"] == "verifying"
        last_holder = finishers[-1]
        race = rounds % 2 == 0
        for p in finishers:
            after = api.act(tid, type="verify", player=p, valid=not (race and p == last_holder))
        points = [0] * players
        if race:
            # The last holder's grid was wrong: the lowest stick is raced for by them and the player
            # who did not finish; the timer runs out before anyone is done.
            assert after["state"]["phase"] == "race" and after["timer"]["status"] == "running"
            racers = [i for i, p in enumerate(after["state"]["players"]) if p["racing"]]
            assert racers == [last_holder, players - 1]
            clock.advance(2)
            assert service.fire_due() == [tid]
            after = api.get(tid)
            for value, p in zip(sticks[:-1], finishers[:-1]):
                points[p] += value
        else:
            for value, p in zip(sticks, finishers):
                points[p] += value
        tokens = [2] * players
        if rounds == 1:
            tokens[players - 1] -= 1
        for p in range(players):
            scores[p] += points[p] + tokens[p]
        assert [p["score"] for p in after["state"]["players"]] == scores, (rounds, after["state"]["last"])
        if after["finished"]:
            break
        assert after["state"]["phase"] == "scored"
        api.act(tid, type="next-round")
    assert max(scores) >= 24
    assert after["state"]["winners"] == [i for i, s in enumerate(scores) if s == max(scores)]
