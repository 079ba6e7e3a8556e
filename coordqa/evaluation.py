"""A CoordinationQA run: questions x trials -> prompts -> model -> choices -> outcomes -> run store.

:func:`evaluate` (or ``await evaluate_async``) does the same thing as ``coordqa eval`` and leaves
the same run directory. What a run directory holds (see :mod:`coordqa.store`):

- ``questions.jsonl``: each question once: ids, game, type, options, answer key, the chat
  messages sent, and the question / prompt / answer-key hashes;
- ``calls.jsonl``: every model call (:class:`coordqa.records.QACall`): the key (question_id,
  trial), the prompt hash (a reference to the messages in ``questions.jsonl``), reply text or
  error, usage (tokens, cost), latency, attempts, whether it came from the cache. A call that
  failed after its retries is an ``error`` outcome, never scored as an answer, and is asked again
  when the run is resumed; the later call supersedes it;
- ``scores.jsonl`` and ``summary.json``: derived, rewritten by :func:`score` from the stored
  calls with the current :mod:`coordqa.scoring`, without calling any model: the outcome of each
  (question, trial) (:class:`coordqa.records.Sample`: ``answered`` with ``correct``,
  ``ambiguous``, ``no_answer`` or ``error``) and the accuracy tables.

Resuming: running the same configuration again (same ``out``) skips every (question, trial)
whose latest call has a reply. Read runs with :func:`coordqa.store.read_qa_run`.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coordqa.dataset import Row
from coordqa.errors import ConfigError, RunFailed, RunInterrupted
from coordqa.eval_config import EvalConfig
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.llm import (
    Message,
    Model,
    Reply,
    Usage,
    UsageLedger,
    UsageTotals,
)
from coordqa.llm.call_names import naming_calls
from coordqa.llm.ledger import totals_of
from coordqa.records import QACall, Question
from coordqa.runs import (
    ErrorWatch,
    RunLifecycle,
    Tally,
    check_reachable,
    check_served,
    fewer_than_stored,
    run_to_end,
    say_if_moved,
)
from coordqa.store import (
    CALLS,
    MANIFEST,
    QUESTIONS,
    SCORES_FILE,
    SUMMARY_FILE,
    DatasetInfo,
    QARun,
    RunManifest,
    RunStore,
    check_resumable,
    open_run,
    open_to_write,
    read_qa_run,
)
from coordqa.store.manifest import session_command

if TYPE_CHECKING:
    from coordqa.analysis import RunAnalysis

__all__ = [
    "EvalConfig",
    "EvalFailed",
    "EvalInterrupted",
    "EvalProgress",
    "RunResult",
    "evaluate",
    "evaluate_async",
    "score",
]

DEFAULT_RUNS_DIR = Path("runs")
ROLE = "qa"
"""Usage role under which QA calls are recorded by the gateway."""


EvalInterrupted = RunInterrupted
"""A QA run stopped by Ctrl-C or SIGTERM: the one interruption of every kind of run."""


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
    calls: UsageTotals
    """This session's model calls: requests sent, cache hits, failures, tokens and cost spent
    (cache hits spend nothing)."""
    errors: int
    """Error samples stored in this session."""
    elapsed_s: float
    """Seconds since this session started sending."""
    new_error: str | None = None
    """Set on the snapshot of the first error sample of its kind in this session: the error."""
    dropped_params: tuple[str, ...] = ()
    """Parameters the provider does not take, left out of every request (also recorded in the
    manifest's ``runtime["dropped_params"]``; None there when every reply came from the cache
    and the model was not checked)."""
    call: QACall | None = None
    """The call just stored, on the snapshot that follows it (``coordqa eval --verbose`` shows
    it with its reading); None on the others."""
    question: Question | None = None
    """The question of :attr:`call` (its options and answer key, to read the reply)."""


EvalProgressCallback = Callable[[EvalProgress], None]


@dataclass
class RunResult:
    """What :func:`evaluate` returns."""

    run_dir: Path
    """The run directory."""
    manifest: RunManifest
    """The run's manifest after this session."""
    analysis: RunAnalysis
    """Accuracy tables and outcome counts of the whole run."""
    calls: UsageTotals
    """This session's model calls: requests sent, cache hits, failures, tokens and cost spent."""
    run_calls: UsageTotals
    """The same counts over every call stored in the run directory, all sessions included."""
    new_samples: int
    """Samples stored by this session."""
    resumed_samples: int
    """Samples that were already stored when this session started."""

    @property
    def error_rate(self) -> float:
        """Error samples over the samples the run needs."""
        return error_rate(self.analysis)

    def to_json(self) -> JSONObject:
        """A machine-readable summary: status, sample and call counts, and the accuracies."""
        whole_run = run_json(self.run_dir, self.manifest, self.analysis)
        summary = whole_run.pop("summary")
        return {
            **whole_run,
            "samples": {
                "new": self.new_samples,
                "resumed": self.resumed_samples,
                "expected": self.analysis.expected_samples,
            },
            "calls": {"session": self.calls.to_json(), "run": self.run_calls.to_json()},
            "dropped_params": self.manifest.runtime.get("dropped_params"),
            "summary": summary,
        }


