"""Packaging and layering rules that a refactor could silently break."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {
    "coordqa": "coordqa",
    "scenarios": "coordqa.scenarios",
    "agentic": "coordqa.agentic",
    "leaderboard": "coordqa.leaderboard",
    "viewer": "coordqa.viewer",
}


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = set()
    for folder, namespace in MAPPED.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((namespace, *relative)))
    assert found - listed == set(), "add these packages to [tool.setuptools] packages"


def test_core_never_imports_the_tracks() -> None:
    tracks = "agentic|scenarios|leaderboard|viewer"
    pattern = re.compile(rf"^\s*(from|import)\s+coordqa\.({tracks})", re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "coordqa").rglob("*.py")
        if "cli" not in path.relative_to(ROOT / "coordqa").parts
        and pattern.search(path.read_text())
    ]
    assert offenders == []


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
