"""The grid configuration (a YAML file for ``coordqa agentic grid``), expanded into episodes.

A grid is agents x models x partners x games/layouts x positions x seeds. Example::

    name: overcooked-crossplay
    version: 1                        # set for grids registered with coordqa (see grid_registry)
    preset: coordqa                   # or paper (LLM-Coordination's), hm-paper (HM's sampling)
    agents: [cac, hm]
    models:                           # required when an agent calls a model
      - scripted
      - {name: openai/llama-3-70b, api_base: "http://127.0.0.1:8000/v1"}
      - {name: llamacpp/gemma.gguf, model_args: {chat_format: gemma}}   # --model-arg
    partners: [self, greedy_human]    # "self" is self-play
    games:
      - game: overcooked
        layouts: [cramped_room]       # default: every layout of the game
        seeds: [0, 1, 2]              # or episodes: 3 (seeds 0..2); default: see below
        horizon: 100                  # Overcooked timesteps (default: the game's)
        agent_options:                # per agent, for this game only
          cac: {use_tom: false}
    agent_options:                    # per agent, every game
      hm: {variant: mmp}
    generate: {temperature: 0.2, top_p: 0.9, max_tokens: 512, seed: 0}

Rules of the expansion (:meth:`GridConfig.episodes`):

- an agent that does not call a model (a scripted or neural player used as a baseline row) is
  played once, not once per model;
- a partner that cannot play a game is skipped for that game; ``{layout}`` in a partner name
  is replaced by each layout (``bc-{layout}``), and such a partner plays only games with several
  layouts (Overcooked); a partner (or agent) that plays none of the grid's games is an error;
- self-play seats the agent in both seats (position 0); cross-play uses ``positions``, whose
  default is the game profile's ``cross_play_seats`` (both seats for Overcooked, paper Table 4;
  seat 0 for the other games);
- default seeds are the game profile's (``self_play_seeds``, ``cross_play_seeds``: the paper's
  for Hanabi, 0, 1, 2 for the other games);
- an agent's options are, from weakest to strongest: the preset's for the game
  (:mod:`coordqa.agentic.presets`), the grid's ``agent_options``, the game entry's; sampling is
  the preset's for the game overridden by ``generate``. Both are stored in every episode spec.
  The merged options are parsed once per game, when the grid is read (into the agent's options
  dataclass, :class:`~coordqa.options.PlayerOptions`), and checked against what the game can
  serve (``--belief-state`` needs the game's belief facts, ``--tom-ladder`` its ladder...); the
  episode specs carry them typed to the agents.

What a grid asks of any agent is its list of tasks (:meth:`GridConfig.tasks`: game, layout,
seed, partner, seat, game options and preset); their hash is the grid's fingerprint.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from coordqa.agentic import presets
from coordqa.agentic.episodes import SELF, EpisodeSpec, EpisodeTask, registered_game
from coordqa.agentic.runtime_settings import RuntimeSettings
from coordqa.errors import ConfigError, SettingError
from coordqa.games.base import game_profile
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.llm import GenerateConfig
from coordqa.llm.endpoints import stored_endpoints
from coordqa.llm.registry import ModelName
from coordqa.options import OptionValue, PlayerOptions
from coordqa.runs import given_key
from coordqa.spec_problems import ConfigModel, spec_problems
from coordqa.yaml_files import load_yaml_file

LAYOUT_FIELD = "{layout}"
"""In a partner name, replaced by the layout: ``bc-{layout}`` is the BC partner of each layout."""

Position = Literal[0, 1, "both"]

AgentOptions = dict[str, OptionValue]
"""One player's options as a grid gives them (parsed by its options dataclass when read)."""


