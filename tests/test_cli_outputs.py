"""Output paths of every command: a path of the wrong kind, under a file or not writable is one
``error:`` line naming the option and the path, exit status 2, nothing run or written.

Before, each of these ran its work and then crashed on the write with a traceback
(``FileExistsError``, ``IsADirectoryError``, pyarrow's ``Failed to open local file``), exit 1.
The rules live in :mod:`coordqa.outputs`; the library's writers raise the same typed error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import coordqa, parse_command
from test_upstream import upstream_records, write_csv

from coordqa.errors import OutputPathError
from coordqa.outputs import (
    check_output_file,
    check_output_folder,
    make_output_file,
    make_output_folder,
)

GRID = """\
name: outputs-test
version: 1
agents: [cac]
partners: [capture-greedy]
games:
  - game: collab_capture
    seeds: [0]
"""
"""One scripted episode: the smallest grid ``agentic grid`` plays."""

FOLDER_OUTPUTS = {
    "eval": ["eval", "--model", "random", "--limit", "2", "--out", "{out}"],
    "agentic run": [
        "agentic",
        "run",
        "--agent",
        "cac",
        "--model",
        "scripted",
        "--game",
        "collab_capture",
        "--partner",
        "capture-greedy",
        "--seeds",
        "0",
        "--out",
        "{out}",
    ],  # fmt: skip
    "agentic grid": ["agentic", "grid", "{grid}", "--model", "scripted", "--out", "{out}"],
    "agentic report": ["agentic", "report", "{agentic}", "--out", "{out}"],
    "eval-set": ["eval-set", "--model", "random", "--limit", "2", "--out", "{out}"],
    "play": ["play", "hanabi", "--episodes", "1", "--out", "{out}"],
    "report": ["report", "{qa}", "--out", "{out}"],
    "view --export": ["view", "{qa}", "--export", "{out}"],
    "dataset generate": [
        "dataset",
        "generate",
        "--game",
        "hanabi",
        "--count",
        "1",
        "--seed",
        "0",
        "--out",
        "{out}",
    ],  # fmt: skip
    "dataset build": ["dataset", "build", "--out", "{out}"],
    "dataset import-upstream": ["dataset", "import-upstream", "{csv}", "--out", "{out}"],
    "leaderboard export": ["leaderboard", "export", "--db", "{db}", "--out", "{out}"],
    "leaderboard worker": [
        "leaderboard",
        "worker",
        "--db",
        "{db}",
        "--once",
        "--work-dir",
        "{out}",
    ],  # fmt: skip
}
"""Every command that writes into a folder it is given, with inputs that let it run."""

FILE_OUTPUTS = {
    "submit": ["submit", "{full}", "--out", "{out}"],
    "results csv": ["results", "{qa}", "--format", "csv", "--out", "{out}"],
    "results parquet": ["results", "{qa}", "--format", "parquet", "--out", "{out}"],
}
"""Every command that writes one file it is given."""

UNDER_A_FILE = "under afile, which is a file"
WRONG_FOR_A_FOLDER = [("afile", "is a file, not a folder"), ("afile/sub", UNDER_A_FILE)]
"""Folder outputs that cannot be folders (``afile`` is a file), and what the error says."""
WRONG_FOR_A_FILE = [("empty", "is a folder, not a file"), ("afile/x.out", UNDER_A_FILE)]
"""File outputs that cannot be files (``empty`` is a folder), and what the error says."""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Runs, a grid, a CSV and a board that the commands read (made once for the module)."""
    return make_inputs(tmp_path_factory.mktemp("inputs"))


def make_inputs(root: Path) -> dict[str, str]:
    """Make in ``root`` the inputs the commands read; their paths, and the board's URL."""
    made = {
        "qa": root / "qa",
        "full": root / "full",
        "agentic": root / "agentic",
        "grid": root / "grid.yaml",
        "csv": write_csv(root / "upstream.csv", upstream_records()),
    }
    for args in (
        ["eval", "--model", "random", "--limit", "2", "--out", made["qa"]],
        ["eval", "--model", "random", "--out", made["full"]],
        [*FOLDER_OUTPUTS["agentic run"][:-1], made["agentic"]],
    ):
        assert coordqa(*args, cwd=root).returncode == 0
    made["grid"].write_text(GRID, encoding="utf-8")
    from coordqa.leaderboard.db import open_database

    board = f"sqlite:///{root / 'board.db'}"
    open_database(board).dispose()
    return {**{name: str(path) for name, path in made.items()}, "db": board}


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    """A working directory with ``afile`` (a file) and ``empty/`` (an empty folder)."""
    (tmp_path / "afile").write_text("keep me\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    yield tmp_path


def _command(template: list[str], inputs: dict[str, str], out: str) -> list[str]:
    return [word.format(out=out, **inputs) for word in template]


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every path under ``folder`` and a file's content: what a refused command must not change."""
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else "/"
        for path in sorted(folder.rglob("*"))
    }


