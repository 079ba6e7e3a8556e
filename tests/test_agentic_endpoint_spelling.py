"""A resumed agentic run at its endpoint spelled with a trailing ``/`` is the same run.

Walkthrough 19 #196 to #198: ``agentic run ... --api-base http://127.0.0.1:PORT/v1/`` on a run
made at ``.../v1`` was refused with ``api_base: stored 'http://127.0.0.1:PORT/v1', requested
'http://127.0.0.1:PORT/v1'`` (two identical strings), while ``coordqa eval`` resumed it as the
same endpoint. One rule says when two endpoints are one
(:func:`coordqa.llm.endpoints.endpoint_address`), for both; and no refusal shows a setting's
two values as one string.
"""

from __future__ import annotations

from pathlib import Path

from test_evaluate_support import answers

from coordqa.agentic import GridConfig, run_grid
from coordqa.llm.testing import LocalOpenAIServer
from coordqa.store import RunManifest, open_run


def _grid(api_base: str, seeds: list[int]) -> GridConfig:
    return GridConfig(
        name="llm-grid",
        agents=["llm"],
        models=["openai/test-model"],
        api_base=api_base,
        games=[{"game": "hanabi", "seeds": seeds}],
    )


def test_a_trailing_slash_resumes_the_agentic_run(tmp_path: Path) -> None:
    out = tmp_path / "grid"
    with LocalOpenAIServer(answers()) as server:
        run_grid(_grid(server.base_url, [0]), out)
        resumed = run_grid(_grid(server.base_url + "/", [0, 1]), out)
        assert resumed.resumed == 1 and len(resumed.played) == 1
        # the session that played records its settings as asked, as eval's does; either
        # spelling still resumes the run
        assert open_run(out).manifest.config["api_base"] == server.base_url + "/"
        again = run_grid(_grid(server.base_url, [0, 1]), out)
    assert again.resumed == 2 and not again.played


def test_a_refusal_never_shows_two_identical_values() -> None:
    base = "http://127.0.0.1:18601/v1"
    stored = RunManifest(kind="agentic", config={"api_base": base, "x": 1}, fingerprint="f")
    asked = RunManifest(kind="agentic", config={"api_base": base + "/", "x": 2}, fingerprint="f")
    assert stored.mismatches(asked) == ["x: stored 1, requested 2"]  # one endpoint: no line
    long = "a" * 80
    stored = RunManifest(kind="agentic", config={"note": long + "1"}, fingerprint="f")
    asked = RunManifest(kind="agentic", config={"note": long + "2"}, fingerprint="f")
    (line,) = stored.mismatches(asked)
    said_stored, said_asked = line.removeprefix("note: stored ").split(", requested ")
    assert said_stored != said_asked, line
