"""Hanabi game layer: text agrees with the engine, actions round-trip, snapshots replay exactly."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
from pathlib import Path

import pytest

pytest.importorskip("hanabi_learning_environment")

from coordqa.errors import ConfigError, GameError  # noqa: E402
from coordqa.games import make_game, make_player, play_episode, replay  # noqa: E402
from coordqa.games.episode import Trajectory  # noqa: E402
from coordqa.games.hanabi import CROSS_PLAY_SEEDS, SELF_PLAY_SEEDS, Hanabi  # noqa: E402
from coordqa.games.hanabi.engine import COLORS, pyhanabi  # noqa: E402
from coordqa.games.testing import check_game  # noqa: E402

GOLDEN = Path(__file__).parent / "golden" / "hanabi"
COLOR_INDEX = {name: i for i, name in enumerate(COLORS)}


def random_game(seed: int, steps: int) -> Hanabi:
    """A game after up to ``steps`` random legal moves (seeded)."""
    game = make_game("hanabi", seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_terminal():
            break
        player = game.players_to_act()[0]
        game.step({player: rng.choice(game.legal_actions(player))})
    assert isinstance(game, Hanabi)
    return game


STATES = [(seed, steps) for seed in range(6) for steps in (0, 3, 9, 17)]


def parse_knowledge(line: str) -> set[tuple[int, int]]:
    """The cards a printed list allows (``[colours] [ranks] except ...``)."""
    text = re.sub(r" \(touched[^)]*\)$", "", line.split("could be: ", 1)[1])
    colors, ranks = re.findall(r"\[([^\]]*)\]", text)
    cards = {(COLOR_INDEX[c], int(r) - 1) for c in colors.split(", ") for r in ranks.split(", ")}
    gone = text.split(" except ", 1)[1].split(", ") if " except " in text else []
    return cards - {(COLOR_INDEX[n.split()[0]], int(n.split()[1]) - 1) for n in gone}


def engine_knowledge(game: Hanabi, viewer: int, hand: int) -> list[set[tuple[int, int]]]:
    """The cards the engine's hint knowledge allows, per card (no counting)."""
    observation = game.state.observation(viewer)
    return [
        {(c, r) for c in range(5) if k.color_plausible(c) for r in range(5) if k.rank_plausible(r)}
        for k in observation.card_knowledge()[hand]
    ]


def copies_left(game: Hanabi, hidden: int, counted_hand: int | None) -> dict:
    """Copies of each card neither on a stack, nor discarded, nor in ``counted_hand``."""
    left = {(c, r): (3, 2, 2, 2, 1)[r] for c in range(5) for r in range(5)}
    for color, height in enumerate(game.state.fireworks()):
        for rank in range(height):
            left[(color, rank)] -= 1
    seen = list(game.state.discard_pile())
    if counted_hand is not None:
        seen += game.state.player_hands()[counted_hand]
    for card in seen:
        left[(card.color(), card.rank())] -= 1
    return left


@pytest.mark.parametrize(("seed", "steps"), STATES)
def test_description_agrees_with_the_engine(seed: int, steps: int) -> None:
    game = random_game(seed, steps)
    for player in (0, 1):
        lines = game.describe(player).splitlines()
        own = [parse_knowledge(x) for x in lines if x.startswith("Card ")]
        partner = [parse_knowledge(x) for x in lines if " believes " in x]
        hands = game.state.player_hands()
        # My lists: hints, then counting what I see (stacks, discards, the partner's hand);
        # the partner's: hints, then counting public cards only. The truth is always listed.
        for lists, hand, counted, seat in (
            (own, player, 1 - player, 0),
            (partner, 1 - player, None, 1),
        ):
            left = copies_left(game, hand, counted)
            hinted = engine_knowledge(game, player, seat)
            assert len(lists) == len(hinted) == len(hands[hand])
            for listed, allowed, held in zip(lists, hinted, hands[hand], strict=True):
                assert listed <= {card for card in allowed if left[card] > 0}
                assert (held.color(), held.rank()) in listed
        seen = next(x for x in lines if x.startswith("I can see"))
        shown = re.findall(r"\[Card (\d): (\w+) (\d)\]", seen)
        hand = game.state.player_hands()[1 - player]
        assert [(COLOR_INDEX[c], int(r) - 1) for _, c, r in shown] == [
            (card.color(), card.rank()) for card in hand
        ]
        stacks = next(x for x in lines if x.startswith("Current Stacks: "))
        assert [int(h) for h in re.findall(r" (\d)(?:,|$)", stacks)] == game.state.fireworks()
        assert f"Remaining Reveal Tokens: {game.state.information_tokens()}" in lines
        assert f"Remaining Lives: {game.state.life_tokens()}" in lines
        assert f"Deck Size: {game.state.deck_size()}" in lines
        playable = lines[lines.index("The next playable cards for each stack are:") + 1 :]
        for line, color, height in zip(playable, COLORS, game.state.fireworks(), strict=True):
            expected = f"Only {color} {height + 1} can be played on {color} Stack"
            assert line == (f"{color} Stack is Full." if height == 5 else expected)
        history = next(x for x in lines if x.startswith("My Action History: "))
        assert history == f"My Action History: [{', '.join(game.last_actions(player))}]"


