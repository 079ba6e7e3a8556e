"""Configuration checks, litellm's pricing, and usage accounting.

What both transports share (requests on the wire, tokens, refusals) is test_llm_transports.py.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from coordqa.errors import ConfigError, ModelError
from coordqa.llm import (
    CallPolicy,
    GenerateConfig,
    Message,
    ScriptedModel,
    UsageLedger,
    get_model,
)
from coordqa.llm.testing import LocalOpenAIServer

MESSAGES = [Message("system", "Be brief."), Message("user", "Pick.\nA. yes\nB. no")]


def test_check_reports_the_missing_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    model = get_model("anthropic/claude-3-5-haiku-latest")
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        model.check()


def test_missing_key_raises_before_anything_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with LocalOpenAIServer() as server:
        model = get_model("anthropic/claude-3-5-haiku-latest", api_base=server.base_url)
        with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
            asyncio.run(model.generate(MESSAGES))
        assert server.count == 0


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_key_variable_fails_the_check(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", value)
    with pytest.raises(ModelError, match="OPENAI_API_KEY.*empty|empty.*OPENAI_API_KEY"):
        get_model("openai/gpt-4o-mini").check()
    assert os.environ["OPENAI_API_KEY"] == value  # the check leaves the environment as it was


@pytest.mark.parametrize("value", [None, "", "  "])
def test_a_missing_key_is_said_without_importing_litellm(
    monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    """litellm takes 4 to 20 s to import: a key that is not there is said before that."""
    from coordqa.llm import litellm_provider

    def refuse() -> None:
        raise AssertionError("litellm was imported to say that a key is missing")

    monkeypatch.setattr(litellm_provider, "import_litellm", refuse)
    if value is None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", value)
    state = "is not set" if value is None else r"is set but empty \(OPENAI_API_KEY\)"
    with pytest.raises(
        ModelError,
        match=f"its API key {state}. Set .*eval, eval-set, agentic run and agentic grid take "
        "--api-key-env",
    ):
        get_model("openai/gpt-4o").check()


def test_the_key_variables_known_without_litellm_are_litellms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from coordqa.llm.litellm_provider import KEY_VARIABLES, import_litellm

    litellm = import_litellm()
    for prefix, variable in KEY_VARIABLES.items():
        monkeypatch.delenv(variable, raising=False)
        assert litellm.validate_environment(model=f"{prefix}/m")["missing_keys"] == [variable]
        monkeypatch.setenv(variable, "sk-test")
        assert litellm.validate_environment(model=f"{prefix}/m")["missing_keys"] == []


def test_an_empty_explicit_key_fails_the_check() -> None:
    with pytest.raises(ModelError, match="API key given for model 'openai/m' is empty"):
        get_model("openai/m", api_key=" ").check()


def test_check_reports_an_unknown_provider_with_suggestions() -> None:
    with pytest.raises(ModelError, match="unknown litellm provider 'opeani'.*'openai'"):
        get_model("opeani/gpt-4o").check()


@pytest.mark.parametrize(
    ("model", "suggested"),
    [("opneai/gpt-4o", "'openai'"), ("antropic/claude-x", "'anthropic'"), ("foo/bar", None)],
)
def test_an_unknown_provider_is_offered_only_close_names(model: str, suggested: str | None) -> None:
    """Blind walkthrough: ``foo/bar`` was offered 'oobabooga', 'black_forest_labs', 'darkbloom'.

    A typo gets its provider first; a prefix like no provider gets none, only how to list them.
    """
    with pytest.raises(ModelError) as raised:
        get_model(model).check()
    message = str(raised.value)
    if suggested is None:
        assert "Did you mean" not in message, message
    else:
        assert f"Did you mean {suggested}" in message, message
    assert "full list: https://docs.litellm.ai/docs/providers" in message, message


def test_a_priced_model_costs_its_tokens_at_litellms_prices(
    local_server: LocalOpenAIServer,
) -> None:
    model = get_model(
        "openai/gpt-4o-mini", api_base=local_server.base_url, cache=None, transport="litellm"
    )
    reply = asyncio.run(model.generate(MESSAGES))
    import litellm

    prompt, completion = litellm.cost_per_token("gpt-4o-mini", 7, 2)  # the server counts words
    assert reply.usage.cost == pytest.approx(prompt + completion) and reply.usage.cost > 0


def test_an_unpriced_model_stays_unknown_and_is_looked_up_once(
    local_server: LocalOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A price miss walks litellm's fallbacks (milliseconds): remembered after the first."""
    from coordqa.llm.litellm_provider import import_litellm

    litellm = import_litellm()
    lookups = []
    real = litellm.completion_cost

    def counted(**kwargs: object) -> float:
        lookups.append(kwargs["model"])
        return real(**kwargs)

    monkeypatch.setattr(litellm, "completion_cost", counted)
    model = get_model(
        "openai/test-model", api_base=local_server.base_url, cache=None, transport="litellm"
    )
    replies = [asyncio.run(model.generate(MESSAGES, trial=trial)) for trial in range(3)]
    assert [reply.usage.cost for reply in replies] == [None, None, None]
    assert lookups == ["openai/test-model"]
    assert model.usage.total().usage.cost is None