def error_rate(analysis: RunAnalysis) -> float:
    """Error samples over the samples the run needs (stored ones when it does not say)."""
    expected = analysis.expected_samples or analysis.stored_samples
    return analysis.errors / expected if expected else 0.0


def run_json(run_dir: Path, manifest: RunManifest, analysis: RunAnalysis) -> JSONObject:
    """What a run's JSON summary says of the whole run, whichever session wrote it.

    ``coordqa eval --json`` adds its session's counts (:meth:`RunResult.to_json`);
    ``coordqa score --json`` prints it as it is: one shape for both. Its ``dataset`` says the
    release's own count (``release_questions``, beside its fingerprint and version) and the
    run's (``questions_asked``): ``num_questions: 12`` alone there read as a release of 12
    (walkthrough 16, R8); ``num_questions`` stays, the run's, for readers written before.
    """
    dataset = manifest.dataset
    return {
        "run_dir": str(run_dir),
        "label": manifest.label,
        "dataset": (
            None
            if dataset is None
            else {**dataset.model_dump(mode="json"), "questions_asked": dataset.num_questions}
        ),
        "status": manifest.status,
        "error_rate": error_rate(analysis),
        "summary": analysis.to_json(),
    }


EvalFailed = RunFailed
"""A QA run stopped on an error every call would meet, or ended with more error samples than
``max_error_rate`` allows: the one failure of every kind of run. Everything answered is stored,
rerunning resumes; ``.result`` is the scored :class:`RunResult` when the session got to its end
(was not stopped)."""


@dataclass(frozen=True)
class QuestionPlan:
    """One question, ready to send."""

    row: Row
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

    def record(self) -> Question:
        """The ``questions.jsonl`` record: what scoring needs without the dataset."""
        return Question(
            question_id=self.question_id,
            scenario_id=str(self.row["scenario_id"]),
            game=str(self.row["game"]),
            layout=self.row.get("layout"),
            question_type=str(self.row["question_type"]),
            options=[str(option) for option in self.row["options"]],
            correct=[int(index) for index in self.row["correct"]],
            question_hash=self.question_hash,
            prompt_hash=self.prompt_hash,
            target_hash=self.target_hash,
            messages=list(self.messages),
        )


@dataclass
class _Plan:
    """A configured run before it starts: questions, manifest and directory."""

    config: EvalConfig
    questions: list[QuestionPlan]
    manifest: RunManifest
    out: Path
    dataset_fingerprint: str

    @property
    def samples(self) -> int:
        """Samples the run needs: its questions x trials (:attr:`EvalProgress.total`)."""
        return len(self.questions) * self.config.trials


# -- planning --------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", text).strip("-.") or "model"


