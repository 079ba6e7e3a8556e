"""The ``bot`` model: agents playing it must play exactly what the game's strong policy plays.

bot answers from the strong policy acting from the agent's own seat feed, so an agent with a
pipeline that loses nothing (option letters, verifier, plans, grounding) moves as the policy
moves: the same decisions at every step, hence the same score. The expectations follow from
that design, not from a run: identical trajectories, full agreement at noise 0, none at noise 1.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from coordqa.agentic import EpisodeSpec, run_match
from coordqa.agentic.agents import prompts
from coordqa.agentic.bot import BotProvider
from coordqa.choices import OPTION_LABELS
from coordqa.errors import ModelError
from coordqa.games import PLAYERS, Observation, game_profile, make_game
from coordqa.games.feed import SeatFeed
from coordqa.leaderboard.verify import VerificationError, refuse_unrankable
from coordqa.llm import Message, Model, get_model

SHORT = {"overcooked": {"horizon": 30}}
"""Overcooked episodes are cut short; the other games end by their rules within seconds."""

LAYOUTS = {"overcooked": "forced_coordination"}


def episode(game: str, agent: str, model: str | None, partner: str | None = None, seed: int = 0):
    spec = EpisodeSpec(
        game=game,
        layout=LAYOUTS.get(game, make_game(game).layout),
        seed=seed,
        agent=agent,
        partner=partner,
        model=model,
        game_options=SHORT.get(game, {}),
    )
    return run_match(spec)


def moves(played) -> list[dict[int, str]]:
    return [step.decisions for step in played.trajectory.steps]


@pytest.mark.parametrize("agent", ["llm", "cac", "hm"])
@pytest.mark.parametrize(
    ("game", "partner"),
    [
        ("hanabi", None),
        ("hanabi", "hanabi-piers"),
        ("overcooked", None),
        ("collab_capture", None),
        ("collab_escape", "escape-greedy"),
    ],
)
def test_an_agent_playing_bot_moves_as_the_strong_policy(
    agent: str, game: str, partner: str | None
) -> None:
    strong = game_profile(game).strong_policy
    assert strong is not None
    reference = episode(game, strong, None, partner)
    played = episode(game, agent, "bot", partner)
    assert moves(played) == moves(reference)
    assert played.score == reference.score
    for seat in played.spec.agent_seats:
        stats, agreement = played.agent_stats[seat], played.agreement[seat]
        assert stats["fallbacks"] == 0 and stats["verifier_rejections"] == 0
        assert agreement.error is None and agreement.policy == strong
        assert agreement.decisions > 0 and agreement.agreed == agreement.decisions


LLM_AGENTS = sorted(name for name, spec in PLAYERS.items() if spec.kind == "llm")
"""Every registered LLM agent (react, reflexion and planreact too)."""


@pytest.mark.parametrize("agent", LLM_AGENTS)
def test_every_registered_agent_playing_bot_moves_as_the_policy(agent: str) -> None:
    reference = episode("collab_escape", "escape-planner", None, "escape-greedy", seed=1)
    played = episode("collab_escape", agent, "bot", "escape-greedy", seed=1)
    assert moves(played) == moves(reference)


def test_noise_one_never_plays_the_policy_and_noise_is_reproducible() -> None:
    always = episode("collab_escape", "cac", "bot?noise=1")
    for agreement in always.agreement.values():
        assert agreement.decisions > 0 and agreement.agreed == 0
    # the verifier judges against the noisy move: a noisy decision is carried out
    assert all(stats["verifier_rejections"] == 0 for stats in always.agent_stats.values())
    half, again = (episode("hanabi", "llm", "bot?noise=0.5", seed=3) for _ in range(2))
    assert moves(half) == moves(again)
    assert moves(half) != moves(episode("hanabi", "llm", "bot", seed=3))
    agreed = sum(a.agreed for a in half.agreement.values())
    assert 0 < agreed < sum(a.decisions for a in half.agreement.values())


def test_bot_writes_true_beliefs_and_hm_follows_its_plans() -> None:
    belief = run_match(
        EpisodeSpec(
            game="collab_escape",
            layout="default",
            seed=1,
            agent="cac",
            model="bot",
            agent_options={"belief_state": True},
        )
    )
    for stats in belief.agent_stats.values():
        assert stats["belief_facts"] > 0 and stats["belief_correct"] == stats["belief_facts"]
    hm = episode("collab_escape", "hm", "bot")
    for stats in hm.agent_stats.values():
        assert stats["hypotheses_generated"] > 0 and stats["subgoal_actions"] > 0


def _feed_at_start(game_name: str) -> tuple[SeatFeed, Observation]:
    game = make_game(game_name)
    feed = SeatFeed()
    feed.reset(game.seat_view(0), 0, 0)
    observation = Observation.of(game, 0)
    feed.act(observation)
    return feed, observation


def _ask(model: Model, messages: list[Message], feed: SeatFeed | None, role: str) -> str:
    reply = asyncio.run(model.generate(messages, role=role, context=feed))
    assert reply.ok, reply.error
    return str(reply.text)


def test_the_verifier_accepts_only_the_policy_move() -> None:
    feed, observation = _feed_at_start("collab_capture")
    model = get_model("bot")
    legal = observation.legal_actions
    actions = _ask(model, prompts.action_messages("collab_capture", "", "m", legal), feed, "action")
    letter = actions.splitlines()[-1].removeprefix("Action: ")
    chosen = legal[OPTION_LABELS.index(letter)]
    for proposal in legal:
        messages = prompts.verifier_messages("collab_capture", "", "m", legal, proposal, "")
        verdict = _ask(model, messages, feed, "verifier").splitlines()[-1]
        assert verdict == ("Verification: Okay" if proposal == chosen else "Verification: Not Okay")
    assert isinstance(model.provider, BotProvider)
    assert model.provider.tally.verdicts == {"okay": 1, "not_okay": len(legal) - 1}


def test_bot_refuses_calls_without_a_seat_feed() -> None:
    # a CoordinationQA question has no seat: the refusal is fatal, so a run stops at once
    reply = asyncio.run(get_model("bot").generate([Message("user", "A. wait\nB. go")]))
    assert not reply.ok and reply.error_kind == "fatal"
    assert "agentic episodes only" in str(reply.error)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("bot?noise=1.5", "noise must be in [0, 1]"),
        ("bot?noise=x", "noise must be a number"),
        ("bot?temperature=1", "unknown argument(s) temperature"),
        ("bot?noise", "arguments must read like"),
    ],
)
def test_bad_bot_arguments_are_refused_by_name(name: str, problem: str) -> None:
    with pytest.raises(ModelError, match=re.escape(problem)):
        get_model(name)
    for good, noise in (("bot", 0.0), ("bot?noise=0.25", 0.25)):
        provider = get_model(good).provider
        assert isinstance(provider, BotProvider) and provider.options.noise == noise


def test_the_leaderboard_refuses_bot_by_name_and_only_bot() -> None:
    for name in ("bot", "bot?noise=0.1"):
        with pytest.raises(VerificationError, match="never ranked"):
            refuse_unrankable(name)
    for name in ("random", "scripted", "openai/gpt-4o", "some-plugin-model", None):
        refuse_unrankable(name)
