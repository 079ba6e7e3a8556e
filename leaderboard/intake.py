"""Accepting a submission: parse, validate, verify, store; the server's only write path.

Every rejection is a :class:`~coordqa.leaderboard.verify.VerificationError` carrying the HTTP
status to answer with: 400 for a body that is not strict JSON (non-finite numbers, integers
beyond 64 bits, nesting deeper than :data:`MAX_DEPTH`), 422 for schema violations (with field
paths), a digest that does not match, or anything verification refuses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import ValidationError

from coordqa.errors import UnknownNameError
from coordqa.jsonvalues import MAX_DEPTH, JSONTooDeepError, json_nodes
from coordqa.leaderboard.bundle import (
    MAX_LISTED_ERRORS,
    BundleBase,
    bundle_digest,
    result_digest,
    schema_violations,
    shown_violations,
    track_model,
)
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.db import SHOWN_AS, Database, Submission, dump_json
from coordqa.leaderboard.limits import refuse_past_quota
from coordqa.leaderboard.names import DISPLAY_NAME_FIELD, imitated_name, imitation_refusal
from coordqa.leaderboard.verify import (
    CATALOG_CHECKS,
    VERIFIERS,
    VerificationError,
    Verified,
    model_under_test,
)

__all__ = [
    "Accepted",
    "SchemaError",
    "accept",
    "admit",
    "parse_bundle",
    "read_json",
    "refuse_imitation",
    "schema_error",
]


class SchemaError(VerificationError):
    """The bundle breaks the schema; ``errors`` holds one ``{"loc", "msg"}`` per listed violation.

    At most :data:`MAX_LISTED_ERRORS` violations are listed; ``total`` counts them all.
    """

    def __init__(self, errors: list[dict[str, str]], total: int | None = None) -> None:
        """Summarise the first few violations in the message and say how many there are."""
        self.errors = errors[:MAX_LISTED_ERRORS]
        self.total = len(errors) if total is None else total
        shown = shown_violations(self.errors, self.total)
        super().__init__(f"the bundle does not follow the submission schema: {shown}")


@dataclass(frozen=True)
class Accepted:
    """The answer to an accepted submission."""

    id: int
    """The submission's id."""
    created: bool
    """False when the same bundle was already stored (the existing entry is returned)."""
    mismatches: list[str]
    """Where reported numbers disagree with the recomputed ones."""
    hidden: bool = False
    """The existing entry a resent bundle found is hidden: it is stored, but not ranked."""
    hidden_reason: str | None = None
    """Why it is hidden, as its page says (None: the admin gave no reason)."""
    trials: int | None = None
    """A new entry's trials per question (agentic: episodes), to compare with ``beside``'s."""
    beside: list[tuple[int, int]] = field(default_factory=list)
    """``(id, trials)`` of the submitter's other ranked entries of this model and test, which a
    new entry does not replace (:meth:`~coordqa.leaderboard.db.Database.entries_beside`)."""


def _already_stored(db: Database, entry: int) -> Accepted:
    """The answer to a bundle whose results are already ``entry``: the one home of both tracks.

    A hidden entry is said to be hidden, with its reason: otherwise its submitter looks for it
    on the board, where it is not ranked, and cannot find it.
    """
    hidden, reason = db.hidden_state(entry)
    return Accepted(entry, False, [], hidden=hidden, hidden_reason=reason)


MAX_INT = 2**63 - 1
"""Largest integer magnitude a bundle may hold (a signed 64-bit database column)."""
MAX_CONTAINERS = 500_000
"""Most objects and arrays a body may hold, counted on its bytes before parsing (an upper
bound: braces inside strings count too). A parsed container costs 50-200 bytes of memory for
its 2 bytes of JSON; a 45-episode Overcooked grid of 400 steps holds about 110,000."""
MAX_STRINGS = 1_000_000
"""Most strings (keys included) a body may hold, counted on its bytes before parsing
(quotation marks / 2, an upper bound): a short string costs about 60 bytes parsed."""
MAX_KEYS = 1_000
"""Most keys a JSON object in a bundle may have."""
MAX_STRING = 100_000
"""Longest string a bundle may hold (the longest reply text)."""


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number; a bundle holds finite numbers only")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range; a bundle holds finite numbers")
    return value


