"""The contract both transports keep, direct and litellm, at the HTTP boundary.

Every test that takes ``transport`` runs on both (the retry contract is test_llm_retry.py, on
both as well). The rest say what one transport does alone: which one serves a model, and the
direct transport's own bounds against a hostile endpoint (redirects, endless bodies, drips,
counts that are not integers), which litellm cannot keep.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coordqa.errors import ModelError
from coordqa.llm import CallPolicy, GenerateConfig, Message, get_model
from coordqa.llm.bounds import MAX_BODY_BYTES, MAX_REPLY_CHARS
from coordqa.llm.openai_api import PLACEHOLDER_KEY
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.llm.types import Transport

MESSAGES = [Message("system", "Be brief."), Message("user", "Pick.\nA. yes\nB. no")]
FAST = CallPolicy(
    timeout_s=3.0, max_attempts=2, max_total_s=20.0, backoff_initial_s=0.0, backoff_max_s=0.0
)


@pytest.fixture(params=["direct", "litellm"])
def transport(request: pytest.FixtureRequest) -> Transport:
    """The transport under test: each contract test runs on both."""
    return request.param  # type: ignore[no-any-return]


def ask(
    server: LocalOpenAIServer,
    transport: Transport,
    config: GenerateConfig | None = None,
    *,
    model: str = "openai/test-model",
    policy: CallPolicy = FAST,
    **options: Any,
) -> Any:
    """One call of ``model`` at ``server`` through ``transport``; the reply."""
    chosen = get_model(
        model, api_base=server.base_url, policy=policy, transport=transport, cache=None, **options
    )
    return asyncio.run(chosen.generate(MESSAGES, config or GenerateConfig()))


# -- the same request ------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["openai", "hosted_vllm"])
@pytest.mark.parametrize(
    "config",
    [
        GenerateConfig(),
        GenerateConfig(temperature=0.6, top_p=0.9, max_tokens=64, seed=7),
        GenerateConfig(
            temperature=0.0,
            extra={
                "reasoning_effort": "low",
                "frequency_penalty": 0.5,
                "stop": ["\n\n"],
                "extra_body": {"top_k": 20, "repetition_penalty": 1.1},
                "chat_template_kwargs": {"enable_thinking": False},
            },
        ),
    ],
    ids=["no-options", "sampling", "model-args"],
)
@pytest.mark.parametrize("key", ["none", "variable", "explicit"])
def test_the_same_options_send_the_same_request_on_both_transports(
    prefix: str, config: GenerateConfig, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request body (as JSON data) and the key a server receives do not depend on the
    transport: what was asked is the same, so the transport is no part of a run's identity."""
    variable = {"openai": "OPENAI_API_KEY", "hosted_vllm": "HOSTED_VLLM_API_KEY"}[prefix]
    for name in ("OPENAI_API_KEY", "HOSTED_VLLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    if key == "variable":
        monkeypatch.setenv(variable, "sk-from-the-variable")
    explicit = {"api_key": "sk-explicit"} if key == "explicit" else {}
    with LocalOpenAIServer() as server:
        for transport in ("direct", "litellm"):
            reply = ask(server, transport, config, model=f"{prefix}/served-name", **explicit)
            assert reply.ok, reply.error
        direct, through_litellm = server.requests
        assert direct == through_litellm
        assert direct["model"] == "served-name"
        assert len(set(server.authorizations)) == 1
    expected = {
        "none": {"openai": f"Bearer {PLACEHOLDER_KEY}", "hosted_vllm": "Bearer fake-api-key"},
        "variable": {
            "openai": "Bearer sk-from-the-variable",
            "hosted_vllm": "Bearer sk-from-the-variable",
        },
        "explicit": {"openai": "Bearer sk-explicit", "hosted_vllm": "Bearer sk-explicit"},
    }[key][prefix]
    assert server.authorizations[0] == expected


def test_sampling_parameters_and_messages_reach_the_server(transport: Transport) -> None:
    config = GenerateConfig(temperature=0.6, top_p=0.9, max_tokens=64, seed=3)
    with LocalOpenAIServer() as server:
        assert ask(server, transport, config).ok
    body = server.requests[0]
    sent = (body["temperature"], body["top_p"], body["max_tokens"], body["seed"])
    assert sent == (0.6, 0.9, 64, 3)
    assert body["messages"] == [{"role": m.role, "content": m.content} for m in MESSAGES]


# -- what comes back -------------------------------------------------------------------------


def test_tokens_come_from_usage_and_an_unpriced_model_costs_unknown(
    transport: Transport,
) -> None:
    with LocalOpenAIServer() as server:
        reply = ask(server, transport)
    # the server counts words: 7 in the prompt ("Be brief." + "Pick. A. yes B. no"), 2 back
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (7, 2)
    assert reply.usage.cost is None, "an unpriced model must report cost None, not 0"
    assert reply.finish_reason == "stop" and reply.model == "openai/test-model"


@pytest.mark.parametrize("counts", [(-(10**9), 3), (5, -1), (10**15, 10**15), (10**6, 2)], ids=str)
def test_implausible_token_counts_are_unknown_and_counted(
    transport: Transport, counts: tuple[int, int]
) -> None:
    """N8: negative counts, or more than the call could hold (a million prompt tokens for a
    prompt of 40 bytes), count as 0 tokens of unknown cost, and are counted as implausible."""
    with LocalOpenAIServer(always=Fault.tokens(*counts)) as server:
        model = get_model(
            "openai/gpt-4o-mini", api_base=server.base_url, policy=FAST, transport=transport
        )
        reply = asyncio.run(model.generate(MESSAGES))
    assert reply.ok and reply.text == "Answer: A"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (0, 0)
    assert reply.usage.cost is None and reply.usage.implausible_counts == 1
    totals = model.usage.total()
    assert totals.usage.total_tokens == 0 and totals.to_json()["implausible_token_counts"] == 1


@pytest.mark.parametrize("finish_reason", ["stop", "length"])
def test_an_empty_reply_is_an_answer_with_its_finish_reason(
    transport: Transport, finish_reason: str
) -> None:
    with LocalOpenAIServer(always=Fault.empty_content(finish_reason)) as server:
        reply = ask(server, transport)
    assert reply.ok and reply.text == "" and reply.finish_reason == finish_reason
    assert server.count == 1


@pytest.mark.parametrize(
    ("fault", "status", "words"),
    [
        (Fault.bad_key(), 401, "Incorrect API key provided"),
        (Fault.error(403, "Project does not have access"), 403, "does not have access"),
        (Fault.bad_parameter(), 400, "Unsupported parameter"),
    ],
)
def test_a_refusal_stops_with_the_same_sentence(
    transport: Transport, fault: Fault, status: int, words: str
) -> None:
    with LocalOpenAIServer(always=fault) as server:
        reply = ask(server, transport)
    assert reply.error_kind == "fatal" and server.count == 1
    assert words in reply.error
    assert f"not retried (HTTP {status}: no call to this model can succeed)" in reply.error


def test_an_unknown_model_is_refused_with_the_models_the_server_serves(
    transport: Transport,
) -> None:
    with LocalOpenAIServer(always=Fault.unknown_model(), models=["qwen-7b", "llama-8b"]) as server:
        reply = ask(server, transport, model="openai/qwen7b")
    assert reply.error_kind == "fatal"
    assert f"the server at {server.base_url} serves qwen-7b, llama-8b" in reply.error
    assert "use --model openai/qwen-7b" in reply.error


def test_calls_in_flight_stay_within_the_endpoints_concurrency(transport: Transport) -> None:
    policy = CallPolicy(concurrency=3, timeout_s=10.0)
    with LocalOpenAIServer(latency_s=0.2) as server:
        model = get_model(
            "openai/m", api_base=server.base_url, policy=policy, cache=None, transport=transport
        )

        async def many() -> list[Any]:
            return await asyncio.gather(*(model.generate(MESSAGES, trial=t) for t in range(12)))

        replies = asyncio.run(many())
    assert all(reply.ok for reply in replies)
    assert server.max_in_flight == 3, "the limiter admits 3 at once, and the pool holds them"


def test_a_long_reply_is_stored_cut_marked_and_never_cached(transport: Transport) -> None:
    """N5: a reply of 200,000 characters (within the body limit) is kept to its bounds, its
    end (the answer) included; a later identical call asks again rather than serve the cut."""
    with LocalOpenAIServer(always=Fault.huge(200_000)) as server:
        model = get_model("openai/m", api_base=server.base_url, policy=FAST, transport=transport)
        first = asyncio.run(model.generate(MESSAGES))
        again = asyncio.run(model.generate(MESSAGES))
    assert first.ok and first.truncated and not again.cached and server.count == 2
    assert MAX_REPLY_CHARS < len(first.text) < MAX_REPLY_CHARS + 200
    assert first.text.endswith("Answer: A") and "characters here" in first.text


# -- which transport -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "api_base", "transport", "chosen"),
    [
        ("openai/m", "http://127.0.0.1:9/v1", "auto", "direct"),
        ("hosted_vllm/m", "http://127.0.0.1:9/v1", "auto", "direct"),
        ("openai/m", "http://127.0.0.1:9/v1", "litellm", "litellm"),
        ("openai/gpt-5", "http://127.0.0.1:9/v1", "auto", "litellm"),  # litellm prices it
        ("openai/gpt-5", "http://127.0.0.1:9/v1", "direct", "direct"),
        ("openai/gpt-4o", None, "auto", "litellm"),
        ("ollama/llama3", "http://127.0.0.1:9", "auto", "litellm"),
        ("lm_studio/m", "http://127.0.0.1:9/v1", "auto", "litellm"),
        ("random", None, "direct", "in-process"),
    ],
)
def test_auto_asks_directly_where_it_applies(
    name: str, api_base: str | None, transport: Transport, chosen: str
) -> None:
    assert get_model(name, api_base=api_base, transport=transport).transport == chosen