def _plan(config: EvalConfig) -> _Plan:
    from coordqa.dataset import (
        dataset_fingerprint,
        dataset_name,
        filter_rows,
        load_rows,
        question_hash,
        target_hash,
    )
    from coordqa.prompts import build_messages, prompt_hash

    full = load_rows(config.dataset)  # plain rows: importing `datasets` costs a second
    fingerprint = dataset_fingerprint(full)
    rows = filter_rows(
        full,
        config.games,
        config.types,
        config.limit,
        ids=config.ids,
        sample=config.sample,
        seed=config.sample_seed,
        source=dataset_name(config.dataset),
    )
    if len(rows) == 0:
        raise ConfigError(
            f"no question of {dataset_name(config.dataset)} is left after the filters "
            f"{describe_selection(config)}; widen them"
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
        name=dataset_name(config.dataset),
        fingerprint=fingerprint,
        version=",".join(versions) or None,
        num_questions=len(questions),
        release_questions=len(full),
    )
    run_fingerprint = _run_fingerprint(identity, fingerprint, questions)
    out = config.out or _default_run_dir(config, dataset.name, fingerprint)
    manifest = RunManifest(
        kind="qa",
        config=identity,
        runtime=config.runtime(),
        dataset=dataset,
        fingerprint=run_fingerprint,
        label=config.label,
    )
    return _Plan(config, questions, manifest, Path(out), fingerprint)


RESUME_MAY_CHANGE = ("api_base", "trials")
"""Settings a resumed run may change: where the model is served (servers move between cluster
jobs), and the number of trials, upwards (the new trials are added, the old ones kept)."""


def describe_selection(config: EvalConfig) -> str:
    """The question filters of ``config`` as flags: ``--games hanabi --limit 40``.

    >>> describe_selection(EvalConfig(model="random", games=("hanabi",), limit=40))
    '--games hanabi --limit 40'
    """
    parts = [
        f"--{name} {','.join(value)}"
        for name, value in (("games", config.games), ("types", config.types), ("ids", config.ids))
        if value
    ]
    if config.sample is not None:
        parts.append(f"--sample {config.sample} --sample-seed {config.sample_seed}")
    if config.limit is not None:
        parts.append(f"--limit {config.limit}")
    return " ".join(parts) or "(none)"


def _run_fingerprint(
    identity: JSONObject, dataset_fingerprint: str, questions: Sequence[QuestionPlan]
) -> str:
    """Hash of the configuration, the dataset and every question, prompt and answer key."""
    return content_hash(
        {
            "config": identity,
            "dataset": dataset_fingerprint,
            "questions": [[q.question_hash, q.prompt_hash, q.target_hash] for q in questions],
        }
    )


def run_name(
    config: EvalConfig,
    dataset: str,
    fingerprint: str,
    *,
    counted: bool = True,
    former: bool = False,
) -> str:
    """A run directory name a person can read: model, dataset, key options, short hash.

    ``openai-gpt-4o_coordinationqa-v1.1_EC+JP_first20_2c41f9a0``: the options named are only
    those that differ from the defaults (games, types, ids, sample, limit, seed, sampling
    parameters, prompt layout, trials); the hash covers the dataset fingerprint and every
    setting that changes results, so two different runs never share a name. The endpoint is
    left out: the same command with another ``--api-base`` continues the same run. The trials
    are named and hashed only when they are not the default (so a default run keeps the name it
    had before they were), and not at all with ``counted=False`` (an eval set's member, whose
    set raises its trials in place): a run of other trials gets a default folder of its own,
    and costs only its new trials where replies are cached (the cache is keyed by trial).

    A dataset given as a path is named by its folder's or file's own name; a folder's
    ``data.parquet`` (every saved dataset's file) by its folder's, as the folder given names it
    (walkthrough 23b, R8). ``former``: the name versions before gave it, by the file's stem
    (``random_data_...``), which :func:`_default_run_dir` and eval sets still find and resume.
    """
    parts = [_slug(config.model), _slug(_dataset_word(dataset, former=former))]
    if config.games:
        parts.append("+".join(sorted(config.games)))
    if config.types:
        parts.append("+".join(sorted(config.types)))
    if config.ids:
        parts.append(f"ids{len(config.ids)}")
    if config.sample is not None:
        parts.append(f"sample{config.sample}s{config.sample_seed}")
    if config.limit is not None:
        parts.append(f"first{config.limit}")
    defaults = EvalConfig(model=config.model)
    for name, label in (
        ("seed", "seed"),
        ("temperature", "temp"),
        ("top_p", "topp"),
        ("max_tokens", "maxtok"),
    ):
        value = getattr(config, name)
        if value != getattr(defaults, name):
            parts.append(f"{label}{value}")
    if config.prompt_layout != defaults.prompt_layout:
        parts.append(_slug(config.prompt_layout))
    hashed: JSONObject = {"config": _fixed_settings(config), "dataset": fingerprint}
    if counted and config.trials != defaults.trials:
        parts.append(f"trials{config.trials}")
        hashed["trials"] = config.trials
    digest = content_hash(hashed)[:8]
    return "_".join([*(_slug(part) for part in parts), digest])


