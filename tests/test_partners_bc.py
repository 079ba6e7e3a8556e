"""BC / human-proxy partners: legacy data conversion, training, checkpoints, the unstuck rule.

Nothing here relies on checkpoints trained on this machine: a tiny model is trained on a slice
of the human data into a temporary data folder.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("overcooked_ai_py")

from coordqa.agentic.partners import (  # noqa: E402
    BCCheckpoint,
    PartnerNotReadyError,
    TrainConfig,
    bc,
    list_partners,
    partner_info,
    train_bc,
)
from coordqa.agentic.partners.bc_player import unstuck  # noqa: E402
from coordqa.agentic.partners.overcooked_data import (  # noqa: E402
    ACTION_NAMES,
    check_layout,
    convert_state,
    load_human_data,
    parse_joint_action,
)
from coordqa.errors import ConfigError, DatasetError, GameError, UnknownNameError  # noqa: E402
from coordqa.games import Trajectory, make_game, make_player, play_episode, replay  # noqa: E402

LEGACY = (
    "{'players': [{'position': [5, 2], 'orientation': [0, -1], 'held_object': {'name': 'soup', "
    "'position': [5, 2], 'state': ['onion', 3, 20]}}, {'position': [3, 3], 'orientation': [0, 1]}"
    "], 'objects': {'6,1': {'name': 'onion', 'position': [6, 1]}, '4,3': {'name': 'soup', "
    "'position': [4, 3], 'state': ['onion', 3, 6]}, '3,1': {'name': 'soup', 'position': [3, 1], "
    "'state': ['onion', 2, 0]}}, 'order_list': ['onion'], 'pot_explosion': False}"
)


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(bc, "PACKAGED_DIR", tmp_path / "no-packaged-checkpoints")


def test_convert_legacy_state() -> None:
    state = convert_state(LEGACY, "asymmetric_advantages")
    alice, bob = state.players
    assert (alice.position, alice.orientation, bob.held_object) == ((5, 2), (0, -1), None)
    assert alice.held_object.name == "soup" and alice.held_object.is_ready
    cooking = state.objects[(4, 3)]
    assert (cooking.is_cooking, cooking.cook_time_remaining) == (True, 14)
    waiting = state.objects[(3, 1)]
    assert (waiting.is_idle, len(waiting.ingredients)) == (True, 2)
    assert state.objects[(6, 1)].name == "onion"


def test_parse_joint_action() -> None:
    assert parse_joint_action("[[0, -1], 'INTERACT']") == (0, 5)
    assert parse_joint_action("[[0, 0], [-1, 0]]") == (4, 3)
    with pytest.raises(DatasetError, match="cannot parse"):
        parse_joint_action("[[2, 0], [0, 0]]")
    with pytest.raises(DatasetError, match="cannot parse"):  # one action per player, two players
        parse_joint_action("[[0, 0], [0, 0], 'INTERACT']")


def test_layout_names_map_to_the_data() -> None:
    assert check_layout("forced_coordination") == "random0"
    assert check_layout("counter_circuit_o_1order") == "random3"
    with pytest.raises(ConfigError, match="Did you mean 'cramped_room'"):
        check_layout("cramped_rom")


def test_human_data_gives_96_features_per_player() -> None:
    data = load_human_data("cramped_room", "test", limit=50)
    assert data.features.shape == (100, 96) and data.actions.shape == (100,)
    assert set(data.actions.tolist()) <= set(range(6))
    assert len(data.data_hash) == 64


def test_unstuck_rule() -> None:
    probs = np.array([0.1, 0.1, 0.1, 0.1, 0.5, 0.1])
    assert unstuck(probs, [(1, 1), (2, 2), (2, 2)], [4, 4]) is probs  # moved: unchanged
    result = unstuck(probs, [(2, 2)] * 3, [4, 5, 4])
    assert result[[4, 5]].tolist() == [0.0, 0.0]
    assert result.sum() == pytest.approx(1.0)
    assert result[0] == pytest.approx(0.25)


def test_untrained_partner_says_how_to_train() -> None:
    info = partner_info("hp-coordination_ring")
    assert info.status == "needs training" and "--split test" in info.hint
    with pytest.raises(PartnerNotReadyError, match="train-bc --layout coordination_ring"):
        make_player("hp-coordination_ring", "overcooked")
    with pytest.raises(UnknownNameError, match="Did you mean 'bc-cramped_room'"):
        partner_info("bc-cramped-room")


def test_train_tiny_model(tmp_path: Path) -> None:
    config = TrainConfig("cramped_room", "train", seed=3, max_epochs=2, limit=150)
    reports: list[int] = []
    path, meta = train_bc(config, progress=lambda report: reports.append(report.epoch))
    assert reports == [1, 2]
    assert path == tmp_path / "data" / "partners" / "bc-cramped_room.npz"
    assert (meta["seed"], meta["samples"], meta["epochs"]) == (3, 300, 2)
    assert 0.0 <= meta["val_accuracy"] <= 1.0 and len(meta["data_hash"]) == 64
    checkpoint = BCCheckpoint.load(path)
    assert [w.shape for w in checkpoint.weights[::2]] == [(96, 64), (64, 64), (64, 6)]
    probs = checkpoint.probabilities(np.zeros((3, 96), dtype=np.float32))
    assert probs.shape == (3, 6) and np.allclose(probs.sum(axis=1), 1.0)
    ready = {row.name: row.status for row in list_partners()}
    assert ready["bc-cramped_room"] == "ready" and ready["hp-cramped_room"] == "needs training"


def test_trained_partner_plays_our_game_reproducibly() -> None:
    train_bc(TrainConfig("cramped_room", "train", max_epochs=1, limit=100))

    def episode(seed: int) -> Trajectory:
        game = make_game("overcooked", layout="cramped_room", horizon=30)
        players = [make_player("bc-cramped_room", "overcooked", "cramped_room") for _ in range(2)]
        return asyncio.run(play_episode(game, players, seed))

    first, again, other = episode(1), episode(1), episode(2)
    assert len(first.steps) == 30
    moves = [step.executed for step in first.steps]
    assert all(set(m.values()) <= set(ACTION_NAMES) for m in moves)
    assert moves == [step.executed for step in again.steps]
    assert moves != [step.executed for step in other.steps]
    replay(first)
    with pytest.raises(ConfigError, match="plays Overcooked layout cramped_room"):
        make_player("bc-cramped_room", "overcooked", "forced_coordination")


def test_shipped_checkpoints_make_every_bc_partner_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bc, "PACKAGED_DIR", Path(bc.__file__).parent / "checkpoints")
    rows = [row for row in list_partners() if row.game == "overcooked"]
    assert len(rows) == 10
    assert all(row.status == "ready" and "shipped with coordqa" in row.source for row in rows)
    meta = BCCheckpoint.read_meta(bc.find_checkpoint("hp-forced_coordination"))  # type: ignore[arg-type]
    assert (meta["split"], meta["layout"], meta["kind"]) == ("test", "forced_coordination", "hp")


def test_bc_player_refuses_another_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bc, "PACKAGED_DIR", Path(bc.__file__).parent / "checkpoints")
    player = make_player("bc-cramped_room", "overcooked", "cramped_room")
    with pytest.raises(GameError, match="can only play overcooked, not collab_capture"):
        player.action_probabilities(make_game("collab_capture").seat_view(0), 0)  # type: ignore[attr-defined]
