"""Plugins installed as pip leaves them, for tests that drive coordqa in fresh processes.

A plugin package under ``tests/plugins/`` is "installed" by a ``.dist-info`` folder holding its
``entry_points.txt`` on the path of the processes a test starts; no coordqa file names it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

PLUGINS = Path(__file__).parent / "plugins"
CLI = [sys.executable, "-c", "from coordqa.cli import main; main()"]


def installed_env(site: Path, distribution: str, entry_points: str) -> dict[str, str]:
    """The environment of a process that has ``distribution`` installed with ``entry_points``."""
    dist = site / f"{distribution.replace('-', '_')}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(entry_points)
    path = os.pathsep.join(filter(None, [str(site), str(PLUGINS), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def installed_fixture(
    distribution: str, entry_points: str
) -> Callable[[pytest.TempPathFactory], dict[str, str]]:
    """A module-scoped fixture ``installed``: the environment of a process that has
    ``distribution`` installed with ``entry_points``."""

    @pytest.fixture(scope="module")
    def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
        return installed_env(tmp_path_factory.mktemp("site"), distribution, entry_points)

    return installed


def run_process(env: dict[str, str], command: list[str]) -> str:
    """Run ``command`` in a fresh process; return its stdout (a failure shows stderr)."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def coordqa(env: dict[str, str], *args: str) -> str:
    """Run the CLI in a fresh process; return its stdout (a failure shows stderr)."""
    return run_process(env, [*CLI, *args])


def coordqa_refused(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a fresh process that must fail; return the finished process."""
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode != 0, f"coordqa {' '.join(args)} did not fail:\n{done.stdout}"
    return done