def _dataset_word(dataset: str, *, former: bool = False) -> str:
    """The dataset as a run's name says it: a bundled name, else the path's own name."""
    from coordqa.dataset import DATA_FILE
    from coordqa.dataset.releases import is_bundled

    if is_bundled(dataset):
        return dataset
    path = Path(dataset).resolve()  # however typed: ``fresh``, ``./fresh/``, an absolute path
    if path.name == DATA_FILE and not former and path.parent.stem:
        return path.parent.stem  # named as the folder given itself is
    return path.stem


def _default_run_dir(config: EvalConfig, dataset: str, fingerprint: str) -> Path:
    """The run folder under ``runs/`` of ``config``: :func:`run_name`'s, or its former one.

    The former name (:func:`run_name`'s ``former``) where only that folder holds a run: a run
    made before the name changed is found and resumed, not redone beside it.
    """
    new = DEFAULT_RUNS_DIR / run_name(config, dataset, fingerprint)
    old = DEFAULT_RUNS_DIR / run_name(config, dataset, fingerprint, former=True)
    return old if not new.exists() and (old / MANIFEST).is_file() else new


def _fixed_settings(config: EvalConfig) -> JSONObject:
    """The settings a run keeps for life: its identity less :data:`RESUME_MAY_CHANGE`."""
    return {k: v for k, v in config.identity().items() if k not in RESUME_MAY_CHANGE}


def reply_settings(config: EvalConfig) -> str:
    """The hash each stored call carries of the settings that shaped its reply.

    The model, sampling parameters, model arguments, prompt layout and question selection
    (:func:`_fixed_settings`): a resumed run counts a stored call only when it carries its own
    hash, so calls copied in from another run are asked again instead of being adopted.
    """
    return content_hash(_fixed_settings(config))[:16]


def default_out(config: EvalConfig) -> Path:
    """The run directory :func:`evaluate` uses for ``config`` (loads the dataset to know it)."""
    return _plan(config).out


def set_member_run(config: EvalConfig) -> tuple[str, str, int, str]:
    """``config``'s run as a member of an eval set: its key, new folder's name, samples, old key.

    The old key is the one versions before gave it (:func:`run_name`'s ``former``; most often
    the key itself), by which a set written then recorded the member.

    The key is :func:`run_name` without the trials: the member whatever trials the set asks
    for, as it raises them in place (and the folder name sets gave members before). A new
    member's folder is named as ``coordqa eval`` names the run; the set records it, and keeps
    it as its trials change. The samples are those its run needs (:attr:`EvalProgress.total`),
    so the set's progress knows its total before any member runs. Loads the dataset once.
    """
    plan = _plan(config)
    dataset = plan.manifest.dataset
    name = dataset.name if dataset is not None else str(config.dataset)
    fingerprint = plan.dataset_fingerprint
    key = run_name(config, name, fingerprint, counted=False)
    former = run_name(config, name, fingerprint, counted=False, former=True)
    return key, run_name(config, name, fingerprint), plan.samples, former


# -- scoring -------------------------------------------------------------------------------


def score(run: RunStore | str | Path) -> RunAnalysis:
    """Re-score a run's stored replies with the current :mod:`coordqa.scoring`; no model calls.

    Rewrites only the derived files ``scores.jsonl`` and ``summary.json``. The outcome of each
    (question, trial) comes from its latest model call: a failed call is an ``error``, a reply
    is mapped to an option again.
    """
    from coordqa.analysis import analyze_run  # pandas: after the calls, never before

    reader = read_qa_run(run)
    samples = reader.score()
    reader.store.write_jsonl(SCORES_FILE, [sample.to_json() for sample in samples])
    analysis = analyze_run(reader)
    reader.store.write_json(SUMMARY_FILE, analysis.to_json())
    return analysis


# -- running ---------------------------------------------------------------------------------


