"""What an agent asks of a game: the game's :class:`AgentProfile` and the contracts behind it.

A game declares what the agentic track needs to know about it in the ``agents`` part of its
profile (``GameProfile.agents``): plain wording (the ToM answer format, the verifier's example),
the agent presets' settings, the report's tables, and the game's own code for the agents'
theory-of-mind features, written against the contracts of this module:

- :data:`BeliefFacts`: the facts of an agent's belief state that the engine can check
  (:class:`BeliefFact`), for ``belief_state``;
- :class:`PartnerBehaviour`: the partner behaviours HM and k-level ToM predict and observe
  (:class:`PartnerActionBehaviour` for any game whose players finish one action per step);
- :data:`TomLadder`: the ToM question ladder of a game with hidden information
  (:class:`LadderQuestion`), for ``tom_ladder``;
- :data:`PaperDescription` and :data:`PartnerInfoRedaction`: the long-term memory a paper gave
  its agents, and the game's description without the partner's inventory and location.

The code lives with the game (Hanabi's in ``coordqa/games/hanabi/tom.py``, Overcooked's in
``coordqa/games/overcooked/tom.py``, the Collab games' in their modules), and the profile holds
it as objects, so a type checker sees every contract and an import loop cannot hide in a
string. The agentic track (``coordqa.agentic``) reads these and names nothing of any game; a
plugin game imports the contracts from ``coordqa.games``. An agent feature whose field is unset
refuses the game, naming the field.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, get_args

from coordqa.errors import ConfigError
from coordqa.games.names import PLAYER_NAMES
from coordqa.games.seat import SeatView

if TYPE_CHECKING:
    from coordqa.games.base import StepResult


_T = TypeVar("_T")


def served(feature: _T | None, refusal: Callable[[], str]) -> _T:
    """A game's agent feature (a field of its :class:`AgentProfile`), refused when unset.

    Raises:
        ConfigError: ``feature`` is None, with ``refusal()``: which field to set, or what to
            drop.
    """
    if feature is None:
        raise ConfigError(refusal())
    return feature


def fact_value(text: str) -> str:
    """A belief fact's value as it is compared: lower case, single spaces, no ``*`` or ``.``.

    >>> fact_value("  **Onion**. "), fact_value("Red  3")
    ('onion', 'red 3')
    """
    return " ".join(text.lower().replace("*", "").split()).strip(" .")


@dataclass(frozen=True)
class BeliefFact:
    """One checkable line of a belief: its label, what the model is told to write, the truth."""

    label: str
    """The line's label, e.g. ``Bob's room`` (the model writes ``<label>: <value>``)."""
    hint: str
    """What to write after the label (shown in the template)."""
    truth: str | None
    """The engine's value (kept as :func:`fact_value` reads it); None when the engine does not
    know it now (the line is asked for but not checked)."""

    def __post_init__(self) -> None:
        if self.truth is not None:
            object.__setattr__(self, "truth", fact_value(self.truth))


class BeliefFacts(Protocol):
    """A game's checkable belief facts: ``(view, player) -> list[BeliefFact]``."""

    def __call__(self, view: SeatView, player: int, /) -> list[BeliefFact]:
        """The facts of ``player``'s belief, with the engine's truth as ``view`` shows it."""


class PartnerBehaviour(abc.ABC):
    """How one game's partner behaviour is offered for prediction and observed.

    A fresh instance serves one agent for one game (it may track the game's histories).
    """

    @abc.abstractmethod
    def question(self, player: int) -> str:
        """The prediction question, from ``player``'s point of view."""

    @abc.abstractmethod
    def options(self, game: SeatView, player: int) -> list[str]:
        """The partner behaviours to choose among now (the prediction's lettered options)."""

    @abc.abstractmethod
    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's behaviours that happened in this step, as option texts (oldest first)."""

    def reset(self, game: SeatView, player: int) -> None:  # noqa: B027 (optional hook)
        """Start a new episode (for spaces that track the game's histories)."""


class PartnerActionBehaviour(PartnerBehaviour):
    """The partner's action this turn, among its legal actions.

    For games whose players both finish one action per step (the Collab games, Lamps).
    """

    def question(self, player: int) -> str:
        """Which action the partner takes this turn."""
        return f"Which action will {PLAYER_NAMES[1 - player]} take this turn?"

    def options(self, game: SeatView, player: int) -> list[str]:
        """The partner's legal actions now."""
        return game.legal_actions(1 - player)

    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's action, completed this turn."""
        action = result.completed.get(1 - player)
        return [] if action is None else [action]


LadderOrder = Literal["introspection", "first_order", "second_order"]
"""A rung of the ToM question ladder."""
LADDER_ORDERS: tuple[LadderOrder, ...] = get_args(LadderOrder)
"""The rungs of the ladder, in order."""


