"""Bearer tokens for submitting: created by an admin, stored only as hashes, revocable.

A token is 32 random bytes (URL-safe text with a ``cqa_`` prefix), so an unsalted SHA-256 is
enough to make a stolen database useless for submitting: nobody can invert the hash of a random
256-bit secret. Reading the leaderboard needs no token. A revoked token stays in the database
(its submissions keep their owner) but no longer authenticates.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import Integer, cast, func, select

from coordqa.errors import ConfigError
from coordqa.leaderboard.db import Database, LeaderboardError, Submission, Token, as_utc
from coordqa.leaderboard.names import admin_text, alike_names, imitated_name
from coordqa.registry import did_you_mean

__all__ = [
    "TOKEN_PREFIX",
    "TokenInfo",
    "authenticate",
    "create_token",
    "hash_token",
    "list_tokens",
    "revoke_token",
    "token_id_of",
]

TOKEN_PREFIX = "cqa_"
"""Every token starts with this, so a leaked one is easy to recognise."""


def hash_token(token: str) -> str:
    """The stored form of ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(db: Database, name: str) -> str:
    """Create a token for ``name`` (who it is for) and return it; only its hash is stored.

    A name has one live token: the list, the quotas and revocation tell submitters apart by
    their token, and two live tokens named alike (compared as the board compares entry names:
    case, spaces and look-alike letters) would be two submitters no admin can tell apart. A
    name whose tokens are all revoked gets a new one (a leaked token is replaced so).

    Raises:
        ConfigError: ``name`` is blank, too long or holds control characters, or reads as the
            name of a live token.
    """
    label = admin_text(name, what="the token's NAME (who it is for, e.g. 'alice-lab')")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with db.session() as session:
        rows = session.execute(select(Token.name, Token.id).where(Token.revoked_at.is_(None)))
        live = {held: token_id for held, token_id in rows}
        taken = imitated_name(label, live)
        if taken is not None:
            raise ConfigError(
                f"token {live[taken]} is already for {taken!r} (names are compared ignoring "
                "case, spaces and look-alike letters), and a name has one live token: "
                f"`{db.command('token list')}` lists the tokens; to replace it, "
                f"`{db.command(f'token revoke {live[taken]}')}` first"
            )
        session.add(Token(name=label, token_hash=hash_token(token)))
    return token


def authenticate(db: Database, authorization: str | None) -> int | None:
    """The id of the live token in an ``Authorization: Bearer <token>`` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    with db.session() as session:
        return session.execute(
            select(Token.id).where(
                Token.token_hash == hash_token(token.strip()), Token.revoked_at.is_(None)
            )
        ).scalar()


@dataclass(frozen=True)
class TokenInfo:
    """A token as an admin sees it (never the secret)."""

    id: int
    """Token id (what ``revoke`` and ``hide --token`` take)."""
    name: str
    """Who it is for."""
    created_at: datetime
    """When it was created (UTC)."""
    revoked_at: datetime | None
    """When it was revoked, if it was."""
    entries: int
    """Submissions stored with it."""
    hidden: int
    """Of those, how many are hidden."""


def list_tokens(db: Database) -> list[TokenInfo]:
    """Every token with its number of stored and hidden entries, oldest first."""
    hidden = func.sum(cast(Submission.hidden, Integer))
    with db.session() as session:
        counts = {
            token_id: (int(n), int(h or 0))
            for token_id, n, h in session.execute(
                select(Submission.token_id, func.count(), hidden).group_by(Submission.token_id)
            )
        }
        return [
            TokenInfo(
                t.id,
                t.name,
                as_utc(t.created_at),
                as_utc(t.revoked_at) if t.revoked_at else None,
                *counts.get(t.id, (0, 0)),
            )
            for t in session.scalars(select(Token).order_by(Token.id))
        ]


def token_id_of(db: Database, given: str) -> int:
    """The id of the token ``given`` names: its id, or a name: its live token, else its one token.

    The one reading of a token for every admin command (``token revoke``, ``hide --token``,
    ``unhide --token``). ``token create NAME`` takes a name and a name has one live token, so the
    name given there names one token here too (blind walkthrough 10 #269: ``token revoke bob``
    answered "Input should be a valid integer"; walkthrough 12: so did ``hide --token bob``). A
    name whose one token is revoked still names it (its entries can be hidden or shown after the
    revocation); one with several revoked tokens is refused with their ids, to choose from.
    Names are compared as ``token create`` compares them (:func:`alike_names`: case, spaces and
    look-alike letters; walkthrough 16 #140: ``hide --token Bob`` did not find ``bob``), so a
    name that reads as several live tokens (named before that rule) is refused with them. A
    name no token has is refused with the closest token names, as other names are.

    Raises:
        LeaderboardError: no token has that id or name, the name reads as several live tokens,
            or as only several revoked ones.
    """
    with db.session() as session:
        if given.strip().isdecimal():
            if session.get(Token, int(given)) is None:  # hide --token 99 hid "0 entries"
                raise LeaderboardError(
                    f"no token with id {int(given)}; see `{db.command('token list')}`"
                )
            return int(given)
        every = list(
            session.execute(select(Token.id, Token.name, Token.revoked_at).order_by(Token.id))
        )
    alike = set(alike_names(given, {name for _, name, _ in every}))
    tokens = [(token_id, name, revoked) for token_id, name, revoked in every if name in alike]
    live = [(token_id, name) for token_id, name, revoked in tokens if revoked is None]
    if len(live) > 1:
        named = ", ".join(f"{token_id} ({name})" for token_id, name in live)
        raise LeaderboardError(
            f"{given!r} names {len(live)} live tokens: {named} (names are compared ignoring "
            f"case, spaces and look-alike letters); give one of their ids"
        )
    if live:
        return int(live[0][0])
    if len(tokens) == 1:
        return int(tokens[0][0])
    listed = f"from `{db.command('token list')}`"
    if tokens:
        known = ", ".join(str(token_id) for token_id, _, _ in tokens)
        raise LeaderboardError(
            f"no live token named {given!r}: its tokens ({known}) are revoked already; "
            f"give one of their ids {listed}"
        )
    # a typo gets the closest names, revoked ones too (walkthrough 19 R2: `hide --token alic`)
    close = did_you_mean(given, [name for _, name, _ in every])
    raise LeaderboardError(
        f"no live token named {given!r}: no token has that name.{close} "
        f"Give a token's id or name {listed}"
    )


def revoke_token(db: Database, token_id: int) -> tuple[TokenInfo, bool]:
    """Revoke a token: it no longer authenticates (its entries stay as they are).

    Revoking a revoked token changes nothing (its first revocation's time stays): the token is
    in the state asked for, so it is no error. Returns the token and whether it was revoked now.

    Raises:
        LeaderboardError: no token has that id.
    """
    with db.session() as session:
        token = session.get(Token, token_id)
        if token is None:
            raise LeaderboardError(f"no token with id {token_id}; see `{db.command('token list')}`")
        revoked_now = token.revoked_at is None
        if revoked_now:
            token.revoked_at = datetime.now(timezone.utc)
    return next(info for info in list_tokens(db) if info.id == token_id), revoked_now
