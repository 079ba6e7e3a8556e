"""Board-run entries: a submitter registers an endpoint, the board queues jobs that evaluate it.

The board, not the submitter, runs ``coordqa eval`` against the endpoint (and registered
agentic grids), so what it ranks was produced by that endpoint under the board's conditions:
the public release plus a private split of fresh game states whose gap to the public score is
shown per entry, grids played on fresh deals, and budgets on calls, tokens, time and disk.

The seeds of the private split and of the deals are secret until the job is done: drawn again
each time a worker claims the job (so a job that failed, was cancelled or was taken over never
asks the same private questions or deals again) and shown only once it is done. A QA job's
sampling seed is not secret: it goes to the endpoint with every request (an OpenAI-compatible
``seed``), so it is shown from the start. A worker (:mod:`coordqa.leaderboard.worker`) claims
queued jobs round-robin over the submitters' tokens; a job whose worker stopped answering is
taken over, and one an admin cancels stops at its next model call.

This module holds the rules and the database side: what a registration may ask
(:class:`EndpointRequest`), what a job runs with
(:class:`~coordqa.leaderboard.settings.BoardRunSettings`), registering
(:func:`register_endpoint`), claiming (:func:`claim_job`), ending (:func:`end_job`) and the
public view of a job (:func:`job_json`: secret seeds only once it is done, never the key, the
endpoint's address or the admin's details).
"""

from __future__ import annotations

import fnmatch
import secrets
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from functools import partial
from typing import Any, NamedTuple, TypedDict, cast
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import case, func, or_, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject
from coordqa.leaderboard.bundle import Link, ModelInfo, default_provider
from coordqa.leaderboard.catalog import unknown_grid
from coordqa.leaderboard.db import (
    FINISHED,
    MOST_ENTRIES_BESIDE,
    Database,
    Endpoint,
    Job,
    LeaderboardError,
    Submission,
    check_quota,
    claim_display_name,
    lock_token,
)
from coordqa.leaderboard.intake import refuse_imitation
from coordqa.leaderboard.names import clean_name
from coordqa.leaderboard.sealing import SecretBox
from coordqa.leaderboard.settings import BoardRunSettings
from coordqa.leaderboard.verify import refuse_unrankable
from coordqa.llm.addresses import AddressGuard, AddressRefused
from coordqa.llm.direct_provider import DIRECT_PREFIXES, direct_serves
from coordqa.llm.endpoints import shown_endpoint, stored_endpoint
from coordqa.llm.registry import ModelName
from coordqa.registry import did_you_mean

__all__ = [
    "FINISHED",
    "LEASE_S",
    "EndpointRequest",
    "JobView",
    "SameRegistration",
    "claim_job",
    "JobChange",
    "count_jobs",
    "end_job",
    "job_json",
    "job_details",
    "job_is_ours",
    "list_jobs",
    "raise_budget",
    "release_job",
    "register_endpoint",
    "same_registrations",
    "set_job_status",
]

BUDGETS = ("max_calls", "max_tokens", "max_seconds", "max_disk_mb")
"""A job's budgets, in its settings (``coordqa leaderboard job requeue`` raises them)."""
LEASE_S = 300.0
"""A running job whose worker has not reported for this long is taken over by another."""
SEED_RANGE = (1_000_000, 2**31 - 1)
"""Secret seeds are drawn from here: far from the small seeds the public release was built from."""


