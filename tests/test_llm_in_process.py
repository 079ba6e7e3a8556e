"""Models that run inside coordqa (random, scripted, bot, llamacpp/ files) call no server, so an
endpoint or key given for one is refused by one rule, never ignored (fourth walkthrough #328:
``eval --model random --api-base URL`` ran, while ``llamacpp/`` refused ``--api-base``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_support import coordqa

import coordqa as coordqa_api
from coordqa.errors import ConfigError
from coordqa.llm.registry import (
    create_provider,
    refuse_a_timeout,
    refuse_a_transport,
    refuse_unread_model_args,
)

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


READS_NO_MODEL_ARG = ["random", "scripted", "bot", "bot?noise=0.1"]
"""In-process models whose replies read no model argument: random and bot read only the seed
(its own option), scripted reads the messages alone. ``llamacpp/`` passes every one to llama.cpp."""


@pytest.mark.parametrize("model", READS_NO_MODEL_ARG)
def test_a_model_that_reads_no_model_argument_refuses_one(model: str) -> None:
    with pytest.raises(ConfigError) as refused:
        refuse_unread_model_args(model, {"reasoning_effort": "high", "api_key": "sk-x"})
    said = str(refused.value)
    assert said.startswith(f"model {model!r} runs inside coordqa and reads no model argument: "), (
        said
    )
    assert "leave --model-arg reasoning_effort, api_key out" in said and "\n" not in said
    assert "sk-x" not in said and "high" not in said  # names only, never a value


@pytest.mark.parametrize("model", ["llamacpp/model.gguf", "openai/gpt-4o-mini", "hosted_vllm/x"])
def test_a_model_that_reads_model_arguments_takes_them(model: str) -> None:
    refuse_unread_model_args(model, {"chat_format": "gemma", "top_k": 20})  # no refusal


def test_no_model_argument_is_never_refused() -> None:
    refuse_unread_model_args("random", {})


def _spec(tmp_path: Path, entry: str) -> Path:
    spec = tmp_path / "set.yaml"
    spec.write_text(f"models:\n  - {entry}\ndatasets: [example]\nlimit: 1\n")
    return spec


@pytest.mark.parametrize(
    ("command", "model", "named"),
    [
        (["eval", "--model", "random"], "model 'random'", "--model-arg top_k"),
        (["eval-set", "--model", "random"], "model 'random'", "--model-arg top_k"),
        (
            ["agentic", "run", "--agent", "llm", "--game", "collab_capture", "--partner", "self"]
            + ["--model", "bot"],
            "model 'bot'",
            "--model-arg top_k",  # not "--model-arg/model_args" (walkthrough 18, O1)
        ),
        (["agentic", "grid", "ARGS_GRID"], "model 'bot'", "ARGS_GRID's models[0].model_args top_k"),
    ],
)
def test_every_command_refuses_a_model_arg_its_in_process_model_ignores(
    tmp_path: Path, command: list[str], model: str, named: str
) -> None:
    """Before: each ran to the end with the argument silently unused."""
    out = tmp_path / "run"
    grid = tmp_path / "grid.yaml"
    grid.write_text(GRID.replace("[scripted]", "[{name: bot, model_args: {top_k: 20}}]"))
    if "ARGS_GRID" in command:
        done = coordqa(
            *(str(grid) if part == "ARGS_GRID" else part for part in command), "--out", out
        )
    else:
        done = coordqa(*command, "--model-arg", "top_k=20", "--out", out)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {model} runs inside coordqa and reads no model"), line
    assert f"leave {named.replace('ARGS_GRID', str(grid))} out" in line, line
    assert not out.exists()


def test_an_eval_set_spec_names_its_own_entry(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "{model: scripted, model_args: {top_k: 20}}")
    done = coordqa("eval-set", spec, "--out", tmp_path / "set")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: model 'scripted' runs inside coordqa"), line
    assert f"leave {spec}'s models[0].model_args top_k out" in line, line
    assert not (tmp_path / "set").exists()


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ("{model: random, api_base: 'http://127.0.0.1:9/v1'}", "api_base"),
        ("{model: random, api_key_env: MY_KEY}", "api_key_env"),
    ],
)
def test_an_eval_set_spec_names_its_own_endpoint_key(tmp_path: Path, entry: str, key: str) -> None:
    """Walkthrough 18, O1: ``{model: random, api_base: URL}`` in a spec was told ``leave
    --api-base http://... out``, a flag the spec file's user never typed: the spec's key is
    named, by the spec's own check (the set's Python API says it too)."""
    from coordqa.errors import SettingError
    from coordqa.evalset import parse_spec

    spec = _spec(tmp_path, entry)
    done = coordqa("eval-set", spec, "--out", tmp_path / "set")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: model 'random' runs inside coordqa and calls no server"), line
    assert f"{spec}'s models[0].{key}" in line.split(": leave ", 1)[1], line
    assert "--api-base" not in line and "--api-key-env" not in line, line
    assert not (tmp_path / "set").exists()
    with pytest.raises(SettingError) as refused:
        parse_spec(yaml.safe_load(spec.read_text()))
    assert refused.value.setting == f"the eval-set spec's models[0].{key}", str(refused.value)


@pytest.mark.parametrize("model", IN_PROCESS)
@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_a_transport_for_models_that_all_run_in_process_is_refused(
    model: str, transport: str
) -> None:
    """Walkthrough 11 #286: ``--model random --transport direct`` ran in process, silently."""
    with pytest.raises(ConfigError) as refused:
        refuse_a_transport([model], transport)
    said = str(refused.value)
    assert said.startswith(f"--transport {transport} reaches a model behind a server"), said
    assert f"({model!r}) run inside coordqa" in said and "leave --transport out" in said


