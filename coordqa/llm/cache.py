"""The response cache: re-running an evaluation makes zero model calls.

Replies are stored on disk in SQLite (WAL mode, so several processes can read and write at once)
under a key that covers exactly what changes the output: the model, its ``api_base``, the messages,
the sampling parameters and the trial index. Concurrency, retry and timeout settings are left out,
since they change how we ask, not what is answered; the trial index is in, so repeated trials are
not all served one cached answer. Errors are never stored; an empty reply (the model answered
nothing) is a reply, and is stored with its finish reason.

Replies are written to the ``responses_v2`` table (``responses_v1`` plus the finish reason) and
looked up there, then in ``responses_v1``: replies cached by earlier versions keep serving (with
no finish reason), and those versions, which write ``responses_v1`` only, keep working on a
shared cache.

The default location is the ``responses`` folder of the cache root (:mod:`coordqa.paths`:
``$COORDQA_CACHE_DIR`` when set, else the user cache directory); never inside the package.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.llm.endpoints import stored_endpoint
from coordqa.llm.types import GenerateConfig, Message, Usage
from coordqa.paths import CACHE_DIR_ENV, cache_dir, cache_root

DB_FILE = "responses.sqlite3"
"""The database file inside the cache folder."""

_COLUMNS = """
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost REAL"""
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS responses_v1 ({_COLUMNS});\n"
    f"CREATE TABLE IF NOT EXISTS responses_v2 ({_COLUMNS},\n    finish_reason TEXT);"
)
_TABLES = ("responses_v2", "responses_v1")
"""Where a reply is looked up, newest first (see the module docstring)."""
_LOOKUP = {
    "responses_v2": "SELECT text, prompt_tokens, completion_tokens, cost, finish_reason "
    "FROM responses_v2 WHERE key = ?",
    "responses_v1": "SELECT text, prompt_tokens, completion_tokens, cost, NULL "
    "FROM responses_v1 WHERE key = ?",
}


def messages_payload(messages: Sequence[Message]) -> list[list[str]]:
    """Messages as plain data, for hashing."""
    return [[message.role, message.content] for message in messages]


def _config_payload(config: GenerateConfig) -> JSONObject:
    """The config as plain data; ``extra`` only when set, so keys made before it existed hold."""
    payload = dataclasses.asdict(config)
    if not payload["extra"]:
        del payload["extra"]
    return payload


def cache_key(
    model: str,
    api_base: str | None,
    messages: Sequence[Message],
    config: GenerateConfig,
    trial: int,
) -> str:
    """The cache key of one call: what changes the reply, and nothing else."""
    return content_hash(
        {
            "model": model,
            "api_base": stored_endpoint(api_base),
            "messages": messages_payload(messages),
            "config": _config_payload(config),
            "trial": trial,
        }
    )


def default_cache_dir() -> Path:
    """The ``responses`` folder of the cache root (:func:`coordqa.paths.cache_dir`).

    Before the cache root had one meaning, ``$COORDQA_CACHE_DIR`` named this folder itself, so
    a database found directly in the root (and none in ``responses/``) is still the one used:
    a user who set the variable keeps the replies cached so far.
    """
    folder = cache_dir("responses")
    legacy = cache_root()
    if (legacy / DB_FILE).is_file() and not (folder / DB_FILE).is_file():
        return legacy
    return folder


@dataclass(frozen=True)
class CachedReply:
    """A stored successful reply."""

    text: str
    """The reply text."""
    usage: Usage
    """What the original call used (not spent again on a hit)."""
    finish_reason: str | None = None
    """Why the model stopped, where the provider said (None for replies cached before it was
    stored)."""


class ResponseCache:
    """Successful replies on disk, by :func:`cache_key`. Safe to share between processes."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        """Use ``directory`` (default: :func:`default_cache_dir`); nothing is opened until used."""
        self.directory = Path(directory).expanduser() if directory else default_cache_dir()
        self.path = self.directory / DB_FILE
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(
                    self.path, timeout=30.0, isolation_level=None, check_same_thread=False
                )
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.executescript(_SCHEMA)
            except (OSError, sqlite3.Error) as exc:
                raise ConfigError(
                    f"cannot open the response cache at {self.path}: {exc}. Set "
                    f"{CACHE_DIR_ENV} to a writable directory, or pass cache=None to disable it."
                ) from exc
            self._connection = connection
        return self._connection

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for ``key``, or None."""
        row = None
        with self._lock:
            connection = self._connect()
            for table in _TABLES:
                row = connection.execute(_LOOKUP[table], (key,)).fetchone()
                if row is not None:
                    break
        if row is None:
            return None
        text, prompt_tokens, completion_tokens, cost, finish_reason = row
        usage = Usage(prompt_tokens, completion_tokens, cost, calls=1)
        return CachedReply(text, usage, finish_reason)

    def put(
        self, key: str, model: str, text: str, usage: Usage, finish_reason: str | None = None
    ) -> None:
        """Store a reply (errors are never passed here)."""
        with self._lock:
            self._connect().execute(
                "INSERT OR REPLACE INTO responses_v2 VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    text,
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    usage.cost,
                    finish_reason,
                ),
            )

    def __len__(self) -> int:
        """Distinct keys stored, in either table."""
        with self._lock:
            (count,) = (
                self._connect()
                .execute(
                    "SELECT COUNT(*) FROM (SELECT key FROM responses_v2 "
                    "UNION SELECT key FROM responses_v1)"
                )
                .fetchone()
            )
        return int(count)

    def clear(self) -> int:
        """Delete every stored reply; return how many distinct keys there were."""
        count = len(self)
        with self._lock:
            connection = self._connect()
            for table in _TABLES:
                connection.execute(f"DELETE FROM {table}")
        return count

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickle only the location, so a cache can be sent to worker processes."""
        return {"directory": self.directory}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["directory"])  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.directory)!r})"