@dataclass
class _Session:
    """Mutable state of one evaluation session (one process)."""

    store: RunStore
    config: EvalConfig
    total: int
    resumed: int
    progress: EvalProgressCallback | None
    ledger: UsageLedger
    watch: ErrorWatch
    """Errors seen, the first of each kind, and the one that stopped the run."""
    started: float = field(default_factory=time.monotonic)
    new_samples: int = 0
    cancel: Callable[[], None] | None = None
    """Cancels the calls in flight."""
    dropped_params: tuple[str, ...] = ()
    """Parameters the provider drops from this session's requests."""
    settings: str | None = None
    """:func:`reply_settings` of the run, stored with each call."""

    def report(
        self,
        new_error: str | None = None,
        call: QACall | None = None,
        question: Question | None = None,
    ) -> None:
        if self.progress is not None:
            self.progress(
                EvalProgress(
                    run_dir=self.store.path,
                    total=self.total,
                    done=self.resumed + self.new_samples,
                    resumed=self.resumed,
                    calls=self.ledger.total(),
                    errors=self.watch.errors,
                    elapsed_s=time.monotonic() - self.started,
                    new_error=new_error,
                    dropped_params=self.dropped_params,
                    call=call,
                    question=question,
                )
            )

    def count(self, call: QACall, question: Question) -> None:
        """Account for a stored call (a new sample); report progress and new kinds of error."""
        self.new_samples += 1
        new_error = None if call.ok else self.watch.note(call.error or "no reply text")
        self.report(new_error, call, question)

    def stop(self) -> None:
        """Cancel the calls in flight (once the stopping reply is stored)."""
        if self.cancel is not None:
            self.cancel()


def _stored_totals(call: QACall) -> UsageTotals:
    """A stored call, counted by the ledger's one rule (:func:`coordqa.llm.ledger.totals_of`)."""
    spent = Usage(
        call.usage.prompt_tokens,
        call.usage.completion_tokens,
        call.usage.cost,
        calls=int(call.ok),
        implausible_counts=int(call.usage.implausible),
    )
    reply = Reply(call.text, call.error, usage=spent, attempts=call.attempts, cached=call.cached)
    return totals_of(reply)


def run_totals(run: QARun) -> UsageTotals:
    """Requests, cache hits, failures, tokens and cost over every call stored in a run."""
    return sum((_stored_totals(call) for call in run.calls()), UsageTotals())


async def _ask(session: _Session, model: Model, question: QuestionPlan, trial: int) -> None:
    """One (question, trial): call the model and store the call (the sample is derived)."""
    with naming_calls(f"{question.question_id} trial {trial}"):
        reply: Reply = await model.generate(
            question.messages, session.config.generate_config(trial), trial=trial, role=ROLE
        )
    stopping = not reply.ok and session.watch.stopping(str(reply.error), reply.error_kind)
    call = QACall.of(question.question_id, trial, question.prompt_hash, reply, session.settings)
    await session.store.append_record_async(CALLS, call)
    session.count(call, question.record())
    if stopping:
        session.stop()


async def _run_pending(
    session: _Session, model: Model, pending: Sequence[tuple[QuestionPlan, int]]
) -> None:
    """Ask every pending (question, trial) with at most ``policy.concurrency`` in flight.

    Returns early, with the calls in flight cancelled, when a reply stops the run.
    """
    import anyio

    work: Iterator[tuple[QuestionPlan, int]] = iter(pending)

    async def worker() -> None:
        for question, trial in work:
            if session.watch.stopped_by is not None:
                return
            await _ask(session, model, question, trial)

    workers = min(session.config.policy.concurrency, len(pending))
    async with anyio.create_task_group() as group:
        session.cancel = group.cancel_scope.cancel
        for _ in range(workers):
            group.start_soon(worker)


def _answered_keys(store: RunStore, plan: _Plan) -> set[tuple[str, int]]:
    """The (question_id, trial) pairs whose latest call answered the plan's question (skipped).

    A call counts only when the run's model made it with the run's settings
    (:func:`reply_settings`) on the prompt the plan sends: a call of another model, with other
    parameters or on another prompt (records copied between folders, a manifest restored from
    another run) is asked again. Calls stored before the settings were kept are matched on
    their model and prompt.
    """
    prompts = {question.question_id: question.prompt_hash for question in plan.questions}
    settings = _own_settings(plan, store.manifest)
    return {
        key
        for key, call in read_qa_run(store).last_calls().items()
        if call.ok
        and call.model in ("", plan.config.model)
        and prompts.get(call.question_id) == call.prompt_hash
        and (call.settings is None or call.settings in settings)
    }


