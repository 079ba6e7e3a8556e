"""A CoordinationQA run: questions x trials -> prompts -> model -> choices -> outcomes -> run store.

:func:`evaluate` (or ``await evaluate_async``) does the same thing as ``coordqa eval`` and leaves
the same run directory. What a run directory holds (see :mod:`coordqa.store`):

- ``questions.jsonl``: each question once: ids, game, type, options, answer key, the chat
  messages sent, and the question / prompt / answer-key hashes;
- ``calls.jsonl``: every model exchange: the key (question_id, trial), the prompt hash (a
  reference to the messages in ``questions.jsonl``), reply text or error, tokens, cost, latency,
  attempts, whether it came from the cache;
- ``samples.jsonl``: the outcome of each (question, trial): ``answered`` (with ``correct``),
  ``ambiguous``, ``no_answer`` or ``error`` (the call failed after its retries: never scored as an
  answer). An ``error`` sample is retried when the run is resumed; the later sample supersedes it;
- ``scores.jsonl`` and ``summary.json``: derived, rewritten by :func:`score` from the stored
  replies with the current :mod:`coordqa.choices`, without calling any model.

Resuming: running the same configuration again (same ``out``) skips every (question, trial)
whose latest sample is not an error, and turns a stored successful call that has no sample yet
(the process died between the two writes) into its sample without calling the model again.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from coordqa.analysis import SCORES_FILE, SUMMARY_FILE, RunAnalysis, analyze_run
from coordqa.errors import ConfigError, CoordqaError, StoreError
from coordqa.llm import CallPolicy, GenerateConfig, Message, Reply, Usage
from coordqa.prompts import PROMPT_LAYOUTS, PromptLayout
from coordqa.store import DatasetInfo, RunManifest, RunStore, content_hash, open_run

__all__ = [
    "EvalConfig",
    "EvalInterrupted",
    "EvalProgress",
    "RunResult",
    "evaluate",
    "evaluate_async",
    "final_samples",
    "reply_outcome",
    "score",
]

DEFAULT_RUNS_DIR = Path("runs")
ROLE = "qa"
"""Usage role under which QA calls are recorded by the gateway."""


class EvalInterrupted(CoordqaError):
    """The run was stopped (Ctrl-C) before the end; what was answered is stored."""


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
    """Bundled dataset name or path to a dataset file; None: the bundled v1 dataset."""
    trials: int = 3
    """Independent samples per question."""
    games: tuple[str, ...] | None = None
    """Only these games (None: all)."""
    types: tuple[str, ...] | None = None
    """Only these question types, among EC, ToM, JP (None: all)."""
    limit: int | None = None
    """Only the first ``limit`` questions after the other filters (None: all)."""
    temperature: float | None = 0.6
    """Sampling temperature (None: the provider's default)."""
    top_p: float | None = 0.9
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
    """Run directory; None: ``runs/<model>/<dataset fingerprint>-<config hash>``, so that the
    same command resumes the same run."""
    policy: CallPolicy = field(default_factory=CallPolicy)
    """Concurrency, retries and timeouts. ``policy.concurrency`` is also the number of
    questions in flight."""

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ConfigError("model must be a model name such as 'random' or 'openai/gpt-4o'")
        for name in ("games", "types"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise ConfigError(
                    f"{name} must be a tuple of names, e.g. {name}=({value!r},), not a string"
                )
        if self.trials < 1:
            raise ConfigError(f"trials must be >= 1, got {self.trials}")
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"limit must be >= 1 (or None for all questions), got {self.limit}")
        if self.prompt_layout not in PROMPT_LAYOUTS:
            raise ConfigError(
                f"prompt_layout {self.prompt_layout!r} is not one of {list(PROMPT_LAYOUTS)}"
            )
        self.generate_config(0)  # validates the sampling parameters

    def generate_config(self, trial: int) -> GenerateConfig:
        """Sampling parameters of ``trial``."""
        seed = None if self.seed is None else self.seed + trial
        return GenerateConfig(self.temperature, self.top_p, self.max_tokens, seed)

    def identity(self) -> dict[str, Any]:
        """The settings that change results; a resumed run must match them exactly."""
        return {
            "model": self.model,
            "api_base": self.api_base,
            "dataset": self.dataset,
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

    def runtime(self) -> dict[str, Any]:
        """Settings that only change how the run executes; they may differ when resuming."""
        return {"cache": self.cache, "policy": asdict(self.policy)}


@dataclass(frozen=True)
class EvalProgress:
    """A snapshot of a running evaluation, passed to the progress callback."""

    run_dir: Path
    """The run directory being written."""
    total: int
    """Samples the run needs (questions x trials)."""
    done: int
    """Samples stored so far, earlier sessions included."""
    resumed: int
    """Samples already stored when this session started."""
    calls: int
    """Model calls made in this session (cache hits included)."""
    errors: int
    """Error samples stored in this session."""
    usage: Usage
    """Tokens and cost of this session's calls."""
    elapsed_s: float
    """Seconds since this session started sending."""


ProgressCallback = Callable[[EvalProgress], None]


@dataclass
class RunResult:
    """What :func:`evaluate` returns."""

    run_dir: Path
    """The run directory."""
    manifest: RunManifest
    """The run's manifest after this session."""
    analysis: RunAnalysis
    """Accuracy tables and outcome counts of the whole run."""
    usage: Usage
    """Tokens and cost of this session's calls."""
    new_samples: int
    """Samples stored by this session."""
    resumed_samples: int
    """Samples that were already stored when this session started."""


@dataclass(frozen=True)
class QuestionPlan:
    """One question, ready to send."""

    row: dict[str, Any]
    """The dataset row."""
    messages: list[Message]
    """Chat messages for the model."""
    question_hash: str
    """Hash of the question content."""
    prompt_hash: str
    """Hash of the messages."""
    target_hash: str
    """Hash of the answer key."""

    @property
    def question_id(self) -> str:
        """The question's id."""
        return str(self.row["question_id"])

    def record(self) -> dict[str, Any]:
        """The ``questions.jsonl`` record: what scoring needs without the dataset."""
        keep = ("question_id", "scenario_id", "game", "layout", "question_type", "options")
        return {
            **{k: self.row.get(k) for k in keep},
            "correct": list(self.row["correct"]),
            "question_hash": self.question_hash,
            "prompt_hash": self.prompt_hash,
            "target_hash": self.target_hash,
            "messages": [asdict(m) for m in self.messages],
        }


@dataclass
class _Plan:
    """A configured run before it starts: questions, manifest and directory."""

    config: EvalConfig
    questions: list[QuestionPlan]
    manifest: RunManifest
    out: Path


# -- planning --------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "model"


def _plan(config: EvalConfig) -> _Plan:
    from coordqa.dataset import (
        dataset_fingerprint,
        filter_dataset,
        load_dataset,
        question_hash,
        target_hash,
    )
    from coordqa.prompts import build_messages, prompt_hash

    full = load_dataset(config.dataset)
    fingerprint = dataset_fingerprint(full)
    rows = filter_dataset(full, config.games, config.types, config.limit)
    if len(rows) == 0:
        raise ConfigError(
            f"no questions left after filtering (games={config.games}, types={config.types}, "
            f"limit={config.limit}); widen the filters"
        )
    questions = []
    for row in rows:
        messages = build_messages(row, layout=config.prompt_layout)
        questions.append(
            QuestionPlan(row, messages, question_hash(row), prompt_hash(messages), target_hash(row))
        )
    identity = config.identity()
    versions = sorted({str(q.row.get("version")) for q in questions if q.row.get("version")})
    dataset = DatasetInfo(
        name=config.dataset or "coordinationqa",
        fingerprint=fingerprint,
        version=",".join(versions) or None,
        num_questions=len(questions),
    )
    run_fingerprint = content_hash(
        {
            "config": identity,
            "dataset": fingerprint,
            "questions": [[q.question_hash, q.prompt_hash, q.target_hash] for q in questions],
        }
    )
    out = config.out or (
        DEFAULT_RUNS_DIR / _slug(config.model) / f"{fingerprint[:8]}-{content_hash(identity)[:8]}"
    )
    manifest = RunManifest(
        kind="qa",
        config=identity,
        runtime=config.runtime(),
        dataset=dataset,
        fingerprint=run_fingerprint,
    )
    return _Plan(config, questions, manifest, Path(out))


def default_out(config: EvalConfig) -> Path:
    """The run directory :func:`evaluate` uses for ``config`` (loads the dataset to know it)."""
    return _plan(config).out


# -- outcomes and scoring --------------------------------------------------------------------

_STATUS_OF_OUTCOME = {"chosen": "answered", "ambiguous": "ambiguous", "no_answer": "no_answer"}


def reply_outcome(text: str | None, question: dict[str, Any]) -> dict[str, Any]:
    """Status, correctness and choice of a reply (None text: the call failed)."""
    from coordqa.choices import choose, is_correct

    if text is None:
        return {"status": "error", "correct": False, "choice": None}
    choice = choose(text, list(question["options"]))
    status = _STATUS_OF_OUTCOME[choice.outcome]
    correct = status == "answered" and bool(is_correct(choice, list(question["correct"])))
    return {"status": status, "correct": correct, "choice": choice.to_dict()}


Key = tuple[str, int]


def _key(record: dict[str, Any]) -> Key:
    return str(record["question_id"]), int(record["trial"])


def final_samples(store: RunStore) -> dict[Key, dict[str, Any]]:
    """The outcome of each (question_id, trial): its latest sample (a retry supersedes an error)."""
    return {_key(r): r for r in store.iter_records("samples")}


def _last_calls(store: RunStore) -> dict[Key, dict[str, Any]]:
    return {_key(r): r for r in store.iter_records("calls")}


def score(run: RunStore | str | Path) -> RunAnalysis:
    """Re-score a run's stored replies with the current :mod:`coordqa.choices`; no model calls.

    Rewrites only the derived files ``scores.jsonl`` and ``summary.json``. The outcome of each
    (question, trial) comes from its latest model call: a failed call is an ``error``, a reply
    is mapped to an option again.
    """
    store = run if isinstance(run, RunStore) else open_run(run)
    if store.manifest.kind != "qa":
        raise StoreError(
            f"{store.path} is a {store.manifest.kind!r} run; only QA runs (coordqa eval) are scored"
        )
    questions = {str(q["question_id"]): q for q in store.iter_records("questions")}
    rows = []
    for (question_id, trial), call in sorted(_last_calls(store).items()):
        question = questions.get(question_id)
        if question is None:
            raise StoreError(
                f"{store.path}: calls.jsonl refers to question {question_id!r}, which "
                "questions.jsonl does not hold; the run directory is incomplete"
            )
        outcome = reply_outcome(call.get("text"), question)
        rows.append(
            {
                "question_id": question_id,
                "scenario_id": question["scenario_id"],
                "game": question["game"],
                "question_type": question["question_type"],
                "trial": trial,
                "status": outcome["status"],
                "correct": outcome["correct"],
                "choice": outcome["choice"],
                "n_options": len(question["options"]),
                "n_correct": len(question["correct"]),
            }
        )
    store.write_jsonl(SCORES_FILE, rows)
    analysis = analyze_run(store)
    store.write_json(SUMMARY_FILE, analysis.to_json())
    return analysis


# -- running ---------------------------------------------------------------------------------


@dataclass
class _Session:
    """Mutable state of one evaluation session (one process)."""

    store: RunStore
    config: EvalConfig
    total: int
    resumed: int
    progress: ProgressCallback | None
    started: float = field(default_factory=time.monotonic)
    new_samples: int = 0
    calls: int = 0
    errors: int = 0
    usage: Usage = field(default_factory=Usage)

    def report(self) -> None:
        if self.progress is not None:
            self.progress(
                EvalProgress(
                    run_dir=self.store.path,
                    total=self.total,
                    done=self.resumed + self.new_samples,
                    resumed=self.resumed,
                    calls=self.calls,
                    errors=self.errors,
                    usage=self.usage,
                    elapsed_s=time.monotonic() - self.started,
                )
            )

    def sample(
        self, question: QuestionPlan, trial: int, call: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The sample record of (question, trial) from its call record."""
        return {
            "question_id": question.question_id,
            "trial": trial,
            **reply_outcome(call.get("text") if call else None, question.record()),
            "error": call.get("error") if call else None,
            "question_hash": question.question_hash,
            "prompt_hash": question.prompt_hash,
            "target_hash": question.target_hash,
        }

    def count(self, sample: dict[str, Any]) -> None:
        """Account for a stored sample and report progress."""
        self.new_samples += 1
        self.errors += sample["status"] == "error"
        self.report()


def _call_record(question: QuestionPlan, trial: int, reply: Reply) -> dict[str, Any]:
    return {
        "question_id": question.question_id,
        "trial": trial,
        "prompt_hash": question.prompt_hash,
        "text": reply.text if reply.ok else None,
        "error": None if reply.ok else (reply.error or "no reply text"),
        "prompt_tokens": reply.usage.prompt_tokens,
        "completion_tokens": reply.usage.completion_tokens,
        "cost": reply.usage.cost,
        "latency_s": round(reply.latency_s, 6),
        "attempts": reply.attempts,
        "cached": reply.cached,
        "model": reply.model,
        "time": datetime.now(timezone.utc).isoformat(),
    }


async def _ask(session: _Session, model: Any, question: QuestionPlan, trial: int) -> None:
    """One (question, trial): call the model, then store the call and the sample."""
    reply: Reply = await model.generate(
        question.messages, session.config.generate_config(trial), trial=trial, role=ROLE
    )
    call = _call_record(question, trial, reply)
    sample = session.sample(question, trial, call)
    await session.store.append_async("calls", call)
    session.calls += 1
    session.usage = session.usage + reply.usage
    await session.store.append_async("samples", sample)
    session.count(sample)


async def _run_pending(
    session: _Session, model: Any, pending: Sequence[tuple[QuestionPlan, int]]
) -> None:
    """Ask every pending (question, trial) with at most ``policy.concurrency`` in flight."""
    import anyio

    work: Iterator[tuple[QuestionPlan, int]] = iter(pending)

    async def worker() -> None:
        for question, trial in work:
            await _ask(session, model, question, trial)

    workers = min(session.config.policy.concurrency, len(pending))
    async with anyio.create_task_group() as group:
        for _ in range(workers):
            group.start_soon(worker)


def _prepare(store: RunStore, plan: _Plan, session: _Session) -> list[tuple[QuestionPlan, int]]:
    """Record new questions, recover orphan calls, and list the (question, trial) still to ask."""
    known = {str(q["question_id"]) for q in store.iter_records("questions")}
    for question in plan.questions:
        if question.question_id not in known:
            store.append("questions", question.record())
    samples = final_samples(store)
    calls = _last_calls(store)
    pending = []
    for question in plan.questions:
        for trial in range(plan.config.trials):
            key = (question.question_id, trial)
            sample = samples.get(key)
            if sample is not None and sample["status"] != "error":
                continue
            call = calls.get(key)
            if call is not None and call.get("text") is not None and sample is None:
                sample = session.sample(question, trial, call)  # the call finished, its
                store.append("samples", sample)  # sample was not written: no new call
                session.count(sample)
                continue
            pending.append((question, trial))
    return pending


async def evaluate_async(
    config: EvalConfig, *, progress: ProgressCallback | None = None
) -> RunResult:
    """Run (or resume) a QA evaluation; see :func:`evaluate`."""
    return await _execute(_plan(config), progress)


async def _execute(plan: _Plan, progress: ProgressCallback | None) -> RunResult:
    from coordqa.llm import get_model

    config = plan.config
    model = get_model(
        config.model,
        api_base=config.api_base,
        policy=config.policy,
        cache="default" if config.cache else None,
    )
    model.check()
    store = RunStore.open_or_create(plan.out, plan.manifest)
    try:
        total = len(plan.questions) * config.trials
        done_before = sum(s["status"] != "error" for s in final_samples(store).values())
        session = _Session(store, config, total, done_before, progress)
        pending = _prepare(store, plan, session)
        store.mark_started()
        session.started = time.monotonic()
        session.report()
        try:
            if pending:
                await _run_pending(session, model, pending)
        except (asyncio.CancelledError, KeyboardInterrupt):
            store.mark_interrupted()
            score(store)
            raise
        analysis = score(store)
        if analysis.complete:
            store.mark_finished()
        return RunResult(
            store.path,
            store.manifest,
            analysis,
            session.usage,
            session.new_samples,
            session.resumed,
        )
    finally:
        store.close()


def _inside_event_loop() -> bool:
    """Whether this thread is running an asyncio loop (``asyncio.run`` would then fail)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def evaluate(config: EvalConfig, *, progress: ProgressCallback | None = None) -> RunResult:
    """Run (or resume) a QA evaluation and return its analysis.

    Calls ``model.check()`` before anything is sent, writes every call and sample as it
    happens, and scores the run at the end. Running the same configuration again resumes it:
    answered (question, trial) pairs are skipped and error samples are retried.

    Raises:
        EvalInterrupted: on Ctrl-C; everything answered so far is stored, and the same call
            resumes the run.
    """
    if _inside_event_loop():
        raise ConfigError("evaluate() cannot run inside an event loop; use await evaluate_async()")
    plan = _plan(config)
    try:
        return asyncio.run(_execute(plan, progress))
    except KeyboardInterrupt:
        stored = _answered(plan.out)
        total = len(plan.questions) * config.trials
        raise EvalInterrupted(
            f"interrupted: {stored} of {total} samples are answered and stored in {plan.out}. "
            "Run the same command again to resume."
        ) from None


def _answered(run_dir: Path) -> int:
    """Non-error samples stored in ``run_dir`` (0 when the run was never created)."""
    if not (run_dir / "manifest.json").exists():
        return 0
    return sum(s["status"] != "error" for s in final_samples(open_run(run_dir)).values())
