"""The board's worker: claims queued jobs and runs them (``coordqa leaderboard worker``).

A QA job runs ``coordqa eval`` (:func:`coordqa.evaluate_async`) twice against the endpoint, in
the job's folder under the worker's ``--work-dir``:

1. on the public release (the board's default dataset), with the job's secret sampling seed;
2. on a private split: fresh scenarios of every game generated from the job's secret
   ``private_seed`` (:func:`coordqa.scenarios.fresh_scenarios`, verified by the same solvers as
   the release), so no model can have seen them;

then stores the public run as a ``board-run`` entry through the same verification as an uploaded
bundle, with the private split's numbers and the gap between the two beside it (a model that
learnt the public answers does better there than on fresh states), and ends the job, which
reveals its seeds.

An agentic job plays a registered grid with the registration's LLM agent and the endpoint's
model (:func:`coordqa.agentic.run_grid_async`), on the grid's tasks with each game's seeds
replaced by secret ones (:func:`secret_grid`), and stores it as a ``board-run`` entry on that
grid's board after the same checks as an uploaded run (every episode replayed, partners played
again), against the grid with those seeds.

Jobs are resumable: every call is stored as it is made, so a job taken over after its worker
died (or requeued after its budget ran out) continues where it stopped without asking a
question twice. Budgets (calls, tokens, seconds) count every session of a job; reaching one
stops the job cleanly, as failed with the budget named. Model calls go through
:mod:`coordqa.llm` like any ``coordqa eval``: the board's response cache is off, so every reply
comes from the endpoint. Each job runs under :func:`coordqa.llm.addresses.guarded_endpoints`:
its endpoint is reached by the direct transport only, every new connection to it is checked
where it is made (public addresses only, unless the board allows private endpoints), no
redirect is followed and every body is read within its bounds (:mod:`coordqa.llm.http`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from coordqa.errors import ConfigError, CoordqaError
from coordqa.leaderboard.catalog import BoardCatalog, KnownDataset, known_dataset
from coordqa.leaderboard.db import Database, DuplicateResultsError, Endpoint, Job, shown_as
from coordqa.leaderboard.jobs import claim_job, entry_of_job, set_job_status
from coordqa.leaderboard.sealing import SecretBox
from coordqa.leaderboard.settings import WorkerConfig, process_name
from coordqa.llm.addresses import guarded_endpoints

if TYPE_CHECKING:
    from coordqa.dataset import QuestionRow

__all__ = ["BudgetExceeded", "JobOutcome", "run_job", "work", "work_on_ray"]

HEARTBEAT_S = 10.0
"""How often a running job writes its usage and says it is alive."""

T = TypeVar("T")
Spend = Callable[[int, int], None]
"""How a run under a job's budget reports its model calls and tokens so far."""


class BudgetExceeded(CoordqaError):
    """A job spent its calls, tokens or seconds before it finished."""


@dataclass(frozen=True)
class JobOutcome:
    """How one job ended."""

    job_id: int
    """The job."""
    status: str
    """``done`` or ``failed``."""
    entry: int | None = None
    """The entry it stored (done)."""
    error: str | None = None
    """Why it failed."""


