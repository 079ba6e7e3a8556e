"""Storage: SQLAlchemy 2 models, engines, and the schema the server creates and migrates itself.

SQLite (a file, the default) and PostgreSQL (by URL) run the same code. The schema version lives
in the ``meta`` table; :func:`migrate` creates a new database at the current version, applies
to an older one the steps in :data:`UPGRADES` it has not seen yet, each in its own transaction,
and refuses a database written by a newer coordqa.

A submission and its per-sample rows are written in one transaction. The bundle digest is
unique, so two concurrent identical submissions cannot both be stored: the loser's commit fails
with an integrity error and it answers with the winner's row (see :func:`store_submission`).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    defer,
    mapped_column,
    sessionmaker,
)

from coordqa import paths
from coordqa.errors import ConfigError, CoordqaError
from coordqa.leaderboard.names import admin_text
from coordqa.words import counted, parameter_words

__all__ = [
    "SCHEMA_VERSION",
    "Attempt",
    "DuplicateResultsError",
    "ENTRY_OF_RESULTS",
    "Endpoint",
    "entry_differences",
    "Job",
    "FINISHED",
    "QuotaError",
    "check_quota",
    "quota_held",
    "quota_held_words",
    "SERVED_QUOTA",
    "claim_display_name",
    "lock_token",
    "SHOWN_AS",
    "shown_as",
    "visible_entries",
    "UPGRADES",
    "Base",
    "Database",
    "DatasetRow",
    "GridRow",
    "EpisodeResult",
    "LeaderboardError",
    "SampleResult",
    "Submission",
    "Token",
    "default_db_url",
    "migrate",
    "open_database",
]


MOST_ENTRIES_BESIDE = 10
"""Most of a token's entries of one model and test named beside a new one."""


class LeaderboardError(CoordqaError):
    """A leaderboard database is unusable, or an admin command names something that is not there."""


def quota_held_words(entries: int, jobs: int) -> str:
    """What a token holds of its quota, in the quota's words: ``5 visible entries and 1 ...``."""
    held = counted(entries, "visible entry", "visible entries")
    if jobs:
        held += f" and {counted(jobs, 'unfinished job')}"
        held += " (a job counts as the entry it will make)"
    return held


class QuotaError(LeaderboardError):
    """A token's entries and unfinished jobs leave no room under the quota for what it asks.

    The one wording of the quota, for uploads, registrations and a job storing its entry:
    it counts entries and jobs as they are, and names the quota.
    """

    def __init__(self, entries: int, jobs: int, quota: int, adding: int = 1) -> None:
        """``entries`` visible and ``jobs`` unfinished; ``adding`` entries (or jobs) asked for."""
        held = quota_held_words(entries, jobs)
        asked = "one more" if adding == 1 else f"the {adding} jobs this registration would queue"
        fewer = " (or register fewer grids)" if 1 < adding and entries + jobs < quota else ""
        super().__init__(
            f"this token has {held}: {asked} would pass the server's quota of {quota} per token "
            "(hidden entries do not count); ask the leaderboard admin to hide old ones or raise "
            f"the quota{fewer}"
        )
        self.quota = quota


class DuplicateResultsError(LeaderboardError):
    """The results of a submission are already an entry that shows them otherwise."""

    def __init__(self, existing: Submission, differences: Sequence[str]) -> None:
        """Say which entry holds them, and what the submission asks for that it does not show."""
        hidden = " (hidden by the admin)" if existing.hidden else ""
        # the rule and what to do first: a client bounds what it prints of a refusal, and the
        # fields that differ may be many (walkthrough 12 #122)
        super().__init__(
            f"the board ranks the same results once: these are already entry {existing.id}"
            f"{hidden}, submitted as {existing.display_name!r}; to show them otherwise, ask the "
            f"leaderboard admin. This submission differs in {'; '.join(differences)}"
        )
        self.existing_id = existing.id
        self.existing_hidden = existing.hidden


def lock_token(session: Session, token_id: int) -> None:
    """Lock a token's row for the rest of the transaction by writing its ``last_used_at``.

    A write is the one lock SQLite and PostgreSQL share: PostgreSQL locks the row, SQLite the
    database (taken before the transaction reads anything, so it never has to upgrade a read
    snapshot). Two submissions with one token thus count and insert one after the other.
    """
    session.execute(update(Token).where(Token.id == token_id).values(last_used_at=_now()))


NameRefusal = Callable[[set[str]], None]
"""Checks a display name against the names other tokens hold (raises to refuse it)."""


def claim_display_name(session: Session, token_id: int | None, refuse: NameRefusal) -> None:
    """Check a display name about to be stored, inside the transaction that stores it.

    ``refuse`` gets the display names of other tokens' entries and endpoints (entries without
    a token count as another submitter's; hidden entries keep their names) and raises to
    refuse. Every transaction that stores a name takes one lock first, a write to the meta
    table's ``schema_version`` row (the lock SQLite and PostgreSQL share, as
    :func:`lock_token`), so two look-alike names sent at once by two tokens are checked one
    after the other: the second sees the first. A name without a token (an admin's import) is
    not checked.
    """
    if token_id is None:
        return
    session.execute(update(Meta).where(Meta.key == "schema_version").values(value=Meta.value))
    names: set[str] = set()
    for table in (Submission, Endpoint):
        names.update(
            session.scalars(
                select(table.display_name)
                .where(or_(table.token_id.is_(None), table.token_id != token_id))
                .distinct()
            )
        )
    refuse(names)


