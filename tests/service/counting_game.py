"""A tiny real game for testing the table mechanism without any one game's rules.

Players take turns to `count` (one point each); `race` asks for a countdown
(the rules' timer request); `timer-expired` ends the race and gives the
player who started it 2 points. The first to `goal` wins. It follows
companion.games.base like every engine: pure, deterministic, JSON state.
"""
from __future__ import annotations

from typing import Any

from companion.games.base import OptionError, RuleError


class CountingGame:
    id = "counting"
    title = "Counting"
    min_players = 1
    max_players = 4

    events = {"count": {"player": int}, "race": {"player": int}, "timer-expired": {}}

    def default_options(self) -> dict[str, Any]:
        return {"goal": 3, "race_seconds": 5, "seed": None}  # the seed is unused: the game has no luck

    def new_state(self, players: list[str], options: dict[str, Any]) -> dict[str, Any]:
        goal = options.get("goal", 3)
        if not isinstance(goal, int) or isinstance(goal, bool) or goal < 1:
            raise OptionError("goal must be a whole number of at least 1")
        return {"scores": [0] * len(players), "turn": 0, "goal": goal, "race": None, "races": 0,
                "race_seconds": options.get("race_seconds", 5), "winners": []}

    def apply(self, state: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        if state["winners"]:
            raise RuleError("the game is over")
        kind = event.get("type")
        new = {**state, "scores": list(state["scores"])}
        if kind == "count":
            if event.get("player") != state["turn"]:
                raise RuleError(f"it is player {state['turn']}'s turn")
            new["scores"][event["player"]] += 1
            new["turn"] = (state["turn"] + 1) % len(state["scores"])
        elif kind == "race":
            if state["race"] is not None:
                raise RuleError("a race is on already")
            new["race"] = event["player"]
            new["races"] = state["races"] + 1
        elif kind == "timer-expired":
            if state["race"] is None:
                raise RuleError("no race is on")
            new["scores"][state["race"]] += 2
            new["race"] = None
        else:
            raise RuleError(f"unknown action {kind!r}")
        if any(s >= state["goal"] for s in new["scores"]):
            new["winners"] = [i for i, s in enumerate(new["scores"]) if s >= state["goal"]]
        return new

    def to_json(self, state: dict[str, Any]) -> dict[str, Any]:
        return dict(state)

    def actions(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        if state["winners"]:
            return []
        out = [{"type": "count", "player": state["turn"]}]
        if state["race"] is None:
            out += [{"type": "race", "player": p} for p in range(len(state["scores"]))]
        return out

    def finished(self, state: dict[str, Any]) -> bool:
        return bool(state["winners"])

    def timer_request(self, state: dict[str, Any]) -> tuple[str, float] | None:
        if state["race"] is None:
            return None
        return (f"race-{state['races']}", state["race_seconds"])


GAME = CountingGame()
