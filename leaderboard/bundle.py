"""The submission bundle: what a researcher sends to the leaderboard, and how it is built.

A bundle is one JSON document. Its ``track`` field says what kind of result it carries and
selects the schema of the rest (a discriminated union, see :data:`TRACKS`): ``qa`` bundles carry
every raw reply of a CoordinationQA run, keyed by (question_id, trial). Another track (agentic
matches) adds its own model class and registers it; the envelope fields (format, version,
model metadata, coordqa version, digest) are shared by :class:`BundleBase`.

The server never trusts numbers in a bundle: it re-scores the raw replies. The ``digest`` is
the SHA-256 of the canonical JSON of every other field (:func:`bundle_digest`); it identifies a
submission, so sending the same bundle twice is recognised, and it catches a bundle damaged in
transit.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from coordqa.errors import CoordqaError
from coordqa.jsonvalues import content_hash
from coordqa.leaderboard.coverage import coverage_fix, coverage_problem
from coordqa.leaderboard.names import clean_name
from coordqa.leaderboard.rankable import unrankable_problem
from coordqa.records import QACall, SampleKey
from coordqa.registry import Registry
from coordqa.schema_problems import problem_list, problems_text
from coordqa.store import QARun, RunManifest, open_run, read_qa_run
from coordqa.words import agreeing, counted, format_list

__all__ = [
    "FORMAT",
    "AgenticBundle",
    "Destination",
    "agent_label",
    "build_agentic_bundle",
    "build_bundle",
    "format_keys",
    "format_list",
    "FORMAT_VERSION",
    "TRACKS",
    "BundleBase",
    "BundleError",
    "ModelInfo",
    "QABundle",
    "QAReply",
    "bundle_digest",
    "build_qa_bundle",
    "default_provider",
    "result_digest",
    "missing_keys",
    "track_model",
]

FORMAT = "coordqa-submission"
"""Value of every bundle's ``format`` field."""
FORMAT_VERSION = 1
"""Bundle format version; bumped when an older server would misread a newer bundle."""

_HEX64 = r"^[0-9a-f]{64}$"

_HTTP_LINK = r"^https?://\S+$"


def _http_link(value: Any) -> Any:
    """A link the board shows must be an http(s) address; said in words, not as the pattern.

    ``--link ftp://x`` read "String should match pattern ..." (walkthrough 14).
    """
    if isinstance(value, str) and not re.match(_HTTP_LINK, value):
        raise ValueError("is not an http(s) address: write e.g. https://example.org/my-model")
    return value


Link = Annotated[
    str, BeforeValidator(_http_link), StringConstraints(max_length=500, pattern=_HTTP_LINK)
]
"""A page about a model or a submission: http or https only (an entry's, an endpoint's)."""
MAX_REPLIES = 10_000
"""Most replies a QA bundle may hold: 1,000 questions (the most a registered dataset may have)
x 10 trials. The server's own trial cap (``serve --max-trials``) is usually tighter."""
MAX_EPISODES = 1_000
"""Most episodes an agentic bundle may hold (the installed ``paper`` grid has 62)."""
MAX_REPLY_CHARS = 100_000
"""Longest reply text a bundle may carry (only its first and last 1,000 characters are read:
:func:`coordqa.scoring.read_window`)."""
MAX_MANIFEST_VALUES = 10_000
"""Most JSON values (objects, arrays, strings, numbers) a bundle's run manifest may hold; a
grid's manifest holds a few hundred. The manifest is stored and shown, never scored."""
MAX_ITEM_ERRORS = 10
"""Schema errors kept per list of items; validation counts the rest without keeping them."""


class BundleError(CoordqaError):
    """A run cannot be turned into a bundle, or a bundle breaks the submission rules."""


MAX_LISTED_ERRORS = 20
"""Schema violations an answer lists (the message shows :data:`MAX_SHOWN_ERRORS` and the
total)."""
MAX_SHOWN_ERRORS = 5
"""Schema violations an error message itself spells out."""


def schema_violations(exc: ValidationError) -> tuple[list[dict[str, str]], int]:
    """The first :data:`MAX_LISTED_ERRORS` violations of ``exc``, and how many there are.

    Each is ``{"loc", "msg"}``, ``loc`` dotted (:func:`coordqa.schema_problems.problem_list`);
    the unlisted ones of long lists are counted in.
    """
    return problem_list(exc, "(root)", MAX_LISTED_ERRORS)


def shown_violations(errors: Sequence[Mapping[str, str]], total: int) -> str:
    """The first :data:`MAX_SHOWN_ERRORS` violations, ``loc: msg; ...``, and how many more."""
    return problems_text(errors, total, MAX_SHOWN_ERRORS)