def test_calls_go_around_litellms_wrapper_unless_litellm_has_callbacks(
    local_server: LocalOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """acompletion's thread pool, pricing and logging run only where the user set litellm up to
    call back (their callbacks then run as usual)."""
    from coordqa.llm.litellm_provider import import_litellm

    litellm = import_litellm()
    through_wrapper = []
    real = litellm.acompletion

    async def counted(**kwargs: object) -> object:
        through_wrapper.append(kwargs["model"])
        return await real(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", counted)
    model = get_model(
        "openai/test-model", api_base=local_server.base_url, cache=None, transport="litellm"
    )
    assert asyncio.run(model.generate(MESSAGES)).text == "Answer: A"
    assert through_wrapper == []
    logged = []
    monkeypatch.setattr(litellm, "success_callback", [lambda *args: logged.append(args)])
    assert asyncio.run(model.generate(MESSAGES, trial=1)).text == "Answer: A"
    assert through_wrapper == ["openai/test-model"]


def test_ledger_sums_per_role_and_per_model() -> None:
    ledger = UsageLedger()
    tom = ScriptedModel(["a b", "c"], name="tom-model", ledger=ledger)
    act = get_model("scripted", ledger=ledger)

    async def main() -> None:
        await tom.generate(MESSAGES, role="tom")
        await tom.generate(MESSAGES, role="verifier")
        await act.generate(MESSAGES, role="action")

    asyncio.run(main())
    roles = ledger.by_role()
    assert sorted(roles) == ["action", "tom", "verifier"]
    assert (
        roles["tom"].usage.completion_tokens == 2 and roles["verifier"].usage.completion_tokens == 1
    )
    models = ledger.by_model()
    assert models["tom-model"].requests == 2 and models["scripted"].requests == 1
    total = ledger.total()
    assert total.requests == 3 and total.usage.calls == 3 and total.usage.cost == 0.0


def test_policy_values_are_validated_naming_the_parameter_not_a_flag() -> None:
    """Walkthrough 18, O1: the library said ``--max-attempts must be >= 1`` to a Python caller
    of ``CallPolicy(max_attempts=0)``; it names the parameter, and a command its own flag."""
    from coordqa.errors import SettingError

    with pytest.raises(SettingError, match="^max_attempts must be >= 1, got 0$") as refused:
        CallPolicy(max_attempts=0)
    assert refused.value.setting == "max_attempts"
    assert refused.value.named("--max-attempts") == "--max-attempts must be >= 1, got 0"
    with pytest.raises(SettingError, match="^temperature must be >= 0, got -1$"):
        GenerateConfig(temperature=-1)
    with pytest.raises(SettingError, match="^max_total_s must be > 0, got 0$"):
        CallPolicy(max_total_s=0)
    with pytest.raises(SettingError) as sampling:
        GenerateConfig(extra={"top_p": 0.5})
    assert sampling.value.setting == "top_p", str(sampling.value)
    assert str(sampling.value) == (
        "model argument 'top_p' is coordqa's own sampling setting: give it as top_p"
    )
    with pytest.raises(
        SettingError,
        match="^model_args stream: not a provider setting of its own: coordqa sets it itself$",
    ) as own:
        GenerateConfig(extra={"stream": True})
    assert own.value.setting == "model_args"


def test_get_model_passes_a_model_through_but_not_with_other_arguments() -> None:
    model = ScriptedModel(["x"])
    assert get_model(model) is model
    with pytest.raises(ConfigError):
        get_model(model, api_base="http://x")
