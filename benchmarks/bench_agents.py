"""Benchmark of the LLM agents: model calls and prompt tokens per decision, and our own overhead.

Run by hand: ``python benchmarks/bench_agents.py [--episodes N] [--horizon T]``. For each agent
(LLM-only, CAC, HM, HM's HE + HR variant, and HM's baselines ReAct, Reflexion and PlanReAct)
and each game, the agent plays as player 0 against the game's scripted bot
with the offline ``scripted`` model (first lettered option, verifier always Okay), and prints
per decision:

- ``calls``: model calls (every role);
- ``words``: prompt tokens as the offline model counts them (whitespace words);
- ``tokens``: prompt tokens estimated by ``litellm.token_counter`` for ``gpt-4o`` (tiktoken
  o200k), from the recorded messages; what a real provider would bill, roughly;
- ``overhead_ms``: time inside ``act`` minus the time during which a model call was in flight
  (the union of the calls' intervals, since HM's predictions run concurrently), so agent code,
  prompt building, game rendering (``describe``) and reply parsing;
- ``model_ms``: gateway time per call with the offline model (limits, accounting, the script).

Everything runs offline on this machine; nothing is sent anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from typing import Any

from coordqa.agentic.records import AgentRecord
from coordqa.games import (
    Observation,
    Player,
    StepResult,
    make_game,
    make_player,
    play_episode,
)
from coordqa.games.seat import SeatView
from coordqa.llm import Model, get_model
from coordqa.records import Exchange

PARTNERS = {
    "hanabi": "hanabi-convention",
    "overcooked": "greedy_human",
    "collab_capture": "capture-greedy",
    "collab_escape": "escape-greedy",
}
AGENTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("llm", {}),
    ("cac", {}),
    ("hm", {}),
    ("hm", {"variant": "he_hr"}),
    ("react", {}),
    ("reflexion", {}),
    ("planreact", {}),
)
"""(agent, options) rows."""


class Timed(Player):
    """Wraps an agent and adds up the wall time spent in its ``act``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        self.inner.reset(view, player, seed)

    async def act(self, observation: Observation) -> str:
        started = time.perf_counter()
        action = await self.inner.act(observation)
        self.seconds += time.perf_counter() - started
        return str(action)

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        self.inner.observe(view, player, result)


class ModelClock:
    """Records the wall-time intervals of a model's calls (patched onto one Model instance)."""

    def __init__(self, model: Model) -> None:
        self.intervals: list[tuple[float, float]] = []
        generate = model.generate

        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await generate(*args, **kwargs)
            finally:
                self.intervals.append((started, time.perf_counter()))

        model.generate = timed  # type: ignore[method-assign]

    def busy(self) -> float:
        """Seconds during which at least one call was in flight."""
        total, end = 0.0, float("-inf")
        for start, stop in sorted(self.intervals):
            if stop > end:
                total += stop - max(start, end)
                end = stop
        return total


def litellm_tokens(messages: list[dict[str, str]]) -> int:
    """Prompt tokens of ``messages`` by litellm's counter (tiktoken for gpt-4o)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return int(litellm.token_counter(model="gpt-4o", messages=messages))


def run(
    agent: str, options: dict[str, Any], game_name: str, episodes: int, horizon: int
) -> dict[str, float]:
    """Play ``episodes`` episodes; return per-decision averages."""
    decisions = calls = words = tokens = 0
    overhead = model_time = 0.0
    for seed in range(episodes):
        records: list[AgentRecord] = []
        game_options = {"horizon": horizon} if game_name == "overcooked" else {}
        game = make_game(game_name, None, seed, **game_options)
        model = get_model("scripted")
        clock = ModelClock(model)
        inner = make_player(agent, game_name, model=model, recorder=records.append, **options)
        timed = Timed(inner)
        asyncio.run(play_episode(game, [timed, make_player(PARTNERS[game_name], game_name)], seed))
        exchanges = [r.to_json() for r in records if isinstance(r, Exchange)]
        stats = inner.stats()  # type: ignore[attr-defined]
        decisions += stats["decisions"]
        calls += len(exchanges)
        words += sum(r["usage"]["prompt_tokens"] for r in exchanges)
        tokens += sum(litellm_tokens(r["messages"]) for r in exchanges)
        overhead += timed.seconds - clock.busy()
        model_time += clock.busy()
    return {
        "decisions": decisions,
        "calls": calls / decisions,
        "words": words / decisions,
        "tokens": tokens / decisions,
        "overhead_ms": 1000 * overhead / decisions,
        "model_ms": 1000 * model_time / max(calls, 1),
    }


def main() -> None:
    """Print one row per (game, agent)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--horizon", type=int, default=100, help="Overcooked timesteps")
    args = parser.parse_args()
    litellm_tokens([{"role": "user", "content": "warm up"}])
    print(
        f"{'game':15} {'agent':16} {'decisions':>9} {'calls/dec':>9} {'words/dec':>9} "
        f"{'tokens/dec':>10} {'overhead ms/dec':>15} {'model ms/call':>13}"
    )
    for game_name in PARTNERS:
        for agent, options in AGENTS:
            row = run(agent, options, game_name, args.episodes, args.horizon)
            label = agent + "".join(f" {v}" for v in options.values())
            print(
                f"{game_name:15} {label:16} {row['decisions']:9d} {row['calls']:9.2f} "
                f"{row['words']:9.0f} {row['tokens']:10.0f} {row['overhead_ms']:15.2f} "
                f"{row['model_ms']:13.2f}"
            )


if __name__ == "__main__":
    main()
