"""Eval sets: many models x datasets as one resumable unit (``coordqa eval-set``).

An :class:`EvalSetSpec` names models (each with its own endpoint, key variable, model
arguments, request and token rates and concurrency), datasets (releases or files), and the
settings every member shares (trials, sampling, question filters, retries). Each (model,
dataset) pair is a *member*: an ordinary QA run (:func:`coordqa.evaluation.evaluate_async`) whose
directory, named as ``coordqa eval`` names it, lies in the set's folder next to the set manifest
``eval-set.json`` (:class:`SetManifest`), which says what the set is and how each member stands.

- Resuming: running the same set again skips every complete member (all its samples answered,
  status finished) and resumes the others, each from its own run directory.
- Limits: a model's ``concurrency``, ``rpm`` and ``tpm`` bound its endpoint (provider plus
  api_base), shared by every member that calls it: on the local backend through the process's
  :data:`coordqa.llm.limiters`, on Ray through one limiter actor per endpoint
  (:mod:`coordqa.llm.ray_limits`). Models that share an endpoint must declare the same bounds.
- Failures: a member that fails (a refused key, an unreachable server, too many errors, a
  missing key variable) is stopped with its message, stored in the manifest, and the other
  members go on; :attr:`SetResult.ok` is False.
- Backends: ``local`` runs every member as a task of one event loop; ``ray`` runs each member
  as a Ray task (:mod:`coordqa.evalset_ray`) that writes its run directory into the set's folder,
  which must be shared by every node.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from coordqa._version import __version__
from coordqa.dataset import DEFAULT_DATASET
from coordqa.errors import ConfigError, CoordqaError
from coordqa.evaluation import EvalConfig, EvalFailed, EvalProgress, default_out, evaluate_async
from coordqa.files import atomic_write_text
from coordqa.jsonvalues import content_hash
from coordqa.llm import CallPolicy, Limits, create_provider
from coordqa.llm.types import PAPER_SAMPLING
from coordqa.prompts import PromptLayout
from coordqa.store import read_qa_run

__all__ = [
    "SET_MANIFEST",
    "EvalSetSpec",
    "MemberState",
    "SetEvent",
    "SetInterrupted",
    "SetManifest",
    "SetMember",
    "SetModel",
    "SetResult",
    "endpoint_limits",
    "evaluate_set",
    "evaluate_set_async",
    "load_spec",
    "read_set",
]

SET_MANIFEST = "eval-set.json"
"""The set manifest's file name in the set's folder (what marks a folder as an eval set)."""

SET_SCHEMA_VERSION = 1
"""Version of the set manifest format."""

Backend = Literal["local", "ray"]
MemberStatus = Literal["pending", "complete", "failed", "interrupted"]


class SetInterrupted(CoordqaError):
    """The set was stopped (Ctrl-C); every member's answers so far are stored."""