def visible_entries(session: Session, token_id: int) -> int:
    """How many visible (not hidden) submissions are stored with a token."""
    count = session.execute(
        select(func.count())
        .select_from(Submission)
        .where(Submission.token_id == token_id, Submission.hidden.is_(False))
    ).scalar_one()
    return int(count)


FINISHED = ("done", "failed", "cancelled")
"""Job states in which nothing runs (only a ``done`` job shows its secret seeds)."""


def quota_held(session: Session, token_id: int, job_id: int | None = None) -> tuple[int, int]:
    """A token's visible entries and unfinished jobs (but ``job_id``): what its quota counts."""
    jobs = session.execute(
        select(func.count())
        .select_from(Job)
        .join(Endpoint, Job.endpoint_id == Endpoint.id)
        .where(Endpoint.token_id == token_id, Job.status.not_in(FINISHED), Job.id != job_id)
    ).scalar_one()
    return visible_entries(session, token_id), int(jobs)


def check_quota(
    session: Session, token_id: int, quota: int, adding: int = 1, job_id: int | None = None
) -> None:
    """Refuse ``adding`` more entries for a token past its quota: the one rule of the quota.

    The quota counts the token's visible entries and its unfinished jobs, each job counting as
    the entry it will make, so neither a registration of several jobs nor an upload beside
    queued jobs gets round it. ``job_id``, a job storing its own entry, is not counted twice.
    Called inside the transaction that stores, after :func:`lock_token`, so concurrent
    requests count one after the other.

    Raises:
        QuotaError: the entries and jobs, plus ``adding``, pass ``quota``.
    """
    entries, jobs = quota_held(session, token_id, job_id)
    if entries + jobs + adding > quota:
        raise QuotaError(entries, jobs, quota, adding)


def _set_row_hidden(row: Submission, hidden: bool, why: str | None, by_token: bool = False) -> bool:
    """Hide or show one stored entry: whether it changed state (the rule of both hide commands).

    An entry hidden already keeps its reason unless a new one (``why``) is given; a shown entry
    has none. ``by_token``: hidden with its token's entries, which ``unhide --token`` undoes; an
    entry an admin hides on its own (or gives its own reason) stays hidden then (walkthrough 18
    #194 showed again an entry hidden as superseded).
    """
    changed = row.hidden != hidden
    if changed or why is not None:
        row.hidden = hidden
        row.hidden_reason = why if hidden else None
    if changed or (why is not None and not by_token):
        row.hidden_by_token = hidden and by_token
    return changed


def _now() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC time: SQLite returns the stored UTC times naive."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of the leaderboard tables."""


SERVED_QUOTA = "served_quota"
"""The meta key of the quota the server was last started with (``0``: none)."""


class Meta(Base):
    """Key/value facts about the database itself (``schema_version``)."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class Token(Base):
    """A submitter's bearer token, stored as its SHA-256 only."""

    __tablename__ = "tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When an admin revoked it (a revoked token no longer authenticates)."""
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When it last tried to submit. Writing it first in a transaction locks the token's row, so
    one token's rate-limit and quota checks run one at a time (:func:`lock_token`)."""