def options_given(options: Mapping[str, AgentOptions]) -> dict[str, AgentOptions]:
    """Per-agent options in the one form a grid stores: an agent given no option has no entry.

    ``coordqa agentic run`` gives ``{'cac': {}}`` where the Python API gives ``{}``; both mean
    the same run, so both are stored as ``{}`` and either resumes the other's run. Runs stored
    before in the other form are read through :func:`stored_form`.
    """
    return {agent: dict(given) for agent, given in options.items() if given}


PerAgentOptions = Annotated[dict[str, AgentOptions], AfterValidator(options_given)]
"""Options per agent name, as a grid or a game entry of it gives them, read into the one form
:func:`options_given` keeps (the type carries the rule, so every field of it keeps it)."""


def stored_form(identity: JSONObject) -> JSONObject:
    """A stored run's identity (:meth:`GridConfig.identity`) in today's form.

    Its agent options as :func:`options_given` keeps them (a run the CLI stored with
    ``{'cac': {}}`` is the run asked with ``{}``), its endpoints without credentials (a run
    stored before they were left out resumes), a seat stored with self-play alone as none (it
    was never used, and is refused today: :meth:`GridConfig._seat_needs_a_partner`); anything
    else as it is.
    """
    data: dict[str, Any] = stored_endpoints(identity)
    if data.get("partners") == [SELF]:
        data["positions"] = None
    options = data.get("agent_options")
    if isinstance(options, dict):
        data["agent_options"] = options_given(options)
    games = data.get("games")
    if isinstance(games, list):
        data["games"] = [_game_in_stored_form(game) for game in games]
    return data


def _game_in_stored_form(game: Any) -> Any:
    if not isinstance(game, dict) or not isinstance(game.get("agent_options"), dict):
        return game
    options = options_given(game["agent_options"])
    return {k: v for k, v in game.items() if k != "agent_options"} | (
        {"agent_options": options} if options else {}
    )


@dataclass(frozen=True)
class CountWords:
    """How the command that built a grid sets a game entry's episodes, to say it in refusals.

    ``agentic run`` by its options (``--episodes 3``, ``--seeds 4,7``); ``agentic grid`` by its
    grid file's keys (``episodes: 3``, ``seeds: [4, 7]`` in ``grid.yaml``) unless its
    ``--episodes`` set every entry's count: it has no ``--seeds``. Advice names what the user
    changed, so it can be followed: a file giving ``seeds:`` refuses ``episodes:`` beside them.
    """

    file: str | None = None
    """The grid file whose keys are named; None: the command's options."""
    episodes_option: bool = False
    """Whether the command's ``--episodes`` set every entry's count, over the file's keys."""
    model_option: bool = False
    """Whether the command's ``--model`` set the models, over the file's ``models:``."""

    def model_given_at(self, models: Sequence[str | ModelEntry], name: str) -> str | None:
        """The file key that wrote model ``name`` (``grid.yaml's models[0].name``), or None.

        None: ``--model`` gave it; a refusal of the name says which to fix
        (:func:`~coordqa.runs.endpoint.rename_fix`).
        """
        if self.file is None or self.model_option:
            return None
        for index, entry in enumerate(models):
            place = f"{self.file}'s models[{index}]"
            if isinstance(entry, ModelEntry) and entry.name == name:
                return given_key(place, "name")
            if entry == name:
                return place
        return None

    @property
    def count(self) -> str:
        """What sets the number of episodes (seeds 0..N-1): ``--episodes`` or ``episodes:``."""
        return "--episodes" if self.file is None or self.episodes_option else "episodes:"

    def episodes(self, count: int) -> str:
        """How ``count`` episodes are asked for."""
        return f"{self.count} {count}"

    def seeds(self, seeds: Sequence[int]) -> str:
        """How the seeds ``seeds`` are asked for."""
        if self.file is None:
            return f"--seeds {','.join(map(str, seeds))}"
        return f"seeds: [{', '.join(map(str, seeds))}]"

    @property
    def where(self) -> str:
        """Where the file's keys are, after them: `` in grid.yaml`` ('': options)."""
        return "" if self.file is None else f" in {self.file}"

    def asking(self, count: int, entry: GameEntry, *, more: bool = False) -> str:
        """How ``count`` episodes (seeds 0..N-1) are asked for, where ``entry`` sets its own.

        ``--episodes 3`` when the option set it; ``seeds: [0, 1, 2] in grid.yaml`` when the
        entry gives seeds; else ``episodes: 3 in grid.yaml``. ``more``: "or more" of them.
        """
        if self.file is not None and self.episodes_option:
            return f"--episodes {count}{' or more' if more else ''}"
        if entry.seeds is not None:
            more_seeds = " or more seeds from 0" if more else ""
            return f"{self.seeds(list(range(count)))}{more_seeds}{self.where}"
        return f"{self.episodes(count)}{' or more' if more else ''}{self.where}"

    def own(self, game: str) -> str:
        """How the game's own seeds are asked for: by giving neither."""
        if self.file is None:
            return "leave out --episodes and --seeds"
        keys = f"remove episodes: and seeds: from {self.file}'s {game} entry"
        return f"leave out --episodes and {keys}" if self.episodes_option else keys


