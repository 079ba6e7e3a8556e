"""A game's profile: everything the tracks need to know about a game, declared by the game.

Each game class carries one :class:`GameProfile` (``Game.profile``), so whoever registers a game
(coordqa for its four, any package through the ``coordqa.games`` entry point) registers its
profile with it, and no track keeps a table keyed by game name. The QA track reads the directive
wording and the scenario builder; ``coordqa play`` the strong policy and the win condition; the
agentic track the fallback action, prompt wording, partner-behaviour space, belief facts, presets,
seeds, seats, goal and report tables.

Layering: the core (``coordqa``) never imports the tracks (``coordqa.agentic``,
``coordqa.scenarios``). So every field is plain data, or a **reference**: a ``"module:attr"``
string that only the track that needs it resolves (:meth:`GameProfile.load`), the first time it
needs it. References to track code (a behaviour space, belief facts, a scenario builder) are
where a game plugs its own code into a track; the objects they name follow that track's contract
(documented at each field). Plain data that only one track reads (preset switches, report table
shapes) is validated by that track, which names the game and the field in its errors.

A game that declares no profile gets :class:`GameProfile`'s defaults: coordqa's QA wording, no
strong policy, the first legal action as fallback, no HM behaviour space or belief facts (those
agent features then refuse the game, naming the field to set), seeds 0, 1, 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from coordqa.directives import DIRECTIVES
from coordqa.errors import ConfigError
from coordqa.registry import resolve_reference

__all__ = ["GameProfile", "Goal", "ReportTable", "WinCondition"]

Goal = Literal["win", "first_reward"]
"""What plan optimality counts the steps to: the win (the episode ends won) or the first step
with a reward (Overcooked's first delivered soup)."""

REFERENCE_FIELDS = (
    "scenario_builder",
    "behaviour_space",
    "belief_facts",
    "tom_ladder",
    "paper_description",
    "without_partner_info",
    "inference_probe",
)
"""The profile fields that hold ``"module:attr"`` references (:meth:`GameProfile.load`)."""


@dataclass(frozen=True)
class WinCondition:
    """How a won-or-lost game says it was won."""

    metric: str
    """The 0/1 episode metric that is 1 when the episode was won (``"captured"``)."""
    noun: str
    """The win as a noun, for report columns (``"capture"``: "capture rate", "turns to
    capture")."""


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


@dataclass(frozen=True)
class GameProfile:
    """Everything the QA track, ``play`` and the agentic track need to know about one game."""

    # -- the QA track ------------------------------------------------------------------------
    qa_directives: Mapping[str, str] = field(default_factory=lambda: _frozen(DIRECTIVES))
    """Per question type (EC, ToM, JP), the directive that asks this game's questions: the
    system message of a CoordinationQA prompt (:func:`coordqa.prompts.build_messages`). The
    agentic track asks its action call with the JP directive and HM's prediction with the ToM
    one, so QA measures what agents face. Changing it changes the prompts (and prompt hashes) of
    every question of the game."""
    scenario_builder: str | None = None
    """Reference to this game's ``coordqa.scenarios.ScenarioBuilder`` instance (its questions,
    solvers and candidate states); None: no questions can be built for it."""

    # -- players -----------------------------------------------------------------------------
    strong_policy: str | None = None
    """The registered player that plays this game well from a seat view (both seats): the pair
    ``coordqa play`` uses when none is named, and the reference whose self-play plan optimality
    compares with. None: the game has none."""

    # -- the agentic track: agents -----------------------------------------------------------
    fallback_prefixes: tuple[str, ...] = ()
    """Prefixes of the safe fallback action, most preferred first: what an agent plays when its
    model gives no usable answer (the first legal action that starts with one; else the first
    legal action). It should break no rule and lose nothing at once."""
    tom_format: str | None = None
    """The answer format of CAC's Theory of Mind call in this game; None: the generic one."""
    verifier_example: str = ""
    """An example of an unsafe action, inserted in CAC's verifier directive after "lose it
    immediately" (with its leading space and brackets); '' for none."""
    behaviour_space: str | None = None
    """Reference to a ``coordqa.agentic.agents.behaviour.PartnerBehaviour`` subclass: the
    partner behaviours HM (and CAC's k-level ToM) predict and observe. A game whose players
    complete one action per step can name
    ``coordqa.agentic.agents.behaviour:PartnerActionBehaviour`` (the partner's next action among
    its legal actions). None: partner prediction refuses it."""
    belief_facts: str | None = None
    """Reference to a function ``(SeatView, player) -> list[BeliefFact]``
    (:class:`coordqa.agentic.agents.belief.BeliefFact`): the facts of an agent's belief state
    that the engine can check. None: the belief state refuses the game."""
    tom_ladder: str | None = None
    """Reference to a function ``(SeatView, player, ask) ->
    list[coordqa.agentic.agents.ladder.LadderQuestion]``: the ToM question ladder of a game with
    hidden information, asked for the ``ask``-th time in the episode (0 first). None: every
    fact is common knowledge and the ladder refuses the game."""
    agent_presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per agent preset (``coordqa.agentic.presets.PRESETS``), what it sets in this game, as the
    agentic track's ``GamePreset`` fields: ``agent_options`` (per agent name), ``generate``
    (sampling) and ``prompt`` (``PromptStyle`` switches). A preset not listed sets nothing."""
    paper_description: str | None = None
    """Reference to a function ``(SeatView) -> str``: the long-term memory the LLM-Coordination
    paper gave its agents (read under a preset with ``paper_texts``); None: the game's own
    description."""
    without_partner_info: str | None = None
    """Reference to a function ``(description, player) -> str``: the player's description
    without the partner's inventory and location (LLM-Coordination's Overcooked ablation,
    ``--no-partner-info``); None: the ablation refuses the game."""
    reward_unit: float = 1.0
    """The points of one scoring event (Overcooked 20, a soup; Hanabi 1, a card; the Collab
    games 1, the win): HM's HE + HR variant rewards the hypothesis in use per unit scored."""

    # -- seat privacy --------------------------------------------------------------------------
    inference_probe: str | None = None
    """Reference to a class whose instances read the views handed to one seat and say what
    they let it infer of hidden state beyond public history
    (:class:`coordqa.games.seat.InferenceProbe`; Hanabi's tries to learn its own cards);
    :func:`coordqa.games.testing.check_seat_privacy` runs a fresh one per seat. None: the game
    hides nothing (fully observable)."""

    # -- the agentic track: grids and reports ------------------------------------------------
    seeded: bool = True
    """Whether the episode seed changes the game itself (a deal, a random opponent's moves).
    False when the start and the rules are deterministic (Overcooked, Collab Capture): two
    episodes that make the same moves are then the same episode whatever their seeds, and a
    report says "1 distinct episode" rather than an SE of 0 over copies. The default is the safe
    claim for a game that does not say."""
    self_play_seeds: tuple[int, ...] = (0, 1, 2)
    """Episode seeds of a self-play pairing when a grid names none."""
    cross_play_seeds: tuple[int, ...] = (0, 1, 2)
    """Episode seeds of a cross-play pairing when a grid names none."""
    cross_play_seats: tuple[int, ...] = (0,)
    """The agent's seats in cross-play when a grid names none."""
    win: WinCondition | None = None
    """For games that are won or lost: how an episode says it was won; None otherwise."""
    goal: Goal | None = None
    """What plan optimality counts steps to (see :data:`Goal`); None: the game has no goal
    state and gets no optimality measure."""
    report_tables: tuple[ReportTable, ...] = ()
    """The agentic report's tables this game's episodes go into (beyond the tables every game
    gets: the CAC ablation, plan optimality and per-decision measures)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "qa_directives", _frozen(self.qa_directives))
        object.__setattr__(
            self,
            "agent_presets",
            _frozen({name: _frozen(values) for name, values in self.agent_presets.items()}),
        )
        if set(self.qa_directives) != set(DIRECTIVES):
            raise ConfigError(
                f"GameProfile.qa_directives must give one directive per question type "
                f"({', '.join(DIRECTIVES)}), got {sorted(self.qa_directives)}"
            )
        for name in REFERENCE_FIELDS:
            reference = getattr(self, name)
            if reference is not None and (":" not in reference or reference.startswith(":")):
                raise ConfigError(
                    f"GameProfile.{name} must be a 'module:attr' reference, got {reference!r}"
                )
        if not self.cross_play_seats or not set(self.cross_play_seats) <= {0, 1}:
            raise ConfigError(
                f"GameProfile.cross_play_seats must name seats 0 and/or 1, got "
                f"{self.cross_play_seats!r}"
            )
        if not self.reward_unit > 0:
            raise ConfigError(f"GameProfile.reward_unit must be > 0, got {self.reward_unit!r}")
        if not self.self_play_seeds or not self.cross_play_seeds:
            raise ConfigError("GameProfile seeds must list at least one seed")
        if self.goal == "win" and self.win is None:
            raise ConfigError("GameProfile.goal 'win' needs a win condition (GameProfile.win)")
        if self.goal is not None and self.goal not in ("win", "first_reward"):
            raise ConfigError(
                f"GameProfile.goal must be 'win', 'first_reward' or None, got {self.goal!r}"
            )

    def load(self, name: str) -> Any:
        """The object the reference field ``name`` names (imported now), or None when unset.

        Raises:
            ConfigError: ``name`` is not a reference field, or its reference does not load.
        """
        if name not in REFERENCE_FIELDS:
            raise ConfigError(
                f"{name!r} is not a reference field of GameProfile; those are "
                f"{', '.join(REFERENCE_FIELDS)}"
            )
        reference = getattr(self, name)
        return None if reference is None else resolve_reference(reference)
