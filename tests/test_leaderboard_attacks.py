"""Attacks by a hostile submitter, each performed against the API (SQLite and PostgreSQL).

Every test sends what an adversary would send and checks the server's answer: a refusal with
its status and message, or a number on the board that the attack could not raise.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from leaderboard_support import BoardClient, seal, synthetic_bundle

from coordqa.leaderboard.db import SampleResult, Submission


@pytest.fixture
def board(db_url: str, tmp_path: Path) -> Iterator[BoardClient]:
    client = BoardClient(db_url, tmp_path)
    yield client
    client.close()


def letter(row: dict[str, Any], right: bool) -> str:
    """``Answer: X`` with the key's letter, or the next (wrong) one."""
    index = row["correct"][0] + (0 if right else 1)
    return f"Answer: {chr(65 + index % len(row['options']))}"


# -- Broken 1: errors must not inflate accuracy ----------------------------------------------


def test_wrong_replies_relabelled_as_errors_gain_nothing(board: BoardClient) -> None:
    def honest(row: dict[str, Any], trial: int) -> str:
        return letter(row, right=trial == 0)  # right on trial 0 only: 1/3 overall

    def relabelled(row: dict[str, Any], trial: int) -> str | None:
        return letter(row, right=True) if trial == 0 else None  # every wrong reply -> "error"

    board.submit(synthetic_bundle(board.rows, answer=honest, display_name="honest"))
    answer = board.submit(synthetic_bundle(board.rows, answer=relabelled, display_name="forged"))
    assert answer.status_code == 201, answer.text
    entries = {e["display_name"]: e for e in board.client.get("/api/entries").json()["entries"]}
    assert entries["forged"]["overall"] == pytest.approx(1 / 3)
    assert entries["forged"]["overall"] == pytest.approx(entries["honest"]["overall"])
    for kind in ("EC", "ToM", "JP"):
        assert entries["forged"][kind] == pytest.approx(1 / 3)
    assert entries["forged"]["error"] == 2 * len(board.rows) and entries["honest"]["error"] == 0


def test_three_answers_and_the_rest_errors_rank_near_zero(board: BoardClient) -> None:
    answered = {q["question_id"] for q in board.rows[:3]}

    def mostly_errors(row: dict[str, Any], trial: int) -> str | None:
        return letter(row, right=True) if trial == 0 and row["question_id"] in answered else None

    sub_id = board.submit(synthetic_bundle(board.rows, answer=mostly_errors)).json()["id"]
    [entry] = board.client.get("/api/entries").json()["entries"]
    samples = len(board.rows) * 3
    assert entry["error"] == samples - 3 and entry["answered"] == 3
    # per-trial accuracies 3/12, 0, 0 -> mean 1/12
    assert entry["overall"] == pytest.approx(3 / 12 / 3)
    ranking = board.client.get("/").text
    assert f'data-value="{samples - 3}"' in ranking and ">Errors<" in ranking
    page = board.client.get(f"/submissions/{sub_id}").text
    assert f"{samples - 3} errors" in page and "counted as wrong" in page


# -- Broken 4: counts bounded before any allocation ------------------------------------------


@pytest.mark.parametrize("trials", [100_000, 10**18])
def test_hostile_trials_are_refused_cheaply(board: BoardClient, trials: int) -> None:
    bundle = synthetic_bundle(board.rows, trials=1)
    bundle["manifest"]["config"]["trials"] = trials
    body = json.dumps(seal(bundle)).encode()
    board.submit(synthetic_bundle(board.rows, display_name="warm-up"))  # first-use imports
    tracemalloc.start()
    started = time.process_time()
    answer = board.submit(body)
    cost = time.process_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert answer.status_code == 422
    assert (
        f"trials is {trials}: this server ranks runs of at most 10 trials"
        in (answer.json()["detail"])
    )
    assert cost < 0.1, f"refusing took {cost:.3f} s of CPU"
    assert peak < 20 * 1024 * 1024, f"refusing allocated {peak / 1e6:.1f} MB"
    assert board.count(Submission) == 1


# -- robustness: malformed documents are 400, unknown ids 404 ---------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 200 + b"1" + b"}" * 200,
    ],
    ids=["beyond-the-parser", "beyond-the-limit"],
)
def test_deeply_nested_json_is_400(board: BoardClient, body: bytes) -> None:
    answer = board.submit(body)
    assert answer.status_code == 400
    assert "nests deeper than 64 levels" in answer.json()["detail"]