def test_a_transport_is_taken_where_a_model_calls_a_server() -> None:
    """``auto`` is never refused, and a set or grid with one served model keeps its transport."""
    refuse_a_transport(["random"], "auto")
    refuse_a_transport(["random", "openai/gpt-4o-mini"], "direct")


@pytest.mark.parametrize(
    ("command", "named"),
    [
        (["eval", "--model", "random"], "--transport"),
        (["eval-set", "--model", "random"], "--transport"),
        (
            ["agentic", "run", "--agent", "llm", "--game", "collab_capture", "--partner", "self"]
            + ["--model", "bot"],
            "--transport",  # the option, not "--transport/runtime.transport" (walkthrough 18)
        ),
    ],
)
def test_every_command_refuses_a_transport_its_in_process_model_ignores(
    tmp_path: Path, command: list[str], named: str
) -> None:
    """Before: each ran to the end, the manifest saying ``in-process``, with no word."""
    out = tmp_path / "run"
    done = coordqa(*command, "--transport", "direct", "--out", out)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: --transport direct reaches a model behind a server"), line
    assert f"leave {named} out" in line, line
    assert "/transport" not in line, line  # one name, the option's or the key's (walkthrough 16)
    assert not out.exists()


ANSWER_AT_ONCE = ["random", "scripted", "bot", "bot?noise=0.1"]


@pytest.mark.parametrize("model", ANSWER_AT_ONCE)
def test_a_timeout_for_models_that_all_answer_at_once_is_refused(model: str) -> None:
    """Walkthrough 12: ``--model random --timeout 5`` ran as without it, silently."""
    with pytest.raises(ConfigError) as refused:
        refuse_a_timeout([model], given=True)
    said = str(refused.value)
    assert said.startswith("--timeout bounds how long a model takes to answer"), said
    assert f"({model!r}) answer at once inside coordqa" in said and "leave --timeout out" in said


def test_a_timeout_is_kept_where_a_call_can_take_long() -> None:
    """Not given, a ``llamacpp/`` file (its generation is aborted), or a set or grid with a
    served model: the timeout bounds something, so it is never refused."""
    refuse_a_timeout(["random"], given=False)
    refuse_a_timeout(["llamacpp/model.gguf"], given=True)
    refuse_a_timeout(["random", "openai/gpt-4o-mini"], given=True)


