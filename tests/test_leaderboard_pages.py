"""What a new user met on the board (issue 26), against SQLite and PostgreSQL.

A deterministic model read "25.3 ± 0.0"; the same run sent twice was ranked twice; the ``#``
column was the rank while ``hide N`` took the submission id; ``export`` without ``--db`` wrote an
empty board; the Spearman p of 3 models read 0.000 (exact: 1/3).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from leaderboard_support import BoardClient, seal, synthetic_bundle
from typer.testing import CliRunner

from coordqa.cli import app as cli_app
from coordqa.leaderboard.db import LeaderboardError, Submission


@pytest.fixture
def board(db_url: str, tmp_path: Path) -> Iterator[BoardClient]:
    client = BoardClient(db_url, tmp_path)
    yield client
    client.close()


def right_on_even_questions(row: dict[str, Any], trial: int) -> str:
    """The same answer on every trial: right on even-numbered questions, wrong on odd ones."""
    number = int(re.search(r"-(\d{3})-", row["question_id"]).group(1))  # type: ignore[union-attr]
    right = number % 2 == 0
    index = row["correct"][0] if right else (row["correct"][0] + 1) % len(row["options"])
    return f"Answer: {chr(65 + index)}"


def test_a_deterministic_model_shows_its_question_uncertainty_and_n(board: BoardClient) -> None:
    sub_id = board.submit(synthetic_bundle(board.rows, answer=right_on_even_questions)).json()["id"]
    [entry] = board.client.get("/api/entries").json()["entries"]
    # scenarios 0 and 2 of 0..3 are right: half the 12 questions, every trial alike
    assert entry["overall"] == pytest.approx(0.5) and entry["overall_se"] == pytest.approx(0.0)
    assert entry["overall_n_questions"] == 12 and entry["n_trials"] == 3
    low, high = entry["overall_ci_low"], entry["overall_ci_high"]
    assert low < 0.5 < high and high - low > 0.2  # 12 questions leave the accuracy uncertain
    page = board.client.get("/").text
    assert "0.500" in page and "± 0.000" in page  # a fraction, as the CLI prints it
    assert f"[{low:.3f}, {high:.3f}]" in page and "12 × 3" in page
    assert "95%" in page and "interval over questions" in page
    # the words say what the numbers are: fractions of 1, never "in %" (walk13 R2)
    detail = board.client.get(f"/submissions/{sub_id}").text
    for shown in (page, detail):
        assert "fraction of 1" in shown and "in %" not in shown and "(%" not in shown
    assert "12 questions × 3 trials" in detail and f"[{low:.3f}, {high:.3f}]" in detail
    csv_head = board.client.get("/api/entries.csv").text.splitlines()[0].split(",")
    assert {"overall_ci_low", "overall_ci_high", "overall_n_questions", "JP_ci_low"} <= set(
        csv_head
    )


def test_the_same_run_sent_again_under_another_name_is_refused(board: BoardClient) -> None:
    first = synthetic_bundle(board.rows, display_name="My model")
    entry = board.submit(first).json()["id"]
    assert board.submit(first).json() == {**board.submit(first).json(), "id": entry}  # retry: ok
    # walkthrough 6 #246: the same results from another run folder (another command line in
    # the manifest, so another digest), under the same name, were refused as "the same run
    # under another name or details": they are that entry, as a resent bundle is
    elsewhere = copy.deepcopy(first)
    elsewhere["manifest"]["command"] = ["synthetic", "--out", "runs/elsewhere"]
    again = board.submit(seal(elsewhere))
    assert again.status_code == 200, again.text
    assert again.json()["id"] == entry and again.json()["created"] is False
    renamed = synthetic_bundle(board.rows, display_name="My model (again)")
    answer = board.submit(renamed)
    assert answer.status_code == 409
    assert answer.json()["entry"] == entry
    # walkthrough 12 #122: the rule and what to do came last, after every field that differs,
    # and a client's bound on printed text cut them off; they lead, the fields follow briefly
    assert answer.json()["detail"] == (
        f"the board ranks the same results once: these are already entry {entry}, submitted "
        "as 'My model'; to show them otherwise, ask the leaderboard admin. This submission "
        "differs in display name 'My model (again)' (the entry's: 'My model')"
    ), answer.json()["detail"]
    linked = copy.deepcopy(first)
    linked["model"]["link"] = "https://example.org/my-model"
    detail = board.submit(seal(linked)).json()["detail"]
    assert "differs in link 'https://example.org/my-model' (the entry's: none)" in detail, detail
    assert "display name" not in detail, detail  # only what differs is named
    # walkthrough 10 #276: the parameter count was shown as 7000000000.0, and another model's
    # identical replies as "these results" with no word that the model differs
    sized = copy.deepcopy(first)
    sized["model"]["parameters"] = 7e9
    detail = board.submit(seal(sized)).json()["detail"]
    assert "parameter count 7B (the entry's: none)" in detail, detail
    copied = synthetic_bundle(board.rows, display_name="My model", model="synthetic/other")
    detail = board.submit(copied).json()["detail"]
    assert "differs in model 'synthetic/other' (the entry's: 'synthetic/model')" in detail
    board.db.set_hidden(entry, True, "asked to withdraw")
    hidden = board.submit(renamed)
    assert hidden.status_code == 409 and "(hidden by the admin)" in hidden.json()["detail"]
    assert board.count(Submission) == 1
    other = synthetic_bundle(board.rows, display_name="My model", run="second run")
    assert board.submit(other).status_code == 201  # another run of the same model is welcome


def test_the_entry_id_is_shown_and_taken_by_the_commands(board: BoardClient, db_url: str) -> None:
    low = board.submit(
        synthetic_bundle(board.rows, answer=right_on_even_questions, display_name="low")
    ).json()["id"]
    high = board.submit(synthetic_bundle(board.rows, display_name="high")).json()["id"]
    page = board.client.get("/").text
    assert "<th>Rank</th>" in page and '<th class="num">Entry</th>' in page
    rows = re.findall(
        r'<tr data-id="(\d+)">\s*<td>(\d+)</td>\s*<td class="num"[^>]*><a[^>]*>(\d+)</a>', page
    )
    # rank and entry id differ: the later, better entry ranks first
    assert [tuple(map(int, row)) for row in rows] == [(high, 1, high), (low, 2, low)]
    result = CliRunner().invoke(cli_app, ["leaderboard", "hide", str(low), "--db", db_url])
    assert result.exit_code == 0, result.output
    assert f"entry {low} (low) is now hidden" in result.output
    assert [e["id"] for e in board.client.get("/api/entries").json()["entries"]] == [high]


def test_exact_correlation_p_with_three_entries(board: BoardClient) -> None:
    # ToM and JP rise together over three entries: the observed order is the most extreme of
    # the 3! = 6 pairings in either direction, so the exact p is 2/6 (scipy's t test said 0)
    for wrong in range(3):

        def answer(row: dict[str, Any], trial: int, wrong: int = wrong) -> str:
            miss = row["question_type"] != "EC" and trial < wrong
            index = (row["correct"][0] + int(miss)) % len(row["options"])
            return f"Answer: {chr(65 + index)}"

        board.submit(synthetic_bundle(board.rows, answer=answer, display_name=f"m{wrong}"))
    board_json = board.client.get("/api/entries").json()
    tom = next(c for c in board_json["correlations"] if c["x"] == "ToM")
    assert tom["n"] == 3 and tom["spearman_rho"] == pytest.approx(1.0)
    assert tom["spearman_p"] == pytest.approx(1 / 3) and tom["pearson_p"] == pytest.approx(1 / 3)
    assert "p = 0.333" in board.client.get("/").text


def test_export_without_a_board_is_refused_and_names_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("COORDQA_LEADERBOARD_DB", raising=False)
    runner = CliRunner()
    empty = runner.invoke(cli_app, ["leaderboard", "export", "--out", str(tmp_path / "site")])
    assert isinstance(empty.exception, LeaderboardError)
    assert "no leaderboard database at sqlite:///" in str(empty.exception)
    assert "give --db" in str(empty.exception)
    assert not (tmp_path / "data" / "leaderboard.sqlite3").exists()  # nothing was created
    assert not (tmp_path / "site").exists()
    url = f"sqlite:///{tmp_path / 'served.sqlite3'}"
    client = BoardClient(url, tmp_path)
    client.submit(synthetic_bundle(client.rows))
    client.close()
    done = runner.invoke(
        cli_app, ["leaderboard", "export", "--out", str(tmp_path / "site"), "--db", url]
    )
    assert done.exit_code == 0, done.output
    assert f"from{url}" in "".join(done.output.split())  # rich wraps long lines
    assert (tmp_path / "site" / "submissions" / "1.html").exists()


def test_cli_export_says_its_progress_off_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blind walkthrough: ``leaderboard export`` said nothing while it wrote, where
    ``view --export`` shows its progress. It shows the same display: off a terminal, plain
    lines on stderr naming the submissions done and the pages written."""
    from cli_support import assert_export_progress, coordqa as coordqa_cli

    from coordqa.cli import _progress
    from coordqa.leaderboard.db import open_database
    from coordqa.leaderboard.site import export_site

    monkeypatch.setattr(_progress, "EXPORT_EVERY_S", 0.0)  # a line at each page, not on time
    url = f"sqlite:///{tmp_path / 'board.sqlite3'}"
    client = BoardClient(url, tmp_path)
    client.submit(synthetic_bundle(client.rows))
    client.submit(synthetic_bundle(client.rows, answer=right_on_even_questions))
    client.close()
    done = coordqa_cli("leaderboard", "export", "--db", url, "--out", tmp_path / "site")
    assert_export_progress(done, "2 submissions")

    states: list[Any] = []
    written = export_site(open_database(url), tmp_path / "again", progress=states.append)
    pages = [path for path in written if path.suffix == ".html"]
    assert states[-1].runs_done == states[-1].runs_total == 2
    assert states[-1].pages_written == len(pages) and states[-1].unit == "submission"
