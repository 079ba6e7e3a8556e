"""Shared fixtures. No test reads or writes the user's own folders or the checkout: every test
gets its own cache root and data root (``COORDQA_CACHE_DIR``, ``COORDQA_DATA_DIR``) and working
directory, so no test sees another's cached replies, leaderboard or runs, and the user directories
of every library (the XDG folders platformdirs, matplotlib and Hugging Face read) point into one
temporary home for the session."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import USER_DIR_VARIABLES

from coordqa.llm import CACHE_DIR_ENV, CallPolicy
from coordqa.llm.testing import LocalOpenAIServer
from coordqa.paths import DATA_DIR_ENV

_TEST_HOME = pytest.StashKey[Path]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden`` rewrites the expected files under tests/golden/ instead of comparing."""
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite the expected files in tests/golden/"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Move the user directories into a temporary home; ``--update-golden`` for subprocesses too.

    The variables are set before any test module is imported, so what a library reads once at
    import (Hugging Face's cache paths) and every subprocess a test starts see the temporary home
    as well. Golden tests read COORDQA_UPDATE_GOLDEN, so the flag works in subprocesses too.

    The registries find coordqa's own agents and partners through the installed package's entry
    points; an editable install made before pyproject.toml gained one would fail the tests in a
    confusing way, so that is said first.

    Ctrl-C is given back as a terminal's command has it: a shell's background job (``bash
    scripts/test.sh &``) starts with SIGINT ignored, every subprocess a test starts would inherit
    that, and the tests that send a child Ctrl-C would see it dropped.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    home = Path(tempfile.mkdtemp(prefix="coordqa-test-home-"))
    config.stash[_TEST_HOME] = home
    for variable in USER_DIR_VARIABLES:
        os.environ[variable] = str(home / variable.lower())
    if config.getoption("--update-golden"):
        os.environ["COORDQA_UPDATE_GOLDEN"] = "1"
    missing = _entry_points_not_installed()
    if missing:
        raise pytest.UsageError(
            f"the installed coordqa lacks the entry points {', '.join(missing)} of "
            "pyproject.toml: reinstall it (pip install --no-deps -e .)"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's temporary home."""
    home = config.stash.get(_TEST_HOME, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


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


def _fresh_root(
    env: str, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point the root folder named by environment variable ``env`` at a fresh temporary one."""
    directory = tmp_path_factory.mktemp(env.lower())
    monkeypatch.setenv(env, str(directory))
    return directory


@pytest.fixture(autouse=True)
def _isolated_cache_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point the cache root (the response cache among others) at a fresh temporary directory."""
    return _fresh_root(CACHE_DIR_ENV, tmp_path_factory, monkeypatch)


@pytest.fixture(autouse=True)
def _isolated_working_directory(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Run every test in a fresh empty folder: a command's default ``runs/`` lands there.

    Without it, a test that leaves ``--out`` out writes into the checkout, and the next run of
    that test, after a change, finds a run with another configuration there and fails.
    """
    directory = tmp_path_factory.mktemp("cwd")
    monkeypatch.chdir(directory)
    return directory


@pytest.fixture(autouse=True)
def _isolated_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point the data root (the default leaderboard database, trained partners) at a fresh one."""
    return _fresh_root(DATA_DIR_ENV, tmp_path_factory, monkeypatch)


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
    from leaderboard_support import PostgresCluster

    with PostgresCluster() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty leaderboard database: a SQLite file, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    return str(request.getfixturevalue("pg_cluster").new_database())
