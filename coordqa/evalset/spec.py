"""What an eval set is: its models, datasets and shared settings, and its members."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from coordqa.dataset import DEFAULT_DATASET
from coordqa.dataset.selection import spelled_filter
from coordqa.errors import ConfigError, SettingError
from coordqa.eval_config import EvalConfig, api_key_from_env, eval_default
from coordqa.evaluation import set_member_run
from coordqa.given_lists import parse_ids, split_list
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.llm import CallPolicy, GenerateConfig, Limits, create_provider
from coordqa.llm.registry import (
    ModelName,
    member_timeout,
    member_transport,
    refuse_a_question_model,
    refuse_a_timeout,
    refuse_a_transport,
    refuse_an_endpoint,
    refuse_unread_model_args,
)
from coordqa.llm.types import Transport
from coordqa.prompts import PromptLayout, layout_named
from coordqa.runs import given_key
from coordqa.spec_problems import spec_problems
from coordqa.yaml_files import load_yaml_file

__all__ = [
    "EvalSetSpec",
    "SetMember",
    "SetModel",
    "endpoint_limits",
    "load_spec",
    "members_of",
    "parse_spec",
    "refuse_repeats",
    "spec_key_of_option",
]

Backend = Literal["local", "ray"]


class SetModel(BaseModel):
    """One model of a set, with its endpoint settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: ModelName
    """Model name for :func:`coordqa.llm.get_model` (``openai/gpt-4o``, ``random``...)."""
    api_base: str | None = None
    """Its server (None: the provider's default)."""
    api_key_env: str | None = None
    """Environment variable holding its key (None: the provider's usual one)."""
    model_args: dict[str, Any] = Field(default_factory=dict)
    """Provider settings passed to every call (part of the member's identity)."""
    rpm: float | None = None
    """Requests per minute to its endpoint, at most (None: no bound)."""
    tpm: float | None = None
    """Tokens per minute to its endpoint, at most (None: no bound)."""
    concurrency: int | None = None
    """Calls in flight on its endpoint at once (None: the set's ``concurrency``)."""


