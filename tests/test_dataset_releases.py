"""The bundled CoordinationQA releases: v1 and v1.1 frozen as shipped, v1.2 the default, all
validated (the frozen ones through the chain of changelogs)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import datasets
import pytest

import coordqa
from coordqa.dataset import (
    DEFAULT_DATASET,
    bundled_dataset_dir,
    dataset_fingerprint,
    dataset_identity,
    load_rows,
    release,
    release_with_fingerprint,
)
from coordqa.prompts import directive_for
from coordqa.scenarios import (
    ValidationFailed,
    build_dataset,
    validate_dataset,
    validate_rows_against_solvers,
)
from coordqa.scenarios.build import CHANGELOG_FILE
from coordqa.scenarios.changelog import read_changelog

V1_FINGERPRINT = "cb50f8c6c520d7001991528a90e1fcbfaaf645b2d5ee143e35640303cd4f1b55"
V1_PARQUET_SHA256 = "83bc9b2ef13861867c194ccd0c5ee324803902558e3d5fc41be2c2b365f1787e"
"""The v1 release as shipped by coordqa before v1.1 (commit 6a4e49e)."""
V11_FINGERPRINT = "835ae5d925ec69d4a1a7f623b570429ec2cdad954d2c013c482f73f806bae6b1"
V11_PARQUET_SHA256 = "83341e592be1d607f06861816ca9184ef4521f0062052604d87dad1a6060daca"
"""The v1.1 release as shipped by coordqa before v1.2."""

SCENARIOS_PER_GAME = {"overcooked": 25, "hanabi": 28, "collab_capture": 6, "collab_escape": 7}


def composition(rows: list[dict]) -> Counter:
    return Counter(game for game, _ in {(r["game"], r["scenario_id"]) for r in rows})


def test_v1_is_loadable_exactly_as_shipped() -> None:
    folder = bundled_dataset_dir("coordinationqa-v1")
    assert hashlib.sha256((folder / "data.parquet").read_bytes()).hexdigest() == V1_PARQUET_SHA256
    rows = load_rows("coordinationqa-v1")
    assert (
        dataset_fingerprint(rows)
        == V1_FINGERPRINT
        == release("coordinationqa-v1").frozen_fingerprint
    )
    assert len(rows) == 198 and {r["version"] for r in rows} == {"1.0.0"}
    assert composition(rows) == SCENARIOS_PER_GAME


def test_v11_is_loadable_exactly_as_shipped() -> None:
    folder = bundled_dataset_dir("coordinationqa-v1.1")
    digest = hashlib.sha256((folder / "data.parquet").read_bytes()).hexdigest()
    assert digest == V11_PARQUET_SHA256
    rows = load_rows("coordinationqa-v1.1")
    assert (
        dataset_fingerprint(rows)
        == V11_FINGERPRINT
        == release("coordinationqa-v1.1").frozen_fingerprint
    )
    assert {r["version"] for r in rows} == {"1.1.0"} and composition(rows) == SCENARIOS_PER_GAME


def test_v12_is_the_default_and_keeps_the_composition() -> None:
    assert DEFAULT_DATASET == "coordinationqa-v1.2" == release("coordinationqa").name
    rows = load_rows()
    assert {r["version"] for r in rows} == {"1.2.0"}
    assert composition(rows) == SCENARIOS_PER_GAME
    assert Counter(row["question_type"] for row in rows) == {"EC": 66, "ToM": 66, "JP": 66}
    layouts = Counter(row["layout"] for row in rows if row["game"] == "overcooked")
    assert len(layouts) == 5 and min(layouts.values()) >= 4 * 3
    assert dataset_fingerprint(rows) not in (V1_FINGERPRINT, V11_FINGERPRINT)


def test_identity_names_the_release_version_and_content() -> None:
    default = dataset_identity()
    assert (default.name, default.version) == ("coordinationqa-v1.2", "1.2.0")
    assert dataset_identity("coordinationqa") == default
    v1 = dataset_identity("coordinationqa-v1")
    assert (v1.name, v1.version, v1.fingerprint) == ("coordinationqa-v1", "1.0.0", V1_FINGERPRINT)
    assert v1.label == f"coordinationqa-v1 (version 1.0.0, fingerprint {V1_FINGERPRINT[:8]})"
    assert release_with_fingerprint(default.fingerprint) == release()
    assert release_with_fingerprint(V1_FINGERPRINT) == release("coordinationqa-v1")
    assert release_with_fingerprint(V11_FINGERPRINT) == release("coordinationqa-v1.1")
    assert release_with_fingerprint("0" * 64) is None


def test_loads_with_coordqa_and_with_plain_datasets() -> None:
    ours = coordqa.load_dataset()
    folder = bundled_dataset_dir()
    plain = datasets.load_dataset("parquet", data_files=str(folder / "data.parquet"), split="train")
    assert plain.num_rows == ours.num_rows == 198
    assert dataset_fingerprint(plain) == dataset_fingerprint(ours)
    by_type = datasets.load_dataset(
        "parquet", data_files=str(folder / "by_type" / "JP.parquet"), split="train"
    )
    assert set(by_type["question_type"]) == {"JP"} and by_type.num_rows == 66


@pytest.mark.slow  # re-solves the 198 questions: about 12 s of CPU
def test_every_v12_question_validates_against_its_solver_and_checks() -> None:
    report = validate_dataset()
    assert (report.checked, report.resolved, report.frozen, report.superseded) == (
        198,
        198,
        None,
        (),
    )


@pytest.mark.parametrize(
    ("name", "changelogs"),
    [
        ("coordinationqa-v1.1", ("coordinationqa-v1.1 -> coordinationqa-v1.2",)),
        (
            "coordinationqa-v1",
            (
                "coordinationqa-v1 -> coordinationqa-v1.1",
                "coordinationqa-v1.1 -> coordinationqa-v1.2",
            ),
        ),
    ],
)
@pytest.mark.slow  # re-solves a release through its changelogs: 14-26 s of CPU
def test_frozen_releases_validate_with_every_difference_in_a_later_changelog(
    name: str, changelogs: tuple[str, ...]
) -> None:
    report = validate_dataset(name)
    assert report.frozen == release(name) and report.changelogs == changelogs
    listed: set[str] = set()
    for later in (step.split(" -> ")[1] for step in changelogs):
        _, changes = read_changelog(
            (bundled_dataset_dir(later) / CHANGELOG_FILE).read_text(encoding="utf-8")
        )
        listed |= {c.question_id for c in changes if c.change in ("changed", "removed")}
    assert set(report.superseded) <= listed
    assert report.superseded and report.resolved == 198 - len(report.superseded)
    # Plain re-solving (no changelog) fails on exactly those questions.
    with pytest.raises(ValidationFailed):
        validate_rows_against_solvers(load_rows(name))


@pytest.mark.slow  # re-solves v1 through its two changelogs: about 26 s of CPU
def test_validating_v1_names_both_changelogs_it_read() -> None:
    """Blind walkthrough 15 N1: the other 150 questions were said to be listed "in the
    changelog of coordinationqa-v1.1 -> coordinationqa-v1.2", which never names v1 -> v1.1."""
    from cli_support import coordqa as run_coordqa

    result = run_coordqa("dataset", "validate", "coordinationqa-v1", columns=400)
    assert result.returncode == 0, result.stderr
    assert (
        "are listed as changed or removed in the changelogs coordinationqa-v1 -> "
        "coordinationqa-v1.1 and coordinationqa-v1.1 -> coordinationqa-v1.2"
    ) in result.stdout, result.stdout