class SetModel(BaseModel):
    """One model of a set, with its endpoint settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
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

    models: tuple[SetModel, ...]
    """The models; a plain string stands for ``{model: NAME}``."""
    datasets: tuple[str, ...] = (DEFAULT_DATASET,)
    """Bundled release names or dataset files; every model runs on each."""
    out: Path | None = None
    """The set's folder (None: ``runs/<spec file name>``, or ``runs/set_<hash>``)."""
    trials: int = 3
    """Samples per question."""
    temperature: float | None = PAPER_SAMPLING.temperature
    """Sampling temperature (None: the provider's default)."""
    top_p: float | None = PAPER_SAMPLING.top_p
    """Nucleus sampling mass (None: the provider's default)."""
    max_tokens: int | None = None
    """Cap on reply tokens."""
    seed: int | None = None
    """Base seed; trial t uses seed + t."""
    games: tuple[str, ...] | None = None
    """Only these games."""
    types: tuple[str, ...] | None = None
    """Only these question types."""
    ids: tuple[str, ...] | None = None
    """Only these question ids."""
    sample: int | None = None
    """A stratified sample of this many questions."""
    sample_seed: int = 0
    """Seed of ``sample``."""
    limit: int | None = None
    """The first N questions after the other filters."""
    prompt_layout: PromptLayout = "system"
    """``system`` or ``no_system``."""
    concurrency: int = CallPolicy.concurrency
    """Calls in flight per endpoint, for models that do not set their own."""
    max_attempts: int = CallPolicy.max_attempts
    """Attempts per call, retries included."""
    timeout_s: float = CallPolicy.timeout_s
    """Seconds per attempt."""
    max_connection_failures: int = CallPolicy.max_connection_failures
    """Attempts in a row without an answer after which a member's server counts as down."""
    max_error_rate: float = 0.0
    """Share of a member's samples that may be errors without failing it."""
    cache: bool = True
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

    @field_validator("models", "datasets")
    @classmethod
    def _not_empty(cls, value: tuple[Any, ...]) -> tuple[Any, ...]:
        if not value:
            raise ValueError("must name at least one")
        return value

    def eval_config(self, model: SetModel, dataset: str) -> EvalConfig:
        """The :class:`EvalConfig` of one member, without its run directory."""
        policy = CallPolicy(
            concurrency=model.concurrency or self.concurrency,
            requests_per_minute=model.rpm,
            tokens_per_minute=model.tpm,
            timeout_s=self.timeout_s,
            max_attempts=self.max_attempts,
            max_connection_failures=self.max_connection_failures,
        )
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
        )

    def shared_identity(self) -> dict[str, Any]:
        """The shared settings that change results: a set's folder holds one experiment.

        Models and datasets may be added to a set later; these may not change.
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


def load_spec(path: str | Path, **overrides: Any) -> EvalSetSpec:
    """Read a set from a YAML file; ``overrides`` (e.g. from the command line) win.

    A spec without ``out`` puts the set in ``runs/<file name without suffix>``.

    Raises:
        ConfigError: the file is missing, is not YAML, or breaks the spec (each problem named).
    """
    import yaml

    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the eval-set spec {file}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"the eval-set spec {file} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"the eval-set spec {file} must be a mapping (models:, datasets:, ...)")
    data.setdefault("out", str(Path("runs") / file.stem))
    return parse_spec({**data, **overrides}, source=str(file))


def parse_spec(data: dict[str, Any], *, source: str = "the eval-set spec") -> EvalSetSpec:
    """Validate a set given as data; every problem is named with its field.

    Raises:
        ConfigError: a field is unknown, missing or has a bad value.
    """
    try:
        return EvalSetSpec.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'spec'}: {error['msg']}"
            for error in exc.errors()
        )
        allowed = ", ".join(EvalSetSpec.model_fields)
        raise ConfigError(f"{source}: {problems} (fields: {allowed})") from None


# -- members and their state -----------------------------------------------------------------


@dataclass(frozen=True)
class SetMember:
    """One (model, dataset) of a set, with the run it is."""

    model: SetModel
    """The model and its endpoint settings."""
    dataset: str
    """The dataset name or file."""
    config: EvalConfig
    """Its QA run, with ``out`` inside the set's folder."""

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
        return create_provider(self.model.model, self.model.api_base, None).connection_key()


class MemberState(BaseModel):
    """How one member stands, as the set manifest records it."""

    model_config = ConfigDict(extra="forbid")

    model: str
    """The model."""
    api_base: str | None = None
    """Its endpoint."""
    dataset: str
    """The dataset."""
    run: str
    """Its run directory, relative to the set's folder."""
    status: MemberStatus = "pending"
    """``pending`` (not run yet), ``complete``, ``failed`` or ``interrupted``."""
    message: str | None = None
    """Why it failed or stopped."""
    answered: int = 0
    """Samples answered (stored with a reply)."""
    expected: int = 0
    """Samples the run needs (questions x trials); 0 until it has run."""
    skipped: bool = False
    """Whether the latest session skipped it as complete."""


class SetManifest(BaseModel):
    """``eval-set.json``: what the set is and how each member stands."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SET_SCHEMA_VERSION
    """Format version."""
    kind: Literal["eval-set"] = "eval-set"
    """Marks the folder as an eval set."""
    coordqa_version: str = __version__
    """coordqa that wrote it last."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    """When the set was first run (UTC)."""
    updated_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    """When a member's state last changed."""
    sessions: int = 0
    """How many times the set was run."""
    shared: dict[str, Any]
    """The shared settings that change results (:meth:`EvalSetSpec.shared_identity`)."""
    spec: dict[str, Any]
    """The spec of the latest session."""
    members: list[MemberState]
    """Every member of the latest session, in spec order (models, then datasets)."""

    @property
    def ok(self) -> bool:
        """Whether every member is complete."""
        return all(m.status == "complete" for m in self.members)