class GameEntry(BaseModel):
    """One game of the grid, with its layouts, seeds and options."""

    model_config = ConfigDict(extra="forbid")

    game: str
    """Game registry name (``overcooked``, ``hanabi``, ``collab_capture``, ``collab_escape``)."""
    layouts: list[str] | None = None
    """Layouts to play; None: every layout of the game."""
    seeds: list[int] | None = None
    """Episode seeds; None: ``episodes`` seeds from 0, else the game profile's
    ``self_play_seeds`` or ``cross_play_seeds`` (the paper's for Hanabi, else 0, 1, 2)."""
    episodes: int | None = Field(default=None, ge=1)
    """Number of episodes per pairing: seeds 0 to ``episodes - 1`` (instead of ``seeds``)."""
    horizon: int | None = Field(default=None, ge=1)
    """Overcooked timesteps per episode (None: the game's default)."""
    agent_options: PerAgentOptions = Field(default_factory=dict)
    """Per agent name, options for this game only (over the grid's ``agent_options``)."""

    @field_validator("game")
    @classmethod
    def _spelled(cls, game: str) -> str:
        """The game as registered, in any case (``Overcooked``), as every command reads it.

        An unknown game is refused at its place (``games[0].game``; ``--game`` in a run).
        """
        return registered_game(game)

    @field_validator("seeds")
    @classmethod
    def _each_seed_once(cls, seeds: list[int] | None) -> list[int] | None:
        """A seed given twice would play and store one episode twice under one key."""
        for index, seed in enumerate(seeds or []):
            if seed in seeds[:index]:  # type: ignore[index]
                raise ValueError(f"seed {seed} is given twice")
        return seeds

    @model_validator(mode="after")
    def _seeds_or_episodes(self) -> GameEntry:
        if self.seeds is not None and self.episodes is not None:
            raise ValueError("give seeds or episodes, not both")
        return self

    def seeds_for(self, self_play: bool) -> list[int]:
        """The seeds of a self-play or cross-play pairing."""
        if self.seeds is not None:
            return list(self.seeds)
        if self.episodes is not None:
            return list(range(self.episodes))
        profile = game_profile(self.game)
        return list(profile.self_play_seeds if self_play else profile.cross_play_seeds)

    def episode_count(self, pairings: Collection[bool]) -> int | None:
        """The ``--episodes`` these seeds are, in ``pairings`` (None: they are no count).

        N when every pairing of ``pairings`` (self-play True, cross-play False:
        :meth:`GridConfig.pairings`) plays seeds 0..N-1; None when they are other seeds
        (Hanabi's own, the paper's; a ``seeds`` list).

        The one count a resumed run may raise (:func:`coordqa.agentic.runner.plan_grid`) is
        read through it, so a run of the game's own seeds 0, 1, 2 (no ``episodes`` given) is a
        run of 3 episodes: ``--episodes 5`` extends it, ``--episodes 3`` resumes it.
        """
        plays = {tuple(self.seeds_for(self_play)) for self_play in pairings}
        seeds = plays.pop() if len(plays) == 1 else None
        return len(seeds) if seeds is not None and seeds == tuple(range(len(seeds))) else None

    def seeds_words(self, pairings: Collection[bool], words: CountWords | None = None) -> str:
        """Which episodes this entry plays in ``pairings``, as they were asked for.

        ``--episodes 3 (seeds 0..2)``, ``--seeds 4,7`` (``episodes: 3 (seeds 0..2)``, ``seeds:
        [4, 7]`` in a grid file's ``words``: :class:`CountWords`), or the game's own (``the
        game's own seeds (321, 212, 628 in self-play; 45, 114, 4788 with a partner)``).
        """
        words = words or CountWords()
        if self.episodes is not None:
            last = self.episodes - 1
            return f"{words.episodes(self.episodes)} ({f'seeds 0..{last}' if last else 'seed 0'})"
        if self.seeds is not None:
            return words.seeds(self.seeds)
        own = {
            "in self-play" if self_play else "with a partner": ", ".join(
                map(str, self.seeds_for(self_play))
            )
            for self_play in sorted(pairings, reverse=True)
        }
        if len(set(own.values())) == 1:
            return f"the game's own seeds ({next(iter(own.values()))})"
        return f"the game's own seeds ({'; '.join(f'{s} {how}' for how, s in own.items())})"

    def game_options(self) -> dict[str, OptionValue]:
        """Options for the game constructor."""
        return {} if self.horizon is None else {"horizon": self.horizon}


