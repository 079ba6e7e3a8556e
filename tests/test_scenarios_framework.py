"""The game-independent parts of dataset building: shuffling, structure checks, stats, CLI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.dataset import load_rows
from coordqa.scenarios import QuestionDraft, ValidationFailed, dataset_stats
from coordqa.scenarios.build import shuffled
from coordqa.scenarios.validate import structural_problems, validate_rows_against_solvers

DRAFT = QuestionDraft(
    "JP",
    "best_action",
    "What is the best next action?",
    ("Wait", "Move to Room 2", "Move to Room 6", "Move to Room 10"),
    (2,),
    "r",
    "c",
)


def test_shuffle_is_deterministic_and_keeps_the_answer() -> None:
    options, correct = shuffled(DRAFT, "collab_escape-01-JP")
    assert (options, correct) == shuffled(DRAFT, "collab_escape-01-JP")
    assert sorted(options) == sorted(DRAFT.options)
    assert [options[i] for i in correct] == ["Move to Room 6"]


def test_shuffle_spreads_the_correct_position() -> None:
    positions = {shuffled(DRAFT, f"q{i}")[1][0] for i in range(40)}
    assert positions == {0, 1, 2, 3}


def test_structural_problems_are_all_reported() -> None:
    rows = load_rows("example")
    broken = [dict(row) for row in rows]
    broken[1] = {**broken[1], "question_id": broken[0]["question_id"]}
    broken[2] = {**broken[2], "options": [*broken[2]["options"], broken[2]["options"][0]]}
    broken[3] = {**broken[3], "correct": [99]}
    problems = "\n".join(structural_problems(broken))
    assert "appears 2 times" in problems
    assert "repeated 2 times" in problems
    assert "out of range" in problems
    assert structural_problems(rows) == []


def test_validation_fails_loudly_without_a_snapshot() -> None:
    # The example set is hand-written: it has no snapshots, so nothing can be re-solved.
    with pytest.raises(ValidationFailed, match="cannot be rebuilt"):
        validate_rows_against_solvers(load_rows("example"))


def test_stats_of_the_example_dataset() -> None:
    rows = load_rows("example")
    stats = dataset_stats(rows)
    assert stats.counts.loc["total", "total"] == len(rows)
    assert stats.correct_positions.to_numpy().sum() == sum(len(r["correct"]) for r in rows)
    expected = sum(len(r["correct"]) / len(r["options"]) for r in rows) / len(rows)
    assert stats.random_baseline["all"] == pytest.approx(expected)


def test_stats_and_push_commands(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["dataset", "stats", "example"])
    assert result.exit_code == 0, result.output
    assert "random-baseline accuracy" in result.output
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    result = runner.invoke(app, ["dataset", "push", "--repo", "org/name", "--path", "example"])
    assert result.exit_code != 0
    assert "HF_TOKEN" in str(result.exception)


def test_a_missing_game_engine_is_said_once_not_as_a_problem_of_each_question(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plain install validating v1.2 listed 53 'problems' of the dataset, one per scenario,
    each repeating the same install line: a missing engine is the machine's, not the data's.

    Expected: MissingDependencyError with its install advice, raised before any problem list.
    """
    from coordqa.errors import MissingDependencyError
    from coordqa.scenarios.builder import BUILDERS

    rows = load_rows("coordinationqa-v1.2")
    game = rows[0]["game"]
    builder = BUILDERS.get(game)

    def missing(scenario: object) -> None:
        raise MissingDependencyError(f"{game} needs its engine: pip install 'coordqa[games]'")

    monkeypatch.setattr(builder, "restore", missing)
    with pytest.raises(MissingDependencyError, match=r"coordqa\[games\]"):
        validate_rows_against_solvers(rows)