class EndpointRequest(BaseModel):
    """A registration: the model to run, where, with which key, and how to show it."""

    model_config = ConfigDict(extra="forbid")

    model: ModelName = Field(min_length=1, max_length=200)
    """Model name as ``coordqa eval --model`` takes it (``openai/my-model`` for an
    OpenAI-compatible server, a hosted name, or ``random``): a built-in model's in any case,
    stored as registered (``Random``: ``random``), as every other command reads it."""
    api_base: str | None = Field(default=None, max_length=500)
    """The endpoint's OpenAI-compatible base URL (None: a model the board hosts)."""
    api_key: str | None = Field(default=None, min_length=1, max_length=500)
    """The endpoint's API key; stored only sealed, never shown."""
    display_name: str | None = Field(default=None, max_length=200)
    """Name shown on the board (default: the model)."""
    organisation: str | None = Field(default=None, max_length=200)
    """Who made or submitted the model."""
    link: Link | None = None
    """A page about the model."""
    parameters: float | None = Field(default=None, gt=0)
    """Parameter count, when known."""
    grids: list[str] = Field(default_factory=list, max_length=10)
    """Agentic grids to play as well (names the board ranks)."""
    agent: str = Field(default="cac", max_length=50)
    """The LLM agent that plays the grids with the model (``cac``, ``hm``, ``llm``...): in any
    case, stored as registered (``CAC``: ``cac``), as ``submit-endpoint --agent`` reads it."""

    @field_validator("model")
    @classmethod
    def _readable_model(cls, value: str) -> str:
        return clean_name(value, what="model")

    @field_validator("agent")
    @classmethod
    def _spelled_agent(cls, value: str) -> str:
        from coordqa.games.base import PLAYERS

        return PLAYERS.spelled(value)  # the one rule: the CLI's --agent reads names so


def _draw_seed() -> int:
    low, high = SEED_RANGE
    return low + secrets.randbelow(high - low)


def _check_api_base(model: str, api_base: str, allow_private: bool) -> None:
    """Refuse an endpoint the worker should not call (wrong scheme, own network) or cannot.

    An address that carries a secret (``http://user:pw@host/v1``, ``...?key=K``) is refused
    rather than stored: the board keeps an ``api_base`` in clear, and seals only ``api_key``.

    The worker reaches a registered endpoint only as an OpenAI-compatible server, through the
    transport whose connections it checks (:mod:`coordqa.llm.addresses`); the same address rule
    is checked again on every connection the worker makes.
    """
    parts = urlsplit(api_base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"api_base must be an http(s) URL, got {shown_endpoint(api_base)!r}")
    if stored_endpoint(api_base) != api_base:
        raise ConfigError(
            f"api_base {shown_endpoint(api_base)!r} holds a user name, password, query or "
            "fragment, which this board would store as typed, unencrypted; give the address "
            "without them, and the key with --api-key-env (api_key in the request), which the "
            "board stores encrypted"
        )
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
        raise ConfigError(
            f"api_base {shown_endpoint(api_base)!r}: {exc} (a board whose endpoints run on its "
            "own machine or network is started with coordqa leaderboard serve "
            "--allow-private-endpoints)"
        ) from exc
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"api_base {shown_endpoint(api_base)!r}: {parts.hostname} does not resolve"
        ) from exc


def _check_hosted(model: str, hosted: tuple[str, ...]) -> None:
    if not any(fnmatch.fnmatchcase(model, pattern) for pattern in hosted):
        names = [pattern for pattern in hosted if not any(c in pattern for c in "*?[")]
        close = did_you_mean(model, names)
        hint = f".{close} Or" if close else ":"
        raise ConfigError(
            f"model {model!r} has no api_base and is not one this board hosts "
            f"({', '.join(hosted)}){hint} give the api_base of your OpenAI-compatible server"
        )


def _check_grid_request(request: EndpointRequest) -> None:
    """Refuse grid jobs the worker cannot run: an unknown agent, or a player that calls no model.

    An unknown agent is offered the LLM agents only, as ``agentic run`` offers its agents.
    """
    from coordqa.games.base import GAMES, role_player

    if role_player(request.agent, "agent", GAMES.names(), calling_a_model=True).kind != "llm":
        raise ConfigError(
            f"agent {request.agent!r} calls no model; a board-run grid tests the model with an "
            "LLM agent (cac, hm, llm...)"
        )


class SameRegistration(TypedDict):
    """A token's earlier job of the endpoint it registers again (what the answer names)."""

    job: int
    status: str
    entry: int | None
    grid: str | None


