"""Scripted Hanabi players: registration, legality, seeding, the clue convention, bot quality."""

from __future__ import annotations

import asyncio
import statistics

import pytest

pytest.importorskip("hanabi_learning_environment")

from coordqa.errors import ConfigError, GameError  # noqa: E402
from coordqa.games import PLAYERS, make_game, make_player, play_episode  # noqa: E402
from coordqa.games.episode import Trajectory  # noqa: E402
from coordqa.games.hanabi import Hanabi  # noqa: E402
from coordqa.games.hanabi.convention_player import PLAY, SAVE, read_clue  # noqa: E402
from coordqa.games.hanabi.knowledge import Board, CardKnowledge  # noqa: E402

RULE_AGENTS = [
    "hanabi-iggi",
    "hanabi-piers",
    "hanabi-outer",
    "hanabi-internal",
    "hanabi-van-den-bergh",
    "hanabi-flawed",
    "hanabi-legal-random",
]
ALL = ["hanabi-convention", *RULE_AGENTS]


def play(names: tuple[str, str], seed: int) -> Trajectory:
    game = make_game("hanabi", seed=seed)
    players = [make_player(name, "hanabi") for name in names]
    return asyncio.run(play_episode(game, players, seed))


def test_players_are_registered_for_hanabi_only() -> None:
    for name in ALL:
        spec = PLAYERS.get(name)
        assert spec.games == ("hanabi",) and spec.kind == "scripted" and spec.description
    with pytest.raises(ConfigError, match="cannot play"):
        make_player("hanabi-iggi", "collab_capture")
    with pytest.raises(ConfigError, match="no options"):
        make_player("hanabi-convention", "hanabi", aggressive=True)


def test_hanabi_players_refuse_other_games() -> None:
    player = make_player("hanabi-convention", "hanabi")
    other = make_game("collab_capture")
    with pytest.raises(GameError, match="only play Hanabi"):
        player.reset(other.seat_view(0), 0, 0)


@pytest.mark.parametrize("name", RULE_AGENTS)
def test_rule_agents_finish_games_with_legal_moves(name: str) -> None:
    for seed in (1, 2):
        trajectory = play((name, "hanabi-convention"), seed)
        assert trajectory.final["moves"]  # play_episode raises on an illegal move
        assert 0 <= trajectory.score <= 25


def test_random_players_are_seeded() -> None:
    first = play(("hanabi-legal-random", "hanabi-outer"), 5)
    again = play(("hanabi-legal-random", "hanabi-outer"), 5)
    other = play(("hanabi-legal-random", "hanabi-outer"), 6)
    assert first.final["moves"] == again.final["moves"] != other.final["moves"]


def unknown() -> CardKnowledge:
    return CardKnowledge((0, 1, 2, 3, 4), (0, 1, 2, 3, 4), None, None)


def knows_rank(rank: int) -> CardKnowledge:
    return CardKnowledge((0, 1, 2, 3, 4), (rank,), None, rank)


EMPTY = Board((0, 0, 0, 0, 0), ())


def test_clue_focus_is_the_newest_new_card_unless_it_touches_chop() -> None:
    after = [unknown(), knows_rank(0), unknown(), knows_rank(0), unknown()]
    assert read_clue([False] * 5, after, (1, 3), False, EMPTY).focus == 3
    assert read_clue([False] * 5, after, (1, 3), False, EMPTY).kind == PLAY
    on_chop = [knows_rank(0), unknown(), unknown(), knows_rank(0), unknown()]
    assert read_clue([False] * 5, on_chop, (0, 3), False, EMPTY).focus == 0
    clued_chop = [True, False, False, False, False]
    assert read_clue(clued_chop, on_chop, (0, 3), False, EMPTY).focus == 3


def test_saves_are_rank_five_or_cards_that_cannot_be_playable() -> None:
    fives = [unknown(), unknown(), unknown(), unknown(), knows_rank(4)]
    assert read_clue([False] * 5, fives, (4,), True, EMPTY).kind == SAVE
    threes = [knows_rank(2), unknown(), unknown(), unknown(), unknown()]
    assert read_clue([False] * 5, threes, (0,), False, EMPTY).kind == SAVE
    assert read_clue([False] * 5, threes, (0,), False, Board((2, 0, 0, 0, 0), ())).kind == PLAY
    assert read_clue([True] * 5, threes, (0,), False, EMPTY).focus is None


def test_a_play_clue_is_followed_by_the_play() -> None:
    trajectory = play(("hanabi-convention", "hanabi-convention"), 321)
    first, answer = (s.executed for s in trajectory.steps[:2])
    assert first == {0: "Reveal Bob's rank 1 cards"}  # Bob's 1s are his only playable cards
    assert answer[1].startswith("Play") and trajectory.steps[1].reward == 1


def one_life_bombs(trajectory: Trajectory, seat: int) -> int:
    """Misplays by ``seat`` made while the team had one life left."""
    game = Hanabi.from_snapshot(trajectory.initial)
    count = 0
    for step in trajectory.steps:
        player, action = next(iter(step.executed.items()))
        lives = game.state.life_tokens()
        game.step(step.executed)
        misplayed = action.startswith("Play") and game.state.life_tokens() < lives
        count += player == seat and lives == 1 and misplayed
    return count


@pytest.mark.slow  # plays many games: about 5 s of CPU
def test_convention_bot_quality_and_never_bombing_at_one_life() -> None:
    games = [play(("hanabi-convention", "hanabi-convention"), seed) for seed in range(20)]
    scores = [t.score for t in games]
    assert statistics.mean(scores) >= 18, scores
    assert min(scores) > 0
    crossed = [play(("hanabi-convention", "hanabi-van-den-bergh"), s) for s in range(6)]
    assert sum(one_life_bombs(t, 0) for t in crossed + games) == 0
    assert sum(one_life_bombs(t, 1) for t in games) == 0


def test_reveal_lookahead_from_the_seat_agrees_with_the_engine() -> None:
    """The convention bot's lookahead (partner's visible cards + hint knowledge) is the engine's
    own update of the partner's knowledge, for every legal reveal along random games."""
    import random

    from coordqa.games.hanabi import engine
    from coordqa.games.hanabi.knowledge import after_reveal, hand_knowledge

    checked = 0
    for seed in range(4):
        game, rng = make_game("hanabi", seed=seed), random.Random(seed)
        while not game.is_terminal():
            me = game.state.cur_player()
            mine, theirs = hand_knowledge(game.state, me)
            cards = [(c.color(), c.rank()) for c in game.state.player_hands()[1 - me]]
            for text in (t for t in game.legal_actions(me) if t.startswith("Reveal")):
                after = game.state.copy()
                after.apply_move(game.text_to_move(text, me))
                color, rank = engine.reveal_of(text, me)
                expected = hand_knowledge(after, me)[1]
                assert after_reveal(theirs, cards, color, rank) == expected, (seed, text)
                checked += 1
            game.step({me: rng.choice(game.legal_actions(me))})
    assert checked > 100  # the search was not vacuous (236 reveals over these 4 games)
