"""Output folders and files are never mixed or silently replaced.

A walkthrough wrote ``coordqa agentic report ... --out report/`` and then ``coordqa report ...
--out report/``: one folder held both reports, ``report.md`` of the second over the first's
tables. ``view --export`` and ``leaderboard export`` merged into whatever was there, and
``submit --out`` replaced an earlier bundle. The rule (:mod:`coordqa.outputs`): a generated
output folder is written only when it is missing, empty or holds the earlier output of the same
command (recorded in its ``.coordqa-output.json``), whose files are removed first; anything else
is refused at parse time, exit 2, nothing written or removed. An output file that exists is
refused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_support import coordqa, parse_command
from qa_run_support import SIX_QUESTIONS, outcome_rows as rows, write_qa_run
from test_cli_outputs import (
    FILE_OUTPUTS,
    FOLDER_OUTPUTS,
    _command,
    _option,
    _tree,
    make_inputs,
)
from test_run_out_folders import WRITERS as RUN_WRITERS

from coordqa.errors import OutputPathError, RunInterrupted
from coordqa.outputs import (
    AGENTIC_REPORT,
    OUTPUT_MARKER,
    QA_REPORT,
    STAGING,
    check_generated_folder,
    generated_output,
    in_output,
)

GENERATED = {
    "report": QA_REPORT,
    "agentic report": AGENTIC_REPORT,
    "view --export": "coordqa view --export",
    "leaderboard export": "coordqa leaderboard export",
}
"""The commands that write a generated output folder, and the name their marker gives them."""

OTHER = dict(zip(GENERATED, [*list(GENERATED)[1:], next(iter(GENERATED))], strict=True))
"""For each command, another one whose output it meets in its folder."""


@pytest.fixture(scope="module")
def given(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Runs, a grid, a CSV and a board that the commands read (made once for the module)."""
    return make_inputs(tmp_path_factory.mktemp("inputs"))


def _run(command: str, given: dict[str, str], out: Path) -> None:
    result = coordqa(*_command(FOLDER_OUTPUTS[command], given, str(out)), cwd=out.parent)
    assert result.returncode == 0, result.stderr


def _refused(
    command: str,
    given: dict[str, str],
    out: Path,
    says: str,
    fix: str = "give a new folder, or empty it",
) -> None:
    before = _tree(out.parent)
    template = FOLDER_OUTPUTS[command]
    result = coordqa(*_command(template, given, out.name), cwd=out.parent)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {_option(template)} {out.name} "), line
    assert says in line, line
    assert fix in line
    assert _tree(out.parent) == before  # nothing written, nothing removed