class _Budget:
    """A job's spending over all its sessions, checked as calls come back."""

    def __init__(self, db: Database, job: Job) -> None:
        self.db = db
        self.job_id = job.id
        self.settings = job.settings
        self.before = dict(job.usage or {})
        self.session: dict[str, Any] = {"calls": 0, "tokens": 0}
        self.seconds = 0.0
        self.started = time.monotonic()
        self.last_beat = 0.0
        self.exceeded: str | None = None

    def total(self) -> dict[str, Any]:
        return {
            "calls": int(self.before.get("calls", 0)) + self.session["calls"],
            "tokens": int(self.before.get("tokens", 0)) + self.session["tokens"],
            "seconds": float(self.before.get("seconds", 0.0))
            + self.seconds
            + (time.monotonic() - self.started),
        }

    def seconds_left(self) -> float:
        return float(self.settings["max_seconds"]) - self.total()["seconds"]

    def count(
        self, calls: int, tokens: int, stop: Callable[[], None], base: dict[str, int]
    ) -> None:
        """Record a run's calls and tokens so far (over ``base``); stop it past a budget."""
        self.session["calls"] = base["calls"] + calls
        self.session["tokens"] = base["tokens"] + tokens
        spent = self.total()
        for what, unit in (("calls", "calls"), ("tokens", "tokens")):
            limit = int(self.settings[f"max_{what}"])
            if spent[what] > limit and self.exceeded is None:
                self.exceeded = f"the job's budget of {limit} {unit} is spent ({spent[what]})"
                stop()
        if time.monotonic() - self.last_beat >= HEARTBEAT_S:
            self.beat()

    async def run(self, start: Callable[[Spend], Awaitable[T]]) -> T:
        """``start(spend)`` within the job's budget: its result, or BudgetExceeded.

        The run reports its calls and tokens so far through ``spend``; past a calls or tokens
        budget it is stopped, and past the seconds left it is cancelled. One home for both
        kinds of job (a ``coordqa eval`` and a grid), so they stop the same way.
        """
        import anyio

        base = dict(self.session)
        result: T | None = None
        with anyio.move_on_after(max(0.0, self.seconds_left())) as scope:

            def spend(calls: int, tokens: int) -> None:
                self.count(calls, tokens, scope.cancel, base)

            result = await start(spend)
        self.beat()
        if result is None:
            raise BudgetExceeded(
                self.exceeded
                or f"the job's budget of {self.settings['max_seconds']:g} seconds is spent"
            )
        return result

    def beat(self) -> None:
        """Write the usage so far and the heartbeat."""
        self.last_beat = time.monotonic()
        with self.db.session() as session:
            job = session.get(Job, self.job_id)
            if job is not None:
                job.usage = self.total()
                job.heartbeat_at = datetime.now(timezone.utc)


async def _evaluate(config: Any, budget: _Budget) -> Any:
    """One ``coordqa eval`` within the job's budget; its result, or BudgetExceeded."""
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
    bundle = QABundle.model_validate(build_qa_bundle(run_dir))
    metrics = score_qa(bundle, dataset, max_trials).metrics
    return {
        "questions": len(dataset.rows),
        "fingerprint": dataset.fingerprint,
        "overall": metrics["overall"],
        "by_type": metrics["by_type"],
    }


def _run_qa_job(
    db: Database, catalog: BoardCatalog, job: Job, endpoint: Endpoint, key: str | None, folder: Path
) -> int:
    """Both evaluations and the entry; the entry's id."""
    import anyio

    from coordqa.dataset import DEFAULT_DATASET
    from coordqa.leaderboard.bundle import QABundle, build_qa_bundle

    budget = _Budget(db, job)
    public_run = folder / "public"

    async def both() -> None:
        await _evaluate(_qa_config(endpoint, job, key, DEFAULT_DATASET, public_run), budget)
        questions = private_split(
            job.private_seed, int(job.settings["private_per_game"]), folder / "private-data"
        )
        config = _qa_config(endpoint, job, key, str(questions), folder / "private")
        await _evaluate(config, budget)

    anyio.run(both)
    questions = folder / "private-data" / "questions.jsonl"
    private = _private_numbers(folder / "private", questions, catalog.max_trials)
    data = build_qa_bundle(public_run, **shown_as(endpoint))
    bundle = QABundle.model_validate(data)
    return _store(db, catalog, job, endpoint, bundle, data, extra_metrics={"private": private})


def _store(
    db: Database,
    catalog: BoardCatalog,
    job: Job,
    endpoint: Endpoint,
    bundle: Any,
    data: dict[str, Any],
    **options: Any,
) -> int:
    """Store the job's bundle as its board-run entry (once: a resumed job finds it); its id."""
    from coordqa.leaderboard.intake import admit

    stored = entry_of_job(db, job.id)
    if stored is not None:  # stored by an earlier session that stopped before ending the job
        return stored.id
    try:
        accepted = admit(
            db,
            catalog,
            bundle,
            data,
            endpoint.token_id,
            origin="board-run",
            job_id=job.id,
            **options,
        )
    except DuplicateResultsError as exc:
        return exc.existing_id
    return accepted.id


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