def same_registrations(db: Database, jobs: list[Job]) -> list[SameRegistration]:
    """This token's earlier jobs of the same endpoint, model, display name and test as ``jobs``.

    A registration makes jobs of its own, and each job its own ranked entry (a fresh private
    split or deals), as each upload is its own entry; so registering the same endpoint again
    ranks a second entry beside the first, which the submitter is told, as ``submit`` tells of
    an earlier upload of the same model and test (walkthrough 15 ranked two without a word).
    Only jobs that made or may still make an entry are named: queued, running, or done with an
    entry (a failed or cancelled job made none, and the board's own advice is to register
    again). At most :data:`MOST_ENTRIES_BESIDE`, oldest first.
    """
    if not jobs:
        return []
    with db.session() as session:
        endpoint = session.get(Endpoint, jobs[0].endpoint_id)
        if endpoint is None:
            return []
        tests = [(job.kind, job.grid) for job in jobs]
        rows = session.execute(
            select(Job.id, Job.status, Job.submission_id, Job.grid)
            .join(Endpoint, Job.endpoint_id == Endpoint.id)
            .where(
                Endpoint.token_id == endpoint.token_id,
                Endpoint.id != endpoint.id,
                Endpoint.model == endpoint.model,
                Endpoint.display_name == endpoint.display_name,
                Endpoint.api_base.is_(None)
                if endpoint.api_base is None
                else Endpoint.api_base == endpoint.api_base,
                or_(Job.status.in_(("queued", "running")), Job.submission_id.is_not(None)),
                or_(
                    *(
                        (Job.kind == kind)
                        & (Job.grid.is_(None) if grid is None else Job.grid == grid)
                        for kind, grid in tests
                    )
                ),
            )
            .order_by(Job.id)
            .limit(MOST_ENTRIES_BESIDE)
        )
        return [
            SameRegistration(job=row.id, status=row.status, entry=row.submission_id, grid=row.grid)
            for row in rows
        ]