class EvalSetSpec(BaseModel):
    """What a set evaluates: models x datasets, with the settings every member shares.

    Read from YAML with :func:`load_spec`; the fields are those of :class:`EvalConfig` that all
    members share, plus the set's own (``models``, ``datasets``, ``out``, ``backend``...).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: tuple[SetModel, ...] = Field(examples=[["random", "openai/gpt-4o"]])
    """The models; a plain string stands for ``{model: NAME}``."""
    _given_at: tuple[str | None, ...] = PrivateAttr(default=())
    """Where each model was given, as refusals of its settings say it (``models.yaml's
    models[1]``; None: ``--model``, whose settings are options): set by :func:`parse_spec`."""
    _source: str = PrivateAttr(default="the eval-set spec")
    """The spec file the settings not given as options were read from (``models.yaml``)."""
    _options: frozenset[str] = PrivateAttr(default=frozenset())
    """The shared keys given as the command's options (``limit`` by ``--limit``)."""
    datasets: tuple[str, ...] = Field((DEFAULT_DATASET,), examples=[[DEFAULT_DATASET, "example"]])
    """Bundled release names or dataset files; every model runs on each."""
    out: Path | None = None
    """The set's folder (None: ``runs/<spec file name>``, or ``runs/set_<hash>``)."""
    trials: int = eval_default("trials")
    """Samples per question."""
    temperature: float | None = eval_default("temperature")
    """Sampling temperature (None: the provider's default)."""
    top_p: float | None = eval_default("top_p")
    """Nucleus sampling mass (None: the provider's default)."""
    max_tokens: int | None = None
    """Cap on reply tokens."""
    seed: int | None = None
    """Base seed; trial t uses seed + t."""
    games: tuple[str, ...] | None = Field(None, examples=[["hanabi", "overcooked"]])
    """Only these games (a string: split at commas, as ``--games``; :func:`parse_spec`)."""
    types: tuple[str, ...] | None = Field(None, examples=[["EC", "ToM"]])
    """Only these question types (a string: split at commas, as ``--types``)."""
    ids: tuple[str, ...] | None = Field(None, examples=[["hanabi-27-EC", "hanabi-27-ToM"]])
    """Only these question ids (a string: a comma list or a file of ids, as ``--ids``)."""
    sample: int | None = None
    """A stratified sample of this many questions."""
    sample_seed: int = eval_default("sample_seed")
    """Seed of ``sample``."""
    limit: int | None = None
    """The first N questions after the other filters."""
    prompt_layout: PromptLayout = eval_default("prompt_layout")
    """``system`` or ``no_system``."""
    concurrency: int = CallPolicy.concurrency
    """Calls in flight per endpoint, for models that do not set their own."""
    rpm: float | None = None
    """Requests per minute to each endpoint, at most, for models that do not set their own
    (None: no bound)."""
    tpm: float | None = None
    """Tokens per minute to each endpoint, at most, for models that do not set their own
    (None: no bound)."""
    max_attempts: int = CallPolicy.max_attempts
    """Attempts per call, retries included."""
    timeout_s: float = CallPolicy.timeout_s
    """Seconds per attempt."""
    max_connection_failures: int = CallPolicy.max_connection_failures
    """Attempts in a row without an answer after which a member's server counts as down."""
    transport: Transport = eval_default("transport")
    """How models at an ``api_base`` are reached: ``auto``, ``direct`` or ``litellm``."""
    max_error_rate: float = eval_default("max_error_rate")
    """Share of a member's samples that may be errors without failing it."""
    cache: bool = eval_default("cache")
    """Serve identical calls from the response cache."""
    backend: Backend = "local"
    """``local``: one process; ``ray``: one Ray task per member."""
    address: str | None = None
    """Ray address (None: a Ray already initialised, or a new local one)."""
    member_cpus: float = 0.25
    """CPUs Ray reserves for each member's task (its calls mostly wait on the network)."""

    @field_validator("models", mode="before")
    @classmethod
    def _plain_names(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [{"model": item} if isinstance(item, str) else item for item in value]
        return value

    @field_validator("prompt_layout", mode="before")
    @classmethod
    def _layout_as_the_option_spells_it(cls, value: Any) -> Any:
        """``no-system``, as ``--prompt-layout`` and a refusal spell it, is ``no_system``."""
        return layout_named(value) if isinstance(value, str) else value

    @field_validator("models", "datasets")
    @classmethod
    def _not_empty(cls, value: tuple[Any, ...]) -> tuple[Any, ...]:
        if not value:
            raise ValueError("must name at least one")
        return value

    @field_validator("games", "types")
    @classmethod
    def _spelled_filter(
        cls, value: tuple[str, ...] | None, info: ValidationInfo
    ) -> tuple[str, ...] | None:
        """Names as :class:`EvalConfig` holds them: ``Hanabi`` is the set of ``hanabi``."""
        return spelled_filter(info.field_name, value)  # type: ignore[arg-type]

    def setting_from(self, key: str) -> str:
        """Where the shared setting ``key`` came from: ``--limit``, ``models.yaml's trials``.

        ``the default`` when neither gave it. Said by a refusal that compares it with a stored
        set's (walkthrough 18 R9a: ``trials: 3 before, 2 now`` read as a change the user had
        not made; the 2 was the spec file's).
        """
        if key in self._options:
            return option_of_key(key)
        return f"{self._source}'s {key}" if key in self.model_fields_set else "the default"

    def given_at(self, index: int) -> str | None:
        """Where ``models[index]`` was given (None: on the command line, or not said)."""
        return self._given_at[index] if index < len(self._given_at) else None

    def policy(self, model: SetModel) -> CallPolicy:
        """The call policy of one member: its own endpoint limits over the set's.

        Raises:
            SettingError: a value out of range, named as :class:`CallPolicy` names it
                (``requests_per_minute``); :func:`parse_spec` says it as the spec's key.
        """
        return CallPolicy(
            concurrency=model.concurrency or self.concurrency,
            requests_per_minute=model.rpm if model.rpm is not None else self.rpm,
            tokens_per_minute=model.tpm if model.tpm is not None else self.tpm,
            timeout_s=member_timeout(model.model, self.timeout_s),
            max_attempts=self.max_attempts,
            max_connection_failures=self.max_connection_failures,
        )

    def eval_config(self, model: SetModel, dataset: str) -> EvalConfig:
        """The :class:`EvalConfig` of one member, without its run directory."""
        policy = self.policy(model)
        return EvalConfig(
            model=model.model,
            api_base=model.api_base,
            dataset=dataset,
            trials=self.trials,
            games=self.games,
            types=self.types,
            ids=self.ids,
            sample=self.sample,
            sample_seed=self.sample_seed,
            limit=self.limit,
            temperature=self.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            seed=self.seed,
            prompt_layout=self.prompt_layout,
            cache=self.cache,
            policy=policy,
            max_error_rate=self.max_error_rate,
            model_args=dict(model.model_args),
            api_key_env=model.api_key_env,
            transport=member_transport(model.model, self.transport),
        )

    MEMBER_SETTINGS: ClassVar[dict[str, str]] = {
        "model": "each member's own (models:)",
        "api_base": "each model's own endpoint (models: [{api_base: ...}])",
        "model_args": "each model's own provider settings (models: [{model_args: ...}])",
        "dataset": "each member's own (datasets:)",
    }
    """The fields of :meth:`EvalConfig.identity` that are not in :meth:`shared_identity`, and
    why. Every other one is shared (``tests/test_eval_config.py``): a result-changing setting
    left out would let a set resume with a different one."""

    def shared_identity(self) -> JSONObject:
        """The shared settings that change results: a set's folder holds one experiment.

        Models and datasets may be added to a set later; these may not change. The twelve
        settings dumped are recorded always, ``None`` when unset (``ids`` and ``sample`` too:
        sets were made with them), and a set resumes only if the recorded dict is equal. So a
        setting added later goes after the dump, only when it differs from its default, as
        :meth:`EvalConfig.identity` adds ``ids`` and ``sample`` (which runs predate), so that
        existing sets (and their ``runs/set_<hash>`` folders) keep their identity and resume.
        """
        return self.model_dump(
            mode="json",
            include={
                "trials",
                "temperature",
                "top_p",
                "max_tokens",
                "seed",
                "games",
                "types",
                "ids",
                "sample",
                "sample_seed",
                "limit",
                "prompt_layout",
            },
        )

    def default_out(self) -> Path:
        """``runs/set_<hash>``: a hash of the models, datasets and shared settings."""
        identity = {
            "models": [m.model_dump(mode="json") for m in self.models],
            "datasets": list(self.datasets),
            "shared": self.shared_identity(),
        }
        return Path("runs") / f"set_{content_hash(identity)[:8]}"


def spec_key_of_option(option: str) -> str | None:
    """The shared spec key that ``option``, one of ``coordqa eval``'s, is spelled as, if any.

    A setting every member shares and a set records (``--temperature``, ``--types``,
    ``--max-tokens``) is a key of the spec file rather than an option of ``eval-set``; an
    ``eval-set`` refusing it names the key (``temperature``), read from the spec's own fields.
    """
    key = option.lstrip("-").replace("-", "_")
    return key if key in EvalSetSpec.model_fields and key not in {"models", "datasets"} else None


_OPTION_OF_KEY = {"timeout_s": "--timeout", "datasets": "--dataset", "cache": "--no-cache"}
"""The ``eval-set`` options spelled otherwise than their spec key (``timeout_s``: ``--timeout``)."""


def option_of_key(key: str) -> str:
    """The ``eval-set`` option that sets the spec key ``key`` (``backend``: ``--backend``).

    >>> option_of_key("max_attempts"), option_of_key("timeout_s")
    ('--max-attempts', '--timeout')
    """
    return _OPTION_OF_KEY.get(key, "--" + key.replace("_", "-"))


SPEC_KEY_OF_POLICY = {"requests_per_minute": "rpm", "tokens_per_minute": "tpm"}
""":class:`CallPolicy`'s parameters that a spec (a set, or one of its models) names otherwise."""


def _check_values(spec: EvalSetSpec, source: str, said_as: Callable[[str], str]) -> None:
    """Check the set's sampling, each member's call policy and its run, as the library's rules do.

    Their refusals name the spec's key (``models.yaml's rpm``, ``models.yaml's
    models[1].rpm`` where the member sets its own), or the option that gave it (``said_as``):
    the library names its parameters (``requests_per_minute``), and said ``--rpm`` before
    (walkthrough 18, O1). A member's run (:class:`EvalConfig`: ``trials``, ``limit``,
    ``max_error_rate``...) is checked here too, so that its refusal names the key as well
    (``models.yaml's trials must be >= 1``; walkthrough 23 said ``trials must be >= 1``).

    Raises:
        SettingError: a value out of range, named as the spec's key.
    """
    try:
        GenerateConfig(spec.temperature, spec.top_p, spec.max_tokens, spec.seed)
    except SettingError as error:
        raise SettingError(said_as(error.setting), error.template) from None
    for index, model in enumerate(spec.models):
        try:
            spec.policy(model)
        except SettingError as error:
            key = SPEC_KEY_OF_POLICY.get(error.setting, error.setting)
            own = key in SetModel.model_fields and getattr(model, key) is not None
            named = f"{source}'s models[{index}].{key}" if own else said_as(key)
            raise SettingError(named, error.template) from None
        for dataset in spec.datasets:
            try:
                spec.eval_config(model, dataset)
            except SettingError as error:
                raise SettingError(said_as(error.setting), error.template) from None


def load_spec(
    path: str | Path, *, added: Sequence[Mapping[str, Any]] = (), **overrides: Any
) -> EvalSetSpec:
    """Read a set from a YAML file; ``overrides`` (e.g. from the command line) win.

    A spec without ``out`` puts the set in ``runs/<file name without suffix>``. ``added``
    models (``eval-set SPEC --model NAME``) follow the file's and are checked with them, once:
    a rule over every model of the set (a ``transport`` or ``timeout_s`` no model of the file
    uses) holds for the set as it runs, not for the file's models alone.

    Raises:
        ConfigError: the file is missing, a folder (a set's: how to resume it), is not YAML, or
            breaks the spec (each problem named).
    """
    file = Path(path)
    try:
        data = load_yaml_file(file, "the eval-set spec")
    except (FileNotFoundError, IsADirectoryError):
        from coordqa.given_paths import YAML_SUFFIXES, not_a_file
        from coordqa.runfolder import holds_set, resume_set_words

        problem = not_a_file(file, "the eval-set spec", YAML_SUFFIXES, folders=False)
        if holds_set(file):  # the set's folder for its spec: say how a set resumes
            raise ConfigError(f"{problem} {resume_set_words(file)}") from None
        raise ConfigError(
            f"{problem} Give the path of a set's YAML file (models:, datasets:), or models "
            "with --model and no spec"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the eval-set spec {file}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"the eval-set spec {file} must be a mapping (models:, datasets:, ...)")
    data.setdefault("out", str(Path("runs") / file.stem))
    listed = data.get("models")
    if added and isinstance(listed, list):
        models = {"models": [*listed, *added]}
        return parse_spec(
            {**data, **overrides, **models},
            source=str(file),
            options_from=len(listed),
            options=overrides,
        )
    return parse_spec({**data, **overrides}, source=str(file), options=overrides)


def _as_lists(data: JSONObject, source: str) -> JSONObject:
    """The filters ``data`` gives as a string, read as ``coordqa eval``'s options read them.

    ``types: JP`` and ``games: hanabi,overcooked`` are split at commas (``--types``,
    ``--games``), ``ids: chosen.txt`` or ``ids: id1,id2`` is a file or a comma list (``--ids``):
    one rule for one setting wherever it is given; they were refused as "Input should be a
    valid tuple" (walkthrough 23). The set records the names and ids, not the string.

    Raises:
        ConfigError: an ``ids`` file that is missing or lists no id, said as ``source``'s key.
    """
    read: JSONObject = {}
    for key in ("games", "types", "ids"):
        value = data.get(key)
        if isinstance(value, str):
            items = parse_ids(value, f"{source}'s ids") if key == "ids" else split_list(value)
            read[key] = None if items is None else list(items)
    return read


def parse_spec(
    data: JSONObject,
    *,
    source: str = "the eval-set spec",
    options_from: int | None = None,
    options: Collection[str] = (),
) -> EvalSetSpec:
    """Validate a set given as data; every problem is named with its field.

    ``options_from``: the index of the first model given on the command line (``--model``,
    with its ``--api-key-env``...), whose settings are said as options; the others are
    ``source``'s (``models.yaml's models[1].api_key_env``). None: every model is ``source``'s.
    ``options``: the shared keys given as the command's options (``timeout_s`` by
    ``--timeout``, :func:`option_of_key`), which a refusal names so (``--backend 'rey' is not
    one of local, ray``, walkthrough 17, R6); any other is ``source``'s key (``models.yaml's
    timeout_s``). One of them, never ``--timeout/timeout_s`` (walkthrough 16, R7).

    Raises:
        ConfigError: a field is unknown, missing or has a bad value, model arguments are
            given to a model that reads none (:func:`refuse_unread_model_args`), or a model
            answers no question (:func:`refuse_a_question_model`, the rule of ``coordqa eval``).
        SettingError: a model that runs inside coordqa is given an endpoint or a key
            (:func:`refuse_an_endpoint`), naming the member's key (``models.yaml's
            models[0].api_base``).
    """
    data = {**data, **_as_lists(data, source)}
    try:
        spec = EvalSetSpec.model_validate(data)
    except ValidationError as exc:
        flags = {key: option_of_key(key) for key in options}
        raise ConfigError(spec_problems(exc, EvalSetSpec, flags, source)) from None
    for index, model in enumerate(spec.models):
        at = f"{source}'s models[{index}]"
        refuse_unread_model_args(model.model, model.model_args, f"{at}.model_args")
        refuse_a_question_model(model.model, at)
        # the member's own keys, not the flags (walkthrough 18, O1); a --model model's endpoint
        # and key are the command line's, said as its options
        from_options = options_from is not None and index >= options_from
        refuse_an_endpoint(
            model.model,
            model.api_base,
            key_given=model.api_key_env is not None,
            settings=None if from_options else (f"{at}.api_base", f"{at}.api_key_env"),
        )
    names = [model.model for model in spec.models]
    given = spec.model_fields_set

    def said_as(key: str) -> str:
        return option_of_key(key) if key in options else f"{source}'s {key}"

    _check_values(spec, source, said_as)

    refuse_a_transport(names, spec.transport, said_as("transport"))
    refuse_a_timeout(names, "timeout_s" in given, said_as("timeout_s"))
    spec._source, spec._options = source, frozenset(options)
    spec._given_at = tuple(
        None
        if options_from is not None and index >= options_from
        else f"{source}'s models[{index}]"
        for index in range(len(spec.models))
    )
    return spec


@dataclass(frozen=True)
class SetMember:
    """One (model, dataset) of a set, with the run it is."""

    model: SetModel
    """The model and its endpoint settings."""
    dataset: str
    """The dataset name or file."""
    config: EvalConfig
    """Its QA run, with ``out`` inside the set's folder."""
    key: str
    """Which member it is whatever the set's trials (:func:`~coordqa.evaluation.set_member_run`):
    the set's manifest records it beside the member's folder, which it keeps."""
    given_at: str | None = None
    """Where its model was given, as a refusal of its settings says it (``models.yaml's
    models[1]``); None: on the command line (``--model``), whose settings are options."""
    set_models: tuple[str, ...] = ()
    """Every model the set names, its own too: a refusal of its model by its server offers none
    of them instead, as naming one again is refused (walkthrough 21, R2)."""
    samples: int = 0
    """The samples its run needs: questions x trials, earlier sessions' answers included, as
    ``coordqa eval`` counts them (:attr:`~coordqa.evaluation.EvalProgress.total`); known before
    any member runs, so the set's progress has its whole total from the start."""
    former_key: str | None = None
    """The key versions before gave it, where that differs (walkthrough 23b, R8: a folder's
    ``data.parquet`` was named ``data``): a set recording it keeps that member and its folder."""

    def api_key(self) -> str | None:
        """Its model's key, checked where the spec named its variable (None: the provider's).

        Raises:
            ConfigError: the variable is unset or blank, said as the spec's setting
                (``models.yaml's models[1].api_key_env``) or as ``--api-key-env``.
        """
        variable = self.model.api_key_env
        if variable is None:
            return None
        setting = None if self.given_at is None else f"{self.given_at}.api_key_env"
        return api_key_from_env(variable, setting)

    @property
    def label(self) -> str:
        """``model on dataset``, as messages name the member."""
        return f"{self.model.model} on {self.dataset}"

    @property
    def run(self) -> Path:
        """The member's run directory."""
        if self.config.out is None:  # members are always built with their directory
            raise ConfigError(f"{self.label} has no run directory")
        return self.config.out

    def endpoint(self) -> str:
        """The connection key of its endpoint (provider plus api_base), as limits are keyed."""
        model = self.model
        provider = create_provider(model.model, model.api_base, None, self.config.transport)
        return provider.connection_key()


def members_of(
    spec: EvalSetSpec, out: Path, recorded: Mapping[str, str] | None = None
) -> list[SetMember]:
    """The members of ``spec`` with their run directories under ``out``.

    A member the set at ``out`` already holds keeps the folder it ``recorded`` (by member key,
    or the key it had before: :func:`~coordqa.evalset.manifest.recorded_runs`); a new one is
    named as ``eval`` names it.

    Raises:
        ConfigError: two entries are one member (:func:`refuse_repeats`).
    """
    runs = _member_runs(spec)
    _refuse_repeated(runs, lambda index: f"models[{index}]")
    folders = recorded or {}
    return [
        SetMember(
            spec.models[m],
            spec.datasets[d],
            replace(
                config,
                out=out / folders.get(key, folders.get(former, name)),
                model_given_at=given_key(spec.given_at(m), "model"),
            ),
            key,
            spec.given_at(m),
            tuple(model.model for model in spec.models),
            samples,
            former if former != key else None,
        )
        for (m, d), config, (key, name, samples, former) in runs
    ]


MemberRun = tuple[tuple[int, int], EvalConfig, tuple[str, str, int, str]]
"""A member as (model index, dataset index), its config, its key, its new folder's name, its
samples and its former key."""


def _member_runs(spec: EvalSetSpec) -> list[MemberRun]:
    """Every (model, dataset) of ``spec``, in spec order, with its config, key and folder."""
    runs = []
    for m, model in enumerate(spec.models):
        for d, dataset in enumerate(spec.datasets):
            config = spec.eval_config(model, dataset)
            runs.append(((m, d), config, set_member_run(config)))
    return runs


def refuse_repeats(spec: EvalSetSpec, where: Callable[[int], str]) -> None:
    """Refuse a spec naming one member twice, saying where each model came from.

    ``where(i)`` says where ``models[i]`` was given (``--model``, a spec file's entry);
    :func:`members_of` refuses the same with the spec's own indices.

    Raises:
        ConfigError: as :func:`members_of`.
    """
    _refuse_repeated(_member_runs(spec), where)


def _refuse_repeated(runs: Sequence[MemberRun], where: Callable[[int], str]) -> None:
    """Refuse two entries that are one member: both would write its one run folder at once.

    Two models are one when their members' runs are one (the folder names a run by its
    identity: endpoint limits or a key variable make no other run); so are two datasets.

    Raises:
        ConfigError: the repeated model or dataset, where each was given, and to name it once.
    """
    seen: dict[str, tuple[int, int]] = {}
    for at, config, (key, *_) in runs:
        first = seen.setdefault(key, at)
        if first == at:
            continue
        if first[0] == at[0]:
            raise ConfigError(f"the dataset {config.dataset} is named twice; name it once")
        places = dict.fromkeys((where(first[0]), where(at[0])))
        raise ConfigError(
            f"the model {config.model} is named twice ({' and '.join(places)}); name it once"
        )


def endpoint_limits(members: Sequence[SetMember]) -> dict[str, Limits]:
    """The limits of every endpoint the members call, by connection key.

    Raises:
        ConfigError: two models on one endpoint declare different bounds (an endpoint has one
            budget; say the same ``concurrency``, ``rpm`` and ``tpm`` for both).
    """
    limits: dict[str, Limits] = {}
    declared_by: dict[str, str] = {}
    for member in members:
        key = member.endpoint()
        bounds = Limits.from_policy(member.config.policy)
        if key in limits and limits[key] != bounds:
            raise ConfigError(
                f"models {declared_by[key]} and {member.model.model} share the endpoint {key} "
                f"but declare different limits ({limits[key]} and {bounds}); an endpoint has one "
                "budget: give both the same concurrency, rpm and tpm"
            )
        limits[key], declared_by[key] = bounds, member.model.model
    return limits