@dataclass(frozen=True)
class LadderQuestion:
    """One question of the ToM ladder with the engine's answer."""

    order: LadderOrder
    """Its rung (one of :data:`LADDER_ORDERS`)."""
    question: str
    """The question."""
    truth: bool
    """The engine's answer."""


class TomLadder(Protocol):
    """A game's ToM question ladder: ``(view, player, ask) -> list[LadderQuestion]``."""

    def __call__(self, view: SeatView, player: int, ask: int, /) -> list[LadderQuestion]:
        """The questions of ``player``'s ``ask``-th ladder (0 first), with their answers."""


class PaperDescription(Protocol):
    """The long-term memory a paper gave its agents: ``(view) -> str``."""

    def __call__(self, view: SeatView, /) -> str:
        """The game description for the seat of ``view``."""


class PartnerInfoRedaction(Protocol):
    """A description without the partner's inventory and location: ``(text, player) -> str``."""

    def __call__(self, description: str, player: int, /) -> str:
        """``player``'s ``description`` with the partner's inventory and location left out."""


@dataclass(frozen=True)
class ReportTable:
    """One table of the agentic report that this game's episodes go into.

    Games that list the same ``stem`` share the table (the Collab games' Table 7).
    """

    stem: str
    """File stem of the table (``table2_hanabi_self_play``: ``table2_hanabi_self_play.csv``)."""
    title: str
    """Heading of the table in the report."""
    shape: str
    """How the agentic report lays the table out: one of
    ``coordqa.agentic.report.TABLE_SHAPES`` (``self_play``, ``self_play_by_layout``,
    ``cross_play_by_seat``, ``cross_play_by_partner``, ``won``)."""


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


_CALLABLES = ("belief_facts", "tom_ladder", "paper_description", "without_partner_info")
"""The fields that hold a function of the game's (checked callable when the profile is made)."""


@dataclass(frozen=True)
class AgentProfile:
    """What the agentic track needs to know about one game (``GameProfile.agents``)."""

    tom_format: str | None = None
    """The answer format of CAC's Theory of Mind call in this game; None: the generic one."""
    verifier_example: str = ""
    """An example of an unsafe action, inserted in CAC's verifier directive after "lose it
    immediately" (with its leading space and brackets); '' for none."""
    behaviour_space: type[PartnerBehaviour] | None = None
    """The partner behaviours HM (and CAC's k-level ToM) predict and observe; a game whose
    players complete one action per step can use :class:`PartnerActionBehaviour`. None:
    partner prediction refuses the game."""
    belief_facts: BeliefFacts | None = None
    """The facts of an agent's belief state that the engine can check; None: the belief state
    refuses the game."""
    tom_ladder: TomLadder | None = None
    """The ToM question ladder of a game with hidden information; None: every fact is common
    knowledge and the ladder refuses the game."""
    agent_presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per agent preset (``coordqa.agentic.presets.PRESETS``), what it sets in this game, as the
    agentic track's ``GamePreset`` fields: ``agent_options`` (per agent name), ``generate``
    (sampling) and ``prompt`` (``PromptStyle`` switches). A preset not listed sets nothing."""
    paper_description: PaperDescription | None = None
    """The long-term memory the LLM-Coordination paper gave its agents (read under a preset with
    ``paper_texts``); None: the game's own description."""
    without_partner_info: PartnerInfoRedaction | None = None
    """The player's description without the partner's inventory and location
    (LLM-Coordination's Overcooked ablation, ``--no-partner-info``); None: the ablation refuses
    the game."""
    reward_unit: float = 1.0
    """The points of one scoring event (Overcooked 20, a soup; Hanabi 1, a card; the Collab
    games 1, the win): HM's HE + HR variant rewards the hypothesis in use per unit scored."""
    report_tables: tuple[ReportTable, ...] = ()
    """The agentic report's tables this game's episodes go into (beyond the tables every game
    gets: the CAC ablation, plan optimality and per-decision measures)."""
    react_examples: tuple[str, ...] = ()
    """Example responses shown to HM's ReAct baseline (and Reflexion) as few-shot prompts
    (Hypothetical Minds, E.1: "Three example responses are shown as few-shot prompts"): each a
    ``Thought:`` about the partner's strategy and the state, then ``Subgoals:`` in this game's
    action words. () shows none."""

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "agent_presets",
            _frozen({name: _frozen(values) for name, values in self.agent_presets.items()}),
        )
        space = self.behaviour_space
        if space is not None and not (
            isinstance(space, type) and issubclass(space, PartnerBehaviour)
        ):
            raise ConfigError(
                f"AgentProfile.behaviour_space must be a PartnerBehaviour subclass "
                f"(coordqa.games.PartnerBehaviour), got {space!r}"
            )
        for name in _CALLABLES:
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise ConfigError(f"AgentProfile.{name} must be a function, got {value!r}")
        if not self.reward_unit > 0:
            raise ConfigError(f"AgentProfile.reward_unit must be > 0, got {self.reward_unit!r}")
