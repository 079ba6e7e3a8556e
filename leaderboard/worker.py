"""The board's worker: claims queued jobs and runs them (``coordqa leaderboard worker``).

A QA job runs ``coordqa eval`` (:func:`coordqa.evaluate_async`) twice against the endpoint, in
the job's folder under the worker's ``--work-dir``:

1. on the public release (the board's default dataset), with the job's sampling seed (sent to
   the endpoint with each request, so public);
2. on a private split: fresh scenarios of every game generated from the job's secret
   ``private_seed`` (:func:`coordqa.scenarios.fresh_scenarios`, verified by the same solvers as
   the release), so no model can have seen them;

then stores the public run as a ``board-run`` entry through the same verification as an uploaded
bundle, with the private split's numbers and the gap between the two beside it (a model that
learnt the public answers does better there than on fresh states), and ends the job, which
reveals its secret seed. A job whose results equal an existing entry's ends done without an
entry of its own, its ``note`` naming that entry; a QA job's results are its public replies and
its private split, so two jobs of one deterministic endpoint, each on its own secret split, are
two entries.

An agentic job plays a registered grid with the registration's LLM agent and the endpoint's
model (:func:`coordqa.agentic.run_grid_async`), on the grid's tasks with each game's seeds
replaced by secret ones (:func:`secret_grid`), and stores it as a ``board-run`` entry on that
grid's board after the same checks as an uploaded run (every episode replayed, partners played
again), against the grid with those seeds.

Every session of a job (a worker's claim) draws new secret seeds (:func:`claim_job`): the
public run resumes without asking a question twice, while the private split or the grid's
deals of an earlier session, which the endpoint has seen, are dropped (``session-N/`` folders)
and new ones are asked. Budgets (calls, tokens, seconds, and the disk the job's folder takes)
count every session of a job (seconds: wall time while a worker holds it, written as the
session ends, however it ends); reaching one stops the job cleanly, as failed with the budget
named. The calls budget is a hard cap: a call is
sent only while the budget has room (:mod:`coordqa.llm.allowance`, counted as it is admitted,
not as its answer comes back), so no job's count passes it; the first call past it stops the
job unsent; calls cut off in flight are counted (the endpoint may have seen them). The worker
checks at each model call that the job is still its own, so a job the admin cancels stops at
its next call. A failed job's public error is one sentence for its submitter
(:func:`coordqa.leaderboard.job_errors.job_failure`). Model calls go through :mod:`coordqa.llm`
like any ``coordqa eval``, with the endpoint's key taken out of every reply and error: the
board's response cache is off, so every reply comes from the endpoint. Each job runs under
:func:`coordqa.llm.addresses.guarded_endpoints`: its endpoint is reached by the direct transport
only, every new connection to it is checked where it is made (public addresses only, unless the
board allows private endpoints), no redirect is followed and every body is read within its
bounds (:mod:`coordqa.llm.http`).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from coordqa.errors import ConfigError, CoordqaError, RunInterrupted
from coordqa.leaderboard.catalog import BoardCatalog, KnownDataset, known_dataset
from coordqa.leaderboard.db import Database, DuplicateResultsError, Endpoint, Job, shown_as
from coordqa.leaderboard.job_errors import BudgetExceeded, GridIncomplete, job_failure
from coordqa.leaderboard.jobs import claim_job, end_job, entry_of_job, job_is_ours, release_job
from coordqa.leaderboard.sealing import SecretBox
from coordqa.leaderboard.settings import (
    DEFAULT_MAX_DISK_MB,
    STOPPED_IDLE,
    WorkerConfig,
    process_name,
)
from coordqa.llm.addresses import guarded_endpoints

if TYPE_CHECKING:
    from coordqa.dataset import QuestionRow

__all__ = ["JobOutcome", "JobWithdrawn", "run_job", "work", "work_on_ray"]

logger = logging.getLogger(__name__)

HEARTBEAT_S = 10.0
"""How often a running job writes its usage and says it is alive."""

T = TypeVar("T")
Spend = Callable[[int, int], None]
"""How a run under a job's budget reports its model calls and tokens so far."""


class JobWithdrawn(CoordqaError):
    """The job stopped being this worker's while it ran (cancelled, requeued, taken over)."""