@pytest.mark.parametrize(("seed", "steps"), STATES)
def test_every_legal_action_round_trips(seed: int, steps: int) -> None:
    game = random_game(seed, steps)
    if game.is_terminal():
        assert game.players_to_act() == []
        return
    player = game.players_to_act()[0]
    assert game.legal_actions(1 - player) == []
    moves = game.state.legal_moves()
    texts = game.legal_actions(player)
    assert texts == [game.move_to_text(m, player) for m in moves]
    assert len(set(texts)) == len(texts)
    for move, text in zip(moves, texts, strict=True):
        back = game.text_to_move(text, player)
        assert game.hle_game.get_move_uid(back) == game.hle_game.get_move_uid(move)
        loose = game.text_to_move("  " + text.upper().replace(" ", "  "), player)
        assert game.hle_game.get_move_uid(loose) == game.hle_game.get_move_uid(move)
    partner = "Bob" if player == 0 else "Alice"
    assert all(partner in t for t in texts if t.startswith("Reveal"))


def test_action_vocabulary_matches_the_paper() -> None:
    game = make_game("hanabi", seed=SELF_PLAY_SEEDS[0])
    texts = [game.move_to_text(game.hle_game.get_move(uid), 0) for uid in range(20)]
    assert texts[0] == "Discard my Card 0"
    assert texts[7] == "Play my Card 2"
    assert texts[10] == "Reveal Bob's Red color cards"
    assert texts[15] == "Reveal Bob's rank 1 cards"
    assert game.move_to_text(game.hle_game.get_move(14), 1) == "Reveal Alice's Blue color cards"


def test_illegal_text_is_a_helpful_error() -> None:
    game = make_game("hanabi", seed=1)
    legal = game.legal_actions(0)
    with pytest.raises(GameError, match="not a Hanabi action") as info:
        game.step({0: "Play my Card 9"})
    assert legal[0] in str(info.value)
    with pytest.raises(GameError, match="not legal now"):
        game.step({0: "Discard my Card 0"})  # 8 reveal tokens: discarding is illegal
    with pytest.raises(GameError, match="exactly one move"):
        game.step({1: "Play my Card 0"})
    with pytest.raises(GameError, match="not Bob's turn"):
        game.text_to_move("Play my Card 0", 1)
    assert game.snapshot()["moves"] == []


def test_options_seeds_and_layouts_are_checked() -> None:
    with pytest.raises(ConfigError, match="no options"):
        make_game("hanabi", players=3)
    with pytest.raises(ConfigError, match="seed"):
        make_game("hanabi", seed=-1)
    with pytest.raises(ConfigError, match="layout"):
        make_game("hanabi", layout="small")


@pytest.mark.parametrize(("seed", "steps"), [(s, n) for s in range(4) for n in (2, 8, 15)])
def test_snapshot_restores_the_same_state_and_future(seed: int, steps: int) -> None:
    game = random_game(seed, steps)
    snapshot = json.loads(json.dumps(game.snapshot()))
    copy = Hanabi.from_snapshot(snapshot)
    assert isinstance(copy, Hanabi)
    rng = random.Random(seed + 100)
    while True:
        assert [copy.describe(p) for p in (0, 1)] == [game.describe(p) for p in (0, 1)]
        assert str(copy.state) == str(game.state)  # every hand, the deck size, the discards
        assert copy.snapshot() == game.snapshot()
        if game.is_terminal():
            break
        player = game.players_to_act()[0]
        move = rng.choice(game.legal_actions(player))
        assert copy.step({player: move}) == game.step({player: move})
    assert copy.metrics() == game.metrics()