def _assert_refused(args: list[str], workdir: Path, option: str, path: str, says: str) -> None:
    before = _tree(workdir)
    result = coordqa(*args, cwd=workdir)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {option} {path} ")
    assert says in line
    assert _tree(workdir) == before  # nothing written, not even a folder


def _option(template: list[str]) -> str:
    return template[template.index("{out}") - 1]


WRONG_PATHS = [
    *[(command, path, says) for command in FOLDER_OUTPUTS for path, says in WRONG_FOR_A_FOLDER],
    *[(command, path, says) for command in FILE_OUTPUTS for path, says in WRONG_FOR_A_FILE],
]
"""Each command with each path it cannot write to, and what its error must say."""


@pytest.mark.parametrize(("command", "path", "says"), WRONG_PATHS)
def test_an_output_that_cannot_be_written_is_refused_before_any_work(
    command: str, path: str, says: str, inputs: dict[str, str], workdir: Path
) -> None:
    template = {**FOLDER_OUTPUTS, **FILE_OUTPUTS}[command]
    _assert_refused(_command(template, inputs, path), workdir, _option(template), path, says)


@pytest.mark.parametrize("command", FILE_OUTPUTS, ids=list(FILE_OUTPUTS))
def test_a_file_output_in_missing_folders_creates_them(
    command: str, inputs: dict[str, str], workdir: Path
) -> None:
    result = coordqa(*_command(FILE_OUTPUTS[command], inputs, "new/deeper/out.file"), cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert (workdir / "new" / "deeper" / "out.file").stat().st_size > 0


@pytest.mark.parametrize("command", ["report", "results csv"])
def test_an_output_in_a_folder_that_is_not_writable_is_refused(
    command: str, inputs: dict[str, str], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = workdir / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    if _is_root():  # root writes anywhere: deny it as the kernel denies any other user
        import coordqa.outputs

        real_access = coordqa.outputs.os.access
        monkeypatch.setattr(
            coordqa.outputs.os,
            "access",
            lambda path, mode: Path(path).resolve() != locked and real_access(path, mode),
        )
    template = {**FOLDER_OUTPUTS, **FILE_OUTPUTS}[command]
    try:
        _assert_refused(
            _command(template, inputs, "locked/out"),
            workdir,
            _option(template),
            "locked/out",
            "the folder locked is not writable (permission denied)",
        )
    finally:
        locked.chmod(0o755)


def _is_root() -> bool:
    import os

    return os.geteuid() == 0


def test_the_check_runs_when_the_command_line_is_parsed(workdir: Path) -> None:
    """No command starts with a bad output: the option itself is refused (as a bad --limit)."""
    with pytest.raises(OutputPathError, match="--out afile is a file"):
        parse_command("report", "runs", "--out", "afile", cwd=workdir)
    with pytest.raises(OutputPathError, match="--out empty is a folder"):
        parse_command("results", "runs/x", "--out", "empty", cwd=workdir)


def test_the_library_writers_raise_the_typed_error(workdir: Path) -> None:
    """The Python API gets the same clear error as the command line, naming no option."""
    afile, empty = workdir / "afile", workdir / "empty"
    with pytest.raises(OutputPathError, match="the output folder .*afile is a file"):
        make_output_folder(afile)
    with pytest.raises(OutputPathError, match="the output file .*empty is a folder"):
        make_output_file(empty)
    with pytest.raises(OutputPathError, match="under .*afile, which is a file"):
        check_output_folder(afile / "sub")
    with pytest.raises(OutputPathError, match="under .*afile, which is a file"):
        check_output_file(afile / "x.csv")
    assert make_output_folder(workdir / "a" / "b").is_dir()
    assert make_output_file(workdir / "c" / "d.csv").parent.is_dir()
    with pytest.raises(OutputPathError, match="afile exists: give a new file name"):
        check_output_file(afile)  # an existing file is never replaced
    assert check_output_folder(empty) == empty  # an existing folder is written into

    from coordqa.analysis import write_reports
    from coordqa.store import RunManifest, RunStore

    with pytest.raises(OutputPathError, match="is a file, not a folder"):
        RunStore.create(afile, RunManifest(kind="qa", config={}, fingerprint="f"))
    with pytest.raises(OutputPathError, match="is a file, not a folder"):
        write_reports([], afile)
    assert (afile.read_text(), list(empty.iterdir())) == ("keep me\n", [])


STOPPED_AT = {
    "view --export": ("coordqa.viewer.pages.run_page", "export"),
    "report": ("coordqa.analysis.figures.plot_accuracy_by_type", "report"),
    "agentic report": ("coordqa.agentic.report.plot_report", "report"),
    "leaderboard export": ("coordqa.leaderboard.site.render_agentic", "export"),
}
"""Each generated-output command, a function it calls after writing some files, and what its
output is called in the interrupted line."""


def _ctrl_c(*_args: object, **_kwargs: object) -> None:
    raise KeyboardInterrupt


def _sigterm(*_args: object, **_kwargs: object) -> None:
    """A SIGTERM (``timeout``, ``kill``), as the process gets it."""
    import signal

    signal.raise_signal(signal.SIGTERM)


STOPS = {"ctrl-c": _ctrl_c, "sigterm": _sigterm}
"""How a command is stopped: Ctrl-C, and SIGTERM (walkthrough 26a: it died with no word and left
its staging folder)."""


READING = {
    "view --export": "coordqa.viewer.runs.RunCatalog.read_all",
    "report": "coordqa.analysis.compare_by_dataset",
    "agentic report": "coordqa.agentic.report.pool_episodes",
    "leaderboard export": "coordqa.leaderboard.site.export_site",
}
"""Each generated-output command, and a function it calls before it writes anything."""


@pytest.mark.parametrize("stop", STOPS)
@pytest.mark.parametrize("command", READING)
def test_a_ctrl_c_before_an_output_is_written_says_so(
    command: str,
    stop: str,
    inputs: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walkthrough 24 #215: Ctrl-C 2 s into ``view --export`` (reading the runs) exited 130 with
    no word; at 8 s the export's own line came. It is the same line from the start."""
    out = tmp_path / "out"
    with monkeypatch.context() as patch:
        patch.setattr(READING[command], STOPS[stop])
        result = coordqa(*_command(FOLDER_OUTPUTS[command], inputs, str(out)), cwd=tmp_path)
    assert result.returncode == 130, result.stderr
    assert result.stderr == f"interrupted: nothing was written to {out}\n"
    assert not out.exists()


@pytest.mark.parametrize("stop", STOPS)
@pytest.mark.parametrize("command", STOPPED_AT)
def test_an_interrupted_output_keeps_the_earlier_one_whole(
    command: str,
    stop: str,
    inputs: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walkthrough 23: Ctrl-C during ``view --export`` exited 130 with no word and left an
    index linking to pages never written; over an earlier export it removed the earlier one
    first. The folder now holds the earlier output (and the user's files) untouched."""
    template = FOLDER_OUTPUTS[command]
    target, what = STOPPED_AT[command]
    fresh = tmp_path / "fresh"
    with monkeypatch.context() as patch:
        patch.setattr(target, STOPS[stop])
        result = coordqa(*_command(template, inputs, str(fresh)), cwd=tmp_path)
    assert result.returncode == 130, result.stderr
    assert result.stderr == f"interrupted: nothing was written to {fresh}\n"
    assert not fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no staging folder left

    out = tmp_path / "out"
    assert coordqa(*_command(template, inputs, str(out)), cwd=tmp_path).returncode == 0
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = _tree(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(target, STOPS[stop])
        result = coordqa(*_command(template, inputs, str(out)), cwd=tmp_path)
    assert result.returncode == 130, result.stderr
    assert result.stderr == (
        f"interrupted: nothing was written to {out}; the earlier {what} there is kept\n"
    )
    assert _tree(tmp_path) == before

    again = coordqa(*_command(template, inputs, str(out)), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert str(out) in again.stdout + again.stderr
    assert "partial" not in again.stdout + again.stderr
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("command", READING)
def test_a_ctrl_c_before_an_output_is_written_says_the_earlier_one_is_kept(
    command: str, inputs: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 26 (#127): Ctrl-C while ``view --export`` read its runs, over an earlier
    export, said only ``nothing was written to site``; as one while it writes, it says that the
    earlier export there is kept."""
    template = FOLDER_OUTPUTS[command]
    out = tmp_path / "out"
    assert coordqa(*_command(template, inputs, str(out)), cwd=tmp_path).returncode == 0
    what = STOPPED_AT[command][1]
    with monkeypatch.context() as patch:
        patch.setattr(READING[command], _ctrl_c)
        result = coordqa(*_command(template, inputs, str(out)), cwd=tmp_path)
    assert result.returncode == 130, result.stderr
    assert result.stderr == (
        f"interrupted: nothing was written to {out}; the earlier {what} there is kept\n"
    )