@pytest.mark.parametrize(
    ("name", "api_base", "says"),
    [("openai/gpt-4o", None, "has no --api-base"), ("ollama/m", "http://h:1", "goes through")],
)
def test_direct_where_it_does_not_apply_is_refused_with_the_fix(
    name: str, api_base: str | None, says: str
) -> None:
    with pytest.raises(ModelError, match=f"--transport direct serves .*{says}.*--transport"):
        get_model(name, api_base=api_base, transport="direct")


# -- the direct transport against a hostile endpoint (N2, N4) --------------------------------


def test_a_redirect_is_refused_and_its_target_never_called() -> None:
    with LocalOpenAIServer() as target:
        location = f"{target.base_url}/chat/completions"
        with LocalOpenAIServer(always=Fault.redirect(location)) as server:
            reply = ask(server, "direct")
        assert target.hits == 0
    assert reply.error_kind == "fatal" and server.count == 1
    assert "answered 307 (a redirect to " in reply.error and location in reply.error


def test_an_endless_body_is_read_to_its_limit_only() -> None:
    """A body that never ends fails its attempt once 1 MiB has arrived: the client's memory is
    bounded by the limit, and the server could push only what socket buffers hold."""
    with LocalOpenAIServer(always=Fault.endless()) as server:
        reply = ask(server, "direct", policy=CallPolicy(max_attempts=1, timeout_s=30.0))
    assert reply.error_kind == "failed"
    assert f"longer than {MAX_BODY_BYTES:,} bytes" in reply.error
    assert server.paced_bytes < 32 * MAX_BODY_BYTES, "the server kept sending into the void"


