"""Submitters' API keys, sealed: stored only encrypted, opened only by the board's worker.

A board-run entry calls the submitter's endpoint with the submitter's key, so the board must
keep the key, but never in clear: it is encrypted with Fernet (AES-128-CBC and HMAC-SHA256, from
``cryptography``) under the board's secret, which lives outside the database: in
``$COORDQA_BOARD_SECRET``, or else in ``board-secret.key`` in the data root (created on first use,
readable by its owner only). A copy of the database alone opens no key. Keys are never returned
by the API, printed, or written into a run directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from coordqa import paths
from coordqa.errors import ConfigError

__all__ = ["SECRET_ENV", "SecretBox", "secret_file"]

SECRET_ENV = "COORDQA_BOARD_SECRET"
"""Environment variable holding the board's secret (a Fernet key), if not in the key file."""


def secret_file() -> Path:
    """``board-secret.key`` in the data root (:mod:`coordqa.paths`)."""
    return paths.data_root() / "board-secret.key"


class SecretBox:
    """Seals and opens API keys with the board's secret."""

    def __init__(self, secret: bytes | None = None) -> None:
        """Use ``secret``, else ``$COORDQA_BOARD_SECRET``, else the key file (created if absent).

        Raises:
            ConfigError: the secret is not a Fernet key (32 url-safe base64-encoded bytes).
        """
        from cryptography.fernet import Fernet

        key = secret or _secret_from_environment()
        try:
            self._fernet = Fernet(key)
        except ValueError as exc:
            raise ConfigError(
                f"the board's secret (${SECRET_ENV} or {secret_file()}) is not a Fernet key: "
                '32 url-safe base64-encoded bytes; make one with `python -c "from '
                'cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`'
            ) from exc

    def seal(self, api_key: str) -> str:
        """``api_key`` encrypted (text that is safe to store)."""
        return self._fernet.encrypt(api_key.encode("utf-8")).decode("ascii")

    def open(self, sealed: str) -> str:
        """The API key inside ``sealed``.

        Raises:
            ConfigError: it was sealed under another secret (or altered).
        """
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except InvalidToken as exc:
            raise ConfigError(
                f"a stored API key does not open with this board's secret (${SECRET_ENV} or "
                f"{secret_file()}): the worker must use the secret the server used"
            ) from exc


def _secret_from_environment() -> bytes:
    """The secret from the environment, else the key file, made (mode 0600) when missing."""
    given = os.environ.get(SECRET_ENV, "").strip()
    if given:
        return given.encode("ascii")
    file = secret_file()
    if file.exists():
        return file.read_bytes().strip()
    from cryptography.fernet import Fernet

    file.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(Fernet.generate_key())
    return file.read_bytes().strip()
