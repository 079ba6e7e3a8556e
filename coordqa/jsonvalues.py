"""Python, numpy and pandas values as JSON, the content hash of JSON data, and bounded reading.

One home for three jobs every layer needs: turning computed numbers into values JSON can hold
(JSON has no NaN, and numpy scalars are not ``int`` or ``float``), hashing data by its
canonical JSON text, so two equal configurations, datasets or prompts hash the same whatever
their key order, and reading JSON written by someone else (run folders, bundles) with its
nesting bounded (:func:`load_json`), so a hostile file is an error rather than a crash.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias

__all__ = [
    "MAX_DEPTH",
    "JSONObject",
    "JSONTooDeepError",
    "JSONValue",
    "canonical_json",
    "content_hash",
    "json_mapping",
    "json_nodes",
    "json_records",
    "json_value",
    "load_json",
    "rounded",
]

JSONValue: TypeAlias = (
    "str | int | float | bool | None | Sequence[JSONValue] | Mapping[str, JSONValue]"
)
"""A value JSON can hold (``json.loads`` gives lists and dicts; any sequence or mapping of JSON
values is written as one)."""
JSONObject: TypeAlias = "dict[str, JSONValue]"
"""A JSON object: a stored record, a request body, a manifest section as written."""


def canonical_json(obj: Any) -> str:
    """``obj`` as canonical JSON text: sorted keys, no whitespace, non-ASCII kept as is.

    Values JSON cannot hold (dates, paths) are written as ``str(value)``.

    >>> canonical_json({"b": 1, "a": [1, "é"]})
    '{"a":[1,"é"],"b":1}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_hash(obj: Any) -> str:
    """SHA-256 hex digest of :func:`canonical_json` of ``obj``.

    The one content hash of the package: run and grid fingerprints, dataset, question and
    prompt hashes, response-cache keys.

    >>> content_hash({"b": 1, "a": 2}) == content_hash({"a": 2, "b": 1})
    True
    """
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def json_value(value: Any) -> Any:
    """A scalar as a JSON value: numpy scalars as Python ones, NaN as None; others unchanged.

    NaN is how the analysis says "no data" (an SE of one trial, a correlation of two models);
    JSON spells that ``null``.

    >>> import numpy as np
    >>> [json_value(v) for v in (np.int64(3), float("nan"), np.float32(0.5), "x")]
    [3, None, 0.5, 'x']
    """
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", None) == 0:
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def rounded(value: Any, digits: int) -> Any:
    """``value`` (JSON data) with every float rounded to ``digits`` decimals, for people to read.

    >>> rounded({"accuracy": 0.27777777777777773, "n": [3, 0.5]}, 6)
    {'accuracy': 0.277778, 'n': [3, 0.5]}
    """
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, Mapping):
        return {key: rounded(item, digits) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(item, digits) for item in value]
    return value


def json_mapping(mapping: Mapping[Any, Any]) -> JSONObject:
    """A mapping with string keys and :func:`json_value` values.

    >>> json_mapping({"r": float("nan"), "n": 3})
    {'r': None, 'n': 3}
    """
    return {str(key): json_value(value) for key, value in mapping.items()}


def json_records(rows: Iterable[Mapping[Any, Any]] | Any) -> list[JSONObject]:
    """Rows as JSON objects (:func:`json_mapping` of each); a DataFrame gives its records.

    >>> import pandas as pd
    >>> json_records(pd.DataFrame({"mean": [0.5, float("nan")], "n": [4, 0]}))
    [{'mean': 0.5, 'n': 4}, {'mean': None, 'n': 0}]
    """
    if hasattr(rows, "to_dict"):
        rows = rows.to_dict(orient="records")
    return [json_mapping(row) for row in rows]


MAX_DEPTH = 64
"""Deepest nesting of JSON coordqa reads from others (run folders, bundles). Real manifests,
records and bundles nest about a dozen levels; Python's parser and every recursive walk of the
data (validation, hashing, copying) fail with RecursionError near 1,000."""


class JSONTooDeepError(ValueError):
    """JSON nested deeper than :data:`MAX_DEPTH`: refused like any other invalid JSON."""

    def __init__(self) -> None:
        """Say the limit."""
        super().__init__(f"it nests deeper than {MAX_DEPTH} levels")


def json_nodes(data: Any) -> Iterator[Any]:
    """Every value in parsed JSON ``data`` (object keys included), walked without recursion.

    Raises:
        JSONTooDeepError: at the first object or array deeper than :data:`MAX_DEPTH`.
    """
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list) and depth > MAX_DEPTH:
            raise JSONTooDeepError
        yield node
        if isinstance(node, dict):
            stack.extend((key, depth) for key in node)
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)


def load_json(text: str | bytes, **hooks: Any) -> Any:
    """``json.loads(text, **hooks)`` with the nesting bounded by :data:`MAX_DEPTH`.

    Text with fewer opening brackets than the limit cannot nest deeper, so most records are
    only parsed; the others are walked once after parsing.

    Raises:
        JSONTooDeepError: the text nests deeper than :data:`MAX_DEPTH`.
        ValueError: it is not valid JSON (:class:`json.JSONDecodeError`, or a hook's refusal).
    """
    if isinstance(text, bytes):
        brackets = text.count(b"[") + text.count(b"{")
    else:
        brackets = text.count("[") + text.count("{")
    try:
        data = json.loads(text, **hooks)
    except RecursionError:
        raise JSONTooDeepError from None
    if brackets > MAX_DEPTH:
        for _ in json_nodes(data):  # walked for the depth check alone
            pass
    return data
