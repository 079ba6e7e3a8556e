"""The line that sums an eval set's progress knows its total before any member reports
(walkthrough 22, R6).

Its total was summed as each member reported its first progress, so when one member started
later than another the denominator grew and the percentage jumped back. Every member's samples
(questions x trials, a resumed member's earlier answers included, as ``coordqa eval`` counts
them) are known when the members are listed, before the first one runs.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from coordqa.cli._set_progress import SetLines
from coordqa.evalset import SetEvent, evaluate_set, parse_spec

DEAD = "http://127.0.0.1:9/v1"
"""An endpoint nothing listens on (the discard port): its member stops before its run begins."""


def test_the_sets_line_shows_its_final_total_from_its_first_line(tmp_path: Path) -> None:
    out = tmp_path / "set"
    evaluate_set(parse_spec({"models": ["random"], "limit": 3, "trials": 1, "out": out}))
    events: list[SetEvent] = []
    spec = {"models": ["random", "scripted"], "limit": 3, "trials": 2, "out": out}
    evaluate_set(parse_spec(spec), progress=events.append)  # random resumes: 3 of its 6 held

    kinds = [event.kind for event in events]
    assert kinds.index("progress") > max(i for i, k in enumerate(kinds) if k == "started")
    assert {e.member.label: e.member.samples for e in events} == {
        "random on coordinationqa-v1.2": 6,
        "scripted on coordinationqa-v1.2": 6,
    }

    text = io.StringIO()
    lines = SetLines(Console(file=text, width=200, color_system=None))
    # as if scripted began only once random was done: random's progress all comes first
    order = {"started": 0, "progress": 1, "finished": 2}
    for event in sorted(events, key=lambda e: (order[e.kind], e.member.label)):
        lines(event)
    totals = re.findall(r"eval-set (\d+)/(\d+) samples", text.getvalue())
    assert len(totals) > 2, text.getvalue()
    assert {total for _, total in totals} == {"12"}, text.getvalue()
    done = [int(d) for d, _ in totals]
    assert done == sorted(done) and done[-1] == 12, text.getvalue()


def test_a_resumed_member_says_how_many_samples_it_holds(tmp_path: Path) -> None:
    """Walkthrough 31: a resumed set announced its members as `start ...` with no word of the
    samples they already held, where `coordqa eval` says `resuming: N samples already
    answered`."""
    from cli_support import coordqa

    out = tmp_path / "set"
    first = coordqa("eval-set", "-m", "random", "--limit", "2", "--trials", "1", "--out", out)
    assert first.returncode == 0, first.stderr
    resumed = coordqa(
        "eval-set", "-m", "random", "-m", "scripted", "--limit", "2", "--trials", "2", "--out", out
    )
    assert resumed.returncode == 0, resumed.stderr
    said = resumed.stderr.splitlines()
    assert "resuming random on coordinationqa-v1.2: 2 samples already answered" in said, said
    assert not any(line.startswith("resuming scripted") for line in said), said


def test_a_member_stopped_before_its_run_leaves_the_total_and_the_last_line_counts_all(
    tmp_path: Path,
) -> None:
    """Walkthrough 28, R6: with a model at a dead endpoint, the log's lines ended at
    ``eval-set 23/36 samples (64%) of 3 members started`` though the two live members answered
    their 24: the dead member, stopped before its run began, stayed in the total, and the last
    sample was never counted in a line."""
    from cli_support import coordqa

    spec = {
        "models": ["random", "scripted", {"model": "openai/dead", "api_base": DEAD}],
        "limit": 4,
        "trials": 3,
    }
    path = tmp_path / "mixed.yaml"
    path.write_text(yaml.safe_dump(spec))
    env = {"OPENAI_API_KEY": "sk-test", "COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    done = coordqa("eval-set", path, "--out", tmp_path / "mixed", env=env)
    assert done.returncode == 1 and "failed: openai/dead on" in done.stderr, done.stderr
    said = done.stderr.splitlines()
    stopped = next(i for i, line in enumerate(said) if line.startswith("FAILED openai/dead"))
    lines = [line for line in said[stopped:] if line.startswith("eval-set ")]
    assert lines and all("/24 samples" in line for line in lines), said
    assert lines[-1] == "eval-set 24/24 samples (100%) of 2 members started, 0 errors", said


def test_a_set_stopped_before_its_folder_is_written_says_nothing_was_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 28, R2: a Ctrl-C while the set's folder is checked said ``every member's
    answers so far are stored in SET`` of a folder that did not exist."""
    from cli_support import coordqa

    from coordqa.errors import NOTHING_STARTED
    from coordqa.evalset import run

    def interrupted(out: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "refuse_run_folder", interrupted)
    done = coordqa("eval-set", "--model", "random", "--limit", "2", "--out", tmp_path / "set")
    assert done.returncode == 130 and done.stderr == f"{NOTHING_STARTED}\n", done.stderr
    assert not (tmp_path / "set").exists()