@dataclass(frozen=True)
class JobOutcome:
    """How one job ended for the worker that ran it."""

    job_id: int
    """The job."""
    status: str
    """``done``, ``failed``, or ``withdrawn`` (the admin cancelled or requeued it, or another
    worker took it over, while this one ran it: the job keeps the state they gave it)."""
    entry: int | None = None
    """The entry it stored (done)."""
    error: str | None = None
    """Why it failed, as its submitter reads it."""
    detail: str | None = None
    """Why it failed, in full for the admin (keys redacted)."""
    note: str | None = None
    """What its submitter is told of a done job without an entry of its own."""


@dataclass(frozen=True)
class _Stored:
    """What storing a job's results gave: its entry, or why it has none."""

    entry: int | None
    note: str | None = None


class _Budget:
    """A job's spending over all its sessions, and its claim, checked as calls come back.

    Its ``calls`` are the calls the budget admitted (:mod:`coordqa.llm.allowance`: each was
    sent, or was about to be when the job stopped), the count the calls budget caps and a
    failure names. Counting answers instead showed "used 96 calls" beside "budget of 100 calls
    is spent (100 calls)" (walkthrough 16 #178), and a count of answers beside it, taken from
    the run's progress, missed those stored after the stop (walkthrough 17: "954 calls (951
    answered)" for 954 stored replies): one count, the budget's.
    """

    def __init__(self, db: Database, job: Job, worker: str, folder: Path) -> None:
        self.db = db
        self.job_id = job.id
        self.worker = worker
        self.folder = folder
        self.settings = job.settings
        self.before = dict(job.usage or {})
        self.session: dict[str, Any] = {"calls": 0, "tokens": 0}
        self.started = time.monotonic()
        self.last_beat = 0.0
        self.stopped: CoordqaError | None = None

    def total(self) -> dict[str, Any]:
        return {
            "calls": int(self.before.get("calls", 0)) + self.session["calls"],
            "tokens": int(self.before.get("tokens", 0)) + self.session["tokens"],
            # wall time from this session's claim, over the earlier sessions'
            "seconds": float(self.before.get("seconds", 0.0)) + (time.monotonic() - self.started),
        }

    def seconds_left(self) -> float:
        return float(self.settings["max_seconds"]) - self.total()["seconds"]

    def disk_mb(self) -> float:
        """Megabytes the job's folder holds (every session's runs and private splits)."""
        size = 0
        for folder, _, files in os.walk(self.folder):
            for name in files:
                try:
                    size += os.lstat(os.path.join(folder, name)).st_size
                except FileNotFoundError:  # removed while counted (an atomic rewrite)
                    continue
        return size / 1e6

    def count(
        self,
        admitted: int,
        tokens: int,
        stop: Callable[[], None],
        base: dict[str, int],
    ) -> None:
        """Record a run's calls and tokens so far (:meth:`record`); stop it when it must stop.

        Past a calls, tokens or disk budget, or once the job is no longer this worker's (the
        admin cancelled it), the run is stopped: at the call that crossed the line.
        """
        self.record(admitted, tokens, base)
        if self.stopped is None:
            self.stopped = self._reason_to_stop()
            if self.stopped is not None:
                stop()
        if time.monotonic() - self.last_beat >= HEARTBEAT_S:
            self.beat()

    def record(self, admitted: int, tokens: int, base: dict[str, int]) -> None:
        """Set a run's calls (those ``admitted``) and tokens so far, over ``base``."""
        self.session["calls"] = base["calls"] + admitted
        self.session["tokens"] = base["tokens"] + tokens

    def _reason_to_stop(self) -> CoordqaError | None:
        spent = self.total()
        for what in ("calls", "tokens"):
            limit = int(self.settings[f"max_{what}"])
            if spent[what] > limit:
                return BudgetExceeded(what, limit, spent[what])
        disk_limit = float(self.settings.get("max_disk_mb", DEFAULT_MAX_DISK_MB))
        disk = self.disk_mb()
        if disk > disk_limit:
            return BudgetExceeded("disk", disk_limit, round(disk, 1))
        return None if self.still_ours() else JobWithdrawn(f"job {self.job_id} is withdrawn")

    def still_ours(self) -> bool:
        """Whether this worker still runs the job (checked at each model call)."""
        return job_is_ours(self.db, self.job_id, self.worker)

    async def run(self, start: Callable[[Spend], Awaitable[T]]) -> T:
        """``start(spend)`` within the job's budget: its result, or why it was stopped.

        The run reports its calls and tokens so far through ``spend``; past a calls, tokens or
        disk budget, or when the job is withdrawn, it is stopped, and past the seconds left it
        is cancelled. One home for both kinds of job (a ``coordqa eval`` and a grid), so they
        stop the same way.

        Raises:
            BudgetExceeded: a budget is spent.
            JobWithdrawn: the job is no longer this worker's.
        """
        import anyio

        from coordqa.llm.allowance import CallAllowance, call_allowance

        base = dict(self.session)
        result: T | None = None
        limit = int(self.settings["max_calls"])
        answers = {"tokens": 0}
        with anyio.move_on_after(max(0.0, self.seconds_left())) as scope:

            def spend(calls: int, tokens: int) -> None:  # calls: the budget counts its own
                answers.update(tokens=tokens)
                self.count(allowance.admitted, tokens, scope.cancel, base)

            def spent() -> None:  # a call past the budget was asked: it is never sent
                if self.stopped is None:
                    self.stopped = BudgetExceeded("calls", limit, limit)  # all of it was sent
                scope.cancel()

            allowance = CallAllowance(limit - self.total()["calls"], spent)
            with call_allowance(allowance):
                result = await start(spend)
        # the calls admitted since the last answer (cut off in flight) count too
        self.record(allowance.admitted, answers["tokens"], base)
        self.beat()
        if result is None:
            raise self.stopped or BudgetExceeded(
                "seconds", float(self.settings["max_seconds"]), round(self.total()["seconds"])
            )
        return result

    def beat(self) -> None:
        """Write the usage so far and the heartbeat (only while the job is this worker's)."""
        from sqlalchemy import update

        self.last_beat = time.monotonic()
        with self.db.session() as session:
            session.execute(
                update(Job)
                .where(Job.id == self.job_id, Job.status == "running", Job.worker == self.worker)
                .values(usage=self.total(), heartbeat_at=datetime.now(timezone.utc))
            )


