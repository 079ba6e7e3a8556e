"""Choosing questions (--ids, --sample, --limit) and naming run directories."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.dataset import filter_dataset, load_dataset
from coordqa.errors import ConfigError
from coordqa.evaluation import EvalConfig, evaluate, run_name
from coordqa.store import read_qa_run


@pytest.fixture(scope="module")
def bundled():  # type: ignore[no-untyped-def]
    return load_dataset()


def cells(ds) -> Counter[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return Counter(zip(ds["game"], ds["question_type"], strict=True))


def test_sample_is_stratified_over_game_and_type_and_reproducible(bundled) -> None:  # type: ignore[no-untyped-def]
    size = 40
    full = cells(bundled)
    chosen = filter_dataset(bundled, sample=size, seed=7)
    assert len(chosen) == size
    got = cells(chosen)
    for cell, count in full.items():
        share = size * count / len(bundled)
        assert got[cell] in (math.floor(share), math.ceil(share)), cell
    again = filter_dataset(bundled, sample=size, seed=7)
    assert list(again["question_id"]) == list(chosen["question_id"])
    other = filter_dataset(bundled, sample=size, seed=8)
    assert list(other["question_id"]) != list(chosen["question_id"])
    order = {qid: i for i, qid in enumerate(bundled["question_id"])}
    positions = [order[qid] for qid in chosen["question_id"]]
    assert positions == sorted(positions)  # kept in dataset order


def test_filters_compose_in_order_and_limit_is_the_first_n(bundled) -> None:  # type: ignore[no-untyped-def]
    ec = filter_dataset(bundled, types=["EC"])
    first = filter_dataset(bundled, types=["EC"], limit=5)
    assert list(first["question_id"]) == list(ec["question_id"])[:5]
    picked = list(bundled["question_id"])[3:9]
    by_ids = filter_dataset(bundled, ids=reversed(picked))
    assert list(by_ids["question_id"]) == picked  # dataset order, whatever order was given
    sampled = filter_dataset(bundled, types=["JP"], sample=6, seed=1, limit=2)
    assert len(sampled) == 2 and set(sampled["question_type"]) == {"JP"}


def test_bad_selections_say_what_to_do(bundled) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="not in the dataset: no-such-id"):
        filter_dataset(bundled, ids=["no-such-id"])
    with pytest.raises(ConfigError, match="more than the"):
        filter_dataset(bundled, types=["EC"], sample=len(bundled))
    with pytest.raises(ConfigError, match="at least 1"):
        filter_dataset(bundled, sample=0)


def test_run_names_say_model_dataset_and_options_then_a_hash() -> None:
    base = EvalConfig(model="openai/gpt-4o", dataset="example")
    name = run_name(base, "example", "f" * 64)
    assert name.startswith("openai-gpt-4o_example_") and len(name.split("_")[-1]) == 8
    assert run_name(base, "example", "f" * 64) == name  # the same command resumes the same run
    changed = EvalConfig(
        model="openai/gpt-4o",
        dataset="example",
        types=("JP", "EC"),
        limit=20,
        temperature=0.0,
        sample=30,
        sample_seed=2,
    )
    named = run_name(changed, "example", "f" * 64)
    assert named.startswith("openai-gpt-4o_example_EC+JP_sample30s2_first20_temp0.0_")
    hotter = EvalConfig(model="openai/gpt-4o", dataset="example", temperature=0.7)
    assert run_name(hotter, "example", "f" * 64) != name
    assert run_name(base, "example", "e" * 64) != name  # another dataset content
    moved = EvalConfig(model="openai/gpt-4o", dataset="example", api_base="http://h:1")
    assert run_name(moved, "example", "f" * 64) == name  # another server: the same run
    more = EvalConfig(model="openai/gpt-4o", dataset="example", trials=5)
    assert run_name(more, "example", "f" * 64).startswith("openai-gpt-4o_example_trials5_")
    assert run_name(more, "example", "f" * 64, counted=False) == name  # a set's member
    path = run_name(EvalConfig(model="random"), "/data/my-questions.parquet", "f" * 64)
    assert path.startswith("random_my-questions_")


def test_selection_is_part_of_the_run_identity_only_when_used(tmp_path: Path) -> None:
    plain = EvalConfig(model="random", dataset="example")
    assert "ids" not in plain.identity() and "sample" not in plain.identity()
    config = EvalConfig(
        model="random", dataset="example", trials=1, sample=4, sample_seed=3, out=tmp_path / "r"
    )
    result = evaluate(config)
    run = read_qa_run(result.run_dir)
    assert len(run.questions()) == 4
    assert run.manifest.config["sample"] == 4 and run.manifest.config["sample_seed"] == 3


def test_eval_ids_from_a_file_and_limit_help(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("# the two Hanabi questions\nexample-hanabi-01-EC\n\nexample-hanabi-01-JP\n")
    result = coordqa(
        "eval", "-m", "random", "--dataset", "example", "--trials", "1", "--ids", str(ids),
        "--out", str(tmp_path / "run"), columns=100,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    run = read_qa_run(tmp_path / "run")
    assert list(run.questions()) == ["example-hanabi-01-EC", "example-hanabi-01-JP"]
    helped = coordqa("eval", "--help", columns=100)
    words = " ".join(helped.stdout.replace("│", " ").split())
    assert "Keep the first N questions in dataset order" in words
    assert "stratified over game x type" in words


def test_sample_12_of_v1_2_is_proportional_as_the_guide_says() -> None:
    """Walkthrough 2, R8: README promised 'stratified over game x type' and --sample 12 drew no
    Collab question. By hand from v1.2's cells (Hanabi 28, Overcooked 25, Collab Escape 7,
    Collab Capture 6 per type, 198 in all): shares 1.70, 1.52, 0.42, 0.36; floors give one per
    Hanabi and Overcooked cell, the six left go to the largest remainders (Hanabi, Overcooked)."""
    chosen = filter_dataset(load_dataset(), sample=12, seed=0)
    cells = Counter(zip(chosen["game"], chosen["question_type"], strict=True))
    expected = {
        (game, kind): 2 for game in ("hanabi", "overcooked") for kind in ("EC", "ToM", "JP")
    }
    assert dict(cells) == expected
    guide = Path(__file__).parents[1] / "docs" / "evaluating.md"
    words = " ".join(guide.read_text().split())
    assert "`--sample 12` on v1.2 draws 2 of each type from Hanabi and from Overcooked" in words
