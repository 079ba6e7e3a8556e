"""Presets: named agent configurations, per game. ``coordqa`` (the default) and ``paper``.

``paper`` is the configuration behind the LLM-Coordination paper's numbers, read from the
authors' code (eric-ai-lab/llm_coordination): which calls CAC makes in each game, the answer
format, the long-term memory texts and the sampling. ``coordqa`` is this package's own
configuration (the full CAC architecture everywhere, the QA track's answer format, H-group
conventions). The table in README's agentic section lists the differences.

A preset resolves, for one game, into three things that land in different places:

- CAC's switches (:attr:`GamePreset.cac`), merged *under* the user's agent options by the grid,
  so they are explicit in every episode spec and report row;
- sampling (:attr:`GamePreset.generate`), merged under the user's sampling the same way;
- prompt settings (:class:`PromptStyle`), which the agents read from their ``preset`` argument:
  the answer format, whether the agent adds its own memory sections, and the long-term memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES
from coordqa.games.seat import SeatView
from coordqa.options import OptionValue

PRESETS = ("coordqa", "paper")
"""Every preset name."""
DEFAULT_PRESET = "coordqa"
"""The preset used when none is named."""


@dataclass(frozen=True)
class PromptStyle:
    """How an agent words its prompts under a preset, in one game."""

    answer_only: bool = False
    """The action call asks for ``Action: <action>`` alone, with no explanation (the paper's
    Overcooked prompt); otherwise ``Explanation: ...`` then ``Action: <letter>``."""
    stateless: bool = False
    """No episodic memory: no episodic section, and the history lines of the game's description
    (own actions, the partner's last action) are left out, so each call sees the current state
    only (the paper's Collab Capture agent). The agent's own notes (a failed action, ToM notes)
    still appear."""
    paper_texts: bool = False
    """Long-term memory as the paper gave it: Hanabi with the paper's conventions (basic play
    and save clues, "play with fear" at 2-3 lives, no chop), Overcooked with a description of
    the layout; the other games' texts are the same in both presets."""


@dataclass(frozen=True)
class GamePreset:
    """What a preset sets for one game."""

    cac: Mapping[str, OptionValue] = field(default_factory=dict)
    """CAC options (empty: CAC's defaults, the full architecture)."""
    generate: Mapping[str, Any] = field(default_factory=dict)
    """Sampling parameters (empty: the provider's defaults)."""
    prompt: PromptStyle = field(default_factory=PromptStyle)
    """Prompt settings."""


_PAPER_SAMPLING = {"temperature": 0.6, "top_p": 0.9}
"""The authors' Overcooked and Collab agents (``LLMManager`` defaults)."""

_PAPER_TEXTS = PromptStyle(paper_texts=True)

PRESET_GAMES: dict[str, dict[str, GamePreset]] = {
    "coordqa": {},
    "paper": {
        "hanabi": GamePreset(
            cac={"use_tom": True, "use_verifier": True, "max_verifier_retries": None},
            generate={"temperature": 0.6, "top_p": 1.0},
            prompt=_PAPER_TEXTS,
        ),
        "overcooked": GamePreset(
            cac={"use_tom": False, "use_verifier": False},
            generate=_PAPER_SAMPLING,
            prompt=PromptStyle(answer_only=True, paper_texts=True),
        ),
        "collab_capture": GamePreset(
            cac={"use_tom": False, "use_verifier": False},
            generate=_PAPER_SAMPLING,
            prompt=PromptStyle(stateless=True),
        ),
        "collab_escape": GamePreset(
            cac={"use_tom": True, "use_verifier": False},
            generate=_PAPER_SAMPLING,
        ),
    },
}
"""Per preset and game, what it sets; a game a preset does not list gets :class:`GamePreset`'s
defaults (coordqa's behaviour)."""


def check_preset(name: str) -> str:
    """Return ``name`` if it is a preset.

    Raises:
        ConfigError: an unknown preset, naming the known ones.
    """
    if name not in PRESET_GAMES:
        raise ConfigError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return name


def game_preset(preset: str, game: str) -> GamePreset:
    """What ``preset`` sets for ``game``."""
    return PRESET_GAMES[check_preset(preset)].get(game, GamePreset())


def agent_options(preset: str, game: str, agent: str) -> dict[str, OptionValue]:
    """The options ``preset`` gives ``agent`` in ``game`` (only CAC has per-game switches)."""
    return dict(game_preset(preset, game).cac) if agent == "cac" else {}


# --- the paper's long-term memory texts -----------------------------------------------------

PAPER_HANABI_CONVENTIONS = """\
Conventions, which both players follow:
- Card positions are counted from the left; the oldest card is on the left and new cards are \
added on the right.
- There are two kinds of clues. A play clue reveals a card (or cards) that can be played on \
its stack right now: play it. A save clue reveals a card that must not be discarded: a 5, a 2 \
whose other copy is gone, or a critical card (the last copy left): keep it.
- Do not reveal what your partner already knows about a card (its colour or its rank).
- Prefer a play clue to a save clue when both are possible; when neither can be given, discard.
- Discard without fear: saving important cards is the whole team's job.
- Play with fear: with 2 or 3 lives left you may play a card you are not completely sure of; with \
only 1 life left, play a card only when you are sure it goes next on its stack."""
"""The paper's Hanabi conventions (basic play and save clues, no chop), in coordqa's words."""


def long_term_memory(game: SeatView, style: PromptStyle) -> str:
    """The game description an agent is given under ``style``."""
    if not style.paper_texts:
        return game.game_description()
    if game.name == "hanabi":
        from coordqa.games.hanabi import conventions

        parts = (conventions.RULES, PAPER_HANABI_CONVENTIONS, conventions.OBJECTIVE)
        return "\n\n".join((*parts, conventions.ACTIONS))
    if game.name == "overcooked":
        return f"{game.game_description().rstrip()}\n\n{overcooked_layout_description(game)}"
    return game.game_description()


_KIND_NAMES = {
    "o": "onion dispensers",
    "p": "plate dispensers",
    "d": "delivery locations",
    "c": "cookers",
    "s": "shared counters",
    "k": "kitchen counters",
}


def overcooked_layout_description(game: Any) -> str:
    """Which objects each chef can reach on this layout, from the layout's own geometry.

    The paper gave the model a hand-written description of each layout; this one is computed
    from the grid (the floor each chef can walk on from its starting cell), so it is right for
    every layout and names objects as the state descriptions do.
    """
    from coordqa.games.overcooked.game import geometry as layout_geometry
    from coordqa.games.overcooked.game import kitchen

    geometry = layout_geometry(game.layout)
    starts = [tuple(player.position) for player in kitchen(game).state.players]
    reach = []
    for start in starts:
        floor = set(geometry.distances_from(start))
        reach.append(
            [f for f in geometry.features if any(c in floor for c in geometry.stand_cells(f.pos))]
        )
    if reach[0] == reach[1]:
        return (
            f"Layout ({game.layout}): one open kitchen; both chefs can reach {_listing(reach[0])}."
        )
    both = [f for f in reach[0] if f in reach[1]]
    parts = [f"Layout ({game.layout}): the kitchen is split into two parts."]
    for player in (0, 1):
        own = [f for f in reach[player] if f not in both]
        parts.append(f"{PLAYER_NAMES[player]}'s part has {_listing(own) or 'nothing else'}.")
    if both:
        parts.append(f"Both parts reach {_listing(both)}.")
    if any(f.kind == "s" for f in both):
        parts.append("Items put on a shared counter can be picked up from either side.")
    return " ".join(parts)


def _listing(features: list[Any]) -> str:
    groups = []
    for kind, noun in _KIND_NAMES.items():
        names = [f.name for f in features if f.kind == kind]
        if names:
            groups.append(f"{noun} {', '.join(names)}")
    return "; ".join(groups)
