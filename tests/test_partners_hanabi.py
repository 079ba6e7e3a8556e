"""SAD/OBL partners: v0-belief encoder, loading published state dicts, and playing whole games.

The authors' files cannot be downloaded here, so the tests save networks with random weights
under the exact published key names and shapes and load them through the same path.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("hanabi_learning_environment")

from coordqa.agentic.partners import (  # noqa: E402
    PartnerNotReadyError,
    WeightsError,
    add_hanabi,
    hanabi_entries,
    load_hanabi_net,
)
from coordqa.agentic.partners.hanabi_encoder import (  # noqa: E402
    CANONICAL_SIZE,
    DISCARDS,
    FIREWORKS,
    KNOWLEDGE_START,
    LAST_ACTION,
    SLOT_SIZE,
    CanonicalEncoder,
    public_remaining,
    sad_input,
    v0_belief,
)
from coordqa.agentic.partners.hanabi_nets import published_shapes  # noqa: E402
from coordqa.agentic.partners.hanabi_players import HanabiNetPlayer  # noqa: E402
from coordqa.agentic.partners.registry import name_from_path  # noqa: E402
from coordqa.errors import GameError  # noqa: E402
from coordqa.games import Observation, make_game, make_player, play_episode, replay  # noqa: E402


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("COORDQA_HANABI_WEIGHTS", raising=False)


def save_random(path: Path, kind: str, seed: int = 0, prefix: str = "") -> Path:
    generator = torch.Generator().manual_seed(seed)
    state = {
        prefix + key: torch.randn(shape, generator=generator) * 0.05
        for key, shape in published_shapes(kind).items()
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, path)
    return path


# --- encoder -----------------------------------------------------------------------------------


def test_public_remaining_subtracts_discards_and_fireworks() -> None:
    vector = np.zeros(CANONICAL_SIZE)
    vector[DISCARDS.start + 0] = 1  # a Red 1 discarded (Red 1 has bits 0-2)
    vector[DISCARDS.start + 3] = 1  # a Red 2 discarded (bits 3-4)
    vector[DISCARDS.start + 4] = 1  # the other Red 2
    vector[DISCARDS.start + 10 + 9] = 1  # the Yellow 5 (Yellow starts at bit 10)
    vector[FIREWORKS.start + 5 + 2] = 1  # Yellow firework at 3
    remaining = public_remaining(vector).reshape(5, 5)
    assert remaining[0].tolist() == [2, 0, 2, 2, 1]
    assert remaining[1].tolist() == [2, 1, 1, 2, 0]
    assert remaining[2:].tolist() == [[3, 2, 2, 2, 1]] * 3


def test_v0_belief_weights_plausible_cards_by_remaining_copies() -> None:
    vector = np.zeros(CANONICAL_SIZE)
    vector[DISCARDS.start + 0] = 1  # one Red 1 gone: Red counts become 2,2,2,2,1
    own0 = KNOWLEDGE_START
    vector[own0 : own0 + 5] = 1  # slot 0: only Red cards are plausible
    vector[own0 + 25] = 1  # ... because Red was hinted (hint bits stay binary)
    partner4 = KNOWLEDGE_START + 9 * SLOT_SIZE
    vector[partner4 + 4 : partner4 + 25 : 5] = 1  # partner's slot 4: a 5 of any colour
    belief = v0_belief(vector)
    assert belief[own0 : own0 + 5] == pytest.approx([2 / 9, 2 / 9, 2 / 9, 2 / 9, 1 / 9])
    assert belief[own0 + 5 : own0 + 25].sum() == 0
    assert belief[own0 + 25] == 1
    assert belief[partner4 + 4 : partner4 + 25 : 5] == pytest.approx([0.2] * 5)
    empty_slot = KNOWLEDGE_START + 4 * SLOT_SIZE
    assert belief[empty_slot : empty_slot + SLOT_SIZE].sum() == 0
    untouched = np.ones(CANONICAL_SIZE, dtype=bool)
    for slot in range(10):
        untouched[KNOWLEDGE_START + slot * SLOT_SIZE : KNOWLEDGE_START + slot * SLOT_SIZE + 25] = 0
    assert (belief[untouched] == vector[untouched]).all()


def test_first_state_belief_is_the_deck_composition() -> None:
    game = make_game("hanabi", seed=5)
    vector = CanonicalEncoder().encode(game.state.observation(0))
    deck = np.tile([3, 2, 2, 2, 1], 5) / 50
    for slot in range(10):
        start = KNOWLEDGE_START + slot * SLOT_SIZE
        assert vector[start : start + 25] == pytest.approx(deck)
    assert vector[:125].sum() == 5  # Bob's five cards, one-hot each


def test_sad_input_layout() -> None:
    vector = np.arange(CANONICAL_SIZE, dtype=np.float32)
    sad = sad_input(vector)
    assert sad.shape == (838,)
    assert (sad[:125] == 0).all()
    assert (sad[125:783] == vector).all()
    assert (sad[783:] == vector[LAST_ACTION]).all()


# --- loading -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sad", "obl"])
def test_published_files_load_exactly(tmp_path: Path, kind: str) -> None:
    path = save_random(tmp_path / f"{kind}.pthw", kind, prefix="online_net.")
    net = load_hanabi_net(path)
    assert (net.shape.kind, net.shape.hidden, net.shape.lstm_layers) == (kind, 512, 2)
    saved = torch.load(path)
    first = "net.0.weight" if kind == "sad" else "priv_net.0.weight"
    assert torch.equal(net.module.state_dict()[first], saved["online_net." + first])
    assert torch.equal(net.module.state_dict()["fc_a.bias"], saved["online_net.fc_a.bias"])


def test_wrong_shape_names_the_key(tmp_path: Path) -> None:
    path = save_random(tmp_path / "sad.pthw", "sad")
    state = torch.load(path)
    state["fc_a.weight"] = torch.zeros(20, 512)
    torch.save(state, path)
    with pytest.raises(WeightsError, match=r"'fc_a\.weight' has shape \[20, 512\], expected \[21"):
        load_hanabi_net(path)


def test_missing_and_extra_keys_and_wrong_kind(tmp_path: Path) -> None:
    path = save_random(tmp_path / "obl.pthw", "obl")
    state = torch.load(path)
    del state["publ_net.0.bias"]
    torch.save(state, tmp_path / "missing.pthw")
    with pytest.raises(WeightsError, match="missing key 'publ_net.0.bias'"):
        load_hanabi_net(tmp_path / "missing.pthw")
    state = torch.load(path)
    state["mystery.weight"] = torch.zeros(3)
    torch.save(state, tmp_path / "extra.pthw")
    with pytest.raises(WeightsError, match="unexpected keys 'mystery.weight'"):
        load_hanabi_net(tmp_path / "extra.pthw")
    with pytest.raises(WeightsError, match="kind 'obl', not 'sad'"):
        load_hanabi_net(path, kind="sad")
    (tmp_path / "junk.pthw").write_text("not a torch file")
    with pytest.raises(WeightsError, match="not a PyTorch checkpoint"):
        load_hanabi_net(tmp_path / "junk.pthw")


@pytest.mark.parametrize(
    ("content", "size"),
    [(b"junk\n", "5 bytes"), (b"", "0 bytes")],  # the walkthrough's file: torch said "174812789"
)
def test_an_unreadable_weights_file_is_named_with_what_it_is_and_what_to_do(
    tmp_path: Path, content: bytes, size: str
) -> None:
    (tmp_path / "fake.pthw").write_bytes(content)
    with pytest.raises(WeightsError) as caught:
        load_hanabi_net(tmp_path / "fake.pthw")
    message = str(caught.value)
    assert "fake.pthw" in message and size in message
    assert "truncated, corrupt or in another format" in message
    # walkthrough 9 #72: "or retrain it" pointed nowhere (coordqa does not train SAD/OBL)
    assert "github.com/facebookresearch/hanabi_SAD" in message and "add it again" in message
    assert "retrain" not in message and "does not train them" in message
    assert "174812789" not in message


def test_a_truncated_checkpoint_is_said_to_be_one(tmp_path: Path) -> None:
    whole = save_random(tmp_path / "obl.pthw", "obl").read_bytes()
    (tmp_path / "cut.pthw").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(WeightsError, match="cut.pthw .* is not a PyTorch checkpoint"):
        load_hanabi_net(tmp_path / "cut.pthw")


# --- playing -----------------------------------------------------------------------------------


def play(names: tuple[str, str], seed: int) -> object:
    players = [make_player(name, "hanabi") for name in names]
    return asyncio.run(play_episode(make_game("hanabi", seed=seed), players, seed=seed))


def test_registered_nets_play_complete_reproducible_games(tmp_path: Path) -> None:
    add_hanabi(save_random(tmp_path / "sad_2p_1.pthw", "sad", seed=1), name="my-sad")
    add_hanabi(save_random(tmp_path / "b.pthw", "obl", seed=2), name="my-obl", kind="obl")
    assert {e.name: e.kind for e in hanabi_entries().values()} == {"my-sad": "sad", "my-obl": "obl"}
    for names in [("my-sad", "my-obl"), ("obl", "sad")]:  # aliases play the registered nets
        first = play(names, seed=7)
        again = play(names, seed=7)
        assert first.steps and replay(first).is_terminal()  # a complete, valid game
        assert [s.decisions for s in first.steps] == [s.decisions for s in again.steps]
        assert first.score == again.score


def test_both_players_step_every_turn(tmp_path: Path) -> None:
    nets = [load_hanabi_net(save_random(tmp_path / f"{k}.pthw", k)) for k in ("sad", "obl")]
    counts = [0, 0]
    for index, net in enumerate(nets):
        forward = net.module.forward

        def counted(*args: object, _i: int = index, _f: object = forward) -> object:
            counts[_i] += 1
            return _f(*args)  # type: ignore[operator]

        net.module.forward = counted
    players = [HanabiNetPlayer(net, net.shape.kind) for net in nets]
    game = make_game("hanabi", seed=11)
    trajectory = asyncio.run(play_episode(game, players, seed=11))
    assert counts == [len(trajectory.steps)] * 2  # every non-terminal state, acting or not
    hidden = players[1]._hidden
    assert hidden is not None and float(hidden[0].abs().sum()) > 0


def test_greedy_ties_go_to_the_lowest_legal_uid(tmp_path: Path) -> None:
    path = save_random(tmp_path / "flat.pthw", "sad")
    state = torch.load(path)
    state["fc_a.weight"].zero_()
    state["fc_a.bias"].fill_(1.0)
    torch.save(state, path)
    player = HanabiNetPlayer(load_hanabi_net(path), "flat")
    game = make_game("hanabi", seed=3)
    player.reset(game.seat_view(0), 0, seed=3)
    observation = Observation.of(game, 0)
    assert player.choose(observation) == "Play my Card 0"  # uid 5; discards 0-4 are illegal


def test_choose_without_observe_is_an_error(tmp_path: Path) -> None:
    player = HanabiNetPlayer(load_hanabi_net(save_random(tmp_path / "s.pthw", "sad")), "s")
    game = make_game("hanabi", seed=3)
    player.reset(game.seat_view(0), 0, seed=3)
    game.step({0: game.legal_actions(0)[0]})
    with pytest.raises(GameError, match="observe"):
        player.choose(Observation.of(game, 1))


# --- registry ----------------------------------------------------------------------------------


def test_folder_registration_names_files_after_their_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "models"
    save_random(folder / "sad_2p_3.pthw", "sad")
    save_random(
        folder / "icml_OBL1" / "OFF_BELIEF1_SHUFFLE_COLOR0_BZA0_BELIEF_b" / "model0.pthw", "obl"
    )
    monkeypatch.setenv("COORDQA_HANABI_WEIGHTS", str(folder))
    assert sorted(hanabi_entries()) == ["obl1-b", "sad-2p-3"]
    monkeypatch.delenv("COORDQA_HANABI_WEIGHTS")
    added = add_hanabi(folder)
    assert sorted(e.name for e in added) == ["obl1-b", "sad-2p-3"]
    assert sorted(hanabi_entries()) == ["obl1-b", "sad-2p-3"]  # persisted in hanabi.json
    assert name_from_path(Path("op/sad_aux_op/M7.pthw")) == ("op-sad_aux_op-m7", "sad")


def test_alias_without_weights_says_how_to_get_them() -> None:
    with pytest.raises(PartnerNotReadyError, match="add-hanabi PATH --name NAME --kind obl"):
        make_player("obl", "hanabi")


@pytest.mark.parametrize("kind", ["sad", "obl"])
def test_written_out_lstm_step_equals_torch_lstm(tmp_path: Path, kind: str) -> None:
    net = load_hanabi_net(save_random(tmp_path / "n.pthw", kind, seed=4)).module
    generator = torch.Generator().manual_seed(0)
    inputs = torch.randn(3, 512, generator=generator)
    hidden = (
        torch.randn(2, 3, 512, generator=generator),
        torch.randn(2, 3, 512, generator=generator),
    )
    with torch.no_grad():
        mine, (h, c) = net.lstm_step(inputs, hidden)
        theirs, (h_ref, c_ref) = net.lstm(inputs.unsqueeze(0), hidden)
    assert torch.allclose(mine, theirs[0], atol=1e-5)
    assert torch.allclose(h, h_ref, atol=1e-5) and torch.allclose(c, c_ref, atol=1e-5)


def test_net_player_refuses_another_game(tmp_path: Path) -> None:
    player = HanabiNetPlayer(load_hanabi_net(save_random(tmp_path / "s.pthw", "sad")), "s")
    with pytest.raises(GameError, match="play hanabi, not collab_capture"):
        player.reset(make_game("collab_capture"), 0, seed=0)


# --- Other-Play skip connections and the sad alias (issue 16) ----------------------------------


def test_other_play_skip_connection_is_read_from_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "models"
    for index in (2, 4, 10):
        save_random(folder / "op" / "sad_aux_op" / f"M{index}.pthw", "sad", seed=index)
    monkeypatch.setenv("COORDQA_HANABI_WEIGHTS", str(folder))
    entries = hanabi_entries()
    # hanabi_SAD's load_op_model: M0-M2 and M6-M8 without, M3-M5 and M9-M11 with a skip connection
    assert {name: e.skip_connect for name, e in entries.items()} == {
        "op-sad_aux_op-m2": False,
        "op-sad_aux_op-m4": True,
        "op-sad_aux_op-m10": True,
    }
    # the built partner is the skip-connected net: it plays as a net loaded with skip_connect=True
    path = folder / "op" / "sad_aux_op" / "M4.pthw"
    with_skip = HanabiNetPlayer(load_hanabi_net(path, skip_connect=True), "ref")
    without = HanabiNetPlayer(load_hanabi_net(path, skip_connect=False), "ref")
    registered = make_player("op-sad_aux_op-m4", "hanabi")
    moves = {}
    for label, player in (("registered", registered), ("with", with_skip), ("without", without)):
        game = make_game("hanabi", seed=5)
        trajectory = asyncio.run(play_episode(game, [player, player], seed=5))
        moves[label] = [d for step in trajectory.steps for d in step.decisions.values()]
    assert moves["registered"] == moves["with"]
    assert moves["with"] != moves["without"]  # the connection changes the play: it matters


def test_single_file_registration_reads_the_skip_connection_unless_told(tmp_path: Path) -> None:
    path = save_random(tmp_path / "op" / "sad" / "M5.pthw", "sad")
    (entry,) = add_hanabi(path, name="op5")
    assert entry.skip_connect is True
    (entry,) = add_hanabi(path, name="op5-plain", skip_connect=False)
    assert entry.skip_connect is False
    assert {n: e.skip_connect for n, e in hanabi_entries().items()} == {
        "op5": True,
        "op5-plain": False,
    }


def test_version_1_registrations_read_false_as_not_given(tmp_path: Path) -> None:
    import json

    from coordqa.agentic.partners.registry import registrations_file

    path = save_random(tmp_path / "op" / "sad" / "M9.pthw", "sad")
    registrations_file().parent.mkdir(parents=True, exist_ok=True)
    old = {"path": str(path), "kind": "sad", "skip_connect": False}
    registrations_file().write_text(
        json.dumps({"version": 1, "nets": {"old": old}, "directories": []})
    )
    assert hanabi_entries()["old"].skip_connect is True


def test_sad_alias_plays_a_two_player_sad_model_not_other_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coordqa.agentic.partners.registry import alias_target

    folder = tmp_path / "models"
    # alphabetically "op-..." comes before "sad-2p-...": the old alias picked an Other-Play model
    save_random(folder / "op" / "sad" / "M0.pthw", "sad")
    save_random(folder / "sad_2p_10.pthw", "sad")
    save_random(folder / "sad_2p_2.pthw", "sad")
    monkeypatch.setenv("COORDQA_HANABI_WEIGHTS", str(folder))
    assert alias_target("sad", hanabi_entries()).name == "sad-2p-2"  # lowest number, not "10"


def test_sad_alias_refuses_when_only_other_play_models_are_registered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coordqa.agentic.partners import list_partners

    folder = tmp_path / "models"
    save_random(folder / "op" / "sad" / "M0.pthw", "sad")
    save_random(folder / "op" / "sad" / "M1.pthw", "sad")
    monkeypatch.setenv("COORDQA_HANABI_WEIGHTS", str(folder))
    with pytest.raises(PartnerNotReadyError, match="sad_2p_<n>.pthw.*'op-sad-m0', 'op-sad-m1'"):
        make_player("sad", "hanabi")
    row = next(r for r in list_partners() if r.name == "sad")
    assert row.status == "needs weights" and "name one of them" in row.hint


def test_networks_reach_nothing_hidden(tmp_path: Path) -> None:
    from coordqa.games.testing import check_seat_privacy

    nets = [load_hanabi_net(save_random(tmp_path / f"{k}.pthw", k)) for k in ("sad", "obl")]
    players = [HanabiNetPlayer(net, net.shape.kind) for net in nets]
    report = check_seat_privacy(make_game("hanabi", seed=4), players, steps=20)
    assert report.decisions == report.steps > 0  # random nets may bomb out early


def test_encoding_the_seat_observation_matches_the_live_games_encoder() -> None:
    """The encoder bound to a template game gives what pyhanabi's encoder bound to the live game
    gives (the networks see the same input as before they were handed seat views)."""
    import random

    from coordqa.games.hanabi.engine import pyhanabi

    module = pyhanabi()
    encoder, game, rng = CanonicalEncoder(), make_game("hanabi", seed=8), random.Random(8)
    live = module.ObservationEncoder(game.hle_game, module.ObservationEncoderType.CANONICAL)
    while not game.is_terminal():
        for seat in (0, 1):
            seen = game.seat_view(seat).observation().engine
            truth = v0_belief(np.asarray(live.encode(game.state.observation(seat)), np.float32))
            assert (encoder.encode(seen) == truth).all()
        me = game.state.cur_player()
        game.step({me: rng.choice(game.legal_actions(me))})


def test_registering_as_the_level_aliases_advice_says_makes_it_ready(tmp_path: Path) -> None:
    """Walkthrough 23 (h23h item 2): a grid skipping obl1 said to run ``add-hanabi PATH --name
    NAME --kind obl``, and ``--name obl1`` was refused as "already a player name; pick another"
    though no other name made obl1 ready. The advice and the refusal say what does, and doing it
    makes obl1 ready."""
    from coordqa.errors import ConfigError

    with pytest.raises(PartnerNotReadyError, match="--name obl1-a --kind obl") as advice:
        make_player("obl1", "hanabi")
    assert "icml_OBL1/" in str(advice.value) and "add-hanabi FOLDER" in str(advice.value)
    path = save_random(tmp_path / "model0.pthw", "obl")
    refused = "'obl1' is an alias.*--name obl1-a --kind obl"
    with pytest.raises(ConfigError, match=refused) as refusal:
        add_hanabi(path, name="obl1", kind="obl")
    assert "pick another" not in str(refusal.value)
    add_hanabi(path, name="obl1-a", kind="obl")
    assert make_player("obl1", "hanabi") is not None
    with pytest.raises(ConfigError, match="'sad' is an alias.*sad_2p_<n>.pthw"):
        add_hanabi(save_random(tmp_path / "sad_2p_1.pthw", "sad"), name="sad")