def _bounded(text: str) -> int:
    if len(text) > 20 or abs(value := int(text)) > MAX_INT:
        raise ValueError(f"the integer {text[:40]} is out of range (|n| <= 2^63-1)")
    return value


def _over(what: str, count: int, limit: int) -> None:
    """Refuse (400) a body holding ``count`` of ``what`` where at most ``limit`` are allowed."""
    if count > limit:
        raise VerificationError(
            f"the body holds {what.format(count)}; at most {limit} are allowed", status=400
        )


def _too_deep() -> VerificationError:
    return VerificationError(
        f"the body nests deeper than {MAX_DEPTH} levels; a bundle is a shallow document",
        status=400,
    )


def _count_before_parsing(body: bytes) -> None:
    """Refuse a body whose parsed form would be far larger than its bytes (see the limits)."""
    _over("about {} JSON objects and arrays", body.count(b"{") + body.count(b"["), MAX_CONTAINERS)
    _over("about {} JSON strings", body.count(b'"') // 2, MAX_STRINGS)


def _check_shape(data: Any) -> None:
    """Refuse a parsed document nested too deep, with too many keys or too long a string.

    Walks the document without recursion (:func:`~coordqa.jsonvalues.json_nodes`, the depth
    rule of every JSON coordqa reads from others) and stops at the first violation.
    """
    try:
        for node in json_nodes(data):
            if isinstance(node, str):
                _over("a string of {} characters", len(node), MAX_STRING)
            elif isinstance(node, dict):
                _over("an object with {} keys", len(node), MAX_KEYS)
    except JSONTooDeepError:
        raise _too_deep() from None


def read_json(body: bytes) -> Any:
    """Parse a request body as strict JSON within the bounds above.

    Finite numbers, 64-bit integers, nesting, keys per object and string lengths are bounded,
    and so, counted on the bytes before parsing, are the numbers of containers and strings: a
    body of the allowed size parses into a bounded amount of memory.

    Raises:
        VerificationError: status 400, saying what is wrong.
    """
    _count_before_parsing(body)
    try:  # json.loads, not load_json: _check_shape walks the document once for every bound
        data = json.loads(body, parse_constant=_constant, parse_float=_finite, parse_int=_bounded)
    except RecursionError:
        raise _too_deep() from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError and the hooks' refusals
        raise VerificationError(f"the body is not valid JSON: {exc}", status=400) from exc
    _check_shape(data)
    return data


def parse_bundle(body: bytes) -> tuple[BundleBase, dict[str, Any]]:
    """Parse and validate a bundle, and check its digest.

    Returns:
        The validated model and the raw JSON document.
    """
    data = read_json(body)
    if not isinstance(data, dict):
        raise SchemaError([{"loc": "(root)", "msg": "a bundle is a JSON object"}])
    try:
        model = track_model(data)
    except UnknownNameError as exc:
        raise SchemaError([{"loc": "track", "msg": str(exc)}]) from exc
    try:
        bundle = model.model_validate(data)
    except ValidationError as exc:
        raise schema_error(exc) from exc
    actual = bundle_digest(data)
    if actual != bundle.digest:
        raise VerificationError(
            f"digest {bundle.digest[:12]}... does not match the bundle's content "
            f"({actual[:12]}...): the bundle was changed after it was built",
            fix="rebuild it with `coordqa submit RUN_DIR --out FILE`",
        )
    return bundle, data


def schema_error(exc: ValidationError) -> SchemaError:
    """The violations of ``exc``, the unlisted ones of long lists counted in the total."""
    return SchemaError(*schema_violations(exc))


def accept(
    db: Database,
    catalog: BoardCatalog,
    body: bytes,
    token_id: int | None,
    quota: int | None = None,
) -> Accepted:
    """Verify a bundle sent to the server and store it (or find the identical one stored).

    ``quota`` caps the token's visible entries: a bundle already stored (the same bundle, or its
    results under the same facts) is answered as such whatever the quota, since it makes no new
    entry; a new one is refused before it is re-scored and counted again in the transaction
    that stores it.

    Raises:
        VerificationError: the bundle is refused (its ``status`` is the HTTP answer).
        QuotaError: the token has ``quota`` visible entries already.
        DuplicateResultsError: the same results are already an entry that shows them otherwise
            (another name, link...; :meth:`~coordqa.leaderboard.db.Database.entry_of_results`).
    """
    bundle, data = parse_bundle(body)
    return admit(db, catalog, bundle, data, token_id, quota)


def admit(
    db: Database,
    catalog: BoardCatalog,
    bundle: BundleBase,
    data: dict[str, Any],
    token_id: int | None,
    quota: int | None = None,
    *,
    origin: str = "uploaded",
    job_id: int | None = None,
    extra_metrics: dict[str, Any] | None = None,
    verify: Callable[[BundleBase], Verified] | None = None,
) -> Accepted:
    """Verify a parsed bundle and store it: the one path of uploaded and board-run entries.

    ``origin`` says where the entry came from (``uploaded``, or ``board-run`` with its
    ``job_id``); ``extra_metrics`` are stored beside the verified numbers (a board-run entry's
    private split, part of its results: :func:`~coordqa.leaderboard.bundle.result_digest`).
    ``verify`` replaces the track's verifier on the catalog (a board-run grid
    is checked against its own secret seeds).

    Checked cheapest first: a bundle the board holds is answered as stored (at the quota too);
    then what it names must be registered here (:data:`CATALOG_CHECKS`), then the token's
    quota, and only then is it re-scored or replayed.

    Raises:
        VerificationError, QuotaError, DuplicateResultsError: as :func:`accept`.
    """
    existing = db.find_digest(bundle.digest)
    if existing is not None:
        return _already_stored(db, existing)
    results = result_digest(data, extra_metrics)
    info = bundle.model
    asked = {
        **{name: getattr(info, name) for name in SHOWN_AS},
        "model_name": model_under_test(bundle),
        "origin": origin,
        "job_id": job_id,
    }
    same = db.entry_of_results(results, asked)
    if same is not None:
        return _already_stored(db, same)
    track = str(data["track"])
    if verify is None:  # a bundle the board cannot rank is refused as such, not for the quota
        CATALOG_CHECKS.get(track)(bundle, catalog)
    if quota is not None and token_id is not None:  # a new entry: refused before re-scoring it
        refuse_past_quota(db, token_id, quota, job_id)
    verified = VERIFIERS.get(track)(bundle, catalog) if verify is None else verify(bundle)
    submission = Submission(
        digest=bundle.digest,
        result_digest=results,
        track=track,
        display_name=info.display_name,
        provider=info.provider,
        parameters=info.parameters,
        organisation=info.organisation,
        link=info.link,
        coordqa_version=bundle.coordqa_version,
        metrics={**verified.metrics, **(extra_metrics or {})},
        reported=data.get("reported"),
        mismatches=verified.mismatches,
        bundle=dump_json(data),
        token_id=token_id,
        origin=origin,
        job_id=job_id,
        **verified.run,
    )
    new_id, created = db.store(
        submission,
        verified.samples,
        verified.episodes,
        quota=quota,
        refuse_name=partial(refuse_imitation, info.display_name),
    )
    if not created:  # committed concurrently by another request
        return _already_stored(db, new_id)
    return Accepted(
        new_id,
        True,
        verified.mismatches,
        trials=submission.trials,
        beside=db.entries_beside(new_id),
    )


def refuse_imitation(name: str, others: set[str]) -> None:
    """Refuse (422) a display name that looks like another submitter's entry or endpoint.

    ``others``: the names of other tokens (a token may reuse its own names: another run of its
    model); checked in the transaction that stores the name
    (:func:`~coordqa.leaderboard.db.claim_display_name`).

    Raises:
        VerificationError: ``name`` looks like one of ``others`` (the message names it).
    """
    imitated = imitated_name(name, sorted(others))
    if imitated is not None:
        raise VerificationError(imitation_refusal(name, imitated), field=DISPLAY_NAME_FIELD)