@pytest.mark.slow  # re-solves the 198 questions: about 15 s of CPU
def test_a_modified_copy_of_v1_is_not_taken_for_the_frozen_release(tmp_path: Path) -> None:
    rows = load_rows("coordinationqa-v1")
    rows[0] = {**rows[0], "options": list(reversed(rows[0]["options"]))}
    path = tmp_path / "v1-modified.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(ValidationFailed, match="problem"):
        validate_dataset(path)


def test_changelog_lists_every_difference_with_a_reason() -> None:
    old = {r["question_id"]: r for r in load_rows("coordinationqa-v1.1")}
    new = {r["question_id"]: r for r in load_rows()}
    previous, changes = read_changelog((bundled_dataset_dir() / CHANGELOG_FILE).read_text())
    assert previous == "coordinationqa-v1.1"
    by_id = {c.question_id: c for c in changes}
    seen = ("game_description", "state_description", "question", "options")
    for qid in old.keys() | new.keys():
        if qid not in new:
            assert by_id[qid].change == "removed"
        elif qid not in old:
            assert by_id[qid].change == "added"
        else:
            a, b = old[qid], new[qid]
            differs = (
                any(sorted(a[f]) != sorted(b[f]) if f == "options" else a[f] != b[f] for f in seen)
                or {a["options"][i] for i in a["correct"]}
                != {b["options"][i] for i in b["correct"]}
                or directive_for(a) != directive_for(b)
            )
            assert (qid in by_id) == differs, qid
    assert all(c.reasons and all(r.strip() for r in c.reasons) for c in changes)
    # v1.2 asks every question with the directive that says any one of several right options
    # counts, so every question kept from v1.1 is listed with that reason.
    kept = old.keys() & new.keys()
    assert all(any(r.startswith("directive: ") for r in by_id[q].reasons) for q in kept)
    card = (bundled_dataset_dir() / "README.md").read_text()
    assert all(c.question_id in card for c in changes)
    assert "## Blind audits" in card
    assert "28 agree, 0 key wrong, 2 not defensible, 0 auditor wrong" in card  # v1
    assert "29 agree, 1 key wrong, 0 not defensible, 0" in card  # v1.1


