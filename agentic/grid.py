"""The grid configuration (a YAML file for ``coordqa agentic grid``), expanded into episodes.

A grid is agents x models x partners x games/layouts x positions x seeds. Example::

    name: overcooked-crossplay
    agents: [cac]
    models: [scripted]
    partners: [self, greedy_human]    # "self" is self-play
    games:
      - game: overcooked
        layouts: [cramped_room]       # default: every layout of the game
        seeds: [0, 1, 2]              # default: the paper's seeds (Hanabi) or 0, 1, 2
        horizon: 100                  # Overcooked timesteps (default: the game's)
    agent_options:
      cac: {use_tom: false}
    generate: {temperature: 0.2}

Rules of the expansion (:meth:`GridConfig.episodes`):

- an agent that does not call a model (a scripted or neural player used as a baseline row) is
  played once, not once per model;
- a partner that cannot play a game is skipped for that game; ``{layout}`` in a partner name
  is replaced by each Overcooked layout (``bc-{layout}``), and such a partner plays only
  Overcooked; a partner (or agent) that plays none of the grid's games is an error;
- self-play seats the agent in both seats (position 0); cross-play uses ``positions``, whose
  default is both seats for Overcooked (paper Table 4) and seat 0 for the other games;
- Hanabi's default seeds are the paper's: 321, 212, 628 in self-play and 45, 114, 4788 in
  cross-play.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from coordqa.agentic.episodes import EpisodeSpec
from coordqa.errors import ConfigError
from coordqa.llm import CallPolicy, GenerateConfig

SELF = "self"
"""The partner name that means self-play."""

LAYOUT_FIELD = "{layout}"
"""In a partner name, replaced by the layout: ``bc-{layout}`` is the BC partner of each layout."""

HANABI_SELF_PLAY_SEEDS = (321, 212, 628)
"""The paper's Hanabi self-play seeds."""
HANABI_CROSS_PLAY_SEEDS = (45, 114, 4788)
"""The paper's Hanabi cross-play seeds."""
DEFAULT_SEEDS = (0, 1, 2)
"""Seeds of the other games when none are given."""

Position = Literal[0, 1, "both"]


class GameEntry(BaseModel):
    """One game of the grid, with its layouts, seeds and options."""

    model_config = ConfigDict(extra="forbid")

    game: str
    """Game registry name (``overcooked``, ``hanabi``, ``collab_capture``, ``collab_escape``)."""
    layouts: list[str] | None = None
    """Layouts to play; None: every layout of the game."""
    seeds: list[int] | None = None
    """Episode seeds; None: the paper's seeds for Hanabi, 0, 1, 2 otherwise."""
    horizon: int | None = Field(default=None, ge=1)
    """Overcooked timesteps per episode (None: the game's default)."""

    def seeds_for(self, self_play: bool) -> list[int]:
        """The seeds of a self-play or cross-play pairing."""
        if self.seeds is not None:
            return list(self.seeds)
        if self.game == "hanabi":
            return list(HANABI_SELF_PLAY_SEEDS if self_play else HANABI_CROSS_PLAY_SEEDS)
        return list(DEFAULT_SEEDS)

    def game_options(self) -> dict[str, Any]:
        """Options for the game constructor."""
        return {} if self.horizon is None else {"horizon": self.horizon}


class GenerateSettings(BaseModel):
    """Sampling parameters for every LLM agent (None: the provider's default)."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = None
    """Sampling temperature."""
    top_p: float | None = None
    """Nucleus sampling mass."""
    max_tokens: int | None = None
    """Cap on completion tokens."""
    seed: int | None = None
    """Provider-side sampling seed."""

    def to_config(self) -> GenerateConfig | None:
        """The gateway's GenerateConfig, or None when nothing is set (agents keep theirs)."""
        values = self.model_dump(exclude_none=True)
        return GenerateConfig(**values) if values else None


class RuntimeSettings(BaseModel):
    """How the grid is executed; may change between sessions of the same run."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["local", "ray"] = "local"
    """``local``: asyncio in this process; ``ray``: Ray tasks (results written by the driver)."""
    address: str | None = None
    """Ray cluster address (None: start a local Ray instance)."""
    parallel_episodes: int = Field(default=8, ge=1)
    """Episodes in flight at once."""
    concurrency: int = Field(default=8, ge=1)
    """Model calls in flight at once per model connection (shared by all episodes)."""
    requests_per_minute: float | None = Field(default=None, gt=0)
    """Optional request rate limit per model connection."""
    tokens_per_minute: float | None = Field(default=None, gt=0)
    """Optional token rate limit per model connection."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Timeout of one model call attempt."""
    max_attempts: int = Field(default=6, ge=1)
    """Attempts per model call."""
    cache: bool = False
    """Serve repeated identical prompts from the response cache (off: agents sample anew)."""

    def policy(self) -> CallPolicy:
        """The call policy of every model of the run."""
        return CallPolicy(
            concurrency=self.concurrency,
            requests_per_minute=self.requests_per_minute,
            tokens_per_minute=self.tokens_per_minute,
            timeout_s=self.timeout_s,
            max_attempts=self.max_attempts,
        )