@dataclass(frozen=True)
class SetEvent:
    """What the progress callback of :func:`evaluate_set` receives."""

    member: SetMember
    """The member concerned."""
    kind: Literal["skipped", "started", "progress", "finished", "failed"]
    """What happened."""
    state: MemberState | None = None
    """Its state after a ``skipped``, ``finished`` or ``failed`` event."""
    progress: EvalProgress | None = None
    """Its run's progress, for a ``progress`` event (local backend only)."""


SetProgress = Callable[[SetEvent], None]


@dataclass
class SetResult:
    """What :func:`evaluate_set` returns."""

    out: Path
    """The set's folder."""
    manifest: SetManifest
    """Its manifest after this session."""

    @property
    def ok(self) -> bool:
        """Whether every member is complete (the exit status of ``coordqa eval-set``)."""
        return self.manifest.ok

    @property
    def failed(self) -> list[MemberState]:
        """The members that are not complete, with their messages."""
        return [m for m in self.manifest.members if m.status != "complete"]

    def runs(self) -> list[Path]:
        """Every member's run directory that exists, in spec order."""
        paths = [self.out / m.run for m in self.manifest.members]
        return [p for p in paths if (p / "manifest.json").exists()]


def members_of(spec: EvalSetSpec, out: Path) -> list[SetMember]:
    """The members of ``spec`` with their run directories under ``out`` (named as ``eval``)."""
    members = []
    for model in spec.models:
        for dataset in spec.datasets:
            config = spec.eval_config(model, dataset)
            run = out / default_out(config).name
            members.append(SetMember(model, dataset, replace(config, out=run)))
    return members


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


def member_state(member: SetMember, out: Path) -> MemberState:
    """A member's state as its run directory shows it (``pending`` when it has none)."""
    state = MemberState(
        model=member.model.model,
        api_base=member.model.api_base,
        dataset=member.dataset,
        run=str(member.run.relative_to(out)),
    )
    if not (member.run / "manifest.json").exists():
        return state
    run = read_qa_run(member.run)
    manifest = run.manifest
    questions = manifest.dataset.num_questions if manifest.dataset else 0
    answered = sum(1 for call in run.last_calls().values() if call.ok)
    expected = questions * member.config.trials
    complete = manifest.status == "finished" and answered >= expected > 0
    return state.model_copy(
        update={
            "answered": answered,
            "expected": expected,
            "status": "complete" if complete else "pending",
        }
    )


# -- the set manifest ------------------------------------------------------------------------


def read_set(folder: str | Path) -> SetManifest:
    """The manifest of the eval set in ``folder``.

    Raises:
        ConfigError: ``folder`` holds no eval set, or its manifest is damaged.
    """
    path = Path(folder) / SET_MANIFEST
    if not path.is_file():
        raise ConfigError(
            f"{folder} is not an eval set (no {SET_MANIFEST}); run `coordqa eval-set` into it "
            "first, or pass run directories"
        )
    try:
        return SetManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise ConfigError(f"{path} is damaged: {exc}") from exc


def is_set(folder: str | Path) -> bool:
    """Whether ``folder`` holds an eval set."""
    return (Path(folder) / SET_MANIFEST).is_file()


class _Ledger:
    """The set manifest of one session: updated and rewritten as members change state."""

    def __init__(self, spec: EvalSetSpec, out: Path, members: Sequence[SetMember]) -> None:
        shared = spec.shared_identity()
        previous = read_set(out) if is_set(out) else None
        if previous is not None and previous.shared != shared:
            changed = sorted(
                key
                for key in set(shared) | set(previous.shared)
                if shared.get(key) != previous.shared.get(key)
            )
            raise ConfigError(
                f"{out} holds an eval set with other shared settings ({', '.join(changed)}); "
                "run it with the same settings (models and datasets may be added), or choose "
                "another --out"
            )
        self.out = out
        self.manifest = SetManifest(
            created_at=previous.created_at if previous else datetime.now(timezone.utc),
            sessions=(previous.sessions if previous else 0) + 1,
            shared=shared,
            spec=spec.model_dump(mode="json"),
            members=[member_state(m, out) for m in members],
        )
        self.index = {m.run: i for i, m in enumerate(members)}
        out.mkdir(parents=True, exist_ok=True)
        self.write()

    def state(self, member: SetMember) -> MemberState:
        return self.manifest.members[self.index[member.run]]

    def update(self, member: SetMember, state: MemberState) -> None:
        self.manifest.members[self.index[member.run]] = state
        self.manifest.updated_at = datetime.now(timezone.utc)
        self.write()

    def write(self) -> None:
        atomic_write_text(self.out / SET_MANIFEST, self.manifest.model_dump_json(indent=2) + "\n")


