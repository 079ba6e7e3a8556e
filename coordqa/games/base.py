"""The game protocol shared by the four games, and the player interface every player implements.

A game is a small stateful environment for two players (Alice = 0, Bob = 1) that speaks text:
``describe`` renders the working-memory text a player sees, ``legal_actions`` lists the text
actions an LLM may choose, and ``step`` advances the game with the moves of the players who must
act now. Every move is a string: a text action from ``legal_actions`` or, for games with a lower
engine level (Overcooked), one of the game's primitive move names. Because moves are strings,
trajectories are plain JSON and replay exactly.

Why stateful plus snapshot/restore, rather than pure functions of a state: the engines
(overcooked-ai, hanabi-learning-environment) are stateful objects; ``snapshot()`` gives a JSON
form of the full state, and ``restore()`` rebuilds it exactly, which is all a QA scenario or a
replayed trajectory needs.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal

from coordqa.errors import GameError
from coordqa.games.names import PLAYER_NAMES as PLAYER_NAMES
from coordqa.games.profile import GameProfile
from coordqa.games.seat import ObservationT, SeatView
from coordqa.registry import Catalog, Registry

if TYPE_CHECKING:
    from coordqa.options import OptionValue, PlayerOptions

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class StepResult:
    """What one call to :meth:`Game.step` did."""

    executed: dict[int, str]
    """The engine-level move each player actually performed this step (for Overcooked a primitive
    such as ``"north"`` or ``"interact"``; for the other games the text action itself). Replaying
    these from the initial snapshot reproduces the episode exactly."""
    reward: float
    """Shared reward earned this step."""
    completed: dict[int, str] = field(default_factory=dict)
    """Text actions that finished this step, per player (an Overcooked medium-level action ends
    over several timesteps; other games complete every move at once)."""
    failed: dict[int, str] = field(default_factory=dict)
    """Text actions that ended unfinished this step because they became impossible, per player."""
    failure_reasons: dict[int, str] = field(default_factory=dict)
    """Why each action in ``failed`` ended unfinished, in words for that player (what the agents
    tell the model in their next prompt)."""
    events: list[str] = field(default_factory=list)
    """Human-readable events (``"Alice delivered a soup"``, ``"the thief was caught"``)."""
    terminal: bool = False
    """Whether the game is over after this step."""


@dataclass(frozen=True)
class SeatSecrets:
    """What one seat must not reach, beyond the live game and what it holds.

    Read by :func:`coordqa.games.testing.check_seat_privacy`; fully observable games have
    nothing more to hide (the default).
    """

    engine_types: tuple[type, ...] = ()
    """Engine classes whose objects hold the full state: reaching any of them is a leak."""
    reveals: Callable[[Any], bool] | None = None
    """Whether a value spells out what only the other seat may know (Hanabi: this seat's own
    cards); None: nothing such."""
    secret: str = ""
    """What ``reveals`` finds, in words (``"the seat's own Hanabi cards"``)."""


class Game(abc.ABC, Generic[ObservationT]):
    """One game instance: rules, current state, text rendering and grounding.

    Built-in games are listed in :data:`BUILTIN_GAMES`, other packages add theirs with a
    ``coordqa.games`` entry point (:mod:`coordqa.registry`); all are built through
    :func:`make_game`.
    """

    name: ClassVar[str]
    """Registry name, e.g. ``"overcooked"``."""
    version: ClassVar[str]
    """Bumped whenever rules, descriptions or action lists change (recorded in run manifests)."""
    restores_versions: ClassVar[tuple[str, ...]] = ()
    """Earlier versions whose snapshots hold the same state for this version (only texts changed
    since): they restore, and snapshots are then written with the current :attr:`version`. So a
    frozen dataset release built on an earlier version can still be rebuilt and re-checked."""
    layouts: ClassVar[tuple[str, ...]]
    """Layouts or maps this game accepts (``("default",)`` for single-map games)."""
    turn_based: ClassVar[bool] = False
    """Whether players move in turns (Hanabi) rather than at the same time (the other games);
    prompts that talk about the partner's timing depend on it."""
    legal_actions_public: ClassVar[bool] = True
    """Whether each seat's legal actions follow from what both seats see, so each seat's view
    holds both lists. False where a seat's legal actions depend on what the other seat cannot
    see (Hanabi: a reveal is legal only if it touches a card of the partner, who cannot see its
    own cards): each view then holds its own seat's actions only."""
    profile: ClassVar[GameProfile] = GameProfile()
    """What the tracks need to know about this game (:mod:`coordqa.games.profile`); a game that
    declares none gets the defaults."""

    def __init__(self, layout: str | None = None, seed: int = 0, **options: Any) -> None:
        """Create the game on ``layout`` (the game's default when None), seeded, then reset it."""
        self.layout = layout or self.layouts[0]
        self.seed = seed
        self.options = dict(options)

    @abc.abstractmethod
    def reset(self, seed: int | None = None) -> None:
        """Start a new episode (with a new seed when given)."""

    @abc.abstractmethod
    def players_to_act(self) -> list[int]:
        """Players who must choose a move now.

        Hanabi: the player on turn; Overcooked: players with no medium-level action in
        progress; Collab games: both.
        """

    @abc.abstractmethod
    def legal_actions(self, player: int) -> list[str]:
        """The text actions ``player`` may choose now, in a stable order."""

    @abc.abstractmethod
    def describe(self, player: int) -> str:
        """Working-memory text of the current state for ``player`` (deterministic)."""

    @abc.abstractmethod
    def game_description(self) -> str:
        """Long-term memory: rules, conventions, objective and action space, as a prompt text."""

    @abc.abstractmethod
    def step(self, moves: Mapping[int, str]) -> StepResult:
        """Advance the game with the moves of ``players_to_act()``.

        Raises:
            GameError: a move is not legal, or a player who must act gave none.
        """

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """Whether the episode is over."""

    @abc.abstractmethod
    def score(self) -> float:
        """The shared score so far (game-specific scale)."""

    @abc.abstractmethod
    def metrics(self) -> dict[str, float]:
        """Game-specific episode metrics (deliveries, bombs, captured, turns, ...)."""

    @abc.abstractmethod
    def snapshot(self) -> JsonDict:
        """The full state as JSON-serialisable data, including layout, seed and step count."""

    @abc.abstractmethod
    def restore(self, snapshot: Mapping[str, Any]) -> None:
        """Make this game's state exactly the one ``snapshot`` describes."""

    def snapshot_identity(self) -> JsonDict:
        """Game name, version, layout and seed: the head of every game's snapshot."""
        return {
            "game": self.name,
            "version": self.version,
            "layout": self.layout,
            "seed": self.seed,
        }

    def check_snapshot_identity(self, snapshot: Mapping[str, Any]) -> None:
        """Refuse, before restoring, a snapshot written by another game or game version.

        Raises:
            GameError: naming the snapshot's game and version and this game's.
        """
        known = (self.version, *self.restores_versions)
        if snapshot.get("game") != self.name or snapshot.get("version") not in known:
            also = f" (it also restores {', '.join(self.restores_versions)})"
            raise GameError(
                f"snapshot is for {snapshot.get('game')!r} version {snapshot.get('version')!r}; "
                f"this game is {self.name!r} version {self.version!r}"
                f"{also if self.restores_versions else ''}."
            )

    def current_form(self, snapshot: Mapping[str, Any]) -> dict[str, Any]:
        """``snapshot`` as this version writes it: an earlier version it restores renamed.

        The state of a version in :attr:`restores_versions` is this version's state (only texts
        changed), so a stored trajectory of it replays and compares equal once renamed.
        """
        if snapshot.get("game") == self.name and snapshot.get("version") in self.restores_versions:
            return {**snapshot, "version": self.version}
        return dict(snapshot)

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, Any]) -> Game:
        """Build a game from a snapshot produced by :meth:`snapshot`."""
        game = cls(layout=snapshot.get("layout"), seed=int(snapshot.get("seed", 0)))
        game.restore(snapshot)
        return game

    def replay_step(
        self, executed: Mapping[int, str], decisions: Mapping[int, str] | None = None
    ) -> StepResult:
        """Advance with stored engine moves (a trajectory's ``executed``); by default ``step``.

        ``decisions`` are the moves the players chose at this step. Games whose text actions
        last several engine steps (Overcooked) override this: they replay the decisions to
        rebuild the actions in progress and check that they produce ``executed`` again.
        """
        return self.step(executed)

    def last_actions(self, player: int) -> list[str]:
        """``player``'s completed text actions so far, oldest first (episodic memory)."""
        return []

    def turn_number(self) -> int | None:
        """The turn (Hanabi, Collab) or timestep (Overcooked) now, when the game has one."""
        turns = getattr(self, "turns", None)
        if isinstance(turns, list):
            return len(turns)
        state: Any = getattr(self, "state", None)
        for attribute in ("timestep", "turn"):
            value = getattr(state, attribute, None)
            if isinstance(value, int):
                return value
        return None

    def seat_observation(self, seat: int) -> ObservationT:
        """What ``seat`` may see of the state, as an object that leads nowhere else.

        Games override this with their structured observation (Hanabi: the engine's per-player
        observation, own hand hidden; fully observable games: a copy or an immutable value of
        the state). It must hold no reference to the game, its live state or anything only the
        other seat may see (:func:`coordqa.games.testing.check_seat_privacy` checks). The
        default, None, offers players the text only (a ``Game[None]``).
        """
        return None  # type: ignore[return-value]

    def seat_secrets(self, seat: int) -> SeatSecrets:
        """What ``seat`` must not reach now beyond the game itself (see :class:`SeatSecrets`)."""
        return SeatSecrets()

    def seat_view(self, seat: int) -> SeatView[ObservationT]:
        """Everything ``seat`` may know now, as plain data (what every player is handed)."""
        return self._seat_view(seat, self._public_fields())

    def seat_views(self) -> list[SeatView[ObservationT]]:
        """Both seats' views of the current state (the parts they share are computed once)."""
        public = self._public_fields()
        return [self._seat_view(seat, public) for seat in range(len(PLAYER_NAMES))]

    def _public_fields(self) -> dict[str, Any]:
        """The fields of a seat view that are the same for both seats."""
        return {
            "name": self.name,
            "version": self.version,
            "layout": self.layout,
            "turn_based": self.turn_based,
            "turn": self.turn_number(),
            "actions": (tuple(self.legal_actions(0)), tuple(self.legal_actions(1))),
            "history": (tuple(self.last_actions(0)), tuple(self.last_actions(1))),
            "rules": self.game_description(),
            "points": self.score(),
            "over": self.is_terminal(),
        }

    def _seat_view(self, seat: int, public: dict[str, Any]) -> SeatView[ObservationT]:
        actions = public["actions"]
        if not self.legal_actions_public:
            actions = tuple(own if player == seat else None for player, own in enumerate(actions))
        return SeatView(
            seat=seat,
            working_memory=self.describe(seat),
            public=self.seat_observation(seat),
            **{**public, "actions": actions},
        )


