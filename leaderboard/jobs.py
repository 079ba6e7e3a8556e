"""Board-run entries: a submitter registers an endpoint, the board queues jobs that evaluate it.

The board, not the submitter, runs ``coordqa eval`` against the endpoint (and registered
agentic grids), so what it ranks was produced by that endpoint under the board's conditions:
sampling seeds the board draws and keeps secret until the job ends, the public release plus a
private split of fresh game states (from a secret seed) whose gap to the public score is shown
per entry, and budgets on calls, tokens and time. A worker (:mod:`coordqa.leaderboard.worker`)
claims queued jobs; a job whose worker stopped answering is taken over and resumed.

This module holds the rules and the database side: what a registration may ask
(:class:`EndpointRequest`), what a job runs with
(:class:`~coordqa.leaderboard.settings.BoardRunSettings`), registering
(:func:`register_endpoint`), claiming (:func:`claim_job`) and the public view of a job
(:func:`job_json`: seeds only once it ended, never the key or the endpoint's address).
"""

from __future__ import annotations

import fnmatch
import secrets
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from typing import Any, TypedDict, cast
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import func, or_, select, update
from sqlalchemy.engine import CursorResult

from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject
from coordqa.leaderboard.bundle import ModelInfo, default_provider
from coordqa.leaderboard.db import Database, Endpoint, Job, LeaderboardError, Submission
from coordqa.leaderboard.names import clean_name
from coordqa.leaderboard.sealing import SecretBox
from coordqa.leaderboard.settings import BoardRunSettings
from coordqa.leaderboard.verify import refuse_unrankable
from coordqa.llm.addresses import AddressGuard, AddressRefused
from coordqa.llm.direct_provider import DIRECT_PREFIXES, direct_serves

__all__ = [
    "FINISHED",
    "LEASE_S",
    "EndpointRequest",
    "JobView",
    "claim_job",
    "job_json",
    "list_jobs",
    "raise_budget",
    "register_endpoint",
    "set_job_status",
    "unfinished_jobs",
]

FINISHED = ("done", "failed", "cancelled")
"""Job states after which the seeds are shown and nothing runs."""
LEASE_S = 300.0
"""A running job whose worker has not reported for this long is taken over by another."""
SEED_RANGE = (1_000_000, 2**31 - 1)
"""Secret seeds are drawn from here: far from the small seeds the public release was built from."""


class EndpointRequest(BaseModel):
    """A registration: the model to run, where, with which key, and how to show it."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, max_length=200)
    """Model name as ``coordqa eval --model`` takes it (``openai/my-model`` for an
    OpenAI-compatible server, a hosted name, or ``random``)."""
    api_base: str | None = Field(default=None, max_length=500)
    """The endpoint's OpenAI-compatible base URL (None: a model the board hosts)."""
    api_key: str | None = Field(default=None, min_length=1, max_length=500)
    """The endpoint's API key; stored only sealed, never shown."""
    display_name: str | None = Field(default=None, max_length=200)
    """Name shown on the board (default: the model)."""
    organisation: str | None = Field(default=None, max_length=200)
    """Who made or submitted the model."""
    link: str | None = Field(default=None, max_length=500, pattern=r"^https?://\S+$")
    """A page about the model."""
    parameters: float | None = Field(default=None, gt=0)
    """Parameter count, when known."""
    grids: list[str] = Field(default_factory=list, max_length=10)
    """Agentic grids to play as well (names the board ranks)."""
    agent: str = Field(default="cac", max_length=50)
    """The LLM agent that plays the grids with the model (``cac``, ``hm``, ``llm``...)."""

    @field_validator("model")
    @classmethod
    def _readable_model(cls, value: str) -> str:
        return clean_name(value, what="model")


def _draw_seed() -> int:
    low, high = SEED_RANGE
    return low + secrets.randbelow(high - low)


