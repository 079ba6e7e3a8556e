"""The leaderboard's JSON API and pages, every rule, against SQLite and a real PostgreSQL."""

from __future__ import annotations

import copy
import csv
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from leaderboard_support import BoardClient, seal, synthetic_bundle, synthetic_rows

from coordqa.analysis import correlate
from coordqa.dataset import DEFAULT_DATASET, load_rows
from coordqa.evaluation import EvalConfig, evaluate
from coordqa.leaderboard.bundle import build_qa_bundle
from coordqa.leaderboard.catalog import register_dataset
from coordqa.leaderboard.db import SampleResult, Submission


@pytest.fixture
def board(db_url: str, tmp_path: Path) -> Iterator[BoardClient]:
    b = BoardClient(db_url, tmp_path)
    yield b
    b.close()


@pytest.fixture(scope="session")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lb-run") / "run"
    evaluate(EvalConfig(model="random", dataset="example", trials=3, seed=3, out=out))
    return out


def half_right(row: dict[str, Any], trial: int) -> str | None:
    """Right on trial 0, wrong on trial 1, no answer on trial 2 of the first question."""
    right = row["correct"][0]
    if trial == 0:
        return f"Answer: {chr(65 + right)}"
    if trial == 1:
        return f"Answer: {chr(65 + (right + 1) % len(row['options']))}"
    return "I cannot tell." if row["question_id"].endswith("000-EC") else f"({chr(65 + right)})"


# -- accepted --------------------------------------------------------------------------------


def test_accepted_run_is_rescored_like_coordqa_score(board: BoardClient, example_run: Path) -> None:
    bundle = build_qa_bundle(example_run, display_name="random on example")
    answer = board.submit(bundle)
    assert answer.status_code == 201, answer.text
    assert answer.json()["created"] is True
    summary = json.loads((example_run / "summary.json").read_text())
    entries = board.client.get("/api/entries", params={"dataset": "example"}).json()["entries"]
    assert len(entries) == 1
    entry = entries[0]
    assert entry["overall"] == pytest.approx(summary["overall"]["accuracy"])
    assert entry["overall_se"] == pytest.approx(summary["overall"]["se"])
    for row in summary["by_type"]:
        assert entry[row["question_type"]] == pytest.approx(row["accuracy"])
        assert entry[f"{row['question_type']}_se"] == pytest.approx(row["se"])
    assert entry["verification"] == "replies re-scored" and entry["reported_agrees"] is True
    assert entry["n_trials"] == 3 and entry["provenance_checked"] is False
    assert board.count(SampleResult) == 12 * 3


def test_per_game_numbers_outcome_counts_and_question_details(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows, answer=half_right)
    sub_id = board.submit(bundle).json()["id"]
    entry = board.client.get("/api/entries").json()["entries"][0]
    assert entry["answered"] == 4 * 3 * 3 - 1 and entry["no_answer"] == 1
    # trial 0 all right, trial 1 all wrong, trial 2 right but one no-answer: mean of 1, 0, 11/12
    assert entry["overall"] == pytest.approx((1 + 0 + 11 / 12) / 3)
    hanabi = board.client.get("/api/entries", params={"game": "hanabi"}).json()["entries"][0]
    assert hanabi["overall"] == pytest.approx(entry["games"]["hanabi"]["accuracy"])
    detail = board.client.get(f"/api/submissions/{sub_id}").json()
    assert len(detail["questions"]) == 36
    miss = [q for q in detail["questions"] if q["status"] == "no_answer"]
    assert [(q["question_id"][-6:], q["trial"]) for q in miss] == [("000-EC", 2)]
    assert {s["scenario_id"] for s in detail["scenarios"]} == {r["scenario_id"] for r in board.rows}
    assert board.client.get("/api/submissions/999").status_code == 404