class Attempt(Base):
    """One submission attempt of a token within the rate limit's window (older ones are pruned)."""

    __tablename__ = "attempts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_id: Mapped[int] = mapped_column(ForeignKey("tokens.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DatasetRow(Base):
    """A dataset registered by an admin; its rows are kept so re-scoring needs no files."""

    __tablename__ = "datasets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200), unique=True, index=True)
    """A name names one dataset: a bundle, a board page and the API name it (:func:`_v6_to_v7`)."""
    rows: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class GridRow(Base):
    """An agentic grid registered by an admin: the episodes an agentic submission must cover."""

    __tablename__ = "grids"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200), unique=True, index=True)
    """A name names one grid: a bundle's ``grid`` field is its name (:func:`_v6_to_v7`)."""
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class Submission(Base):
    """One accepted bundle, its recomputed numbers and its visibility."""

    __tablename__ = "submissions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    result_digest: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    """Hash of the results alone (:func:`coordqa.leaderboard.bundle.result_digest`): one run
    sent again under another name has a new ``digest`` but the same results."""
    track: Mapped[str] = mapped_column(String(32), index=True)
    display_name: Mapped[str] = mapped_column(String(200))
    provider: Mapped[str] = mapped_column(String(100))
    parameters: Mapped[float | None] = mapped_column(Float, nullable=True)
    organisation: Mapped[str | None] = mapped_column(String(200), nullable=True)
    link: Mapped[str | None] = mapped_column(String(500), nullable=True)
    model_name: Mapped[str] = mapped_column(String(200))
    dataset_fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """QA track: the dataset answered; None for agentic runs."""
    grid_fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """Agentic track: the registered grid covered; None for QA runs."""
    coordqa_version: Mapped[str] = mapped_column(String(50))
    trials: Mapped[int] = mapped_column(Integer)
    """QA track: trials per question; agentic track: episodes."""
    metrics: Mapped[dict[str, Any]] = mapped_column(JSON)
    reported: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    mismatches: Mapped[list[str]] = mapped_column(JSON)
    bundle: Mapped[str] = mapped_column(Text)
    token_id: Mapped[int | None] = mapped_column(ForeignKey("tokens.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    hidden_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    hidden_by_token: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Hidden with all of its token's entries (``hide --token``, ``token revoke
    --hide-entries``), not on its own: ``unhide --token`` shows again only these."""
    provenance_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When an admin checked who produced the replies (the server alone cannot)."""
    provenance_note: Mapped[str | None] = mapped_column(String(500), nullable=True)
    """What the admin checked (shown beside the mark)."""
    flags: Mapped[list[str]] = mapped_column(JSON, default=list, server_default=text("'[]'"))
    """Warnings for readers (entries stored before look-alike display names were refused carry
    one saying which entry their name looks like)."""
    origin: Mapped[str] = mapped_column(
        String(20), default="uploaded", server_default=text("'uploaded'"), index=True
    )
    """``uploaded`` (a bundle a submitter sent) or ``board-run`` (a job the board ran)."""
    job_id: Mapped[int | None] = mapped_column(ForeignKey("jobs.id"), nullable=True)
    """The job that produced a board-run entry."""

    @property
    def agrees(self) -> bool:
        """Whether any numbers the submitter reported agree with the recomputed ones."""
        return not self.mismatches


class Endpoint(Base):
    """A model a submitter asked the board to evaluate itself (a board-run entry)."""

    __tablename__ = "endpoints"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_id: Mapped[int] = mapped_column(ForeignKey("tokens.id"), index=True)
    model: Mapped[str] = mapped_column(String(200))
    """The model name for :func:`coordqa.llm.get_model` (``openai/my-model``, ``random``)."""
    api_base: Mapped[str | None] = mapped_column(String(500), nullable=True)
    """The submitter's OpenAI-compatible server; None for a model the board hosts."""
    api_key_sealed: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The submitter's API key, encrypted (:class:`coordqa.leaderboard.sealing.SecretBox`)."""
    display_name: Mapped[str] = mapped_column(String(200))
    provider: Mapped[str] = mapped_column(String(100))
    parameters: Mapped[float | None] = mapped_column(Float, nullable=True)
    organisation: Mapped[str | None] = mapped_column(String(200), nullable=True)
    link: Mapped[str | None] = mapped_column(String(500), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


SHOWN_AS = ("display_name", "provider", "parameters", "organisation", "link")
"""What a submitter says about its model: stored alike on a :class:`Submission` and on an
:class:`Endpoint` (whose entries the board builds), and the keywords of the bundle builders."""


def shown_as(row: Submission | Endpoint) -> dict[str, Any]:
    """The row's :data:`SHOWN_AS` fields, by name."""
    return {name: getattr(row, name) for name in SHOWN_AS}


ENTRY_OF_RESULTS = {
    "model_name": "model",
    "display_name": "display name",
    "provider": "provider",
    "parameters": "parameter count",
    "organisation": "organisation",
    "link": "link",
    "origin": "origin",
    "job_id": "job",
}
"""What makes results already stored the same entry, by how a refusal names it: what the entry
shows (:data:`SHOWN_AS`) and where it came from (an upload, or one board-run job: a job never
takes another's entry)."""


def entry_differences(existing: Submission, asked: Mapping[str, Any]) -> list[str]:
    """What a submission of ``existing``'s results asks for that ``existing`` does not show.

    ``asked``: the submission's :data:`ENTRY_OF_RESULTS` fields. Nothing: it is that entry,
    sent again (from another run folder, say) and answered with its id; else the refusal names
    each difference, ``link 'https://...' (the entry's: none)``, so a submitter who gave no
    name learns what differs.
    """

    def shown(name: str, value: Any) -> str:
        if value is None:
            return "none"
        return parameter_words(value) if name == "parameters" else repr(value)

    return [
        f"{label} {shown(name, asked.get(name))} "
        f"(the entry's: {shown(name, getattr(existing, name))})"
        for name, label in ENTRY_OF_RESULTS.items()
        if asked.get(name) != getattr(existing, name)
    ]


class Job(Base):
    """One evaluation the board runs against an endpoint: queued, claimed by a worker, resumed.

    The secret seeds (a QA job's private split, a grid job's deals) are drawn again each time
    a worker claims the job (:func:`coordqa.leaderboard.jobs.claim_job`) and shown only once
    it is done; a QA job's sampling seed is sent to the endpoint, so it is public.
    """

    __tablename__ = "jobs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    endpoint_id: Mapped[int] = mapped_column(ForeignKey("endpoints.id"), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    """``qa`` (CoordinationQA: the public release and a private split) or ``agentic``."""
    grid: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """Agentic jobs: the grid played."""
    status: Mapped[str] = mapped_column(String(20), index=True, default="queued")
    """``queued``, ``running``, ``done``, ``failed`` or ``cancelled``."""
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    """What the job runs with (trials, private split size, budgets): fixed when queued."""
    seed: Mapped[int] = mapped_column(Integer)
    """QA: the sampling seed (trial ``t`` is sampled with ``seed + t``), sent to the endpoint
    with every request, so public. Agentic: the secret seed of the deals, drawn at each claim."""
    private_seed: Mapped[int] = mapped_column(Integer)
    """QA: the secret seed of the private split's game states, drawn at each claim."""
    usage: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    """Calls, tokens and seconds spent so far, over every session."""
    sessions: Mapped[int] = mapped_column(Integer, default=0)
    """How many times a worker took the job (1 + resumes)."""
    worker: Mapped[str | None] = mapped_column(String(200), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the running worker last said it was alive (a stale one's job is taken over)."""
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    """Why the job failed, in one sentence for the submitter (public; :mod:`job_errors`)."""
    detail: Mapped[str | None] = mapped_column(Text, nullable=True)
    """Why the job failed, in full for the board's admin (keys redacted; never served)."""
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    """What the submitter should know of a job that is done (its results equal an entry's)."""
    submission_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The entry the job produced (None for a job whose results were already an entry)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class SampleResult(Base):
    """The re-scored outcome of one (question, trial) of a submission.

    The reply text itself is kept once, in the submission's bundle.
    """

    __tablename__ = "samples"
    __table_args__ = (UniqueConstraint("submission_id", "question_id", "trial"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    question_id: Mapped[str] = mapped_column(String(200))
    trial: Mapped[int] = mapped_column(Integer)
    scenario_id: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(50))
    question_type: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(20))
    correct: Mapped[bool] = mapped_column(Boolean)
    choice: Mapped[int | None] = mapped_column(Integer, nullable=True)


SAMPLE_FIELDS = tuple(
    c.name for c in SampleResult.__table__.columns if c.name not in ("id", "submission_id")
)
"""Columns of a sample row that come from verification."""


class EpisodeResult(Base):
    """The replayed outcome of one episode of an agentic submission."""

    __tablename__ = "episodes"
    __table_args__ = (UniqueConstraint("submission_id", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    key: Mapped[str] = mapped_column(String(500))
    game: Mapped[str] = mapped_column(String(50))
    layout: Mapped[str] = mapped_column(String(100))
    partner: Mapped[str] = mapped_column(String(200))
    pairing: Mapped[str] = mapped_column(String(10))
    position: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    score: Mapped[float] = mapped_column(Float)
    metrics: Mapped[dict[str, float]] = mapped_column(JSON)


EPISODE_FIELDS = tuple(
    c.name for c in EpisodeResult.__table__.columns if c.name not in ("id", "submission_id")
)
"""Columns of an episode row that come from verification."""


def _v1_to_v2(connection: Connection) -> None:
    """Registered grids, token revocation, the provenance mark and flags.

    Reply texts stay only in the stored bundle (they were stored twice).
    """
    postgres = connection.dialect.name == "postgresql"
    timestamp = "TIMESTAMP WITH TIME ZONE" if postgres else "DATETIME"
    Base.metadata.create_all(connection, tables=[Base.metadata.tables[GridRow.__tablename__]])
    for statement in (
        f"ALTER TABLE tokens ADD COLUMN revoked_at {timestamp}",
        "ALTER TABLE submissions ADD COLUMN grid_fingerprint VARCHAR(64)",
        f"ALTER TABLE submissions ADD COLUMN provenance_at {timestamp}",
        "ALTER TABLE submissions ADD COLUMN provenance_note VARCHAR(500)",
        "ALTER TABLE submissions ADD COLUMN flags JSON NOT NULL DEFAULT '[]'",
        'ALTER TABLE samples DROP COLUMN "text"',
        'ALTER TABLE samples DROP COLUMN "error"',
    ):
        connection.execute(text(statement))


def _v2_to_v3(connection: Connection) -> None:
    """Rate limits in the database (attempts) and the token row lock (last use)."""
    postgres = connection.dialect.name == "postgresql"
    timestamp = "TIMESTAMP WITH TIME ZONE" if postgres else "DATETIME"
    Base.metadata.create_all(connection, tables=[Base.metadata.tables[Attempt.__tablename__]])
    connection.execute(text(f"ALTER TABLE tokens ADD COLUMN last_used_at {timestamp}"))


def _v3_to_v4(connection: Connection) -> None:
    """The results' digest, so a run sent again under another name is recognised.

    Existing entries get it from their stored bundle; where two hold the same results, the
    later one keeps none (both stay, as they were ranked before).
    """
    from coordqa.leaderboard.bundle import result_digest

    connection.execute(text("ALTER TABLE submissions ADD COLUMN result_digest VARCHAR(64)"))
    seen: set[str] = set()
    rows = connection.execute(text("SELECT id, bundle FROM submissions ORDER BY id")).all()
    for submission_id, bundle in rows:
        digest = result_digest(json.loads(bundle))
        if digest in seen:
            continue
        seen.add(digest)
        connection.execute(
            text("UPDATE submissions SET result_digest = :d WHERE id = :i"),
            {"d": digest, "i": submission_id},
        )
    connection.execute(
        text("CREATE UNIQUE INDEX ix_submissions_result_digest ON submissions (result_digest)")
    )


def _v4_to_v5(connection: Connection) -> None:
    """Board-run entries: endpoints, jobs, and each entry's origin."""
    tables = [Base.metadata.tables[t.__tablename__] for t in (Endpoint, Job)]
    Base.metadata.create_all(connection, tables=tables)
    for statement in (
        "ALTER TABLE submissions ADD COLUMN origin VARCHAR(20) NOT NULL DEFAULT 'uploaded'",
        "ALTER TABLE submissions ADD COLUMN job_id INTEGER REFERENCES jobs (id)",
        "CREATE INDEX ix_submissions_origin ON submissions (origin)",
    ):
        connection.execute(text(statement))


def _v5_to_v6(connection: Connection) -> None:
    """A failed job's public sentence apart from its details, and a done job's note.

    Errors stored before carry the endpoint's address, its words and the worker's paths: they
    move to ``detail`` (the admin's), and the public error says only that the job failed.
    """
    from sqlalchemy import inspect

    present = {column["name"] for column in inspect(connection).get_columns("jobs")}
    for column in ("detail", "note"):  # a v4 board got them from :func:`_v4_to_v5`'s tables
        if column not in present:
            connection.execute(text(f"ALTER TABLE jobs ADD COLUMN {column} TEXT"))
    connection.execute(
        text("UPDATE jobs SET detail = error, error = :public WHERE status = 'failed'"),
        {"public": LEGACY_JOB_ERROR},
    )


LEGACY_JOB_ERROR = (
    "the job failed before the board wrote its errors for submitters: register the endpoint "
    "again, or ask the board's admin for the cause"
)
"""The public error of a job that failed before :func:`_v5_to_v6`."""


def _v6_to_v7(connection: Connection) -> None:
    """A dataset's and a grid's name is unique (a unique index, as a new board creates it).

    Before, registering other content under a name already taken stored both (blind
    walkthrough 12: two datasets 'syn'). Where a board holds such names, the later
    registrations are renamed ``NAME-FINGERPRINT`` (its first 12 characters, unique as the
    fingerprint is); entries refer to a dataset or grid by fingerprint, so none moves.
    """
    for table in ("datasets", "grids"):
        rows = connection.execute(text(f"SELECT id, name, fingerprint FROM {table} ORDER BY id"))
        seen: set[str] = set()
        for row_id, name, fingerprint in rows.all():
            if name in seen:
                name = f"{name[: 200 - 13]}-{fingerprint[:12]}"
                connection.execute(
                    text(f"UPDATE {table} SET name = :n WHERE id = :i"), {"n": name, "i": row_id}
                )
            seen.add(name)
        # IF NOT EXISTS: a v1 board got its grids table from today's model (:func:`_v1_to_v2`)
        index = f"CREATE UNIQUE INDEX IF NOT EXISTS ix_{table}_name ON {table} (name)"
        connection.execute(text(index))


def _v7_to_v8(connection: Connection) -> None:
    """Whether an entry was hidden with its token's entries (``hide --token``) or on its own.

    Entries hidden before are taken as hidden on their own: ``unhide --token`` leaves them
    hidden and names each with the command that shows it, rather than show what an admin may
    have hidden for a reason of its own.
    """
    from sqlalchemy import inspect

    present = {column["name"] for column in inspect(connection).get_columns("submissions")}
    if "hidden_by_token" not in present:  # a board marked older than its tables holds it
        connection.execute(
            text(
                "ALTER TABLE submissions ADD COLUMN hidden_by_token BOOLEAN NOT NULL DEFAULT FALSE"
            )
        )


UPGRADES: Sequence[Callable[[Connection], None]] = (
    _v1_to_v2,
    _v2_to_v3,
    _v3_to_v4,
    _v4_to_v5,
    _v5_to_v6,
    _v6_to_v7,
    _v7_to_v8,
)
"""Schema steps in order; step ``i`` brings a database from version ``i + 1`` to ``i + 2``.
A new database is created at :data:`SCHEMA_VERSION` directly."""
SCHEMA_VERSION = 1 + len(UPGRADES)
"""The schema version this code writes."""


def _stored_version(connection: Connection) -> int:
    if not connection.dialect.has_table(connection, Meta.__tablename__):
        return 0
    value = connection.execute(select(Meta.value).where(Meta.key == "schema_version")).scalar()
    return int(value) if value is not None else 0


def _set_version(connection: Connection, version: int) -> None:
    connection.execute(delete(Meta).where(Meta.key == "schema_version"))
    connection.execute(insert(Meta).values(key="schema_version", value=str(version)))


def migrate(engine: Engine) -> int:
    """Bring the database schema to :data:`SCHEMA_VERSION`; returns the version found before.

    An empty database gets every table at once; an older one gets the steps of
    :data:`UPGRADES` it has not seen, each in its own transaction.

    Raises:
        LeaderboardError: the database was written by a newer coordqa.
    """
    with engine.begin() as connection:
        found = _stored_version(connection)
    if found > SCHEMA_VERSION:
        raise LeaderboardError(
            f"the leaderboard database has schema version {found}, newer than this coordqa "
            f"understands ({SCHEMA_VERSION}); upgrade coordqa (pip install -U coordqa)"
        )
    if found == 0:
        with engine.begin() as connection:
            Base.metadata.create_all(connection)
            _set_version(connection, SCHEMA_VERSION)
        return found
    for version in range(found, SCHEMA_VERSION):
        with engine.begin() as connection:
            UPGRADES[version - 1](connection)
            _set_version(connection, version + 1)
    return found


def board_command(words: str, given_url: str | None) -> str:
    """``coordqa leaderboard WORDS`` with the admin's ``--db``: a hint to run as printed.

    Without it a hint run as printed would act on the default database, not the one the admin
    named. A URL that holds a password is not printed: the hint says ``--db <your --db>``.

    >>> board_command("token list", None)
    'coordqa leaderboard token list'
    >>> board_command("token revoke 1", "sqlite:///my board.db")
    "coordqa leaderboard token revoke 1 --db 'sqlite:///my board.db'"
    >>> board_command("job list", "postgresql://board:hunter22@db/board")
    'coordqa leaderboard job list --db <your --db>'
    """
    command = f"coordqa leaderboard {words}"
    if not given_url:
        return command
    try:
        secret = make_url(given_url).password is not None
    except (ArgumentError, ValueError):  # not a URL: open_database refuses it
        secret = True
    return f"{command} --db {'<your --db>' if secret else shlex.quote(given_url)}"


def default_db_url() -> str:
    """``sqlite:///<data root>/leaderboard.sqlite3`` (:mod:`coordqa.paths`): nothing to set up."""
    folder = paths.data_root()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'leaderboard.sqlite3'}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets readers work during a write; the busy timeout queues concurrent writers."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _note(text: str | None, what: str) -> str | None:
    """An admin's reason or note, checked (plain text, at most 500 characters), or None."""
    return None if text is None else admin_text(text, what=what, max_length=500)


class Database:
    """An engine with a session factory, migrated on open."""

    def __init__(self, engine: Engine, given_url: str | None = None) -> None:
        """Wrap ``engine``; use :func:`open_database` (``given_url``: the ``--db`` given)."""
        self.engine = engine
        self.given_url = given_url
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    def command(self, words: str) -> str:
        """``coordqa leaderboard WORDS`` run on this database (:func:`board_command`)."""
        return board_command(words, self.given_url)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session whose transaction commits on success and rolls back on any error."""
        with self._sessions.begin() as session:
            yield session

    def store(
        self,
        submission: Submission,
        samples: Sequence[Mapping[str, Any]],
        episodes: Sequence[Mapping[str, Any]] = (),
        *,
        quota: int | None = None,
        refuse_name: NameRefusal | None = None,
    ) -> tuple[int, bool]:
        """Store a submission with its samples (QA) or episodes (agentic) in one transaction.

        With a ``quota``, the token's entries and jobs are counted in the same transaction,
        after locking the token (:func:`lock_token`), so concurrent submissions cannot all pass
        one count. With ``refuse_name``, its display name is checked there too
        (:func:`claim_display_name`), first.

        Returns:
            ``(id, created)``: the new row's id and True, or, when a submission with the same
            digest exists (also one committed concurrently), its id and False.

        Raises:
            QuotaError: the token's entries and unfinished jobs (other than the submission's
                own job) leave no room under ``quota`` (:func:`check_quota`).
            Exception: what ``refuse_name`` raises.
        """
        try:
            with self.session() as session:
                token_id = submission.token_id
                if refuse_name is not None:
                    claim_display_name(session, token_id, refuse_name)
                if quota is not None and token_id is not None:
                    lock_token(session, token_id)
                    check_quota(session, token_id, quota, job_id=submission.job_id)
                session.add(submission)
                session.flush()
                session.add_all(
                    SampleResult(submission_id=submission.id, **{k: s[k] for k in SAMPLE_FIELDS})
                    for s in samples
                )
                session.add_all(
                    EpisodeResult(submission_id=submission.id, **{k: e[k] for k in EPISODE_FIELDS})
                    for e in episodes
                )
                new_id = submission.id
            return new_id, True
        except IntegrityError:
            existing = self.find_digest(submission.digest)
            if existing is None and submission.result_digest is not None:
                asked = {name: getattr(submission, name) for name in ENTRY_OF_RESULTS}
                existing = self.entry_of_results(submission.result_digest, asked)
            if existing is not None:
                return existing, False
            raise

    def entries_beside(self, entry_id: int) -> list[tuple[int, int]]:
        """``(id, trials)`` of the token's other visible entries of entry ``entry_id``'s test.

        The same model on the same dataset or grid, from the same token and of the same origin:
        most often an earlier upload of the same run with fewer trials (or episodes). The board
        ranks each run as its own entry, so both stay ranked; the submitter is told, so that an
        entry meant to replace another is not left beside it unknowingly. A board-run entry is
        the board's own measurement of the token's endpoint, which no upload replaces (blind
        walkthrough 13 #252 named one), so an upload is told of uploads only. None without a
        token.
        """
        with self.session() as session:
            entry = self._submission(session, entry_id)
            if entry.token_id is None:
                return []
            same = [
                Submission.token_id == entry.token_id,
                Submission.id != entry.id,
                Submission.hidden.is_(False),
                Submission.origin == entry.origin,
                Submission.track == entry.track,
                Submission.model_name == entry.model_name,
            ]
            for column, value in (
                (Submission.dataset_fingerprint, entry.dataset_fingerprint),
                (Submission.grid_fingerprint, entry.grid_fingerprint),
            ):
                same.append(column.is_(None) if value is None else column == value)
            rows = session.execute(
                select(Submission.id, Submission.trials)
                .where(*same)
                .order_by(Submission.id)
                .limit(MOST_ENTRIES_BESIDE)
            )
            return [(int(row.id), int(row.trials)) for row in rows]

    def find_digest(self, digest: str) -> int | None:
        """The id of the submission with ``digest``, if any."""
        with self.session() as session:
            return session.execute(
                select(Submission.id).where(Submission.digest == digest)
            ).scalar()

    def entry_of_results(self, result_digest: str, asked: Mapping[str, Any]) -> int | None:
        """The entry holding these results, when it shows them as ``asked`` (the same run).

        ``asked``: the :data:`ENTRY_OF_RESULTS` fields of the submission. The one rule of both
        tracks, whatever the bundle's digest: a run resent from another folder (another
        manifest) is its entry, as a resent bundle is.

        Returns:
            The entry's id, or None when no entry holds these results.

        Raises:
            DuplicateResultsError: an entry holds them but shows them otherwise (it says how).
        """
        same = self.find_results(result_digest)
        if same is None:
            return None
        differences = entry_differences(same, asked)
        if differences:
            raise DuplicateResultsError(same, differences)
        return same.id

    def find_results(self, result_digest: str) -> Submission | None:
        """The submission holding these results (:attr:`Submission.result_digest`), if any."""
        with self.session() as session:
            return session.scalars(
                select(Submission)
                .options(defer(Submission.bundle))
                .where(Submission.result_digest == result_digest)
            ).first()

    def _submission(self, session: Session, submission_id: int) -> Submission:
        row = session.get(Submission, submission_id)
        if row is None:
            raise LeaderboardError(
                f"no submission with id {submission_id}: an entry's id is the board's Entry "
                "column, `id` in http://HOST:PORT/api/entries (ranked entries) and the ID of "
                "an entry's page /submissions/ID (a hidden one's too)"
            )
        return row

    def hidden_state(self, submission_id: int) -> tuple[bool, str | None]:
        """Whether the submission is hidden, and the reason its page shows (None: none given).

        Raises:
            LeaderboardError: no submission has that id.
        """
        with self.session() as session:
            row = self._submission(session, submission_id)
            return row.hidden, row.hidden_reason

    def set_hidden(
        self, submission_id: int, hidden: bool, reason: str | None = None
    ) -> tuple[Submission, bool]:
        """Hide or show a submission (it is never deleted); it, and whether it changed state.

        An entry already in the state asked for is no error, as a revoked token revoked again
        (blind walkthrough 13 #112: ``unhide`` of a visible entry said it was "now visible").
        Hiding a hidden entry keeps its reason unless a new one is given.

        Raises:
            LeaderboardError: no submission has that id.
            ConfigError: the reason is blank, longer than 500 characters or not plain text.
        """
        why = _note(reason, "the reason")
        with self.session() as session:
            row = self._submission(session, submission_id)
            return row, _set_row_hidden(row, hidden, why)

    def set_hidden_of(self, token_id: int, hidden: bool, reason: str | None = None) -> int:
        """Hide a token's entries (a submitter's), or show again those hidden so.

        Returns how many changed state: ``unhide --token`` reports the entries it showed again,
        not the ones that were visible already. A new reason goes to the entries hidden already
        too, so a submitter's entries all say the same thing; without one they keep theirs, as
        with :meth:`set_hidden` (``hide --token`` again wiped them). Showing undoes hiding: an
        entry hidden on its own (:meth:`set_hidden`) stays hidden
        (:meth:`hidden_on_their_own` names them).

        Raises:
            LeaderboardError: no token has that id.
            ConfigError: the reason is blank, longer than 500 characters or not plain text.
        """
        why = _note(reason, "the reason")
        with self.session() as session:
            if session.get(Token, token_id) is None:
                raise LeaderboardError(
                    f"no token with id {token_id}; see `{self.command('token list')}`"
                )
            rows = session.scalars(select(Submission).where(Submission.token_id == token_id))
            shown = (row for row in rows if hidden or row.hidden_by_token)
            return sum(_set_row_hidden(row, hidden, why, by_token=True) for row in shown)

    def record_quota(self, quota: int | None) -> None:
        """Keep the quota the server runs with (None: none), for admin commands to check against.

        ``serve --quota`` lives in the server process; ``unhide`` runs beside it on the database
        and says when it takes a token past this quota (walkthrough 18 R6).
        """
        with self.session() as session:
            session.execute(delete(Meta).where(Meta.key == SERVED_QUOTA))
            session.execute(insert(Meta).values(key=SERVED_QUOTA, value=str(quota or 0)))

    def past_quota(self, token_id: int) -> tuple[int, int, int] | None:
        """``(entries, jobs, quota)`` when a token holds more than the quota last served with.

        None when it does not, or when no quota is known (none, or a board not served since it
        was recorded).
        """
        with self.session() as session:
            value = session.scalar(select(Meta.value).where(Meta.key == SERVED_QUOTA))
            quota = int(value) if value is not None and value.isdigit() else 0
            entries, jobs = quota_held(session, token_id)
        return (entries, jobs, quota) if quota and entries + jobs > quota else None

    def hidden_on_their_own(self, token_id: int) -> list[tuple[int, str | None]]:
        """``(id, reason)`` of a token's entries hidden one by one: ``unhide --token`` keeps them.

        Entries hidden before the board recorded how (schema version 8) count as such.
        """
        with self.session() as session:
            rows = session.execute(
                select(Submission.id, Submission.hidden_reason)
                .where(
                    Submission.token_id == token_id,
                    Submission.hidden.is_(True),
                    Submission.hidden_by_token.is_(False),
                )
                .order_by(Submission.id)
            )
            return [(entry, reason) for entry, reason in rows]

    def set_provenance(self, submission_id: int, note: str | None) -> tuple[Submission, bool]:
        """Mark that an admin checked who produced a submission, or clear the mark.

        ``note`` says what was checked (shown beside the mark); None clears the mark. Returns
        the submission and whether it changed: clearing an unmarked entry is no error, as
        :meth:`set_hidden` of a hidden one (walkthrough 19 R3: it said "cleared" again).

        Raises:
            LeaderboardError: no submission has that id.
            ConfigError: the note is blank, longer than 500 characters or not plain text.
        """
        checked = _note(note, "the note")
        with self.session() as session:
            row = self._submission(session, submission_id)
            changed = checked is not None or row.provenance_at is not None
            row.provenance_at = None if checked is None else _now()
            row.provenance_note = checked
            return row, changed

    def dispose(self) -> None:
        """Close the engine's connections."""
        self.engine.dispose()


SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3", ".db3")
"""The endings of a SQLite file offered for a missing ``--db`` (the default is ``.sqlite3``)."""


def _sqlite_file(url: str) -> Path | None:
    """The file of a ``sqlite:///PATH`` URL (None for an in-memory database)."""
    path = url.split("///", 1)[1] if "///" in url else ""
    return None if path in ("", ":memory:") else Path(path)


def open_database(url: str | None = None, *, create: bool = True) -> Database:
    """Open (and create or migrate) the leaderboard database at ``url``.

    Args:
        url: a SQLAlchemy URL (``sqlite:///path.sqlite3``,
            ``postgresql+psycopg://user@host:5432/db``); None: :func:`default_db_url`.
        create: False for commands that read an existing board (``export``, ``hide``...): a
            database that holds no leaderboard is refused instead of created empty.

    Raises:
        ConfigError: the URL is not a URL, or not a SQLite or PostgreSQL one.
        LeaderboardError: the database cannot be reached (a server down, a host that cannot
            exist), or ``create`` is False and the database holds no leaderboard.
    """
    given_url, url = url, url or default_db_url()
    shown = _shown_url(url)
    file = _sqlite_file(url) if url.startswith("sqlite") else None
    if file is not None:
        _refuse_missing_folder(file, shown)
    if not create and file is not None and not file.exists():
        raise LeaderboardError(_no_board(shown, given_url, missing=file))
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
    elif url.startswith("postgresql"):
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
        engine = create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)
    else:
        raise ConfigError(
            f"unsupported database URL {url!r}: use sqlite:///PATH or "
            "postgresql://USER@HOST:PORT/DB"
        )
    _check_reachable(engine, shown, url)
    if not create:
        with engine.begin() as connection:
            if _stored_version(connection) == 0:
                engine.dispose()
                raise LeaderboardError(_no_board(shown, given_url))
    migrate(engine)
    return Database(engine, given_url)


def _shown_url(url: str) -> str:
    """``url`` as an error may show it: its password hidden; refused if it is not a URL at all."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError) as error:  # ValueError: a port that is not a number
        raise ConfigError(
            f"--db is not a database URL ({error}): use sqlite:///PATH or "
            "postgresql://USER@HOST:PORT/DB"
        ) from None


def _refuse_missing_folder(file: Path, shown: str) -> None:
    """Say that a SQLite file's folder is missing, which SQLite reports only as "unable to open".

    SQLite creates the file, not its folder; its own words sent the user to check that "the
    database server is running" (blind walkthrough 9, ``serve --db sqlite:///nodir/board.db``).
    """
    folder = file.parent
    if folder.is_dir():
        return
    what = "is not a folder" if folder.exists() else "does not exist"
    raise LeaderboardError(
        f"cannot open the leaderboard database at {shown}: its folder {folder} {what}; create "
        f"it (mkdir -p {folder}) or give --db (or COORDQA_LEADERBOARD_DB) a file in an "
        "existing folder"
    )


def _check_reachable(engine: Engine, shown: str, url: str) -> None:
    """Connect once, so that an unreachable database is one error line, not a traceback.

    A server that is down or a host that cannot exist would otherwise surface as the driver's
    traceback from deep inside a command; the line names the URL with its password hidden.
    """
    try:
        with engine.connect():
            pass
    except (DBAPIError, UnicodeError, ValueError) as error:  # idna refuses a host like '...'
        engine.dispose()
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        password = make_url(url).password
        if password:
            reason = reason.replace(str(password), "***")
        raise LeaderboardError(
            f"cannot connect to the leaderboard database at {shown}: {reason}; check --db (or "
            "COORDQA_LEADERBOARD_DB) and that the database server is running"
        ) from None


def _no_board(url: str, given_url: str | None, missing: Path | None = None) -> str:
    """No board at ``url``, and how one is made; ``missing``: its SQLite file, not there.

    A missing file is said as every missing file a command is given is said
    (:func:`~coordqa.given_paths.missing_path`), with the closest names beside it: ``--db
    sqlite:///bord.db`` beside board.db (walkthrough 20, R2). Only the endings of a database
    file are offered, never SQLite's own ``board.db-wal`` beside it.
    """
    from coordqa.given_paths import missing_path

    said = (
        ""
        if missing is None
        else missing_path(missing, "the SQLite file", SQLITE_SUFFIXES, folders=False)
    )
    file = f"{said} " if said else ""
    return (
        f"no leaderboard database at {url}: {file}`{board_command('serve', given_url)}` "
        "creates one there; give --db (or COORDQA_LEADERBOARD_DB) with the URL the server uses"
    )


def dump_json(obj: Any) -> str:
    """Compact JSON for storing a bundle as text."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
