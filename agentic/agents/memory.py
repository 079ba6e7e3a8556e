"""What an agent remembers and falls back on: memory texts, turn numbers, safe fallback actions.

CAC's memory (LLM-Coordination paper, section 3): long-term memory is the game's
``game_description()``; working memory is ``describe(player)``; episodic memory is the agent's own
recent actions and the partner's last action, read from ``game.last_actions`` (for Overcooked,
the object actions each chef achieved, so it works with partners that move by primitives too),
added only where the working memory does not already show them, and always in the third person
for the partner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from coordqa.choices import MAX_OPTIONS
from coordqa.games.base import game_profile
from coordqa.games.names import PLAYER_NAMES, third_person
from coordqa.games.seat import SeatView

RECENT_OWN_ACTIONS = 5
"""How many of its own latest actions the episodic memory lists."""


def fallback_action(game_name: str, legal: Sequence[str]) -> str:
    """The safe action among ``legal``.

    The first legal action that starts with one of the game profile's ``fallback_prefixes``
    (most preferred first), else the first legal action. Overcooked and the Collab games wait
    one step (it breaks no rule and loses nothing at once); Hanabi discards the oldest card, or
    reveals when discarding is illegal.

    >>> fallback_action("hanabi", ["Play my Card 0", "Discard my Card 0", "Discard my Card 1"])
    'Discard my Card 0'
    >>> fallback_action("overcooked", ["pick up onion from o0", "wait", "move away"])
    'wait'
    """
    for prefix in game_profile(game_name).fallback_prefixes:
        match = next((action for action in legal if action.startswith(prefix)), None)
        if match is not None:
            return match
    return legal[0]


def offered_options(game_name: str, legal: Sequence[str]) -> list[str]:
    """The actions shown as lettered options: all of them, or at most :data:`MAX_OPTIONS`.

    Options are lettered A-Z. When more actions are legal (an Overcooked kitchen with many
    loaded counters), the first ``MAX_OPTIONS - 1`` in the game's order are kept plus the safe
    fallback action, so waiting stays possible.
    """
    if len(legal) <= MAX_OPTIONS:
        return list(legal)
    safe = fallback_action(game_name, legal)
    kept = [action for action in legal if action != safe][: MAX_OPTIONS - 1]
    return [*kept, safe]


def partner_last_action(game: SeatView, player: int) -> str | None:
    """The partner's most recent completed action in the third person, or None before its first."""
    actions = game.last_actions(1 - player)
    return third_person(actions[-1], 1 - player) if actions else None


OWN_HISTORY = re.compile(r"\bmy (action history|recent actions)\b", re.IGNORECASE)
"""How the games' descriptions introduce the player's own action history."""


def episodic_memory(game: SeatView, player: int, working: str) -> str:
    """The agent's recent actions and the partner's last action, as far as ``working`` lacks them.

    The games' descriptions already carry some history (Hanabi and the Collab games both the
    player's actions and the partner's last one, Overcooked the player's): each line is shown
    once, so the section only adds what the working memory does not say. '' when nothing is
    missing.
    """
    partner = PLAYER_NAMES[1 - player]
    lines = []
    if not OWN_HISTORY.search(working):
        own = game.last_actions(player)[-RECENT_OWN_ACTIONS:]
        lines.append(f"My recent actions (oldest first): {'; '.join(own) if own else 'none yet'}.")
    if not re.search(rf"\b{partner}'s last action\b", working, re.IGNORECASE):
        last = partner_last_action(game, player)
        lines.append(f"{partner}'s last action: {last if last is not None else 'none yet'}.")
    return "Episodic memory:\n" + "\n".join(lines) if lines else ""


def _history_line(line: str, partner: str) -> bool:
    return bool(OWN_HISTORY.search(line) or re.search(rf"\b{partner}'s last action\b", line, re.I))


def working_memory(
    game: SeatView,
    player: int,
    *,
    episodic: bool = True,
    redact: Callable[[str, int], str] | None = None,
) -> str:
    """The game's description of the state from ``player``'s seat, as the agent's memory shows it.

    ``redact`` rewrites it first (``--no-partner-info``); without ``episodic`` its history lines
    are left out (a stateless agent).
    """
    working = game.describe(player).strip()
    if redact is not None:
        working = redact(working, player)
    if not episodic:
        partner = PLAYER_NAMES[1 - player]
        lines = working.splitlines()
        working = "\n".join(line for line in lines if not _history_line(line, partner))
    return working


def memory_text(
    game: SeatView,
    player: int,
    *sections: str,
    episodic: bool = True,
    redact: Callable[[str, int], str] | None = None,
) -> str:
    """Working memory, episodic memory, then extra sections.

    With ``episodic`` False the agent is stateless: no episodic section, and the history lines
    of the game's description are left out too, so the model sees the current state only.
    ``redact`` rewrites the game's description first (``--no-partner-info``).
    """
    working = working_memory(game, player, episodic=episodic, redact=redact)
    parts = [working, episodic_memory(game, player, working) if episodic else ""]
    parts += [section.strip() for section in sections]
    return "\n\n".join(part for part in parts if part)
