"""A ``ray://`` address without the Ray Client, or with no cluster behind it, is one error line.

The walkthrough's ``--backend ray --address ray://...`` ended in Ray's traceback ("Ray Client
requires pip package ray[client]") from ``eval-set``, ``agentic grid`` and ``leaderboard worker
--ray-address``, and ``eval-set`` had already written its set manifest. Each command now says
what to install or check (exit 2) before it writes anything.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.leaderboard.db import open_database

pytest.importorskip("ray")

UNREACHABLE = "ray://127.0.0.1:18451"  # a port of this task's range where nothing listens


def _commands(tmp_path: Path) -> dict[str, list[str | Path]]:
    grid = tmp_path / "grid.yaml"
    grid.write_text(
        "agents: [cac]\nmodels: [scripted]\ngames: [{game: collab_escape, seeds: [0]}]\n"
    )
    set_out, grid_out = tmp_path / "set", tmp_path / "grid"
    board = f"sqlite:///{tmp_path / 'board.db'}"
    open_database(board).dispose()  # an empty board: the worker gets as far as Ray
    return {
        "eval-set": ["eval-set", "-m", "random", "--limit", "2", "--backend", "ray",
                     "--address", UNREACHABLE, "--out", set_out],
        "agentic grid": ["agentic", "grid", grid, "--backend", "ray", "--address", UNREACHABLE,
                         "--out", grid_out],
        "leaderboard worker": ["leaderboard", "worker", "--db", board, "--once",
                               "--ray-workers", "1", "--ray-address", UNREACHABLE],
    }  # fmt: skip


COMMANDS = ["eval-set", "agentic grid", "leaderboard worker"]


def _files(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` with its size (a run's folder or manifest shows up here)."""
    return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*")}


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_ray_address_without_the_ray_client_names_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setitem(sys.modules, "grpc", None)  # the Ray Client's package is missing
    args = _commands(tmp_path)[command]
    before = _files(tmp_path)
    done = coordqa(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    line = _one_error_line(done.stderr)
    assert "ray://" in line and "pip install 'coordqa[ray]'" in line, line
    assert _files(tmp_path) == before  # nothing written


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_an_unreachable_ray_address_is_said_and_leaves_nothing_behind(
    tmp_path: Path, command: str
) -> None:
    pytest.importorskip("grpc")  # the Ray Client is installed: Ray tries to connect (~30 s)
    args = _commands(tmp_path)[command]
    before = _files(tmp_path)
    done = coordqa(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    line = _one_error_line(done.stderr)
    assert f"no Ray cluster answered at {UNREACHABLE}" in line, line
    assert _files(tmp_path) == before


@pytest.mark.parametrize("form", ["ray://127.0.0.1:{port}", "127.0.0.1:{port}"])
def test_a_ray_address_where_nothing_listens_is_said_at_once(tmp_path: Path, form: str) -> None:
    """Walkthrough 30: a ray:// port that refuses at once was said after 31 s of silence (Ray's
    own retries), and a cluster's host:port was waited for forever (killed after 400 s), where
    a dead --api-base is said in under a second."""
    import time

    if form.startswith("ray://"):
        pytest.importorskip("grpc")
    from cli_support import closed_port

    with closed_port() as port:
        address = form.format(port=port)
        started = time.monotonic()
        done = coordqa(
            "eval-set", "-m", "random", "--limit", "2", "--backend", "ray", "--address", address,
            "--out", tmp_path / "set",
        )  # fmt: skip
        took = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    line = _one_error_line(done.stderr)
    assert f"no Ray cluster answered at {address}" in line and "refused" in line, line
    assert took < 15, took  # Ray's retries took about 30 s