def test_the_library_refuses_a_timeout_its_model_cannot_outlast(tmp_path: Path) -> None:
    """Walkthrough 15: ``coordqa.evaluate`` ran ``random`` with ``CallPolicy(timeout_s=5)``
    as without it, where ``coordqa eval --timeout 5`` was refused; the rule is the library's."""
    import coordqa
    from coordqa.evalset.spec import EvalSetSpec
    from coordqa.llm import CallPolicy

    out = tmp_path / "run"
    timed = coordqa.EvalConfig(
        model="random", dataset="example", limit=1, policy=CallPolicy(timeout_s=5), out=out
    )
    with pytest.raises(ConfigError) as refused:
        coordqa.evaluate(timed)
    said = str(refused.value)
    assert "('random') answer at once inside coordqa" in said, said
    assert said.startswith("policy.timeout_s bounds how long"), said  # walkthrough 16 R7
    assert "leave policy.timeout_s out" in said and "--timeout" not in said, said
    assert not out.exists()
    coordqa.evaluate(coordqa.EvalConfig(model="random", dataset="example", limit=1, out=out))
    mixed = EvalSetSpec.model_validate(
        {"models": ["random", "openai/served"], "datasets": ["example"], "timeout_s": 5}
    )
    timeouts = [mixed.eval_config(m, "example").policy.timeout_s for m in mixed.models]
    assert timeouts == [CallPolicy.timeout_s, 5], timeouts  # a set's timeout is its server's


GRID = (
    "name: t\nversion: 1\nagents: [llm]\nmodels: [scripted]\npartners: [self]\n"
    "games: [{game: collab_capture, seeds: [0]}]\n"
)
"""A grid whose one model answers at once (``runtime`` added by a test)."""


@pytest.mark.parametrize(
    ("command", "named"),
    [
        (["eval", "--model", "random", "--timeout", "5"], "--timeout"),
        (["eval-set", "--model", "scripted", "--timeout", "5"], "--timeout"),
        (["eval-set", "SPEC"], "SPEC's timeout_s"),  # the file's key, not --timeout/timeout_s
        (
            ["agentic", "run", "--agent", "llm", "--game", "collab_capture", "--partner", "self"]
            + ["--model", "bot", "--timeout", "5"],
            "--timeout",
        ),
        (["agentic", "grid", "GRID", "--timeout", "5"], "--timeout"),
        # the grid file's key, not "--timeout/runtime.timeout_s" (walkthrough 18, O1)
        (["agentic", "grid", "TIMED_GRID"], "TIMED_GRID's runtime.timeout_s"),
    ],
)
def test_every_command_refuses_a_timeout_its_models_cannot_outlast(
    tmp_path: Path, command: list[str], named: str
) -> None:
    """Before: each ran to the end as though no --timeout had been given (option or key)."""
    spec = _spec(tmp_path, "{model: random}")
    spec.write_text(spec.read_text() + "timeout_s: 5\n")
    (tmp_path / "grid.yaml").write_text(GRID)
    (tmp_path / "timed.yaml").write_text(GRID + "runtime: {timeout_s: 5}\n")
    files = {"SPEC": spec, "GRID": tmp_path / "grid.yaml", "TIMED_GRID": tmp_path / "timed.yaml"}
    out = tmp_path / "run"
    done = coordqa(*(files.get(part, part) for part in command), "--out", out)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and "bounds how long a model takes to answer" in line
    said_as = named.replace("SPEC", str(spec)).replace("TIMED_GRID", str(files["TIMED_GRID"]))
    assert f"leave {said_as} out" in line, line
    assert "/runtime." not in line and "/timeout_s" not in line, line  # one name
    assert not out.exists()


def test_the_agentic_library_names_the_grid_s_settings_not_the_command_s_flags(
    tmp_path: Path,
) -> None:
    """Walkthrough 18, O1: ``run_grid`` of a grid with ``runtime.timeout_s`` and only models that
    answer at once said ``leave --timeout/runtime.timeout_s out`` to a Python caller, who has no
    flag; the grid's setting is named, and a command shows its own option for it."""
    from coordqa.agentic.grid import parse_grid
    from coordqa.agentic.runner import run_grid
    from coordqa.errors import SettingError

    grid = yaml.safe_load(GRID)
    cases = {"timeout_s": ("runtime.timeout_s", 5), "transport": ("runtime.transport", "direct")}
    for key, (setting, value) in cases.items():
        config = parse_grid({**grid, "runtime": {key: value}})
        with pytest.raises(SettingError) as refused:
            run_grid(config, tmp_path / key)
        said = str(refused.value)
        assert refused.value.setting == setting, said
        assert f"leave {setting} out" in said and f"--{key.split('_')[0]}" not in said, said
        assert not (tmp_path / key).exists()
    with_args = parse_grid({**grid, "models": [{"name": "bot", "model_args": {"top_k": 20}}]})
    with pytest.raises(SettingError) as refused:
        run_grid(with_args, tmp_path / "args")
    said = str(refused.value)
    assert "leave models[0].model_args top_k out" in said and "--model-arg" not in said, said


