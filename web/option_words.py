"""The new-table form in the players' words: a label and a one-line explanation for every
option of every game, its menu choices said plainly, and whether it is a common choice or an
advanced one (shown folded under "More options").

The options themselves (names, defaults, allowed values) are the engines'; this is only how the
home page says them. A test checks every option of every installed game has its words here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class OptionWords:
    label: str
    help: str
    common: bool = False
    choices: dict[str, str] = field(default_factory=dict)  # value -> what the menu says


def _w(label: str, help: str, common: bool = False, **choices: str) -> OptionWords:
    return OptionWords(label, help, common, {k.replace("_", "-"): v for k, v in choices.items()})


DEAL = _w("Deal number", "Empty: a fresh random deal. The same number deals the same game again.")

WORDS: dict[str, dict[str, OptionWords]] = {
    "pivit-tiles": {
        "young": _w("Younger players", "Rows and columns of two count (the rulebook's variation for younger players).",
                    common=True),
        "hints": _w("\u201cI'm stuck\u201d hints",
                    "A stuck player taps in their tiles and sees a way to lay them out, or which tile to trade.",
                    common=True, auto="Automatic: on for younger players", on="On", off="Off"),
        "target": _w("Points to win", "Empty: 24 with 3 or 4 players, 20 with 2, as in the rulebook.", common=True),
        "timer_seconds": _w("Race timer (seconds)",
                            "How long the race for the last stick, or the other player's last minute, lasts."),
        "tokens": _w("Trade tokens each", "Each one swaps a tile during a round; every token left over is a point."),
        "tiles": _w("Tiles per grid", "24 in the rulebook; fewer make a shorter round."),
        "stick_values": _w("Scoring sticks", "Points on the three sticks, highest first; with two players the top two count."),
        "tie_break": _w("A tie at the winning score", "Share the win, or play more rounds until one player leads.",
                        share="Share the win", play_on="Play another round"),
        "tileset": _w("Tile set", "Which box you play with: classic tiles have purple, Connect tiles white.",
                      classic="Classic (with purple)", connect="Connect (with white)"),
    },
    "quivit": {
        "mode": _w("Cards", "Digital: the companion deals and shows the cards. Real: you play the box and tap in each take.",
                   common=True, digital="Digital cards on the phones", scorekeeping="Real cards (keep the score)"),
        "rounds": _w("Rounds", "How many rounds the game lasts (5 in the rulebook).", common=True),
        "timed": _w("Timed turns", "Each turn has a countdown; when it runs out the turn ends with nothing taken.",
                    common=True),
        "timer_seconds": _w("Turn time (seconds)", "How long a timed turn lasts: 5 to 600 seconds."),
        "hints": _w("Best-rotation hint", "Digital cards only: a phone can show the best rotations and their points.",
                    common=True),
        "random_color": _w("Random Color", "Roll the colour die each turn: only links of the rolled colour count.",
                           common=True),
        "color_blocking": _w("Color Blocking", "Each side gets one Color Block card to cover a card for the rest of the game.",
                             common=True),
        "double_rotation": _w("Double Rotation", "Each side gets one Double Rotate card: turn a card 180 degrees once.",
                              common=True),
        "drain_the_deck": _w("Drain the Deck", "After the last round, play on while the draw deck has enough cards.",
                             common=True),
        "family_play": _w("Family Play", "Play in teams: a team shares one score and one turn per round.", common=True),
        "teams": _w("Teams", "Family Play: teams split by /, members by commas, like Ann, Cy / Bob, Di."),
        "team_names": _w("Team names", "Family Play: names split by /, like Suns / Moons; empty: the members' names."),
        "drain_threshold": _w("Drain the Deck: stop at", "The game ends when the draw deck has this many cards or fewer."),
        "drain_short_grid": _w("Drain the Deck: a grid that cannot be filled",
                               "When the last cards cannot fill the grid in an extra round.",
                               end="End the game at once", play_on="Play the round with empty places"),
        "free_link_spends_double_rotate": _w("A free link uses up the Double Rotate card",
                                             "Off: holding the card is enough to claim free links (the rulebook); on: a claim spends it."),
        "free_link_takes_all": _w("A claim takes every free link of the card",
                                  "Off: the player picks which free links through the card to score; on: all are taken."),
        "current_player_may_block": _w("The player whose turn it is may Color Block",
                                       "Off: only the other players block before a turn (the rulebook); on: the player too."),
        "final_draw_counts_as_card": _w("The end draw counts as a card",
                                        "On: the card drawn for an unused Double Rotate card also counts for the tie-break."),
        "decks": _w("Boxes of cards", "Combine 1 to 4 boxes; four sides need two boxes or more."),
        "first_player": _w("First player", "0 for the first player listed, 1 for the second, and so on."),
        "seed": DEAL,
    },
    "pivit-board": {
        "board_size": _w("Board size", "8 for the standard 8 x 8 board, 6 for a shorter game on 6 x 6.", common=True),
        "clock_seconds": _w("Seconds per turn", "0: no clock; else the timer counts each turn (5 to 3600 seconds).",
                            common=True),
        "quiet_limit": _w("End after quiet turns",
                          "Ends and scores the game after that many turns without a capture or promotion; 0: off."),
        "start": _w("Starting position", "Empty: the standard setup; else a position to start from."),
        "seed": _w("Practice computer's seed", "Decides how the practice computer breaks ties between equal moves."),
    },
    "scrabble-junior": {
        "tiles": _w("Letter tiles", "Digital: the companion deals the letters. Real: you draw from the box and tap in each play.",
                    common=True, digital="Digital letters on the phones", real="Real tiles from the box"),
        "layout": _w("Board", "The board the words are printed on.", standard="The printed board"),
        "layout_text": _w("Your own board", "One word per line: WORD START DIRECTION (H across, V down); empty: the board above."),
        "kitty": _w("Chips in the kitty", "44 in the box; at least one for each word on the board."),
        "auto_pass": _w("Pass automatically", "The companion passes for a player who can only pass.", common=True),
        "first_player": _w("First player", "0 for the first player listed, 1 for the second, and so on."),
        "seed": DEAL,
    },
}


def option_words(game_id: str, key: str) -> OptionWords:
    """The words for one option; an option without any gets its name and no explanation."""
    words = WORDS.get(game_id, {}).get(key)
    if words is not None:
        return words
    return OptionWords(key.replace("_", " ").capitalize(), "")


def form_options(game_id: str, options: dict[str, Any], choices: dict[str, list[str]]) -> dict[str, list[dict]]:
    """A game's options for the form: {"common": [...], "advanced": [...]}, each field with its words.

    Within a group the fields come in the order of WORDS (the order a player reads them in).
    """
    known = list(WORDS.get(game_id, {}))
    order = {key: i for i, key in enumerate(known)}
    groups: dict[str, list[dict]] = {"common": [], "advanced": []}
    for key in sorted(options, key=lambda k: (order.get(k, len(order)), k)):
        words = option_words(game_id, key)
        menu = choices.get(key)
        groups["common" if words.common else "advanced"].append({
            "key": key, "value": options[key], "label": words.label, "help": words.help,
            "choices": [(value, words.choices.get(value, value)) for value in menu] if menu else None,
        })
    return groups