@pytest.mark.parametrize(
    "named",
    [["example"], ["--path", "example"], ["--dataset", "example"]],
    ids=["argument", "path", "dataset"],
)
def test_push_names_its_dataset_as_validate_and_stats_do(
    monkeypatch: pytest.MonkeyPatch, named: list[str]
) -> None:
    """Walkthrough 15 (leaderboard 4): `coordqa dataset push fresh/` got click's "Got unexpected
    extra argument (fresh/)", though `validate` and `stats` take the dataset as their argument.
    Expected: the argument, --dataset (as theirs) and --path (its earlier name) all publish it."""
    import coordqa.hub

    pushed: list[tuple[str | None, str]] = []

    def push(path: str | None, repo: str, *, private: bool = False) -> str:
        pushed.append((path, repo))
        return f"https://huggingface.co/datasets/{repo}"

    monkeypatch.setattr(coordqa.hub, "push_dataset", push)
    result = CliRunner().invoke(app, ["dataset", "push", *named, "--repo", "org/name"])
    assert result.exit_code == 0, result.output
    assert pushed == [("example", "org/name")]


def test_push_without_network_says_the_hub_could_not_be_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walkthrough 23 (h23k item 1): `HF_TOKEN=x coordqa dataset push fresh/ --repo ORG/NAME`
    offline printed a 42-line traceback ending `httpx...ConnectError: Name or service not known`.
    Expected: one line (what failed, that the Hub could not be reached, what to do), read as
    `dataset import-upstream` reads an offline download (coordqa.llm.retry), exit 1 as an
    unreachable server's."""
    import datasets
    import httpx2

    from coordqa.cli._errors import RUN_FAILED_EXIT, exit_status
    from coordqa.errors import RunFailed
    from coordqa.hub import push_dataset

    def offline(*args: object, **kwargs: object) -> None:
        raise httpx2.ConnectError("[Errno -2] Name or service not known")

    monkeypatch.setenv("HF_TOKEN", "x")
    monkeypatch.setattr(datasets.Dataset, "push_to_hub", offline)
    with pytest.raises(RunFailed) as caught:
        push_dataset("example", "org/name")
    said = str(caught.value)
    assert "\n" not in said
    assert "cannot push example to org/name" in said
    assert "could not be reached" in said
    assert "ConnectError: [Errno -2] Name or service not known" in said
    assert "check this machine's network" in said
    assert exit_status(caught.value) == RUN_FAILED_EXIT


@pytest.mark.parametrize(
    ("named", "heading"),
    [
        ([], "coordinationqa-v1.2 (version 1.2.0, fingerprint "),
        (["example"], "example ("),
    ],
    ids=["default", "example"],
)
def test_stats_names_the_dataset_it_counted(named: list[str], heading: str) -> None:
    """Walkthrough 23 (h23k item 3): `coordqa dataset stats` printed its tables but never said
    which dataset or release it counted.
    Expected: a first line naming it as runs and `eval` name it (coordqa.dataset.identity_line),
    with its question count."""
    from coordqa.dataset import dataset_identity

    result = CliRunner().invoke(app, ["dataset", "stats", *named])
    assert result.exit_code == 0, result.output
    identity = dataset_identity(named[0] if named else None)
    first = result.output.splitlines()[0]
    assert first == f"{identity.label}: {identity.num_questions} questions"
    assert first.startswith(heading)


@pytest.mark.parametrize(("status", "said"), [(401, "refused the token"), (404, "answered 404")])
def test_push_refused_by_the_hub_says_so_in_one_line(status: int, said: str) -> None:
    """A Hub that answers 401 (a wrong or read-only token) printed huggingface_hub's traceback.

    The Hub here is a local server (``HF_ENDPOINT``) that answers every request with
    ``status``; the command says what the Hub answered and what to do, and never the token."""
    import subprocess
    import sys
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Refusing(BaseHTTPRequestHandler):
        def _refuse(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = b'{"error": "Invalid credentials in Authorization header"}'
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_HEAD = _refuse

        def log_message(self, *args: object) -> None:
            """Quiet: the test reads the command's output, not the server's."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    token = "hf_not_a_real_token_42"
    env = {**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{server.server_port}", "HF_TOKEN": token}
    try:
        done = subprocess.run(
            [
                Path(sys.executable).with_name("coordqa"),
                "dataset",
                "push",
                "example",
                "--repo",
                "org/name",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    finally:
        server.shutdown()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and token not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "cannot push example to org/name" in done.stderr and said in done.stderr
