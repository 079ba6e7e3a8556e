"""A Ctrl-C while the ``coordqa`` console script imports the command line.

Importing :mod:`coordqa.cli` (typer, rich) takes about 0.2 s; a Ctrl-C in that time printed
Python's KeyboardInterrupt traceback. It ends the command as a Ctrl-C does elsewhere: one line,
exit status 130.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from coordqa.errors import INTERRUPTED_EXIT, NOTHING_STARTED

SIGINT_ON_IMPORT = textwrap.dedent(
    """
    import os, signal, sys

    class CtrlC:  # a real SIGINT, as the terminal sends it, while coordqa.cli is imported
        def find_spec(self, name, path=None, target=None):
            if name == "coordqa.cli":
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, CtrlC())
    sys.argv = ["coordqa", "--help"]
    from coordqa._entry import main
    main()
    """
)


def test_ctrl_c_while_the_cli_imports_says_one_line_and_exits_130() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SIGINT_ON_IMPORT], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == INTERRUPTED_EXIT, done.stderr
    assert done.stderr == f"{NOTHING_STARTED}\n" and done.stdout == ""


def test_the_entry_point_runs_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a Ctrl-C it is :func:`coordqa.cli.main`, and imports nothing more before it."""
    import coordqa.cli
    from coordqa import _entry

    calls = []
    monkeypatch.setattr(coordqa.cli, "main", lambda: calls.append("main"))
    _entry.main()
    assert calls == ["main"]


def test_the_entry_point_imports_only_the_standard_library_itself() -> None:
    source = (
        "import sys; before = set(sys.modules); import coordqa._entry; "
        "print(*sorted(m for m in set(sys.modules) - before if m.startswith('coordqa')))"
    )
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.split())
    import_coordqa = subprocess.run(
        [sys.executable, "-c", source.replace("coordqa._entry", "coordqa")],
        capture_output=True,
        text=True,
    )
    assert imported == set(import_coordqa.stdout.split()) | {"coordqa._entry"}


SIGINT_WHEN_IMPORTED = textwrap.dedent(
    """
    import os, signal, sys

    module = sys.argv[1]

    class CtrlC:  # a real SIGINT while the command imports the module named first
        def find_spec(self, name, path=None, target=None):
            if name == module:
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, CtrlC())
    sys.argv = ["coordqa", *sys.argv[2:]]
    from coordqa._entry import main
    main()
    """
)

AGENTIC_RUN = (
    "agentic", "run", "--agent", "llm", "--model", "scripted", "--game", "collab_escape",
    "--self-play", "--episodes", "2",
)  # fmt: skip


@pytest.mark.parametrize(
    ("module", "command"),
    [
        ("coordqa.cli.agentic", AGENTIC_RUN),  # the command's module, before its options are read
        ("coordqa.agentic.presets", AGENTIC_RUN),  # the command's own imports
        ("coordqa.agentic.runner", AGENTIC_RUN),  # the grid checked, before its folder is made
        ("coordqa.agentic.grid_registry", ("agentic", "grid", "smoke", "--model", "scripted")),
        ("coordqa.cli.evalset", ("eval-set", "--model", "random", "--limit", "2")),
        ("coordqa.evalset", ("eval-set", "--model", "random", "--limit", "2")),
        ("coordqa.evaluation", ("eval", "--model", "random", "--limit", "2")),
    ],
)
def test_ctrl_c_while_a_run_starts_says_nothing_was_run_or_stored(
    module: str, command: tuple[str, ...], tmp_path: Path
) -> None:
    """Walkthrough 28, R2: Ctrl-C in the first second of ``agentic run``, ``agentic grid`` or
    ``eval-set`` (its module imported, its options or grid read) ended it with status 130 and no
    word, where ``eval`` said ``interrupted while starting: nothing was run or stored``; every
    one says that line now."""
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", SIGINT_WHEN_IMPORTED, module, *command, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == INTERRUPTED_EXIT, done.stderr
    assert done.stderr == f"{NOTHING_STARTED}\n" and done.stdout == ""
    assert not out.exists()


def test_a_ctrl_c_wrapped_by_a_class_being_made_is_said_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python 3.11 reports a Ctrl-C that lands while a dataclass is made as a RuntimeError
    whose cause is the KeyboardInterrupt; while a command's module is imported it reads as
    one."""
    from cli_support import coordqa

    from coordqa import cli

    def interrupted(module: str) -> None:
        raise RuntimeError("Error calling __set_name__") from KeyboardInterrupt()

    monkeypatch.setattr(cli, "registered_commands", interrupted)
    done = coordqa("eval", "--model", "random")
    assert done.returncode == INTERRUPTED_EXIT and done.stderr == f"{NOTHING_STARTED}\n"


def test_a_ctrl_c_once_the_command_began_is_its_own_to_say(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``coordqa view`` serving ends with Ctrl-C: that is no interruption while starting."""
    from cli_support import coordqa

    from coordqa.cli import view

    def stopped(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(view, "_serve", stopped)
    done = coordqa("view", tmp_path, "--port", "0")
    assert done.returncode == INTERRUPTED_EXIT and NOTHING_STARTED not in done.stderr


LEAVING_INTERRUPTED = """
import sys, threading
from coordqa.cli import main

def ctrl_c_at_exit():
    raise KeyboardInterrupt  # as a Ctrl-C landing while the process ends

threading._shutdown = ctrl_c_at_exit
sys.argv = ["coordqa", "dataset", "list"]
main()
"""


def test_a_ctrl_c_after_a_command_ended_leaves_its_status_and_output_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough 30: a Ctrl-C landing just after `eval` printed its whole output ended it with
    status 130 and no word (typer's silent Exit(130) after the command returned), or Python's
    traceback while the process ended. The command is done: its status stands."""
    from cli_support import coordqa
    from typer._click.core import Context

    close, landed = Context.close, []

    def ctrl_c_after(self: Context) -> None:
        if not landed:  # the command's own context closes first, once its code returned
            landed.append(self)
            raise KeyboardInterrupt
        close(self)

    monkeypatch.setattr(Context, "close", ctrl_c_after)
    done = coordqa("dataset", "list")
    assert landed and done.returncode == 0, done.stderr
    assert "coordinationqa-v1.2" in done.stdout and done.stderr == ""
    ending = subprocess.run(
        [sys.executable, "-c", LEAVING_INTERRUPTED], capture_output=True, text=True, timeout=120
    )
    assert ending.returncode == 0 and "coordinationqa-v1.2" in ending.stdout, ending.stderr
    assert "Traceback" not in ending.stderr


def test_a_ctrl_c_while_eval_prints_its_results_says_the_run_is_complete(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough 30 (#194): a Ctrl-C while the tables printed ended `eval` with 130, the
    tables cut and no line, though the run was complete and stored."""
    from cli_support import coordqa

    from coordqa.cli import qa

    def cut(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(qa, "show_result", cut)
    run = tmp_path / "run"
    done = coordqa("eval", "--model", "random", "--limit", "2", "--trials", "1", "--out", run)
    assert done.returncode == INTERRUPTED_EXIT, done.stderr
    said = " ".join(done.stderr.split())
    assert f"interrupted while its results were printed: the run in {run} is complete" in said
    assert f"coordqa score {run} prints its tables" in said
