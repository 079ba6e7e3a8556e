"""coordqa.paths: one cache root and one data root, each moved by one variable."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from coordqa import paths
from coordqa.agentic.partners import paths as partner_paths
from coordqa.games.overcooked import engine
from coordqa.llm import default_cache_dir


def test_every_cache_is_a_folder_of_the_cache_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path / "responses"
    assert engine.cache_dir() == tmp_path / "overcooked"
    assert partner_paths.cache_dir() == tmp_path / "partners"


def test_user_data_is_a_folder_of_the_data_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coordqa.leaderboard.db import default_db_url

    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path))
    assert partner_paths.data_dir() == tmp_path / "partners"
    assert default_db_url() == f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"


def test_without_variables_the_user_directories_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COORDQA_CACHE_DIR", raising=False)
    monkeypatch.delenv("COORDQA_DATA_DIR", raising=False)
    assert paths.cache_root() == platformdirs.user_cache_path("coordqa")
    assert paths.data_root() == platformdirs.user_data_path("coordqa")
    assert engine.cache_dir() == platformdirs.user_cache_path("coordqa") / "overcooked"


def test_tests_never_reach_the_users_own_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest moves every user directory into a temporary home, even with no variable of ours."""
    from coordqa.leaderboard.db import default_db_url

    monkeypatch.delenv("COORDQA_CACHE_DIR", raising=False)
    monkeypatch.delenv("COORDQA_DATA_DIR", raising=False)
    real = [Path.home() / ".local" / "share", Path.home() / ".cache", Path.home() / ".config"]
    database = Path(default_db_url().removeprefix("sqlite:///"))
    for folder in (paths.cache_root(), paths.data_root(), database.parent):
        assert not any(folder.is_relative_to(user) for user in real), folder
    home = Path(os.environ["XDG_DATA_HOME"]).parent
    assert home.name.startswith("coordqa-test-home-")
    assert database.is_relative_to(home) and paths.cache_root().is_relative_to(home)