def register_endpoint(
    db: Database,
    token_id: int,
    request: EndpointRequest,
    settings: BoardRunSettings,
    box: SecretBox | None = None,
    grids: tuple[str, ...] = (),
    quota: int | None = None,
) -> tuple[Endpoint, list[Job]]:
    """Store an endpoint and queue its jobs: CoordinationQA, then each requested grid.

    ``grids`` are the names the board ranks (the request's must be among them). The key is
    sealed with ``box`` (the board's :class:`SecretBox`) before it is stored. ``quota``, the
    token's (:func:`~coordqa.leaderboard.db.check_quota`), must leave room for every job, each
    the entry it will make; it is counted in the transaction that queues them, and kept in the
    jobs' settings so that the worker checks it again when it stores the entry.

    Raises:
        ConfigError: an unusable api_base, a model the board does not host without one, a key
            without an api_base, an unknown grid, or a name that is not plain text.
        QuotaError: the jobs would pass the token's quota.
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
    for grid in request.grids:
        if grid not in grids:
            raise unknown_grid(grid, grids)
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
    common = {k: v for k, v in asdict(settings).items() if k != "hosted"} | {"quota": quota}
    with db.session() as session:
        claim_display_name(session, token_id, partial(refuse_imitation, info.display_name))
        if quota is not None:
            lock_token(session, token_id)
            check_quota(session, token_id, quota, adding=len(kinds))
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


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None or moment.tzinfo:
        return moment
    return moment.replace(tzinfo=timezone.utc)  # SQLite returns naive UTC times


def claim_job(db: Database, worker: str, lease_s: float = LEASE_S) -> int | None:
    """Take a job: queued, or running with a worker gone silent; its id, or None.

    Jobs are taken round-robin over the submitters' tokens: the token whose last job was
    started longest ago (or never) goes first, with its oldest claimable job, so one token's
    queue of jobs does not hold back everyone else's. A claimed job's secret seeds are drawn
    again (a QA job's private split, a grid job's deals): whatever an earlier session asked
    the endpoint, the new one asks questions and deals no one has seen.

    The claim is one conditional update (the job is taken only if it is still claimable, in the
    state it was read in), so two workers never take the same job: a job another worker claimed
    between this one's reads is running with a fresh heartbeat, not a stale one to take over.
    """
    now = datetime.now(timezone.utc)
    stale = now - timedelta(seconds=lease_s)
    claimable = or_(Job.status == "queued", (Job.status == "running") & (Job.heartbeat_at < stale))
    with db.session() as session:
        last_started = (
            select(Endpoint.token_id, func.max(Job.started_at).label("last"))
            .join(Job, Job.endpoint_id == Endpoint.id)
            .group_by(Endpoint.token_id)
            .subquery()
        )
        first_job = (
            select(Endpoint.token_id, func.min(Job.id).label("job"))
            .join(Job, Job.endpoint_id == Endpoint.id)
            .where(claimable)
            .group_by(Endpoint.token_id)
            .subquery()
        )
        first = list(
            session.execute(
                select(first_job.c.job)
                .join(last_started, last_started.c.token_id == first_job.c.token_id)
                .order_by(last_started.c.last.asc().nulls_first(), first_job.c.job)
                .limit(10)
            ).scalars()
        )
        candidates = session.execute(
            select(Job.id, Job.status, Job.heartbeat_at).where(Job.id.in_(first))
        ).all()
    order = {job_id: index for index, job_id in enumerate(first)}
    for job_id, status, heartbeat in sorted(candidates, key=lambda c: order.get(c[0], 0)):
        seen = Job.heartbeat_at.is_(None) if heartbeat is None else Job.heartbeat_at == heartbeat
        with db.session() as session:
            claimed = session.execute(
                update(Job)
                .where(Job.id == job_id, Job.status == status, seen, claimable)
                .values(
                    status="running",
                    worker=worker,
                    heartbeat_at=now,
                    started_at=now,
                    sessions=Job.sessions + 1,
                    private_seed=_draw_seed(),
                    seed=case((Job.kind == "agentic", _draw_seed()), else_=Job.seed),
                )
            )
            if cast("CursorResult[Any]", claimed).rowcount == 1:
                return int(job_id)
    return None


def job_is_ours(db: Database, job_id: int, worker: str) -> bool:
    """Whether ``worker`` still runs ``job_id`` (not cancelled, requeued or taken over)."""
    with db.session() as session:
        found = session.execute(select(Job.status, Job.worker).where(Job.id == job_id)).first()
    return found is not None and tuple(found) == ("running", worker)


def end_job(
    db: Database,
    job_id: int,
    worker: str,
    status: str,
    *,
    error: str | None = None,
    detail: str | None = None,
    submission_id: int | None = None,
    note: str | None = None,
    usage: dict[str, Any] | None = None,
) -> bool:
    """End a job ``worker`` runs as ``done`` or ``failed``; False if it is no longer its own.

    A job cancelled or requeued by the admin, or taken over by another worker, while this one
    ran it keeps the state they gave it. ``usage``: the job's spending over all its sessions,
    this one's to its end, written with the ending (:func:`_ending_usage`).
    """
    if status not in ("done", "failed"):
        raise ConfigError(f"a worker ends a job as done or failed; got {status}")
    with db.session() as session:
        ended = session.execute(
            update(Job)
            .where(Job.id == job_id, Job.status == "running", Job.worker == worker)
            .values(
                status=status,
                error=error,
                detail=detail,
                note=note,
                submission_id=submission_id,
                finished_at=datetime.now(timezone.utc),
                **_ending_usage(usage),
            )
        )
    return cast("CursorResult[Any]", ended).rowcount == 1


def release_job(
    db: Database, job_id: int, worker: str, *, usage: dict[str, Any] | None = None
) -> bool:
    """Put a job ``worker`` runs back in the queue (its worker was stopped); False if not its own.

    Its public run and usage are kept (``usage``: this session's to its end, as
    :func:`end_job`'s); the next claim draws new secret seeds, as after a lease that ran out,
    but without the lease's wait.
    """
    with db.session() as session:
        released = session.execute(
            update(Job)
            .where(Job.id == job_id, Job.status == "running", Job.worker == worker)
            .values(status="queued", worker=None, heartbeat_at=None, **_ending_usage(usage))
        )
    return cast("CursorResult[Any]", released).rowcount == 1


def _ending_usage(usage: dict[str, Any] | None) -> dict[str, Any]:
    """The usage column's value as a session ends, where the worker gives it.

    Written in the ending's own update, so a session counts every second it held the job
    however it ended: a worker stopped while it built the private split wrote only its last
    heartbeat's usage, "1 of 21,600 s of worker time" for about 10 s held (walkthrough 19 B3).
    """
    return {} if usage is None else {"usage": usage}


class JobChange(NamedTuple):
    """What an admin's :func:`set_job_status` found and did."""

    changed: bool
    status: str
    """The job's status after the change (the one it had, where nothing changed)."""
    finished: datetime | None
    """When the job finished (None while it is queued or running)."""
    error: str | None
    """The job's public error, as it stands after the change."""


def set_job_status(
    db: Database, job_id: int, status: str, *, error: str | None = None
) -> JobChange:
    """The admin's change: cancel a job (``cancelled``) or queue it again (``queued``).

    A running job's worker sees the change at its next model call and stops. A job queued
    again keeps its public run and usage, and draws new secret seeds when it is claimed.
    A job already in ``status`` is left as it is (its first cancellation's time and error
    stay), as a revoked token revoked again; so is a failed job asked to be cancelled: it has
    stopped already, and its error says why (a cancel that landed as its budget stopped it
    replaced "used its budget" with "cancelled by the admin", blind walkthrough 15 #319).
    """
    if status not in ("cancelled", "queued"):
        raise ConfigError(f"a job is set to cancelled or queued; got {status}")
    with db.session() as session:
        job = _job_to_change(db, session, job_id, "requeue" if status == "queued" else "cancel")
        changed = job.status not in (status, *(("failed",) if status == "cancelled" else ()))
        if changed:
            job.status = status
            job.error = error
            job.detail = job.note = None
            job.finished_at = datetime.now(timezone.utc) if status in FINISHED else None
        return JobChange(changed, job.status, _utc(job.finished_at), job.error)


def raise_budget(db: Database, job_id: int, **budgets: float | None) -> None:
    """Set new budgets (:data:`BUDGETS`) on a job; None keeps one.

    Raises:
        LeaderboardError: no job has that id.
        ConfigError: an unknown budget or one below 1.
    """
    given = {name: value for name, value in budgets.items() if value is not None}
    unknown = sorted(set(given) - set(BUDGETS))
    if unknown:
        raise ConfigError(f"unknown budget {', '.join(unknown)}: {', '.join(BUDGETS)}")
    for name, value in given.items():
        if value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1, got {value:g}")
    with db.session() as session:
        job = _job_to_change(db, session, job_id, "requeue")
        job.settings = {**job.settings, **given}


_CHANGES_FOR = {
    "requeue": "failed (a budget reached included) or cancelled jobs",
    "cancel": "queued or running jobs",
}
"""The jobs an admin's change is for (:func:`set_job_status`, :func:`raise_budget`)."""


def _job_to_change(db: Database, session: Session, job_id: int, change: str) -> Job:
    """Job ``job_id``, which the admin's ``change`` may touch: never a done job.

    A done job is final: it has its entry and has shown its secret seeds, and running it again
    would draw new ones and hide those from the job list. The job is locked before it is read
    (a write, the lock SQLite and PostgreSQL share, as :func:`lock_token`), so a worker ending
    it meanwhile lands before the read or after the change, never between them (a done job
    was turned cancelled while its worker took it as done).

    Raises:
        LeaderboardError: no job has that id, or it is done.
    """
    session.execute(update(Job).where(Job.id == job_id).values(status=Job.status))
    job = session.get(Job, job_id)
    if job is None:
        raise LeaderboardError(f"no job {job_id}; see `{db.command('job list')}`")
    if job.status == "done":
        ended = f"entry {job.submission_id}" if job.submission_id is not None else job.note
        raise LeaderboardError(
            f"job {job_id} is done ({ended or 'no entry'}); {change} is for {_CHANGES_FOR[change]}"
        )
    return job


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
    """``calls``, ``tokens`` and ``seconds`` spent so far, over all sessions: ``calls`` as the
    calls budget counts them (let out, those cut off in flight included)."""
    sessions: int
    error: str | None
    """Why a failed job failed, in one sentence for its submitter."""
    note: str | None
    """What the submitter should know of a job that is done (its results equal an entry's)."""
    entry: int | None
    """The entry the job stored (None until it stored one, and for a job whose results were
    already an entry: see ``note``)."""
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    seed: int | None
    """QA: the sampling seed, shown from the start (it is sent to the endpoint). Agentic: the
    deals' seed, None until the job is done."""
    private_seed: int | None
    """QA: the private split's seed, None until the job is done."""
    seeds: str
    """Which seeds are shown, and why the others are not."""


SAMPLING_SEED_NOTE = (
    "the sampling seed is public: it is sent to the endpoint with every request (an "
    "OpenAI-compatible seed)"
)
"""Why a QA job's sampling seed is shown while the job runs."""


def job_json(job: Job, endpoint: Endpoint) -> JobView:
    """A job as anyone may read it: never the key, the endpoint's URL or the admin's details.

    The secret seeds (a QA job's private split, a grid job's deals) only once the job is
    done: a queued, running, failed or cancelled job may run again, and would then draw new
    ones, but its endpoint has seen the questions or deals of the seeds drawn so far.
    """
    done = job.status == "done"
    qa = job.kind == "qa"
    if qa:
        seeds = SAMPLING_SEED_NOTE + (
            "; the private split's seed is shown"
            if done
            else "; the private split's seed is secret until the job is done"
        )
    else:
        seeds = (
            "the deals' seed is shown"
            if done
            else "the deals' seed is secret until the job is done"
        )
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
        "note": job.note,
        "entry": job.submission_id,
        "created_at": _iso(job.created_at),
        "started_at": _iso(job.started_at),
        "finished_at": _iso(job.finished_at),
        "seed": job.seed if qa or done else None,
        "private_seed": job.private_seed if qa and done else None,
        "seeds": seeds,
    }


