"""The agentic track: bundles of agentic runs, verification by replay, its own ranking page."""

from __future__ import annotations

import copy
import json
import re
import shlex
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import coordqa
from leaderboard_support import bc_grid, seal, shipped_and_retrained_bc
from typer.testing import CliRunner

from coordqa.agentic import load_agentic_run, registered_grids
from coordqa.agentic.grid import parse_grid
from coordqa.agentic.runner import run_grid
from coordqa.cli import app
from coordqa.leaderboard import bundle as bundle_module
from coordqa.leaderboard.bundle import BundleError, build_bundle
from coordqa.leaderboard.catalog import register_grid
from coordqa.leaderboard.server import create_app
from coordqa.leaderboard.site import export_site
from coordqa.leaderboard.tokens import create_token

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


GRID = {
    "name": "collab-small",
    "partners": ["self"],
    "games": [
        {"game": "collab_capture", "seeds": [0, 1]},
        {"game": "collab_escape", "seeds": [0]},
    ],
}


def _grid(out: Path, agents: list[str], model: str = "scripted") -> Path:
    result = run_grid(parse_grid({**GRID, "agents": agents, "models": [model]}), out)
    assert result.complete, result.failures
    return out


@pytest.fixture(scope="module")
def agentic_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _grid(tmp_path_factory.mktemp("agentic") / "run", ["cac"])


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    application = create_app(f"sqlite:///{tmp_path / 'lb.sqlite3'}")
    token = create_token(application.state.db, "agentic")
    (tmp_path / "grid.yaml").write_text(json.dumps({**GRID, "agents": ["cac"]}))
    register_grid(application.state.db, tmp_path / "grid.yaml")
    with TestClient(application) as test_client:
        yield test_client, {"Authorization": f"Bearer {token}"}
    application.state.db.dispose()


def _post(client: tuple[TestClient, dict[str, str]], bundle: dict[str, Any]) -> Any:
    test_client, headers = client
    return test_client.post("/api/submissions", content=json.dumps(bundle), headers=headers)


def test_agentic_run_is_replayed_and_ranked_on_its_own_tab(
    agentic_run: Path, client: tuple[TestClient, dict[str, str]]
) -> None:
    bundle = build_bundle(agentic_run, display_name="CAC <scripted>")
    assert bundle["track"] == "agentic" and len(bundle["episodes"]) == 3
    first, again = _post(client, bundle), _post(client, copy.deepcopy(bundle))
    assert first.status_code == 201, first.text
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    # walkthrough 6 #246: the same episodes played into another folder (another manifest)
    # were refused as "the same run under another name or details"; they are that entry
    elsewhere = copy.deepcopy(bundle)
    elsewhere["manifest"]["command"] += ["--backend", "ray"]
    moved = _post(client, seal(elsewhere))
    assert moved.status_code == 200 and moved.json()["id"] == first.json()["id"], moved.text
    elsewhere["model"]["organisation"] = "Lab"
    refused = _post(client, seal(elsewhere))
    assert refused.status_code == 409, refused.text
    assert refused.json()["detail"].endswith("differs in organisation 'Lab' (the entry's: none)")
    test_client = client[0]
    board = test_client.get("/api/agentic/entries").json()
    stored = load_agentic_run(agentic_run, with_exchanges=False)
    capture = [e.score for e in stored if e.spec.game == "collab_capture"]
    [entry] = board["entries"]
    assert entry["collab_capture/self"] == pytest.approx(sum(capture) / len(capture))
    assert entry["collab_capture/self_n"] == 2 and entry["episodes"] == 3
    assert [c["key"] for c in board["columns"]] == ["collab_capture/self", "collab_escape/self"]
    assert entry["verification"] == "episodes replayed" and entry["model_name"] == "cac[scripted]"
    assert test_client.get("/api/entries").json()["entries"] == []  # not in the QA ranking
    page = test_client.get("/agentic").text
    assert "CAC &lt;scripted&gt;" in page and "CAC <scripted>" not in page
    assert 'aria-current="page">Agentic play' in page
    detail = test_client.get(f"/submissions/{entry['id']}").text
    assert all(e.key in detail for e in stored)


