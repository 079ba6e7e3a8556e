"""The accuracy tables of stored runs, pinned to the last digit.

``tests/golden/accuracy/pins.json`` holds the tables (overall, per type, per game x type, both
error rules) of the runs made here, as coordqa computed them with pandas at 852fc46, before the
tables were computed without it: every accuracy, trial SE, bootstrap bound and baseline must
stay the same float. The runs: outcomes drawn from a seeded generator (every status, errors,
missing trials, one-question groups, a group of errors only, a type outside EC/ToM/JP) written
as a run the way ``coordqa eval`` leaves one, and the offline ``random`` model on the bundled
release v1.2 (3 trials; a stratified sample of 40 questions, 1 trial).

Rewrite the pins only for a change that is meant to move a number (and say so in CHANGELOG.md).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from qa_run_support import Row, write_qa_run

from coordqa.jsonvalues import JSONObject

PINS = Path(__file__).parent / "golden" / "accuracy" / "pins.json"
GAMES = ("hanabi", "overcooked", "collab_capture", "collab_escape")
TYPES = ("EC", "ToM", "JP", "XY")


def drawn_rows(seed: int = 20) -> list[Row]:
    """Outcomes of 61 questions over up to 4 trials, drawn with ``seed``.

    Each question has 2-6 options (1-2 right); each of its trials is missing (1 in 8), an error
    (1 in 7), ambiguous, no answer, or answered right or wrong. Two extra questions make a
    one-question group and a group whose every sample is an error.
    """
    draw = random.Random(seed)
    rows = []
    for number in range(60):
        game, qtype = draw.choice(GAMES), draw.choice(TYPES[:3] if number % 9 else TYPES)
        n_options = draw.randint(2, 6)
        n_correct = draw.randint(1, min(2, n_options - 1))
        qid = f"s{number // 3:02d}-{qtype.lower()}-{number}"
        for trial in range(4):
            if draw.random() < 1 / 8:
                continue
            status = draw.choices(
                ["answered", "ambiguous", "no_answer", "error"], weights=[70, 8, 8, 14]
            )[0]
            correct = status == "answered" and draw.random() < 0.45
            rows.append(
                Row(qid, qtype, trial, status, correct, game=game, n_options=n_options,
                    n_correct=n_correct)
            )  # fmt: skip
    rows.append(Row("lone-ec", "EC", 0, "answered", True, game="lamps", n_options=3))
    rows += [Row("failed-jp", "JP", t, "error", game="lamps") for t in range(3)]
    return rows


def analysis_tables(analysis: Any) -> JSONObject:
    """What a run's analysis says, less where it is stored."""
    summary = analysis.to_json()
    return {key: summary[key] for key in ("complete", "overall", "by_type", "by_game_type")}


def leaderboard_tables(scores: Any) -> JSONObject:
    """The tables under the leaderboard's rule (errors count as wrong)."""
    from coordqa.analysis import accuracy_table
    from coordqa.jsonvalues import json_records

    return {
        "_".join(by) or "overall": json_records(
            accuracy_table(scores, by=by, errors_count_as_wrong=True)
        )
        for by in ((), ("question_type",), ("game", "question_type"))
    }


def computed(root: Path) -> JSONObject:
    """The pinned tables, computed by this coordqa from runs written under ``root``."""
    from coordqa.analysis import analyze_run, load_scores
    from coordqa.evaluation import EvalConfig, evaluate

    drawn = write_qa_run(root / "drawn", "drawn", drawn_rows(), trials=4, questions=64)
    pins: JSONObject = {
        "drawn": analysis_tables(analyze_run(drawn)),
        "drawn_errors_as_wrong": leaderboard_tables(load_scores(drawn)),
    }
    for name, options in {
        "random_3_trials": {"trials": 3},
        "random_sample_40": {"trials": 1, "sample": 40, "sample_seed": 3},
    }.items():
        config = EvalConfig(
            model="random", dataset="coordinationqa-v1.2", seed=7, cache=False,
            out=root / name, **options,
        )  # fmt: skip
        pins[name] = analysis_tables(evaluate(config).analysis)
    return pins


def test_tables_of_stored_runs_are_the_pinned_numbers(tmp_path: Path) -> None:
    assert computed(tmp_path) == json.loads(PINS.read_text())


def test_the_pins_cover_what_they_claim() -> None:
    pins = json.loads(PINS.read_text())
    drawn = pins["drawn"]
    assert not drawn["complete"]
    statuses = {s: sum(r[s] for r in drawn["by_game_type"]) for s in ("ambiguous", "error")}
    assert all(statuses.values())
    lone = next(
        r for r in drawn["by_game_type"] if (r["game"], r["question_type"]) == ("lamps", "EC")
    )
    failed = next(
        r for r in drawn["by_game_type"] if r["question_type"] == "JP" and r["game"] == "lamps"
    )
    assert lone["ci_low"] is None and lone["accuracy"] == 1.0  # one question: no bootstrap
    assert failed["accuracy"] is None and failed["n_trials"] == 0
    assert [r["question_type"] for r in drawn["by_type"]] == ["EC", "ToM", "JP", "XY"]
    assert pins["random_3_trials"]["overall"]["n_questions"] == 198


def test_errors_counted_as_wrong_lower_the_drawn_run() -> None:
    pins = json.loads(PINS.read_text())
    left_out = pins["drawn"]["overall"]["accuracy"]
    as_wrong = pins["drawn_errors_as_wrong"]["overall"][0]["accuracy"]
    assert as_wrong < left_out
