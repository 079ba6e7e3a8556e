"""The repository's source folders and the packages they hold (helpers for tests; no tests here)."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def source_packages() -> list[str]:
    """Every package of the distribution, found from the folders (nothing imported), sorted.

    The folders and their namespaces are pyproject's ``[tool.setuptools.package-dir]``
    (``leaderboard/`` installs as ``coordqa.leaderboard``); a package is a folder with an
    ``__init__.py``.
    """
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    found = set()
    for namespace, folder in config["tool"]["setuptools"]["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((namespace, *relative)))
    return sorted(found)
