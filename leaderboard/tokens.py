"""Bearer tokens for submitting: created by an admin, stored only as hashes.

A token is 32 random bytes (URL-safe text with a ``cqa_`` prefix), so an unsalted SHA-256 is
enough to make a stolen database useless for submitting: nobody can invert the hash of a random
256-bit secret. Reading the leaderboard needs no token.
"""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select

from coordqa.errors import ConfigError
from coordqa.leaderboard.db import Database, Token

__all__ = ["TOKEN_PREFIX", "authenticate", "create_token", "hash_token"]

TOKEN_PREFIX = "cqa_"
"""Every token starts with this, so a leaked one is easy to recognise."""


def hash_token(token: str) -> str:
    """The stored form of ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(db: Database, name: str) -> str:
    """Create a token for ``name`` (who it is for) and return it; only its hash is stored.

    Raises:
        ConfigError: ``name`` is blank.
    """
    if not name.strip():
        raise ConfigError("a token needs a NAME saying who it is for, e.g. 'alice-lab'")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with db.session() as session:
        session.add(Token(name=name.strip(), token_hash=hash_token(token)))
    return token


def authenticate(db: Database, authorization: str | None) -> int | None:
    """The id of the token in an ``Authorization: Bearer <token>`` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    with db.session() as session:
        return session.execute(
            select(Token.id).where(Token.token_hash == hash_token(token.strip()))
        ).scalar()
