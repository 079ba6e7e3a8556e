"""The researcher's day (issue 28), in process: listing, finding, filtering and comparing runs.

Runs are written with chosen outcomes (:mod:`qa_run_support`), so every expected count is decided
from the outcomes written, before the commands are run. Tables are rendered at 80 columns.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from qa_run_support import SIX_QUESTIONS, outcome_rows as outcomes, write_qa_run
from rich.console import Console

from coordqa.cli import run_cli, runs

LONG_NAME = "openai-gpt-4o-mini_coordinationqa-v1.1_EC+JP_sample40s0_temp0.0_2c41f9a0"
"""A run directory name as ``coordqa eval`` makes them: longer than a table column can hold."""


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runs, "console", Console(width=80, no_color=True))
    monkeypatch.setattr(runs, "messages", Console(width=80, no_color=True, stderr=True))


def listed_numbers(lines: list[str]) -> dict[str, list[str]]:
    """``runs list`` output: each run's path, then the cells of its numbers line."""
    found: dict[str, list[str]] = {}
    path = ""
    for line in lines[2:]:
        if not line.startswith(" "):
            path = line.split()[0]
        elif "/" in line.split()[1]:  # the answered column, not a model · dataset line
            found[path] = line.split()
    return found


def invoke(*args: str | Path) -> tuple[int, str]:
    """Run ``coordqa ARGS`` in this process as its console script does (errors become exit
    statuses and one line on stderr); the exit status and stdout + stderr."""
    import contextlib
    import io
    import sys

    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["coordqa", *map(str, args)]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run_cli()
    finally:
        sys.argv = argv
    return code, out.getvalue() + err.getvalue()


def test_runs_list_keeps_names_whole_counts_questions_and_shows_no_nan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = Path("runs")
    full = {"s0-ec": ["right", "wrong"], "s0-tom": ["right", "right"], "s0-jp": ["wrong"] * 2}
    write_qa_run(folder / LONG_NAME, "openai/gpt-4o-mini", outcomes(full), trials=2)
    first = {"s0-ec": ["right", "right"]}
    write_qa_run(folder / "limited", "random", outcomes(first), trials=2, limit=1)
    dead = {"s0-ec": ["error", "error"], "s0-tom": ["error", "error"]}
    write_qa_run(folder / "dead", "openai/x", outcomes(dead), trials=2)

    code, out = invoke("runs", "list", folder)
    assert code == 0, out
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), out
    assert str(folder / LONG_NAME) in lines  # the whole path, alone on its line
    after = listed_numbers(lines)
    # Long run: 3 of 6 samples right, accuracy (1/2 + 1/2 + 1/2 ... per trial) = 0.5.
    assert after[str(folder / LONG_NAME)][:4] == ["0.500", "6/6", "3", "finished"]
    # A --limit 1 run of one question looks like one: 1 question, 2 of 2 samples.
    assert after[str(folder / "limited")][:4] == ["1.000", "2/2", "1", "finished"]
    # Every call failed: nothing to show as an accuracy, and 0 of 4 samples answered.
    assert after[str(folder / "dead")][:4] == ["-", "0/4", "2", "incomplete"]
    assert "NaN" not in out


# A and B on six questions, two trials each. Decided from the outcomes (A | B per trial);
# in all: both right 4, only A right 2, only B right 2, both wrong 3, an error 1.
#   s0-ec   right,right | right,right   -> both-right x2
#   s0-tom  wrong,right | right,right   -> b-right (t0), both-right (t1)
#   s0-jp   wrong,wrong | wrong,no_ans  -> both-wrong x2 (t1 disagrees: B chose nothing)
#   s1-ec   right,ambig | wrong,right   -> a-right (t0), b-right (t1)
#   s1-tom  right,right | right,error   -> both-right (t0), error (t1)
#   s1-jp   no_ans,right| no_ans,wrong  -> both-wrong (t0), a-right (t1)
A = SIX_QUESTIONS
B = {
    "s0-ec": ["right", "right"],
    "s0-tom": ["right", "right"],
    "s0-jp": ["wrong", "no_answer"],
    "s1-ec": ["wrong", "right"],
    "s1-tom": ["right", "error"],
    "s1-jp": ["no_answer", "wrong"],
}


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    a = write_qa_run(tmp_path / "runs" / "a", "m", outcomes(A), trials=2, seed=0)
    b = write_qa_run(tmp_path / "runs" / "b", "m", outcomes(B), trials=2, seed=1)
    return a, b