def test_a_hidden_agentic_entry_resent_is_said_to_be_hidden(
    agentic_run: Path, client: tuple[TestClient, dict[str, str]]
) -> None:
    """Walkthrough 9: the agentic track answers a resent hidden entry as the QA track does."""
    bundle = build_bundle(agentic_run, display_name="CAC hidden")
    first = _post(client, bundle).json()["id"]
    client[0].app.state.db.set_hidden(first, True, None)  # type: ignore[attr-defined]
    again = _post(client, copy.deepcopy(bundle))
    assert again.status_code == 200 and again.json()["id"] == first
    assert again.json()["hidden"] is True and again.json()["hidden_reason"] is None


def test_tampered_scores_and_moves_fail_the_replay(
    agentic_run: Path, client: tuple[TestClient, dict[str, str]]
) -> None:
    bundle = build_bundle(agentic_run)
    scored = copy.deepcopy(bundle)
    scored["episodes"][0]["score"] = 99.0
    answer = _post(client, seal(scored))
    assert answer.status_code == 422
    assert (
        scored["episodes"][0]["key"] in answer.json()["detail"]
        and "99.0" in answer.json()["detail"]
    )
    moved = copy.deepcopy(bundle)
    step = moved["episodes"][0]["trajectory"]["steps"][0]
    step["executed"]["0"] = "Move to Room 9"  # not a legal move from the first room
    answer = _post(client, seal(moved))
    assert answer.status_code == 422 and "replay" in answer.json()["detail"]
    twice = copy.deepcopy(bundle)
    twice["episodes"].append(twice["episodes"][0])
    answer = _post(client, seal(twice))
    assert answer.status_code == 422 and "more than once" in answer.json()["detail"]
    broken = copy.deepcopy(bundle)
    del broken["episodes"][1]["spec"]
    answer = _post(client, seal(broken))
    assert answer.status_code == 422 and answer.json()["detail"].startswith("episodes.1:")
    assert client[0].get("/api/agentic/entries").json()["entries"] == []


