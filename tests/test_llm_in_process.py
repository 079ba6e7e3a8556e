"""Models that run inside coordqa (random, scripted, bot, llamacpp/ files) call no server, so an
endpoint or key given for one is refused by one rule, never ignored (fourth walkthrough #328:
``eval --model random --api-base URL`` ran, while ``llamacpp/`` refused ``--api-base``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.errors import ConfigError
from coordqa.llm.registry import create_provider

IN_PROCESS = ["random", "scripted", "bot", "bot?noise=0.1", "llamacpp/model.gguf"]


@pytest.mark.parametrize("model", IN_PROCESS)
@pytest.mark.parametrize(
    ("api_base", "api_key", "named"),
    [
        ("http://127.0.0.1:9/v1", None, "--api-base http://127.0.0.1:9/v1"),
        (None, "sk-x", "the API key (--api-key-env)"),
    ],
)
def test_a_model_run_in_this_process_refuses_an_endpoint_or_key(
    model: str, api_base: str | None, api_key: str | None, named: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        create_provider(model, api_base, api_key)
    said = str(refused.value)
    assert said.startswith(f"model {model!r} runs inside coordqa and calls no server: "), said
    assert f"leave {named} out" in said, said
    assert "sk-x" not in said  # a key is never echoed


def test_eval_of_random_with_an_api_base_is_refused_before_a_run_is_made(tmp_path: Path) -> None:
    done = coordqa(
        "eval", "--model", "random", "--api-base", "http://127.0.0.1:9/v1", "--limit", "2",
        "--out", tmp_path / "run",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: model 'random' runs inside coordqa"), line
    assert not (tmp_path / "run").exists()
