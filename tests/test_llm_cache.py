"""The response cache: identical re-runs make no request; trials and errors are kept apart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from coordqa.errors import ConfigError, ModelError
from coordqa.jsonvalues import content_hash
from coordqa.llm import (
    CallPolicy,
    GenerateConfig,
    Message,
    Model,
    Reply,
    ResponseCache,
    Usage,
    cache_key,
    default_cache_dir,
    get_model,
)
from coordqa.llm.testing import Fault, LocalOpenAIServer

QUESTIONS = [[Message("user", f"Question {i}?\nA. yes\nB. no")] for i in range(3)]


def run_all(model: Model, trials: int = 1) -> list[Reply]:
    async def main() -> list[Reply]:
        return [
            await model.generate(q, trial=t, role="qa") for q in QUESTIONS for t in range(trials)
        ]

    return asyncio.run(main())


def test_identical_second_run_makes_zero_requests(
    local_server: LocalOpenAIServer, tmp_path: Path
) -> None:
    cache = ResponseCache(tmp_path / "cache")
    first = run_all(get_model("openai/test-model", api_base=local_server.base_url, cache=cache))
    sent = local_server.count
    again = get_model("openai/test-model", api_base=local_server.base_url, cache=cache)
    second = run_all(again)
    assert sent == 3 and local_server.count == sent, "the re-run sent requests"
    assert [r.text for r in second] == [r.text for r in first]
    assert all(r.cached and r.attempts == 0 for r in second)
    totals = again.usage.total()
    assert totals.cache_hits == 3 and totals.usage.calls == 0 and totals.attempts == 0


def test_trial_index_changes_the_key(local_server: LocalOpenAIServer) -> None:
    model = get_model("openai/test-model", api_base=local_server.base_url)
    run_all(model, trials=2)
    assert local_server.count == 6
    run_all(model, trials=2)
    assert local_server.count == 6


def test_errors_are_not_cached(openai_key: str, tmp_path: Path) -> None:
    policy = CallPolicy(max_attempts=1)
    with LocalOpenAIServer(faults=[Fault.error(500)]) as server:
        model = get_model("openai/test-model", api_base=server.base_url, policy=policy)
        first = asyncio.run(model.generate(QUESTIONS[0]))
        second = asyncio.run(model.generate(QUESTIONS[0]))
    assert not first.ok and second.ok and not second.cached
    assert server.count == 2


def test_key_covers_sampling_and_endpoint_but_not_the_policy() -> None:
    messages = QUESTIONS[0]
    base = cache_key("openai/m", None, messages, GenerateConfig(), 0)
    assert base == cache_key("openai/m", None, list(messages), GenerateConfig(), 0)
    assert base != cache_key("openai/m", None, messages, GenerateConfig(temperature=0.6), 0)
    assert base != cache_key("openai/m", None, messages, GenerateConfig(seed=1), 0)
    assert base != cache_key("openai/m", "http://host:1/v1", messages, GenerateConfig(), 0)
    assert base != cache_key("openai/other", None, messages, GenerateConfig(), 0)
    assert base != cache_key("openai/m", None, QUESTIONS[1], GenerateConfig(), 0)


def test_policy_does_not_change_the_key(local_server: LocalOpenAIServer) -> None:
    url = local_server.base_url
    run_all(get_model("openai/test-model", api_base=url, policy=CallPolicy(concurrency=2)))
    run_all(get_model("openai/test-model", api_base=url, policy=CallPolicy(timeout_s=5)))
    assert local_server.count == 3


def test_cache_none_disables_caching(local_server: LocalOpenAIServer) -> None:
    model = get_model("openai/test-model", api_base=local_server.base_url, cache=None)
    run_all(model)
    run_all(model)
    assert local_server.count == 6 and model.cache is None


def test_default_location_is_the_responses_folder_of_the_cache_root(
    _isolated_cache_dir: Path,
) -> None:
    assert default_cache_dir() == _isolated_cache_dir / "responses"
    assert ResponseCache().path == _isolated_cache_dir / "responses" / "responses.sqlite3"


def test_a_cache_kept_directly_in_the_root_is_still_used(_isolated_cache_dir: Path) -> None:
    # COORDQA_CACHE_DIR used to name the responses folder itself.
    legacy = ResponseCache(_isolated_cache_dir)
    legacy.put("k", "m", "kept", Usage(1, 2, None, calls=1))
    legacy.close()
    assert default_cache_dir() == _isolated_cache_dir
    cached = ResponseCache().get("k")
    assert cached is not None and cached.text == "kept"


def test_cache_persists_across_instances(tmp_path: Path) -> None:
    from coordqa.llm import Usage

    ResponseCache(tmp_path).put("k", "openai/m", "Answer: B", Usage(3, 2, None, 1))
    reopened = ResponseCache(tmp_path)
    hit = reopened.get("k")
    assert hit is not None and hit.text == "Answer: B" and hit.usage.cost is None
    assert len(reopened) == 1 and reopened.clear() == 1 and reopened.get("k") is None


def test_a_cache_hit_needs_no_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A cached reply sends nothing, so a model whose key is missing still answers from it."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    cache = ResponseCache(tmp_path)
    model = get_model("anthropic/claude-3-5-haiku-latest", cache=cache)
    messages = [Message("user", "Which?\nA. yes\nB. no")]
    cache.put(cache_key(model.name, None, messages, GenerateConfig(), 0), model.name, "B", Usage())
    assert model.in_cache(messages) and not model.in_cache(messages, trial=1)
    assert asyncio.run(model.generate(messages)).text == "B"
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        asyncio.run(model.generate(messages, trial=1))


def test_extra_settings_are_part_of_the_key_and_an_empty_one_keeps_old_keys() -> None:
    messages = [Message("user", "Q?\nA. yes\nB. no")]
    plain = cache_key("openai/m", None, messages, GenerateConfig(0.6), 0)
    effort = GenerateConfig(0.6, extra={"reasoning_effort": "high"})
    assert cache_key("openai/m", None, messages, effort, 0) != plain
    before_extra = {  # the key's payload as written before extra settings existed
        "model": "openai/m",
        "api_base": None,
        "messages": [["user", "Q?\nA. yes\nB. no"]],
        "config": {"temperature": 0.6, "top_p": None, "max_tokens": None, "seed": None},
        "trial": 0,
    }
    assert plain == content_hash(before_extra)
    with pytest.raises(
        ConfigError, match="'top_p' is coordqa's own sampling setting: give it as top_p"
    ):
        GenerateConfig(extra={"top_p": 0.5})  # the library names its setting; a command, --top-p
    with pytest.raises(ConfigError, match="coordqa sets it itself"):
        GenerateConfig(extra={"stream": True})


def test_an_empty_reply_is_cached_with_its_finish_reason(openai_key: str, tmp_path: Path) -> None:
    """An empty reply is the model's answer: a rerun is served it, cut at the cap as it was."""
    cache = ResponseCache(tmp_path)
    with LocalOpenAIServer(always=Fault.empty_content("length")) as server:
        model = get_model("openai/test-model", api_base=server.base_url, cache=cache)
        first = asyncio.run(model.generate(QUESTIONS[0]))
        again = asyncio.run(model.generate(QUESTIONS[0]))
    assert server.count == 1
    assert (first.text, first.finish_reason, first.cached) == ("", "length", False)
    assert (again.text, again.finish_reason, again.cached) == ("", "length", True)


