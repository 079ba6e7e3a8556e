"""Presets: named agent configurations. ``coordqa`` (the default), ``paper`` and ``hm-paper``.

``paper`` is the configuration behind the LLM-Coordination paper's numbers, read from the
authors' code (eric-ai-lab/llm_coordination): which calls CAC makes in each game, the answer
format, the long-term memory texts and the sampling. ``coordqa`` is this package's own
configuration (the full CAC architecture everywhere, the QA track's answer format, H-group
conventions). ``hm-paper`` is the Hypothetical Minds paper's sampling, which depends on the
model, not the game (:func:`hm_paper_sampling`). The table in the guide's agentic page
(docs/agentic.md) lists the differences.

What a preset sets in a game is part of the game's profile (``GameProfile.agents.agent_presets``,
plain data checked here). A preset resolves, for one game, into three things that land in different
places:

- agent options such as CAC's switches (:attr:`GamePreset.agent_options`), merged *under* the
  user's agent options by the grid, so they are explicit in every episode spec and report row;
- sampling (:attr:`GamePreset.generate`), merged under the user's sampling the same way;
- prompt settings (:class:`PromptStyle`), which the agents read from their ``preset`` argument:
  the answer format, whether the agent adds its own memory sections, and the long-term memory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from coordqa.errors import ConfigError
from coordqa.games.base import game_profile
from coordqa.games.seat import SeatView
from coordqa.options import OptionValue

PRESETS = ("coordqa", "paper", "hm-paper")
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
    """Long-term memory as the paper gave it (the game profile's ``agents.paper_description``):
    Hanabi with the paper's conventions (basic play and save clues, "play with fear" at 2-3
    lives, no chop), Overcooked with a description of the layout; the other games' texts are the
    same in both presets."""


@dataclass(frozen=True)
class GamePreset:
    """What a preset sets for one game."""

    agent_options: Mapping[str, Mapping[str, OptionValue]] = field(default_factory=dict)
    """Per agent name, options (empty: the agent's defaults; for CAC the full architecture)."""
    generate: Mapping[str, Any] = field(default_factory=dict)
    """Sampling parameters (empty: the provider's defaults)."""
    prompt: PromptStyle = field(default_factory=PromptStyle)
    """Prompt settings."""


def check_preset(name: str) -> str:
    """The preset ``name``, in any case as game names are (``Paper``: ``paper``).

    Raises:
        ConfigError: an unknown preset, naming the known ones and the nearest.
    """
    from coordqa.registry import spelled_as, unknown_name_message

    spelled = spelled_as(name, PRESETS)
    if spelled not in PRESETS:
        raise ConfigError(unknown_name_message("preset", name, [("presets", list(PRESETS))]))
    return spelled


def game_preset(preset: str, game: str) -> GamePreset:
    """What ``preset`` sets for ``game``: its profile's ``agents.agent_presets[preset]``.

    A game whose profile does not list the preset gets :class:`GamePreset`'s defaults
    (coordqa's behaviour).

    Raises:
        ConfigError: an unknown preset, or a profile entry that is not a ``GamePreset``.
    """
    presets = game_profile(game).agents.agent_presets
    unknown = sorted(set(presets) - set(PRESETS))
    if unknown:
        raise ConfigError(
            f"game {game!r}: GameProfile.agents.agent_presets names unknown preset(s) {unknown}; "
            f"presets: {', '.join(PRESETS)}"
        )
    settings = presets.get(check_preset(preset))
    if settings is None:
        return GamePreset()
    try:
        return GamePreset(**{**settings, "prompt": PromptStyle(**settings.get("prompt", {}))})
    except TypeError as exc:
        fields = ", ".join(f.name for f in dataclasses.fields(GamePreset))
        styles = ", ".join(f.name for f in dataclasses.fields(PromptStyle))
        raise ConfigError(
            f"game {game!r}: GameProfile.agents.agent_presets[{preset!r}] = {dict(settings)!r} "
            "does not "
            f"fit a preset ({exc}); its keys are {fields}, and prompt's keys {styles}"
        ) from exc


HM_PAPER_TEMPERATURES: tuple[tuple[str, float], ...] = (
    ("gpt-4", 0.1),
    ("gpt-3.5", 0.2),
    ("llama-3", 0.2),
    ("llama3", 0.2),
)
"""The Hypothetical Minds paper's temperature per model family, matched as a substring of the
model name (lower case): GPT-4 (gpt-4, gpt-4-turbo, gpt-4o, gpt-4o-mini...) 0.1, GPT-3.5 and
Llama-3 0.2."""
HM_PAPER_OTHER_TEMPERATURE = 0.2
"""The temperature ``hm-paper`` gives a model of no family the paper ran: the paper's value for
its models other than GPT-4 (a choice; the paper ran no other model)."""
HM_PAPER_TOP_P = 1.0
"""The paper's top_p, for every model."""


def hm_paper_sampling(model: str | None) -> dict[str, float]:
    """The Hypothetical Minds paper's sampling for ``model``.

    >>> hm_paper_sampling("openai/gpt-4-turbo"), hm_paper_sampling("groq/llama3-70b-8192")
    ({'temperature': 0.1, 'top_p': 1.0}, {'temperature': 0.2, 'top_p': 1.0})
    """
    name = (model or "").lower()
    temperature = next(
        (value for family, value in HM_PAPER_TEMPERATURES if family in name),
        HM_PAPER_OTHER_TEMPERATURE,
    )
    return {"temperature": temperature, "top_p": HM_PAPER_TOP_P}


def sampling(preset: str, game: str, model: str | None) -> dict[str, Any]:
    """The sampling ``preset`` gives an agent of ``model`` in ``game`` (before the user's)."""
    if preset == "hm-paper":
        return {**game_preset(preset, game).generate, **hm_paper_sampling(model)}
    return dict(game_preset(preset, game).generate)


def agent_options(preset: str, game: str, agent: str) -> dict[str, OptionValue]:
    """The options ``preset`` gives ``agent`` in ``game``."""
    return dict(game_preset(preset, game).agent_options.get(agent, {}))


def long_term_memory(game: SeatView, style: PromptStyle) -> str:
    """The game description an agent is given under ``style``.

    With ``paper_texts``, the game profile's ``paper_description`` (the long-term memory the
    paper gave its agents), when it has one.
    """
    paper = game_profile(game.name).agents.paper_description if style.paper_texts else None
    return game.game_description() if paper is None else paper(game)