async def _evaluate(config: Any, budget: _Budget) -> Any:
    """One ``coordqa eval`` within the job's budget; its result, or why it was stopped."""
    from coordqa.evaluation import evaluate_async

    def progress(p: Any, spend: Spend) -> None:
        usage = p.calls.usage
        spend(p.calls.attempts, usage.prompt_tokens + usage.completion_tokens)

    return await budget.run(
        lambda spend: evaluate_async(config, progress=lambda p: progress(p, spend))
    )


def private_split(seed: int, per_game: int, folder: Path) -> Path:
    """The job's private split: ``per_game`` fresh scenarios of every game, from ``seed``.

    Written once as ``questions.jsonl`` in ``folder``; a resumed job reads the same file (and
    generating again from the seed gives the same questions).
    """
    import json

    from coordqa.games import GAME_NAMES
    from coordqa.scenarios import build_rows, fresh_scenarios, validate_rows_against_solvers

    target = folder / "questions.jsonl"
    if target.exists():
        return target
    rows: list[QuestionRow] = []
    for index, game in enumerate(GAME_NAMES):
        scenarios = fresh_scenarios(game, per_game, seed + 1_000 * index)
        rows += build_rows(scenarios, source="coordqa-board-private")
    validate_rows_against_solvers(rows)
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    partial.replace(target)
    return target


def _qa_config(endpoint: Endpoint, job: Job, key: str | None, dataset: str, out: Path) -> Any:
    from coordqa.eval_config import EvalConfig

    return EvalConfig(
        model=endpoint.model,
        api_base=endpoint.api_base,
        api_key_secret=key,
        dataset=dataset,
        trials=int(job.settings["trials"]),
        seed=job.seed,
        cache=False,
        out=out,
        label=f"board job {job.id}",
    )


def _private_numbers(run_dir: Path, questions: Path, max_trials: int) -> dict[str, Any]:
    """The private split's accuracies, scored as the public run is (errors count as wrong)."""
    from coordqa.dataset import load_rows
    from coordqa.leaderboard.bundle import QABundle, build_qa_bundle
    from coordqa.leaderboard.verify import score_qa

    dataset: KnownDataset = known_dataset("private split", load_rows(questions))
    with _bundle_schema():
        bundle = QABundle.model_validate(build_qa_bundle(run_dir))
    metrics = score_qa(bundle, dataset, max_trials).metrics
    return {
        "questions": len(dataset.rows),
        "fingerprint": dataset.fingerprint,
        "overall": metrics["overall"],
        "by_type": metrics["by_type"],
    }