class BundleSchemaError(BundleError):
    """The bundle built from a run would break the submission schema.

    A reply longer than a bundle may carry (stored by a coordqa that did not cut replies), a
    display name too long. ``violations`` and ``total`` as :func:`schema_violations` gives them.
    """

    def __init__(self, run_dir: Path, violations: list[dict[str, str]], total: int) -> None:
        """Say what breaks which rule, and what to do."""
        self.violations = violations
        self.total = total
        super().__init__(
            f"{run_dir} cannot be submitted: its bundle would break the submission schema "
            f"({shown_violations(violations, total)}); {_schema_fix(violations)}"
        )


def _schema_fix(violations: Sequence[Mapping[str, str]]) -> str:
    """What to do about a run whose bundle breaks the schema in ``violations``."""
    places = [v["loc"].split(".") for v in violations]
    if any(place[0] == "replies" and place[-1] == "text" for place in places):
        return (
            f"a reply longer than {MAX_REPLY_CHARS:,} characters was stored by a coordqa that "
            "did not cut replies: run the same `coordqa eval` command with another --out folder "
            "(replies are stored cut now) and submit that run"
        )
    if all(place[0] == "model" for place in places):
        return "give other --name, --provider, --org or --link values"
    return "run it again with this coordqa into another --out folder and submit that run"


class ModelInfo(BaseModel):
    """Who and what is being ranked; shown on the leaderboard as given (escaped)."""

    model_config = ConfigDict(extra="forbid")

    display_name: str = Field(min_length=1, max_length=200)
    """Name shown in the ranking."""
    provider: str = Field(min_length=1, max_length=100)
    """Where the model was served from (``openai``, ``ollama``, ``coordqa`` for built-ins)."""
    parameters: float | None = Field(default=None, gt=0)
    """Parameter count, when known (7e9 for a 7B model)."""
    organisation: str | None = Field(default=None, max_length=200)
    """Who made or submitted the model."""
    link: Link | None = None
    """A page about the model or the submission (http or https only)."""

    @field_validator("display_name", "provider", "organisation", "link")
    @classmethod
    def _readable(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        limit = 500 if info.field_name == "link" else 200
        return clean_name(value, what=f"model.{info.field_name}", max_length=limit)


def model_info_violations(given: Mapping[str, Any]) -> list[dict[str, str]]:
    """The violations of the :class:`ModelInfo` fields a submitter gives, by the field's own rule.

    Each field is checked alone (the run fills in the rest later), so a command line is checked
    before any run is read. Each violation is ``{"loc": FIELD, "msg"}`` as
    :func:`schema_violations` gives them.
    """
    unfilled = ModelInfo.model_construct()
    violations: list[dict[str, str]] = []
    for name, value in given.items():
        try:
            ModelInfo.__pydantic_validator__.validate_assignment(unfilled, name, value)
        except ValidationError as exc:
            violations += schema_violations(exc)[0]
    return violations


class ReportedSummary(BaseModel):
    """The accuracies the submitter's own analysis found; shown, never used for ranking."""

    model_config = ConfigDict(extra="forbid")

    overall: float | None = None
    """Overall accuracy."""
    by_type: dict[Literal["EC", "ToM", "JP"], float | None] = Field(default_factory=dict)
    """Accuracy per question type (EC, ToM, JP): no other key is taken."""


ReportedKey = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]{1,40}/(self|cross)$")]
"""A key of an agentic bundle's reported scores: ``<game>/self`` or ``<game>/cross``."""
MAX_REPORTED_KEYS = 40
"""Most reported scores an agentic bundle may hold (two per game)."""


def _item_errors(exc: ValidationError, index: int, room: int) -> list[InitErrorDetails]:
    return [
        InitErrorDetails(
            type=PydanticCustomError(error["type"], error["msg"]),
            loc=(index, *error["loc"]),
            input=error["input"],
        )
        for error in exc.errors(include_url=False)[:room]
    ]


def validate_items(
    value: Any, handler: ValidatorFunctionWrapHandler, item: TypeAdapter[Any], max_length: int
) -> Any:
    """Validate a list item by item, keeping at most :data:`MAX_ITEM_ERRORS` errors.

    A wrap validator's body: a list of the allowed length is validated one item at a time, so a
    list of a million broken items costs its items' time but only :data:`MAX_ITEM_ERRORS`
    errors' memory; one more error says how many were not listed. Anything else (not a list, too
    long, too short) goes to pydantic's own check, which answers a wrong length without looking
    at the items.
    """
    if not isinstance(value, list) or not 0 < len(value) <= max_length:
        return handler(value)
    valid: list[Any] = []
    kept: list[InitErrorDetails] = []
    unlisted = 0
    for index, entry in enumerate(value):
        try:
            valid.append(item.validate_python(entry))
        except ValidationError as exc:
            room = MAX_ITEM_ERRORS - len(kept)
            kept += _item_errors(exc, index, room)
            unlisted += max(0, exc.error_count() - room)
    if unlisted:
        more = PydanticCustomError(
            "more_errors", "{count} more errors in other items are not listed", {"count": unlisted}
        )
        kept.append(InitErrorDetails(type=more, loc=(), input="..."))
    if kept:
        raise ValidationError.from_exception_data("items", kept)
    return valid


