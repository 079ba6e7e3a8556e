"""What a command says of a run folder it cannot use: what the folder is, and what to do for
THIS command (walkthrough 4 #129, #211, #212, #244).

``eval --out`` of an agentic run explained what ``score``/``report`` can read; ``agentic run
--out`` of a QA run said to give the directory ``agentic run`` writes (it was given one to
write); ``score`` of a run with a corrupt manifest suggested running "into another --out";
``runs list`` told an eval-set member's user to rerun "the same `coordqa eval` command".
"""

from __future__ import annotations

from pathlib import Path

from cli_support import coordqa
from qa_run_support import SIX_QUESTIONS, outcome_rows as rows, write_qa_run

from coordqa.analysis.accuracy import INCOMPLETE_NOTE

AGENTIC = ["agentic", "run", "--agent", "cac", "--model", "bot", "--game", "collab_escape"]


def _said(*args: str | Path, cwd: Path) -> str:
    result = coordqa(*args, cwd=cwd)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return " ".join(result.stderr.split())


def test_a_run_of_another_kind_is_named_and_another_out_asked_for(tmp_path: Path) -> None:
    write_qa_run(tmp_path / "qa", "m", rows(SIX_QUESTIONS), trials=1)
    played = coordqa(*AGENTIC, "--self-play", "--episodes", "1", "--out", "ag", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    into_agentic = _said("eval", "--model", "random", "--limit", "2", "--out", "ag", cwd=tmp_path)
    assert "ag is an agentic run, not a QA one" in into_agentic
    assert "give another --out" in into_agentic and "score and report" not in into_agentic
    into_qa = _said(*AGENTIC, "--self-play", "--episodes", "1", "--out", "qa", cwd=tmp_path)
    assert "qa is a QA run, not an agentic one" in into_qa
    assert "give another --out" in into_qa and "written by" not in into_qa
    # reading commands keep their own advice
    assert "`coordqa agentic report` reports agentic runs" in _said("score", "ag", cwd=tmp_path)


def test_a_corrupt_run_is_recovered_for_reading_and_may_be_left_for_writing(
    tmp_path: Path,
) -> None:
    run = write_qa_run(tmp_path / "cut", "m", rows(SIX_QUESTIONS), trials=1)
    (run / "manifest.json").write_text("{'cut here")
    scored = _said("score", "cut", cwd=tmp_path)
    assert "manifest.json is corrupt" in scored and "Restore manifest.json" in scored
    assert "--out" not in scored
    resumed = _said("eval", "--model", "random", "--limit", "2", "--out", "cut", cwd=tmp_path)
    assert "Restore manifest.json" in resumed and "give another --out for a new run" in resumed


def test_the_incomplete_note_names_the_command_of_an_eval_set_member() -> None:
    assert "`coordqa eval-set` with its spec" in INCOMPLETE_NOTE
    assert "same `coordqa eval` command" not in INCOMPLETE_NOTE


def test_a_folder_of_the_other_kind_points_to_its_report_both_ways(tmp_path: Path) -> None:
    """Walkthrough 20, R6: ``agentic report`` of a folder of QA runs said "(it holds qa runs)"
    and no more, where ``score`` of an agentic run names `coordqa agentic report`."""
    write_qa_run(tmp_path / "qa-runs" / "one", "m", rows(SIX_QUESTIONS), trials=1)
    played = coordqa(*AGENTIC, "--self-play", "--episodes", "1", "--out", "ag/one", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    of_qa = _said("agentic", "report", "qa-runs", cwd=tmp_path)
    assert "qa-runs is not a run directory and holds no agentic runs" in of_qa, of_qa
    assert "it holds QA runs; `coordqa report` reports QA runs" in of_qa, of_qa
    of_agentic = _said("report", "ag", cwd=tmp_path)
    assert "it holds agentic runs; `coordqa agentic report` reports agentic runs" in of_agentic
    assert "`coordqa agentic report` reports agentic runs" in _said("score", "ag/one", cwd=tmp_path)
    one_qa = _said("agentic", "report", "qa-runs/one", cwd=tmp_path)  # a run named itself
    assert "qa-runs/one is a QA run, not an agentic one" in one_qa, one_qa
    assert one_qa.endswith("(`coordqa report` reports QA runs)"), one_qa