def test_a_page_refused_is_a_page_and_an_api_refusal_stays_json(board: BoardClient) -> None:
    """Walkthrough 30: a browser's /submissions/999 got the raw JSON {"detail": ...}, where the
    viewer answers an unknown page with a page saying so and a way back."""
    page = board.client.get("/submissions/999")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "no submission with id 999" in page.text and 'href="/"' in page.text
    api = board.client.get("/api/submissions/999")
    assert api.status_code == 404 and "no submission with id 999" in api.json()["detail"]
    hostile = board.client.get("/nowhere/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert hostile.status_code == 404 and "<script>alert" not in hostile.text  # nothing echoed raw


def test_error_replies_are_counted_and_scored_wrong(board: BoardClient) -> None:
    def failing(row: dict[str, Any], trial: int) -> str | None:
        return None if trial == 0 else f"Answer: {chr(65 + row['correct'][0])}"

    assert board.submit(synthetic_bundle(board.rows, answer=failing)).status_code == 201
    entry = board.client.get("/api/entries").json()["entries"][0]
    assert entry["error"] == 12 and entry["overall"] == pytest.approx(2 / 3)


def test_reported_numbers_never_rank_and_a_mismatch_is_shown(board: BoardClient) -> None:
    bundle = synthetic_bundle(
        board.rows, answer=half_right, reported={"overall": 0.99, "by_type": {"EC": 0.99}}
    )
    answer = board.submit(bundle).json()
    assert any(m.startswith("overall: reported 0.9900") for m in answer["mismatches"])
    entry = board.client.get("/api/entries").json()["entries"][0]
    assert entry["reported_agrees"] is False and entry["overall"] < 0.7
    page = board.client.get("/").text
    assert "reported numbers differ" in page


# -- rejections ------------------------------------------------------------------------------


def test_authentication(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    for response in (
        board.submit(bundle, token=None),
        board.submit(bundle, token="cqa_wrong"),
        board.client.post("/api/submissions", content=b"{}", headers={"Authorization": "Basic x"}),
    ):
        assert response.status_code == 401
        assert "bearer token" in response.json()["detail"]
        assert response.headers["www-authenticate"] == "Bearer"
    assert board.count(Submission) == 0
    assert board.client.get("/api/entries").status_code == 200  # reading is public


def test_malformed_json_is_400(board: BoardClient) -> None:
    response = board.submit(b'{"format": ')
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["detail"]


def test_oversized_body_is_413(db_url: str, tmp_path: Path) -> None:
    small = BoardClient(db_url, tmp_path, max_body_bytes=2_000)
    try:
        response = small.submit(synthetic_bundle(small.rows))
        assert response.status_code == 413
        assert "2000 bytes" in response.json()["detail"]
        assert small.count(Submission) == 0
    finally:
        small.close()


def test_schema_violations_are_422_with_field_paths(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    bundle["replies"][3]["trial"] = -1
    bundle["model"]["link"] = "javascript:alert(1)"
    del bundle["coordqa_version"]
    response = board.submit(seal(bundle))
    assert response.status_code == 422
    locs = {e["loc"] for e in response.json()["errors"]}
    assert {"replies.3.trial", "model.link", "coordqa_version"} <= locs
    assert "replies.3.trial" in response.json()["detail"]


def test_unknown_track_names_the_tracks(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    bundle["track"] = "chess"
    response = board.submit(seal(bundle))
    assert response.status_code == 422
    assert "'chess'" in response.json()["detail"] and "qa" in response.json()["detail"]


def test_unknown_dataset_is_refused_with_the_known_ones(board: BoardClient) -> None:
    response = board.submit(synthetic_bundle(synthetic_rows(scenarios=2, prefix="other")))
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert "unknown dataset fingerprint" in detail and "synthetic" in detail and "example" in detail


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda r: r.pop(5), "1 missing: syn-overcooked-000-ToM#2"),
        (lambda r: r.append(dict(r[0])), "1 duplicated: syn-overcooked-000-EC#0"),
        (
            lambda r: r.append({**r[0], "question_id": "nope"}),
            "1 unknown (question_id, trial): nope#0",
        ),
        (
            lambda r: r.append({**r[0], "trial": 3}),
            "unknown (question_id, trial): syn-overcooked-000-EC#3",
        ),
    ],
    ids=["missing", "duplicate", "unknown-id", "extra-trial"],
)
def test_incomplete_duplicate_and_unknown_keys_are_named(
    board: BoardClient, edit: Any, expected: str
) -> None:
    bundle = synthetic_bundle(board.rows)
    edit(bundle["replies"])
    response = board.submit(seal(bundle))
    assert response.status_code == 422
    assert expected in response.json()["detail"]
    assert board.count(Submission) == 0 and board.count(SampleResult) == 0


def test_tampered_bundle_fails_the_digest(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    bundle["replies"][0]["text"] = "Answer: B"
    response = board.submit(bundle)
    assert response.status_code == 422 and "digest" in response.json()["detail"]


# -- idempotence, hiding ---------------------------------------------------------------------


def test_same_bundle_twice_is_one_entry(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    first = board.submit(bundle)
    second = board.submit(copy.deepcopy(bundle))
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["id"] == second.json()["id"] and second.json()["created"] is False
    assert board.count(Submission) == 1 and board.count(SampleResult) == 36
    assert second.json()["hidden"] is False and second.json()["hidden_reason"] is None


def test_a_hidden_entry_resent_is_said_to_be_hidden(board: BoardClient) -> None:
    """Walkthrough 9: a hidden entry re-sent was answered "already on the leaderboard: entry
    N" alone, and its submitter looked for it on the board, where it is not ranked."""
    bundle = synthetic_bundle(board.rows)
    first = board.submit(bundle).json()["id"]
    board.db.set_hidden(first, True, "a test entry")
    again = board.submit(copy.deepcopy(bundle))
    assert again.status_code == 200 and again.json()["id"] == first
    assert again.json()["hidden"] is True and again.json()["hidden_reason"] == "a test entry"
    board.db.set_hidden(first, False)
    shown = board.submit(copy.deepcopy(bundle)).json()
    assert shown["hidden"] is False and shown["hidden_reason"] is None


def test_hidden_entries_leave_the_ranking_but_stay_stored(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows, display_name="to hide")
    sub_id = board.submit(bundle).json()["id"]
    board.db.set_hidden(sub_id, True, "duplicate of another entry")
    assert board.client.get("/api/entries").json()["entries"] == []
    assert "to hide" not in board.client.get("/").text
    detail = board.client.get(f"/api/submissions/{sub_id}").json()
    assert detail["hidden"] is True and detail["hidden_reason"] == "duplicate of another entry"
    assert "hidden from the ranking" in board.client.get(f"/submissions/{sub_id}").text
    again = board.submit(bundle)
    assert again.status_code == 200 and again.json()["id"] == sub_id
    assert board.client.get("/api/entries").json()["entries"] == []
    board.db.set_hidden(sub_id, False)
    assert [e["id"] for e in board.client.get("/api/entries").json()["entries"]] == [sub_id]
    assert board.count(Submission) == 1


# -- reading ---------------------------------------------------------------------------------


def _three_entries(board: BoardClient) -> list[int]:
    ids = []
    for name, wrong_trials in (("all right", set()), ("two thirds", {1}), ("one third", {1, 2})):

        def answer(row: dict[str, Any], trial: int, wrong: set[int] = wrong_trials) -> str:
            index = row["correct"][0] + (
                1 if trial in wrong and row["question_type"] != "EC" else 0
            )
            return f"Answer: {chr(65 + index % 4)}"

        ids.append(
            board.submit(synthetic_bundle(board.rows, answer=answer, display_name=name)).json()[
                "id"
            ]
        )
    return ids


def test_equal_qa_scores_share_a_rank_as_on_the_agentic_board(board: BoardClient) -> None:
    """Walkthrough 31: three QA entries of equal overall accuracy ranked 2, 3 and 4, where the
    agentic board (and the guide) gives equal scores one rank (1, 2, 2, 4)."""
    from leaderboard_support import right_answer

    def wrong(row: dict[str, Any], trial: int) -> str:
        return f"Answer: {chr(65 + (row['correct'][0] + 1) % 4)}"

    for name, answer in (("best", right_answer), ("tie a", wrong), ("tie b", wrong)):
        bundle = synthetic_bundle(board.rows, answer=answer, display_name=name, run=name)
        assert board.submit(bundle).status_code == 201
    entries = board.client.get("/api/entries").json()["entries"]
    assert [(e["display_name"], e["rank"]) for e in entries] == [
        ("best", 1), ("tie a", 2), ("tie b", 2)
    ]  # fmt: skip


def test_ranking_order_sorting_baseline_and_correlations(board: BoardClient) -> None:
    ids = _three_entries(board)
    data = board.client.get("/api/entries").json()
    assert [e["id"] for e in data["entries"]] == ids
    assert [e["rank"] for e in data["entries"]] == [1, 2, 3]
    assert data["random_baseline"]["overall"] == pytest.approx(0.25)
    by_name = board.client.get(
        "/api/entries", params={"sort": "display_name", "order": "asc"}
    ).json()
    assert [e["display_name"] for e in by_name["entries"]] == [
        "all right",
        "one third",
        "two thirds",
    ]
    corr = {c["x"]: c for c in data["correlations"]}
    expected = correlate(
        [e["ToM"] for e in data["entries"]], [e["JP"] for e in data["entries"]], ("ToM", "JP")
    )
    assert corr["ToM"]["pearson_r"] == pytest.approx(expected.pearson_r)
    assert corr["ToM"]["n"] == 3
    assert corr["EC"]["pearson_r"] is None and "constant" in corr["EC"]["note"]
    default = board.client.get("/api/entries", params={"dataset": ""}).json()["dataset"]
    assert default["name"] == DEFAULT_DATASET  # ranked by default, even with no entry
    assert board.client.get("/api/entries", params={"sort": "nope"}).status_code == 400
    assert board.client.get("/api/entries", params={"game": "chess"}).status_code == 400


def test_csv_export(board: BoardClient) -> None:
    _three_entries(board)
    response = board.client.get("/api/entries.csv")
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["display_name"] for r in rows] == ["all right", "two thirds", "one third"]
    assert float(rows[0]["overall"]) == pytest.approx(1.0)
    expected = {"EC_se", "ToM_se", "JP_se", "n_trials", "error", "verification", "created_at"}
    assert set(rows[0]) >= expected


def test_pages_escape_every_user_string(board: BoardClient) -> None:
    markup = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    bundle = synthetic_bundle(board.rows, display_name=markup)
    bundle["model"]["organisation"] = "<b>evil org</b>"
    sub_id = board.submit(seal(bundle)).json()["id"]
    for page in (board.client.get("/").text, board.client.get(f"/submissions/{sub_id}").text):
        assert markup not in page and "<b>evil org</b>" not in page
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
        assert "&lt;b&gt;evil org&lt;/b&gt;" in page


def test_pages_render_filters_and_chart(board: BoardClient) -> None:
    _three_entries(board)
    page = board.client.get("/", params={"game": "hanabi"}).text
    assert 'aria-current="page">hanabi</a>' in page
    assert page.count("<circle") == 6  # 3 entries x (EC, ToM) charts
    assert "Pearson r" in page and "Spearman" in page
    assert "random baseline" in page
    assert board.client.get("/static/site.css").status_code == 200


def test_dataset_registered_while_running_is_accepted(board: BoardClient, tmp_path: Path) -> None:
    rows = synthetic_rows(scenarios=1, prefix="late")
    path = tmp_path / "late.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert board.submit(synthetic_bundle(rows)).status_code == 422
    register_dataset(board.db, path, "late")
    assert board.submit(synthetic_bundle(rows)).status_code == 201
    names = {d["name"] for d in board.client.get("/api/datasets").json()}
    assert {"late", "synthetic", "example"} <= names
    assert not math.isnan(
        board.client.get("/api/entries", params={"dataset": "late"}).json()["entries"][0]["overall"]
    )


def test_pages_say_what_was_checked_and_set_the_submitters_word_apart(
    board: BoardClient,
) -> None:
    import re

    bundle = synthetic_bundle(board.rows, display_name="Claimed Model")
    bundle["model"]["organisation"] = "Claimed Lab"
    sub_id = board.submit(seal(bundle)).json()["id"]
    ranking = board.client.get("/").text
    assert "✔ replies re-scored" in ranking and "✔ verified" not in ranking
    assert "provenance checked" not in ranking
    page = board.client.get(f"/submissions/{sub_id}").text
    reported = re.search(r'<section class="self-reported">(.*?)</section>', page, re.DOTALL)
    assert reported is not None and "Reported by the submitter (not verified)" in reported[1]
    assert "Claimed Lab" in reported[1] and "synthetic/model" in reported[1]
    checked = page[: page.index('<section class="self-reported">')]
    assert "Claimed Lab" not in checked and "replies re-scored" in checked
    assert "not checked: the server cannot tell which model produced the results" in checked
    _, marked = board.db.set_provenance(sub_id, "matched the provider's logs")
    assert marked
    assert "✔ provenance checked" in board.client.get("/").text
    page = board.client.get(f"/submissions/{sub_id}").text
    assert "checked by an administrator</span>: matched the provider&#39;s logs" in page
    entry = board.client.get("/api/entries").json()["entries"][0]
    assert entry["provenance_checked"] is True


def test_two_versions_of_a_dataset_rank_on_their_own_boards(
    board: BoardClient, tmp_path: Path
) -> None:
    newer = [
        {**row, "version": "1.1", "question": row["question"] + " (reworded)"}
        if number == 0
        else {**row, "version": "1.1"}
        for number, row in enumerate(board.rows)
    ]
    path = tmp_path / "synthetic-v1.1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in newer), encoding="utf-8")
    register_dataset(board.db, path, "synthetic-v1.1")
    old_id = board.submit(synthetic_bundle(board.rows, display_name="on v1")).json()["id"]
    new_id = board.submit(synthetic_bundle(newer, display_name="on v1.1")).json()["id"]
    old = board.client.get("/api/entries").json()
    new = board.client.get("/api/entries", params={"dataset": "synthetic-v1.1"}).json()
    assert [e["id"] for e in old["entries"]] == [old_id] and old["dataset"]["version"] == "1"
    assert [e["id"] for e in new["entries"]] == [new_id] and new["dataset"]["version"] == "1.1"
    assert old["dataset"]["fingerprint"] != new["dataset"]["fingerprint"]
    page = board.client.get("/", params={"dataset": "synthetic-v1.1"}).text
    assert "version 1.1" in page and new["dataset"]["fingerprint"][:12] in page
    assert "version 1.1" in board.client.get(f"/submissions/{new_id}").text


def test_bundled_releases_rank_on_their_own_boards(board: BoardClient) -> None:
    releases = {"coordinationqa-v1": "1.0.0", "coordinationqa-v1.1": "1.1.0"}
    releases["coordinationqa-v1.2"] = "1.2.0"
    ids = {}
    for release in releases:
        bundle = synthetic_bundle(load_rows(release), trials=1, display_name=f"on {release}")
        answer = board.submit(bundle)
        assert answer.status_code == 201, answer.text
        ids[release] = answer.json()["id"]

    def board_of(name: str) -> dict[str, Any]:
        return dict(board.client.get("/api/entries", params={"dataset": name}).json())

    for release, version in releases.items():
        own = board_of(release)
        assert [e["id"] for e in own["entries"]] == [ids[release]]
        assert own["dataset"]["version"] == version
    assert board_of("coordinationqa-v1")["dataset"]["fingerprint"].startswith("cb50f8c6")
    assert board_of("coordinationqa")["dataset"]["name"] == "coordinationqa-v1.2"  # the alias
    assert board_of("")["dataset"]["name"] == DEFAULT_DATASET == "coordinationqa-v1.2"
    page = board.client.get("/", params={"dataset": "coordinationqa-v1"}).text
    assert "version 1.0.0" in page and "cb50f8c6c520" in page


def test_a_parameter_of_the_wrong_type_is_one_sentence_like_every_other_refusal(
    board: BoardClient,
) -> None:
    """Walkthrough 4 #283: ``?limit=abc`` answered FastAPI's raw list of error objects where
    ``?limit=0`` answers a sentence; both are ``{"detail": SENTENCE}`` naming the parameter."""
    out_of_range = board.client.get("/api/entries", params={"limit": "0"})
    assert out_of_range.json() == {"detail": "limit must be from 1 to 500 (default 100), got 0"}
    wrong_type = board.client.get("/api/entries", params={"limit": "abc", "offset": "x" * 500})
    assert wrong_type.status_code == 422
    detail = wrong_type.json()["detail"]
    assert list(wrong_type.json()) == ["detail"] and isinstance(detail, str), detail
    assert detail.startswith("limit (query parameter) must be a valid integer"), detail
    assert "got 'abc'" in detail and "; offset (query parameter) must be" in detail, detail
    assert len(detail) < 400, detail  # what a client sent is shown cut