def _run_agentic_job(
    db: Database,
    catalog: BoardCatalog,
    job: Job,
    endpoint: Endpoint,
    key: str | None,
    folder: Path,
) -> int:
    """The job's grid, played by its agent with the endpoint's model on secret seeds; its entry.

    The entry is checked as an uploaded one is (every episode replayed, partners re-played),
    against the grid with the job's seeds, and ranked on the grid's board. The endpoint's key,
    when it has one, is given to the run for its calls only (never stored).
    """
    import anyio

    from coordqa.agentic import parse_grid, run_grid_async
    from coordqa.leaderboard.bundle import AgenticBundle, build_agentic_bundle
    from coordqa.leaderboard.catalog import KnownGrid
    from coordqa.leaderboard.verify import score_agentic

    known = catalog.grid(str(job.grid))
    data = secret_grid(known.config, job.seed).model_dump(mode="json", exclude={"runtime"})
    data.update(
        agents=[job.settings["agent"]],
        models=[{"name": endpoint.model, "api_base": endpoint.api_base}],
    )
    grid = parse_grid(data)
    budget = _Budget(db, job)
    run_dir = folder / "grid"

    async def play() -> Any:
        return await budget.run(
            lambda spend: run_grid_async(
                grid,
                run_dir,
                progress=lambda p: spend(p.model_calls, p.tokens),
                api_keys=None if key is None else {endpoint.model: key},
            )
        )

    result = anyio.run(play)
    if not result.complete:
        raise CoordqaError(
            f"the grid did not finish: {len(result.failures)} episodes failed and "
            f"{result.skipped_episodes} were skipped; requeue the job to play them again"
        )
    data = build_agentic_bundle(run_dir, grid=known.name, **shown_as(endpoint))
    bundle = AgenticBundle.model_validate(data)
    with_seeds = KnownGrid(known.name, known.version, known.fingerprint, grid)

    def check(parsed: Any) -> Any:
        return score_agentic(parsed, with_seeds)

    return _store(db, catalog, job, endpoint, bundle, data, verify=check)


def run_job(
    db: Database,
    catalog: BoardCatalog,
    job_id: int,
    config: WorkerConfig,
    box: SecretBox | None = None,
) -> JobOutcome:
    """Run (or resume) the claimed job ``job_id`` to its end and record how it ended."""
    with db.session() as session:
        job = session.get(Job, job_id)
        endpoint = None if job is None else session.get(Endpoint, job.endpoint_id)
    if job is None or endpoint is None:
        raise CoordqaError(f"job {job_id} or its endpoint is gone from the database")
    folder = config.work_dir / f"job-{job.id}"
    try:
        key = (
            None
            if endpoint.api_key_sealed is None
            else (box or SecretBox()).open(endpoint.api_key_sealed)
        )
        allow_private = bool(job.settings.get("allow_private_endpoints", False))
        with guarded_endpoints(allow_private=allow_private):
            if job.kind == "agentic":
                entry = _run_agentic_job(db, catalog, job, endpoint, key, folder)
            else:
                entry = _run_qa_job(db, catalog, job, endpoint, key, folder)
    except CoordqaError as exc:
        set_job_status(db, job.id, "failed", error=str(exc))
        return JobOutcome(job.id, "failed", error=str(exc))
    set_job_status(db, job.id, "done", submission_id=entry)
    return JobOutcome(job.id, "done", entry=entry)


def work(
    db: Database,
    catalog: BoardCatalog,
    config: WorkerConfig,
    *,
    once: bool = False,
    box: SecretBox | None = None,
    on_outcome: Callable[[JobOutcome], None] | None = None,
) -> list[JobOutcome]:
    """Claim and run jobs one at a time: until the queue is empty (``once``), or until Ctrl-C."""
    outcomes: list[JobOutcome] = []
    while True:
        job_id = claim_job(db, config.name)
        if job_id is None:
            if once:
                return outcomes
            time.sleep(config.poll_s)
            continue
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
