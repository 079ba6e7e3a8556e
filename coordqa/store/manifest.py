"""What a run is: its manifest (configuration, dataset, status) and the run format's version."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from coordqa._version import __version__
from coordqa.llm.endpoints import (
    endpoint_address,
    shared_command,
    shown_endpoint,
    stored_command,
    stored_endpoints,
)
from coordqa.runfolder import MANIFEST as MANIFEST
from coordqa.words import UNSET_FILTERS

SCHEMA_VERSION = 4
"""Version of the run directory format; bumped when a reader of the old format would misread it.

1: the first format. 2: typed records (:mod:`coordqa.records`): one shape for every model call
(``text`` + nested ``usage``), and QA outcomes only in the derived ``scores.jsonl`` (format 1 also
appended them to ``samples.jsonl``, which went stale after a re-score; it is ignored now).
3: agent exchanges typed per role, HM's Vanilla Mind Prompting call as role ``vanilla`` (formats
1 and 2 called it ``tom``, like CAC's ToM call).
4: the dataset's ``release_questions`` (a subset's release size). An optional field, read by
this coordqa from format 3 runs too, but a format 3 reader refuses it as an unknown field; the
bump makes that reader say "upgrade coordqa" instead.
Format 1 runs are read through :func:`coordqa.records.upgrade`; resuming one rewrites its
manifest as format 2, since the records it appends are."""


RunKind = Literal["qa", "agentic", "play"]


def kind_words(kind: str) -> str:
    """A run kind as messages name it: ``qa`` is said QA (``agentic``, ``play`` as they are)."""
    return "QA" if kind == "qa" else kind


REPORTED_BY = {"qa": "coordqa report", "agentic": "coordqa agentic report"}
"""The command that reports each run kind (none reports a play run: ``coordqa play`` prints its
own table)."""


def reported_by(kind: str) -> str:
    """Which command reports runs of ``kind``, in the words every refusal uses.

    One wording for both directions (``score`` of an agentic run, ``agentic report`` of a folder
    of QA runs); '' for a kind no command reports.

    >>> reported_by("qa")
    '`coordqa report` reports QA runs'
    """
    command = REPORTED_BY.get(kind)
    return f"`{command}` reports {kind_words(kind)} runs" if command else ""


def model_names(config: Mapping[str, Any]) -> list[str]:
    """The models a run's stored ``config`` names, for people: ``model``, or each of ``models``.

    A grid's model is a name, or ``{name, api_base, model_args}`` when played with an endpoint
    or model arguments: its name is shown, not the mapping (walkthrough 24: ``runs list`` and
    the viewer showed ``{'name': 'llamacpp/...', 'api_base': None, ...}``).

    >>> model_names({"models": ["random", {"name": "llamacpp/g.gguf", "model_args": {}}]})
    ['random', 'llamacpp/g.gguf']
    >>> model_names({"model": "random"}), model_names({})
    (['random'], [])
    """
    if config.get("model"):
        return [str(config["model"])]
    entries = config.get("models")
    if not isinstance(entries, list):
        return []
    return [
        str(entry.get("name", entry)) if isinstance(entry, Mapping) else str(entry)
        for entry in entries
    ]


RunStatus = Literal["created", "running", "finished", "interrupted", "failed"]


SHOWN_SETTING = 60
"""The most characters of one setting a mismatch shows; a fingerprint shows its first 12."""


def _said(value: Any, key: str = "") -> str:
    """A setting as the user gives it, cut to :data:`SHOWN_SETTING` characters.

    ``none`` for no value (not Python's ``None``), a filter left unset in words (``all types``,
    :data:`~coordqa.words.UNSET_FILTERS`), names joined by commas, ``0-4`` for consecutive
    seeds, a hash's first 12 characters as runs are named by them, an endpoint without its
    credentials (a run stored before they were left out holds them), a prompt layout as its
    option spells it.
    """
    if value is None:
        return UNSET_FILTERS.get(key.rpartition(".")[2], "none")
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return ",".join(value)  # as the options take them: --types EC,JP
    if key.endswith("api_base") and isinstance(value, str):
        return repr(shown_endpoint(value))
    if key.endswith("fingerprint") and isinstance(value, str):
        return value[:12]
    if key.endswith("prompt_layout") and isinstance(value, str):
        return repr(value.replace("_", "-"))  # as --prompt-layout spells it: no-system
    ints = isinstance(value, list) and all(type(item) is int for item in value)
    if ints and len(value) > 2 and value == list(range(value[0], value[0] + len(value))):
        return f"{value[0]}-{value[-1]}"
    text = repr(value)
    return text if len(text) <= SHOWN_SETTING else text[: SHOWN_SETTING - 3] + "..."


def _differences(path: str, mine: Any, theirs: Any) -> list[str]:
    """``PATH: stored X, requested Y`` for each leaf setting that differs under ``path``.

    Settings that are tables (a grid, a list of games) are compared field by field, so a
    refusal names ``games[0].seeds`` rather than two whole tables.
    """
    if mine == theirs:
        return []
    if isinstance(mine, dict | None) and isinstance(theirs, dict | None):
        mine, theirs = mine or {}, theirs or {}
        keys = sorted(set(mine) | set(theirs))
        return [
            line
            for key in keys
            for line in _differences(f"{path}.{key}", mine.get(key), theirs.get(key))
        ]
    tables = isinstance(mine, list) and isinstance(theirs, list)
    if tables and any(isinstance(item, dict) for item in [*mine, *theirs]):
        return [
            line
            for index in range(max(len(mine), len(theirs)))
            for line in _differences(f"{path}[{index}]", _at(mine, index), _at(theirs, index))
        ]
    endpoints = isinstance(mine, str | None) and isinstance(theirs, str | None)
    if endpoints and path.endswith("api_base"):
        if endpoint_address(mine) == endpoint_address(theirs):
            return []  # one endpoint, spelled two ways (a trailing slash): no difference
    stored, requested = _said(mine, path), _said(theirs, path)
    if stored == requested:  # alike as cut short: said in full, never as two identical strings
        stored, requested = repr(mine), repr(theirs)
    return [f"{path}: stored {stored}, requested {requested}"]


def _at(items: list[Any], index: int) -> Any:
    """The item at ``index``, or None past the end (a table one side does not have)."""
    return items[index] if index < len(items) else None


def utc_now() -> datetime:
    """The current time in UTC, as manifests record it."""
    return datetime.now(timezone.utc)


class DatasetInfo(BaseModel):
    """The dataset a run used, identified by content rather than by path."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """What the user asked for (a bundled name or a path)."""
    fingerprint: str
    """Content fingerprint of the whole dataset the questions were drawn from (which of them
    a run answered is :meth:`QARun.question_set`)."""
    version: str | None = None
    """The dataset's declared version."""
    num_questions: int
    """Questions in the run after filtering (the JSON summaries say ``questions_asked``)."""
    release_questions: int | None = None
    """Questions in the whole dataset :attr:`fingerprint` names, the run's filters aside; None
    in a run made before it was recorded."""


