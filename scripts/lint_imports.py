"""Check coordqa's layering with import-linter (the contracts in pyproject.toml).

The tracks ``scenarios/``, ``agentic/`` and ``leaderboard/`` sit at the top of the repository
but are installed as ``coordqa.scenarios`` and so on. import-linter finds a package's
modules by walking its folder, so it would not see them; this script lays the package out as it is
installed (a temporary folder of symbolic links to this checkout), puts it first on the path and
runs ``lint-imports``. Exit status: that of ``lint-imports`` (0: every contract kept).

    python scripts/lint_imports.py            # extra arguments go to lint-imports (--verbose)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def installed_layout(target: Path) -> Path:
    """Build ``target/coordqa`` as installed (links to this checkout); return ``target``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    folders = config["tool"]["setuptools"]["package-dir"]
    package = target / "coordqa"
    package.mkdir()
    for entry in (ROOT / folders["coordqa"]).iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, folder in folders.items():
        if name != "coordqa":
            (package / name.removeprefix("coordqa.")).symlink_to(ROOT / folder)
    return target


def lint_imports() -> str:
    """The ``lint-imports`` command of this Python (the ``test`` extra installs it)."""
    here = Path(sys.executable).parent
    found = shutil.which("lint-imports", path=os.pathsep.join([str(here), os.environ["PATH"]]))
    if found is None:
        raise SystemExit("lint-imports is not installed: pip install -e '.[test]'")
    return found


def check(layout: Path, arguments: list[str]) -> subprocess.CompletedProcess[str]:
    """Run lint-imports on ``layout`` (from :func:`installed_layout`); its output is captured."""
    command = [lint_imports(), "--config", str(ROOT / "pyproject.toml"), "--no-cache", *arguments]
    path = os.pathsep.join([str(layout), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run(command, cwd=layout, env=env, capture_output=True, text=True, check=False)


def main(arguments: list[str]) -> int:
    """Run lint-imports on the installed layout, print its report; return its exit status."""
    with tempfile.TemporaryDirectory(prefix="coordqa-lint-imports-") as folder:
        done = check(installed_layout(Path(folder)), arguments)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
