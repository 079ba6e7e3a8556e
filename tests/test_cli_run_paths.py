"""Every command that reads runs answers a path that is not a folder by one rule.

Walkthrough 6 #258-#272: a run's ``manifest.json``, a stream of it, or a CSV given where a run
folder is expected was answered "does not exist" by ``view``, ``report``, ``score``,
``compare`` and ``agentic report`` (``runs list`` alone said "is not a directory"). A missing
path says it does not exist; an existing file says it is a file, and names the folder that
holds it when that folder is a run's (or an eval set's), so the fix is one copy away.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa
from qa_run_support import SIX_QUESTIONS, outcome_rows, write_qa_run

READING_COMMANDS = {
    "score": ("score", "{path}"),
    "results": ("results", "{path}"),
    "report": ("report", "{path}"),
    "compare": ("compare", "runs/a", "{path}"),
    "view": ("view", "{path}", "--export", "site"),
    "runs list": ("runs", "list", "{path}"),
    "agentic report": ("agentic", "report", "{path}"),
    "submit": ("submit", "{path}", "--out", "bundle.json"),
}
"""Each command that takes run paths, with ``{path}`` where the path goes."""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_qa_run(tmp_path / "runs" / "a", "m", outcome_rows(SIX_QUESTIONS), trials=2)
    (tmp_path / "results.csv").write_text("model,accuracy\nm,0.5\n")
    return tmp_path


def said(command: str, path: str, cwd: Path) -> tuple[int, str]:
    args = [part.format(path=path) for part in READING_COMMANDS[command]]
    result = coordqa(*args, cwd=cwd)
    return result.returncode, " ".join(result.stderr.split())


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_file_of_a_run_is_named_a_file_with_the_run_folder_to_give(
    command: str, folder: Path
) -> None:
    for inside in ("manifest.json", "calls.jsonl"):
        status, message = said(command, f"runs/a/{inside}", folder)
        assert status == 2, (inside, message)
        assert "does not exist" not in message, message
        assert f"runs/a/{inside} is a file" in message, message
        assert "the folder that holds it: runs/a (a run directory)" in message, message
    assert not (folder / "site").exists() and not (folder / "bundle.json").exists()


@pytest.mark.parametrize("command", sorted(set(READING_COMMANDS) - {"submit"}))
def test_a_file_outside_runs_is_a_file_and_a_missing_path_does_not_exist(
    command: str, folder: Path
) -> None:
    """``submit`` sends any other file as a saved bundle, so only the other commands here."""
    status, message = said(command, "results.csv", folder)
    assert status == 2 and "results.csv is a file, not a folder; give " in message, message
    assert "does not exist" not in message and "holds it" not in message, message
    status, message = said(command, "runs/nothere", folder)
    assert status == 2 and "runs/nothere does not exist. Give " in message, message


@pytest.mark.parametrize("sending", [("--out", "bundle.json"), ("--to", "http://127.0.0.1:9")])
def test_submit_of_a_missing_path_offers_a_run_directory_or_a_saved_bundle(
    folder: Path, sending: tuple[str, str]
) -> None:
    """Walkthrough 17, R9: ``submit nonexist.json`` ended "Give a run directory", though a bundle
    saved by ``submit RUN --out FILE`` is as good there (nothing listens at the URL)."""
    token = ("--token", "t") if sending[0] == "--to" else ()
    result = coordqa("submit", "nothere.json", *sending, *token, cwd=folder)
    message = " ".join(result.stderr.split())
    assert result.returncode == 2, message
    assert message == (
        "error: nothere.json does not exist. Give a run directory, or a bundle file written by "
        "coordqa submit RUN --out FILE"
    ), message


@pytest.mark.parametrize("command", ["score", "results", "submit"])
def test_an_eval_set_folder_given_for_one_run_names_its_members_to_give(
    command: str, folder: Path
) -> None:
    """Walkthrough 6 R9: ``score runs/local`` of an eval set's folder said "it is not a coordqa
    run: it has no manifest.json", as of any stray folder."""
    local = folder / "runs" / "local"
    write_qa_run(local / "m_member", "m", outcome_rows(SIX_QUESTIONS), trials=2)
    (local / "eval-set.json").write_text("{}")
    status, message = said(command, "runs/local", folder)
    assert status == 2 and "no manifest.json" not in message, message
    assert "runs/local is an eval-set folder (eval-set.json), not a run directory" in message
    # walkthrough 10 #157-#158: the advice said "runs/local/*/", which the shell expands to
    # several folders, and these commands take one ("Got unexpected extra argument(s)")
    assert "give one member's run directory at a time, e.g. runs/local/m_member " in message
    assert "coordqa runs list runs/local" in message, message
    assert coordqa("score", "runs/local/m_member", cwd=folder).returncode == 0
    assert "*" not in message, message


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def mixed(folder: Path) -> Path:
    """runs/: two QA runs, one agentic run, a corrupt manifest and records without one."""
    write_qa_run(folder / "runs" / "b", "m2", outcome_rows(SIX_QUESTIONS), trials=2)
    played = coordqa(
        "agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_escape",
        "--self-play", "--episodes", "1", "--out", "runs/x", cwd=folder,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    (folder / "runs" / "broken").mkdir()
    (folder / "runs" / "broken" / "manifest.json").write_text("{bad")
    (folder / "runs" / "orphan").mkdir()
    (folder / "runs" / "orphan" / "calls.jsonl").write_text('{"question_id": "q"}\n')
    return folder


@pytest.mark.parametrize(
    ("command", "kind", "other"),
    [(("report",), "QA", "agentic"), (("agentic", "report"), "agentic", "QA")],
)
def test_a_report_of_a_folder_of_runs_names_what_it_skipped_and_reports_the_rest(
    command: tuple[str, ...], kind: str, other: str, mixed: Path
) -> None:
    """Walkthrough 6 #199, #203: ``agentic report runs/`` (and ``report runs/``) stopped with
    exit 2 at the first unreadable folder under runs/, while ``runs list`` and ``view`` list it
    and go on. Each unreadable folder is named with its cause and fix, each run of the other
    track is counted as skipped, and the rest is reported; a run folder named itself that cannot
    be read is still an error."""
    shown = coordqa(*command, "runs", cwd=mixed)
    assert shown.returncode == 0, shown.stderr
    said = _flat(shown.stderr)
    assert "skipped runs/broken: manifest.json is corrupt" in said, said
    assert "skipped runs/orphan: it holds calls.jsonl (1 record) but no manifest.json" in said
    assert said.count("Restore manifest.json from where the run was copied") == 2, said
    skipped = 1 if other == "agentic" else 2  # runs/x, or runs/a and runs/b
    assert f"skipped {skipped} {other} run" in said, said
    if kind == "agentic":
        assert "from 1 run" in said, said
    else:
        assert "runs/a" not in said and " m2 " in _flat(shown.stdout), shown.stdout
    for named in ("runs/broken", "runs/orphan"):
        refused = coordqa(*command, named, cwd=mixed)
        assert refused.returncode == 2, (named, refused.stdout)
        assert _flat(refused.stderr).startswith(f"error: {named}: "), refused.stderr


def test_a_report_of_a_folder_skips_a_run_whose_records_are_damaged(folder: Path) -> None:
    """Walkthrough 8 #293-#295: ``report runs/ --allow-mixed`` stopped (exit 2) at one run whose
    calls.jsonl held a line of garbage, with eval's advice (another --out), while it skipped a
    folder without a manifest. Such a run found in a folder is skipped with its cause and a
    fix for reading; named itself, it is an error worded for report."""
    write_qa_run(folder / "runs" / "b", "m2", outcome_rows(SIX_QUESTIONS), trials=2)
    calls = folder / "runs" / "b" / "calls.jsonl"
    first, rest = calls.read_text().split("\n", 1)
    calls.write_text(f"{first}\nnot json at all\n{rest}")
    shown = coordqa("report", "runs", "--allow-mixed", cwd=folder)
    assert shown.returncode == 0, shown.stderr
    said = _flat(shown.stderr)
    assert "skipped runs/b: its records cannot be read" in said, said
    assert "calls.jsonl: line 2 is not valid JSON" in said, said
    assert "Restore the damaged file from a copy of the run" in said, said
    assert "another --out" not in said, said
    assert " m " in _flat(shown.stdout) and " m2 " not in _flat(shown.stdout), shown.stdout
    refused = coordqa("report", "runs/b", cwd=folder)
    message = _flat(refused.stderr)
    assert refused.returncode == 2, refused.stdout
    assert "calls.jsonl: line 2 is not valid JSON" in message, message
    assert "restore the damaged file from a copy of the run" in message.lower(), message
    assert "another --out" not in message, message