@pytest.mark.parametrize("model", ["bot", "bot?noise=0.5"])
def test_a_run_of_the_bot_model_is_never_ranked(
    model: str,
    tmp_path: Path,
    client: tuple[TestClient, dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bot answers from the game's strong policy: a measure of the pipeline, not of a model.

    ``submit --out`` wrote a bundle of a bot run without a word, which the board then refused
    (walkthrough 11, #167): the builder refuses it first, in the board's words, and writes
    nothing; a bundle made by other means is still refused by the board."""
    run = _grid(tmp_path / "run", ["llm"], model)
    refused = f"model {model!r} plays from the game's own strong policy"
    for destination in ("file", "board"):
        with pytest.raises(BundleError, match=re.escape(refused)):
            build_bundle(run, destination=destination)
    out = tmp_path / "bot-bundle.json"
    said = coordqa("submit", str(run), "--out", str(out))
    assert said.returncode == 2 and refused in " ".join(said.stderr.split()) and not out.exists()
    with monkeypatch.context() as patched:  # a bundle built by another tool, unchecked
        patched.setattr(bundle_module, "unrankable_problem", lambda _model: None)
        forged = build_bundle(run)
    answer = _post(client, forged)
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith(refused) and "never ranked" in answer.json()["detail"]
    assert client[0].get("/api/agentic/entries").json()["entries"] == []


def test_a_run_with_two_agents_is_refused(tmp_path: Path) -> None:
    run = _grid(tmp_path / "run", ["cac", "llm"])
    with pytest.raises(BundleError, match="tests 2 agents/models"):
        build_bundle(run)


def test_cli_submit_out_and_static_export(
    agentic_run: Path, client: tuple[TestClient, dict[str, str]], tmp_path: Path
) -> None:
    out = tmp_path / "bundle.json"
    result = CliRunner().invoke(app, ["submit", str(agentic_run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "3 episodes" in result.output
    assert _post(client, json.loads(out.read_text())).status_code == 201
    site = tmp_path / "site"
    export_site(client[0].app.state.db, site)  # type: ignore[attr-defined]
    assert "cac[scripted]" in (site / "agentic.html").read_text()
    assert "cac[scripted]" in (site / "grids" / "collab-small.html").read_text()
    assert (site / "submissions" / "1.html").exists()


def test_a_several_agent_run_is_refused_with_the_command_that_plays_one(tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(json.dumps({**GRID, "agents": ["cac", "llm"]}))
    run = tmp_path / "run"
    played = coordqa("agentic", "grid", grid, "--model", "scripted", "--out", run)
    assert played.returncode == 0, played.stderr
    refused = coordqa("submit", run, "--out", tmp_path / "both.json")
    one = f"coordqa agentic grid {grid} --agent cac --model scripted --out {run}-cac"
    assert refused.returncode == 2
    assert f"e.g. `{one}` (likewise for llm[scripted]), then `coordqa submit {run}-cac" in (
        " ".join(refused.stderr.split())  # as one line: the terminal folds the message
    )
    assert coordqa(*shlex.split(one)[1:]).returncode == 0
    submitted = coordqa("submit", f"{run}-cac", "--out", tmp_path / "cac.json")
    assert submitted.returncode == 0, submitted.stderr


def test_a_registered_grid_played_by_one_agent_is_that_grid(
    tmp_path: Path, client: tuple[TestClient, dict[str, str]]
) -> None:
    # docs/leaderboard.md: `coordqa agentic grid smoke --agent cac --model scripted`, then submit
    run = tmp_path / "smoke-cac"
    played = coordqa(
        "agentic", "grid", "smoke", "--agent", "cac", "--model", "scripted", "--out", run
    )
    assert played.returncode == 0, played.stderr
    bundle = build_bundle(run, grid="smoke")
    assert {episode["spec"]["agent"] for episode in bundle["episodes"]} == {"cac"}
    answer = _post(client, bundle)
    assert answer.status_code == 201, answer.text
    [entry] = client[0].get("/api/agentic/entries", params={"grid": "smoke"}).json()["entries"]
    assert entry["model_name"] == "cac[scripted]"
    assert entry["episodes"] == len(registered_grids()["smoke"].config.tasks())


def test_the_overall_score_is_each_columns_share_of_its_best() -> None:
    """Walkthrough 3, rough 6: entry 6 (1.00 on capture self-play, 10.00 on Overcooked) ranked
    behind entry 3 (0.00 and 0.00) because the first column, a tie, decided."""
    from coordqa.leaderboard.views import overall_scores

    keys = ["collab_capture/cross", "collab_capture/self", "overcooked/self"]
    three = {"collab_capture/cross": 0.0, "collab_capture/self": 0.0, "overcooked/self": 0.0}
    six = {"collab_capture/cross": 0.0, "collab_capture/self": 1.0, "overcooked/self": 10.0}
    half = {"collab_capture/cross": 0.0, "collab_capture/self": 0.5, "overcooked/self": 10.0}
    # capture cross-play: no entry scored, left out; the others: 1 = the best of the column
    assert overall_scores([three, six, half], keys) == [0.0, 1.0, 0.75]
    assert overall_scores([{**six, "overcooked/self": None}, half], keys) == [None, 0.75]
    assert overall_scores([three, three], keys) == [0.0, 0.0]  # nobody scored: all tied


def test_a_run_of_a_registered_grid_is_submitted_as_that_grid_only(tmp_path: Path) -> None:
    """Walkthrough 4 #169: ``submit runs/smoke-cac --grid paper`` was sent, and the server's
    422 listed 62 tasks; the run's manifest says it played grid ``smoke``, so it is refused
    before anything is sent, in one line naming that grid."""
    run = tmp_path / "smoke-cac"
    played = coordqa(
        "agentic", "grid", "smoke", "--agent", "cac", "--model", "scripted", "--out", run
    )
    assert played.returncode == 0, played.stderr
    refused = coordqa("submit", run, "--grid", "paper", "--out", tmp_path / "paper.json")
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(f"error: {run} played grid 'smoke' (version 1), not 'paper'"), line
    assert not (tmp_path / "paper.json").exists()
    assert "or play 'paper' (`coordqa agentic grid paper ...`)" in line, line
    assert "Did you mean" not in line, line  # 'paper' exists: no suggestion needed
    # walkthrough 6 #167: a typo was advised to be played (`coordqa agentic grid smok ...`,
    # which does not exist) and got no suggestion, though `agentic grid smok` gives one
    typo = coordqa("submit", run, "--grid", "smok", "--out", tmp_path / "smok.json")
    assert typo.returncode == 2, typo.stderr
    (line,) = typo.stderr.strip().splitlines()
    assert line.startswith("error: unknown grid 'smok': coordqa ships no grid of that name")
    assert line.count("Did you mean") == 1 and "Did you mean 'smoke'?" in line, line
    assert "agentic grid smok " not in line, line
    same = coordqa("submit", run, "--grid", "smoke", "--out", tmp_path / "smoke.json")
    assert same.returncode == 0, same.stderr


def test_a_grid_file_is_compared_by_its_tasks_and_a_board_name_is_the_boards(
    tmp_path: Path, client: tuple[TestClient, dict[str, str]]
) -> None:
    """Walkthrough 10 #310-#315: a run of a versioned grid file was refused for ``--grid
    my-grid.yaml`` ("played grid 'my-grid', not 'my-grid.yaml'"), and a changed grid file the
    board registered under a new name, as its refusal advised (``--name my-grid-v2``), could
    not be submitted under that name (the file still says ``name: my-grid``). Grids are told
    apart by their tasks: the file is read, and the board's name is checked by the board."""
    games = [{"game": "collab_capture", "seeds": [2]}, {"game": "collab_escape", "seeds": [0]}]
    changed = {**GRID, "version": 1, "agents": ["cac"], "games": games}
    grid_file = tmp_path / "collab-small3.yaml"
    grid_file.write_text(json.dumps(changed))
    register_grid(client[0].app.state.db, grid_file, name="collab-small-v2")
    run = tmp_path / "collab-small3"
    played = coordqa("agentic", "grid", grid_file, "--model", "scripted", "--out", run)
    assert played.returncode == 0, played.stderr
    saved = coordqa("submit", run, "--grid", grid_file, "--out", tmp_path / "v2.json")
    assert saved.returncode == 0, saved.stderr
    assert json.loads((tmp_path / "v2.json").read_text())["grid"] == "collab-small"
    # the board's name: left to the board, which holds these tasks under it
    bundle = build_bundle(run, grid="collab-small-v2", destination="board")
    answer = _post(client, bundle)
    assert answer.status_code == 201, answer.text
    [entry] = (
        client[0].get("/api/agentic/entries", params={"grid": "collab-small-v2"}).json()["entries"]
    )
    assert entry["episodes"] == 2
    # under the file's own name the board holds other tasks (GRID's), and says so
    refused = _post(client, build_bundle(run, destination="board"))
    assert refused.status_code == 422, refused.text
    assert "grid 'collab-small': 2 of its 3 tasks are not played" in refused.text, refused.text
    assert refused.json()["detail"].endswith(
        "These episodes play exactly the tasks of grid 'collab-small-v2' registered here: "
        "submit them with --grid collab-small-v2 (a saved bundle keeps the grid it was made "
        "for: make it again from the run's folder, `coordqa submit RUN_DIR --grid collab-small-v2`)"
    ), refused.text


def test_the_grid_of_these_tasks_is_named_as_soon_as_it_is_registered(
    tmp_path: Path, client: tuple[TestClient, dict[str, str]]
) -> None:
    """Walkthrough 13 #206-#211: with the server running, a changed grid file registered by
    the CLI as ``my-grid-v3`` and no entry of it yet, a run of it sent under the file's
    ``name:`` was refused with no word of ``my-grid-v3``; the hint came only once an entry of
    it had made the server look up that name. The hint looks among every registered grid."""
    games = [{"game": "collab_capture", "seeds": [3]}, {"game": "collab_escape", "seeds": [3]}]
    grid_file = tmp_path / "collab-small4.yaml"
    grid_file.write_text(json.dumps({**GRID, "version": 1, "agents": ["cac"], "games": games}))
    run = tmp_path / "collab-small4"
    played = coordqa("agentic", "grid", grid_file, "--model", "scripted", "--out", run)
    assert played.returncode == 0, played.stderr
    bundle = build_bundle(run, destination="board")
    before = _post(client, bundle)  # the server now holds 'collab-small' in its catalog
    assert before.status_code == 422 and "These episodes" not in before.text, before.text
    db_url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    added = coordqa(
        "leaderboard", "grid", "add", grid_file, "--name", "collab-small-v3", "--db", db_url
    )
    assert added.returncode == 0, added.stderr
    refused = _post(client, copy.deepcopy(bundle))
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"].endswith(
        "These episodes play exactly the tasks of grid 'collab-small-v3' registered here: "
        "submit them with --grid collab-small-v3 (a saved bundle keeps the grid it was made "
        "for: make it again from the run's folder, `coordqa submit RUN_DIR --grid collab-small-v3`)"
    ), refused.text
    # the board's list of grids is the current one too, not the one it started with
    listed = {g["name"] for g in client[0].get("/api/grids").json()}
    assert "collab-small-v3" in listed, listed


def test_a_run_against_a_retrained_bc_partner_is_refused_before_sending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: tuple[TestClient, dict[str, str]]
) -> None:
    """Blind walkthrough 15 R7: a grid played against a locally retrained ``bc-cramped_room``
    was sent by ``submit`` without a word, and the board answered a bare "replay mismatch at
    step 5". Every episode records which checkpoint each BC partner played, ``submit`` refuses
    one that is not the shipped checkpoint (saying what to do), and a board that replays it
    anyway names the checkpoint as the cause."""
    pytest.importorskip("overcooked_ai_py")
    shipped, retrained = shipped_and_retrained_bc()
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))
    retrained.save(tmp_path / "data" / "partners" / "bc-cramped_room.npz")
    grid = bc_grid("bc-small", 30, models=["scripted"])
    grid_file = tmp_path / "bc-small.yaml"
    grid_file.write_text(json.dumps(grid))
    result = run_grid(parse_grid(grid), tmp_path / "run")
    assert result.complete, result.failures
    [played] = {
        stats["checkpoint"]
        for episode in load_agentic_run(tmp_path / "run")
        for stats in episode.agent_stats.values()
        if "checkpoint" in stats
    }
    assert played == retrained.fingerprint
    refused = coordqa("submit", tmp_path / "run", "--grid", grid_file, "--out", tmp_path / "b.json")
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert "bc-cramped_room" in said and retrained.fingerprint in said, said
    assert shipped.fingerprint in said and "coordqa partners train-bc" in said, said
    assert "coordqa partners list" in said, said
    assert not (tmp_path / "b.json").exists()
    own = tmp_path / "data" / "partners" / "bc-cramped_room.npz"
    assert f"yours: {own}): move it aside" in said, said
    # walkthrough 20 B2: submitted from a shell whose data folder is another, the refusal named
    # that folder's path as "yours" although no file was there; a file there now that is not
    # the one played is not claimed either, and the message says where train-bc writes instead
    other = tmp_path / "other"
    again = type(shipped)([w * 0.5 for w in shipped.weights], shipped.meta)
    again.save(other / "partners" / "bc-cramped_room.npz")
    for data in (tmp_path / "empty", other):
        env = {"COORDQA_DATA_DIR": str(data)}
        out = tmp_path / "b.json"
        moved = coordqa("submit", tmp_path / "run", "--grid", grid_file, "--out", out, env=env)
        assert moved.returncode == 2, moved.stderr
        told = " ".join(moved.stderr.split())
        assert retrained.fingerprint in told and shipped.fingerprint in told, told
        assert "yours" not in told and "bc-cramped_room.npz" not in told, told
        assert f"writes checkpoints into {data / 'partners'}" in told, told
        assert "COORDQA_DATA_DIR" in told and "coordqa partners list" in told, told
    # the board, which plays the shipped checkpoint, says why the replay fails
    register_grid(client[0].app.state.db, grid_file)
    bundle = build_bundle(tmp_path / "run", grid="bc-small", destination="own-board")
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "empty"))
    answer = _post(client, bundle)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert f"checkpoint {retrained.fingerprint}" in detail, detail
    assert f"this board plays checkpoint {shipped.fingerprint}" in detail, detail