def test_nesting_inside_a_valid_bundle_is_400(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    deep: dict[str, Any] = {}
    for _ in range(100):
        deep = {"x": deep}
    bundle["manifest"]["config"]["extra"] = deep
    answer = board.submit(seal(bundle))
    assert answer.status_code == 400 and "nests deeper" in answer.json()["detail"]


@pytest.mark.parametrize(
    ("literal", "named"),
    [("Infinity", "Infinity"), ("-Infinity", "-Infinity"), ("NaN", "NaN"), ("1e999", "1e999")],
)
def test_non_finite_numbers_are_400(board: BoardClient, literal: str, named: str) -> None:
    bundle = synthetic_bundle(board.rows, reported={"overall": 0.5, "by_type": {}})
    body = json.dumps(seal(bundle)).replace('"overall": 0.5', f'"overall": {literal}')
    answer = board.submit(body.encode())
    assert answer.status_code == 400
    assert named in answer.json()["detail"] and "finite" in answer.json()["detail"]
    assert board.count(Submission) == 0


def test_integers_beyond_64_bits_are_400(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    body = json.dumps(seal(bundle)).replace('"trial": 2', f'"trial": {2**63}', 1)
    answer = board.submit(body.encode())
    assert answer.status_code == 400 and "out of range" in answer.json()["detail"]


@pytest.mark.parametrize("number", [2**31, 2**63 - 1, 2**63, 10**30])
def test_ids_beyond_the_database_range_are_404(board: BoardClient, number: int) -> None:
    for path in (f"/api/submissions/{number}", f"/submissions/{number}"):
        answer = board.client.get(path)
        assert answer.status_code == 404, (path, answer.text)
        assert f"no submission with id {number}" in answer.text
    assert board.count(SampleResult) == 0


# -- Broken 2 and 3, and cherry-picking: agentic episodes -------------------------------------

OVERCOOKED = {"game": "overcooked", "layouts": ["cramped_room"], "seeds": [0, 1], "horizon": 40}
GRIDS = {
    "oc-40": {"agents": ["greedy_human"], "games": [OVERCOOKED]},
    "oc-100": {"agents": ["greedy_human"], "games": [{**OVERCOOKED, "horizon": 100}]},
    "hanabi-2": {"agents": ["hanabi-legal-random"], "games": [{"game": "hanabi", "seeds": [0, 1]}]},
}
"""Small grids of scripted agents (fast); oc-100 is the same as oc-40 with a longer horizon."""


@pytest.fixture(scope="module")
def agentic_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from coordqa.agentic.grid import parse_grid
    from coordqa.agentic.runner import run_grid

    folder = tmp_path_factory.mktemp("agentic-attacks")
    runs = {}
    for name, grid in GRIDS.items():
        (folder / f"{name}.yaml").write_text(json.dumps({"name": name, **grid}))
        result = run_grid(parse_grid({"name": name, **grid}), folder / name)
        assert result.complete, result.failures
        runs[name] = folder / name
    return runs


@pytest.fixture
def agentic_board(board: BoardClient, agentic_runs: dict[str, Path]) -> BoardClient:
    from coordqa.leaderboard.catalog import register_grid

    for name in ("oc-40", "hanabi-2"):  # the server's grids; oc-100 is not one of them
        register_grid(board.db, agentic_runs[name].parent / f"{name}.yaml")
    return board


def bundle_of(run: Path, grid: str | None = None) -> dict[str, Any]:
    from coordqa.leaderboard.bundle import build_bundle

    return build_bundle(run, grid=grid, destination="board")  # the board checks its grids


def forge(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """An episode record edited by a careful forger: self-consistent from its stored start.

    ``initial`` edits the initial snapshot, ``steps`` keeps the first steps only, ``spec``
    updates spec fields. Score, metrics and final state are recomputed by replaying from the
    (edited) stored start, so the forgery passes a replay that trusts the stored start.
    """
    from coordqa.agentic import AgenticEpisode
    from coordqa.games.base import GAMES
    from coordqa.games.episode import replay

    episode = AgenticEpisode.from_record(record)
    trajectory = episode.trajectory
    trajectory.initial = changes.get("initial", lambda s: s)(dict(trajectory.initial))
    trajectory.steps = trajectory.steps[: changes.get("steps", len(trajectory.steps))]
    game = GAMES.get(trajectory.game).from_snapshot(trajectory.initial)
    for step in trajectory.steps:
        game.replay_step(step.executed, step.decisions)
    trajectory.final, trajectory.score = game.snapshot(), game.score()
    trajectory.metrics = game.metrics()
    replay(trajectory)  # the forgery replays from its own stored start
    episode.spec = episode.spec.model_copy(update=changes.get("spec", {}))
    episode.score, episode.metrics = trajectory.score, dict(trajectory.metrics)
    return episode.to_record()


def submit_forged(board: BoardClient, bundle: dict[str, Any], first: dict[str, Any]) -> Any:
    bundle["episodes"][0] = first
    return board.submit(seal(bundle))


def test_an_honest_agentic_run_on_a_registered_grid_is_accepted(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    answer = agentic_board.submit(bundle_of(agentic_runs["oc-40"]))
    assert answer.status_code == 201, answer.text
    assert agentic_board.submit(bundle_of(agentic_runs["hanabi-2"])).status_code == 201
    read = agentic_board.client.get
    board = read("/api/agentic/entries", params={"grid": "oc-40"}).json()
    [entry] = board["entries"]
    assert entry["episodes"] == 2 and entry["verification"] == "episodes replayed"
    assert board["grid"]["name"] == "oc-40" and board["grid"]["games"][0]["horizon"] == 40
    assert [c["key"] for c in board["columns"]] == ["overcooked/self"]
    other = read("/api/agentic/entries", params={"grid": "hanabi-2"}).json()["entries"]
    assert [e["model_name"] for e in other] == ["hanabi-legal-random"]  # one board per grid
    page = read("/agentic", params={"grid": "hanabi-2"}).text
    assert "Grid <strong>hanabi-2</strong>" in page and "seeds 0, 1" in page
    assert read("/agentic", params={"grid": "nope"}).status_code == 400


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed ``smoke`` grid played by one agent (cac with the offline scripted model)."""
    from coordqa.agentic import get_grid
    from coordqa.agentic.grid import parse_grid
    from coordqa.agentic.runner import run_grid

    grid = get_grid("smoke").config.model_dump(mode="json")
    grid.update(agents=["cac"], models=["scripted"])
    out = tmp_path_factory.mktemp("smoke") / "run"
    result = run_grid(parse_grid(grid), out)
    assert result.complete, result.failures
    return out


def test_a_run_of_an_installed_grid_is_accepted_without_registering(
    board: BoardClient, smoke_run: Path
) -> None:
    from coordqa.agentic import get_grid

    installed = get_grid("smoke")
    bundle = bundle_of(smoke_run)
    assert bundle["grid"] == "smoke"
    answer = board.submit(bundle)
    assert answer.status_code == 201, answer.text
    grids = {g["name"]: g for g in board.client.get("/api/grids").json()}
    assert grids["smoke"]["version"] == installed.version
    assert grids["smoke"]["fingerprint"] == installed.fingerprint
    entries = board.client.get("/api/agentic/entries", params={"grid": "smoke"}).json()
    assert [e["episodes"] for e in entries["entries"]] == [len(installed.tasks())]
    page = board.client.get("/agentic", params={"grid": "smoke"}).text
    assert f"version {installed.version}" in page and installed.fingerprint[:12] in page


def test_a_forged_start_score_is_refused(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    bundle = bundle_of(agentic_runs["oc-40"])
    forged = forge(bundle["episodes"][0], initial=lambda s: {**s, "score": 1000.0})
    assert forged["score"] >= 1000  # what the forger hoped to rank with
    answer = submit_forged(agentic_board, bundle, forged)
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert "initial state is not the start of its game" in detail and "differs in score" in detail


def test_forged_deliveries_are_refused(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    bundle = bundle_of(agentic_runs["oc-40"])
    forged = forge(bundle["episodes"][0], initial=lambda s: {**s, "deliveries": 5})
    assert forged["metrics"]["deliveries"] >= 5
    answer = submit_forged(agentic_board, bundle, forged)
    assert answer.status_code == 422 and "differs in deliveries" in answer.json()["detail"]


def test_a_longer_horizon_than_the_spec_is_refused(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    longer = bundle_of(agentic_runs["oc-100"], grid="oc-40")
    assert len(longer["episodes"][0]["trajectory"]["steps"]) == 100
    # the forger keeps 100 steps but states the grid's horizon of 40 in the spec
    relabelled = [forge(r, spec={"game_options": {"horizon": 40}}) for r in longer["episodes"]]
    longer["episodes"] = relabelled
    answer = agentic_board.submit(seal(longer))
    assert answer.status_code == 422
    assert "differs in horizon" in answer.json()["detail"]
    # or states its own horizon: the episodes are not the registered grid's
    answer = agentic_board.submit(bundle_of(agentic_runs["oc-100"], grid="oc-40"))
    assert answer.status_code == 422
    assert "2 of its 2 tasks are not played" in answer.json()["detail"]
    assert "2 episodes play tasks it does not hold" in answer.json()["detail"]
    assert agentic_board.count(Submission) == 0


def test_a_run_extended_beyond_its_registered_grid_is_told_what_to_submit(
    board: BoardClient, agentic_runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough 22, R3: a run of a registered grid, extended with more seeds, was refused
    with the tasks it adds and no next step; the refusal says what to submit instead, and a
    run that misses tasks is told to play the whole grid."""
    from coordqa.leaderboard.catalog import register_grid

    one_seed = tmp_path / "hanabi-1.yaml"
    hanabi = {"game": "hanabi", "seeds": [0]}
    one_seed.write_text(json.dumps({**GRIDS["hanabi-2"], "name": "hanabi-1", "games": [hanabi]}))
    register_grid(board.db, one_seed)  # the grid as registered; hanabi-2's run extends it
    answer = board.submit(bundle_of(agentic_runs["hanabi-2"], grid="hanabi-1"))
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert "grid 'hanabi-1': 1 episode plays tasks it does not hold" in detail, detail
    assert detail.endswith(
        "submit a run of exactly the grid's tasks: play it into a new folder (`coordqa agentic "
        "grid GRID_FILE.yaml --agent hanabi-legal-random --out NEW_DIR`) and submit that run, "
        "or have the board's admin register the grid file this run played under a new name "
        "(`coordqa leaderboard grid add FILE.yaml --name NEW_NAME`) and submit it with --grid "
        "NEW_NAME"
    ), detail
    register_grid(board.db, agentic_runs["hanabi-2"].parent / "hanabi-2.yaml")
    bundle = bundle_of(agentic_runs["hanabi-2"])
    bundle["episodes"] = [r for r in bundle["episodes"] if r["spec"]["seed"] == 1]
    detail = board.submit(seal(bundle)).json()["detail"]
    assert "1 of its 2 tasks is not played" in detail, detail
    assert detail.endswith(
        "play the whole grid and submit that run: "
        "`coordqa agentic grid GRID_FILE.yaml --agent hanabi-legal-random --out DIR`"
    ), detail
    assert board.count(Submission) == 0


def test_an_episode_cut_before_the_game_ends_is_refused(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    bundle = bundle_of(agentic_runs["hanabi-2"])
    whole = next(r for r in bundle["episodes"] if r["spec"]["seed"] == 0)
    cut = forge(whole, steps=len(whole["trajectory"]["steps"]) - 1)  # before the last life
    assert cut["score"] > whole["score"]  # the cut scores more than the whole game
    bundle["episodes"] = [cut if r is whole else r for r in bundle["episodes"]]
    answer = agentic_board.submit(seal(bundle))
    assert answer.status_code == 422
    assert "before the game is over" in answer.json()["detail"]


def test_steps_stored_after_the_game_ended_are_refused(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    bundle = bundle_of(agentic_runs["oc-40"])
    steps = bundle["episodes"][0]["trajectory"]["steps"]
    steps.extend(dict(step) for step in steps[-3:])  # three more timesteps past the horizon
    answer = agentic_board.submit(seal(bundle))
    assert answer.status_code == 422
    assert "3 steps stored after the game ended at step 40" in answer.json()["detail"]


def test_a_bundle_omitting_seeds_of_its_grid_is_refused(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    bundle = bundle_of(agentic_runs["hanabi-2"])
    best = max(bundle["episodes"], key=lambda r: r["score"])
    bundle["episodes"] = [best]  # only the best seed
    answer = agentic_board.submit(seal(bundle))
    assert answer.status_code == 422
    assert "1 of its 2 tasks is not played" in answer.json()["detail"]
    # nor may the best seed stand in for the other one, played again with other agent options
    again = forge(best, spec={"agent_options": {"note": "second try"}})
    bundle["episodes"] = [best, again]
    answer = agentic_board.submit(seal(bundle))
    assert answer.status_code == 422
    assert "the hanabi episodes use 2 configurations" in answer.json()["detail"]


def test_an_unknown_grid_is_refused_with_the_registered_ones(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    answer = agentic_board.submit(bundle_of(agentic_runs["oc-100"]))
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert "unknown grid 'oc-100'" in detail and "hanabi-2, oc-40" in detail
    # walkthrough 9: a typo'd grid got the list but no suggestion, unlike every other name
    typo = agentic_board.submit(bundle_of(agentic_runs["hanabi-2"], grid="smok"))
    assert typo.status_code == 422
    detail = typo.json()["detail"]
    assert detail.startswith("unknown grid 'smok'. Did you mean 'smoke'? This server ranks"), detail
    assert detail.count("Did you mean") == 1 and "hanabi-2, oc-40, paper, smoke" in detail


# -- issue 26, broken 1: partner moves are checked by playing the partner again --------------

CROSS = {"agents": ["hanabi-convention"], "games": [{"game": "hanabi", "seeds": [0]}]}
"""Hanabi cross-play of the convention bot with one partner (both seats)."""


def _cross_run(folder: Path, name: str, partner: str) -> Path:
    from coordqa.agentic.grid import parse_grid
    from coordqa.agentic.runner import run_grid

    grid = {"name": name, **CROSS, "partners": [partner]}
    (folder / f"{name}.yaml").write_text(json.dumps(grid))
    result = run_grid(parse_grid(grid), folder / name)
    assert result.complete, result.failures
    return folder / name


def _relabelled(record: dict[str, Any], partner: str) -> dict[str, Any]:
    """An episode record claiming ``partner`` played the partner seat (moves unchanged)."""
    from coordqa.agentic import AgenticEpisode

    episode = AgenticEpisode.from_record(record)
    episode.spec = episode.spec.model_copy(update={"partner": partner})
    episode.trajectory.players = list(episode.spec.seats)
    return episode.to_record()


def _forged_cross_play(strong: Path, claimed: str, grid: str) -> dict[str, Any]:
    """The strong run's episodes under the claimed partner's name, as a bundle of ``grid``."""
    bundle = bundle_of(strong, grid=grid)
    bundle["episodes"] = [_relabelled(r, claimed) for r in bundle["episodes"]]
    return seal(bundle)


@pytest.fixture(scope="module")
def cross_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("cross")
    return {
        "random": _cross_run(folder, "hanabi-cross", "hanabi-legal-random"),
        "strong": _cross_run(folder, "hanabi-strong", "hanabi-convention"),
        "obl": folder / "hanabi-obl.yaml",
    }


def test_a_forged_partner_seat_is_refused(board: BoardClient, cross_runs: dict[str, Path]) -> None:
    from coordqa.leaderboard.catalog import register_grid

    register_grid(board.db, cross_runs["random"].parent / "hanabi-cross.yaml")
    honest = bundle_of(cross_runs["random"])
    forged = _forged_cross_play(cross_runs["strong"], "hanabi-legal-random", "hanabi-cross")
    honest_score = sum(r["score"] for r in honest["episodes"])
    assert sum(r["score"] for r in forged["episodes"]) > honest_score  # what the forger gains
    answer = board.submit(forged)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert "hanabi-legal-random in seat" in detail and "the trajectory says" in detail
    accepted = board.submit(honest)
    assert accepted.status_code == 201, accepted.text
    [entry] = board.client.get("/api/agentic/entries", params={"grid": "hanabi-cross"}).json()[
        "entries"
    ]
    assert entry["partner_check"] == {"verified": True, "unchecked": []}
    assert entry["rank"] == 1 and entry["verification"] == "episodes replayed"


def test_a_partner_the_server_cannot_play_is_marked_and_never_ranked(
    board: BoardClient, cross_runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from coordqa.leaderboard.catalog import register_grid

    monkeypatch.delenv("COORDQA_HANABI_WEIGHTS", raising=False)  # no OBL weights here
    cross_runs["obl"].write_text(json.dumps({"name": "hanabi-obl", **CROSS, "partners": ["obl1"]}))
    register_grid(board.db, cross_runs["obl"])
    forged = _forged_cross_play(cross_runs["strong"], "obl1", "hanabi-obl")
    answer = board.submit(forged)
    assert answer.status_code == 201, answer.text
    board_json = board.client.get("/api/agentic/entries", params={"grid": "hanabi-obl"}).json()
    assert board_json["entries"] == []  # nothing ranked
    [entry] = board_json["unverified"]
    assert entry["rank"] is None and entry["partner_check"]["verified"] is False
    assert "obl1 in seat" in entry["partner_check"]["unchecked"][0]
    assert entry["verification"] == "episodes replayed; partner unverified"
    page = board.client.get("/agentic", params={"grid": "hanabi-obl"}).text
    assert "Partner unverified (not ranked)" in page
    detail = board.client.get(f"/submissions/{answer.json()['id']}").text
    assert "unverified, so not ranked" in detail and "obl1 in seat" in detail


def test_one_entry_has_one_configuration_per_game(
    agentic_board: BoardClient, agentic_runs: dict[str, Path]
) -> None:
    bundle = bundle_of(agentic_runs["hanabi-2"])
    warmer = forge(bundle["episodes"][1], spec={"generate": {"temperature": 1.5}})
    bundle["episodes"][1] = warmer
    answer = agentic_board.submit(seal(bundle))
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert "the hanabi episodes use 2 configurations" in detail and "temperature" in detail


# -- submitters: rate limit, quota, revocation, hiding, one copy of each reply ----------------


def test_a_token_is_rate_limited_counting_refused_attempts(db_url: str, tmp_path: Path) -> None:
    from coordqa.leaderboard.settings import SubmitterLimits

    limited = BoardClient(db_url, tmp_path, limits=SubmitterLimits(per_hour=2, quota=None))
    try:
        assert limited.submit(b"not json").status_code == 400  # refused, but it costs a slot
        assert limited.submit(synthetic_bundle(limited.rows)).status_code == 201
        answer = limited.submit(synthetic_bundle(limited.rows, display_name="third"))
        assert answer.status_code == 429
        assert "limit of 2 submissions per hour" in answer.json()["detail"]
        assert 3500 <= int(answer.headers["retry-after"]) <= 3600
        assert limited.count(Submission) == 1
    finally:
        limited.close()


def test_a_token_has_a_quota_of_stored_entries(db_url: str, tmp_path: Path) -> None:
    from coordqa.leaderboard.settings import SubmitterLimits

    limited = BoardClient(db_url, tmp_path, limits=SubmitterLimits(per_hour=None, quota=2))
    try:
        ids = [
            limited.submit(
                synthetic_bundle(limited.rows, display_name=f"m{i}", run=f"m{i}")
            ).json()["id"]
            for i in range(2)
        ]
        answer = limited.submit(synthetic_bundle(limited.rows, display_name="m2", run="m2"))
        assert answer.status_code == 403
        # at the quota, not past it: the one asked for would pass it (walkthrough 14 #55)
        said = answer.json()["detail"]
        assert "has 2 visible entries: one more would pass the server's quota of 2" in said, said
        assert "hidden entries do not count" in answer.json()["detail"]
        limited.db.set_hidden(ids[0], True)  # a hidden entry frees its place, as the answer says
        again = synthetic_bundle(limited.rows, display_name="m2", run="m2")
        assert limited.submit(again).status_code == 201
    finally:
        limited.close()


def test_a_token_at_its_quota_may_resend_what_the_board_holds(db_url: str, tmp_path: Path) -> None:
    """Walkthrough 16 #134/#136: a token at its quota re-sending a run the board holds got the
    403 quota refusal, not "already on the leaderboard: entry N". A send that makes no new entry
    (the same bundle, or the same results under the same facts) never meets the quota."""
    from coordqa.leaderboard.settings import SubmitterLimits

    limited = BoardClient(db_url, tmp_path, limits=SubmitterLimits(per_hour=None, quota=2))
    try:
        bundles = [synthetic_bundle(limited.rows, display_name=f"m{i}", run=f"m{i}") for i in "01"]
        ids = [limited.submit(bundle).json()["id"] for bundle in bundles]
        visible = limited.submit(bundles[1])
        assert visible.status_code == 200, visible.text
        assert visible.json()["id"] == ids[1] and visible.json()["created"] is False
        limited.db.set_hidden(ids[0], True, "old")
        assert (
            limited.submit(synthetic_bundle(limited.rows, display_name="m2", run="m2")).status_code
            == 201
        )  # the token is at its quota again
        hidden = limited.submit(bundles[0])
        assert hidden.status_code == 200, hidden.text
        assert hidden.json()["id"] == ids[0] and hidden.json()["hidden"] is True
        # a new entry is still refused, before the server spends a re-scoring on it
        new = limited.submit(synthetic_bundle(limited.rows, display_name="m3", run="m3"))
        assert new.status_code == 403 and "quota of 2" in new.json()["detail"], new.text
        assert limited.count(Submission) == 3
    finally:
        limited.close()


@pytest.mark.parametrize(
    ("unrankable", "said"),
    [
        ({"rows": slice(0, 5)}, "unknown dataset fingerprint"),  # a dataset not registered here
        ({"model": "bot"}, "bot"),  # a model the board never ranks
    ],
)
def test_a_token_at_its_quota_hears_first_that_its_bundle_cannot_be_ranked(
    db_url: str, tmp_path: Path, unrankable: dict[str, Any], said: str
) -> None:
    """Walkthrough 17 R3: a bundle of a grid the board does not know, sent by a token at its
    quota, was refused 403 (quota); once the token made room, 422 (invalid). What a bundle
    names is looked up before the quota; the quota still comes before the re-scoring."""
    from coordqa.leaderboard.settings import SubmitterLimits

    limited = BoardClient(db_url, tmp_path, limits=SubmitterLimits(per_hour=None, quota=1))
    try:
        kept = limited.submit(synthetic_bundle(limited.rows, display_name="m0", run="m0"))
        assert kept.status_code == 201, kept.text
        rows = limited.rows[unrankable.get("rows", slice(None))]
        model = unrankable.get("model", "synthetic/model")
        bad = limited.submit(synthetic_bundle(rows, display_name="m1", run="m1", model=model))
        assert bad.status_code == 422, bad.text
        assert said in bad.json()["detail"], bad.text
        assert limited.count(Submission) == 1
    finally:
        limited.close()


def test_a_revoked_token_cannot_submit_and_its_entries_can_be_hidden(board: BoardClient) -> None:
    from coordqa.leaderboard.tokens import create_token, list_tokens, revoke_token

    other = create_token(board.db, "someone else")
    assert (
        board.submit(
            synthetic_bundle(board.rows, display_name="kept", run="kept"), token=other
        ).status_code
        == 201
    )
    for name in ("spam 1", "spam 2"):
        assert (
            board.submit(synthetic_bundle(board.rows, display_name=name, run=name)).status_code
            == 201
        )
    spammer = next(t for t in list_tokens(board.db) if t.name == "tester")
    assert spammer.entries == 2 and spammer.revoked_at is None
    assert revoke_token(board.db, spammer.id)[0].revoked_at is not None
    answer = board.submit(synthetic_bundle(board.rows, display_name="spam 3", run="spam 3"))
    assert answer.status_code == 401 and "revoked" in answer.json()["detail"]
    assert board.db.set_hidden_of(spammer.id, True, "spam") == 2
    names = [e["display_name"] for e in board.client.get("/api/entries").json()["entries"]]
    assert names == ["kept"]


def test_each_reply_text_is_stored_once(board: BoardClient) -> None:
    from sqlalchemy import select

    from coordqa.leaderboard.db import Base

    def marked(row: dict[str, Any], trial: int) -> str:
        return f"{letter(row, True)} [reply {row['question_id']}/{trial}]"

    board.submit(synthetic_bundle(board.rows, answer=marked))
    with board.db.session() as session:
        stored = " ".join(
            str(tuple(row))
            for table in Base.metadata.sorted_tables
            if table.name != "datasets"
            for row in session.execute(select(table))
        )
    for row in board.rows:
        for trial in range(3):
            assert stored.count(f"[reply {row['question_id']}/{trial}]") == 1


# -- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("display_name", "x" * 201, "at most 200"),
        ("display_name", "   \t ", "whitespace"),
        ("display_name", "GPT\u202e-4o", "U+202E"),
        ("organisation", "Lab\x00", "U+0000"),
        ("provider", "a\u200bb", "U+200B"),
        ("model", "m" * 300, "at most 200"),
    ],
    ids=["too-long", "blank", "bidi-override", "nul", "zero-width", "manifest-model"],
)
def test_unreadable_or_oversized_names_are_422(
    board: BoardClient, field: str, value: str, message: str
) -> None:
    bundle = synthetic_bundle(board.rows)
    if field == "model":
        bundle["manifest"]["config"]["model"] = value
    else:
        bundle["model"][field] = value
    answer = board.submit(seal(bundle))
    assert answer.status_code == 422, answer.text
    assert message in answer.json()["detail"]
    assert board.count(Submission) == 0


def test_names_are_nfkc_normalised(board: BoardClient) -> None:
    sub_id = board.submit(synthetic_bundle(board.rows, display_name=" ＧＰＴ－４o ")).json()["id"]
    assert board.client.get(f"/api/submissions/{sub_id}").json()["entry"]["display_name"] == (
        "GPT-4o"
    )


def _another_submitter(board: BoardClient) -> str:
    from coordqa.leaderboard.tokens import create_token

    return create_token(board.db, "another submitter")


@pytest.mark.parametrize(
    "imitation",
    [
        "GPT-4o",  # the same name again
        "gpt-4o",  # only the case differs
        "GPT - 4o",  # only spaces
        "GPT-4\u0585",  # Armenian small oh (W6: passed)
        "GPT-4\u1d0f",  # Latin letter small capital O (W6: passed)
        "\u13e2GT-4o",  # Cherokee letter tlv, drawn as P... in a P-less imitation below
        "\U0001d5da\U0001d5e3\U0001d5e7-4o",  # mathematical bold sans-serif GPT (NFKC: GPT)
        "GPT\u20104o",  # hyphen U+2010
        "GPT\u22124o",  # minus sign
        "G\u0420T-4\u043e",  # Cyrillic Er and o: mixed scripts
    ],
)
def test_a_lookalike_of_another_submitters_name_is_refused_naming_it(
    board: BoardClient, imitation: str
) -> None:
    """W6: look-alike names were flagged by a hand list of ~60 characters, and Armenian,
    small-capital and Cherokee letters, case and a second exact name passed unflagged."""
    original = "PGT-4o" if imitation.startswith("\u13e2") else "GPT-4o"
    assert board.submit(synthetic_bundle(board.rows, display_name=original)).status_code == 201
    other = _another_submitter(board)
    bundle = synthetic_bundle(board.rows, display_name=imitation, run="imitation")
    answer = board.submit(bundle, token=other)
    assert answer.status_code == 422, answer.text
    assert f"looks like the existing name {original!r}" in answer.json()["detail"]
    assert board.count(Submission) == 1


def test_two_lookalike_names_sent_at_once_by_two_tokens_are_not_both_stored(
    board: BoardClient,
) -> None:
    """The look-alike check ran before the transaction that stores the entry: two tokens whose
    bundles were verified at the same time ("GPT-4o" and "GPT-4\u0585") both passed it, and
    both entries were stored. Each submission here waits for the other once verified, so both
    store at once."""
    import threading

    from coordqa.leaderboard.intake import admit, parse_bundle
    from coordqa.leaderboard.tokens import authenticate
    from coordqa.leaderboard.verify import VERIFIERS, VerificationError

    catalog = board.app.state.catalog
    both_verified = threading.Barrier(2, timeout=60)

    def verified_then_wait(bundle: Any) -> Any:
        done = VERIFIERS.get("qa")(bundle, catalog)
        both_verified.wait()
        return done

    outcomes: dict[str, Any] = {}

    def submit(name: str, token: str) -> None:
        bundle = synthetic_bundle(board.rows, display_name=name, run=name)
        parsed, data = parse_bundle(json.dumps(bundle).encode())
        token_id = authenticate(board.db, f"Bearer {token}")
        try:
            outcomes[name] = admit(
                board.db, catalog, parsed, data, token_id, verify=verified_then_wait
            )
        except VerificationError as refused:
            outcomes[name] = refused

    threads = [
        threading.Thread(target=submit, args=(name, token))
        for name, token in (("GPT-4o", board.token), ("GPT-4\u0585", _another_submitter(board)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    refused = [str(o) for o in outcomes.values() if isinstance(o, VerificationError)]
    assert len(outcomes) == 2 and len(refused) == 1, outcomes
    assert "looks like the existing name" in refused[0]
    assert board.count(Submission) == 1


def test_a_submitter_may_reuse_its_own_name_and_distinct_names_pass(board: BoardClient) -> None:
    assert board.submit(synthetic_bundle(board.rows, display_name="GPT-4o")).status_code == 201
    again = board.submit(synthetic_bundle(board.rows, display_name="gpt-4o", run="second"))
    assert again.status_code == 201, again.text  # its own name, another run
    other = _another_submitter(board)
    for honest in ("GPT-4o-mini", "GPT-4.1", "Claude 3 Opus", "GPT-4ö"):
        bundle = synthetic_bundle(board.rows, display_name=honest, run=honest)
        assert board.submit(bundle, token=other).status_code == 201, honest


def test_a_registration_may_not_take_a_lookalike_of_an_entrys_name(
    board: BoardClient,
) -> None:
    assert board.submit(synthetic_bundle(board.rows, display_name="GPT-4o")).status_code == 201
    other = _another_submitter(board)
    answer = board.client.post(
        "/api/endpoints",
        json={"model": "random", "display_name": "GPT-4\u0585"},
        headers={"Authorization": f"Bearer {other}"},
    )
    assert answer.status_code == 422 and "looks like the existing name 'GPT-4o'" in answer.text


def test_name_doctests() -> None:
    import doctest

    from coordqa.leaderboard import names

    assert doctest.testmod(names).failed == 0


# -- pages: security headers, no inline script, CSV formulas ----------------------------------


def test_every_response_carries_the_security_headers(board: BoardClient) -> None:
    sub_id = board.submit(synthetic_bundle(board.rows)).json()["id"]
    for path in (
        "/",
        "/agentic",
        f"/submissions/{sub_id}",
        "/api/entries",
        "/api/entries.csv",
        "/static/sort.js",
        "/submissions/999",
        "/nowhere",
    ):
        headers = board.client.get(path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp, path
        assert "frame-ancestors 'none'" in csp and headers["x-frame-options"] == "DENY"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    assert board.client.get("/api/docs").status_code == 404  # Swagger UI needs inline script


def test_pages_hold_no_inline_script_or_style(board: BoardClient) -> None:
    import re

    sub_id = board.submit(synthetic_bundle(board.rows)).json()["id"]
    for path in ("/", "/agentic", f"/submissions/{sub_id}"):
        page = board.client.get(path).text
        scripts = re.findall(r"<script\b[^>]*>", page)
        assert scripts and all('src="' in tag for tag in scripts), (path, scripts)
        bodies = re.findall(r"<script[^>]*>(.*?)</script>", page, flags=re.DOTALL)
        assert [body.strip() for body in bodies] == [""] * len(scripts), path
        assert not re.search(r"\son[a-z]+\s*=", page), path  # no event-handler attributes
        assert " style=" not in page and "<style" not in page, path


def test_csv_cells_that_start_a_formula_are_defused(board: BoardClient) -> None:
    import csv
    import io

    bundle = synthetic_bundle(board.rows, display_name='=HYPERLINK("http://evil","x")')
    bundle["model"]["organisation"] = "@SUM(A1)"
    bundle["model"]["provider"] = "+cmd"
    board.submit(seal(bundle))
    board.submit(synthetic_bundle(board.rows, display_name="-2+3", trials=1))
    rows = list(csv.DictReader(io.StringIO(board.client.get("/api/entries.csv").text)))
    cells = {r["display_name"]: r for r in rows}
    assert set(cells) == {'\'=HYPERLINK("http://evil","x")', "'-2+3"}
    first = cells['\'=HYPERLINK("http://evil","x")']
    assert first["organisation"] == "'@SUM(A1)" and first["provider"] == "'+cmd"
    assert float(first["overall"]) == pytest.approx(1.0)  # numbers stay numbers
