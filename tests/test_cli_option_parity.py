"""An option that two commands share means the same in both (walkthrough 7, #75 and #277).

``coordqa agentic run ... --quiet`` said "No such option: --quiet" although ``eval`` has it, and
``coordqa score RUN --json`` said "No such option: --json" although the guide pairs ``score``
with ``eval`` for the headline. Each option has one definition, used by every command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_support import coordqa

LIVE_BAR_COMMANDS = (("eval",), ("eval-set",), ("agentic", "run"), ("agentic", "grid"))
"""Every command that shows a live progress bar, so every one that ``--quiet`` silences."""


def option_help(command: tuple[str, ...], option: str) -> str:
    """The help line of ``option`` in ``command --help``, whitespace folded."""
    text = " ".join(coordqa(*command, "--help", columns=200).stdout.split())
    assert option in text, (command, text)
    return re.split(r" --| -h,", text.split(option, 1)[1], maxsplit=1)[0]


@pytest.mark.parametrize("command", LIVE_BAR_COMMANDS[1:])
def test_quiet_is_eval_s_quiet_on_every_command_with_a_live_bar(command: tuple[str, ...]) -> None:
    assert option_help(command, "--quiet") == option_help(("eval",), "--quiet")


def test_agentic_run_quiet_keeps_the_results_and_the_run_line_and_drops_the_progress(
    tmp_path: Path,
) -> None:
    args = ["agentic", "run", "--agent", "capture-planner", "--game", "collab_capture"]
    args += ["--seeds", "0", "--out", str(tmp_path / "run")]
    loud = coordqa(*args)
    quiet = coordqa(*args, "--quiet")  # resumes: plays nothing
    assert loud.returncode == quiet.returncode == 0, (loud.stderr, quiet.stderr)
    assert "playing 1 episode" in loud.stderr and "episodes finished" in loud.stderr
    assert "playing" not in quiet.stderr and "episodes finished" not in quiet.stderr
    assert "run: " in quiet.stderr  # the run directory, as eval --quiet names it
    assert quiet.stdout == loud.stdout  # the same tables


def test_score_json_is_eval_s_json_of_the_same_run_less_the_session(tmp_path: Path) -> None:
    out = tmp_path / "run"
    evaluated = coordqa("eval", "--model", "random", "--limit", "4", "--out", str(out), "--json")
    assert evaluated.returncode == 0, evaluated.stderr
    scored = coordqa("score", str(out), "--json")
    assert scored.returncode == 0, scored.stderr
    eval_json, score_json = json.loads(evaluated.stdout), json.loads(scored.stdout)
    session_only = {"samples", "calls", "dropped_params"}  # what this session sent and stored
    assert set(score_json) == set(eval_json) - session_only
    for key in score_json:
        assert score_json[key] == eval_json[key], key
    assert "rewrote scores.jsonl" in scored.stderr  # the counts stay on stderr


def test_score_json_of_several_runs_is_a_list_of_one_object_per_run(tmp_path: Path) -> None:
    runs = [tmp_path / "a", tmp_path / "b"]
    for run in runs:
        made = coordqa("eval", "--model", "random", "--limit", "2", "--out", str(run), "-q")
        assert made.returncode == 0, made.stderr
    scored = coordqa("score", *map(str, runs), "--json")
    assert scored.returncode == 0, scored.stderr
    assert [item["run_dir"] for item in json.loads(scored.stdout)] == list(map(str, runs))
