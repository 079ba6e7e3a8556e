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


def test_table_rows_become_json_objects() -> None:
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {"game": ["hanabi", "overcooked"], "accuracy": [0.25, np.nan], "n": [4, 0]}
    )
    assert jsonvalues.json_records(frame) == [
        {"game": "hanabi", "accuracy": 0.25, "n": 4},
        {"game": "overcooked", "accuracy": None, "n": 0},
    ]
    assert type(jsonvalues.json_records(frame)[0]["n"]) is int


def test_mean_se_summary_spells_missing_numbers_null() -> None:
    from coordqa.analysis import MeanSE

    # sd of (1, 3) is sqrt(2); over sqrt(2) values: SE 1.
    assert MeanSE.of([1.0, 3.0]).to_json() == {"mean": 2.0, "se": 1.0, "n": 2}
    assert MeanSE.of([]).to_json() == {"mean": None, "se": None, "n": 0}