class ModelEntry(BaseModel):
    """A model with its own endpoint (a ``models:`` item may also be just a name)."""

    model_config = ConfigDict(extra="forbid")

    name: ModelName
    """Model name (``scripted``, ``random`` or a litellm name)."""
    api_base: str | None = None
    """Endpoint of this model (None: the grid's ``api_base``)."""
    model_args: dict[str, Any] = Field(default_factory=dict)
    """Provider settings passed to every call of this model, as ``--model-arg`` gives them
    (``reasoning_effort``, llama.cpp's ``chat_format``...); they change replies, so they are
    part of the run's identity and of every episode's sampling."""

    @field_validator("model_args")
    @classmethod
    def _provider_settings(cls, args: dict[str, Any]) -> dict[str, Any]:
        GenerateConfig(extra=args)  # the gateway's rule: no setting coordqa sets itself
        return args


class GenerateSettings(BaseModel):
    """Sampling parameters for every LLM agent (None: the preset's, else the provider's)."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = None
    """Sampling temperature."""
    top_p: float | None = None
    """Nucleus sampling mass."""
    max_tokens: int | None = None
    """Cap on completion tokens."""
    seed: int | None = None
    """Provider-side sampling seed."""

    def values(self) -> dict[str, OptionValue]:
        """The parameters that are set, checked as the gateway checks them.

        Raises:
            SettingError: a value out of range, named as the grid's key (``generate.top_p``
                above 1), which a command says as its flag or its file's key.
        """
        values = self.model_dump(exclude_none=True)
        try:
            GenerateConfig(**values)
        except SettingError as error:
            raise SettingError(f"generate.{error.setting}", error.template) from None
        return values


class GridConfig(ConfigModel):
    """A grid of agentic episodes (the YAML schema of ``coordqa agentic grid``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = "grid"
    """A label for the run (used in the default output directory)."""
    version: int | None = Field(default=None, ge=1)
    """The version of a registered grid (bumped whenever its tasks change); None otherwise."""
    preset: str = presets.DEFAULT_PRESET
    """The agent configuration preset (:data:`~coordqa.agentic.presets.PRESETS`)."""
    agents: list[str] = Field(min_length=1)
    """Players under test: ``cac``, ``hm``, ``llm``, or any registered player as a baseline."""
    models: list[ModelName | ModelEntry] = Field(default_factory=list)
    """Models for the LLM agents, by name or as ``{name, api_base}``; required when an agent
    calls a model (``scripted`` is the offline one)."""
    api_base: str | None = None
    """Endpoint of the models that do not name their own."""
    partners: list[str] = Field(default_factory=lambda: [SELF])
    """Partners by player name; ``self`` for self-play; ``{layout}`` in a name is replaced by
    each Overcooked layout (``bc-{layout}``, ``hp-{layout}``: the per-layout BC partners)."""
    games: list[GameEntry] = Field(min_length=1)
    """Games with their layouts and seeds."""
    positions: Position | None = None
    """The agent's seat in cross-play; None: both for Overcooked, 0 otherwise."""
    agent_options: PerAgentOptions = Field(default_factory=dict)
    """Per agent name, options for its factory (e.g. ``{cac: {use_tom: false}}``); checked
    against the player's options dataclass when the grid is read."""
    generate: GenerateSettings = Field(default_factory=GenerateSettings)
    """Sampling parameters of every LLM agent (over the preset's)."""
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)
    """Execution settings (not part of the run's identity)."""
    _parsed: dict[tuple[int, str], PlayerOptions] = PrivateAttr(default_factory=dict)
    """(index of a game entry, player) -> its options there, parsed when the grid was read."""

    @field_validator("agents", "partners")
    @classmethod
    def _distinct(cls, names: list[str]) -> list[str]:
        _check_distinct(names)
        return names

    @field_validator("positions", mode="before")
    @classmethod
    def _seats_listed(cls, value: Any) -> Any:
        """A list of the seats: one seat is that seat, both seats are ``both``.

        The key reads as a list (walkthrough 27: ``positions: [both]`` was refused as
        ``"['both']" is not one of 0, 1, both``); any other list is refused in words.
        """
        if not isinstance(value, list):
            return value
        seats = {"both" if seat == "both" else seat for seat in value}
        if seats in ({0, 1}, {"both"}):
            return "both"
        if len(value) == 1 and value[0] in (0, 1):
            return value[0]
        raise ValueError(f"takes one seat: 0, 1 or both, not the list {value}")

    @field_validator("positions")
    @classmethod
    def _seat_needs_a_partner(cls, seat: Position | None, info: ValidationInfo) -> Position | None:
        """Refuse a seat given to a grid of self-play alone, which would not use it.

        Self-play seats the agent in both seats, so ``positions`` only seats it beside a partner;
        given with none, it was ignored without a word (walkthrough 19, R8). Left out (None), the
        game's default, it is never refused. ``partners`` is checked first (declared earlier).
        """
        partners = info.data.get("partners")
        if seat is not None and partners is not None and set(partners) == {SELF}:
            raise ValueError(
                f"{seat} is the agent's seat with a partner, and self-play has none (the agent "
                "plays both seats); name a partner, or drop it"
            )
        return seat

    @field_validator("models")
    @classmethod
    def _distinct_models(cls, models: list[str | ModelEntry]) -> list[str | ModelEntry]:
        _check_distinct([m if isinstance(m, str) else m.name for m in models])
        return models

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, preset: str) -> str:
        return presets.check_preset(preset)

    @model_validator(mode="after")
    def _parse_options(self) -> GridConfig:
        """Parse every agent's options once per game entry, as its episodes merge them.

        The one parse of a grid's options; each is also checked against what the game can
        serve (:attr:`coordqa.games.PlayerSpec.game_check`).
        """
        from coordqa.games.base import role_player

        for index, entry in enumerate(self.games):
            named = {*self.agents, *self.agent_options, *entry.agent_options}
            for agent in sorted(named):
                where = f"agent_options of {agent!r} in {entry.game}"
                player = role_player(agent, "agent", {entry.game})
                given = {
                    **presets.agent_options(self.preset, entry.game, agent),
                    **self.agent_options.get(agent, {}),
                    **entry.agent_options.get(agent, {}),
                }
                parsed = player.parse_options(given, where)
                if player.game_check is not None and player.plays(entry.game):
                    player.game_check(entry.game, parsed.value)
                self._parsed[(index, agent)] = parsed
        return self

    @model_validator(mode="after")
    def _partners_play_a_game(self) -> GridConfig:
        """Refuse an unknown partner, or one that plays none of the grid's games, when read.

        Checked when the episodes were listed, the refusal named no file while an unknown agent
        of the same file was the file's (``t1.yaml: unknown agent 'cacc'``; walkthrough 23).
        """
        games = {entry.game for entry in self.games}
        for partner in self.partners:
            self._check_plays_a_game(partner, "partner", games)
        return self

    def options_for(self, entry: GameEntry, agent: str) -> PlayerOptions:
        """``agent``'s options in ``entry``'s game, parsed: the preset's, the grid's, the game's."""
        index = next(i for i, known in enumerate(self.games) if known is entry)
        return self._parsed[(index, agent)]

    def model_names(self) -> list[str]:
        """The names of the grid's models, in order."""
        return [m if isinstance(m, str) else m.name for m in self.models]

    def api_base_for(self, model: str) -> str | None:
        """The endpoint of ``model``: its own, else the grid's."""
        for entry in self.models:
            if isinstance(entry, ModelEntry) and entry.name == model and entry.api_base:
                return entry.api_base
        return self.api_base

    def model_args_key(self, model: str) -> str:
        """Where the grid holds ``model``'s provider settings: ``models[1].model_args``."""
        names = [entry if isinstance(entry, str) else entry.name for entry in self.models]
        return f"models[{names.index(model)}].model_args" if model in names else "model_args"

    def model_args_for(self, model: str) -> dict[str, Any]:
        """The provider settings of ``model`` (empty: none)."""
        for entry in self.models:
            if isinstance(entry, ModelEntry) and entry.name == model:
                return dict(entry.model_args)
        return {}

    def identity(self) -> JSONObject:
        """What changes results (the run manifest's ``config``): everything but ``runtime``.

        Fields added after grids were first stored are left out while at their defaults, so a
        run directory written before them resumes with the same identity. A versioned
        (registered) grid adds ``grid``: its name, version and fingerprint. Endpoints are
        stored without credentials (:func:`~coordqa.llm.endpoints.stored_endpoints`): the
        manifest holding the identity travels; the calls still send them.
        """
        data = self.model_dump(mode="json", exclude={"runtime"})
        for name, default in (("version", None), ("preset", presets.DEFAULT_PRESET)):
            if data[name] == default:
                del data[name]
        game_defaults: tuple[tuple[str, Any], ...] = (("episodes", None), ("agent_options", {}))
        for game in data["games"]:
            for name, default in game_defaults:
                if game[name] == default:
                    del game[name]
        for entry in data["models"]:
            if isinstance(entry, dict) and not entry["model_args"]:
                del entry["model_args"]
        return stored_endpoints(data) | self._registered()

    def _registered(self) -> JSONObject:
        """A registered grid's name, version and fingerprint, as its identity holds them."""
        if self.version is None:
            return {}
        return {
            "grid": {"name": self.name, "version": self.version, "fingerprint": self.fingerprint()}
        }

    def pairings(self) -> set[bool]:
        """The kinds of pairing the grid plays: self-play (True), with a partner (False)."""
        return {partner == SELF for partner in self.partners}

    def with_seeds_of(self, games: list[Any]) -> GridConfig | None:
        """This grid with the ``seeds`` and ``episodes`` of a stored run's ``games``, in order.

        None if they are not a game entry's.

        Which episodes a game plays is what a resumed run given by ``--out`` may raise (as
        ``coordqa eval --trials``): the run's settings are the grid's with the seeds it was
        started with (:func:`coordqa.agentic.runner.plan_grid`). A stored entry with neither
        is one of the game's own seeds, read as today's: the stored run's fingerprint, which
        covers its episodes' seeds, says whether they were the same then.
        """
        data = self.model_dump(mode="json")
        for game, kept in zip(data["games"], games, strict=True):
            if not isinstance(kept, dict):
                return None
            game.update(seeds=kept.get("seeds"), episodes=kept.get("episodes"))
        try:
            return GridConfig.model_validate(data)
        except ValidationError:
            return None

    def tasks(self) -> list[EpisodeTask]:
        """What the grid asks of any agent: every (game, layout, partner, seat, seed) task.

        Raises:
            UnknownNameError: an unknown game, layout or partner (with suggestions).
            ConfigError: a partner that plays none of the grid's games.
        """
        return [task for entry in self.games for task in self._entry_tasks(entry)]

    def fingerprint(self) -> str:
        """Hash of the grid's tasks: two grids with one fingerprint ask for the same episodes."""
        return content_hash({"tasks": sorted(task.key for task in self.tasks())})

    def episodes(self) -> list[EpisodeSpec]:
        """Every episode of the grid, in a stable order (see the module docstring).

        Raises:
            UnknownNameError: an unknown game, layout, agent or partner (with suggestions).
            ConfigError: an agent or partner that plays none of the grid's games, or LLM
                agents without a model.
        """
        from coordqa.agentic.match import is_llm_player
        from coordqa.games.base import PLAYERS

        games = {entry.game for entry in self.games}
        for agent in self.agents:
            self._check_plays_a_game(agent, "agent", games)
        entries = [(entry, self._entry_tasks(entry)) for entry in self.games]
        llm_agents = [agent for agent in self.agents if is_llm_player(agent)]
        if llm_agents and not self.models:
            raise ConfigError(
                f"agent(s) {', '.join(llm_agents)} call a language model, and the grid names "
                "none: add models: [...] to the grid, or pass --model (scripted for the offline "
                "model, or a litellm name such as openai/gpt-4o-mini)"
            )
        specs: list[EpisodeSpec] = []
        for entry, tasks in entries:
            for layout in dict.fromkeys(task.layout for task in tasks):
                for agent in self.agents:
                    if not PLAYERS.get(agent).plays(entry.game):
                        continue
                    llm = agent in llm_agents
                    models: list[str | None] = list(self.model_names()) if llm else [None]
                    for model in models:
                        specs.extend(
                            self._spec(entry, task, agent, model, llm)
                            for task in tasks
                            if task.layout == layout
                        )
        return specs

    def _spec(
        self, entry: GameEntry, task: EpisodeTask, agent: str, model: str | None, llm: bool
    ) -> EpisodeSpec:
        options = self.options_for(entry, agent)
        preset = presets.sampling(self.preset, entry.game, model)
        generate = {**preset, **self.generate.values()} if llm else {}
        if llm and model is not None and (args := self.model_args_for(model)):
            generate["extra"] = args  # GenerateConfig's provider settings
        return EpisodeSpec(
            **task.model_dump(),
            agent=agent,
            model=model,
            agent_options=options,
            generate=generate,
        )

    def _check_plays_a_game(
        self, name: str, role: Literal["agent", "partner"], games: set[str]
    ) -> None:
        played = games_it_plays_instead(name, role, games, in_grid=True)
        if played is not None:
            raise ConfigError(
                f"player {name!r} plays {played}, none of this "
                f"grid's games ({', '.join(sorted(games))}); remove it or add a game it plays."
            )

    def _entry_tasks(self, entry: GameEntry) -> list[EpisodeTask]:
        from coordqa.games.base import GAMES, PLAYERS

        GAMES.get(entry.game)
        games = {e.game for e in self.games}
        for partner in self.partners:
            self._check_plays_a_game(partner, "partner", games)
        tasks: list[EpisodeTask] = []
        for layout in self._layouts(entry):
            for template in self.partners:
                partner = template.replace(LAYOUT_FIELD, layout)
                if LAYOUT_FIELD in template and len(GAMES.get(entry.game).layouts) < 2:
                    continue
                if partner != SELF and not PLAYERS.get(partner).plays(entry.game):
                    continue
                self_play = partner == SELF
                for position in self._positions(entry.game, self_play):
                    tasks.extend(
                        EpisodeTask(
                            game=entry.game,
                            layout=layout,
                            seed=seed,
                            partner=None if self_play else partner,
                            position=position,
                            game_options=entry.game_options(),
                            preset=self.preset,
                        )
                        for seed in entry.seeds_for(self_play)
                    )
        return tasks

    def _layouts(self, entry: GameEntry) -> list[str]:
        from coordqa.games.base import make_game

        names = entry.layouts or list(make_game(entry.game).layouts)
        options = entry.game_options()
        return [make_game(entry.game, name, 0, **options).layout for name in names]

    def _positions(self, game: str, self_play: bool) -> tuple[int, ...]:
        if self_play:
            return (0,)
        wanted = self.positions
        if wanted is None:
            return game_profile(game).cross_play_seats
        return (0, 1) if wanted == "both" else (wanted,)


