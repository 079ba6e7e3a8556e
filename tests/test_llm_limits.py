"""Concurrency and rate limits, keyed per connection and safe across event loops."""

from __future__ import annotations

import asyncio
import time

from coordqa.llm import (
    CallPolicy,
    LimiterRegistry,
    Limits,
    LocalLimiter,
    Message,
    Model,
    Reply,
    get_model,
    limit,
)
from coordqa.llm.testing import LocalOpenAIServer


def questions(n: int) -> list[list[Message]]:
    return [[Message("user", f"Question {i}?\nA. yes\nB. no")] for i in range(n)]


def ask_all(model: Model, n: int) -> list[Reply]:
    async def main() -> list[Reply]:
        return await asyncio.gather(*(model.generate(q) for q in questions(n)))

    return asyncio.run(main())


def test_concurrency_limit_is_respected_at_the_server(openai_key: str) -> None:
    with LocalOpenAIServer(latency_s=0.1) as server:
        model = get_model(
            "openai/test-model",
            api_base=server.base_url,
            policy=CallPolicy(concurrency=3),
            cache=None,
        )
        replies = ask_all(model, 12)
    assert all(r.ok for r in replies)
    assert server.count == 12
    assert server.max_in_flight == 3


def test_requests_per_minute_limit_spaces_requests(openai_key: str) -> None:
    policy = CallPolicy(requests_per_minute=600)  # 10 per second, bursts of at most 10
    with LocalOpenAIServer() as server:
        model = get_model("openai/test-model", api_base=server.base_url, policy=policy, cache=None)
        asyncio.run(model.generate(questions(1)[0]))  # pays litellm's import before timing
        started = time.monotonic()
        replies = ask_all(model, 15)
        elapsed = time.monotonic() - started
    assert all(r.ok for r in replies)
    assert elapsed >= 0.5, f"15 requests at 10/s after a burst took only {elapsed:.2f} s"


def test_tokens_per_minute_limit_delays_large_requests() -> None:
    policy = CallPolicy(tokens_per_minute=6000)  # 100 tokens per second
    model = get_model("random", policy=policy)
    big = [Message("user", "word " * 100 + "\nA. yes\nB. no")]  # about 100 tokens each
    started = time.monotonic()

    async def main() -> None:
        for trial in range(4):
            await model.generate(big, trial=trial)

    asyncio.run(main())
    assert time.monotonic() - started >= 2.0


def test_limiter_works_across_event_loops() -> None:
    registry = LimiterRegistry()

    async def hold() -> int:
        async with limit("engine", 1, registry=registry):
            await asyncio.sleep(0)
        return 1

    async def main() -> int:
        return sum(await asyncio.gather(*(hold() for _ in range(5))))

    assert [asyncio.run(main()) for _ in range(3)] == [5, 5, 5]


def test_limit_bounds_work_in_flight() -> None:
    registry = LimiterRegistry()
    active, peak = 0, 0

    async def work() -> None:
        nonlocal active, peak
        async with limit("sim", 2, registry=registry):
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.01)
            active -= 1

    async def main() -> None:
        await asyncio.gather(*(work() for _ in range(8)))

    asyncio.run(main())
    assert peak == 2


def test_two_hosts_do_not_share_a_key(openai_key: str) -> None:
    with LocalOpenAIServer() as one, LocalOpenAIServer() as two:
        first = get_model("openai/m", api_base=one.base_url)
        second = get_model("openai/m", api_base=two.base_url)
    assert first.connection_key() != second.connection_key()
    assert first.connection_key().startswith("openai@http://127.0.0.1:")
    assert get_model("openai/a").connection_key() == get_model("openai/b").connection_key()


def test_registry_keeps_one_limiter_per_key_and_is_pluggable() -> None:
    registry = LimiterRegistry()
    first = registry.get("k", Limits(2))
    assert registry.get("k", Limits(3)) is first  # other bounds still share the budget
    registry.configure("k", Limits(2))
    assert registry.get("k", Limits(2)) is first  # same bounds: nothing changes
    registry.configure("k", Limits(5))
    assert registry.get("k", Limits(2)) is not first and registry.limits("k") == Limits(5)
    built: list[str] = []

    def factory(key: str, limits: Limits) -> LocalLimiter:
        built.append(key)
        return LocalLimiter(key, limits)

    registry.use(factory)
    registry.get("k", Limits(2))
    assert built == ["k"] and registry.keys() == ["k"]


def test_models_with_different_limits_share_one_endpoint_budget(openai_key: str) -> None:
    """Two runs on one server, configured with concurrency 2 and 3: at most 3 in flight."""
    with LocalOpenAIServer(latency_s=0.1) as server:
        models = [
            get_model(
                "openai/test-model",
                api_base=server.base_url,
                policy=CallPolicy(concurrency=n),
                cache=None,
            )
            for n in (2, 3)
        ]

        async def main() -> list[Reply]:
            calls = [m.generate(q) for m in models for q in questions(8)]
            return await asyncio.gather(*calls)

        replies = asyncio.run(main())
    assert all(r.ok for r in replies) and server.count == 16
    assert server.max_in_flight == 3