def test_a_body_longer_than_the_limit_is_not_read() -> None:
    with LocalOpenAIServer(always=Fault.huge(10 << 20)) as server:
        reply = ask(server, "direct", policy=CallPolicy(max_attempts=1))
    assert "it declares 10,4" in reply.error and "was not read" in reply.error


def test_a_dripped_body_fails_at_the_attempts_deadline() -> None:
    with LocalOpenAIServer(always=Fault.drip(interval_s=0.2)) as server:
        reply = ask(server, "direct", policy=CallPolicy(max_attempts=1, timeout_s=1.0))
    assert reply.error_kind == "failed" and "timed out after 1 s" in reply.error


def test_counts_that_are_not_integers_are_unknown() -> None:
    with LocalOpenAIServer(always=Fault.tokens("12", 1.5)) as server:
        reply = ask(server, "direct")
    assert reply.ok and reply.usage.implausible_counts == 1 and reply.usage.total_tokens == 0


# -- what the direct path costs --------------------------------------------------------------

FIRST_CALL_PROBE = """
import json, sys
from coordqa.evaluation import EvalConfig, evaluate
from coordqa.llm import CallPolicy
seen = []
def progress(p):
    if p.call is not None and not seen:
        seen.append(sorted(m for m in ("litellm", "pandas", "openai") if m in sys.modules))
config = EvalConfig(model="openai/m", api_base=sys.argv[1], limit=3, trials=1, cache=False,
                    out=sys.argv[2], policy=CallPolicy(concurrency=1))
result = evaluate(config, progress=progress)
print(json.dumps({"at_first_call": seen[0], "transport": result.manifest.runtime["transport"],
                  "at_end": sorted(m for m in ("litellm", "pandas") if m in sys.modules)}))
"""


