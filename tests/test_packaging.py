"""Packaging and layering rules that a refactor could silently break."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import tomllib
from source_tree import ROOT, source_packages


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = set(source_packages())
    assert found - listed == set(), "add these packages to [tool.setuptools] packages"


def _lint_imports() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lint_imports", ROOT / "scripts/lint_imports.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_import_contracts_are_kept() -> None:
    """The layering contracts of pyproject.toml (core never imports the tracks, nothing imports
    the CLI, the leaderboard uses only coordqa.agentic's public API, no import cycles)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/lint_imports.py")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert f"Contracts: {len(contracts['contracts'])} kept, 0 broken." in done.stdout


@pytest.mark.parametrize(
    ("modules", "contract"),
    [
        ({"_probe": "def f():\n    from coordqa.agentic import grid\n"}, "core never imports"),
        ({"_probe": "def f():\n    import coordqa.cli\n"}, "Nothing imports the CLI"),
        (
            {
                "_probe_a": "from coordqa import _probe_b\n",
                "_probe_b": "def f():\n    from coordqa import _probe_a\n",
            },
            "No import cycles",
        ),
    ],
)
def test_import_contracts_catch_a_violation(
    tmp_path: Path, modules: dict[str, str], contract: str
) -> None:
    """Each contract fails on modules that break it, added to a temporary copy of the layout."""
    lint = _lint_imports()
    layout = lint.installed_layout(tmp_path)
    for name, source in modules.items():
        (layout / "coordqa" / f"{name}.py").write_text(source)
    done = lint.check(layout, [])
    assert done.returncode != 0
    broken = done.stdout.split("Broken contracts", 1)[1]
    assert contract in broken, done.stdout


def test_help_and_offline_paths_do_not_import_heavy_libraries() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from coordqa.cli import app\n"
        "result = CliRunner().invoke(app, ['--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "import coordqa, coordqa.games\n"
        "heavy = {'litellm', 'torch', 'ray', 'overcooked_ai_py',\n"
        "         'hanabi_learning_environment', 'fastapi'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert output.stdout.strip() == "[]"