def test_compare_counts_right_and_wrong_and_lists_what_is_asked(
    two_runs: tuple[Path, Path],
) -> None:
    code, out = invoke("compare", *two_runs)
    assert code == 0, out
    assert "A = m (seed=0), B = m (seed=1)" in out  # same model: told apart by the setting
    table = [line.split() for line in out.splitlines() if line.strip().startswith("A ")]
    assert ["A", "right", "4", "2", "6"] in table  # both right 4, only A right 2
    assert ["A", "wrong", "2", "3", "5"] in table  # only B right 2, both wrong 3
    assert "1 pair with an error in A or B left out" in " ".join(out.split())
    # Default: where exactly one is right: s0-tom t0, s1-ec t0 and t1, s1-jp t1.
    assert "4 of 12 (question, trial) pairs" in " ".join(out.split())
    listed = [
        line.split()[:2] for line in out.splitlines() if line.lstrip().startswith(("s0-", "s1-"))
    ]
    assert listed == [["s0-tom", "0"], ["s1-ec", "0"], ["s1-ec", "1"], ["s1-jp", "1"]]
    code, out = invoke("compare", *two_runs, "--only", "both-wrong")
    assert code == 0 and "both wrong: 3 of 12" in out, out
    code, out = invoke("compare", *two_runs, "--only", "disagree")
    # Different outcomes: s0-tom t0, s0-jp t1, s1-ec t0 and t1, s1-tom t1 (error), s1-jp t1.
    assert code == 0 and "different choices: 6 of 12" in out
    code, out = invoke("compare", *two_runs, "--only", "a-wrong")
    assert code == 2
    # Listed the choices without the one meant (walkthrough 10, #54).
    code, out = invoke("compare", *two_runs, "--only", "both-right,both_wrong")
    said = "--only 'both_wrong' is not one of a-right, b-right, both-right, both-wrong, disagree."
    assert code == 2 and f"{said} Did you mean 'both-wrong'?" in out, out
    code, out = invoke("compare", two_runs[0].parent)  # a folder holding exactly A and B
    assert code == 0 and "4 of 12" in out


def test_results_filters_wrong_type_and_game(two_runs: tuple[Path, Path]) -> None:
    code, out = invoke("results", two_runs[0], "--wrong", "--format", "csv")
    assert code == 0, out
    ids = [line.split(",")[0] for line in out.splitlines()[1:]]
    # Not right in some trial: s0-tom (t0), s0-jp, s1-ec (ambiguous), s1-jp (no_answer).
    assert ids == ["s0-tom", "s0-jp", "s1-ec", "s1-jp"]
    code, out = invoke("results", two_runs[0], "--wrong", "--type", "JP,ToM", "-f", "csv")
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["s0-tom", "s0-jp", "s1-jp"]
    code, out = invoke("results", two_runs[0], "--game", "overcooked")
    assert code == 2 and "Its games are hanabi" in out