class BundleBase(BaseModel):
    """Fields every track shares."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["coordqa-submission"]
    """Always :data:`FORMAT`."""
    format_version: Literal[1]
    """Always :data:`FORMAT_VERSION`."""
    model: ModelInfo
    """Model metadata."""
    coordqa_version: str = Field(min_length=1, max_length=50)
    """coordqa version that built the bundle."""

    @field_validator("coordqa_version")
    @classmethod
    def _readable_version(cls, value: str) -> str:
        return clean_name(value, what="coordqa_version", max_length=50)

    digest: str = Field(pattern=_HEX64)
    """SHA-256 of the canonical JSON of every other field (:func:`bundle_digest`)."""
    manifest: RunManifest
    """The run's ``manifest.json`` (at most :data:`MAX_MANIFEST_VALUES` JSON values)."""

    @field_validator("manifest", mode="before")
    @classmethod
    def _small_manifest(cls, value: Any) -> Any:
        stack, seen = [value], 0
        while stack:
            node = stack.pop()
            seen += 1
            if seen > MAX_MANIFEST_VALUES:
                raise ValueError(
                    f"the manifest holds more than {MAX_MANIFEST_VALUES} JSON values; a run's "
                    "manifest is its settings, a few hundred values"
                )
            if isinstance(node, dict):
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        return value


class QAReply(BaseModel):
    """The raw outcome of one model call: its text, or the error that ended it."""

    model_config = ConfigDict(extra="forbid")

    question_id: str = Field(min_length=1, max_length=200)
    """The question asked."""
    trial: int = Field(ge=0)
    """Trial index (0-based)."""
    text: str | None = Field(default=None, max_length=MAX_REPLY_CHARS)
    """The reply text; None when the call failed."""
    error: str | None = Field(default=None, max_length=2_000)
    """Why the call failed (after its retries); None for a reply."""

    @model_validator(mode="after")
    def _text_or_error(self) -> QAReply:
        if (self.text is None) == (self.error is None):
            raise ValueError("give exactly one of 'text' (a reply) and 'error' (a failed call)")
        return self


_REPLY = TypeAdapter(QAReply)


class QABundle(BundleBase):
    """A CoordinationQA run: its manifest and every raw reply."""

    track: Literal["qa"]
    """Discriminator: a QA run."""
    dataset_fingerprint: str = Field(pattern=_HEX64)
    """Content fingerprint of the dataset the run answered (must equal the manifest's)."""
    replies: list[QAReply] = Field(min_length=1, max_length=MAX_REPLIES)
    """One per (question_id, trial)."""
    reported: ReportedSummary | None = None
    """The submitter's own numbers (optional; compared, never trusted)."""

    @field_validator("replies", mode="wrap")
    @classmethod
    def _replies(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return validate_items(value, handler, _REPLY, MAX_REPLIES)

    @field_validator("manifest")
    @classmethod
    def _qa_manifest(cls, manifest: RunManifest) -> RunManifest:
        if manifest.kind != "qa":
            raise ValueError(f"a qa bundle needs a manifest of kind 'qa', got {manifest.kind!r}")
        trials = manifest.config.get("trials")
        if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
            raise ValueError(f"manifest.config.trials must be an integer >= 1, got {trials!r}")
        if manifest.dataset is None:
            raise ValueError("manifest.dataset is missing: the run does not say which dataset")
        model = manifest.config.get("model")
        if not isinstance(model, str):
            raise ValueError(f"manifest.config.model must be the model's name, got {model!r}")
        manifest.config["model"] = clean_name(model, what="manifest.config.model")
        return manifest

    @model_validator(mode="after")
    def _fingerprints_agree(self) -> QABundle:
        stated = self.manifest.dataset.fingerprint if self.manifest.dataset else None
        if stated != self.dataset_fingerprint:
            raise ValueError(
                f"dataset_fingerprint {self.dataset_fingerprint[:12]}... differs from the "
                f"manifest's dataset fingerprint {str(stated)[:12]}..."
            )
        return self

    @property
    def trials(self) -> int:
        """Trials per question, from the manifest."""
        return int(self.manifest.config["trials"])


class AgenticBundle(BundleBase):
    """An agentic run: its manifest and every finished episode (trajectory, score, metrics).

    Model exchanges (every prompt) stay out: the server re-checks an episode by replaying its
    trajectory through the game engine, which needs no prompt.
    """

    track: Literal["agentic"]
    """Discriminator: an agentic run."""
    grid: str = Field(min_length=1, max_length=200)
    """The grid the run covers: installed with coordqa (``smoke``, ``paper``) or registered on
    the server. Its tasks (games, layouts, seeds, horizons, partners, seats, preset) are the
    server's, not the bundle's."""

    @field_validator("grid")
    @classmethod
    def _readable_grid(cls, value: str) -> str:
        return clean_name(value, what="grid")

    episodes: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_EPISODES)
    """``episodes.jsonl`` records (:meth:`coordqa.agentic.AgenticEpisode.to_record`)."""
    reported: dict[ReportedKey, float | None] | None = Field(
        default=None, max_length=MAX_REPORTED_KEYS
    )
    """The submitter's mean score per ``<game>/self`` or ``<game>/cross`` (optional)."""

    @field_validator("manifest")
    @classmethod
    def _agentic_manifest(cls, manifest: RunManifest) -> RunManifest:
        if manifest.kind != "agentic":
            raise ValueError(
                f"an agentic bundle needs a manifest of kind 'agentic', got {manifest.kind!r}"
            )
        return manifest


