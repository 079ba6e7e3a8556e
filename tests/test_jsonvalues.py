"""The one content hash and the one NaN-to-None conversion (coordqa.jsonvalues)."""

from __future__ import annotations

import doctest
import hashlib

from coordqa import jsonvalues
from coordqa.jsonvalues import canonical_json, content_hash
from coordqa.llm import GenerateConfig, Message, cache_key


def test_doctests() -> None:
    assert doctest.testmod(jsonvalues).failed == 0


def test_hash_is_sha256_of_sorted_compact_utf8_json() -> None:
    expected = hashlib.sha256('{"a":[1,"é"],"b":{"c":null}}'.encode()).hexdigest()
    assert content_hash({"b": {"c": None}, "a": [1, "é"]}) == expected


def test_response_cache_keys_are_unchanged_by_the_merge() -> None:
    # The key format of caches written before the two hashes were merged: sorted keys, no
    # spaces, non-ASCII kept. A user's existing cache must still be hit.
    text = (
        '{"api_base":null,"config":{"max_tokens":null,"seed":null,"temperature":0.5,'
        '"top_p":null},"messages":[["user","né"]],"model":"openai/m","trial":2}'
    )
    key = cache_key("openai/m", None, [Message("user", "né")], GenerateConfig(temperature=0.5), 2)
    assert key == hashlib.sha256(text.encode()).hexdigest()


def test_values_json_cannot_hold_are_written_as_text() -> None:
    from pathlib import PurePosixPath

    assert canonical_json({"path": PurePosixPath("/a/b")}) == '{"path":"/a/b"}'