def test_report_finds_the_runs_inside_a_folder_given_among_runs(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """``report runs/*`` where one entry is a folder of runs, not a run."""
    older = write_qa_run(tmp_path / "runs" / "older" / "c", "m", outcomes(A), trials=2, seed=2)
    code, out = invoke("report", two_runs[0], two_runs[1], older.parent, "--out", tmp_path / "r")
    assert code == 0, out
    assert "m (seed=2)" in out and "correlations" in out
    code, out = invoke("report", tmp_path / "nothing-here", "--out", tmp_path / "r2")
    assert code == 2 and "does not exist" in out
    (tmp_path / "empty").mkdir()
    code, out = invoke("report", tmp_path / "empty", "--out", tmp_path / "r2")
    assert code == 2 and "no runs under" in out and "no folder there holds a manifest" in out


def test_view_on_a_busy_port_says_so_in_one_line(two_runs: tuple[Path, Path]) -> None:
    pytest.importorskip("fastapi")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, out = invoke("view", two_runs[0].parent, "--port", port)
    assert code == 2, out
    assert out.startswith("error: ") and len(out.strip().splitlines()) == 1
    assert f"already listens on 127.0.0.1:{port}" in out and "--port 0" in out


def test_view_export_browses_a_folder_of_runs(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    code, out = invoke("view", two_runs[0].parent, "--export", tmp_path / "site")
    assert code == 0, out
    index = (tmp_path / "site" / "index.html").read_text()
    assert "m (seed=0)" in index and "m (seed=1)" in index


def test_games_and_partners_lists_keep_every_name_whole_at_80_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from coordqa.agentic.partners import list_partners
    from coordqa.cli import games
    from coordqa.games import GAMES, PLAYERS

    monkeypatch.setattr(games, "console", Console(width=80, no_color=True))
    monkeypatch.setenv("COLUMNS", "80")
    code, out = invoke("games", "list")
    assert code == 0, out
    words = set(out.replace(",", " ").split())
    assert {name for name, _ in GAMES.items()} | {name for name, _ in PLAYERS.items()} <= words
    assert all(len(line) <= 80 for line in out.splitlines())
    code, out = invoke("partners", "list")
    assert code == 0, out
    assert {p.name for p in list_partners()} <= set(out.split())
    assert all(len(line) <= 80 for line in out.splitlines())


def test_dataset_list_shows_each_bundled_release(monkeypatch: pytest.MonkeyPatch) -> None:
    from coordqa.cli import dataset
    from coordqa.dataset import RELEASES, dataset_identity

    monkeypatch.setattr(dataset, "console", Console(width=80, no_color=True))
    code, out = invoke("dataset", "list")
    assert code == 0, out
    names = {release.name for release in RELEASES}
    lines = [line.split() for line in out.splitlines()]
    rows = {cells[0]: cells for cells in lines if cells and cells[0] in names}
    assert set(rows) == names
    # v1 as shipped (docs/dataset.md): 198 questions, 66 a type, four games, its pinned fingerprint.
    assert rows["coordinationqa-v1"] == [
        "coordinationqa-v1", "1.0.0", "198", "66", "66", "66", "4", "cb50f8c6c520"
    ]  # fmt: skip
    assert "default: coordinationqa-v1.2" in out
    # Issue 38: the example listed version "-" and the board "example-1". Each version is the one
    # runs record and the board shows (the rows' version column, dataset_identity).
    for name, cells in rows.items():
        assert cells[1] == (dataset_identity(name).version or "-"), name
    assert rows["example"][1] == "example-1"


def eval_against_a_hung_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *options: str
) -> tuple[int, str]:
    """``coordqa eval`` of the example dataset, 1 trial, ``--timeout 1 --max-attempts 2``,
    against a server that lists its models but never finishes a completion."""
    from coordqa.cli import qa
    from coordqa.llm.testing import Fault, LocalOpenAIServer

    monkeypatch.setattr(qa, "messages", Console(width=200, no_color=True, stderr=True))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with LocalOpenAIServer(always=Fault.slow(60)) as server:
        return invoke(
            "eval", "--model", "openai/m", "--api-base", server.base_url, "--dataset", "example",
            "--trials", "1", "--timeout", "1", "--max-attempts", "2", *options,
            "--out", tmp_path / "run",
        )  # fmt: skip


def test_calls_that_hang_show_progress_on_time_and_time_out_by_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A server that lists its models but never finishes a completion: lines keep coming while
    calls wait, each timed-out attempt is a line, and the run stops on 'timed out after 1 s',
    not on a cancelled wait."""
    from coordqa.cli import _progress

    monkeypatch.setattr(_progress, "PLAIN_EVERY_S", 0.3)
    code, out = eval_against_a_hung_server(
        monkeypatch, tmp_path, "--limit", "2", "--max-connection-failures", "2"
    )
    assert code == 1, out
    lines = [line for line in out.splitlines() if line.startswith("eval ")]
    # Completions give at most 3 lines (0/2 at the start, 1/2, 2/2): the others are the clock's.
    assert len(lines) >= 5 and lines[0].startswith("eval 0/2"), out
    assert "timed out after 1 s (--timeout)" in out and "CancelledError" not in out
    # Each timed-out attempt is said as it happens (walkthrough 2, B1: retried in silence),
    # with its call (walkthrough 3, rough 17): both questions time out together, one line.
    assert (
        "warning: 2 calls: attempt 1 of 2 timed out after 1 s (--timeout); retrying "
        "(example-overcooked-01-EC trial 0 (qa), example-overcooked-01-ToM trial 0 (qa))"
    ) in out
    assert "--max-connection-failures 2" in out
    assert "never awaited" not in out
    # What is kept, then the fix, then how to resume (it read "then 0 of 2 samples are ...");
    # a server that times out is busy, not missing: not told to start it (walkthrough 25, R2).
    assert (
        f"0 of 2 samples are answered and stored in {tmp_path / 'run'}. Cap replies with "
        "--max-tokens (e.g. 256) in a new run (another --out: a run keeps the settings it began "
        "with); or raise --timeout, or wait for that server or restart it, then run the same "
        "command again to resume."
    ) in " ".join(out.split())
    assert "Start the server" not in out


def test_ten_hung_calls_are_said_in_one_line_per_round_naming_the_calls(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough 3, rough 17: 10 calls in flight gave 10 identical 'attempt 1 of 6' lines.

    Expected from the rule, before running: the 10 first attempts start together and time out
    together, one line that counts them and names three; each call is counted once per attempt
    over the lines (second attempts, spread by the backoff's jitter, may come in several).
    """
    code, out = eval_against_a_hung_server(
        monkeypatch, tmp_path, "--limit", "10", "--concurrency", "10",
        "--max-connection-failures", "100",
    )  # fmt: skip
    assert code == 1, out
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    first = "warning: 10 calls: attempt 1 of 2 timed out after 1 s (--timeout); retrying ("
    assert warnings[0].startswith(first) and warnings[0].endswith(" and 7 more)"), warnings
    assert warnings[0].count(" trial 0 (qa)") == 3
    counted = {"attempt 1 of 2": 0, "attempt 2 of 2": 0}
    for line in warnings:
        attempt = next(name for name in counted if name in line)
        calls = re.match(r"warning: (\d+) calls: ", line)
        counted[attempt] += int(calls[1]) if calls else 1
        assert calls or re.match(r"warning: example-[\w-]+ trial 0 \(qa\): attempt", line)
    assert counted == {"attempt 1 of 2": 10, "attempt 2 of 2": 10}, warnings
    assert len(warnings) < 10, warnings  # before: 20 lines, none naming its call


def _eval_against_a_hung_server(tmp_path: Path, *options: str) -> tuple[int, str, float]:
    """``coordqa eval`` of ``openai/m`` at a server that takes connections and never answers:
    its exit status, output and seconds taken."""
    import time

    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(16)  # the kernel takes connections; nothing ever reads or answers them
        base = f"http://127.0.0.1:{hung.getsockname()[1]}/v1"
        started = time.monotonic()
        code, out = invoke(
            "eval", "--model", "openai/m", "--api-base", base, *options, "--out", tmp_path / "run"
        )
        return code, out, time.monotonic() - started


@pytest.mark.slow
def test_a_hung_server_stops_a_ten_question_run_within_a_minute_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """It takes connections and never answers: the probe says so before any call (about 20 s;
    the calls' own timeouts, 2 x 120 s with 8 in flight, took 248 s)."""
    from coordqa.runs.endpoint import ANSWER_TIMEOUT_S, PROBE_TIMEOUT_S

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code, out, took = _eval_against_a_hung_server(tmp_path, "--limit", "10")
    assert code == 1, out
    assert took < 60 and PROBE_TIMEOUT_S < 60
    assert f"sent no answer within {ANSWER_TIMEOUT_S:g} s (it is hung, or still busy" in out
    assert "nothing new was stored" in out and not (tmp_path / "run").exists()


def test_the_probe_waits_for_an_answer_as_long_as_the_timeout_a_user_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough 29: a run stopped by timeouts was told to "raise --timeout"; with
    --timeout 150 the next run's probe still gave the busy server 20 s, stopped it, and said to
    raise --timeout again. The probe waits as long as one attempt may: the --timeout given
    (here 2 s, said as such), its own 20 s only under the default."""

    from coordqa.llm.types import CallPolicy
    from coordqa.runs.endpoint import ANSWER_TIMEOUT_S, answer_wait

    assert answer_wait(150.0) == 150.0 and answer_wait(2.0) == 2.0
    assert answer_wait(CallPolicy.timeout_s) == ANSWER_TIMEOUT_S
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code, out, took = _eval_against_a_hung_server(tmp_path, "--limit", "2", "--timeout", "2")
    assert code == 1, out
    assert "sent no answer within 2 s (it is hung, or still busy" in out
    assert took < ANSWER_TIMEOUT_S


def test_eval_prints_the_headline_and_overall_rows_and_quiet_keeps_the_run_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from coordqa.cli import qa
    from coordqa.dataset import load_rows

    monkeypatch.setattr(qa, "console", Console(width=80, no_color=True))
    monkeypatch.setattr(qa, "messages", Console(width=200, no_color=True, stderr=True))
    out_dir = tmp_path / "run"
    code, out = invoke(
        "eval", "--model", "scripted", "--dataset", "example", "--trials", "2", "--quiet",
        "--out", out_dir,
    )  # fmt: skip
    assert code == 0, out
    # scripted answers A: right exactly where A is a correct option, in both trials (SE 0).
    rows = load_rows("example")
    expected = sum(0 in row["correct"] for row in rows) / len(rows)
    assert out.splitlines()[0].startswith(
        f"scripted: overall accuracy {expected:.3f} ± 0.000 (trial SE)"
    )
    overall_rows = [line.split() for line in out.splitlines() if line.startswith("  overall")]
    assert len(overall_rows) == 2 and all(r[1] == f"{expected:.3f}" for r in overall_rows)
    assert f"run directory: {out_dir}" in out and "eval 0/" not in out  # quiet: no progress
    code, out = invoke(
        "eval", "--model", "scripted", "--dataset", "example", "--trials", "1", "--quiet",
        "--out", tmp_path / "one",
    )  # fmt: skip
    assert code == 0, out
    first, second = out.splitlines()[:2]  # one trial has no spread over trials: not '± NaN'
    assert first == f"scripted: overall accuracy {expected:.3f} (one trial: no trial SE)"
    assert f"(questions); {len(rows)} questions x 1 trial; random" in second


def test_a_refused_key_and_an_unknown_model_are_said_in_the_providers_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from coordqa.llm.testing import Fault, LocalOpenAIServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for fault, name, listed in (
        (Fault.bad_key(), "key", ["m"]),
        (Fault.unknown_model(), "model", ["gemma-3-270m", "qwen"]),
    ):
        with LocalOpenAIServer(always=fault, models=listed) as server:
            code, out = invoke(
                "eval", "--model", "openai/m", "--api-base", server.base_url,
                "--dataset", "example", "--limit", "1", "--trials", "1", "-q",
                "--out", tmp_path / name,
            )  # fmt: skip
        if name == "key":  # one class name, then OpenAI's sentence: no litellm prefixes
            assert code == 1, out
            said = out[out.index("error: stopped") :]
            assert "AuthenticationError: Incorrect API key provided" in said
            assert said.count("Error") == 1 and "litellm" not in said
        else:  # the models the server lists, from GET /v1/models, before the first call
            assert code == 2, out
            assert "serves gemma-3-270m, qwen, not m: use --model openai/gemma-3-270m" in out


PYTHON_REPRS = {
    "a dict": r"\{'",
    "a list or tuple of strings": r"[\[(]'",
    "None, True or False": r"\b(?:None|True|False)\b",
    "a keyword argument": r"(?<!--model-arg )(?<!--model-arg ')\b[a-z]+(?:_[a-z]+)+=",
    "a function call": r"\b[a-z]+(?:_[a-z]+)+\(",
    "a quoted Python value": r"'[a-z]+(?:_[a-z]+)+'",
    "a class attribute": r"\b[A-Z][a-z]+[A-Z]\w*\.[a-z_]+",
    "a traceback or object": r"Traceback|object at 0x|<class ",
}
"""What a message in the user's terms never holds: Python's spelling of values and names."""

BAD_OPTIONS = [
    ["eval", "-m", "random", "--trials", "0"],
    ["eval", "-m", "random", "--limit", "0"],
    ["eval", "-m", "random", "--sample", "0"],
    ["eval", "-m", "random", "--prompt-layout", "bad"],
    ["eval", "-m", "random", "--temperature", "-1"],
    ["eval", "-m", "random", "--top-p", "2"],
    ["eval", "-m", "random", "--max-error-rate", "2"],
    ["eval", "-m", "random", "--concurrency", "0"],
    ["eval", "-m", "random", "--timeout", "0"],
    ["eval", "-m", "random", "--max-attempts", "0"],
    ["eval", "-m", "random", "--max-connection-failures", "0"],
    ["eval", "-m", "random", "--rpm", "0"],
    ["eval", "-m", "random", "--model-arg", "bad"],
    ["eval", "-m", "random", "--model-arg", "temperature=1"],
    ["eval", "-m", "random", "--model-arg", "timeout=3"],
    ["eval", "-m", "random", "--model-arg", "seed=1"],
    ["eval", "-m", "random", "--ids", ""],
    ["eval", "-m", "random", "--ids", "nosuch-id"],
    ["eval", "-m", "random", "--games", "chess"],
    ["eval", "-m", "random", "--types", "XX"],
    ["eval", "-m", "random", "--dataset", "nope"],
    ["eval", "-m", "random", "--games", "hanabi", "--ids", "collab_capture-01-EC"],
    ["eval", "-m", ""],
    ["eval", "-m", "nosuchmodel"],
    ["eval", "-m", "random", "--api-key-env", "COORDQA_TEST_UNSET_KEY"],
    ["eval", "-m", "llamacpp/missing.gguf"],
    ["results", "RUN", "--format", "xml"],
    ["results", "RUN", "--game", "chess"],
    ["results", "missing-run"],
    ["compare", "RUN"],
    ["compare", "RUN", "OTHER", "--only", "bad"],
    ["report", "missing-run"],
    ["report", "RUN", "--sizes", "bad"],
    ["runs", "list", "missing-folder"],
    ["view", "RUN", "--port", "70000"],
    ["dataset", "stats", "nope"],
    ["games", "show", "chess"],
    ["play", "chess"],
    ["partners", "list", "nosuch"],
    ["score", "missing-run"],
    ["submit", "LIMITED", "--out", "bundle.json"],
    ["eval", "-m", "openai/gpt-4o"],  # no key in the environment
]
"""Bad options and names across the CLI: each must exit 2 with one line in the user's terms."""


def test_error_messages_speak_in_flags_not_python(
    two_runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "500")  # one message, one line
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    limited = write_qa_run(tmp_path / "limited", "m", outcomes(A), trials=2, limit=6)
    places = {"RUN": str(two_runs[0]), "OTHER": str(two_runs[1]), "LIMITED": str(limited)}
    leaks = []
    for args in BAD_OPTIONS:
        code, out = invoke(*[places.get(arg, arg) for arg in args])
        lines = out.strip().splitlines()
        if code != 2 or len(lines) != 1 or not lines[0].startswith("error: "):
            leaks.append(f"{' '.join(args)}: exit {code}, {out!r}")
            continue
        for what, pattern in PYTHON_REPRS.items():
            if re.search(pattern, lines[0]):
                leaks.append(f"{' '.join(args)}: {what} in {lines[0]!r}")
    assert not leaks, "\n".join(leaks)


def test_label_json_and_verbose(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--label names the run everywhere; --json says which dataset; --verbose shows each call."""
    import json

    from coordqa.cli import qa
    from coordqa.dataset import dataset_fingerprint, load_rows

    monkeypatch.setattr(qa, "messages", Console(width=300, no_color=True, stderr=True))
    monkeypatch.chdir(tmp_path)
    base = ["eval", "-m", "scripted", "--dataset", "example", "--trials", "1", "--limit", "3"]
    code, out = invoke(*base, "--label", "baseline A", "--out", "runs/a", "--json", "-q")
    assert code == 0, out
    summary = json.loads(out)
    assert summary["label"] == "baseline A" and summary["summary"]["label"] == "baseline A"
    fingerprint = dataset_fingerprint(load_rows("example"))  # the whole example dataset's
    assert summary["dataset"]["name"] == "example"
    assert summary["dataset"]["fingerprint"] == fingerprint
    assert summary["dataset"]["num_questions"] == 3  # --limit 3, kept for older readers
    # walkthrough 16 R8: the release's own count beside its fingerprint, the run's apart
    assert summary["dataset"]["questions_asked"] == 3
    assert summary["dataset"]["release_questions"] == len(load_rows("example"))
    code, out = invoke("score", "runs/a", "--json")
    assert code == 0, out
    scored = json.JSONDecoder().raw_decode(out)[0]["dataset"]  # then the notes on stderr
    assert scored["questions_asked"] == 3 and scored["release_questions"] > 3, scored
    code, out = invoke(*base, "--label", "baseline B", "--seed", "1", "--out", "runs/b", "-v")
    assert code == 0, out
    assert out.startswith("baseline B: overall accuracy")
    rows = load_rows("example")[:3]
    for row in rows:  # scripted answers A; the key decides right or wrong
        verdict = "right" if 0 in row["correct"] else "wrong"
        assert f"{row['question_id']} trial 0: A, {verdict} (key " in out
    assert out.count("    reply: Explanation: scripted policy picks the first option.") == 3
    code, out = invoke("runs", "list", "runs")
    assert "runs/a  baseline A · scripted · example" in out
    code, out = invoke("compare", "runs/a", "runs/b")
    assert "A = baseline A, B = baseline B" in out
    code, out = invoke("eval", *base[1:], "--label", " ", "--out", "runs/c")
    assert code == 2 and "--label is empty" in out


def test_a_rerun_that_sends_nothing_keeps_the_endpoint_its_replies_came_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from coordqa.llm.testing import LocalOpenAIServer
    from coordqa.store import open_run

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    args = ["eval", "-m", "openai/m", "--dataset", "example", "--limit", "2", "-q"]
    out_dir = str(tmp_path / "run")
    with LocalOpenAIServer() as first, LocalOpenAIServer() as second:
        code, out = invoke(*args, "--trials", "1", "--api-base", first.base_url, "--out", out_dir)
        assert code == 0 and first.count == 2, out
        code, out = invoke(*args, "--trials", "1", "--api-base", second.base_url, "--out", out_dir)
        assert code == 0 and second.count == 0, out  # all answered: nothing sent
        manifest = open_run(out_dir).manifest
        assert manifest.config["api_base"] == first.base_url
        assert first.base_url in manifest.command and second.base_url not in manifest.command
        code, out = invoke(*args, "--trials", "2", "--api-base", second.base_url, "--out", out_dir)
        assert code == 0 and second.count == 2, out  # the new trial went to the second server
        manifest = open_run(out_dir).manifest
        assert manifest.config["api_base"] == second.base_url
        assert second.base_url in manifest.command and manifest.config["trials"] == 2


def test_ctrl_c_while_starting_says_nothing_was_stored(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from coordqa import evaluation

    def interrupted(config: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation, "_plan", interrupted)
    code, out = invoke("eval", "-m", "random", "--out", tmp_path / "run")
    assert code == 130 and "interrupted while starting: nothing was run or stored" in out
    assert "Traceback" not in out and "never awaited" not in out


def test_ctrl_c_while_a_worker_starts_says_no_job_was_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough 21, R5 (#267): Ctrl-C in the worker's first seconds (its imports and the
    database's opening, 6 s on a loaded machine) ended it with status 130 and no word, where one
    later says ``stopped: no job was running``: it says so whenever it is stopped idle."""
    from coordqa.cli import leaderboard

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(leaderboard, "_open", interrupted)
    code, out = invoke(
        "leaderboard", "worker", "--db", f"sqlite:///{tmp_path / 'board.db'}",
        "--work-dir", tmp_path / "jobs",
    )  # fmt: skip
    assert code == 130, out
    assert out.strip() == "stopped: no job was running", out


def test_sigterm_while_a_worker_starts_says_no_job_was_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A SIGTERM in the worker's first seconds ended it with no word, where Ctrl-C there says
    ``stopped: no job was running``: it says so too, with the status a SIGTERM during a job
    ends with (130, as Ctrl-C)."""
    import signal

    from coordqa.cli import leaderboard

    class Unhandled(Exception):
        """What Python's default (the process ended on the spot) stands for here."""

    def unhandled(signum: int, frame: object) -> None:
        raise Unhandled

    def terminated(*args: object, **kwargs: object) -> None:
        signal.raise_signal(signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, unhandled)
    try:
        monkeypatch.setattr(leaderboard, "_open", terminated)
        code, out = invoke(
            "leaderboard", "worker", "--db", f"sqlite:///{tmp_path / 'board.db'}",
            "--work-dir", tmp_path / "jobs",
        )  # fmt: skip
        assert signal.getsignal(signal.SIGTERM) is unhandled  # put back as it was
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 130, out
    assert out.strip() == "stopped: no job was running", out


def test_runs_list_says_an_agentic_run_failed(tmp_path: Path) -> None:
    """Every decision of its episode failed: the run is failed, not finished."""
    from coordqa.store import RunManifest, RunStore

    with RunStore.create(
        tmp_path / "runs" / "agentic",
        RunManifest(kind="agentic", config={"model": "openai/x", "name": "grid"}, fingerprint="x"),
    ) as store:
        store.mark_started()
        store.mark_failed()
    code, out = invoke("runs", "list", tmp_path / "runs")
    assert code == 0, out
    # no episode played of a number the manifest does not say
    assert out.splitlines()[-1].split()[:5] == ["-", "0/?", "ep", "-", "failed"]


def test_ctrl_c_after_the_last_answer_says_the_run_is_finished_by_running_it_again(
    tmp_path: Path,
) -> None:
    """A Ctrl-C after the last sample was stored (while the run is scored and closed) said
    ``interrupted: 594 of 594 samples are answered ... Run the same command again to resume``:
    nothing is left to answer, so it says the rerun only finishes the run, asking nothing."""
    from coordqa.errors import RunInterrupted
    from coordqa.evaluation import EvalConfig, evaluate

    config = EvalConfig(model="random", limit=2, trials=1, out=tmp_path / "run")

    def ctrl_c_at_the_end(progress: object) -> None:
        if progress.done == progress.total:  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as stopped:
        evaluate(config, progress=ctrl_c_at_the_end)
    assert str(stopped.value) == (
        f"interrupted as it ended: all 2 samples are answered and stored in {tmp_path / 'run'}. "
        "Run the same command again to finish it (nothing is asked again)."
    )
    assert evaluate(config).analysis.complete


def test_ctrl_c_while_an_import_makes_a_class_ends_as_a_ctrl_c(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Python 3.11 wraps a Ctrl-C that lands while a class is made (a dataclass's field, in a
    lazy import) as ``RuntimeError: Error calling __set_name__``: ``timeout -s INT 0.65 coordqa
    eval ...`` printed its 40-line traceback and exit 1. It ends as a Ctrl-C does."""
    from coordqa import evaluation

    def ctrl_c_inside_set_name(config: object) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as stop:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance 'final'") from stop

    monkeypatch.setattr(evaluation, "_plan", ctrl_c_inside_set_name)
    code, out = invoke("eval", "-m", "random", "--out", tmp_path / "run")
    assert code == 130, out
    assert "Traceback" not in out and "RuntimeError" not in out
    assert out.strip() == "interrupted", out


def test_ctrl_c_once_the_run_is_finished_says_it_is_complete(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough 26a, R2: a Ctrl-C that came after the run was marked finished said
    ``594 of 594 samples ... Run the same command again to resume``; an agentic run says it is
    complete and which command prints its tables, and so does this one."""
    from coordqa import evaluation
    from coordqa.errors import RunInterrupted
    from coordqa.evaluation import EvalConfig, evaluate

    config = EvalConfig(model="random", limit=2, trials=1, out=tmp_path / "run")
    evaluate(config)

    async def ctrl_c_after_the_session(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation, "_execute", ctrl_c_after_the_session)
    with pytest.raises(RunInterrupted) as stopped:
        evaluate(config)
    run = tmp_path / "run"
    assert str(stopped.value) == (
        f"interrupted after the last sample: all 2 samples are answered and stored in {run}. "
        f"The run is complete: nothing is missing (coordqa score {run} prints its tables)."
    )