def _check_api_base(model: str, api_base: str, allow_private: bool) -> None:
    """Refuse an endpoint the worker should not call (wrong scheme, own network) or cannot.

    The worker reaches a registered endpoint only as an OpenAI-compatible server, through the
    transport whose connections it checks (:mod:`coordqa.llm.addresses`); the same address rule
    is checked again on every connection the worker makes.
    """
    parts = urlsplit(api_base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"api_base must be an http(s) URL, got {api_base!r}")
    if not direct_serves(model, api_base):
        raise ConfigError(
            f"model {model!r}: this board calls a registered endpoint as an OpenAI-compatible "
            f"server; name the model {' or '.join(p + '/NAME' for p in DIRECT_PREFIXES)}"
        )
    if allow_private:
        return
    try:
        AddressGuard().checked(parts.hostname, parts.port or 0)
    except AddressRefused as exc:
        raise ConfigError(f"api_base {api_base!r}: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise ConfigError(f"api_base {api_base!r}: {parts.hostname} does not resolve") from exc


def _check_hosted(model: str, hosted: tuple[str, ...]) -> None:
    if not any(fnmatch.fnmatchcase(model, pattern) for pattern in hosted):
        raise ConfigError(
            f"model {model!r} has no api_base and is not one this board hosts "
            f"({', '.join(hosted)}): give the api_base of your OpenAI-compatible server"
        )


def _check_grid_request(request: EndpointRequest) -> None:
    """Refuse grid jobs the worker cannot run: a player that calls no model."""
    from coordqa.games.base import PLAYERS

    if PLAYERS.get(request.agent).kind != "llm":
        raise ConfigError(
            f"agent {request.agent!r} calls no model; a board-run grid tests the model with an "
            "LLM agent (cac, hm, llm...)"
        )


def register_endpoint(
    db: Database,
    token_id: int,
    request: EndpointRequest,
    settings: BoardRunSettings,
    box: SecretBox | None = None,
    grids: tuple[str, ...] = (),
) -> tuple[Endpoint, list[Job]]:
    """Store an endpoint and queue its jobs: CoordinationQA, then each requested grid.

    ``grids`` are the names the board ranks (the request's must be among them). The key is
    sealed with ``box`` (the board's :class:`SecretBox`) before it is stored.

    Raises:
        ConfigError: an unusable api_base, a model the board does not host without one, a key
            without an api_base, an unknown grid, or a name that is not plain text.
        VerificationError: a model whose entries are never ranked (``bot`` plays from the
            game's state), refused before the board spends a job on it.
    """
    refuse_unrankable(request.model)
    if request.api_base is None:
        if request.api_key is not None:
            raise ConfigError("api_key is for your own api_base; a hosted model uses the board's")
        _check_hosted(request.model, settings.hosted)
    else:
        _check_api_base(request.model, request.api_base, settings.allow_private_endpoints)
    unknown = sorted(set(request.grids) - set(grids))
    if unknown:
        raise ConfigError(
            f"unknown grid {', '.join(unknown)}; this board ranks {', '.join(grids) or 'none'}"
        )
    if request.grids:
        _check_grid_request(request)
    try:
        info = ModelInfo(
            display_name=request.display_name or request.model,
            provider=default_provider(request.model),
            parameters=request.parameters,
            organisation=request.organisation,
            link=request.link,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    sealed = None
    if request.api_key is not None:
        sealed = (box or SecretBox()).seal(request.api_key)
    endpoint = Endpoint(
        token_id=token_id,
        model=request.model,
        api_base=request.api_base,
        api_key_sealed=sealed,
        **info.model_dump(),
    )
    kinds = [("qa", None), *(("agentic", grid) for grid in request.grids)]
    common = {k: v for k, v in asdict(settings).items() if k != "hosted"}
    with db.session() as session:
        session.add(endpoint)
        session.flush()
        jobs = [
            Job(
                endpoint_id=endpoint.id,
                kind=kind,
                grid=grid,
                status="queued",
                settings=common if kind == "qa" else {**common, "agent": request.agent},
                seed=_draw_seed(),
                private_seed=_draw_seed(),
                usage={"calls": 0, "tokens": 0, "seconds": 0.0},
            )
            for kind, grid in kinds
        ]
        session.add_all(jobs)
        session.flush()
        return endpoint, jobs


def unfinished_jobs(db: Database, token_id: int) -> int:
    """Jobs of a token's endpoints that have not ended (they count toward its quota)."""
    with db.session() as session:
        count = session.execute(
            select(func.count())
            .select_from(Job)
            .join(Endpoint, Job.endpoint_id == Endpoint.id)
            .where(Endpoint.token_id == token_id, Job.status.not_in(FINISHED))
        ).scalar_one()
    return int(count)


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None or moment.tzinfo:
        return moment
    return moment.replace(tzinfo=timezone.utc)  # SQLite returns naive UTC times


def claim_job(db: Database, worker: str, lease_s: float = LEASE_S) -> int | None:
    """Take the oldest queued job, or a running one whose worker went silent; its id or None.

    The claim is one conditional update (the job is taken only if it is still in the state it
    was read in), so two workers never take the same job.
    """
    now = datetime.now(timezone.utc)
    stale = now - timedelta(seconds=lease_s)
    with db.session() as session:
        candidates = session.execute(
            select(Job.id, Job.status, Job.heartbeat_at)
            .where(
                or_(
                    Job.status == "queued",
                    (Job.status == "running") & (Job.heartbeat_at < stale),
                )
            )
            .order_by(Job.id)
            .limit(10)
        ).all()
    for job_id, status, heartbeat in candidates:
        seen = Job.heartbeat_at.is_(None) if heartbeat is None else Job.heartbeat_at == heartbeat
        with db.session() as session:
            claimed = session.execute(
                update(Job)
                .where(Job.id == job_id, Job.status == status, seen)
                .values(
                    status="running",
                    worker=worker,
                    heartbeat_at=now,
                    started_at=func.coalesce(Job.started_at, now),
                    sessions=Job.sessions + 1,
                )
            )
            if cast("CursorResult[Any]", claimed).rowcount == 1:
                return int(job_id)
    return None


def set_job_status(
    db: Database,
    job_id: int,
    status: str,
    *,
    error: str | None = None,
    submission_id: int | None = None,
) -> None:
    """End a job (``done``, ``failed``, ``cancelled``) or queue it again (``queued``)."""
    if status not in (*FINISHED, "queued"):
        raise ConfigError(f"a job's status is set to queued, {', '.join(FINISHED)}; got {status}")
    with db.session() as session:
        job = session.get(Job, job_id)
        if job is None:
            raise LeaderboardError(f"no job {job_id}; see `coordqa leaderboard job list`")
        job.status = status
        job.error = error
        job.submission_id = submission_id if submission_id is not None else job.submission_id
        job.finished_at = datetime.now(timezone.utc) if status in FINISHED else None


def raise_budget(db: Database, job_id: int, **budgets: float | None) -> None:
    """Set new budgets (``max_calls``, ``max_tokens``, ``max_seconds``) on a job; None keeps one.

    Raises:
        LeaderboardError: no job has that id.
        ConfigError: an unknown budget or one below 1.
    """
    given = {name: value for name, value in budgets.items() if value is not None}
    unknown = sorted(set(given) - {"max_calls", "max_tokens", "max_seconds"})
    if unknown:
        raise ConfigError(
            f"unknown budget {', '.join(unknown)}: max_calls, max_tokens, max_seconds"
        )
    for name, value in given.items():
        if value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1, got {value:g}")
    with db.session() as session:
        job = session.get(Job, job_id)
        if job is None:
            raise LeaderboardError(f"no job {job_id}; see `coordqa leaderboard job list`")
        job.settings = {**job.settings, **given}


class JobView(TypedDict):
    """A job as the API, the CLI and an entry's page show it (:func:`job_json`)."""

    id: int
    kind: str
    grid: str | None
    status: str
    display_name: str
    model: str
    settings: JSONObject
    usage: dict[str, float]
    """``calls``, ``tokens`` and ``seconds`` spent so far, over all sessions."""
    sessions: int
    error: str | None
    entry: int | None
    """The entry the job stored (None until it stored one)."""
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    seed: int | None
    """None until the job ended: the seeds stay secret while it runs."""
    private_seed: int | None
    seeds: str
    """``shown``, or why not."""


def job_json(job: Job, endpoint: Endpoint) -> JobView:
    """A job as anyone may read it: seeds once it ended; never the key or the endpoint's URL."""
    ended = job.status in FINISHED
    return {
        "id": job.id,
        "kind": job.kind,
        "grid": job.grid,
        "status": job.status,
        "display_name": endpoint.display_name,
        "model": endpoint.model,
        "settings": job.settings,
        "usage": job.usage,
        "sessions": job.sessions,
        "error": job.error,
        "entry": job.submission_id,
        "created_at": _iso(job.created_at),
        "started_at": _iso(job.started_at),
        "finished_at": _iso(job.finished_at),
        "seed": job.seed if ended else None,
        "private_seed": job.private_seed if ended else None,
        "seeds": "shown" if ended else "secret until the job ends",
    }


def _iso(moment: datetime | None) -> str | None:
    found = _utc(moment)
    return None if found is None else found.isoformat()


def list_jobs(db: Database, job_id: int | None = None) -> list[JobView]:
    """Every job (or one), newest first, as :func:`job_json` shows them.

    Raises:
        LeaderboardError: ``job_id`` names no job.
    """
    with db.session() as session:
        query = select(Job, Endpoint).join(Endpoint, Job.endpoint_id == Endpoint.id)
        if job_id is not None:
            query = query.where(Job.id == job_id)
        rows = session.execute(query.order_by(Job.id.desc())).all()
        if job_id is not None and not rows:
            raise LeaderboardError(f"no job {job_id}; see GET /api/jobs")
        return [job_json(job, endpoint) for job, endpoint in rows]


def entry_of_job(db: Database, job_id: int) -> Submission | None:
    """The entry a job stored, if any (a resumed job finds the one it stored before)."""
    with db.session() as session:
        return session.scalars(select(Submission).where(Submission.job_id == job_id)).first()