def test_the_library_refuses_the_transport_the_command_line_refuses(tmp_path: Path) -> None:
    """``coordqa.evaluate`` ran ``random`` with ``transport="direct"`` in process, silently."""
    out = tmp_path / "run"
    config = coordqa_api.EvalConfig(model="random", dataset="example", transport="direct", out=out)
    with pytest.raises(ConfigError) as refused:
        coordqa_api.evaluate(config)
    said = str(refused.value)
    assert said.startswith("transport direct reaches a model behind a server"), said
    assert "leave transport out" in said, said  # the parameter, as the caller wrote it
    assert not out.exists()


def test_a_set_s_transport_is_its_served_models_and_its_in_process_member_runs(
    tmp_path: Path, openai_key: str
) -> None:
    """A set's ``transport: direct`` reaches ``openai/m``; its ``random`` runs in process."""
    from coordqa.evalset import evaluate_set, parse_spec
    from coordqa.llm.testing import LocalOpenAIServer

    out = tmp_path / "set"
    with LocalOpenAIServer() as server:
        spec = {
            "models": ["random", {"model": "openai/m", "api_base": server.base_url}],
            "datasets": ["example"],
            "limit": 2,
            "trials": 1,
            "transport": "direct",
            "out": str(out),
        }
        result = evaluate_set(parse_spec(spec))
    assert result.ok and server.count == 2
    transports = sorted(
        json.loads((out / state.run / "manifest.json").read_text())["runtime"]["transport"]
        for state in result.manifest.members
    )
    assert transports == ["direct", "in-process"]


@pytest.mark.parametrize(
    ("given", "setting", "said"),
    [
        ({"api_base": "http://u:pw@127.0.0.1:9/v1"}, "api_base", "leave api_base http://127.0"),
        ({"api_key_env": "W17B_KEY"}, "api_key_env", "leave the API key (api_key_env) out"),
        ({"model_args": {"top_k": 2}}, "model_args", "leave model_args top_k out"),
    ],
)
def test_the_library_names_the_parameter_of_an_unread_endpoint_key_or_model_argument(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    given: dict[str, object],
    setting: str,
    said: str,
) -> None:
    """Walkthrough 17 R4: ``EvalConfig(model='random', api_base=...)`` was told to leave
    ``--api-base`` out, a plain ConfigError; python-api.md promises a SettingError naming it."""
    from coordqa.errors import SettingError

    monkeypatch.setenv("W17B_KEY", "sk-w17b")
    out = tmp_path / "run"
    config = coordqa_api.EvalConfig(model="random", dataset="example", out=out, **given)  # type: ignore[arg-type]
    with pytest.raises(SettingError) as refused:
        coordqa_api.evaluate(config)
    text = str(refused.value)
    assert refused.value.setting == setting, text
    assert said in text and "--" not in text, text
    assert "pw" not in text and "sk-w17b" not in text, text  # no password, no key
    assert not out.exists()


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--api-base", "http://127.0.0.1:9/v1"], "leave --api-base http://127.0.0.1:9/v1 out"),
        (["--api-key-env", "W17B_KEY"], "leave the API key (--api-key-env) out"),
        (["--model-arg", "top_k=2"], "leave --model-arg top_k out"),
    ],
)
def test_eval_names_the_option_of_an_unread_endpoint_key_or_model_argument(
    options: list[str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("W17B_KEY", "sk-w17b")
    done = coordqa("eval", "--model", "random", "--limit", "1", *options)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert said in line and "api_" not in line and "model_args" not in line, line