BUILTIN_GAMES: dict[str, str] = {
    "overcooked": "coordqa.games.overcooked.game:Overcooked",
    "hanabi": "coordqa.games.hanabi.game:Hanabi",
    "collab_capture": "coordqa.games.collab_capture:CollabCapture",
    "collab_escape": "coordqa.games.collab_escape:CollabEscape",
}
"""The built-in games, in order, and where each is defined: today the paper's four, in the
paper's order."""

GAME_NAMES: tuple[str, ...] = tuple(BUILTIN_GAMES)
"""The names of the built-in games, in order (today the paper's four). Each one is in the
bundled dataset's build (``scenarios/build.py``), the leaderboard's private splits, dataset
cards and the seat-privacy test, so a game added to :data:`BUILTIN_GAMES` joins them. Plugin
games are only in :data:`GAMES`."""

GAMES: Registry[type[Game]] = Registry("game", "coordqa.games", name_of=lambda cls: cls.name)
"""Every game class, by name: the built-in ones (imported when first used) and plugins."""
for _name, _reference in BUILTIN_GAMES.items():
    GAMES.add_lazy(_name, _reference)


def make_game(name: str, layout: str | None = None, seed: int = 0, **options: Any) -> Game:
    """Build a registered game; unknown names and layouts get a helpful error."""
    cls = GAMES.get(name)
    if layout is not None and layout not in cls.layouts:
        from coordqa.errors import UnknownNameError
        from coordqa.registry import did_you_mean

        hint = did_you_mean(layout, cls.layouts)
        raise UnknownNameError(
            f"unknown layout {layout!r} for {name}.{hint} Available: {', '.join(cls.layouts)}."
        )
    return cls(layout=layout, seed=seed, **options)