@pytest.mark.slow  # builds the dataset twice: about 16 s of CPU
def test_rebuild_is_byte_identical_and_matches_the_shipped_content(tmp_path) -> None:
    first, second = build_dataset(tmp_path / "a"), build_dataset(tmp_path / "b")
    for name in ("data.parquet", "README.md", "by_type/EC.parquet", CHANGELOG_FILE):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    # Parquet files record the pyarrow version that wrote them, so the shipped file is compared
    # by content; the card (which holds the fingerprint) and the changelog byte for byte.
    shipped = bundled_dataset_dir()
    assert dataset_fingerprint(load_rows(first)) == dataset_fingerprint(load_rows(shipped))
    for name in ("README.md", CHANGELOG_FILE):
        assert (first / name).read_bytes() == (shipped / name).read_bytes(), name


def test_a_generated_set_is_not_said_to_be_the_release_its_rows_name(tmp_path: Path) -> None:
    """Walkthrough 12: ``dataset generate`` rows carry the builder's 1.2.0, and eval printed
    ``fresh/ (version 1.2.0, ...)`` as though the set were the v1.2 release."""
    from cli_support import coordqa as run_coordqa

    from coordqa.scenarios.generate import generate_dataset

    fresh = generate_dataset("collab_escape", 1, 7, tmp_path / "fresh")
    identity = dataset_identity(fresh)
    assert identity.version == "1.2.0"  # what the builder stamps; the release says the same
    assert identity.label == (
        f"{fresh} (version 1.2.0 rows, not a release, fingerprint {identity.fingerprint[:8]})"
    )
    release_line = dataset_identity("coordinationqa-v1.2").label
    assert release_line.startswith("coordinationqa-v1.2 (version 1.2.0, fingerprint")
    evaluated = run_coordqa(
        "eval", "--model", "random", "--dataset", fresh, "--out", tmp_path / "run", cwd=tmp_path
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert "(version 1.2.0 rows, not a release, fingerprint" in evaluated.stdout + evaluated.stderr
