"""How much one submitter may send: a rate limit on attempts and a quota on visible entries.

Both are server settings (:class:`~coordqa.leaderboard.settings.SubmitterLimits`,
``coordqa leaderboard serve --rate-limit --quota``) applied to each token, and both live in
the database, so a restart (or a crash) forgets nothing and several server processes share them:

- the rate limit counts every authenticated submission attempt, refused ones included (a
  refused bundle costs the server as much work as an accepted one), over a sliding hour: one
  row per attempt in ``attempts``, counted and written in one transaction that first locks the
  token (:func:`coordqa.leaderboard.db.lock_token`), so concurrent attempts are counted one at a
  time;
- the quota counts the token's *visible* entries (an entry an admin hid no longer counts) and
  its unfinished jobs, each the entry it will make (:func:`~coordqa.leaderboard.db.check_quota`),
  and is checked in the transaction that stores the entry (:meth:`Database.store`) or queues
  the jobs, so concurrent requests cannot all pass one count. :func:`refuse_past_quota` is the
  cheap early answer given before a bundle is re-scored, after the checks that find it already
  stored: a send that makes no new entry never meets the quota (walkthrough 16 #134).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import delete, func, select

from coordqa.leaderboard.db import (
    Attempt,
    Database,
    as_utc,
    check_quota,
    lock_token,
)

__all__ = ["WINDOW_S", "record_attempt", "refuse_past_quota"]

WINDOW_S = 3600.0
"""The rate limit's window: one hour."""


def record_attempt(
    db: Database, token_id: int, per_hour: int, now: datetime | None = None
) -> float | None:
    """Count an attempt of ``token_id``; None if allowed, else the seconds until one is.

    A refused attempt is not counted, so waiting the returned time always works.
    """
    moment = now or datetime.now(timezone.utc)
    since = moment - timedelta(seconds=WINDOW_S)
    with db.session() as session:
        lock_token(session, token_id)
        session.execute(delete(Attempt).where(Attempt.token_id == token_id, Attempt.at <= since))
        count, oldest = session.execute(
            select(func.count(), func.min(Attempt.at)).where(Attempt.token_id == token_id)
        ).one()
        if count >= per_hour:
            return max(0.0, (as_utc(oldest) - since).total_seconds())
        session.add(Attempt(token_id=token_id, at=moment))
    return None


def refuse_past_quota(db: Database, token_id: int, quota: int, job_id: int | None = None) -> None:
    """Refuse a new entry of ``token_id`` before the work of making it (counted again on storing).

    Raises:
        QuotaError: as :func:`~coordqa.leaderboard.db.check_quota` (``job_id``: a job storing
            its own entry is not counted twice).
    """
    with db.session() as session:
        check_quota(session, token_id, quota, job_id=job_id)
