"""Retries at the HTTP boundary: both transports against the local OpenAI-compatible server.

Every test that asks the server runs on the direct transport and on litellm's two paths for
``openai/`` models: part of the contract the transports share (with test_llm_transports.py).
"""

from __future__ import annotations

import asyncio
import os
import random
import time

import pytest

from coordqa.llm import CallPolicy, Message, Reply, RetryDecision, ScriptedModel, get_model
from coordqa.llm.litellm_provider import FAST_OPENAI_HANDLER, import_litellm
from coordqa.llm.openai_api import exceeds_context
from coordqa.llm.providers import BrokenReply
from coordqa.llm.retry import (
    REFUSED_WAIT_MAX_S,
    ConnectionBreaker,
    backoff_delay,
    call_with_retries,
    connection_decision,
    is_connection_failure,
    parse_retry_after,
)
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.llm.types import Transport
from coordqa.local_servers import free_port

MESSAGES = [Message("user", "Which option?\nA. wait\nB. move")]


@pytest.fixture(params=["direct", "litellm-http", "openai-sdk"])
def transport(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, openai_key: str
) -> Transport:
    """Each test on the direct transport and on both of litellm's paths for openai/ models:
    its own HTTP handler (coordqa's choice) and the OpenAI SDK (kept when OPENAI_ORGANIZATION
    is set); failures must be classified alike."""
    if request.param == "direct":
        return "direct"
    monkeypatch.setenv(FAST_OPENAI_HANDLER, "true" if request.param == "litellm-http" else "false")
    return "litellm"


def ask(
    server: LocalOpenAIServer, policy: CallPolicy, transport: Transport, trial: int = 0
) -> Reply:
    model = get_model(
        "openai/test-model",
        api_base=server.base_url,
        policy=policy,
        cache=None,
        transport=transport,
    )
    return asyncio.run(model.generate(MESSAGES, trial=trial))


def test_rate_limit_waits_for_retry_after_then_succeeds(
    transport: Transport, fast_policy: CallPolicy
) -> None:
    with LocalOpenAIServer(faults=[Fault.rate_limit(retry_after=0.4)]) as server:
        started = time.monotonic()
        reply = ask(server, fast_policy, transport)
        elapsed = time.monotonic() - started
    assert reply.ok and reply.text == "Answer: A"
    assert reply.attempts == 2 and server.count == 2
    assert elapsed >= 0.4, "the Retry-After of 0.4 s was not honoured"


def test_server_error_is_retried(transport: Transport, fast_policy: CallPolicy) -> None:
    with LocalOpenAIServer(faults=[Fault.error(500), Fault.error(503)]) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.text == "Answer: A" and reply.attempts == 3 and server.count == 3


def test_timeout_is_retried(transport: Transport) -> None:
    policy = CallPolicy(timeout_s=0.5, max_attempts=3, backoff_initial_s=0.0, backoff_max_s=0.0)
    with LocalOpenAIServer(faults=[Fault.slow(3.0)]) as server:
        started = time.monotonic()
        reply = ask(server, policy, transport)
        elapsed = time.monotonic() - started
    assert reply.ok and reply.attempts == 2 and server.count == 2
    assert elapsed < 2.5, "the slow attempt was not cut at its timeout"


def test_each_timed_out_attempt_is_logged_as_it_happens(
    transport: Transport, caplog: pytest.LogCaptureFixture
) -> None:
    """Walkthrough 2, B1: a retried timeout was silent (the CLI shows this log on stderr)."""
    policy = CallPolicy(timeout_s=0.3, max_attempts=2, backoff_initial_s=0.0, backoff_max_s=0.0)
    with LocalOpenAIServer(always=Fault.slow(3.0)) as server:
        reply = ask(server, policy, transport)
    assert not reply.ok
    assert [
        record.getMessage() for record in caplog.records if "attempt" in record.getMessage()
    ] == [
        "attempt 1 of 2 timed out after 0.3 s (--timeout); retrying",
        "attempt 2 of 2 timed out after 0.3 s (--timeout); stopping",
    ]


