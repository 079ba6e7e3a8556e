"""The exception hierarchy of coordqa.

Every error a user can cause derives from :class:`CoordqaError` and says what was wrong, what is
allowed and how to fix it. Subsystems subclass the branch that fits, so callers can catch a family
(``except DatasetError``) without string matching.
"""

from __future__ import annotations


class CoordqaError(Exception):
    """Base class of every error raised on purpose by coordqa."""


class ConfigError(CoordqaError, ValueError):
    """A parameter, option or configuration value is invalid."""


class UnknownNameError(ConfigError, KeyError):
    """A registry lookup used a name that is not registered.

    Subclasses KeyError for dict-like callers, but keeps a readable message (KeyError's ``str``
    would add quotes around it).
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class MissingDependencyError(CoordqaError, ImportError):
    """An optional dependency is needed for this feature and is not installed."""


class DatasetError(CoordqaError, ValueError):
    """A dataset file or row is malformed."""


class ModelError(CoordqaError):
    """A model cannot be used (unknown provider, missing key) or failed for good."""


class StoreError(CoordqaError):
    """A run directory is missing, corrupt, or does not match what is being resumed."""


class GameError(CoordqaError, ValueError):
    """An illegal move, an unknown layout, or a snapshot that does not restore."""


class RunInterrupted(CoordqaError):
    """A run was stopped (Ctrl-C) before the end; what finished is stored and it resumes.

    The message says how much is kept and how to resume; ``run_dir`` is the run directory.
    """

    def __init__(self, message: str, run_dir: object = None) -> None:
        """Carry the message and the run directory."""
        super().__init__(message)
        self.run_dir = run_dir