def _iso(moment: datetime | None) -> str | None:
    found = _utc(moment)
    return None if found is None else found.isoformat()


def list_jobs(
    db: Database, job_id: int | None = None, *, limit: int | None = None, offset: int = 0
) -> list[JobView]:
    """Every job (or one, or a page of ``limit`` from ``offset``), newest first.

    As :func:`job_json` shows them.

    Raises:
        LeaderboardError: ``job_id`` names no job.
    """
    with db.session() as session:
        query = select(Job, Endpoint).join(Endpoint, Job.endpoint_id == Endpoint.id)
        if job_id is not None:
            query = query.where(Job.id == job_id)
        query = query.order_by(Job.id.desc()).offset(offset).limit(limit)
        rows = session.execute(query).all()
        if job_id is not None and not rows:
            raise LeaderboardError(f"no job {job_id}; see GET /api/jobs")
        return [job_json(job, endpoint) for job, endpoint in rows]


def count_jobs(db: Database) -> int:
    """How many jobs the board has (the total a page of :func:`list_jobs` is of)."""
    with db.session() as session:
        return int(session.execute(select(func.count()).select_from(Job)).scalar_one())


def job_details(db: Database) -> dict[int, str]:
    """The admin's detail of each failed job, by id (never served; the job list shows it)."""
    with db.session() as session:
        rows = session.execute(select(Job.id, Job.detail).where(Job.detail.is_not(None)))
        return {int(job_id): str(detail) for job_id, detail in rows}


def entry_of_job(db: Database, job_id: int) -> Submission | None:
    """The entry a job stored, if any (a resumed job finds the one it stored before)."""
    with db.session() as session:
        return session.scalars(select(Submission).where(Submission.job_id == job_id)).first()