def test_the_direct_path_imports_neither_litellm_nor_pandas(tmp_path: Path) -> None:
    """Issue 39: a run that only asks and stores needs neither; nor do its tables at the end,
    which imported pandas for about 0.3 CPU-s."""
    with LocalOpenAIServer() as server:
        done = subprocess.run(
            [sys.executable, "-c", FIRST_CALL_PROBE, server.base_url, str(tmp_path / "run")],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"at_first_call": [], "transport": "direct", "at_end": []}


def test_eval_says_which_transport_ran_and_counts_implausible_tokens(tmp_path: Path) -> None:
    """The manifest names the transport that ran; the closing counts say how many calls had
    token counts that were not believed (N8: counted, never a reason for anything)."""
    from cli_support import coordqa
    from test_evaluate_support import write_dataset

    from coordqa.store import open_run

    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(always=Fault.tokens(-5, 10**15)) as server:
        for transport, out in (("litellm", "a"), ("auto", "b")):
            result = coordqa(
                "eval", "--model", "openai/m", "--api-base", server.base_url, "--dataset",
                dataset, "--trials", "1", "--no-cache", "--transport", transport, "--out",
                str(tmp_path / out),
            )  # fmt: skip
            assert result.returncode == 0, result.stderr
            assert "3 calls reported token counts that cannot be right" in result.stderr
    assert open_run(tmp_path / "a").manifest.runtime["transport"] == "litellm"
    assert open_run(tmp_path / "b").manifest.runtime["transport"] == "direct"


def test_an_eval_set_gives_its_transport_to_every_member() -> None:
    from coordqa.errors import ConfigError
    from coordqa.evalset import parse_spec

    spec = parse_spec({"models": ["openai/m", "random"], "transport": "litellm"})
    given = {m.model: spec.eval_config(m, "x").transport for m in spec.models}
    assert given == {"openai/m": "litellm", "random": "auto"}  # random calls no server
    assert parse_spec({"models": ["openai/m"]}).transport == "auto"
    with pytest.raises(ConfigError, match="transport"):
        parse_spec({"models": ["openai/m"], "transport": "carrier-pigeon"})


@pytest.mark.parametrize(
    "module",
    [
        "coordqa.llm.bounds",
        "coordqa.llm.addresses",
        "coordqa.llm.providers",
        "coordqa.llm.litellm_provider",
    ],
)
def test_doctests(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