def game_profile(name: str) -> GameProfile:
    """The profile of the registered game ``name`` (built-in or plugin).

    Raises:
        UnknownNameError: no such game (with the registered names and suggestions).
        ConfigError: the game's ``profile`` is not a :class:`GameProfile`.
    """
    profile = GAMES.get(name).profile
    if not isinstance(profile, GameProfile):
        from coordqa.errors import ConfigError

        raise ConfigError(
            f"game {name!r} declares profile = {profile!r}; it must be a coordqa.games.GameProfile"
        )
    return profile


@dataclass(frozen=True)
class Observation:
    """What a player is given when asked to move: its seat's view of the game.

    Players read only the view (:class:`~coordqa.games.seat.SeatView`): the text an LLM sees,
    the legal actions, public histories and the game's seat observation; never the live game.
    """

    view: SeatView
    """What the asked player may know now."""

    @classmethod
    def of(cls, game: Game, player: int) -> Observation:
        """The observation of ``player`` in ``game`` now."""
        return cls(game.seat_view(player))

    @property
    def player(self) -> int:
        """The index of the player being asked (0 = Alice, 1 = Bob)."""
        return self.view.seat

    @property
    def legal_actions(self) -> list[str]:
        """The text actions allowed now."""
        return self.view.legal_actions(self.view.seat)

    def description(self) -> str:
        """The working-memory text for this player."""
        return self.view.describe(self.view.seat)