@contextmanager
def _bundle_schema() -> Iterator[None]:
    """Building and reading the job's bundle: a schema violation is refused as an upload's.

    A run the board made itself can still break the submission schema with what the endpoint
    sent (a reply longer than a bundle holds): the job then fails naming the rule
    (:class:`~coordqa.leaderboard.intake.SchemaError`), never quoting the endpoint's text.
    """
    from pydantic import ValidationError

    from coordqa.leaderboard.bundle import BundleSchemaError
    from coordqa.leaderboard.intake import SchemaError, schema_error

    try:
        yield
    except BundleSchemaError as exc:  # building it (the message is for someone at a terminal)
        raise SchemaError(exc.violations, exc.total) from None
    except ValidationError as exc:  # reading it
        raise schema_error(exc) from None


def _session_folder(folder: Path, job: Job) -> Path:
    """This session's folder for the job's secret part; earlier sessions' are removed.

    They hold the private split or the grid of seeds drawn before, which the endpoint has seen
    and this session never asks again.
    """
    current = folder / f"session-{job.sessions}"
    for old in folder.glob("session-*"):
        if old != current:
            shutil.rmtree(old)
    return current


@dataclass(frozen=True)
class _JobRun:
    """What one session of a job works with, read once by :func:`run_job` for each part of it."""

    db: Database
    catalog: BoardCatalog
    job: Job
    endpoint: Endpoint
    key: str | None = field(repr=False)
    """The endpoint's API key, opened for this session's calls only (never shown)."""
    folder: Path
    """The job's folder under the worker's ``--work-dir``."""
    budget: _Budget