def _own_settings(plan: _Plan, stored: RunManifest) -> set[str]:
    """:func:`reply_settings` of the plan, and as it was with its dataset spelled as stored.

    Runs stored ``--dataset coordinationqa`` as spelled, a local dataset's path as typed, and
    the default as no dataset (:func:`_other_spelling`); their calls are the run's own.
    """
    from coordqa.dataset.releases import ALIASES

    config = plan.config
    fixed = _fixed_settings(config)
    spellings: set[str | None] = {a for a, name in ALIASES.items() if name == config.dataset}
    spelled = stored.config.get("dataset")
    if _other_spelling(spelled, plan, stored):
        spellings.add(spelled)
    return {reply_settings(config)} | {
        content_hash({**fixed, "dataset": spelling})[:16] for spelling in spellings
    }


def _stored_answers(plan: _Plan) -> set[tuple[str, int]]:
    """:func:`_answered_keys` of the plan's run read without the writer's lock (empty: no run)."""
    if not (plan.out / MANIFEST).exists():
        return set()
    return _answered_keys(open_to_write(plan.out), plan)


def _pending(plan: _Plan, answered: set[tuple[str, int]]) -> list[tuple[QuestionPlan, int]]:
    """The (question, trial) pairs of the plan still to ask."""
    return [
        (question, trial)
        for question in plan.questions
        for trial in range(plan.config.trials)
        if (question.question_id, trial) not in answered
    ]


def _record_questions(store: RunStore, plan: _Plan) -> None:
    """Store the questions the run does not hold yet."""
    known = read_qa_run(store).questions()
    new = [question.record() for question in plan.questions if question.question_id not in known]
    store.append_records(QUESTIONS, new)


def _check_unless_cached(model: Model, plan: _Plan) -> bool:
    """Probe ``--api-base`` and ``model.check()`` unless every reply is cached; whether they ran.

    Checked before anything is stored, so a missing key or a dead or hung server leaves no run
    directory behind; skipped for a fully cached run, which then never imports litellm.
    """
    config = plan.config
    for question, trial in _pending(plan, _stored_answers(plan)):
        if not model.in_cache(question.messages, config.generate_config(trial), trial=trial):
            # seconds, where the key check imports litellm
            check_reachable(config.api_base, config.policy.timeout_s)
            check_served(config.api_base, config.model, config.api_key(), config.model_given_at)
            model.check()
            return True
    return False


def _say_if_moved(plan: _Plan, stored: RunManifest) -> None:
    """Say, before any call, that answers from another endpoint will join the stored ones.

    Only for a run that holds answers and has samples to ask: otherwise nothing is mixed
    (:func:`~coordqa.runs.moved.say_if_moved`). ``stored``: :func:`_as_stored`'s manifest.
    """
    answered = _stored_answers(plan)
    if not answered or not _pending(plan, answered):
        return
    endpoint = stored.config.get("api_base")
    say_if_moved(
        str(plan.out), endpoint if isinstance(endpoint, str) else None, plan.config.api_base
    )


async def evaluate_async(
    config: EvalConfig, *, progress: EvalProgressCallback | None = None
) -> RunResult:
    """Run (or resume) a QA evaluation; see :func:`evaluate`."""
    return await _execute(_plan(config), progress)