def test_snapshot_keeps_the_last_actions_and_rejects_tampering() -> None:
    game = random_game(3, 5)
    snapshot = game.snapshot()
    assert snapshot["last_actions"] == [game.last_action(0), game.last_action(1)]
    assert snapshot["last_actions"][game.turns[-1].player] == snapshot["moves"][-1]
    with pytest.raises(GameError, match="last_actions"):
        Hanabi.from_snapshot({**snapshot, "last_actions": ["Play my Card 4", None]})
    with pytest.raises(GameError, match="does not replay"):
        Hanabi.from_snapshot({**snapshot, "moves": ["Discard my Card 0"]})
    with pytest.raises(GameError, match="not a Hanabi snapshot"):
        Hanabi.from_snapshot({"game": "overcooked", "moves": []})


def test_partner_last_action_is_described_from_the_viewer_side() -> None:
    game = make_game("hanabi", seed=5)
    assert "Bob's Last Action: Bob has not acted yet." in game.describe(0)
    game.step({0: "Reveal Bob's rank 4 cards"})
    line = next(x for x in game.describe(1).splitlines() if x.startswith("Alice's Last Action"))
    assert line == (
        "Alice's Last Action: Alice revealed my rank 4 cards: my Card 1 and Card 3 "
        "(newly touched: Card 1 and Card 3)."
    )
    game.step({1: "Play my Card 0"})
    line = next(x for x in game.describe(0).splitlines() if x.startswith("Bob's Last Action"))
    assert line.startswith("Bob's Last Action: Bob played his Card 0, a ")


def card_lines(text: str, prefix: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]


def test_touched_cards_are_marked_and_only_earlier_reveals_are_read() -> None:
    # Alice's rank 4 reveal newly touches Bob's Cards 1 and 3; his chop (Card 0) is untouched,
    # so the focus is the newest, Card 3; a 4 cannot be playable on empty stacks: a save clue.
    game = make_game("hanabi", seed=5)
    game.step({0: "Reveal Bob's rank 4 cards"})
    bob = card_lines(game.describe(1), "Card ")
    assert bob[1].endswith(" (touched)") and bob[3].endswith(" (touched)")
    assert not bob[0].endswith(")") and not bob[2].endswith(")")  # untouched: no mark
    alice = card_lines(game.describe(0), "Bob believes his Card ")
    assert alice[3].endswith(" (touched: save clue)") and alice[1].endswith(" (touched)")
    # Bob plays his Card 0: his cards shift left, the saved 4 is now his Card 2, and once the
    # reveal is no longer the latest move Bob sees its reading too.
    game.step({1: "Play my Card 0"})
    assert card_lines(game.describe(1), "Card 2 could be")[0].endswith(" (touched: save clue)")
    assert card_lines(game.describe(0), "Bob believes his Card 2")[0].endswith(
        " (touched: save clue)"
    )


def play(names: tuple[str, str], seed: int) -> Trajectory:
    game = make_game("hanabi", seed=seed)
    players = [make_player(name, "hanabi") for name in names]
    return asyncio.run(play_episode(game, players, seed))


def test_same_seed_same_players_same_trajectory() -> None:
    first = play(("hanabi-convention", "hanabi-piers"), CROSS_PLAY_SEEDS[0])
    second = play(("hanabi-convention", "hanabi-piers"), CROSS_PLAY_SEEDS[0])
    other = play(("hanabi-convention", "hanabi-piers"), CROSS_PLAY_SEEDS[1])
    assert first.to_dict() == second.to_dict()
    assert first.to_dict()["steps"] != other.to_dict()["steps"]


def test_replay_verifies_a_stored_trajectory() -> None:
    trajectory = play(("hanabi-convention", "hanabi-iggi"), 7)
    stored = Trajectory.from_dict(json.loads(json.dumps(trajectory.to_dict())))
    game = replay(stored)
    assert game.score() == trajectory.score
    stored.score += 1
    with pytest.raises(GameError, match="score"):
        replay(stored)