class Player(abc.ABC):
    """A participant in a game: scripted bot, neural partner or LLM agent.

    ``act`` is async so LLM agents can await model calls while other episodes run; scripted
    players derive from :class:`ScriptedPlayer` and implement the synchronous ``choose``.
    """

    name: ClassVar[str] = "player"
    """Registry name of this kind of player."""

    def reset(self, view: SeatView, player: int, seed: int) -> None:  # noqa: B027 (optional hook)
        """Called before each episode with this player's view of the start, index and a seed."""

    @abc.abstractmethod
    async def act(self, observation: Observation) -> str:
        """Choose a move: a text action from ``observation.legal_actions`` or an engine move."""

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:  # noqa: B027
        """Called after every step (for every player, acting or not) with its view and the step."""


class ScriptedPlayer(Player):
    """A player whose decision is a plain computation (no awaiting)."""

    @abc.abstractmethod
    def choose(self, observation: Observation) -> str:
        """Pick a move for the observation."""

    async def act(self, observation: Observation) -> str:
        """Run :meth:`choose` (scripted players never block the event loop for long)."""
        return self.choose(observation)


ANY_GAME = "*"
"""In :attr:`PlayerSpec.games`, stands for every registered game (players that read only the
seat view's text, such as the LLM agents, play plugin games too)."""