def _check_distinct(names: list[str]) -> None:
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"names listed twice: {repeated}; list each once")


def games_it_plays_instead(
    name: str, role: Literal["agent", "partner"], games: Collection[str], *, in_grid: bool = False
) -> str | None:
    """The games player ``name`` plays when it plays none of ``games`` (None: it plays one).

    The one rule of whether an agent or partner fits a grid's games; a grid file and
    ``agentic run``'s options each word the refusal in their own terms. Self-play and a
    partner named per layout (``bc-{layout}``, checked layout by layout) pass here.
    ``in_grid``: the name is a grid's, where ``self`` is a partner too, so an unknown partner
    is offered and shown it (``agentic run`` takes ``--self-play`` instead).

    Raises:
        UnknownNameError: no player ``name``.
    """
    from coordqa.games.base import role_player

    if role == "partner" and (name == SELF or LAYOUT_FIELD in name):
        return None
    also = (SELF,) if in_grid and role == "partner" else ()
    spec = role_player(name, role, games, also=also)
    return None if any(spec.plays(game) for game in games) else spec.games_text()


def load_grid(path: str | Path) -> GridConfig:
    """Read and validate a grid YAML file.

    Raises:
        ConfigError: the file is missing, is not YAML, or does not match the schema (the
            message names each bad field).
    """
    return parse_grid(read_grid_file(path), where=str(path))


def read_grid_file(path: str | Path) -> dict[str, Any]:
    """The document of a grid YAML file, not yet validated (a caller may change it first).

    Raises:
        ConfigError: the file is missing, a folder, not YAML, or holds no mapping.
    """
    source = Path(path)
    try:
        data = load_yaml_file(source, "grid file")
    except (FileNotFoundError, IsADirectoryError):
        from coordqa.given_paths import YAML_SUFFIXES, not_a_file

        raise ConfigError(not_a_file(source, "grid file", YAML_SUFFIXES, folders=False)) from None
    if not isinstance(data, dict):
        raise ConfigError(f"grid file {source} must hold a mapping (agents:, games:, ...)")
    return data


def parse_grid(
    data: Mapping[str, object], where: str = "grid", options: Mapping[str, str] | None = None
) -> GridConfig:
    """Validate a grid given as a mapping; errors name each bad field and its allowed values.

    ``options`` maps a field's place (``games[0].seeds``) to the command-line option that set it
    (``--seeds``): those problems are said in that command's words, the others as ``where``'s
    ("": a grid built wholly from a command's options).
    """
    try:
        return GridConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(spec_problems(exc, GridConfig, options, where)) from exc
