"""Accepting a submission: parse, validate, verify, store; the server's only write path.

Every rejection is a :class:`~coordqa.leaderboard.verify.VerificationError` carrying the HTTP
status to answer with: 400 for a body that is not strict JSON (non-finite numbers, integers
beyond 64 bits, nesting deeper than :data:`MAX_DEPTH`), 422 for schema violations (with field
paths), a digest that does not match, or anything verification refuses.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from coordqa.errors import UnknownNameError
from coordqa.leaderboard.bundle import BundleBase, bundle_digest, track_model
from coordqa.leaderboard.catalog import Catalog
from coordqa.leaderboard.db import Database, Submission, dump_json
from coordqa.leaderboard.names import lookalike_of, scripts
from coordqa.leaderboard.verify import VERIFIERS, VerificationError

__all__ = [
    "Accepted",
    "SchemaError",
    "accept",
    "parse_bundle",
    "read_json",
]


class SchemaError(VerificationError):
    """The bundle breaks the schema; ``errors`` holds one ``{"loc", "msg"}`` per violation."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        """Summarise the first few violations in the message."""
        shown = "; ".join(f"{e['loc']}: {e['msg']}" for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"the bundle does not follow the submission schema: {shown}{more}")
        self.errors = errors


@dataclass(frozen=True)
class Accepted:
    """The answer to an accepted submission."""

    id: int
    """The submission's id."""
    created: bool
    """False when the same bundle was already stored (the existing entry is returned)."""
    mismatches: list[str]
    """Where reported numbers disagree with the recomputed ones."""


MAX_DEPTH = 64
"""Deepest JSON nesting a bundle may have (real bundles nest about a dozen levels)."""
MAX_INT = 2**63 - 1
"""Largest integer magnitude a bundle may hold (a signed 64-bit database column)."""


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


def _depth(data: Any) -> int:
    """Nesting depth of a parsed JSON document, without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                break
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return deepest


def read_json(body: bytes) -> Any:
    """Parse a request body as strict JSON: finite numbers, 64-bit integers, bounded nesting.

    Raises:
        VerificationError: status 400, saying what is wrong.
    """
    try:
        data = json.loads(body, parse_constant=_constant, parse_float=_finite, parse_int=_bounded)
    except RecursionError:
        raise VerificationError(
            f"the body nests deeper than {MAX_DEPTH} levels; a bundle is a shallow document",
            status=400,
        ) from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError and the hooks' refusals
        raise VerificationError(f"the body is not valid JSON: {exc}", status=400) from exc
    if _depth(data) > MAX_DEPTH:
        raise VerificationError(
            f"the body nests deeper than {MAX_DEPTH} levels; a bundle is a shallow document",
            status=400,
        )
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
        errors = [
            {"loc": ".".join(str(part) for part in error["loc"]) or "(root)", "msg": error["msg"]}
            for error in exc.errors(include_url=False)
        ]
        raise SchemaError(errors) from exc
    actual = bundle_digest(data)
    if actual != bundle.digest:
        raise VerificationError(
            f"digest {bundle.digest[:12]}... does not match the bundle's content "
            f"({actual[:12]}...): the bundle was changed after it was built; rebuild it with "
            "`coordqa submit RUN_DIR --out FILE`"
        )
    return bundle, data


def accept(db: Database, catalog: Catalog, body: bytes, token_id: int | None) -> Accepted:
    """Verify a bundle and store it (or find the identical one already stored).

    Raises:
        VerificationError: the bundle is refused (its ``status`` is the HTTP answer).
    """
    bundle, data = parse_bundle(body)
    existing = db.find_digest(bundle.digest)
    if existing is not None:
        return Accepted(existing, False, [])
    track = str(data["track"])
    verified = VERIFIERS.get(track)(bundle, catalog)
    info = bundle.model
    flags = _lookalike_flags(info.display_name, db.display_names())
    submission = Submission(
        digest=bundle.digest,
        track=track,
        display_name=info.display_name,
        provider=info.provider,
        parameters=info.parameters,
        organisation=info.organisation,
        link=info.link,
        coordqa_version=bundle.coordqa_version,
        metrics=verified.metrics,
        reported=data.get("reported"),
        mismatches=verified.mismatches,
        bundle=dump_json(data),
        token_id=token_id,
        flags=flags,
        **verified.run,
    )
    new_id, created = db.store(submission, verified.samples, verified.episodes)
    return Accepted(new_id, created, verified.mismatches if created else [])


def _lookalike_flags(name: str, existing: set[str]) -> list[str]:
    """A warning for readers when ``name`` imitates an existing one by mixing alphabets."""
    other = lookalike_of(name, existing)
    if other is None:
        return []
    mixed = " and ".join(sorted(script.title() for script in scripts(name)))
    return [f"looks like the existing entry {other!r} but mixes {mixed} letters"]
