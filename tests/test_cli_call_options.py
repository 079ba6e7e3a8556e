"""One call policy for every command that calls models (issue 37, review rows 3d).

``eval``, ``eval-set``, ``agentic run`` and ``agentic grid`` take the same call options, declared
once (:mod:`coordqa.cli._call_options`): the same flags, help, parsing and refusals. Before,
``agentic run``/``grid`` had no ``--timeout``, ``--max-attempts`` or ``--model-arg`` although
their messages named ``--timeout``, and a server that answers ``GET /models`` but hangs on chat
kept ``agentic run`` for 374 s (3 rounds of the 120 s default with 4 calls in flight).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from cli_support import command_at, command_paths, coordqa
from typer.testing import CliRunner

from coordqa.cli._call_options import CallOptions, EndpointOptions, Timeout
from coordqa.cli._option_groups import option_groups
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.llm.types import CallPolicy

CALL_OPTIONS = (
    "--api-base",
    "--api-key-env",
    "--model-arg",
    "--concurrency",
    "--rpm",
    "--tpm",
    "--timeout",
    "--max-attempts",
    "--max-connection-failures",
    "--transport",
)
"""What every command that calls models takes (the brief's list and the ones eval had)."""

COMMANDS = (("eval",), ("eval-set",), ("agentic", "run"), ("agentic", "grid"))


def _options(path: tuple[str, ...]) -> dict[str, Any]:
    """The options of the command at ``path`` by flag (Typer's own click types them)."""
    command = command_at(path)
    params = command.get_params(command.context_class(command))
    return {opt: p for p in params if p.param_type_name == "option" for opt in p.opts}


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")


def test_every_model_calling_command_takes_each_call_option_with_one_help() -> None:
    found = {path: _options(path) for path in COMMANDS}
    for flag in CALL_OPTIONS:
        helps = {path: found[path][flag].help for path in COMMANDS if flag in found[path]}
        assert set(helps) == set(COMMANDS), f"{flag} is missing from {set(COMMANDS) - set(helps)}"
        assert len(set(helps.values())) == 1, f"{flag} is described differently: {helps}"
        assert all(found[path][flag].default is None for path in COMMANDS), flag


BAD_VALUES = [
    ("--timeout", "0", "--timeout must be > 0, got 0"),
    ("--max-attempts", "0", "--max-attempts must be >= 1, got 0"),
    ("--concurrency", "0", "--concurrency must be >= 1, got 0"),
    ("--rpm", "-1", "--rpm must be > 0, got -1"),
    (
        "--model-arg",
        "temperature=1",
        "model argument 'temperature' is coordqa's own sampling setting: give it as --temperature",
    ),
    ("--model-arg", "stream=true", "--model-arg stream: not a provider setting of its own"),
    ("--model-arg", "no-equals", "is not KEY=VALUE"),
]

COMMAND_LINES = {
    "eval": ["eval", "--model", "scripted", "--dataset", "example", "--limit", "1"],
    "eval-set": ["eval-set", "--model", "scripted", "--dataset", "example", "--limit", "1"],
    "agentic run": [
        "agentic", "run", "--agent", "llm", "--model", "scripted", "--game", "collab_capture",
        "--partner", "capture-greedy", "--episodes", "1",
    ],
    "agentic grid": ["agentic", "grid", "smoke", "--model", "scripted", "--agent", "llm"],
}  # fmt: skip


@pytest.mark.parametrize(("flag", "value", "said"), BAD_VALUES, ids=lambda v: str(v)[:20])
@pytest.mark.parametrize("command", list(COMMAND_LINES))
def test_a_bad_value_is_refused_alike_by_every_command_before_anything_runs(
    tmp_path: Path, command: str, flag: str, value: str, said: str
) -> None:
    out = tmp_path / "out"
    done = coordqa(*COMMAND_LINES[command], "--out", out, flag, value)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in " ".join(done.stderr.split()), done.stderr
    assert not out.exists()


def test_eval_set_model_settings_without_a_model_name_it_instead_of_being_ignored(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "set.yaml"
    spec.write_text("models: [scripted]\ndatasets: [example]\nlimit: 1\n")
    done = coordqa("eval-set", spec, "--model-arg", "top_k=5", "--out", tmp_path / "set")
    assert done.returncode == 2
    assert "--model-arg sets the models given with --model" in done.stderr
    assert "model_args" in done.stderr and not (tmp_path / "set").exists()


def test_eval_set_call_options_and_model_args_reach_each_member(tmp_path: Path) -> None:
    """--timeout/--max-attempts/--rpm override the spec's; --model-arg is the --model model's
    (one behind a server: an in-process model reads none and refuses them)."""
    spec = tmp_path / "set.yaml"
    spec.write_text("models: [random]\ndatasets: [example]\nlimit: 1\ntrials: 1\ntimeout_s: 60\n")
    with LocalOpenAIServer() as server:
        done = coordqa(
            "eval-set", spec, "--model", "openai/test-model", "--api-base", server.base_url,
            "--model-arg", "top_k=5", "--timeout", "7", "--max-attempts", "2", "--rpm", "100",
            "--out", tmp_path / "set",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifests = {
        m["config"]["model"]: m
        for m in (json.loads(p.read_text()) for p in (tmp_path / "set").glob("*/manifest.json"))
    }
    assert set(manifests) == {"random", "openai/test-model"}
    assert manifests["openai/test-model"]["config"]["model_args"] == {"top_k": 5}
    assert "model_args" not in manifests["random"]["config"]  # the spec's model: its own
    for model, manifest in manifests.items():
        policy = manifest["runtime"]["policy"]
        # random answers at once: the set's timeout is its served model's (member_timeout)
        timeout = 7 if model == "openai/test-model" else CallPolicy.timeout_s
        assert (policy["timeout_s"], policy["max_attempts"]) == (timeout, 2)
        assert policy["requests_per_minute"] == 100


def test_eval_set_transport_overrides_the_specs(tmp_path: Path) -> None:
    """``--transport`` means in eval-set what it means in eval: the spec says litellm, the
    command line direct, and the member's manifest says direct ran."""
    spec = tmp_path / "set.yaml"
    with LocalOpenAIServer() as server:
        spec.write_text(
            f"models: [{{model: openai/m, api_base: '{server.base_url}'}}]\n"
            "datasets: [example]\nlimit: 1\ntrials: 1\ntransport: litellm\n"
        )
        done = coordqa("eval-set", spec, "--transport", "direct", "--out", tmp_path / "set")
    assert done.returncode == 0, done.stderr
    [manifest] = (json.loads(p.read_text()) for p in (tmp_path / "set").glob("*/manifest.json"))
    assert manifest["runtime"]["transport"] == "direct"


@pytest.mark.parametrize("command", ["agentic run", "agentic grid"])
def test_agentic_transport_reaches_the_provider_before_anything_is_stored(
    tmp_path: Path, command: str
) -> None:
    """The direct transport serves openai/ and hosted_vllm/ models only: asked of another, the
    command is refused as eval refuses it, nothing played or stored."""
    line = [*COMMAND_LINES[command]]
    line[line.index("scripted")] = "anthropic/claude-3-5-haiku-latest"
    done = coordqa(*line, "--transport", "direct", "--out", tmp_path / "run")
    assert done.returncode == 2, done.stderr
    assert "--transport direct serves" in " ".join(done.stderr.split())
    assert not (tmp_path / "run").exists()


def test_agentic_run_sends_model_args_and_records_them_and_the_policy(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with LocalOpenAIServer(lambda body, index: "Action: A") as server:
        done = coordqa(
            "agentic", "run", "--agent", "llm", "--model", "openai/m", "--api-base",
            server.base_url, "--game", "collab_capture", "--partner", "capture-greedy",
            "--episodes", "1", "--model-arg", "top_k=5", "--timeout", "30", "--transport",
            "direct", "--out", out,
        )  # fmt: skip
        bodies = server.requests
    assert done.returncode == 0, done.stderr
    assert bodies and all(body.get("top_k") == 5 for body in bodies)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["models"] == [
        {"name": "openai/m", "api_base": None, "model_args": {"top_k": 5}}
    ]
    assert manifest["runtime"]["timeout_s"] == 30
    assert manifest["runtime"]["transport"] == "direct"
    assert manifest["runtime"]["transports"] == {"openai/m": "direct"}


def test_agentic_run_with_a_missing_key_variable_stops_before_anything_is_stored(
    tmp_path: Path,
) -> None:
    done = coordqa(
        *COMMAND_LINES["agentic run"], "--api-key-env", "COORDQA_TEST_NO_SUCH_KEY", "--out",
        tmp_path / "run", env={"COORDQA_TEST_NO_SUCH_KEY": None},
    )  # fmt: skip
    assert done.returncode == 2
    assert "the environment variable COORDQA_TEST_NO_SUCH_KEY is not set" in done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("value", "state"), [(None, "not set"), ("  ", "empty")])
def test_submit_endpoint_reads_its_key_variable_by_the_one_rule(
    value: str | None, state: str
) -> None:
    """``submit-endpoint`` kept a copy of the key-variable rule with words of its own; it says
    a missing key as every other command does, before any request is sent."""
    done = coordqa(
        "submit-endpoint", "openai/m", "--to", "http://127.0.0.1:9", "--token", "t",
        "--api-key-env", "COORDQA_TEST_NO_SUCH_KEY", env={"COORDQA_TEST_NO_SUCH_KEY": value},
    )  # fmt: skip
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert f"the environment variable COORDQA_TEST_NO_SUCH_KEY is {state}" in said, said


def test_agentic_run_timeout_stops_a_server_hung_on_chat_within_rounds_of_it(
    tmp_path: Path,
) -> None:
    """Review row 3d: GET /models answers, chat never does; 4 calls in flight (4 episodes).

    Expected from the policy before running: each round of 4 attempts times out after 5 s;
    the 10th connection failure in a row (--max-connection-failures' default) falls in the
    third round, so the run stops after about 3 x 5 s plus two backoffs (at most 1 + 2 s):
    ~18 s, where the 120 s default took 374 s.
    """
    out = tmp_path / "run"
    with LocalOpenAIServer(always=Fault.slow(120)) as server:
        started = time.monotonic()
        done = coordqa(
            "agentic", "run", "--agent", "llm", "--model", "openai/m", "--api-base",
            server.base_url, "--game", "collab_capture", "--partner", "capture-greedy",
            "--episodes", "4", "--timeout", "5", "--out", out,
        )  # fmt: skip
        took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert took < 60, f"took {took:.0f} s"  # 3 rounds of 5 s; generous for a loaded machine
    text = " ".join(done.stderr.split())
    assert "timed out after 5 s (--timeout)" in text
    assert "--max-connection-failures 10" in text
    # Each timed-out attempt names its call: the episode, the seat, the step and the role
    # (walkthrough 3, rough 17); the 4 episodes' first calls time out together, one line.
    episode = r"collab_capture/default/llm\[openai/m\]\+capture-greedy@p0/s\d#\w{8}"
    named = rf"{episode} seat 0 step 0 \(action\)"
    assert re.search(
        rf"warning: 4 calls: attempt 1 of 6 timed out after 5 s \(--timeout\); "
        rf"retrying \({named}, {named}, {named} and 1 more\)",
        text,
    ), text


def test_an_option_group_is_spread_for_typer_and_built_for_the_command() -> None:
    """A command takes a dataclass of options as one parameter; Typer sees each field, in place."""
    received: dict[str, Any] = {}

    @option_groups
    def command(
        first: int = 0,
        calls: CallOptions = CallOptions(),
        endpoint: EndpointOptions = EndpointOptions(),
    ) -> None:
        received.update(first=first, calls=calls, endpoint=endpoint)

    app = typer.Typer()
    app.command()(command)
    typer.main.get_command(app)  # built by Typer from the spread signature
    result = CliRunner().invoke(app, ["--first", "3", "--timeout", "5", "--model-arg", "a=1"])
    assert result.exit_code == 0, result.output
    assert received["first"] == 3
    assert received["calls"] == CallOptions(timeout=5)
    assert received["endpoint"] == EndpointOptions(model_arg=["a=1"])
    assert received["endpoint"].model_args() == {"a": 1}
    names = list(inspect.signature(command).parameters)
    assert names[:3] == ["first", "concurrency", "rpm"] and names[-1] == "model_arg"


def test_option_groups_refuse_a_flag_declared_twice() -> None:
    def command(timeout: Timeout = None, calls: CallOptions = CallOptions()) -> None:
        """Two --timeout options: which one would the user set?"""

    with pytest.raises(TypeError, match=r"repeat the parameters \['timeout'\]"):
        option_groups(command)


def test_option_groups_refuse_a_command_without_a_group() -> None:
    """Blind walkthrough #179: ``@option_groups`` sat on a helper above ``submit-endpoint``,
    which then showed ``--details MODELDETAILS`` that no value could fill."""

    def command(value: str | None = None) -> None:
        """No dataclass parameter: the decorator is on the wrong function."""

    with pytest.raises(TypeError, match="takes no option group"):
        option_groups(command)


def test_every_command_spreads_its_option_groups() -> None:
    """No command of the CLI shows a group as one option (``--details MODELDETAILS``)."""
    unspread = [
        f"{' '.join(path)} {param.name}"
        for path in command_paths()
        for param in command_at(path).params
        if dataclasses.is_dataclass(param.default)
    ]
    assert unspread == []


SAMPLING_COMMANDS = ["eval", "agentic run", "agentic grid"]
"""The commands that take the sampling flags (an eval set reads them from its spec)."""


@pytest.mark.parametrize("command", SAMPLING_COMMANDS)
def test_a_bad_sampling_value_names_the_flag(tmp_path: Path, command: str) -> None:
    """Walkthrough 18, O1: the library's ``--top-p`` is now ``top_p``; a command says its flag."""
    out = tmp_path / "out"
    done = coordqa(*COMMAND_LINES[command], "--out", out, "--top-p", "2")
    assert done.returncode == 2, (done.stdout, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    assert line == "error: --top-p must be > 0 and <= 1, got 2", line
    assert not out.exists()


def test_a_grid_file_s_bad_sampling_value_names_its_key(tmp_path: Path) -> None:
    """A grid file's ``generate: {top_p: 2}`` was told ``--top-p must be ...``; the library
    (``run_grid``) names ``generate.top_p``, and ``agentic grid FILE`` the file's key."""
    from coordqa.agentic.grid import parse_grid
    from coordqa.agentic.runner import run_grid
    from coordqa.errors import SettingError

    grid = tmp_path / "grid.yaml"
    grid.write_text(
        "agents: [llm]\nmodels: [scripted]\npartners: [self]\n"
        "games: [{game: collab_capture, seeds: [0]}]\ngenerate: {top_p: 2}\n"
    )
    out = tmp_path / "out"
    done = coordqa("agentic", "grid", grid, "--out", out)
    assert done.returncode == 2, (done.stdout, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    assert line == f"error: {grid}'s generate.top_p must be > 0 and <= 1, got 2", line
    with pytest.raises(SettingError, match="^generate.top_p must be > 0 and <= 1, got 2$"):
        run_grid(parse_grid(yaml.safe_load(grid.read_text())), out)
    assert not out.exists()