# -- running ---------------------------------------------------------------------------------


async def run_member(
    member: SetMember, out: Path, progress: Callable[[EvalProgress], None] | None = None
) -> MemberState:
    """Run (or resume) one member; a failure is its state, never an exception.

    Raises only on cancellation (Ctrl-C), after the run has marked itself interrupted.
    """
    try:
        await evaluate_async(member.config, progress=progress)
    except EvalFailed as failure:
        return member_state(member, out).model_copy(
            update={"status": "failed", "message": str(failure)}
        )
    except CoordqaError as error:  # a missing key variable, an unknown provider, a bad filter
        return member_state(member, out).model_copy(
            update={"status": "failed", "message": f"{type(error).__name__}: {error}"}
        )
    return member_state(member, out)


async def _run_local(
    pending: Sequence[SetMember], ledger: _Ledger, progress: SetProgress | None
) -> None:
    """Every pending member as a task of this event loop, sharing the process's limiters."""
    import anyio

    def emit(event: SetEvent) -> None:
        if progress is not None:
            progress(event)

    async def one(member: SetMember) -> None:
        emit(SetEvent(member, "started"))
        try:
            state = await run_member(
                member, ledger.out, lambda p: emit(SetEvent(member, "progress", progress=p))
            )
        except BaseException:
            stopped = {"status": "interrupted", "message": "interrupted"}
            ledger.update(member, member_state(member, ledger.out).model_copy(update=stopped))
            raise
        ledger.update(member, state)
        emit(SetEvent(member, "finished" if state.status == "complete" else "failed", state))

    async with anyio.create_task_group() as group:
        for member in pending:
            group.start_soon(one, member)


async def evaluate_set_async(
    spec: EvalSetSpec, *, progress: SetProgress | None = None
) -> SetResult:
    """Run (or resume) an eval set; see :func:`evaluate_set`."""
    out = Path(spec.out) if spec.out is not None else spec.default_out()
    members = members_of(spec, out)
    endpoint_limits(members)
    ledger = _Ledger(spec, out, members)
    pending = []
    for member in members:
        state = ledger.state(member)
        if state.status == "complete":
            ledger.update(member, state.model_copy(update={"skipped": True}))
            if progress is not None:
                progress(SetEvent(member, "skipped", ledger.state(member)))
        else:
            pending.append(member)
    if spec.backend == "ray":
        from coordqa.evalset_ray import run_on_ray

        run_on_ray(spec, pending, ledger, progress)  # blocks: Ray's tasks do the waiting
    else:
        await _run_local(pending, ledger, progress)
    return SetResult(out, ledger.manifest)


def evaluate_set(spec: EvalSetSpec, *, progress: SetProgress | None = None) -> SetResult:
    """Run (or resume) every member of an eval set; failures stop only their member.

    Complete members are skipped; the others run (or resume) at once, sharing each endpoint's
    limits. The set manifest is rewritten as each member ends.

    Raises:
        ConfigError: a bad spec, two models declaring different limits for one endpoint, or a
            folder that holds a set with other shared settings (nothing is run).
        SetInterrupted: on Ctrl-C; every member's answers so far are stored, and the same call
            resumes the set.
    """
    try:
        return asyncio.run(evaluate_set_async(spec, progress=progress))
    except KeyboardInterrupt:
        out = Path(spec.out) if spec.out is not None else spec.default_out()
        raise SetInterrupted(
            f"interrupted: every member's answers so far are stored in {out}; run the same "
            "command again to resume the set"
        ) from None