def _as_stored(plan: _Plan) -> RunManifest:
    """The plan's manifest as the run at ``plan.out`` stores it, if one is there.

    That is, with the stored :data:`RESUME_MAY_CHANGE` settings, so that resuming with another
    endpoint or more trials matches; the new settings are written once the run is open.

    The run's identity (model, dataset, settings: all but those) is checked first, so a folder
    holding another run is said to be one, in its own terms, before any advice on its count.

    Raises:
        StoreError: the stored run is another run (:func:`~coordqa.store.check_resumable`).
        ConfigError: the stored run is this one, with more trials than asked for.
    """
    if not (plan.out / MANIFEST).exists():
        return plan.manifest
    run = open_to_write(plan.out)
    stored = run.manifest.config
    config = _spelled_as_stored(plan, run.manifest)
    config.update({key: stored[key] for key in RESUME_MAY_CHANGE if key in stored})
    fingerprint = _run_fingerprint(config, plan.dataset_fingerprint, plan.questions)
    adopted = plan.manifest.model_copy(update={"config": config, "fingerprint": fingerprint})
    check_resumable(plan.out, run.manifest, adopted)
    trials = stored.get("trials")
    if isinstance(trials, int) and trials > plan.config.trials:
        # A run whose calls all failed (whatever their settings) loses nothing by starting over.
        answered = any(call.ok for call in read_qa_run(run).last_calls().values())
        raise ConfigError(
            fewer_than_stored(
                plan.out,
                trials,
                plan.config.trials,
                flag="--trials",
                units="trials",
                started=answered,
                nothing="no sample answered yet",
            )
        )
    return adopted


def _spelled_as_stored(plan: _Plan, stored: RunManifest) -> JSONObject:
    """The plan's run settings, its dataset as ``stored`` spells it where that is the same one.

    A run stored with another spelling of its dataset (:func:`_other_spelling`) keeps it: its
    fingerprint, folder name and calls' settings (:func:`reply_settings`) were made with it.
    """
    config = {**plan.manifest.config}
    spelled = stored.config.get("dataset")
    if _other_spelling(spelled, plan, stored):
        config["dataset"] = spelled
    return config


def _other_spelling(spelled: object, plan: _Plan, stored: RunManifest) -> bool:
    """Whether a run's stored ``dataset`` setting is the plan's dataset, spelled another way.

    A dataset is its content: the run's recorded dataset fingerprint is the plan's. Then every
    spelling is one run: no ``--dataset`` (stored None, the default of its day), the release's
    name, an alias (runs stored it as typed: ``coordinationqa``), so a run made without
    ``--dataset`` resumes under the name of the release it measured, also once a newer release
    is the default (walkthrough 19 #19, #20); a local dataset's path as runs stored it
    (``fresh/``, now :data:`~coordqa.dataset.releases.LOCAL`); and a local copy of a release
    (``coordqa dataset build``'s folder or its ``data.parquet``) for the release, and the other
    way (walkthrough 23, item 2: refused with ``dataset: stored none, requested '(local)'``).
    The run's fingerprint still covers every question, prompt and answer key.
    """
    dataset = plan.manifest.config["dataset"]
    recorded = stored.dataset.fingerprint if stored.dataset else None
    return spelled != dataset and recorded == plan.dataset_fingerprint


async def _execute(plan: _Plan, progress: EvalProgressCallback | None) -> RunResult:
    from coordqa.llm import get_model
    from coordqa.llm.registry import (
        refuse_a_policy_timeout,
        refuse_a_question_model,
        refuse_a_transport,
        refuse_an_endpoint,
        refuse_unread_model_args,
    )

    config = plan.config
    refuse_unread_model_args(config.model, config.model_args, setting="model_args")
    key_setting = "api_key_secret" if config.api_key_secret is not None else "api_key_env"
    refuse_an_endpoint(
        config.model,
        config.api_base,
        key_given=config.api_key_secret is not None or config.api_key_env is not None,
        settings=("api_base", key_setting),
    )
    refuse_a_question_model(config.model)
    refuse_a_transport([config.model], config.transport, setting="transport")
    refuse_a_policy_timeout(config.model, config.policy)
    ledger = UsageLedger()
    model = get_model(
        config.model,
        api_base=config.api_base,
        api_key=config.api_key(),
        policy=config.policy,
        cache="default" if config.cache else None,
        ledger=ledger,
        transport=config.transport,
    )
    manifest = _as_stored(plan)  # a folder holding another run is refused before any call
    _say_if_moved(plan, manifest)
    dropped = None
    if _check_unless_cached(model, plan):
        dropped = model.dropped_params(config.generate_config(0))
    runtime = {**manifest.runtime, "dropped_params": dropped, "transport": model.transport}
    with RunLifecycle.open(plan.out, manifest.model_copy(update={"runtime": runtime})) as run:
        store = run.store
        total = plan.samples
        _record_questions(store, plan)
        answered = _answered_keys(store, plan)
        watch = ErrorWatch(
            config.model,
            config.api_base,
            config.max_error_rate,
            replies_capped=config.max_tokens is not None,
        )
        session = _Session(store, config, total, len(answered), progress, ledger, watch)
        session.dropped_params = tuple(dropped or ())
        session.settings = reply_settings(config)
        pending = _pending(plan, answered)
        _adopt_settings(store, plan, bool(pending))
        with run.session(on_interrupt=lambda: score(store)):
            session.started = time.monotonic()
            session.report()
            try:
                if pending:
                    await _run_pending(session, model, pending)
            finally:
                await model.aclose()
        analysis = score(store)
        result = RunResult(
            store.path,
            store.manifest,
            analysis,
            ledger.total(),
            run_totals(read_qa_run(store)),
            session.new_samples,
            session.resumed,
        )
        failure = _failure(session, result)
        if failure is not None:
            error = run.failed(failure, None if watch.stopped_by else result, watch)
            result.manifest = store.manifest
            raise error
        run.finish()
        result.manifest = store.manifest
        return result