@pytest.mark.parametrize("command", GENERATED)
def test_a_folder_holding_another_commands_output_is_refused(
    command: str, given: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _run(OTHER[command], given, out)
    _refused(command, given, out, f"holds the output of `{GENERATED[OTHER[command]]}`")


DATASET_WRITERS = ("dataset generate", "dataset build", "dataset import-upstream")
"""The commands that write a dataset folder: it may be missing, empty or hold a dataset."""

FOREIGN_FILES_SAID = {
    **dict.fromkeys(
        [*GENERATED, *RUN_WRITERS], "holds files coordqa did not write (e.g. notes.txt)"
    ),
    **dict.fromkeys(DATASET_WRITERS, "holds files that are not a dataset (e.g. notes.txt)"),
}
"""What each writer says of a folder holding a file of the user's."""


@pytest.mark.parametrize("command", FOREIGN_FILES_SAID)
def test_a_folder_holding_files_coordqa_did_not_write_is_refused(
    command: str, given: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    _refused(command, given, out, FOREIGN_FILES_SAID[command])


@pytest.mark.parametrize("command", GENERATED)
def test_a_run_directory_or_a_folder_of_runs_is_named_as_one_not_as_foreign_files(
    command: str, given: dict[str, str], tmp_path: Path
) -> None:
    """Walkthrough 4 #34, #284: ``report --out runs2/random-a`` (a run) was said to hold "files
    coordqa did not write (e.g. .lock)", ``leaderboard export --out runs/`` the same of
    ``my-grid`` (a run in it); and "empty it" would have deleted the runs."""
    run = write_qa_run(tmp_path / "out", "m", rows(SIX_QUESTIONS), trials=1)
    (run / ".lock").touch()
    _refused(command, given, run, "is a run directory", fix="give a new folder for the output")
    runs = tmp_path / "runs"
    runs.mkdir()
    run.rename(runs / "my-grid")
    _refused(command, given, runs, "holds run directories (e.g. my-grid)", fix="give a new folder")
    for out in (runs, runs / "my-grid"):
        said = coordqa(*_command(FOLDER_OUTPUTS[command], given, out.name), cwd=out.parent)
        assert "empty it" not in said.stderr and "did not write" not in said.stderr


@pytest.mark.parametrize("command", GENERATED)
def test_the_same_command_again_replaces_its_own_output_and_keeps_the_users_files(
    command: str, given: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _run(command, given, out)
    marker = json.loads((out / OUTPUT_MARKER).read_text(encoding="utf-8"))
    assert marker["command"] == GENERATED[command]
    first = set(marker["files"])
    assert "report.md" in first or "index.html" in first
    (out / "mine.txt").write_text("mine\n", encoding="utf-8")
    stale = out / "stale.html"  # as if the first output had written it: the second must not
    stale.write_text("old\n", encoding="utf-8")
    (out / OUTPUT_MARKER).write_text(
        json.dumps({**marker, "files": [*marker["files"], "stale.html"]}), encoding="utf-8"
    )
    _run(command, given, out)
    assert not stale.exists()
    assert (out / "mine.txt").read_text(encoding="utf-8") == "mine\n"
    again = json.loads((out / OUTPUT_MARKER).read_text(encoding="utf-8"))
    assert set(again["files"]) == first  # the same given: the same files, the user's not listed
    on_disk = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert on_disk == first | {"mine.txt", OUTPUT_MARKER}


def test_a_second_report_leaves_no_figure_of_the_first(
    given: dict[str, str], tmp_path: Path
) -> None:
    """``--sizes`` adds accuracy_vs_size.png; the next report without it must not show it."""
    out = tmp_path / "report"
    args = ["report", given["qa"], given["full"], "--allow-mixed", "--out", str(out)]
    assert coordqa(*args, "--sizes", "random=1e9", cwd=tmp_path).returncode == 0
    assert (out / "accuracy_vs_size.png").is_file()
    assert coordqa(*args, cwd=tmp_path).returncode == 0
    assert not (out / "accuracy_vs_size.png").exists()
    assert "accuracy_vs_size" not in (out / "report.md").read_text(encoding="utf-8")


def test_a_second_export_leaves_no_page_of_a_run_no_longer_given(
    given: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    both = coordqa("view", given["qa"], given["agentic"], "--export", str(out), cwd=tmp_path)
    assert both.returncode == 0, both.stderr
    runs = {p.name for p in (out / "runs").iterdir()}
    assert len(runs) == 2
    one = coordqa("view", given["qa"], "--export", str(out), cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert len({p.name for p in (out / "runs").iterdir()}) == 1  # emptied folders go too


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the output folder that no marker may get removed."""
    path = tmp_path / "outside.txt"
    path.write_text("precious\n", encoding="utf-8")
    return path


def _hostile_folder(tmp_path: Path, marker: str | bytes) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "report.md").write_text("ours?\n", encoding="utf-8")
    data = marker.encode() if isinstance(marker, str) else marker
    (folder / OUTPUT_MARKER).write_bytes(data)
    return folder


def _listing(files: list[str]) -> str:
    return json.dumps({"command": QA_REPORT, "files": files})


HOSTILE = {
    "parent": _listing(["report.md", "../outside.txt"]),
    "absolute": _listing(["report.md", "{outside}"]),
    "dot": _listing(["./report.md"]),
    "not a list": json.dumps({"command": QA_REPORT, "files": "report.md"}),
    "not a name": json.dumps({"command": QA_REPORT, "files": [1]}),
    "unknown command": json.dumps({"command": "rm -rf", "files": ["report.md"]}),
    "not json": "{",
    "deep": "[" * 100_000 + "]" * 100_000,
    "huge": _listing(["report.md", *(f"x{i:08}.png" for i in range(2_000_000))]),
}
"""Markers coordqa did not write, each of which must remove nothing."""


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_marker_removes_nothing(case: str, tmp_path: Path, outside: Path) -> None:
    folder = _hostile_folder(tmp_path, HOSTILE[case].replace("{outside}", str(outside)))
    before = _tree(tmp_path)
    with pytest.raises(OutputPathError, match="give a new folder, or empty it"):
        with generated_output(folder, QA_REPORT):
            pytest.fail("written into a folder whose marker cannot be trusted")
    assert _tree(tmp_path) == before


def test_a_marker_listing_a_symlink_removes_nothing_it_points_to(
    tmp_path: Path, outside: Path
) -> None:
    folder = _hostile_folder(tmp_path, _listing(["link", "sub/x"]))
    (folder / "link").symlink_to(outside)
    (folder / "sub").symlink_to(tmp_path)  # sub/x would be tmp_path/x
    (tmp_path / "x").write_text("also precious\n", encoding="utf-8")
    with pytest.raises(OutputPathError, match="give a new folder, or empty it"):
        check_generated_folder(folder, QA_REPORT)
    with pytest.raises(OutputPathError):
        with generated_output(folder, QA_REPORT):
            pytest.fail("written through a symlink")
    assert outside.read_text(encoding="utf-8") == "precious\n"
    assert (tmp_path / "x").read_text(encoding="utf-8") == "also precious\n"
    assert (folder / "link").is_symlink() and (folder / "sub").is_symlink()


def test_a_marker_that_is_a_symlink_is_not_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(_listing(["report.md"]), encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "report.md").write_text("ours?\n", encoding="utf-8")
    (folder / OUTPUT_MARKER).symlink_to(elsewhere)
    with pytest.raises(OutputPathError):
        check_generated_folder(folder, QA_REPORT)
    assert (folder / "report.md").exists()


def test_the_check_runs_when_the_command_line_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine\n", encoding="utf-8")
    for args in (
        ["report", "runs", "--out", "used"],
        ["agentic", "report", "runs", "--out", "used"],
        ["view", "runs", "--export", "used"],
        ["leaderboard", "export", "--out", "used"],
    ):
        with pytest.raises(OutputPathError, match="used holds files coordqa did not write"):
            parse_command(*args, cwd=tmp_path)


def test_the_library_writers_keep_the_rule(tmp_path: Path) -> None:
    """write_reports is refused a folder holding another command's output, as the CLI is."""
    from coordqa.analysis import write_reports

    folder = tmp_path / "out"
    with generated_output(folder, AGENTIC_REPORT) as root:
        (root / "report.md").write_text("agentic\n", encoding="utf-8")
    with pytest.raises(OutputPathError, match="holds the output of `coordqa agentic report`"):
        write_reports([], folder)
    assert (folder / "report.md").read_text(encoding="utf-8") == "agentic\n"


@pytest.mark.parametrize("command", FILE_OUTPUTS)
def test_an_output_file_that_exists_is_refused(
    command: str, given: dict[str, str], tmp_path: Path
) -> None:
    existing = tmp_path / "earlier.out"
    existing.write_bytes(b"an earlier bundle\n")
    template = FILE_OUTPUTS[command]
    result = coordqa(*_command(template, given, existing.name), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line == (
        f"error: --out {existing.name} exists: give a new file name, or remove it first"
    )
    assert existing.read_bytes() == b"an earlier bundle\n"
    assert sorted(os.listdir(tmp_path)) == [existing.name]


FREE_FILE_IN_A_FOLDER = {"submit": "bundle.json", "results csv": "results.csv"}
"""The new file each command's refusal of a folder offers (one per file output, by kind)."""


@pytest.mark.parametrize("command", FILE_OUTPUTS)
def test_an_output_file_that_is_a_folder_is_refused_with_a_free_file_in_it(
    command: str, given: dict[str, str], tmp_path: Path
) -> None:
    """Walkthrough 18 #296: ``submit RUN --out runs/`` advised "or remove the folder", a folder
    of the user's runs. A folder is never offered for removal: the refusal names a new file in
    it, one the same command then writes."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "kept.txt").write_text("mine\n", encoding="utf-8")
    example = FREE_FILE_IN_A_FOLDER.get(command, "results.csv")
    (folder / example).write_text("an earlier output\n", encoding="utf-8")  # taken: not offered
    template = FILE_OUTPUTS[command]
    result = coordqa(*_command(template, given, "runs"), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    stem, suffix = example.rsplit(".", 1)
    offered = f"runs/{stem}-new.{suffix}"
    assert line == (
        f"error: --out runs is a folder, not a file: give the path of a new file, e.g. {offered}"
    )
    assert "remove" not in line
    written = coordqa(*_command(template, given, offered), cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert sorted(os.listdir(folder)) == sorted(["kept.txt", example, offered.split("/")[1]])


def test_a_dataset_is_not_written_into_another_commands_output(
    given: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _run("view --export", given, out)
    # Was "holds files that are not a dataset (e.g. .coordqa-output.json)" (walkthrough 10, #86).
    _refused("dataset generate", given, out, f"holds the output of `{GENERATED['view --export']}`")


def test_save_dataset_keeps_the_rule(tmp_path: Path) -> None:
    from coordqa.dataset import load_rows, save_dataset

    rows = load_rows("example")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<p>mine</p>\n", encoding="utf-8")
    with pytest.raises(OutputPathError, match="holds files that are not a dataset"):
        save_dataset(rows, tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == ["index.html"]
    first = save_dataset(rows, tmp_path / "d")  # a dataset folder may be written again
    assert save_dataset(rows, first) == first


def test_an_unused_file_beside_keeps_safe_characters_and_never_names_a_taken_file(
    tmp_path: Path,
) -> None:
    """The file an advice names must be one ``--out`` accepts (walkthrough 16 #123-#125), and
    a name given by the user must not take it to another folder or need quoting."""
    from coordqa.outputs import MOST_FILE_TRIES, check_output_file, unused_file_beside

    saved = tmp_path / "random-bundle.json"
    saved.write_text("{}")
    assert unused_file_beside(saved, ["Other"]) == tmp_path / "random-bundle-Other.json"
    hostile = unused_file_beside(saved, ["../../etc/x y", "$(rm -rf ~)"])
    assert hostile == tmp_path / "random-bundle-etc-x-y-rm-rf.json", hostile
    assert unused_file_beside(saved, ["/"]) == tmp_path / "random-bundle-new.json"
    (tmp_path / "random-bundle-Other.json").write_text("{}")
    second = unused_file_beside(saved, ["Other"])
    assert second == tmp_path / "random-bundle-Other-2.json"
    assert check_output_file(second) == second
    for number in range(2, MOST_FILE_TRIES + 1):
        (tmp_path / f"random-bundle-Other-{number}.json").write_text("{}")
    assert unused_file_beside(saved, ["Other"]) is None


@pytest.mark.parametrize("stop", [ValueError("a bug"), KeyboardInterrupt()])
def test_a_writer_stopped_halfway_leaves_the_earlier_output_whole(
    stop: BaseException, tmp_path: Path
) -> None:
    """Walkthrough 23, h23j: the earlier output was removed before the writer wrote, and Ctrl-C
    (not an Exception) left the new output's first files. Now the writer writes beside the
    folder, and only a finished output replaces the earlier one."""
    folder = tmp_path / "out"
    with generated_output(folder, QA_REPORT) as root:
        (root / "sub").mkdir()
        (root / "sub" / "a.csv").write_text("earlier\n", encoding="utf-8")
        (root / "report.md").write_text("earlier\n", encoding="utf-8")
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = _tree(tmp_path)
    with pytest.raises(RunInterrupted if isinstance(stop, KeyboardInterrupt) else ValueError) as e:
        with generated_output(folder, QA_REPORT) as root:
            (root / "report.md").write_text("new\n", encoding="utf-8")
            raise stop
    if isinstance(stop, KeyboardInterrupt):
        assert str(e.value) == (
            f"interrupted: nothing was written to {folder}; the earlier report there is kept"
        )
    assert _tree(tmp_path) == before  # no staging folder left either
    with generated_output(folder, QA_REPORT) as root:
        (root / "report.md").write_text("new\n", encoding="utf-8")
        assert in_output([root / "report.md"], root, folder) == [folder / "report.md"]
    assert sorted(p.name for p in folder.iterdir()) == [OUTPUT_MARKER, "notes.txt", "report.md"]
    assert (folder / "report.md").read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_staging_folder_left_by_a_killed_writer_is_removed_by_the_next(tmp_path: Path) -> None:
    """A writer killed outright (SIGKILL: no ``finally``) left its hidden staging folder
    ``.out.coordqa-partial-PID`` beside the output for good. The next writer of that folder
    removes the staging folders of processes that are gone, and keeps a live writer's."""
    import subprocess
    import sys

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    dead = tmp_path / f".out{STAGING}{int(gone.stdout)}"
    (dead / "sub").mkdir(parents=True)
    (dead / "sub" / "half.html").write_text("half\n", encoding="utf-8")
    live = tmp_path / f".out{STAGING}{os.getppid()}"  # a process that is running
    live.mkdir()
    other = tmp_path / f".other{STAGING}{int(gone.stdout)}"  # another folder's: not this writer's
    other.mkdir()
    with generated_output(tmp_path / "out", QA_REPORT) as root:
        (root / "report.md").write_text("new\n", encoding="utf-8")
    assert not dead.exists() and live.is_dir() and other.is_dir()


def test_a_sigterm_while_writing_keeps_the_earlier_output_and_leaves_no_staging(
    tmp_path: Path,
) -> None:
    """Walkthrough 26a, R1: ``timeout 120 coordqa view runs/ --export site`` ended by its
    SIGTERM died with no word and left ``.site.coordqa-partial-PID`` (207 MB) beside the
    output. A SIGTERM is a Ctrl-C there: the earlier output is kept, the line says so, and the
    staging folder is removed."""
    import signal

    folder = tmp_path / "out"
    with generated_output(folder, QA_REPORT) as root:
        (root / "report.md").write_text("earlier\n", encoding="utf-8")
    before = _tree(tmp_path)
    handler = signal.getsignal(signal.SIGTERM)  # whatever an earlier test left (Ray's)
    with pytest.raises(RunInterrupted) as stopped:
        with generated_output(folder, QA_REPORT) as root:
            (root / "report.md").write_text("new\n", encoding="utf-8")
            signal.raise_signal(signal.SIGTERM)
    assert str(stopped.value) == (
        f"interrupted: nothing was written to {folder}; the earlier report there is kept"
    )
    assert _tree(tmp_path) == before
    assert signal.getsignal(signal.SIGTERM) is handler  # given back as it was
