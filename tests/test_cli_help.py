"""The command line as a newcomer meets it: help, version, and messages with nothing in the way.

The commands run in the test process (:mod:`cli_support`), but for the Gym banner, which only a
fresh process that imports the Overcooked engine could print.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import command_paths, coordqa as coordqa_cli
from typer.testing import CliRunner

import coordqa
from coordqa.cli import app

CLI = [sys.executable, "-c", "from coordqa.cli import main; main()"]
PYTHON_TYPE = re.compile(r"<(?:int|float|str|bool|path|Path|list\[\w+\])>")


def coordqa_process(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=env)


PATHS = list(command_paths())


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "coordqa")
def test_help_names_values_plainly_within_80_columns(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "-h"], terminal_width=80)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ")
    assert PYTHON_TYPE.findall(result.output) == []
    assert [line for line in result.output.splitlines() if len(line) > 80] == []
    usage = result.output.splitlines()[0]
    assert "{" not in usage, usage  # a required argument reads as its name (walk 6 #97)
    assert "``" not in result.output  # docstring markup, not help (walkthrough 27 #217, #221)
    assert "walkthrough" not in result.output  # the code's history, not help (walkthrough 28 #62)


def test_usage_writes_arguments_as_click_does() -> None:
    """Typer 0.29 writes a required argument ``{MODEL}``, which reads as a set of choices:
    required ``NAME``, optional ``[NAME]``, repeatable ``NAME...`` (walkthrough 6 #97)."""
    lines = {
        args: CliRunner().invoke(app, [*args, "-h"], terminal_width=80).output.splitlines()[0]
        for args in [("submit-endpoint",), ("eval-set",), ("score",), ("games", "show")]
    }
    assert lines == {
        ("submit-endpoint",): "Usage: coordqa submit-endpoint [OPTIONS] MODEL",
        ("eval-set",): "Usage: coordqa eval-set [OPTIONS] [SPEC_FILE]",
        ("score",): "Usage: coordqa score [OPTIONS] RUNS...",
        ("games", "show"): "Usage: coordqa games show [OPTIONS] GAME",
    }


def test_each_command_module_registers_the_commands_the_root_lists_for_it() -> None:
    from coordqa.cli import COMMAND_MODULES, registered_commands

    for module in set(COMMAND_MODULES.values()):
        listed = sorted(name for name, owner in COMMAND_MODULES.items() if owner == module)
        assert sorted(registered_commands(module)) == listed, module


COMMAND_MODULES_PROBE = """
import sys
from typer.testing import CliRunner
from coordqa.cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code == 0, result.output
print(sorted(m for m in sys.modules if m.startswith("coordqa.cli.") and not m[12:13] == "_"))
"""


@pytest.mark.parametrize(
    ("args", "modules"),
    [
        (["--help"], None),
        (["eval", "--help"], ["coordqa.cli.qa"]),
        (["agentic", "run", "--help"], ["coordqa.cli.agentic"]),
    ],
)
def test_a_command_imports_only_its_own_module(args: list[str], modules: list[str] | None) -> None:
    """``coordqa eval`` imported every command module, the agentic track's settings among them;
    the root's help lists every command, so it imports them all (none of them heavy)."""
    from coordqa.cli import COMMAND_MODULES

    done = subprocess.run(
        [sys.executable, "-c", COMMAND_MODULES_PROBE, *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    everyone = sorted({f"coordqa.cli.{m}" for m in COMMAND_MODULES.values()})
    assert done.stdout.strip() == str(modules or everyone)


def test_version_and_short_help() -> None:
    version = coordqa_cli("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"coordqa {coordqa.__version__}"
    short = coordqa_cli("eval", "-h")
    assert (
        short.returncode == 0
        and "--trials N" in short.stdout
        and "--model-arg KEY=VALUE" in (short.stdout)
    )


def test_overcooked_commands_print_no_gym_banner() -> None:
    result = coordqa_process("games", "show", "overcooked")
    assert result.returncode == 0, result.stderr
    assert "Gym" not in result.stderr and "Gym" not in result.stdout
    assert "Bob" in result.stdout  # the description itself is printed


def test_validating_the_example_explains_the_skipped_questions() -> None:
    result = coordqa_cli("dataset", "validate", "example")
    assert result.returncode == 0, result.stderr
    assert "12 of the 12 questions are hand-written, without a game snapshot" in result.stdout
    assert "only their structure" in result.stdout


def test_dataset_build_writes_only_where_it_is_told(tmp_path: Path) -> None:
    neither = coordqa_cli("dataset", "build")
    assert neither.returncode == 2 and "--out FOLDER" in neither.stderr
    both = coordqa_cli("dataset", "build", "--out", str(tmp_path), "--in-place")
    assert both.returncode == 2 and "Give one of the two" in both.stderr
    assert list(tmp_path.iterdir()) == []
