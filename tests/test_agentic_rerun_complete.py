"""The command of a complete agentic run, given again with ``--timeout``, reports the run.

Walkthrough 23, item 1: ``coordqa agentic grid g-stub.yaml --out runs/g-stub --timeout 5``
completed, and the same command again exited 2 with ``this run's models (none) answer at once
inside coordqa: leave --timeout out``: the options were checked against the models of the
episodes still to play, none. They are checked against the run's models, as ``coordqa eval``
checks its model whether or not anything is left to do; the rerun plays nothing and reports
the run. A grid of one model that answers at once is still refused, complete or not.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import coordqa

from coordqa.llm.testing import LocalOpenAIServer


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_complete_grid_run_given_again_with_a_timeout_is_reported(tmp_path: Path) -> None:
    with LocalOpenAIServer(models=["my-model"]) as server:
        grid = tmp_path / "g-stub.yaml"
        grid.write_text(
            "name: g-stub\nagents: [cac]\nmodels: [openai/my-model]\n"
            f"api_base: {server.base_url}\npartners: [self]\n"
            "games:\n  - game: collab_escape\n    seeds: [0]\n"
        )
        out = tmp_path / "runs" / "g-stub"
        command = ["agentic", "grid", grid, "--out", out, "--timeout", "5"]
        first = coordqa(*command)
        assert first.returncode == 0, first.stderr
        again = coordqa(*command)
    assert again.returncode == 0, again.stderr
    said = _flat(again.stderr)
    assert "(none)" not in said
    assert f"run: {out} (0 played, 1 already done; 1 episode)" in said


def test_a_complete_agentic_run_given_again_with_a_timeout_is_reported(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "cac-mine"
    with LocalOpenAIServer(models=["my-model"]) as server:
        command = [
            "agentic", "run", "--agent", "cac", "--model", "openai/my-model",
            "--api-base", server.base_url, "--game", "collab_escape", "--self-play",
            "--episodes", "1", "--timeout", "5", "--out", out,
        ]  # fmt: skip
        first = coordqa(*command)
        assert first.returncode == 0, first.stderr
        again = coordqa(*command)
    assert again.returncode == 0, again.stderr
    assert f"run: {out} (0 played, 1 already done; 1 episode)" in _flat(again.stderr)


def test_a_complete_run_of_a_model_that_answers_at_once_still_refuses_a_timeout(
    tmp_path: Path,
) -> None:
    out = tmp_path / "runs" / "cac-scripted"
    command = [
        "agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_escape",
        "--self-play", "--episodes", "1", "--out", out,
    ]  # fmt: skip
    assert coordqa(*command).returncode == 0
    again = coordqa(*command, "--timeout", "5")
    assert again.returncode == 2
    assert "this run's models ('scripted') answer at once" in _flat(again.stderr)