class GridConfig(BaseModel):
    """A grid of agentic episodes (the YAML schema of ``coordqa agentic grid``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = "grid"
    """A label for the run (used in the default output directory)."""
    agents: list[str] = Field(min_length=1)
    """Players under test: ``cac``, ``hm``, ``llm``, or any registered player as a baseline."""
    models: list[str] = Field(default_factory=lambda: ["scripted"])
    """Models for the LLM agents (``scripted``, ``random`` or litellm names)."""
    api_base: str | None = None
    """Endpoint for self-hosted or OpenAI-compatible models."""
    partners: list[str] = Field(default_factory=lambda: [SELF])
    """Partners by player name; ``self`` for self-play; ``{layout}`` in a name is replaced by
    each Overcooked layout (``bc-{layout}``, ``hp-{layout}``: the per-layout BC partners)."""
    games: list[GameEntry] = Field(min_length=1)
    """Games with their layouts and seeds."""
    positions: Position | None = None
    """The agent's seat in cross-play; None: both for Overcooked, 0 otherwise."""
    agent_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Per agent name, options for its factory (e.g. ``{cac: {use_tom: false}}``)."""
    generate: GenerateSettings = Field(default_factory=GenerateSettings)
    """Sampling parameters of every LLM agent."""
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)
    """Execution settings (not part of the run's identity)."""

    @field_validator("agents", "models", "partners")
    @classmethod
    def _distinct(cls, names: list[str]) -> list[str]:
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"names listed twice: {repeated}; list each once")
        return names

    def identity(self) -> dict[str, Any]:
        """What changes results (the run manifest's ``config``): everything but ``runtime``."""
        return self.model_dump(mode="json", exclude={"runtime"})

    def episodes(self) -> list[EpisodeSpec]:
        """Every episode of the grid, in a stable order (see the module docstring).

        Raises:
            UnknownNameError: an unknown game, layout, agent or partner (with suggestions).
            ConfigError: an agent or partner that plays none of the grid's games.
        """
        from coordqa.agentic.match import is_llm_player, register_players
        from coordqa.games.base import GAMES, PLAYERS

        register_players()
        for entry in self.games:
            GAMES.get(entry.game)
        games = {entry.game for entry in self.games}
        fixed = [p for p in self.partners if p != SELF and LAYOUT_FIELD not in p]
        for name in [*self.agents, *fixed]:
            if not games & set(PLAYERS.get(name).games):
                raise ConfigError(
                    f"player {name!r} plays {', '.join(PLAYERS.get(name).games)}, none of this "
                    f"grid's games ({', '.join(sorted(games))}); remove it or add a game it plays."
                )
        specs: list[EpisodeSpec] = []
        for entry in self.games:
            for layout in self._layouts(entry):
                for agent in self.agents:
                    if entry.game not in PLAYERS.get(agent).games:
                        continue
                    models: list[str | None] = list(self.models) if is_llm_player(agent) else [None]
                    for model in models:
                        specs.extend(self._pairings(entry, layout, agent, model))
        return specs

    def _layouts(self, entry: GameEntry) -> list[str]:
        from coordqa.games.base import make_game

        names = entry.layouts or list(make_game(entry.game).layouts)
        return [make_game(entry.game, name, **entry.game_options()).layout for name in names]

    def _pairings(
        self, entry: GameEntry, layout: str, agent: str, model: str | None
    ) -> list[EpisodeSpec]:
        from coordqa.games.base import PLAYERS

        specs: list[EpisodeSpec] = []
        for template in self.partners:
            partner = template.replace(LAYOUT_FIELD, layout)
            if LAYOUT_FIELD in template and entry.game != "overcooked":
                continue
            if partner != SELF and entry.game not in PLAYERS.get(partner).games:
                continue
            self_play = partner == SELF
            for position in self._positions(entry.game, self_play):
                for seed in entry.seeds_for(self_play):
                    specs.append(
                        EpisodeSpec(
                            game=entry.game,
                            layout=layout,
                            agent=agent,
                            model=model,
                            agent_options=dict(self.agent_options.get(agent, {})),
                            game_options=entry.game_options(),
                            seed=seed,
                            partner=None if self_play else partner,
                            position=position,
                        )
                    )
        return specs

    def _positions(self, game: str, self_play: bool) -> tuple[int, ...]:
        if self_play:
            return (0,)
        wanted = self.positions
        if wanted is None:
            wanted = "both" if game == "overcooked" else 0
        return (0, 1) if wanted == "both" else (wanted,)


def load_grid(path: str | Path) -> GridConfig:
    """Read and validate a grid YAML file.

    Raises:
        ConfigError: the file is missing, is not YAML, or does not match the schema (the
            message names each bad field).
    """
    import yaml

    source = Path(path)
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"grid file {source} does not exist") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"grid file {source} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"grid file {source} must hold a mapping (agents:, games:, ...)")
    return parse_grid(data, where=str(source))


def parse_grid(data: dict[str, Any], where: str = "grid") -> GridConfig:
    """Validate a grid given as a mapping; errors name each bad field and its allowed values."""
    try:
        return GridConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(top)'}: {error['msg']}"
            for error in exc.errors()
        )
        raise ConfigError(f"{where}: invalid grid ({problems})") from exc
