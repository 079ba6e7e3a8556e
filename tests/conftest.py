"""Shared fixtures. Every test gets its own response-cache directory, so nothing is written to
the user's cache and no test sees another's cached replies."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coordqa.llm import CACHE_DIR_ENV, CallPolicy
from coordqa.llm.testing import LocalOpenAIServer


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden`` rewrites the expected files under tests/golden/ instead of comparing."""
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite the expected files in tests/golden/"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Golden tests read COORDQA_UPDATE_GOLDEN, so the flag works in subprocesses too.

    The registries find coordqa's own agents and partners through the installed package's entry
    points; an editable install made before pyproject.toml gained one would fail the tests in a
    confusing way, so that is said first.
    """
    if config.getoption("--update-golden"):
        os.environ["COORDQA_UPDATE_GOLDEN"] = "1"
    missing = _entry_points_not_installed()
    if missing:
        raise pytest.UsageError(
            f"the installed coordqa lacks the entry points {', '.join(missing)} of "
            "pyproject.toml: reinstall it (pip install --no-deps -e .)"
        )


def _entry_points_not_installed() -> list[str]:
    from importlib import metadata

    import tomllib

    declared = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    missing = []
    for group, points in declared["project"].get("entry-points", {}).items():
        installed = {(p.name, p.value) for p in metadata.entry_points(group=group)}
        missing += [
            f"{group}:{name}" for name, value in points.items() if (name, value) not in installed
        ]
    return missing


@pytest.fixture(autouse=True)
def _isolated_cache_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point the default response cache at a fresh temporary directory."""
    directory = tmp_path_factory.mktemp("coordqa-cache")
    monkeypatch.setenv(CACHE_DIR_ENV, str(directory))
    return directory


@pytest.fixture
def fast_policy() -> CallPolicy:
    """A call policy with instant retries and short timeouts, for tests of failing calls."""
    return CallPolicy(
        timeout_s=2.0, max_attempts=4, max_total_s=30.0, backoff_initial_s=0.0, backoff_max_s=0.0
    )


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """A dummy OPENAI_API_KEY, so litellm 'openai/...' models pass Model.check()."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    return "sk-test-dummy"


@pytest.fixture
def local_server(openai_key: str) -> Iterator[LocalOpenAIServer]:
    """A running LocalOpenAIServer that answers 'Answer: A' (use base_url as api_base)."""
    with LocalOpenAIServer() as server:
        yield server


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """One throwaway PostgreSQL cluster for the whole session (leaderboard tests)."""
    from coordqa.leaderboard.testing import PostgresCluster

    with PostgresCluster() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty leaderboard database: a SQLite file, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    return str(request.getfixturevalue("pg_cluster").new_database())
