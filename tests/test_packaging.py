"""Packaging and layering rules that a refactor could silently break."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
import tomllib
from source_tree import ROOT, source_packages

from coordqa.dataset.releases import RELEASES


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


def _package_dirs() -> dict[str, str]:
    """pyproject's package-dir: source folder -> the namespace it installs as."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {
        folder: namespace
        for namespace, folder in config["tool"]["setuptools"]["package-dir"].items()
    }


def _tracked_files() -> list[str]:
    """The checkout's tracked files (``git ls-files``); skips outside a git checkout."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("the wheel tests read the tracked files with git, and this is no git checkout")
    done = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [name for name in done.stdout.split("\0") if name]


def _installed_name(tracked: str) -> str | None:
    """Where a tracked file lands in the wheel (``scenarios/x`` -> ``coordqa/scenarios/x``), or
    None for a file outside the package folders."""
    for folder, namespace in _package_dirs().items():
        if tracked.startswith(folder + "/"):
            return namespace.replace(".", "/") + tracked[len(folder) :]
    return None


def _pip(*args: str) -> None:
    """Run pip quietly in this environment; fail the test with its output if it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", args[0], "-q", *args[1:]],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel ``pip install .`` would install, built once from a copy of the tracked files.

    Built from a copy, so nothing untracked (a stray file in the checkout) can hide a missing
    package-data pattern, and setuptools' build/ folder never lands in the checkout.
    """
    source = tmp_path_factory.mktemp("wheel-source")
    for name in _tracked_files():
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    _pip("wheel", "--no-deps", "--no-build-isolation", str(source), "-w", str(out))
    (wheel,) = out.glob("coordqa-*.whl")
    return wheel


def test_the_wheel_carries_every_tracked_file_of_the_package_folders(built_wheel: Path) -> None:
    """Data files (dataset changelogs, cards, templates, checkpoints) included: a package-data
    pattern that misses one is invisible to every test run from the source tree."""
    expected = {name for t in _tracked_files() if (name := _installed_name(t)) is not None}
    assert any(name.endswith("changelog.json") for name in expected)
    in_wheel = set(zipfile.ZipFile(built_wheel).namelist())
    assert sorted(expected - in_wheel) == []


@pytest.fixture(scope="module")
def installed_wheel(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed into a folder of its own (its dependencies are this environment's)."""
    target = tmp_path_factory.mktemp("installed")
    _pip("install", "--no-deps", "--no-index", "--target", str(target), str(built_wheel))
    return target


def _from_installed_wheel(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the wheel's ``coordqa`` script with the installed copy first on the path."""
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run(
        [str(target / "bin" / "coordqa"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_the_installed_wheel_is_the_coordqa_that_runs(installed_wheel: Path) -> None:
    """The check below would prove nothing if the checkout's editable install answered it."""
    done = subprocess.run(
        [sys.executable, "-c", "import coordqa; print(coordqa.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(installed_wheel)},
    )
    assert Path(done.stdout.strip()).is_relative_to(installed_wheel)


@pytest.mark.slow
@pytest.mark.parametrize("name", [r.name for r in RELEASES])
def test_every_bundled_release_validates_from_the_installed_wheel(
    installed_wheel: Path, name: str
) -> None:
    """The frozen releases are checked against the later releases' changelog.json, which the
    wheel must carry (it did not: ``pip install .`` then failed v1 and v1.1 with exit 2)."""
    done = _from_installed_wheel(installed_wheel, "dataset", "validate", name)
    assert done.returncode == 0, done.stdout + done.stderr