@dataclass(frozen=True)
class PlayerSpec:
    """A registered kind of player: which games it plays and how to build one."""

    name: str
    """Registry name (e.g. ``"hanabi-convention"``)."""
    games: tuple[str, ...]
    """Games this player can play; :data:`ANY_GAME` for every registered game."""
    factory: Any
    """Callable ``factory(game_name, layout, **settings) -> Player``; a player that declares
    :attr:`options` also takes ``options=``, its parsed options (an instance of that class, or
    for an LLM agent the :class:`~coordqa.options.PlayerOptions`)."""
    description: str = ""
    """One line for ``coordqa games list`` / ``coordqa partners list``."""
    kind: str = "scripted"
    """``scripted``, ``bc``, ``sad``, ``obl``, ``llm``..."""
    options: type | None = None
    """The frozen dataclass of the player's options (:mod:`coordqa.options`); None: it takes
    none. :func:`make_player`, grids and the command line check options against it."""
    game_check: Callable[[str, Any], None] | None = None
    """``game_check(game, options)`` raises :class:`~coordqa.errors.ConfigError` when the
    player, with those options, cannot play ``game`` although it plays every game (an agent
    feature the game's profile does not serve); grids call it when they are read. None: no
    check."""

    def parse_options(self, given: Mapping[str, OptionValue], where: str = "") -> PlayerOptions:
        """``given`` parsed with :attr:`options` (the one parse of a player's options).

        Raises:
            ConfigError: an unknown option (with the valid ones and the nearest) or a bad value.
        """
        from coordqa.options import PlayerOptions, parse_options

        value = parse_options(self.name, self.options, given, where)
        return PlayerOptions(given, value, parsed=True)

    def resolve_options(self, options: PlayerOptions, where: str = "") -> PlayerOptions:
        """``options`` if parsed; a stored spec's (given only) parsed now."""
        return options if options.parsed else self.parse_options(options.given, where)

    def played_options(self, given: Mapping[str, OptionValue]) -> dict[str, OptionValue]:
        """The options it plays with: ``given`` over its options class's defaults.

        Every option, set or not, so a report's column holds the value played (``use_tom``
        True for a CAC run left at its defaults), not a blank.
        """
        from coordqa.options import option_defaults

        return {**option_defaults(self.options), **given}

    def plays(self, game: str) -> bool:
        """Whether this player can play ``game``."""
        return ANY_GAME in self.games or game in self.games

    @property
    def needs_model(self) -> bool:
        """Whether it is an LLM agent, which plays only with a model.

        ``coordqa agentic run`` gives one; ``coordqa play`` and ``games show`` take none.
        """
        return self.kind == "llm"

    def games_text(self) -> str:
        """The games it plays, for messages and listings."""
        return "every game" if ANY_GAME in self.games else ", ".join(self.games)


def player_catalog(*specs: PlayerSpec) -> Catalog[PlayerSpec]:
    """The players one module offers, as a catalog of the player registry."""
    return Catalog({spec.name: spec for spec in specs})


PLAYERS: Registry[PlayerSpec] = Registry(
    "player", "coordqa.players", name_of=lambda spec: spec.name
)
"""Every player kind, by name: the scripted players of the four games, and the players of
``coordqa.players`` entry points (coordqa's own LLM agents and neural partners among them)."""
for _reference in (
    "coordqa.games.overcooked.players:PLAYERS",
    "coordqa.games.hanabi.players:PLAYERS",
    "coordqa.games.collab_capture:PLAYERS",
    "coordqa.games.collab_escape:PLAYERS",
):
    PLAYERS.add_catalog(_reference)


def play_players(game: str) -> list[str]:
    """The players ``coordqa play`` and ``games show`` take for ``game``, in registry order.

    Every registered player of ``game`` but the LLM agents (:attr:`PlayerSpec.needs_model`):
    the one list their refusals offer and ``coordqa games list`` shows.
    """
    return [name for name, spec in PLAYERS.items() if spec.plays(game) and not spec.needs_model]


