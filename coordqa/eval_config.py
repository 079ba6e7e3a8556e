"""What one QA run is asked to do: :class:`EvalConfig`, the one home of its options and defaults.

A module of its own, importing nothing heavier than :mod:`coordqa.llm.types`, so that
``coordqa eval``'s options take their defaults from the fields here (one source) without
``coordqa --help`` importing the evaluation's pandas, datasets and game engines.
"""

from __future__ import annotations

import os
from dataclasses import MISSING, asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from coordqa.errors import ConfigError, SettingError
from coordqa.jsonvalues import JSONObject
from coordqa.llm.endpoints import stored_endpoint
from coordqa.llm.types import PAPER_SAMPLING, TRANSPORTS, CallPolicy, GenerateConfig, Transport

if TYPE_CHECKING:
    from coordqa.prompts import PromptLayout

__all__ = ["EvalConfig", "api_key_from_env", "eval_default"]


@dataclass(frozen=True)
class EvalConfig:
    """Everything one QA run needs. Fields that change results form the run's identity.

    The sampling defaults (temperature 0.6, top_p 0.9) are those of the CoordinationQA paper.
    With ``seed`` set, trial ``t`` is sampled with seed ``seed + t`` so that trials differ.
    """

    model: str
    """Model name for :func:`coordqa.llm.get_model` (``random``, ``openai/gpt-4o``...)."""
    api_base: str | None = None
    """Endpoint of an OpenAI-compatible or provider server; None: the provider's default."""
    dataset: str | None = None
    """Bundled dataset name or path to a dataset file; None: the newest bundled release."""
    trials: int = 3
    """Independent samples per question."""
    games: tuple[str, ...] | None = None
    """Only these games (None: all)."""
    types: tuple[str, ...] | None = None
    """Only these question types, among EC, ToM, JP (None: all)."""
    ids: tuple[str, ...] | None = None
    """Only the questions with these ids (None: all)."""
    sample: int | None = None
    """A sample of this many questions, stratified over game x type and drawn with
    ``sample_seed``, after the games, types and ids filters (None: no sampling)."""
    sample_seed: int = 0
    """Seed of the question sample."""
    limit: int | None = None
    """Only the first ``limit`` questions after the other filters, in dataset order (None: all)."""
    temperature: float | None = PAPER_SAMPLING.temperature
    """Sampling temperature (None: the provider's default)."""
    top_p: float | None = PAPER_SAMPLING.top_p
    """Nucleus sampling mass (None: the provider's default)."""
    max_tokens: int | None = None
    """Cap on completion tokens (None: the provider's default)."""
    seed: int | None = None
    """Base sampling seed (trial ``t`` uses ``seed + t``), where the provider supports seeds."""
    prompt_layout: PromptLayout = "system"
    """``system``: the directive as a system message; ``no_system``: inside the first user turn."""
    cache: bool = True
    """Serve repeated identical calls (same trial included) from the response cache."""
    out: Path | None = None
    """Run directory; None: ``runs/<model>_<dataset>_<key options>_<hash>`` (see
    :func:`run_name`), so that the same command resumes the same run."""
    policy: CallPolicy = field(default_factory=CallPolicy)
    """Concurrency, retries and timeouts. ``policy.concurrency`` is also the number of
    questions in flight."""
    max_error_rate: float = 0.0
    """Share of the run's samples that may end as errors (calls that failed after their
    retries) before :func:`evaluate` raises :class:`EvalFailed`; 0: none."""
    model_args: dict[str, Any] = field(default_factory=dict, hash=False)
    """Further provider settings passed through to every call (``reasoning_effort``,
    ``extra_body``...; :attr:`coordqa.llm.GenerateConfig.extra`). They change results."""
    api_key_env: str | None = None
    """Environment variable holding the API key (None: the provider's usual one)."""
    transport: Transport = "auto"
    """How a model at ``api_base`` is reached (``--transport``): ``auto``, direct for
    ``openai/`` and ``hosted_vllm/`` models, litellm for the rest; or ``direct``, ``litellm``.
    Not part of the identity: both send the same request for the same options (tested), so
    the replies come from the same server asked the same question; it changes how we ask, as
    ``policy`` does. The manifest's ``runtime["transport"]`` says which one ran."""
    label: str | None = None
    """A short name for the run in reports, lists and the viewer (``--label``; None: its
    model). Stored in the manifest; not part of the run's identity, so a later session may
    rename the run."""
    api_key_secret: str | None = field(default=None, repr=False, compare=False)
    """The API key itself, for a caller that holds it in memory (the leaderboard's worker
    opens a submitter's sealed key); it wins over :attr:`api_key_env`, and is never stored,
    printed or part of the run's identity. The command line takes ``--api-key-env``."""
    model_given_at: str | None = None
    """Where :attr:`model` was written, for a refusal to name it: a file's key (``models.yaml's
    models[1].model``, :class:`~coordqa.evalset.SetMember`); None: the ``--model`` option."""

    RECORDED_ELSEWHERE: ClassVar[dict[str, str]] = {
        "out": "where the run is stored, not what it is; a moved run is the same run",
        "label": "the run's display name, stored apart in the manifest so it can be renamed",
        "api_key_secret": "a secret: never stored, printed or compared",
        "model_given_at": "where the model's name was written, for messages; not what was run",
    }
    """Fields in neither :meth:`identity` nor :meth:`runtime`, each with the reason. Every other
    field is in one of the two (``tests/test_eval_config.py``): a new field must be sorted into
    one of the three, or a resumed run could silently differ from the one it continues."""

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ConfigError("model must be a model name such as 'random' or 'openai/gpt-4o'")
        if self.label is not None and not self.label.strip():
            raise SettingError(
                "label", "{setting} is empty; give the run a name, or leave {setting} out"
            )
        for name in ("games", "types", "ids"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise ConfigError(
                    f"{name} must be a tuple of names, e.g. {name}=({value!r},), not a string"
                )
        from coordqa.llm.registry import spelled_model

        object.__setattr__(self, "model", spelled_model(self.model))  # Random: random's run
        if self.dataset is not None:  # an alias is its release: one run, one folder
            from coordqa.dataset.releases import canonical_dataset

            object.__setattr__(self, "dataset", canonical_dataset(self.dataset))
        from coordqa.dataset.selection import spelled_filter

        for kind in ("games", "types"):  # Hanabi: hanabi's run, TOM: ToM's
            object.__setattr__(self, kind, spelled_filter(kind, getattr(self, kind)))
        if self.trials < 1:
            raise SettingError("trials", f"{{setting}} must be >= 1, got {self.trials}")
        if self.limit is not None and self.limit < 1:
            raise SettingError(
                "limit",
                f"{{setting}} must be >= 1 (leave it out for all questions), got {self.limit}",
            )
        if self.sample is not None and self.sample < 1:
            raise SettingError(
                "sample",
                f"{{setting}} must be >= 1 (leave it out for no sample), got {self.sample}",
            )
        if self.ids is not None and not self.ids:
            raise SettingError(
                "ids", "{setting} must name at least one question (leave it out for all)"
            )
        from coordqa.prompts import PROMPT_LAYOUTS  # games and choices: only when a run is set up
        from coordqa.registry import not_one_of

        if self.prompt_layout not in PROMPT_LAYOUTS:
            allowed = [layout.replace("_", "-") for layout in PROMPT_LAYOUTS]
            given = self.prompt_layout.replace("_", "-")
            raise SettingError("prompt_layout", not_one_of("{setting}", given, allowed))
        if self.transport not in TRANSPORTS:
            raise SettingError("transport", not_one_of("{setting}", self.transport, TRANSPORTS))
        if not 0.0 <= self.max_error_rate <= 1.0:
            raise SettingError(
                "max_error_rate",
                f"{{setting}} must be a share between 0 and 1, got {self.max_error_rate:g}",
            )
        self.generate_config(0)  # validates the sampling parameters

    def generate_config(self, trial: int) -> GenerateConfig:
        """Sampling parameters of ``trial``."""
        seed = None if self.seed is None else self.seed + trial
        return GenerateConfig(
            self.temperature, self.top_p, self.max_tokens, seed, dict(self.model_args)
        )

    def api_key(self) -> str | None:
        """:attr:`api_key_secret`, else the key in :attr:`api_key_env` (None: the provider's own).

        Raises:
            ConfigError: the variable is unset or blank.
        """
        if self.api_key_secret is not None:
            return self.api_key_secret
        if self.api_key_env is None:
            return None
        return api_key_from_env(self.api_key_env)

    def identity(self) -> JSONObject:
        """The settings that change results; a resumed run must match them exactly.

        The question selections ``ids`` and ``sample`` appear only when used, so a run made
        before they existed keeps its identity and fingerprint, and resumes. A local dataset (a
        path) is :data:`~coordqa.dataset.releases.LOCAL`: it is its content, which the run's
        fingerprint and folder name hash, not the path's spelling or the working directory.
        """
        from coordqa.dataset.releases import LOCAL, is_bundled

        identity: dict[str, Any] = {
            "model": self.model,
            "api_base": stored_endpoint(self.api_base),
            "dataset": self.dataset if self.dataset is None or is_bundled(self.dataset) else LOCAL,
            "trials": self.trials,
            "games": sorted(self.games) if self.games else None,
            "types": sorted(self.types) if self.types else None,
            "limit": self.limit,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "prompt_layout": self.prompt_layout,
        }
        if self.model_args:
            identity["model_args"] = dict(sorted(self.model_args.items()))
        if self.ids is not None:
            identity["ids"] = sorted(self.ids)
        if self.sample is not None:
            identity.update(sample=self.sample, sample_seed=self.sample_seed)
        return identity

    def runtime(self) -> JSONObject:
        """Settings that only change how the run executes; they may differ when resuming."""
        return {
            "cache": self.cache,
            "policy": asdict(self.policy),
            "max_error_rate": self.max_error_rate,
            "api_key_env": self.api_key_env,
            "transport": self.transport,
        }


def api_key_from_env(variable: str, setting: str | None = None) -> str:
    """The API key in the environment variable ``variable`` (``--api-key-env``).

    ``setting``: where ``variable`` was named, as a refusal says it (an eval-set spec's
    ``models.yaml's models[1].api_key_env``); None: the ``--api-key-env`` option.

    Raises:
        ConfigError: the variable is unset or blank (its name is said, never a value).
    """
    value = os.environ.get(variable)
    if value is None or not value.strip():
        state = "not set" if value is None else "empty"
        named = f"--api-key-env {variable}" if setting is None else setting
        fix = "export your key in it" + ("" if setting is None else " or name another there")
        raise ConfigError(f"{named}: the environment variable {variable} is {state}; {fix}")
    return value


def eval_default(name: str) -> Any:
    """The default of :class:`EvalConfig`'s field ``name``.

    ``coordqa eval``'s options and eval set files offer the same settings; they read their
    defaults here instead of typing them again.

    Raises:
        KeyError: ``name`` is not a field with a plain default.
    """
    default = EvalConfig.__dataclass_fields__[name].default
    if default is MISSING:
        raise KeyError(f"EvalConfig.{name} has no plain default")
    return default
