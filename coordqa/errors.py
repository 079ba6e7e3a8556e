"""The exception hierarchy of coordqa.

Every error a user can cause derives from :class:`CoordqaError` and says what was wrong, what is
allowed and how to fix it. Subsystems subclass the branch that fits, so callers can catch a family
(``except DatasetError``) without string matching.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from typing import Any


class CoordqaError(Exception):
    """Base class of every error raised on purpose by coordqa."""


class ConfigError(CoordqaError, ValueError):
    """A parameter, option or configuration value is invalid."""


class SettingError(ConfigError):
    """A refused value of one setting, in words that name it as its caller wrote it.

    ``template`` says ``{setting}`` where the setting is named. Its text names the library's
    parameter (``trials``, ``policy.timeout_s``), what a Python caller wrote; a command shows
    its option instead (``--trials``, ``--timeout``) with :meth:`named`, from its own map of
    parameters to options (``coordqa.cli._errors.settings_as_options``). A Python
    ``ConfigError`` said ``--trials must be >= 1``, and ``coordqa eval`` said ``leave
    --timeout/policy.timeout_s out`` (walkthrough 16, R7).
    """

    def __init__(self, setting: str, template: str, *, also: Sequence[str] = ()) -> None:
        """``setting``: the parameter's name (dotted inside a field: ``policy.timeout_s``).

        ``also``: other settings the text names in its advice, each said ``{name}`` in
        ``template`` (``hosted_vllm/NAME (with {api_base})``), so a command says their options
        too (:meth:`as_options`).
        """
        self.setting = setting
        self.template = template
        self.also = tuple(also)
        super().__init__(self.as_options({}))

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        """Rebuilt from its setting and template (a Ray task's error reaches the driver so)."""
        return functools.partial(type(self), also=self.also), (self.setting, self.template)

    def named(self, name: str) -> str:
        """The message with the setting called ``name`` (a command's option)."""
        return self.as_options({self.setting: name})

    def as_options(self, options: Mapping[str, str]) -> str:
        """The message with each setting it names called as ``options`` maps it (else itself)."""
        text = self.template.replace("{setting}", options.get(self.setting, self.setting))
        for other in self.also:
            text = text.replace("{" + other + "}", options.get(other, other))
        return text


class ModelNotServed(ConfigError):
    """The model's ``--api-base`` server lists the models it serves, and not this one.

    Its message is ``refusal`` followed by the first name ``offered`` after ``fix``
    (``...: use --model openai/my-model``), or ``refusal`` alone where none is offered: it
    already lists what the server serves.
    """

    def __init__(
        self,
        refusal: str,
        closest: Sequence[str] = (),
        *,
        fix: str = "",
        offered: Sequence[str] = (),
    ) -> None:
        """``closest``: the listed names nearest the model's, best first (the server's words).

        ``offered``: the model names to give instead, best first (``openai/my-model``);
        ``fix``: how the caller's command takes one (``use --model``).
        """
        self.refusal = refusal
        self.closest = tuple(closest)
        self.fix = fix
        self.offered = tuple(offered)
        super().__init__(f"{refusal}: {fix} {self.offered[0]}" if self.offered and fix else refusal)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Rebuilt whole (a Ray task's error reaches the driver so)."""
        rebuild = functools.partial(
            type(self), closest=self.closest, fix=self.fix, offered=self.offered
        )
        return rebuild, (self.refusal,)

    def leaving_out(self, taken: Collection[str]) -> ModelNotServed:
        """The same refusal offering no name of ``taken``: an eval set's other members.

        ``eval-set --model openai/my-model --model openai/nope-model`` told the refused member
        to ``use --model openai/my-model``, which the set named already, so following it was
        refused as a model named twice (walkthrough 21, R2).
        """
        return ModelNotServed(
            self.refusal,
            self.closest,
            fix=self.fix,
            offered=[name for name in self.offered if name not in taken],
        )


class UnknownNameError(ConfigError, KeyError):
    """A registry lookup used a name that is not registered.

    Subclasses KeyError for dict-like callers, but keeps a readable message (KeyError's ``str``
    would add quotes around it).
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class OutputPathError(ConfigError):
    """An output path cannot be written: the wrong kind is there, or the folder is not writable.

    Raised before anything is written (:mod:`coordqa.outputs`), never halfway through a run.
    """


class MissingDependencyError(CoordqaError, ImportError):
    """An optional dependency is needed for this feature and is not installed."""


class DatasetError(CoordqaError, ValueError):
    """A dataset file or row is malformed."""


class ModelError(CoordqaError):
    """A model cannot be used (unknown provider, missing key) or failed for good."""


class UnknownModelError(SettingError, ModelError):
    """A model name no built-in model serves and no ``prefix/NAME`` of a served model has.

    A refused setting (``model``), so ``coordqa.evaluate`` refuses it with a ``ConfigError`` as
    it does every bad setting, and a model that cannot be used (a ``ModelError``), as before
    (walkthrough 19 #201, #202).
    """


class StoreError(CoordqaError):
    """A run directory is missing, corrupt, or does not match what is being resumed."""


class GameError(CoordqaError, ValueError):
    """An illegal move, an unknown layout, or a snapshot that does not restore."""


class ModelCallFailed(ModelError):
    """A model call failed after its retries, so the work that needed its reply has no result.

    Raised where a failed call must not become a result (an agent's decision: the episode is
    then stored as failed, never as played). ``kind`` is the gateway's
    :data:`~coordqa.llm.types.ErrorKind`: ``failed``, ``fatal`` (refused: every call would be)
    or ``unreachable``.
    """

    def __init__(self, error: str, kind: str, role: str) -> None:
        """Carry the call's error, its kind and the role that asked (``action``, ``tom``...)."""
        super().__init__(error, kind, role)
        self.error = error
        self.kind = kind
        self.role = role

    def __str__(self) -> str:
        return f"the {self.role} call failed ({self.kind}): {self.error}"


class RunFailed(CoordqaError):
    """A run stopped on an error every call would meet, or ended with too many failures.

    Everything finished is stored and the same command resumes it; the message says what
    stopped the run and how to resume. ``result`` is what the session did, when it got to its
    end (was not stopped).
    """

    def __init__(
        self,
        message: str,
        result: Any = None,
        *,
        stop_kind: str | None = None,
        stop_error: str | None = None,
        first_errors: tuple[str, ...] = (),
    ) -> None:
        """Carry the message, the session's result when it ended, and the cause in parts.

        ``stop_kind`` (``fatal``: refused; ``unreachable``) and ``stop_error`` name the error
        that stopped the run; ``first_errors`` the first error of each kind seen. Code that
        words the failure for someone else (a board's submitter) reads them instead of the
        message, which is written for the person who ran the command.
        """
        super().__init__(message)
        self.result = result
        self.stop_kind = stop_kind
        self.stop_error = stop_error
        self.first_errors = first_errors


INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C (128 + SIGINT)."""

NOTHING_STARTED = (
    "interrupted while starting: nothing was run or stored; earlier results, if any, are kept"
)
"""What a command stopped by Ctrl-C before it began anything says (exit 130): while the command
line is imported (the console script, :mod:`coordqa._entry`), a command's module imported or its
options read (:class:`coordqa.cli._RootGroup`), or a run's command reads its dataset, spec or
grid. The folder it would resume is not known yet then (a default one is named from the dataset
or grid being read), so the line says that what an earlier session stored is kept; an agentic
run's folder, once known, says what it holds instead (walkthrough 28, R2)."""


class ExportFailed(RunFailed):
    """A page of ``coordqa view --export`` could not be rendered: nothing of the export is kept.

    The message names the page and its cause in one line (the cause is chained); a page that
    does not render is a bug of coordqa's, not of the runs given (walkthrough 23).
    """


class RunInterrupted(CoordqaError):
    """A run was stopped (Ctrl-C, SIGTERM) before the end; what finished is stored, it resumes.

    The one interruption of every kind of run (QA, agentic, play). The message says how much
    is kept and how to resume; ``run_dir`` is the run directory.
    """

    def __init__(self, message: str, run_dir: object = None) -> None:
        """Carry the message and the run directory."""
        super().__init__(message)
        self.run_dir = run_dir