def role_player(
    name: str,
    role: Literal["agent", "partner", "player"],
    games: Collection[str],
    *,
    taking_options: bool = False,
    calling_a_model: bool = False,
    also: Sequence[str] = (),
) -> PlayerSpec:
    """The player ``name`` given as an agent, a partner or a player (``coordqa play``) of ``games``.

    An unknown name is refused as what it was given as (``unknown agent 'cak'``), with the
    names that fit the role in one of ``games``, so the suggestion is the one meant (``cac``,
    not another game's ``capture-greedy``): an agent's list is the LLM agents, then the other
    players (any player may be the agent); a partner's or a player's is the players that are no
    LLM agent (``coordqa play`` plays no LLM). ``taking_options`` (``agentic options``) keeps
    only the players that take options, whatever the game: the others have nothing to show,
    and every partner of every game would bury the six names meant. ``calling_a_model`` (a
    board-run grid, which tests a model) offers an agent only the LLM agents: the other
    players are refused there, and listing every partner buried the names meant (walkthrough
    22 #149 listed 37 players). ``also``: other names the place takes besides players (a grid's
    partner ``self``), offered and listed first among the role's names.

    Raises:
        UnknownNameError: no player ``name``.
    """
    from coordqa.errors import UnknownNameError
    from coordqa.registry import unknown_name_message

    if name in PLAYERS:
        return PLAYERS.get(name)
    fitting = [
        spec
        for _, spec in PLAYERS.items()
        if any(spec.plays(game) for game in games)
        and (spec.options or not taking_options)
        and (spec.needs_model or not calling_a_model)
    ]
    agents = [spec.name for spec in fitting if spec.needs_model]
    others = [spec.name for spec in fitting if not spec.needs_model]
    where = " or ".join(sorted(games))
    if taking_options:
        scope = other_scope = " that take options"
    else:
        scope, other_scope = f" for {where}", f" of {where}"
    if role != "agent":
        groups = [(f"{role.capitalize()}s{scope}", others)]
    elif calling_a_model:
        groups = [(f"Agents{scope}", agents)]
    else:
        groups = [(f"Agents{scope}", agents), (f"other players{other_scope}", others)]
    label, names = groups[0]
    groups[0] = (label, [*also, *names])
    raise UnknownNameError(unknown_name_message(role, name, groups) + PLAYERS.missing())


def make_player(
    name: str,
    game: str,
    layout: str | None = None,
    *,
    options: PlayerOptions | None = None,
    **given: Any,
) -> Player:
    """Build a registered player for ``game``; a player that cannot play it is an error.

    ``options`` are the player's options as parsed where a grid or command was read (a stored
    spec's are parsed now: :meth:`PlayerSpec.resolve_options`); without them, the keywords
    ``given`` are the options, parsed here (:meth:`PlayerSpec.parse_options`), so factories
    receive only names they declare. An LLM agent's factory also takes its model, recorder,
    sampling and preset among the keywords, and parses the rest itself.
    """
    from coordqa.errors import ConfigError

    spec = PLAYERS.get(name)
    game = GAMES.spelled(game)  # in any case, as the player's name (Registry.get)
    if spec.needs_model and "model" not in given:
        raise ConfigError(
            f"player {name!r} is an LLM agent and needs a model, which coordqa play and games "
            f"show do not take: play it with coordqa agentic run --agent {name} --game {game} "
            "--model MODEL (and --partner NAME or --self-play)."
        )
    if not spec.plays(game):
        if "model" in given:  # an agentic match: LLM agents play too
            fits = [n for n, s in PLAYERS.items() if s.plays(game)]
        else:
            fits = play_players(game)
        raise ConfigError(
            f"player {name!r} cannot play {game} (it plays {spec.games_text()}). "
            f"Players for {game}: {', '.join(fits)}."
        )
    where = f"player {name!r}"
    if options is not None:
        options = spec.resolve_options(options, where)
    if spec.needs_model:  # its factory takes its model and settings too: it sorts them out
        passed = {} if options is None else {"options": options}
        agent: Player = spec.factory(game, layout, **passed, **given)
        return agent
    if options is None:
        options = spec.parse_options(given, where)
    elif given:
        raise ConfigError(f"{where}: give its options parsed or as keywords, not both")
    typed = {} if spec.options is None else {"options": options.value}
    player: Player = spec.factory(game, layout, **typed)
    return player
