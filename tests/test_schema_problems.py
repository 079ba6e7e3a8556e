"""Stored files' validation errors as ``loc: msg`` lines (coordqa.schema_problems)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from coordqa.errors import StoreError
from coordqa.records import QACall
from coordqa.schema_problems import problem_list, schema_problems
from coordqa.store import open_run


class Item(BaseModel):
    n: int = Field(ge=1)


class Thing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: int
    b: list[Item] = []
    even: int = 0

    @field_validator("even")
    @classmethod
    def _even(cls, value: int) -> int:
        if value % 2:
            raise ValueError("must be even")
        return value


def _errors(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Thing.model_validate(data)
    return caught.value


def test_places_are_dotted_and_the_rest_counted() -> None:
    exc = _errors({"b": [{"n": 0}, {"n": "x"}], "c": 1})
    assert schema_problems(exc, "thing", shown=2) == (
        "a: Field required; b.0.n: Input should be greater than or equal to 1 "
        "(and 2 more: 4 in all)"
    )
    problems, total = problem_list(exc, "thing", limit=3)
    assert total == 4
    assert [p["loc"] for p in problems] == ["a", "b.0.n", "b.1.n"]


def test_the_whole_object_is_named_by_its_root_and_value_errors_say_only_why() -> None:
    assert schema_problems(_errors([1]), "thing", shown=5) == (
        "thing: Input should be a valid dictionary or instance of Thing"
    )
    assert schema_problems(_errors({"a": 1, "even": 3}), "thing", shown=5) == "even: must be even"


def test_a_record_with_many_problems_says_how_many_more() -> None:
    with pytest.raises(StoreError) as caught:
        QACall.from_json({"x1": 1, "x2": 2, "x3": 3, "x4": 4, "x5": 5, "x6": 6})
    message = str(caught.value)
    assert "not a valid QACall record (" in message
    assert "x1: Extra inputs are not permitted" in message
    assert "more: " in message and " in all)" in message


def test_a_manifest_missing_fields_names_the_first_three_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    manifest = {"kind": "qa", "x1": 1, "x2": 2}  # config, fingerprint missing; x1, x2 unknown
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StoreError) as caught:
        open_run(tmp_path)
    shown = str(caught.value).split("not a valid run manifest (", 1)[1]
    assert shown.startswith(
        "config: Field required; fingerprint: Field required; "
        "x1: Extra inputs are not permitted (and 1 more: 4 in all))"
    )
