"""Offline models: the random baseline and the scripted model, without litellm."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from coordqa.errors import ConfigError, ModelError
from coordqa.llm import (
    NO_OPTIONS_REPLY,
    GenerateConfig,
    Message,
    Model,
    Reply,
    ScriptedModel,
    default_policy,
    get_model,
    option_letters,
)

QUESTION = "Which?\nA. one\nB. two\nC. three\nD. four"


def generate(model: Model, messages: list[Message], **kwargs: Any) -> Reply:
    return asyncio.run(model.generate(messages, **kwargs))


def test_random_is_uniform_over_the_options() -> None:
    model = get_model("random")

    async def main() -> list[str | None]:
        msgs = [Message("user", QUESTION)]
        return [(await model.generate(msgs, trial=t)).text for t in range(2000)]

    counts = Counter(asyncio.run(main()))
    assert set(counts) == {"Answer: A", "Answer: B", "Answer: C", "Answer: D"}
    assert all(400 <= n <= 600 for n in counts.values()), counts


def test_random_is_deterministic_and_seeded_by_seed_messages_and_trial() -> None:
    msgs = [Message("user", QUESTION)]

    def answers(**kwargs: Any) -> list[str | None]:
        model = get_model("random")
        return [generate(model, msgs, trial=t, **kwargs).text for t in range(20)]

    assert answers() == answers()
    assert answers() != answers(config=GenerateConfig(seed=1))
    other = [Message("user", QUESTION + "\nE. five")]
    model = get_model("random")
    assert [generate(model, other, trial=t).text for t in range(20)] != answers()


def test_random_without_options_names_no_option() -> None:
    reply = generate(get_model("random"), [Message("user", "What now?")])
    assert reply.ok and reply.text == NO_OPTIONS_REPLY
    assert option_letters(reply.text) == [] and not any(c.isupper() for c in reply.text)


def test_scripted_list_is_consumed_in_order_and_running_out_fails_loudly() -> None:
    model = ScriptedModel(["Answer: B", "Answer: C"])
    msgs = [Message("user", QUESTION)]
    assert [generate(model, msgs).text for _ in range(2)] == ["Answer: B", "Answer: C"]
    with pytest.raises(ModelError, match="ran out of replies"):
        generate(model, msgs)


def test_scripted_callable_sees_the_messages() -> None:
    model = ScriptedModel(lambda messages: f"echo {len(messages)}: {messages[-1].content[:6]}")
    reply = generate(model, [Message("system", "s"), Message("user", QUESTION)], role="tom")
    assert reply.text == "echo 2: Which?" and model.usage.by_role()["tom"].requests == 1


def test_scripted_exception_becomes_an_error_reply() -> None:
    model = ScriptedModel([RuntimeError("provider exploded")])
    reply = generate(model, [Message("user", QUESTION)])
    assert reply.text is None and reply.error is not None and "provider exploded" in reply.error


def test_scripted_rejects_a_bare_string() -> None:
    with pytest.raises(ConfigError, match="list of replies or a callable"):
        ScriptedModel("Answer: A")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("system", "user", "expected_end"),
    [
        ("Check the plan. End with Verification: Okay or Not Okay", QUESTION, "Verification: Okay"),
        ("Answer with Explanation: ... then Action: <letter>", QUESTION, "Action: A"),
        ("Answer with Explanation: ... then Answer: <letter>", QUESTION, "Answer: A"),
        ("", "B. first listed\nC. second", "Answer: B"),
        ("", "No options here.", "no lettered options to choose from."),
    ],
)
def test_named_scripted_model_default_policy(system: str, user: str, expected_end: str) -> None:
    messages = (
        [Message("system", system), Message("user", user)] if system else [Message("user", user)]
    )
    reply = generate(get_model("scripted"), messages)
    assert reply.text is not None and reply.text.endswith(expected_end)
    assert reply.text == default_policy(messages)


def test_unknown_model_name_gets_suggestions() -> None:
    with pytest.raises(ModelError, match="Did you mean 'random'") as info:
        get_model("randon")
    assert "openai/gpt-4o-mini" in str(info.value)


def test_invalid_messages_are_rejected() -> None:
    model = get_model("random")
    with pytest.raises(ConfigError, match="non-empty sequence of Message"):
        generate(model, [])
    with pytest.raises(ConfigError, match="role"):
        generate(model, [Message("robot", "hi")])  # type: ignore[arg-type]


def test_offline_path_does_not_import_litellm() -> None:
    code = (
        "import asyncio, sys\n"
        "import coordqa.llm as llm\n"
        "m = llm.get_model('random')\n"
        "r = asyncio.run(m.generate([llm.Message('user', 'Q\\nA. x\\nB. y')]))\n"
        "s = asyncio.run(llm.get_model('scripted').generate([llm.Message('user', 'hi')]))\n"
        "assert r.ok and s.ok, (r, s)\n"
        "print('litellm' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "False"