def session_command() -> list[str]:
    """This process's command line as a run records it: no endpoint's credentials in it.

    A manifest travels (in a bundle to a leaderboard, in a shared run folder), so an
    ``--api-base`` typed with a password or a key in its query is recorded without them
    (:func:`~coordqa.llm.endpoints.stored_command`).
    """
    return stored_command(sys.argv)


class RunManifest(BaseModel):
    """What a run is: enough to reproduce it and to refuse resuming it with other settings.

    ``config`` holds everything that changes results (model, api_base, sampling, trials, filters,
    prompt layout, seeds); a resumed run must have exactly the same ``config``, dataset
    fingerprint and ``fingerprint``. ``runtime`` holds settings that only change how the run is
    executed (concurrency, cache, retries) and may differ between sessions.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    """Run directory format version (:data:`SCHEMA_VERSION` when written)."""
    kind: RunKind
    """``qa``, ``agentic`` or ``play``."""
    coordqa_version: str = __version__
    """Version of coordqa that created the run."""
    created_at: datetime = Field(default_factory=utc_now)
    """When the run directory was created (UTC)."""
    started_at: datetime | None = None
    """When the latest session (first run or resume) started."""
    finished_at: datetime | None = None
    """When the run last finished all its work (None while unfinished)."""
    status: RunStatus = "created"
    """``created``, ``running``, ``finished``, ``interrupted`` (Ctrl-C) or ``failed`` (stopped
    on errors); a killed run stays ``running``."""
    sessions: int = 0
    """How many times the run was started (1 + number of resumes)."""
    command: list[str] = Field(default_factory=lambda: session_command())
    """The command line of the session that created the run, or of the latest session that
    changed its settings (another ``--api-base`` or more ``--trials``, with calls to make), as
    :func:`session_command` records it."""
    config: dict[str, Any]
    """Everything that changes results; must match exactly to resume."""
    runtime: dict[str, Any] = Field(default_factory=dict)
    """Execution settings that may change between sessions (concurrency, cache, retries)."""
    dataset: DatasetInfo | None = None
    """The dataset, for runs that use one."""
    fingerprint: str
    """Hash of the config, the dataset and every question, prompt and answer key of the run."""
    label: str | None = None
    """A short name the user gave the run (``coordqa eval --label``), shown instead of the model
    name wherever runs are compared or listed; it changes no result, and a later session may
    rename the run."""

    def another_test(self, other: RunManifest) -> tuple[str, str] | None:
        """``("dataset", "on another dataset: ...")`` when ``other`` measures another test.

        A run's test is what it was made to measure: a QA run's dataset (compared by content,
        its fingerprint) or an agentic run's grid (by name). Another test differs in most
        settings at once, so a refusal names the test (the noun, the words) rather than listing
        every setting (:meth:`mismatches`). None when both measure the same test.
        """
        if self.kind == "qa" and self.dataset is not None and other.dataset is not None:
            mine, theirs = self.dataset, other.dataset
            if mine.fingerprint == theirs.fingerprint:
                return None
            return "dataset", (
                f"on another dataset: {_said(mine.name)} ({mine.fingerprint[:12]}), not "
                f"{_said(theirs.name)} ({theirs.fingerprint[:12]})"
            )
        if self.kind == "agentic":
            mine_name, their_name = self.config.get("name"), other.config.get("name")
            if mine_name == their_name:
                return None
            # ``coordqa agentic run`` plays a one-game grid named agent-model-game
            return "grid file or options", (
                f"of another grid: {_said(mine_name)}, not {_said(their_name)}"
            )
        return None

    def shareable(self) -> RunManifest:
        """This manifest as it may be shown or sent: no endpoint's credentials, no local folders.

        A run stored before they were left out (:func:`session_command`,
        :meth:`coordqa.EvalConfig.identity`) still holds them; a page that shows its settings
        and a bundle that carries them to a board use this copy. Its fingerprint is the
        stored one: the copy is for reading, never for resuming.
        """
        return self.model_copy(
            update={
                "config": stored_endpoints(self.config),
                "command": shared_command(self.command),
            }
        )

    def mismatches(self, other: RunManifest) -> list[str]:
        """Human-readable differences that forbid resuming this run as ``other``."""
        problems: list[str] = []
        if self.kind != other.kind:
            problems.append(f"kind: {self.kind!r} != {other.kind!r}")
        for key in sorted(set(self.config) | set(other.config)):
            problems += _differences(key, self.config.get(key), other.config.get(key))
        stored_fp = self.dataset.fingerprint if self.dataset else None
        requested_fp = other.dataset.fingerprint if other.dataset else None
        if stored_fp != requested_fp:
            problems.append(f"dataset fingerprint: stored {stored_fp}, requested {requested_fp}")
        if not problems and self.fingerprint != other.fingerprint:
            changed = (
                "questions, prompts or answer keys"
                if self.kind == "qa"
                else "the episodes it plays: their seeds, players or versions"
            )
            problems.append(
                f"run fingerprint: stored {self.fingerprint[:12]}, requested "
                f"{other.fingerprint[:12]} ({changed} changed)"
            )
        return problems