def _adopt_settings(store: RunStore, plan: _Plan, sending: bool) -> None:
    """Record this session's label, and its endpoint and trials when it sends calls.

    A session with nothing to ask (every sample answered) leaves the stored endpoint alone: the
    replies came from there, and the manifest's ``command`` still names it. One that sends
    calls records the new settings together with its own command line, so the two agree.
    """
    changes: dict[str, Any] = {}
    config = _spelled_as_stored(plan, store.manifest)
    if sending and store.manifest.config != config:
        changes.update(
            config=config,
            fingerprint=_run_fingerprint(config, plan.dataset_fingerprint, plan.questions),
            command=session_command(),
        )
    if plan.config.label is not None and store.manifest.label != plan.config.label:
        changes["label"] = plan.config.label
    if changes:
        store.update_manifest(**changes)


def _failure(session: _Session, result: RunResult) -> str | None:
    """Why the session counts as failed (None: it did not)."""
    analysis = result.analysis
    tally = Tally(
        unit="samples",
        done="answered",
        stored=analysis.stored_samples - analysis.errors,
        total=session.total,
        errors=analysis.errors,
        run_dir=result.run_dir,
        errors_file=f"{CALLS}.jsonl",
    )
    return session.watch.failure(tally)


def _inside_event_loop() -> bool:
    """Whether this thread is running an asyncio loop (``asyncio.run`` would then fail)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def evaluate(config: EvalConfig, *, progress: EvalProgressCallback | None = None) -> RunResult:
    """Run (or resume) a QA evaluation and return its analysis.

    Calls ``model.check()`` before anything is sent (not needed, and litellm not imported, when
    the response cache holds every reply the run needs), writes every call as it happens, and
    scores the run at the end. Running the same configuration again resumes it:
    answered (question, trial) pairs are skipped and error samples are retried.

    Raises:
        EvalFailed: a refused key, model or parameter, or an unreachable server, stopped the
            run; or more than ``config.max_error_rate`` of its samples are errors. Everything
            answered is stored (``.result`` holds the scored run when the session ended), and
            the same call resumes the run.
        EvalInterrupted: on Ctrl-C or SIGTERM; everything answered so far is stored, and the
            same call resumes the run.
    """
    if _inside_event_loop():
        raise ConfigError("evaluate() cannot run inside an event loop; use await evaluate_async()")
    plan = _plan(config)

    def interrupted() -> str:
        stored = len(_stored_answers(plan))
        total = plan.samples
        if stored >= total and open_run(plan.out).manifest.status == "finished":
            return (  # as an agentic run says it (agentic.runner.interrupted_message)
                f"interrupted after the last sample: all {total} samples are answered and "
                f"stored in {plan.out}. The run is complete: nothing is missing (coordqa score "
                f"{plan.out} prints its tables)."
            )
        if stored >= total:  # stopped while the run was closed, before it was marked finished
            return (
                f"interrupted as it ended: all {total} samples are answered and stored in "
                f"{plan.out}. Run the same command again to finish it (nothing is asked again)."
            )
        return (
            f"interrupted: {stored} of {total} samples are answered and stored in {plan.out}. "
            "Run the same command again to resume."
        )

    return run_to_end(lambda: _execute(plan, progress), interrupted=interrupted, run_dir=plan.out)