def bombing_move(game: Hanabi) -> str:
    """Score 3 points with playable cards, then play unplayable cards until the lives run out."""
    player = game.players_to_act()[0]
    hand = game.state.player_hands()[player]
    fits = [
        i for i, c in enumerate(hand) if game.state.card_playable_on_fireworks(c.color(), c.rank())
    ]
    if game.score() >= 3:
        misfits = [i for i in range(len(hand)) if i not in fits]
        return f"Play my Card {(misfits or fits)[0]}"
    if fits:
        return f"Play my Card {fits[0]}"
    legal = game.legal_actions(player)
    return "Discard my Card 0" if "Discard my Card 0" in legal else legal[-1]


def test_losing_all_lives_scores_zero() -> None:
    game = make_game("hanabi", seed=11)
    assert isinstance(game, Hanabi)
    before_last_life: float | None = None
    for _ in range(200):
        if game.is_terminal():
            break
        if game.state.life_tokens() == 1:
            before_last_life = game.score()
        game.step({game.players_to_act()[0]: bombing_move(game)})
    assert before_last_life is not None and before_last_life >= 3
    assert game.state.end_of_game_status() == pyhanabi().HanabiEndOfGameType.OUT_OF_LIFE_TOKENS
    assert sum(game.state.fireworks()) >= 3
    assert game.score() == 0
    assert game.metrics()["bombs"] == 3
    assert "Final score: 0." in game.describe(0)


def test_metrics_count_the_turns() -> None:
    trajectory = play(("hanabi-convention", "hanabi-convention"), SELF_PLAY_SEEDS[0])
    metrics = trajectory.metrics
    assert metrics["turns"] == len(trajectory.steps)
    plays = sum(s.executed[next(iter(s.executed))].startswith("Play") for s in trajectory.steps)
    assert metrics["hints"] + metrics["discards"] + plays == metrics["turns"]
    assert metrics["plays"] + metrics["bombs"] == plays
    assert metrics["score"] == trajectory.score == metrics["plays"]


def test_game_description_states_rules_conventions_and_actions() -> None:
    text = make_game("hanabi").game_description()
    for phrase in (
        "added on the right",
        # the end of the game as the engine plays it (checked in the next test)
        "after the last card is drawn, the other player moves, then the player who drew it "
        "moves last",
        # one model of knowledge: the lists already count the visible cards
        "they already contain all the card counting",
        "this game's own conventions",
        "there is no special save for 2s",
        "is a play clue",
        "a 5, a 2 (unless the same card is also elsewhere in that hand) or a critical card",
        "With 2 or more lives left: play a card that a play clue focused",
        "Both players have followed them on every move so far",
        "Reveal Bob's Red color cards",
        "Reveal Bob's rank 1 cards",
        "Play my Card i",
    ):
        assert phrase in text
    assert "basic H-group" not in text


def test_the_game_ends_as_the_rules_say_after_the_last_card() -> None:
    """After the last card is drawn the other player moves, then the drawer, then it is over."""
    game = make_game("hanabi", seed=3)
    assert isinstance(game, Hanabi)
    drawer, after = None, []
    while not game.is_terminal():
        player = game.players_to_act()[0]
        legal = game.legal_actions(player)
        discards = [a for a in legal if a.startswith("Discard")]
        reveals = [a for a in legal if a.startswith("Reveal")]
        before = game.state.deck_size()
        game.step({player: (discards or reveals)[0]})
        if drawer is not None:
            after.append(player)
        elif before > 0 and game.state.deck_size() == 0:
            drawer = player
    assert drawer is not None and after == [1 - drawer, drawer]


def test_conformance_kit_over_whole_games() -> None:
    report = check_game(lambda: make_game("hanabi"), steps=120, seeds=(3, 4))
    assert report.seeds == [3, 4]
    assert all(length > 0 for length in report.lengths)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("COORDQA_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    expected = path.read_text().removesuffix("\n")
    assert text == expected, f"{path} differs.\n--- expected ---\n{expected}\n--- got ---\n{text}"


def test_golden_descriptions() -> None:
    check_golden("seed321_start_alice.txt", make_game("hanabi", seed=321).describe(0))
    trajectory = play(("hanabi-convention", "hanabi-convention"), 45)
    snapshot = {**trajectory.initial, "moves": [], "last_actions": None}
    snapshot["moves"] = [s.executed[next(iter(s.executed))] for s in trajectory.steps[:15]]
    game = Hanabi.from_snapshot(snapshot)
    check_golden("seed45_turn15_bob.txt", game.describe(1))
    check_golden("seed45_turn15_alice.txt", game.describe(0))
