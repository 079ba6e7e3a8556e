"""What a question's text says against what its answer key assumes: the mechanical checks.

``coordqa dataset validate`` re-renders and re-solves every question; these checks then read
the texts a model sees and fail where they do not say what the key rests on. One check per
class of flaw that a blind audit found (issue 27), each reading the stored text, not the code
that wrote it:

- ``directive``: the directive fits the game (a turn-based game's JP directive never times the
  partner's move "at the same time", a simultaneous game's never "on their next turn"), and a
  question with several correct options is asked with a directive that says any one of them is
  right;
- ``knowledge`` (Hanabi): every card list the state prints is exactly the set of cards the
  solvers reason from, and the partner's list (public information) agrees with what she knows
  from my cards on whether each of her cards is surely playable or surely useless;
- ``history``: the history the state shows agrees with the partner model the text states
  (Hanabi: every move is the one the conventions pick), and says what a chef was on the way to
  do when an Overcooked state was taken (else its position contradicts its last action);
- ``ties`` (Overcooked ToM): under the partner rule the question states, applied to the
  printed walks and counters, the nearest targets are exactly the keyed ones;
- ``names``: no text a model sees names a registered player ("the capture-planner policy"),
  which the texts never define.

:func:`consistency_problems` runs every check that applies to a question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from coordqa.directives import timing_problem
from coordqa.games import GAMES, PLAYERS, Game
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.game import as_hanabi
from coordqa.games.hanabi.knowledge import Card
from coordqa.games.overcooked import Overcooked
from coordqa.prompts import DIRECTIVES, SEVERAL_CORRECT, directive_for
from coordqa.scenarios.hanabi_solvers import off_convention_moves, situation
from coordqa.scenarios.model import Scenario

CHECKS: Mapping[str, str] = {
    "directive": "the directive fits the game's turn order and the number of correct options",
    "knowledge": "Hanabi card lists are exactly what the solvers reason from",
    "history": "the history shown agrees with the stated partner model; interrupted actions named",
    "ties": "Overcooked ToM keys every target the stated rule finds nearest, and no other",
    "names": "no text names a scripted player it does not define",
}
"""Every check, by name, with what it asserts (``coordqa dataset validate`` lists them)."""

SHOWN = ("game_description", "state_description", "question")
"""The text columns a model sees (with the options)."""


def consistency_problems(row: Mapping[str, Any], game: Game, scenario: Scenario) -> list[str]:
    """Every problem the checks find in ``row``, built from ``scenario`` (``game`` restored)."""
    problems = name_problems(row)
    if row["question_type"] in DIRECTIVES:  # an unknown type is reported by re-solving
        problems += directive_problems(row, directive_for(row))
    if scenario.game == "hanabi":
        problems += hanabi_problems(row, game, scenario)
    elif scenario.game == "overcooked" and isinstance(game, Overcooked):
        problems += interrupted_problems(row, game, scenario.player)
        if row["question_type"] == "ToM":
            problems += tie_problems(row)
    return [f"{row['question_id']}: {problem}" for problem in problems]


# --------------------------------------------------------------------------- directive


def directive_problems(row: Mapping[str, Any], system: str) -> list[str]:
    """Where ``system`` (the directive ``row`` is asked with) does not fit the game or key."""
    problems = []
    if row["question_type"] == "JP" and row["game"] in GAMES:
        problem = timing_problem(system, GAMES.get(row["game"]).turn_based)
        if problem is not None:
            problems.append(f"directive: {row['game']}: {problem}")
    if len(row["correct"]) > 1 and SEVERAL_CORRECT not in system:
        problems.append(
            f"directive: {len(row['correct'])} options are correct but the directive does not "
            "say that any one of them is right"
        )
    return problems


# --------------------------------------------------------------------------- names


@cache
def _player_name_pattern() -> re.Pattern[str]:
    names = sorted((name for name, _ in PLAYERS.items()), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w-])", re.I)


def name_problems(row: Mapping[str, Any]) -> list[str]:
    """Registered player names in the texts a model sees (no text defines them)."""
    texts = [str(row[column]) for column in SHOWN] + list(row["options"])
    found = sorted({m.group() for text in texts for m in _player_name_pattern().finditer(text)})
    return [f"names: the text names the player {name!r}, which it never defines" for name in found]


# --------------------------------------------------------------------------- Hanabi

_OWN_LIST = re.compile(r"^Card (\d) could be: (?P<cards>.*?)(?: \(touched[^)]*\))?$")
_PARTNER_LIST = re.compile(
    r"^(?:Alice|Bob) believes (?:her|his) Card (\d) could be: (?P<cards>.*?)(?: \(touched[^)]*\))?$"
)
_CARD_LIST = re.compile(r"^\[(?P<colors>[^\]]*)\] \[(?P<ranks>[^\]]*)\](?: except (?P<gone>.+))?$")


def parse_card_list(text: str) -> set[Card]:
    """The cards a printed list allows: ``"[Red, Blue] [1, 2] except Blue 2"``.

    Raises:
        ValueError: the text is not such a list.
    """
    match = _CARD_LIST.match(text)
    if match is None:
        raise ValueError(f"not a card list: {text!r}")
    colors = [engine.COLORS.index(c) for c in match["colors"].split(", ") if c]
    ranks = [int(r) - 1 for r in match["ranks"].split(", ") if r]
    cards = {(c, r) for c in colors for r in ranks}
    for name in (match["gone"] or "").split(", "):
        if name:
            color, rank = name.split(" ")
            card = (engine.COLORS.index(color), int(rank) - 1)
            if card not in cards:
                raise ValueError(f"{text!r} excepts {name}, which its colours and ranks exclude")
            cards.discard(card)
    return cards


def printed_lists(state_text: str) -> tuple[dict[int, set[Card]], dict[int, set[Card]]]:
    """The card lists a Hanabi state prints: (my cards, the partner's), by card position."""
    own: dict[int, set[Card]] = {}
    partner: dict[int, set[Card]] = {}
    for line in state_text.splitlines():
        for pattern, into in ((_OWN_LIST, own), (_PARTNER_LIST, partner)):
            match = pattern.match(line)
            if match is not None:
                into[int(match.group(1))] = parse_card_list(match["cards"])
    return own, partner


def knowledge_problems(
    state_text: str, own: Sequence[Sequence[Card]], partner: Sequence[Sequence[Card]]
) -> list[str]:
    """Where the printed lists differ from the identities the solvers use."""
    try:
        printed_own, printed_partner = printed_lists(state_text)
    except ValueError as error:
        return [f"knowledge: {error}"]
    problems = []
    for whose, printed, solved in (
        ("my", printed_own, own),
        ("the partner's", printed_partner, partner),
    ):
        if sorted(printed) != list(range(len(solved))):
            problems.append(f"knowledge: the state lists {whose} cards {sorted(printed)}")
            continue
        for index, cards in enumerate(solved):
            if printed[index] != set(cards):
                problems.append(
                    f"knowledge: {whose} Card {index} is printed as {sorted(printed[index])} but "
                    f"the solvers reason from {sorted(cards)}"
                )
    return problems


def hanabi_problems(row: Mapping[str, Any], game: Game, scenario: Scenario) -> list[str]:
    """The knowledge and history checks of a Hanabi question."""
    sit = situation(as_hanabi(game), scenario.snapshot, scenario.player)
    problems = knowledge_problems(
        row["state_description"], sit.own_possible, sit.view.partner_possible
    )
    problems += [
        f"knowledge: the partner knows more than her list: {g}"
        for g in sit.partner_knowledge_gaps()
    ]
    problems += [
        f"history: the rules say both players follow the conventions, but {move}"
        for move in off_convention_moves(scenario.snapshot)
    ]
    return problems


# --------------------------------------------------------------------------- Overcooked


def interrupted_problems(row: Mapping[str, Any], game: Overcooked, player: int) -> list[str]:
    """The action I was on the way to do when the state was taken must be named."""
    task = game.interrupted(player)
    if task is None or f"I was on my way to {task.text} " in row["state_description"]:
        return []
    return [f"history: I was on my way to {task.text!r}, which the state does not say"]


_WALK = re.compile(
    r"(?P<name>[a-z]\d+) (?:is (?P<steps>\d+) units? away(?P<blocked> blocked by \w+)?"
    r"|is (?P<none>inaccessible))\."
)
_LOCATIONS = re.compile(r"^<(?!My )(?P<who>\w+)'s Location Information>: (?P<walks>.*)$", re.M)
_HOLDS = re.compile(r"(?P<name>[ks]\d+) contains (?P<item>onion|plate|soup in plate)\.")
_EMPTY_SHARED = re.compile(r"(?P<name>s\d+) is empty\.")
_POT = re.compile(
    r"(?P<name>c\d+) contains (?P<onions>\d) out of 3 onions\. c\d+ is (?:on|off)\. soup in "
    r"c\d+ is (?P<status>not cooking|cooked|still cooking \((?P<left>\d+) timesteps? left\))\."
)
_OPTION = re.compile(
    r"^(?P<verb>pick up|place onion in|load soup on plate from|place soup for delivery in|place)"
    r" ?(?P<item>onion|plate|soup)?(?: from| on)? ?(?P<target>[a-z]\d+)$"
)


def _partner_walks(state_text: str) -> dict[str, int | None]:
    """The partner's printed walks: object name -> steps (None: inaccessible)."""
    match = _LOCATIONS.search(state_text)
    if match is None:
        return {}
    return {
        walk["name"]: None if walk["none"] else int(walk["steps"])
        for walk in _WALK.finditer(match["walks"])
    }


def stated_targets(state_text: str, verb: str, item: str | None) -> list[str]:
    """The targets the stated partner rule allows for the action ``verb`` (read from the text).

    ``verb`` is the option's leading words ("pick up", "place onion in", ...). Sources of an item
    are its dispensers, and counters holding it when the partner can reach a cooker; an onion
    goes to a cooker that still takes one; a plate to the soup ready first; a soup to a delivery
    location; a chef who reaches no cooker puts what it holds on an empty shared counter.
    """
    walks = _partner_walks(state_text)
    reaches_cooker = any(steps is not None for name, steps in walks.items() if name[0] == "c")
    pots = {m["name"]: m for m in _POT.finditer(state_text)}
    if verb == "pick up":
        held = {"onion": "onion", "plate": "plate"}[item or ""]
        places = [n for n in walks if n[0] == ("o" if held == "onion" else "p")]
        if reaches_cooker:
            places += [m["name"] for m in _HOLDS.finditer(state_text) if m["item"] == held]
        return places
    if verb == "place onion in":
        return [n for n, m in pots.items() if int(m["onions"]) < 3 and m["status"] == "not cooking"]
    if verb == "load soup on plate from":
        ready = {
            n: 0 if m["status"] == "cooked" else int(m["left"])
            for n, m in pots.items()
            if m["status"] != "not cooking"
        }
        soonest = min(ready.values(), default=None)
        return [n for n, left in ready.items() if left == soonest]
    if verb == "place soup for delivery in":
        return [n for n in walks if n[0] == "d"]
    return [m["name"] for m in _EMPTY_SHARED.finditer(state_text)]


def tie_problems(row: Mapping[str, Any]) -> list[str]:
    """The keyed partner actions must be exactly the nearest targets of the stated rule."""
    keyed = [row["options"][i] for i in row["correct"]]
    parsed = [match for text in keyed if (match := _OPTION.match(text)) is not None]
    actions = {(match["verb"], match["item"]) for match in parsed}
    if len(parsed) != len(keyed) or len(actions) != 1:
        return [f"ties: the keyed actions {keyed} are not one action at several targets"]
    verb, item = actions.pop()
    walks = _partner_walks(row["state_description"])
    targets = [
        t for t in stated_targets(row["state_description"], verb, item) if walks.get(t) is not None
    ]
    if not targets:
        return [f"ties: the stated rule finds no reachable target for {keyed}"]
    nearest = min(walks[t] or 0 for t in targets)
    wanted = sorted(t for t in targets if walks[t] == nearest)
    got = sorted(match["target"] for match in parsed)
    if wanted != got:
        return [
            f"ties: under the stated rule the nearest targets are {wanted} "
            f"({nearest} steps), but the key names {got}"
        ]
    return []