TRACKS: Registry[type[BundleBase]] = Registry("submission track")
"""Bundle model per ``track`` value. A new track registers its model here (and a verifier in
:mod:`coordqa.leaderboard.verify`)."""
TRACKS.add("qa", QABundle)
TRACKS.add("agentic", AgenticBundle)


def track_model(data: Mapping[str, Any]) -> type[BundleBase]:
    """The bundle model for ``data['track']``.

    Raises:
        UnknownNameError: the track is missing or not registered (the message lists the
            tracks).
    """
    return TRACKS.get(str(data.get("track")))


def bundle_digest(data: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field of ``data`` except ``digest``.

    Computed on the JSON document itself (not on a parsed model), so client and server agree
    byte for byte whatever pydantic would normalise.
    """
    return content_hash({key: value for key, value in data.items() if key != "digest"})


def result_digest(data: Mapping[str, Any], beside: Mapping[str, Any] | None = None) -> str:
    """SHA-256 of a bundle's results alone, whatever its names, links and reported numbers.

    QA: the dataset fingerprint and every reply (question, trial, text, error); agentic: the
    grid and every episode's key and trajectory (the moves; not the attempt id or timings). The
    same run submitted again under another name has the same result digest, so the server
    ranks it once.

    ``beside``: results the entry holds outside the bundle, a board-run QA job's private split
    (its questions' fingerprint and accuracy). They are results too: two jobs of one
    deterministic endpoint answer the public questions alike, but each its own secret split, so
    they are two runs (a grid job's secret deals are in its episodes already). None (an upload)
    leaves the digest as it always was.
    """
    if data.get("track") == "agentic":
        results: Any = [
            data.get("grid"),
            sorted(
                ([str(e.get("key")), e.get("trajectory")] for e in data.get("episodes") or ()),
                key=lambda pair: pair[0],
            ),
        ]
    else:
        results = [
            data.get("dataset_fingerprint"),
            sorted(
                (
                    [
                        str(r.get("question_id")),
                        int(r.get("trial") or 0),
                        r.get("text"),
                        r.get("error"),
                    ]
                    for r in data.get("replies") or ()
                ),
                key=lambda reply: (reply[0], reply[1]),
            ),
        ]
    identity = [data.get("track"), results]
    return content_hash(identity if beside is None else [*identity, dict(beside)])


def _sealed(data: dict[str, Any], model: type[BundleBase], run_dir: Path) -> dict[str, Any]:
    """``data`` with its digest, validated against ``model``, as the server will read it.

    The JSON round trip turns integer keys (seats in trajectories) into strings first, so the
    digest is computed on exactly the document the server receives.

    Raises:
        BundleSchemaError: the document breaks the schema (the run at ``run_dir`` holds a
            value no bundle may carry).
    """
    plain: dict[str, Any] = json.loads(json.dumps(data, ensure_ascii=False, allow_nan=False))
    plain["digest"] = bundle_digest(plain)
    try:
        model.model_validate(plain)
    except ValidationError as exc:
        raise BundleSchemaError(run_dir, *schema_violations(exc)) from None
    return plain


def missing_keys(
    present: list[tuple[str, int]], question_ids: list[str], trials: int
) -> tuple[list[tuple[str, int]], list[tuple[str, int]], list[tuple[str, int]]]:
    """Compare the (question_id, trial) keys of a run with what it should hold.

    Returns:
        ``(missing, duplicated, unknown)``: expected keys absent; keys present more than once;
        keys whose question is not in ``question_ids`` or whose trial is out of range. Each
        sorted.
    """
    expected = {(qid, trial) for qid in question_ids for trial in range(trials)}
    seen: set[tuple[str, int]] = set()
    duplicated: set[tuple[str, int]] = set()
    for key in present:
        if key in seen:
            duplicated.add(key)
        seen.add(key)
    return sorted(expected - seen), sorted(duplicated), sorted(seen - expected)


def format_keys(keys: list[tuple[str, int]]) -> str:
    """A short list of (question_id, trial) keys for a message: ``qid#trial, ...``."""
    return format_list([f"{qid}#{trial}" for qid, trial in keys])


SELECTIONS = ("games", "types", "ids", "sample", "limit")
"""The ``coordqa eval`` options that answer part of a dataset (a run with one is not ranked)."""

_PROVIDER = re.compile(r"^([A-Za-z0-9_.-]+)/")


def default_provider(model: str) -> str:
    """``openai`` for ``openai/gpt-4o``; ``coordqa`` for the built-in offline models."""
    match = _PROVIDER.match(model)
    return match.group(1) if match else "coordqa"


def build_qa_bundle(
    run_dir: str | Path,
    *,
    display_name: str | None = None,
    provider: str | None = None,
    parameters: float | None = None,
    organisation: str | None = None,
    link: str | None = None,
) -> dict[str, Any]:
    """Build the submission bundle of a finished QA run, as a JSON-ready dict with its digest.

    ``display_name`` defaults to the run's model, ``provider`` to its prefix (``openai`` for
    ``openai/gpt-4o``; ``coordqa`` for the built-in models).

    The run is read with :func:`coordqa.store.read_qa_run`: the replies are the latest call of
    each key, checked against the run's questions x trials; the reported numbers come from
    ``summary.json`` when present.

    Raises:
        BundleError: the run was filtered to part of its dataset, or misses (question, trial)
            pairs (the message lists a few and says how to finish the run).
        StoreError: the run directory is missing, corrupt or not a QA run.
    """
    info = {
        "display_name": display_name,
        "provider": provider,
        "parameters": parameters,
        "organisation": organisation,
        "link": link,
    }
    run = read_qa_run(run_dir)
    _refuse_unrankable(run.model)
    manifest = run.manifest
    fingerprint, calls = _whole_run_calls(run)
    replies = [
        {"question_id": qid, "trial": trial, "text": call.text, "error": call.error}
        for (qid, trial), call in sorted(calls.items())
    ]
    data = _envelope("qa", manifest, run.model, info)
    data["dataset_fingerprint"] = fingerprint
    data["replies"] = replies
    data["reported"] = _reported(run.summary())
    return _sealed(data, QABundle, run.path)


def _refuse_unrankable(model: str | None) -> None:
    """Refuse a run the board never ranks (``bot``), in the board's words, before it is sent.

    A bundle of ``bot`` was written without a word and refused only on upload (walkthrough
    11, #167); the rule is :func:`~coordqa.leaderboard.rankable.unrankable_problem`, the board's.

    Raises:
        BundleError: ``model`` plays from the game's state.
    """
    problem = unrankable_problem(model)
    if problem is not None:
        raise BundleError(
            f"{problem}; the leaderboard refuses such a run, so no bundle was made: submit a "
            "run of a language model (--model NAME)"
        )


def _whole_run_calls(run: QARun) -> tuple[str, dict[SampleKey, QACall]]:
    """A QA run of a whole dataset: its dataset's fingerprint, its last call per (question, trial).

    Raises:
        BundleError: the run has no dataset, was filtered to part of it, or misses pairs.
    """
    manifest = run.manifest
    if manifest.dataset is None:
        raise BundleError(
            f"{run.path} has no dataset in its manifest; only QA runs of a dataset "
            "(coordqa eval) can be submitted to the qa track"
        )
    if any(manifest.config.get(k) for k in SELECTIONS):
        from coordqa.analysis.groups import describe_filters

        raise BundleError(
            f"{run.path} answered part of its dataset ({describe_filters(manifest.config)}); "
            "the leaderboard ranks runs of the whole dataset: run `coordqa eval` without "
            + "/".join(f"--{name}" for name in SELECTIONS)
        )
    calls = run.last_calls()
    missing, _, unknown = missing_keys(list(calls), list(run.questions()), run.trials)
    if missing or unknown:
        raise BundleError(
            f"{run.path} is incomplete: {len(missing)} of {len(run.expected_keys())} "
            f"(question, trial) pairs have no reply ({format_keys(missing)})"
            + (f"; unexpected pairs: {format_keys(unknown)}" if unknown else "")
            + ". Run the same `coordqa eval` command again to finish it."
        )
    return manifest.dataset.fingerprint, calls


def _envelope(
    track: str, manifest: RunManifest, model_name: str, info: Mapping[str, Any]
) -> dict[str, Any]:
    """The fields every track shares; model metadata defaults from the run's model."""
    from coordqa import __version__

    model = ModelInfo(
        display_name=info.get("display_name") or model_name,
        provider=info.get("provider") or default_provider(model_name),
        parameters=info.get("parameters"),
        organisation=info.get("organisation"),
        link=info.get("link"),
    )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "track": track,
        "model": model.model_dump(mode="json"),
        "coordqa_version": __version__,
        "manifest": manifest.shareable().model_dump(mode="json"),
    }


Destination = Literal["file", "board", "own-board"]
"""Where an agentic bundle goes, which says how much of its grid is checked as it is built:
saved to a file, sent to a board now, or handed to the board's own verification (a worker)."""


def agent_label(agent: str, model: str | None) -> str:
    """How an agent under test is named: ``cac[openai/gpt-4o]``, or the player name alone."""
    return agent if model is None else f"{agent}[{model}]"


def _one_agent_command(manifest: RunManifest, out: str, agent: str, model: str | None) -> str:
    """The command that plays the run's grid with ``agent`` (and ``model``) alone, into ``out``.

    It is the run's own ``coordqa agentic grid`` command with its ``--agent``, ``--model`` and
    ``--out`` replaced (for a run made through the Python API, the grid's name stands in).
    """
    argv = list(manifest.command[1:])
    if argv[:2] != ["agentic", "grid"]:
        argv = ["agentic", "grid", str(manifest.config.get("name") or "GRID.yaml")]
    replaced = {"--agent", "--out"} | ({"--model"} if model is not None else set())
    kept: list[str] = []
    skip_value = False
    for arg in argv:
        if skip_value:
            skip_value = False
        elif arg in replaced:
            skip_value = True
        elif arg.split("=", 1)[0] not in replaced:
            kept.append(arg)
    kept += ["--agent", agent, *(["--model", model] if model is not None else [])]
    kept += ["--out", out]
    return shlex.join(["coordqa", *kept])


def _check_grid_name(path: Path, manifest: RunManifest, grid: str | None) -> None:
    """Refuse ``--grid`` of a shipped grid whose tasks the run did not play, before sending.

    Grids are told apart by their tasks (the fingerprint the run's manifest records,
    ``config.grid``), never by the text of a name: a grid file may be registered on a board
    under another name than its ``name:`` (a changed grid, as ``my-grid-v2``), and a file path
    is no name at all. So only a grid coordqa ships is compared here; a grid file is read and
    checked by its tasks (:func:`_covered_grid`), and a name only a board knows is left to that
    board, which checks the tasks the same way. A run of ``agentic run`` without ``--grid`` is
    refused, as the board would: no board registers its grid.
    """
    played = manifest.config.get("grid")
    if grid is None and played is None and _played_by_agentic_run(manifest):
        raise BundleError(
            f"{path} was played by agentic run, on no registered grid; the board ranks only "
            "runs of its grids: play one (coordqa agentic grid smoke --model M --agent A "
            "--out DIR) and submit that, or give --grid NAME if this run's episodes are all "
            "of that registered grid"
        )
    if grid is None or not isinstance(played, dict):
        return
    from coordqa.agentic import registered_grid

    wanted = registered_grid(grid)
    if wanted is None or wanted.fingerprint == played.get("fingerprint"):
        return
    grid = wanted.name  # as it spells itself: --grid is read in any case
    name, version = played.get("name"), played.get("version")
    if name == grid:  # the shipped grid's name on other tasks (seeds, layouts, partners)
        raise BundleError(
            f"{path} played a grid named {grid!r} whose tasks are not those of the grid "
            f"{grid!r} coordqa ships (version {wanted.version}): its seeds, layouts, partners "
            f"or options differ. Play the shipped grid (`coordqa agentic grid {grid} ...`) and "
            "submit that run"
        )
    raise BundleError(
        f"{path} played grid {name!r} (version {version}), not {grid!r}. Leave --grid out to "
        f"submit it as {name!r}, or play {grid!r} (`coordqa agentic grid {grid} ...`) and "
        "submit that run"
    )


def _played_by_agentic_run(manifest: RunManifest) -> bool:
    """Whether ``coordqa agentic run`` made the run (its recorded command line says so).

    That command builds its grid from its options (named ``AGENT-MODEL-GAME``): no board
    registers such a grid.
    """
    words = manifest.command
    return any(words[i : i + 2] == ["agentic", "run"] for i in range(len(words)))


@dataclass(frozen=True)
class _LocalGrid:
    """A grid ``submit`` can read here: its name on a board, version, task keys, how to play it."""

    name: str
    version: int | None
    tasks: frozenset[str]
    play: str
    """What ``coordqa agentic grid`` takes to play it: the shipped name or the file's path."""


def _local_grid(given: str) -> _LocalGrid | None:
    """The grid coordqa ships as ``given``, or the grid file at that path; None for neither.

    Raises:
        ConfigError: ``given`` is a file but no valid grid.
    """
    from coordqa.agentic import load_grid, registered_grid

    shipped = registered_grid(given)
    if shipped is not None:
        keys = frozenset(task.key for task in shipped.tasks())
        return _LocalGrid(shipped.name, shipped.version, keys, shipped.name)
    if not Path(given).is_file():
        return None
    config = load_grid(given)
    keys = frozenset(task.key for task in config.tasks())
    return _LocalGrid(config.name, config.version, keys, given)


def _covered_grid(
    played: Iterable[str],
    given: str,
    *,
    own_grid: str | None,
    agent: str,
    model: str | None,
    sending: bool,
    run_dir: Path,
    skips: Mapping[str, str],
) -> str:
    """The board name of grid ``given`` once ``played`` covers it, as far as it is known here.

    The board's rule and words (:func:`~coordqa.leaderboard.coverage.coverage_problem`), so a
    run the board would refuse is refused before it is written or sent, with what to play.
    A name known neither here nor as the run's own grid is sent (``sending``: the board knows
    the grids it registered, and answers a typo with the closest of them) but not saved: no
    check would stand between a saved bundle and its upload. The refusal names both ways to
    send it (``--to`` and ``destination="board"``): this library's callers are the CLI and
    Python code.

    ``own_grid`` is the name of the grid file the run played (its manifest's): a grid coordqa
    does not ship, but a board may have registered that file, so it is not refused. A run of
    that grid short of tasks is told to finish in ``run_dir``, its folder; its episodes skipped
    as it played (``skips``, a player not ready) are said first, with their fix, since playing
    again skips them again until then (walkthrough 27).
    ``sending``: the bundle goes to a board now, which knows its own registered grids.

    Raises:
        BundleError: the episodes do not cover a grid known here (the board's words, then the
            command that plays it), or ``given`` is known neither here nor, when saving, as
            the run's own grid (with the closest shipped names).
        ConfigError: ``given`` is a file but no valid grid.
    """
    grid = _local_grid(given)
    if grid is None:
        _refuse_a_missing_grid_file(given)
        if sending or given == own_grid:
            return given
        from coordqa.agentic import registered_grids
        from coordqa.registry import did_you_mean

        shipped = sorted(registered_grids())
        known = sorted({*shipped, *([own_grid] if own_grid else [])})
        raise BundleError(
            f"unknown grid {given!r}: coordqa ships no grid of that name ({', '.join(shipped)}) "
            f"and no grid file is at that path.{did_you_mean(given, known)} For a grid a "
            "board registered from a YAML file, give that file as the grid (--grid FILE.yaml) "
            "so the run is checked against it, or send the bundle to that board now instead of "
            'saving it (--to URL; destination="board" in Python), and the board checks it'
        )
    played = list(played)
    problem = coverage_problem(played, grid.name, grid.version, grid.tasks)
    if problem is not None:
        own = str(run_dir) if grid.name == own_grid else None  # the run played this grid
        fix = coverage_fix(played, grid.tasks, grid.play, agent, model, run=own)
        if own is not None and skips:
            why = sorted(set(skips.values()))[0]
            skipped = f"{counted(len(skips), 'episode')} {agreeing(len(skips), 'was', 'were')}"
            fix = f"{skipped} skipped as the run played ({why}): do that first, then {fix}"
        raise BundleError(f"{problem}; {fix}")
    return grid.name


def _named_grid(own_grid: str) -> str | None:
    """The run's own grid name, or None for :class:`~coordqa.agentic.GridConfig`'s default.

    A grid file names its grid (``name:``), which a board may have registered; the default
    ``grid`` (a ``GridConfig`` made in Python without a name) is no grid any board knows, so a
    bundle of it is not saved unchecked (walkthrough 17, R2: ``run_grid(GridConfig(...))``
    was saved by ``submit --out`` with no ``--grid``, then refused by the board).
    """
    from coordqa.agentic import GridConfig

    return None if own_grid == GridConfig.model_fields["name"].default else own_grid


def _refuse_a_missing_grid_file(given: str) -> None:
    """Refuse ``given`` when it reads as a grid file's path, as no file is there.

    Such a --grid is a mistyped path, never a board's grid name: sent, the board would answer
    "unknown grid 'my-grdi.yaml'" (walkthrough 12 #115); saved or sent, it is refused here in
    the words every command says a missing path or a folder in
    (:func:`~coordqa.given_paths.not_a_file`),
    with the grid files beside where it points that are close to it.

    Raises:
        BundleError: ``given`` reads as a path (:func:`~coordqa.agentic.names_a_grid_file`).
    """
    from coordqa.agentic import names_a_grid_file, registered_grids
    from coordqa.given_paths import YAML_SUFFIXES, not_a_file

    if not names_a_grid_file(given):
        return
    missing = not_a_file(given, "grid file", YAML_SUFFIXES, folders=False)
    raise BundleError(
        f"{missing} A --grid ending in .yaml or .yml, "
        "or holding a '/', is a grid file's path: give the path of the grid file the run "
        "played, or the name the board ranks the grid under (shipped with coordqa: "
        f"{', '.join(sorted(registered_grids()))})"
    )


def build_agentic_bundle(
    run_dir: str | Path,
    *,
    grid: str | None = None,
    destination: Destination = "file",
    **info: Any,
) -> dict[str, Any]:
    """Build the submission bundle of an agentic run (``coordqa agentic run/grid``).

    ``grid`` names the leaderboard grid the run covers (default: the ``name`` of the run's grid
    file): a grid coordqa ships or a grid file, whose tasks the episodes must cover here with
    the board's rule (:mod:`coordqa.leaderboard.coverage`), or, for a bundle sent to a board
    now (``destination="board"``), a name that board may have registered. The board's own
    worker (``"own-board"``) checks nothing here: it verifies the bundle against its grid with
    the seeds it drew. ``info`` takes the model metadata of
    :func:`build_qa_bundle`. The run must test one agent with one model (a leaderboard entry
    ranks one thing).

    Raises:
        BundleError: the run has no finished episode or tests several agents or models,
            ``grid`` is not the registered grid the run played, its episodes do not cover the
            grid, or the grid is unknown here and the bundle is saved to a file.
        StoreError: the run directory is missing, corrupt or not an agentic run.
    """
    from coordqa.agentic import read_agentic_run, unshipped_checkpoint_problem

    store = open_run(run_dir)
    if destination != "own-board":  # the worker's run is on the seeds it drew, by design
        _check_grid_name(store.path, store.manifest, grid)
    run = read_agentic_run(store)
    episodes = run.episodes(with_exchanges=False)
    if not episodes:
        raise BundleError(f"{store.path} has no finished episode; run the grid to the end first")
    tested = sorted({agent_label(e.spec.agent, e.spec.model) for e in episodes})
    if len(tested) != 1:
        agent, model = min({(e.spec.agent, e.spec.model) for e in episodes}, key=str)
        others = [label for label in tested if label != agent_label(agent, model)]
        out = f"{str(run_dir).rstrip('/')}-{agent}"
        raise BundleError(
            f"{store.path} tests {len(tested)} agents/models ({', '.join(tested)}); a leaderboard "
            "entry ranks one agent and model: play each in a run of its own, e.g. `"
            + _one_agent_command(store.manifest, out, agent, model)
            + f"` (likewise for {', '.join(others)}), then "
            f"`coordqa submit {shlex.quote(out)} --to URL --token T`"
        )
    own_grid = str(store.manifest.config.get("name") or "grid")
    agent, model = episodes[0].spec.agent, episodes[0].spec.model
    _refuse_unrankable(model)
    unshipped = None if destination == "own-board" else unshipped_checkpoint_problem(episodes)
    if unshipped is not None:
        raise BundleError(f"{store.path}: {unshipped}")
    data = _envelope("agentic", store.manifest, tested[0], info)
    data["grid"] = grid or own_grid
    if destination != "own-board":
        data["grid"] = _covered_grid(
            (e.spec.task.key for e in episodes),
            grid or own_grid,
            own_grid=_named_grid(own_grid),
            agent=agent,
            model=model,
            sending=destination == "board",
            run_dir=store.path,
            skips=run.skips(),
        )
    data["episodes"] = [episode.to_record() for episode in episodes]
    data["reported"] = None
    return _sealed(data, AgenticBundle, store.path)


def build_bundle(
    run_dir: str | Path,
    *,
    grid: str | None = None,
    destination: Destination = "file",
    **info: Any,
) -> dict[str, Any]:
    """The bundle of any run: QA runs go to the ``qa`` track, agentic runs to ``agentic``.

    ``grid`` and ``destination`` are for agentic runs (see :func:`build_agentic_bundle`).

    Raises:
        BundleError: the run's kind has no track (``play`` runs), or ``grid`` is given for a
            QA run.
    """
    kind = open_run(run_dir).manifest.kind
    if kind == "qa":
        if grid is not None:
            raise BundleError(f"{run_dir} is a QA run; --grid is for agentic runs")
        return build_qa_bundle(run_dir, **info)
    if kind == "agentic":
        return build_agentic_bundle(run_dir, grid=grid, destination=destination, **info)
    raise BundleError(
        f"{run_dir} is a {kind!r} run; the leaderboard takes QA runs (coordqa eval) and agentic "
        "runs (coordqa agentic run/grid)"
    )


def _reported(summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The run's own accuracies from its ``summary.json`` (None when the run has none)."""
    if summary is None:
        return None
    by_type = {row["question_type"]: row["accuracy"] for row in summary.get("by_type", [])}
    return {"overall": summary.get("overall", {}).get("accuracy"), "by_type": by_type}
