"""``agentic run`` and ``grid`` check every option and the run folder before drawing anything.

A bad model argument (``bot?foo=1``) or a folder holding another run drew an empty progress
bar (``episodes 0/1``) before the error; the error is now the only thing said.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import coordqa

SELF_PLAY = ["--agent", "cac", "--game", "collab_escape", "--self-play", "--episodes", "1"]


def _no_bar(stderr: str) -> bool:
    return not any(line.lstrip().startswith("episodes") for line in stderr.splitlines())


def test_a_bad_model_argument_is_said_without_a_bar(tmp_path: Path) -> None:
    out = tmp_path / "run"
    refused = coordqa("agentic", "run", *SELF_PLAY, "--model", "bot?foo=1", "--out", out)
    assert refused.returncode == 2
    assert "unknown argument(s) foo" in refused.stderr
    assert _no_bar(refused.stderr), refused.stderr
    assert not out.exists()


def test_a_folder_holding_another_run_is_said_without_a_bar(tmp_path: Path) -> None:
    spec = tmp_path / "grid.yaml"
    spec.write_text(
        "agents: [cac]\nmodels: [scripted]\ngames: [{game: collab_escape, seeds: [0]}]\n"
    )
    out = tmp_path / "g"
    assert coordqa("agentic", "grid", spec, "--out", out).returncode == 0
    other = coordqa("agentic", "grid", spec, "--agent", "hm", "--out", out)
    assert other.returncode == 2
    assert "different configuration (agents: stored cac, requested hm)" in other.stderr
    assert _no_bar(other.stderr), other.stderr