def _session(start: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run one of a job's async parts; Ctrl-C or SIGTERM cancel it and raise RunInterrupted.

    The cancellation reaches the calls in flight at once (they are not waited for, and not
    counted), so :func:`run_job` puts the job back in the queue without delay.
    """
    from coordqa.runs import run_to_end

    return run_to_end(start, interrupted=lambda: "the worker was stopped", run_dir=None)


def _run_qa_job(run: _JobRun) -> _Stored:
    """Both evaluations and the entry."""
    from coordqa.dataset import DEFAULT_DATASET
    from coordqa.leaderboard.bundle import QABundle, build_qa_bundle

    job, endpoint, key, budget = run.job, run.endpoint, run.key, run.budget
    public_run = run.folder / "public"
    secret = _session_folder(run.folder, job)

    public = _qa_config(endpoint, job, key, DEFAULT_DATASET, public_run)
    _session(lambda: _evaluate(public, budget))
    # generated outside the event loop: Ctrl-C or SIGTERM stops it at once, where inside it
    # they waited for its end (up to a minute) before the loop could see them
    questions = private_split(
        job.private_seed, int(job.settings["private_per_game"]), secret / "private-data"
    )
    private_config = _qa_config(endpoint, job, key, str(questions), secret / "private")
    _session(lambda: _evaluate(private_config, budget))
    private = _private_numbers(secret / "private", questions, run.catalog.max_trials)
    with _bundle_schema():
        data = build_qa_bundle(public_run, **shown_as(endpoint))
        bundle = QABundle.model_validate(data)
    return _store(run, bundle, data, extra_metrics={"private": private})


def _store(run: _JobRun, bundle: Any, data: dict[str, Any], **options: Any) -> _Stored:
    """Store the job's bundle as its own board-run entry (once: a resumed job finds it).

    Results equal to an existing entry's (another submitter's, or an earlier job's; for a QA
    job, the private split's too) make no entry: the job's note names that entry, and the job
    never takes it as its own.

    Raises:
        JobWithdrawn: the job was cancelled while it ran (nothing is stored).
    """
    from coordqa.leaderboard.intake import admit

    stored = entry_of_job(run.db, run.job.id)
    if stored is not None:  # stored by an earlier session that stopped before ending the job
        return _Stored(stored.id)
    if not run.budget.still_ours():
        raise JobWithdrawn(f"job {run.job.id} is withdrawn")
    try:
        accepted = admit(
            run.db,
            run.catalog,
            bundle,
            data,
            run.endpoint.token_id,
            quota=run.job.settings.get("quota"),  # the token's, when the job was queued
            origin="board-run",
            job_id=run.job.id,
            **options,
        )
    except DuplicateResultsError as exc:
        which = "an entry hidden by the admin" if exc.existing_hidden else "an entry"
        return _Stored(
            None,
            f"its results equal those of entry {exc.existing_id} ({which} already on the board), "
            "so it made no entry of its own: the board ranks the same results once",
        )
    return _Stored(accepted.id)


def secret_grid(config: Any, seed: int) -> Any:
    """``config`` with each game's seeds replaced by as many drawn from ``seed`` (kept secret).

    A game with other seeds for self-play than for cross-play (the paper's Hanabi seeds) gets
    as many secret seeds as the longer list, for both. Agents, partners, layouts, horizons and
    the preset stay the grid's, so the episodes are the grid's tasks on fresh deals and states.
    """
    import random

    from coordqa.agentic import parse_grid

    draw = random.Random(seed)
    data = config.model_dump(mode="json", exclude={"runtime"})
    for entry, game in zip(config.games, data["games"], strict=True):
        count = max(len(entry.seeds_for(True)), len(entry.seeds_for(False)))
        game.update(seeds=draw.sample(range(1_000_000, 2**31 - 1), count), episodes=None)
    return parse_grid(data)


def _run_agentic_job(run: _JobRun) -> _Stored:
    """The job's grid, played by its agent with the endpoint's model on secret seeds; its entry.

    The entry is checked as an uploaded one is (every episode replayed, partners re-played),
    against the grid with the job's seeds, and ranked on the grid's board. The endpoint's key,
    when it has one, is given to the run for its calls only (never stored).
    """
    from coordqa.agentic import parse_grid, run_grid_async, shipped_checkpoints_only
    from coordqa.leaderboard.bundle import AgenticBundle, build_agentic_bundle
    from coordqa.leaderboard.catalog import KnownGrid
    from coordqa.leaderboard.verify import score_agentic

    job, endpoint, key = run.job, run.endpoint, run.key
    known = run.catalog.grid(str(job.grid))
    data = secret_grid(known.config, job.seed).model_dump(mode="json", exclude={"runtime"})
    data.update(
        agents=[job.settings["agent"]],
        models=[{"name": endpoint.model, "api_base": endpoint.api_base}],
    )
    grid = parse_grid(data)
    run_dir = _session_folder(run.folder, job) / "grid"

    async def play() -> Any:
        return await run.budget.run(
            lambda spend: run_grid_async(
                grid,
                run_dir,
                progress=lambda p: spend(p.model_calls, p.tokens),
                api_keys=None if key is None else {endpoint.model: key},
            )
        )

    with shipped_checkpoints_only():  # the partners its replay and every submitted run play
        result = _session(play)
    if not result.complete:
        first = result.failures[0].error if result.failures else None
        raise GridIncomplete(len(result.failures), result.skipped_episodes, first)
    with _bundle_schema():
        data = build_agentic_bundle(
            run_dir, grid=known.name, destination="own-board", **shown_as(endpoint)
        )
        bundle = AgenticBundle.model_validate(data)
    with_seeds = KnownGrid(known.name, known.version, known.fingerprint, grid)

    def check(parsed: Any) -> Any:
        return score_agentic(parsed, with_seeds)

    return _store(run, bundle, data, verify=check)


def run_job(
    db: Database,
    catalog: BoardCatalog,
    job_id: int,
    config: WorkerConfig,
    box: SecretBox | None = None,
) -> JobOutcome:
    """Run (or resume) the claimed job ``job_id`` to its end and record how it ended.

    Any failure ends the job as failed with one public sentence for its submitter and the
    details for the admin (:func:`job_failure`); an unexpected one is also logged with its
    traceback. A job withdrawn while it ran (cancelled, requeued, taken over) is left as it is.
    A worker stopped while it runs the job (Ctrl-C, SIGTERM) puts it back in the queue at once
    (rather than leaving it "running" until its lease runs out) and raises
    :class:`~coordqa.errors.RunInterrupted` saying so.
    """
    with db.session() as session:
        job = session.get(Job, job_id)
        endpoint = None if job is None else session.get(Endpoint, job.endpoint_id)
    if job is None or endpoint is None:
        raise CoordqaError(f"job {job_id} or its endpoint is gone from the database")
    folder = config.work_dir / f"job-{job.id}"
    budget = _Budget(db, job, config.name, folder)
    key = None
    try:
        if endpoint.api_key_sealed is not None:
            key = (box or SecretBox()).open(endpoint.api_key_sealed)
        run = _run_agentic_job if job.kind == "agentic" else _run_qa_job
        allow_private = bool(job.settings.get("allow_private_endpoints", False))
        with guarded_endpoints(allow_private=allow_private):
            stored = run(_JobRun(db, catalog, job, endpoint, key, folder, budget))
    except JobWithdrawn:
        return JobOutcome(job.id, "withdrawn")
    except (KeyboardInterrupt, RunInterrupted) as exc:  # the worker stopped, not the job
        release_job(db, job.id, config.name, usage=budget.total())
        raise RunInterrupted(
            f"interrupted: job {job.id} is back in the queue (its public answers are kept); "
            "a worker takes it up again: run the same command again"
        ) from exc
    except Exception as exc:  # every failure ends the job, worded for its submitter
        if not isinstance(exc, CoordqaError):
            logger.exception("job %s met an unexpected error", job.id)
        secret_seeds = [job.private_seed] + ([job.seed] if job.kind == "agentic" else [])
        failure = job_failure(exc, (key, *map(str, secret_seeds)))
        failed = JobOutcome(job.id, "failed", error=failure.public, detail=failure.detail)
        return _end(db, config, budget, failed)
    return _end(
        db, config, budget, JobOutcome(job.id, "done", entry=stored.entry, note=stored.note)
    )


def _end(db: Database, config: WorkerConfig, budget: _Budget, outcome: JobOutcome) -> JobOutcome:
    """End the job as ``outcome`` says, with this session's usage to its end; or withdrawn.

    The usage goes with the ending, so a session counts every second it held the job
    (walkthrough 19 B3).
    """
    ended = end_job(
        db,
        outcome.job_id,
        config.name,
        outcome.status,
        error=outcome.error,
        detail=outcome.detail,
        submission_id=outcome.entry,
        note=outcome.note,
        usage=budget.total(),
    )
    return outcome if ended else JobOutcome(outcome.job_id, "withdrawn")


def work(
    db: Database,
    catalog: BoardCatalog,
    config: WorkerConfig,
    *,
    once: bool = False,
    box: SecretBox | None = None,
    on_outcome: Callable[[JobOutcome], None] | None = None,
    on_wait: Callable[[], None] | None = None,
) -> list[JobOutcome]:
    """Claim and run jobs one at a time: until the queue is empty (``once``), or until Ctrl-C.

    ``on_wait`` is called when the worker finds the queue empty and starts waiting, once per
    wait (not per look), so its user can tell it is running (walkthrough 17, R7: an idle
    worker printed nothing).

    Raises:
        RunInterrupted: Ctrl-C (or SIGTERM under ``sigterm_as_ctrl_c``) while it waited, with
            no job running; one that stops a job is :func:`run_job`'s.
    """
    outcomes: list[JobOutcome] = []
    waiting = False
    while True:
        try:  # a stop while it looks at the queue is one while it waits (no job is running)
            job_id = claim_job(db, config.name)
            if job_id is None:
                if once:
                    return outcomes
                if not waiting and on_wait is not None:
                    on_wait()
                waiting = True
                time.sleep(config.poll_s)
                continue
        except KeyboardInterrupt:
            raise RunInterrupted(STOPPED_IDLE) from None
        waiting = False
        outcome = run_job(db, catalog, job_id, config, box)
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)


def work_on_ray(
    db_url: str,
    config: WorkerConfig,
    workers: int,
    *,
    address: str | None = None,
    once: bool = False,
) -> list[JobOutcome]:
    """Run the queue with ``workers`` :func:`work` loops as Ray tasks (the agentic track's engine).

    On a local Ray, or on the cluster at ``address``. Each task claims jobs as any worker does
    (a claim is a database transaction, so no job runs twice) and is named after its own Ray
    worker process in the job list; tasks reach the board by ``db_url`` and open endpoint keys
    with the board's secret, which every node must hold (``$COORDQA_BOARD_SECRET``). A task
    that dies is not retried: its job is taken over as any stale job is. Returns every task's
    outcomes once the queue is empty (``once``); otherwise runs until interrupted.

    Raises:
        ConfigError: ``workers`` below 1.
    """
    from coordqa.llm.ray_limits import ray_cluster

    if workers < 1:
        raise ConfigError(f"--ray-workers must be at least 1, got {workers}")
    with ray_cluster(address) as ray:
        task = ray.remote(max_retries=0)(_ray_work)
        done = ray.get([task.remote(db_url, config, once) for _ in range(workers)])
    return [outcome for outcomes in done for outcome in outcomes]


def _ray_work(db_url: str, config: WorkerConfig, once: bool) -> list[JobOutcome]:
    """One Ray task's :func:`work` loop, on a database of its own process."""
    from coordqa.leaderboard.db import open_database

    db = open_database(db_url, create=False)
    try:
        return work(db, BoardCatalog(db), replace(config, name=process_name()), once=once)
    finally:
        db.dispose()