def test_replies_cached_by_earlier_versions_are_still_served(tmp_path: Path) -> None:
    """Earlier versions wrote ``responses_v1`` (no finish reason): its replies still count."""
    import sqlite3

    ResponseCache(tmp_path).put("new", "m", "Answer: A", Usage(1, 1, None, 1), "stop")
    with sqlite3.connect(tmp_path / "responses.sqlite3") as connection:
        connection.execute("INSERT INTO responses_v1 VALUES ('old', 'm', 'Answer: B', 3, 2, 0.5)")
    cache = ResponseCache(tmp_path)
    old, new = cache.get("old"), cache.get("new")
    assert old is not None and (old.text, old.finish_reason, old.usage.cost) == (
        "Answer: B",
        None,
        0.5,
    )
    assert new is not None and (new.text, new.finish_reason) == ("Answer: A", "stop")
    assert len(cache) == 2 and cache.clear() == 2 and cache.get("old") is None


def test_one_servers_reply_is_never_served_for_another_servers_model(
    openai_key: str, tmp_path: Path
) -> None:
    """The same litellm name can be two models on two servers (``openai/my-model`` at a vLLM
    and at a llama.cpp server): the endpoint is part of the key, so each server is asked."""
    cache = ResponseCache(tmp_path)
    with LocalOpenAIServer() as first, LocalOpenAIServer() as second:
        asyncio.run(
            get_model("openai/m", api_base=first.base_url, cache=cache).generate(QUESTIONS[0])
        )
        other = get_model("openai/m", api_base=second.base_url, cache=cache)
        reply = asyncio.run(other.generate(QUESTIONS[0]))
    assert (first.count, second.count, reply.cached) == (1, 1, False)