def test_a_board_with_its_own_retrained_checkpoint_replays_with_the_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: tuple[TestClient, dict[str, str]]
) -> None:
    """A board replays every BC partner with the checkpoint coordqa ships, the one ``submit``
    asks a run to have played: a board whose admin ran ``coordqa partners train-bc`` on its
    machine replayed with that retrained checkpoint instead, and refused honest runs."""
    pytest.importorskip("overcooked_ai_py")
    shipped, retrained = shipped_and_retrained_bc()
    grid = bc_grid("bc-small", 30, models=["scripted"])
    grid_file = tmp_path / "bc-small.yaml"
    grid_file.write_text(json.dumps(grid))
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "player"))
    result = run_grid(parse_grid(grid), tmp_path / "run")
    assert result.complete, result.failures
    register_grid(client[0].app.state.db, grid_file)
    bundle = build_bundle(tmp_path / "run", grid="bc-small", destination="own-board")
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "board"))
    retrained.save(tmp_path / "board" / "partners" / "bc-cramped_room.npz")
    answer = _post(client, bundle)
    assert answer.status_code == 201, answer.text


def test_a_python_grid_with_no_name_is_not_saved_unchecked(
    tmp_path: Path, agentic_run: Path
) -> None:
    """Walkthrough 17 R2: ``run_grid(GridConfig(...), DIR)`` (the default name ``grid``) was
    saved by ``submit DIR --out`` with no ``--grid`` and no check, then refused by the board.
    It is refused as an unknown grid is; a run of a grid named in its file still saves."""
    unnamed = {key: value for key, value in GRID.items() if key != "name"}
    run = tmp_path / "api-run"
    played = run_grid(parse_grid({**unnamed, "agents": ["cac"], "models": ["scripted"]}), run)
    assert played.complete, played.failures
    with pytest.raises(BundleError) as refused:
        build_bundle(run)
    said = str(refused.value)
    assert said.startswith("unknown grid 'grid': coordqa ships no grid of that name"), said
    assert "--grid FILE.yaml" in said and "--to URL" in said, said
    assert build_bundle(agentic_run)["grid"] == "collab-small"  # its file's name: may be a board's
    assert build_bundle(run, destination="board")["grid"] == "grid"  # the board checks it


def test_a_board_only_grid_name_is_saved_only_when_it_is_the_runs_own(agentic_run: Path) -> None:
    """Walkthrough 22 #246 (leaderboard.md): ``submit RUN --grid my-grid --out x.json`` wrote
    the bundle, where the guide said a name known only to a board is refused with ``--out``.
    The run's own grid file's ``name:`` is saved (a board may have registered the file under
    it, and checks it on upload); any other name coordqa does not ship is refused."""
    assert build_bundle(agentic_run, grid="collab-small")["grid"] == "collab-small"
    with pytest.raises(BundleError) as refused:
        build_bundle(agentic_run, grid="collab-small-v2")
    said = str(refused.value)
    assert said.startswith("unknown grid 'collab-small-v2': coordqa ships no grid"), said
    assert "Did you mean 'collab-small'?" in said, said