def test_a_timed_out_attempt_names_its_call_and_concurrent_calls_keep_their_own(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Walkthrough 3, rough 17: identical lines did not say which of 10 calls timed out."""
    from coordqa.llm.call_names import naming_calls

    policy = CallPolicy(max_attempts=2, backoff_initial_s=0.0, backoff_max_s=0.0)
    model = ScriptedModel(lambda messages: TimeoutError(), policy=policy)

    async def question(name: str) -> Reply:
        with naming_calls(name):
            return await model.generate(MESSAGES, role="qa")

    async def both() -> None:
        await asyncio.gather(question("q1 trial 0"), question("q2 trial 1"))

    asyncio.run(both())
    said = sorted(r.getMessage() for r in caplog.records if "attempt" in r.getMessage())
    assert said == [
        "q1 trial 0 (qa): attempt 1 of 2 timed out after 120 s (--timeout); retrying",
        "q1 trial 0 (qa): attempt 2 of 2 timed out after 120 s (--timeout); stopping",
        "q2 trial 1 (qa): attempt 1 of 2 timed out after 120 s (--timeout); retrying",
        "q2 trial 1 (qa): attempt 2 of 2 timed out after 120 s (--timeout); stopping",
    ]
    assert {(r.call, r.attempt.split(" timed")[0]) for r in caplog.records} == {  # type: ignore[attr-defined]
        ("q1 trial 0 (qa)", "attempt 1 of 2"),
        ("q1 trial 0 (qa)", "attempt 2 of 2"),
        ("q2 trial 1 (qa)", "attempt 1 of 2"),
        ("q2 trial 1 (qa)", "attempt 2 of 2"),
    }


@pytest.mark.parametrize(
    "fault", [Fault.invalid_json(), Fault.no_choices(), Fault.missing_content()]
)
def test_broken_200_reply_is_retried(
    transport: Transport, fast_policy: CallPolicy, fault: Fault
) -> None:
    with LocalOpenAIServer(faults=[fault]) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.text == "Answer: A" and reply.attempts == 2 and server.count == 2


@pytest.mark.parametrize("finish_reason", ["stop", "length", "content_filter"])
def test_an_empty_reply_is_the_models_answer_with_its_finish_reason(
    transport: Transport, fast_policy: CallPolicy, finish_reason: str
) -> None:
    """A well-formed 200 with empty content is what the model said: one attempt, no error."""
    with LocalOpenAIServer(faults=[Fault.empty_content(finish_reason)]) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.ok and reply.text == "" and reply.error is None
    assert reply.finish_reason == finish_reason
    assert reply.attempts == 1 and server.count == 1


def test_a_whitespace_reply_is_kept_as_it_came(
    transport: Transport, fast_policy: CallPolicy
) -> None:
    with LocalOpenAIServer(lambda body, index: " \n\n ") as server:
        reply = ask(server, fast_policy, transport)
    assert reply.ok and reply.text == " \n\n " and reply.finish_reason == "stop"
    assert server.count == 1


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (Fault.bad_key(), "Incorrect API key provided"),
        (Fault.unknown_model(), "does not exist"),
        (Fault.bad_parameter(), "Unsupported parameter"),
        (Fault.error(403, "Project does not have access"), "does not have access"),
    ],
)
def test_refused_key_model_or_parameter_is_fatal_with_the_providers_words(
    transport: Transport, fast_policy: CallPolicy, fault: Fault, words: str
) -> None:
    with LocalOpenAIServer(faults=[fault]) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.text is None and not reply.ok and reply.error_kind == "fatal"
    assert reply.error is not None and "not retried" in reply.error and words in reply.error
    assert '{"error"' not in reply.error, "the provider's sentence is shown, not its JSON body"
    assert reply.attempts == 1 and server.count == 1


def test_a_too_long_prompt_fails_only_its_own_call(
    transport: Transport, fast_policy: CallPolicy
) -> None:
    too_long = Fault.error(400, "This model's maximum context length is 8192 tokens.")
    with LocalOpenAIServer(faults=[too_long]) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.error_kind == "failed" and reply.attempts == 1 and server.count == 1


LLAMA_SERVER_TOO_LONG = (  # llama.cpp's own llama-server (tools/server), a prompt over --ctx-size
    '{"error":{"code":400,"message":"request (2769 tokens) exceeds the available context size '
    '(2048 tokens)","type":"exceed_context_size_error","n_prompt_tokens":2769,"n_ctx":2048}}'
)


@pytest.mark.parametrize(
    "fault",
    [Fault.context_exceeded(), Fault.error(400, body=LLAMA_SERVER_TOO_LONG)],
    ids=["llama-cpp-python", "llama-server"],
)
def test_a_prompt_longer_than_the_served_context_fails_for_good_saying_what_to_do(
    transport: Transport, fast_policy: CallPolicy, fault: Fault
) -> None:
    """Walkthrough 23: a 400 for a prompt over the server's context read "HTTP 400 is a
    permanent client error", and the run's advice was to run it again, which fails the same way.
    llama.cpp's server's words (a llama-server 400 was even read as a refused parameter: fatal)."""
    with LocalOpenAIServer(faults=[fault]) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.error_kind == "failed" and reply.attempts == 1 and server.count == 1
    assert reply.error is not None and exceeds_context(reply.error)
    assert "context" in reply.error.partition(";")[0], "the server's own sentence comes first"
    assert "--n_ctx" in reply.error


def test_a_server_error_that_mentions_the_context_is_still_retried(
    transport: Transport, fast_policy: CallPolicy
) -> None:
    busy = Fault.error(500, "This model's maximum context length is 2048 tokens.")
    with LocalOpenAIServer(always=busy) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.attempts == fast_policy.max_attempts and reply.error is not None
    assert not exceeds_context(reply.error)


def test_exhausted_retries_fail_only_that_call(
    transport: Transport, fast_policy: CallPolicy
) -> None:
    with LocalOpenAIServer(always=Fault.error(500)) as server:
        reply = ask(server, fast_policy, transport)
    assert reply.error_kind == "failed" and reply.attempts == fast_policy.max_attempts


def test_dead_server_is_unreachable_after_max_connection_failures(transport: Transport) -> None:
    """10 calls at once to a port where nothing listens: the 3rd refused connection opens the
    breaker, so no call waits through its backoff schedule (6 attempts of up to 60 s)."""
    policy = CallPolicy(max_connection_failures=3, backoff_initial_s=0.5, backoff_max_s=60.0)
    model = get_model(
        "openai/m",
        api_base=f"http://127.0.0.1:{free_port()}/v1",
        policy=policy,
        transport=transport,
    )

    async def ask_many() -> list[Reply]:
        return await asyncio.gather(*(model.generate(MESSAGES, trial=t) for t in range(10)))

    started = time.monotonic()
    replies = asyncio.run(ask_many())
    assert time.monotonic() - started < 5
    assert {r.error_kind for r in replies} == {"unreachable"}
    assert all(r.attempts <= 2 for r in replies)
    error = replies[-1].error or ""
    assert "attempts in a row (--max-connection-failures 3)" in error
    assert "ConnectionRefusedError" in error and "127.0.0.1" in error  # the socket's own words


def test_a_server_that_died_stops_calls_one_at_a_time_within_seconds(
    transport: Transport,
) -> None:
    """Walkthrough 9 #331: a stand-in server killed under ``--concurrency 1`` took ~25 s to stop
    the eval: the first call spent its 6 attempts on the 5xx backoff schedule (1, 2, 4, 8 s...)
    before the second's 4 refusals opened the breaker. A refused connection now waits at most
    REFUSED_WAIT_MAX_S, so the 10 refusals in a row take about 10 x 0.25 s."""
    model = get_model(
        "openai/m", api_base=f"http://127.0.0.1:{free_port()}/v1", transport=transport
    )  # the default policy: 6 attempts, backoff from 1 s, breaker at 10

    async def one_at_a_time() -> list[Reply]:
        return [await model.generate(MESSAGES, trial=trial) for trial in range(3)]

    started = time.monotonic()
    replies = asyncio.run(one_at_a_time())
    assert time.monotonic() - started < 6 * REFUSED_WAIT_MAX_S + 3  # before: ~15 s expected
    assert [r.error_kind for r in replies] == ["failed", "unreachable", "unreachable"]
    assert [r.attempts for r in replies] == [6, 4, 1]


def test_only_a_refused_connection_skips_the_backoff_schedule() -> None:
    policy = CallPolicy()  # backoff from 1 s, doubled, up to 60 s
    rng = random.Random(0)
    refused = RetryDecision("transient", "connection refused", connection=True, refused=True)
    reset = RetryDecision("transient", "connection failure or timeout", connection=True)
    assert max(backoff_delay(policy, n, refused, rng) for n in range(1, 50)) <= REFUSED_WAIT_MAX_S
    assert max(backoff_delay(policy, 6, reset, rng) for _ in range(50)) > 8  # uniform in [0, 32]
    assert connection_decision(ConnectionRefusedError(111, "Connect call failed")) == refused
    assert connection_decision(ConnectionResetError(104, "reset")) == reset
    assert connection_decision(RuntimeError("HTTP 500")) is None


def test_an_answer_closes_the_breaker() -> None:
    breaker = ConnectionBreaker(2)
    breaker.observe(False, "refused")
    breaker.observe(True)
    breaker.observe(False, "refused")
    assert not breaker.open
    breaker.observe(False, "refused")
    assert breaker.open and "last error: refused" in breaker.describe()


def test_connection_failures_are_found_under_the_clients_wrapping() -> None:
    try:
        try:
            raise ConnectionRefusedError(111, "Connect call failed")
        except OSError as refused:
            raise RuntimeError("InternalServerError: Connection error.") from refused
    except RuntimeError as wrapped:
        assert is_connection_failure(wrapped)
    assert not is_connection_failure(RuntimeError("HTTP 500"))


def test_attempts_are_bounded_and_failure_is_an_error_reply(transport: Transport) -> None:
    policy = CallPolicy(max_attempts=3, backoff_initial_s=0.0, backoff_max_s=0.0, timeout_s=2.0)
    with LocalOpenAIServer(faults={i: Fault.error(500) for i in range(10)}) as server:
        reply = ask(server, policy, transport)
    assert reply.text is None and reply.attempts == 3 and server.count == 3
    assert reply.error is not None and "after 3 attempts (--max-attempts)" in reply.error


def test_retry_after_beyond_total_time_gives_up_at_once(transport: Transport) -> None:
    policy = CallPolicy(max_total_s=1.0, backoff_initial_s=0.0, backoff_max_s=0.0, timeout_s=0.5)
    with LocalOpenAIServer(faults=[Fault.rate_limit(retry_after=30)]) as server:
        started = time.monotonic()
        reply = ask(server, policy, transport)
    assert time.monotonic() - started < 5
    assert reply.text is None and server.count == 1
    assert reply.error is not None and "the 1 s one call may take" in reply.error


def test_failed_call_is_counted_as_error_in_the_ledger(
    transport: Transport, fast_policy: CallPolicy
) -> None:
    with LocalOpenAIServer(faults=[Fault.error(401)]) as server:
        model = get_model(
            "openai/test-model", api_base=server.base_url, policy=fast_policy, transport=transport
        )
        reply = asyncio.run(model.generate(MESSAGES, role="verifier"))
    totals = model.usage.by_role()["verifier"]
    assert not reply.ok and totals.errors == 1 and totals.usage.calls == 0


def test_scripted_broken_reply_is_retried_by_the_same_loop(fast_policy: CallPolicy) -> None:
    model = ScriptedModel([BrokenReply("empty"), "Answer: B"], policy=fast_policy)
    reply = asyncio.run(model.generate(MESSAGES))
    assert reply.text == "Answer: B" and reply.attempts == 2


def test_backoff_is_full_jitter_capped_and_retry_after_is_a_floor() -> None:
    policy = CallPolicy(backoff_initial_s=1.0, backoff_max_s=4.0)
    rng = random.Random(7)
    transient = RetryDecision("transient")
    delays = [backoff_delay(policy, n, transient, rng) for n in (1, 2, 3, 10) for _ in range(50)]
    assert all(0.0 <= d <= 4.0 for d in delays)
    assert max(backoff_delay(policy, 1, transient, rng) for _ in range(50)) <= 1.0
    assert backoff_delay(policy, 1, RetryDecision("rate_limit", retry_after=9.0), rng) == 9.0


def test_retry_loop_bounds_total_time() -> None:
    policy = CallPolicy(timeout_s=0.2, max_total_s=0.5, max_attempts=50, backoff_initial_s=0.0)

    async def never(timeout_s: float) -> str:
        await asyncio.sleep(10)
        return "late"

    started = time.monotonic()
    outcome = asyncio.run(call_with_retries(never, lambda exc: RetryDecision("transient"), policy))
    assert time.monotonic() - started < 1.5
    assert outcome.value is None and 2 <= outcome.attempts <= 3


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("2", 2.0),
        (" 0.5 ", 0.5),
        ("-3", 0.0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 10.0),
        ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_header_forms(header: str | None, seconds: float | None) -> None:
    # Delta seconds or an HTTP date (RFC 9110); a date in the past or a negative delta is "now".
    assert parse_retry_after(header, now=1445412470.0) == seconds


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({}, "true"),
        ({"OPENAI_ORGANIZATION": "org-1"}, "None"),
        ({"OPENAI_PROJECT_ID": "proj-1"}, "None"),
        ({FAST_OPENAI_HANDLER: "false"}, "false"),
    ],
)
def test_litellms_http_handler_is_used_unless_the_sdk_must_send_headers(
    setting: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OpenAI SDK sends organization and project headers that litellm's handler does not.

    litellm reads the switch at each call (the fixture above flips it per test), so the choice
    made when coordqa imports litellm is checked in this process."""
    for name in (FAST_OPENAI_HANDLER, "OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    for name, value in setting.items():
        monkeypatch.setenv(name, value)
    import_litellm.cache_clear()  # it configures once per process: an earlier test's call did
    import_litellm()
    assert str(os.environ.get(FAST_OPENAI_HANDLER)) == expected
