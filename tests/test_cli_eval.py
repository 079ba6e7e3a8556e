"""``coordqa eval`` as a user runs it: its exit status, stdout and stderr apart.

The commands run in the test process (:mod:`cli_support`); two tests start real processes, for what
only a process shows: an error read from a pipe while the run goes on, and what a fresh process
imports.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_support import coordqa
from test_evaluate_support import answers, write_dataset

from coordqa.llm.openai_api import CONTEXT_ADVICE, CONTEXT_EXCEEDED
from coordqa.llm.retry import TIMED_OUT_CAUSE, TIMED_OUT_FIX
from coordqa.llm.testing import LLAMA_CPP_PYTHON_TOO_LONG, Fault, LocalOpenAIServer
from coordqa.local_servers import free_port
from coordqa.runs.watch import ErrorWatch, Tally
from coordqa.store import open_run, read_qa_run

CLI = [sys.executable, "-c", "from coordqa.cli import main; main()"]


def openai_eval(dataset: str, out: Path, api_base: str, *extra: str) -> list[str]:
    return [
        "eval",
        "--model",
        "openai/test-model",
        "--api-base",
        api_base,
        "--dataset",
        dataset,
        "--trials",
        "1",
        "--no-cache",
        "--out",
        str(out),
        *extra,
    ]


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "80")


def test_a_wrong_key_stops_with_the_providers_message_and_exit_1(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    with LocalOpenAIServer(answers(), always=Fault.bad_key()) as server:
        result = coordqa(*openai_eval(dataset, tmp_path / "run", server.base_url))
        assert server.count <= 8  # at most the calls in flight at once, then it stopped
    assert result.returncode == 1, result.stderr
    assert "Incorrect API key provided" in result.stderr and "Traceback" not in result.stderr
    assert "run the same command again to resume" in result.stderr
    assert result.stdout == ""  # no table of NaN


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (Fault.bad_key(), "Incorrect API key provided"),
        (Fault.error(403, "Your organization is not allowed to use this model"), "not allowed"),
        (Fault.unknown_model(), "does not exist"),
        (Fault.bad_parameter(), "Unsupported parameter"),
    ],
)
def test_a_refused_call_stops_at_once_exit_1_and_the_same_command_resumes(
    tmp_path: Path, fault: Fault, words: str
) -> None:
    """401, 403, 404 and 400 on the model: no other call is sent, nothing answered is lost."""
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 6 questions x 1 trial
    out = tmp_path / "run"
    with LocalOpenAIServer(answers(), faults={3: fault}) as server:
        refused = coordqa(*openai_eval(dataset, out, server.base_url, "--concurrency", "1"))
        assert server.count == 4, "calls were sent after the refusal"
    assert refused.returncode == 1, refused.stderr
    assert words in refused.stderr and "Traceback" not in refused.stderr
    assert "3 of 6 samples are answered" in refused.stderr
    assert refused.stdout == ""
    with LocalOpenAIServer(answers()) as fixed:  # the fix: same command (the server moved)
        resumed = coordqa(*openai_eval(dataset, out, fixed.base_url, "--concurrency", "1"))
        assert fixed.count == 3, "answered samples were asked again"
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming: 3 samples already answered" in resumed.stderr
    assert "accuracy per question type" in resumed.stdout


@pytest.mark.slow  # a real process importing litellm: about 7 s of CPU
def test_the_first_error_of_a_kind_is_printed_while_the_run_goes_on(tmp_path: Path) -> None:
    """Printed when it happens (read from a pipe, as in a log), not only at the end."""
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    args = openai_eval(dataset, tmp_path / "run", "", "--concurrency", "1", "--max-attempts", "1")
    with LocalOpenAIServer(
        answers(), latency_s=0.5, faults={0: Fault.error(500, "shard 7 is overloaded")}
    ) as server:
        args[args.index("--api-base") + 1] = server.base_url
        process = subprocess.Popen(
            [*CLI, *args, "--max-error-rate", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        try:
            assert process.stderr is not None
            for line in process.stderr:
                if "first of its kind" in line:
                    assert "shard 7 is overloaded" in line
                    assert process.poll() is None and server.count < 6, "printed only at the end"
                    break
            else:
                raise AssertionError("the error was never printed")
            remaining_stdout, remaining_stderr = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0, remaining_stderr
    assert "first of its kind" not in remaining_stderr  # once per kind


def test_a_dead_server_is_given_up_in_seconds_with_exit_1(tmp_path: Path) -> None:
    port = free_port()
    started = time.monotonic()
    result = coordqa(
        *openai_eval("example", tmp_path / "run", f"http://127.0.0.1:{port}/v1"),
        "--max-connection-failures",
        "4",
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    assert "stopped before the first call" in result.stderr  # the --api-base probe
    assert "unreachable: ConnectionRefusedError" in result.stderr
    assert elapsed < 60, f"gave up after {elapsed:.0f} s"


def test_too_many_errors_exit_1_after_the_table_and_max_error_rate_allows_some(
    tmp_path: Path,
) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 6 samples with one trial
    failing = {index: Fault.error(500, "upstream overloaded") for index in range(2)}
    args = ("--max-attempts", "1", "--concurrency", "1")
    with LocalOpenAIServer(answers(), faults=failing) as server:
        strict = coordqa(*openai_eval(dataset, tmp_path / "a", server.base_url, *args))
    assert strict.returncode == 1
    assert "accuracy per question type" in strict.stdout  # the results are still shown
    assert "upstream overloaded" in strict.stderr and "first of its kind" in strict.stderr
    assert "2 of 6 samples (33.3%) are errors" in strict.stderr
    with LocalOpenAIServer(answers(), faults=failing) as server:
        lenient = coordqa(
            *openai_eval(dataset, tmp_path / "b", server.base_url, *args, "--max-error-rate", "0.4")
        )
    assert lenient.returncode == 0, lenient.stderr


def test_prompts_over_the_served_context_are_errors_that_say_to_serve_a_larger_one(
    tmp_path: Path,
) -> None:
    """Walkthrough 23: llama.cpp's server refused two prompts as longer than its context (HTTP
    400), and the eval said "Run the same command again to retry them", which fails the same way.
    """
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 6 samples with one trial
    too_long = {index: Fault.context_exceeded() for index in range(2)}
    with LocalOpenAIServer(answers(), faults=too_long) as server:
        result = coordqa(*openai_eval(dataset, tmp_path / "run", server.base_url))
        assert server.count == 6, "a prompt over the context was sent again"
    assert result.returncode == 1
    assert "2 of 6 samples (33.3%) are errors" in result.stderr
    assert "maximum context length is 2048 tokens" in result.stderr  # the server's words
    said = result.stderr.rpartition("allows (first of each kind:")[2]
    assert "fails them the same way" in said and "--n_ctx" in said
    assert "again to retry" not in result.stderr.lower()  # nor under the tables
    assert "excluded from accuracy; running the same command again fails" in result.stderr


def test_a_prompt_over_the_context_is_advised_once_in_the_warnings_and_once_at_the_end(
    tmp_path: Path,
) -> None:
    """Walkthrough 25: the advice was said four times (the error line, the first of its kind,
    the line under the tables, the final line); prompts told apart only by their token counts
    were each a new kind, each line with the whole advice."""
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    bodies = [LLAMA_CPP_PYTHON_TOO_LONG.replace("2510", str(n)) for n in (510, 620, 730)]
    faults = [Fault.error(400, body=body) for body in bodies]
    with LocalOpenAIServer(answers(), faults=faults) as server:
        args = openai_eval(dataset, tmp_path / "run", server.base_url, "--limit", "3")
        result = coordqa(*args, "--concurrency", "1")
    assert result.returncode == 1
    warnings = result.stderr.partition("samples: 3 new")[0]  # the line under the tables too
    assert warnings.count(CONTEXT_ADVICE) == 1, warnings
    final = result.stderr.rpartition("error: ")[2]
    assert final.count(CONTEXT_ADVICE) == 1 and "fails them the same way" in final
    assert result.stderr.count(CONTEXT_ADVICE) == 2
    assert "(the prompt does not fit the model's context): see the error below" in warnings


def test_calls_that_timed_out_are_told_once_why_the_server_answers_late(tmp_path: Path) -> None:
    """Walkthrough 25, R2: a --timeout shorter than a generation left the served model busy with
    the replies given up on, and neither the warnings nor the final error said so."""
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    with LocalOpenAIServer(answers(), always=Fault.slow(3), one_at_a_time=True) as server:
        args = openai_eval(dataset, tmp_path / "run", server.base_url, "--limit", "1")
        result = coordqa(*args, "--timeout", "1", "--max-attempts", "2")
    assert result.returncode == 1
    assert "attempt 2 of 2 timed out after 1 s (--timeout); stopping" in result.stderr
    assert result.stderr.count(TIMED_OUT_FIX) == 1, result.stderr
    assert result.stderr.count("--max-tokens") == 1
    final = result.stderr.rpartition("error: ")[2]
    assert TIMED_OUT_CAUSE in final and TIMED_OUT_FIX in final
    assert "1 of them timed out: see the error below" in result.stderr
    # walkthrough 29: the cap is a setting of the run, so the advice gives it a new folder;
    # "cap replies with --max-tokens ..., then run the same command again" was refused
    assert "--max-tokens (e.g. 256) in a new run (another --out" in " ".join(final.split())


def test_a_run_stopped_on_timeouts_says_why_the_server_answers_late_not_to_start_it() -> None:
    watch = ErrorWatch("openai/m", api_base="http://127.0.0.1:8000/v1")
    silent = "the server did not answer 10 attempts in a row (--max-connection-failures 10); "
    assert watch.stopping(silent + "last error: timed out after 3 s (--timeout)", "unreachable")
    said = watch.failure(Tally("samples", "answered", 0, 6, 0, "runs/x", "calls.jsonl")) or ""
    assert TIMED_OUT_CAUSE in said and "Cap replies with --max-tokens" in said
    assert "Start the server" not in said
    refused = ErrorWatch("openai/m", api_base="http://127.0.0.1:8000/v1")
    refused.stopping(silent + "last error: ConnectionRefusedError: refused", "unreachable")
    assert "Start the server" in (
        refused.failure(Tally("samples", "answered", 0, 6, 0, "x", "c")) or ""
    )


def test_the_advice_retries_the_errors_a_new_try_may_fix_and_names_the_others() -> None:
    watch = ErrorWatch("openai/m")
    tally = Tally("samples", "answered", 4, 6, 2, "runs/x", "calls.jsonl")
    too_long = "BadRequestError: maximum context length; not retried (HTTP 400: " + (
        f"{CONTEXT_EXCEEDED})"
    )
    watch.note("gave up after 6 attempts; last error: InternalServerError: overloaded")
    watch.note(too_long)
    said = watch.failure(tally) or ""
    assert "Run the same command again to retry them" in said
    assert "1 of them fails the same way" in said and "--n_ctx" in said
    alone = ErrorWatch("openai/m")
    alone.note(too_long)
    assert "Run the same command again" not in (alone.failure(tally) or "")


def test_stdout_holds_only_the_tables_and_stderr_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "run"
    wide = 200  # the tables' own width, not the terminal's
    result = coordqa(
        "eval", "--model", "random", "--dataset", "example", "--out", str(out), columns=wide
    )
    assert result.returncode == 0, result.stderr
    assert "accuracy per question type" in result.stdout and "per game x type" in result.stdout
    for noise in ("run directory", "eval ", " new, "):
        assert noise not in result.stdout
    assert f"run directory: {out}" in result.stderr
    assert "eval 36/36 (100%)" in result.stderr  # plain progress: stderr is not a terminal
    assert "\x1b[" not in result.stderr  # no terminal control codes in a log
    assert "36 new, 0 resumed" in result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout


def test_json_is_machine_readable_and_quiet_is_quiet(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["eval", "--model", "random", "--dataset", "example", "--trials", "2", "--out", str(out)]
    first = coordqa(*args, "--json", "--quiet")
    assert first.returncode == 0 and first.stderr == ""
    summary = json.loads(first.stdout)
    assert summary["status"] == "finished" and summary["samples"]["new"] == 24
    assert summary["summary"]["complete"] is True and summary["run_dir"] == str(out)
    again = json.loads(coordqa(*args, "--json", "--quiet").stdout)
    assert again["samples"] == {"new": 0, "resumed": 24, "expected": 24}
    assert open_run(out).manifest.sessions == 2


def test_json_floats_are_rounded_to_the_digits_it_states(tmp_path: Path) -> None:
    """--json printed 0.27777777777777773; floats now have at most the stated 6 decimals."""
    args = ["eval", "--model", "random", "--dataset", "example", "--out", tmp_path / "run"]
    done = coordqa(*args, "--json", "--quiet")
    summary = json.loads(done.stdout)
    assert summary["float_digits"] == 6

    def floats(value: object) -> list[float]:
        if isinstance(value, float):
            return [value]
        if isinstance(value, dict):
            return [f for item in value.values() for f in floats(item)]
        if isinstance(value, list):
            return [f for item in value for f in floats(item)]
        return []

    found = floats(summary)
    assert found and all(f == round(f, 6) for f in found)
    assert not re.search(r"\d\.\d{7,}", done.stdout)
    overall = summary["summary"]["overall"]
    # 3 trials of 12 questions, each trial answering all 12: the accuracy is correct / answered
    assert overall["accuracy"] == round(overall["correct"] / overall["answered"], 6)


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_api_key_is_refused_before_anything_is_sent(tmp_path: Path, value: str) -> None:
    env = {"OPENAI_API_KEY": value}
    result = coordqa("eval", "--model", "openai/gpt-4o-mini", "--out", str(tmp_path / "r"), env=env)
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr and "empty" in result.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.slow  # three real processes, one importing litellm: about 9 s of CPU
def test_a_fully_cached_rerun_never_imports_litellm(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    probe = (
        "import atexit, sys; atexit.register(lambda: print('litellm imported:', "
        "'litellm' in sys.modules, file=sys.stderr)); from coordqa.cli import main; main()"
    )
    with LocalOpenAIServer(answers()) as server:
        args = [*openai_eval(dataset, tmp_path / "a", server.base_url), "--transport", "litellm"]
        args.remove("--no-cache")
        first = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=300
        )
        assert first.returncode == 0 and "litellm imported: True" in first.stderr
        for out in ("a", "b"):  # the same run (nothing to ask), then a new one (all cached)
            args[args.index("--out") + 1] = str(tmp_path / out)
            again = subprocess.run(
                [sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=300
            )
            assert again.returncode == 0, again.stderr
            assert "litellm imported: False" in again.stderr
        assert server.count == 6
    assert "6 from the cache" in again.stderr and "0 calls sent" in again.stderr


def test_a_moved_server_continues_the_default_run_and_more_trials_get_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 4 #315-#317: more trials without --out raised the default run, which then
    refused the command that made it. They get a default folder of their own, and cost only
    the new trials (replies are cached by trial)."""
    monkeypatch.chdir(tmp_path)
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 6 questions
    base = ["eval", "-m", "openai/test-model", "--dataset", dataset, "--trials", "1"]
    with LocalOpenAIServer(answers()) as first:
        done = coordqa(*base, "--api-base", first.base_url)
        assert done.returncode == 0, done.stderr
        more = coordqa(*base[:-1], "2", "--api-base", first.base_url)
        assert first.count == 6 + 6  # then trial 1 of each question; trial 0 from the cache
    assert more.returncode == 0, more.stderr
    assert "resuming" not in more.stderr
    assert len(list((tmp_path / "runs").iterdir())) == 2
    with LocalOpenAIServer(answers()) as moved:
        again = coordqa(*base, "--api-base", moved.base_url)
        assert moved.count == 0  # the same run at a new address: all answered
    assert again.returncode == 0, again.stderr
    assert "all 6 samples already answered; nothing to ask" in again.stderr


def test_model_settings_reach_the_server_and_are_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    monkeypatch.setenv("LAB_KEY", "sk-from-lab-env")
    out = tmp_path / "run"
    with LocalOpenAIServer(answers()) as server:
        result = coordqa(
            "eval",
            "-m",
            "openai/gpt-5",  # litellm: no top_p for this model, so the default 0.9 is dropped
            "--api-base",
            server.base_url,
            "--dataset",
            dataset,
            "--trials",
            "1",
            "--out",
            str(out),
            "--api-key-env",
            "LAB_KEY",
            "--rpm",
            "6000",
            "--tpm",
            "1000000",
            "--model-arg",
            "reasoning_effort=low",
            "--model-arg",
            'extra_body={"top_k": 20}',
        )
        bodies, keys = server.requests, server.authorizations
    assert result.returncode == 0, result.stderr
    assert set(keys) == {"Bearer sk-from-lab-env"}
    assert all(b["reasoning_effort"] == "low" and b["top_k"] == 20 for b in bodies)
    assert not any("top_p" in body for body in bodies)
    assert "does not take top_p: left out of every request" in result.stderr
    manifest = open_run(out).manifest
    assert manifest.config["model_args"] == {"extra_body": {"top_k": 20}, "reasoning_effort": "low"}
    assert manifest.runtime["dropped_params"] == ["top_p"]
    assert manifest.runtime["api_key_env"] == "LAB_KEY"
    assert "sk-from-lab-env" not in (out / "manifest.json").read_text()
    policy = manifest.runtime["policy"]
    assert (policy["requests_per_minute"], policy["tokens_per_minute"]) == (6000, 1000000)


def test_a_missing_key_variable_and_a_bad_model_arg_are_clear(tmp_path: Path) -> None:
    base = ["eval", "-m", "openai/gpt-4o", "--out", str(tmp_path / "r")]
    missing = coordqa(*base, "--api-key-env", "NO_SUCH_VARIABLE_HERE")
    assert missing.returncode == 2
    assert "NO_SUCH_VARIABLE_HERE is not set" in missing.stderr
    bad = coordqa(*base, "--model-arg", "reasoning_effort")
    assert bad.returncode == 2 and "is not KEY=VALUE" in bad.stderr
    reserved = coordqa(*base, "--model-arg", "temperature=0")
    assert reserved.returncode == 2 and "--temperature" in reserved.stderr
    # Walkthrough rough R7: '{bad' was sent as a string with every call, with no word.
    broken = coordqa(*base, "--model-arg", "extra_body={bad")
    assert broken.returncode == 2 and "extra_body" in broken.stderr
    assert "not valid JSON" in broken.stderr
    assert not (tmp_path / "r").exists()


def test_the_process_ends_once_the_run_is_on_disk_without_interpreter_teardown(
    tmp_path: Path,
) -> None:
    """main() leaves through os._exit once threads, exit handlers and output are done: the run
    is complete on disk, stdout holds the whole summary, a thread still writing when the
    command returned finished its file, exit handlers ran, and no module teardown happens (an
    object freed only by teardown never is)."""
    out = tmp_path / "run"
    late = tmp_path / "late.txt"
    probe = (
        "import atexit, os, sys, threading, time\n"
        "class Torn:\n"
        "    def __del__(self): print('torn down', file=sys.stderr, flush=True)\n"
        "kept = Torn()\n"
        "atexit.register(lambda: print('exit handlers ran', file=sys.stderr, flush=True))\n"
        "def write_late():\n"  # starts once the run has written its summary, the last file
        "    for _ in range(600):\n"
        f"        if os.path.exists({str(out / 'summary.json')!r}): break\n"
        "        time.sleep(0.5)\n"
        "    time.sleep(1)\n"
        f"    with open({str(late)!r}, 'w') as f: f.write('written')\n"
        "threading.Thread(target=write_late).start()\n"
        "from coordqa.cli import main; main()\n"
    )
    args = ["eval", "--model", "random", "--dataset", "example", "--trials", "2", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", probe, *args, "--json", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "exit handlers ran" in done.stderr and "torn down" not in done.stderr
    assert late.read_text() == "written"
    assert json.loads(done.stdout)["samples"]["new"] == 24
    run = read_qa_run(out)
    assert open_run(out).manifest.status == "finished"
    assert len(run.calls()) == 24 and len(run.samples()) == 24
    assert json.loads((out / "summary.json").read_text())["complete"] is True


def test_the_agentic_bot_is_refused_by_eval_before_a_run_is_made(tmp_path: Path) -> None:
    """bot answers from an agent's seat feed, never a question: it was a stopped run, left in
    runs list as failed, with the advice to fix the API key."""
    out = tmp_path / "r"
    refused = coordqa("eval", "--model", "bot", "--limit", "1", "--out", out)
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith("error: model 'bot' plays agentic episodes only")
    assert "coordqa agentic run" in line and "API key" not in line
    assert not out.exists()


@pytest.mark.parametrize("command", ["eval", "eval-set"])
def test_an_unknown_models_list_offers_only_models_that_answer_questions(
    command: str, tmp_path: Path
) -> None:
    """Walkthrough 16 R9: ``eval --model randon`` listed ``bot, bot?KEY=VALUE`` as built in,
    which eval refuses; the list is what the command takes. An agent's model list keeps bot."""
    from coordqa.errors import ModelError
    from coordqa.llm import get_model

    refused = coordqa(command, "--model", "randon", "--limit", "1", "--out", tmp_path / "r")
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert "unknown model randon. Did you mean 'random'?" in said, said
    assert "Built in: llamacpp/PATH, random, scripted." in said, said
    with pytest.raises(ModelError, match=r"Built in: bot, bot\?KEY=VALUE, llamacpp/PATH, random"):
        get_model("randon")  # any caller: an agent may play with bot
    assert "hosted_vllm/NAME (with --api-base)" in said, said  # the option: a command's word


def test_an_unknown_model_in_the_python_api_is_a_config_error(tmp_path: Path) -> None:
    """Walkthrough 19 #201, #202: ``evaluate(EvalConfig(model="randon"))`` raised a ModelError,
    which is no ConfigError (the refusal docs/python-api.md promises), and named the CLI's
    ``--api-base``. It is a refused setting: a ConfigError (still a ModelError) naming
    ``api_base``, as the library's other refusals do."""
    from coordqa import EvalConfig, evaluate
    from coordqa.errors import ConfigError, ModelError, SettingError
    from coordqa.llm import get_model

    with pytest.raises(SettingError) as refused:
        evaluate(EvalConfig(model="randon", out=tmp_path / "r"))
    said = str(refused.value)
    assert isinstance(refused.value, ConfigError) and isinstance(refused.value, ModelError)
    assert refused.value.setting == "model", said
    assert said.startswith("unknown model randon. Did you mean 'random'?"), said
    assert "hosted_vllm/NAME (with api_base)" in said and "--api-base" not in said, said
    assert not (tmp_path / "r").exists()
    with pytest.raises(ConfigError, match=r"unknown model randon\..*\(with api_base\)"):
        get_model("randon")
    agentic = ["agentic", "run", "--agent", "cac", "--model", "randon", "--game", "hanabi"]
    played = coordqa(*agentic, "--self-play", "--out", tmp_path / "a")
    assert played.returncode == 2, played.stderr
    assert "(with --api-base)" in " ".join(played.stderr.split()), played.stderr


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--trials", "0"), "error: --trials must be >= 1, got 0"),
        (("--timeout", "5"), "error: --timeout bounds how long a model takes to answer"),
        (("--max-error-rate", "2"), "error: --max-error-rate must be a share between 0 and 1"),
        (("--prompt-layout", "sideways"), "error: --prompt-layout 'sideways' is not one of"),
    ],
)
def test_evals_refusals_name_its_options_not_the_librarys_parameters(
    options: tuple[str, ...], said: str
) -> None:
    """Walkthrough 16 R7: ``--timeout 5`` said ``leave --timeout/policy.timeout_s out``."""
    refused = coordqa("eval", "--model", "random", "--limit", "1", *options)
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(said), line
    assert "policy." not in line and "_" not in line.split(",")[0], line


def test_every_setting_eval_names_is_one_of_its_options() -> None:
    """The map of EvalConfig's settings to eval's options names real fields and real flags."""
    from dataclasses import fields

    from coordqa.cli.qa import EVAL_OPTIONS
    from coordqa.eval_config import EvalConfig
    from coordqa.llm import CallPolicy

    help_text = coordqa("eval", "--help").stdout
    known = {f.name for f in fields(EvalConfig)} | {f"policy.{f.name}" for f in fields(CallPolicy)}
    for setting, option in EVAL_OPTIONS.items():
        assert setting in known, setting
        assert option in help_text, option


def test_unknown_ids_name_the_release_searched_and_that_another_may_hold_them() -> None:
    """Walkthrough 2, R9: hanabi-01-JP is a v1.1 question that v1.2 (the default) removed."""
    result = coordqa("eval", "--model", "random", "--ids", "hanabi-01-JP")
    assert result.returncode == 2, result.stderr
    said = " ".join(result.stderr.split())
    assert "question ids not in coordinationqa-v1.2: hanabi-01-JP" in said
    assert "another release" in said and "--dataset" in said


@pytest.mark.parametrize("value", ["nosuch.txt", "lists/chosen", "picked.csv"])
def test_an_ids_file_that_does_not_exist_is_named_as_a_missing_file(
    value: str, tmp_path: Path
) -> None:
    """Blind walkthrough: ``--ids nosuch.txt`` read as an unknown question id."""
    result = coordqa("eval", "--model", "random", "--ids", value, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: --ids file {value} does not exist"), line
    assert "a file of one id per line" in line and "id1,id2" in line
    assert "not in coordinationqa" not in line


def test_the_table_caption_says_how_many_trials_each_row_scored(tmp_path: Path) -> None:
    """Walkthrough 2, R1: 'trials with scored samples: [0, 1]' read as trial indices (a list)."""
    result = coordqa(
        "eval", "--model", "random", "--dataset", "example", "--trials", "2",
        "--out", tmp_path / "run", columns=200,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    shown = " ".join(result.stdout.split())
    assert shown.count("trials scored per row: 2") == 2  # per type, per game x type
    assert "scored samples: [" not in shown


def test_a_session_that_sent_nothing_spent_nothing(tmp_path: Path) -> None:
    """Walkthrough 2, R7: a rerun with every sample answered said 'cost unknown' for a session
    of zero calls, beside the whole run's $0.0000."""
    args = ("eval", "--model", "random", "--dataset", "example", "--trials", "1")
    assert coordqa(*args, "--out", tmp_path / "run").returncode == 0
    again = coordqa(*args, "--out", tmp_path / "run", columns=400)
    assert again.returncode == 0, again.stderr
    shown = " ".join(again.stderr.split())
    assert (
        "This session: 0 calls sent, 0 from the cache, 0 failed; 0 tokens, cost $0.0000." in shown
    )


def test_the_live_bar_labels_its_time_and_says_an_unpriced_cost_in_words(tmp_path: Path) -> None:
    """Walkthrough 3, rough 15: 'cost ?' read like an error, and an unlabelled falling time."""
    with LocalOpenAIServer() as server:  # openai/test-model: litellm knows no price for it
        args = openai_eval("example", tmp_path / "bar", server.base_url)
        bar = coordqa(*args, env={"TTY_COMPATIBLE": "1"})
        plain = coordqa(*openai_eval("example", tmp_path / "plain", server.base_url))
    assert bar.returncode == 0 and plain.returncode == 0, bar.stderr + plain.stderr
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", bar.stderr)
    unknown = "cost unknown for 12 calls"
    assert re.search(rf"12/12 12 calls 0 cached 0 err {unknown} eta 0:00:00", shown), shown
    assert "cost unknown" in plain.stderr and "elapsed, eta" in plain.stderr
    assert "cost ?" not in shown + plain.stderr


def test_a_repaired_calls_file_is_warned_about_once(tmp_path: Path) -> None:
    """Walkthrough 3, rough 19: a half-written last line of calls.jsonl was reported three times
    by the resume (twice as it was read, once with the results); score and report likewise.
    Real processes: pytest's log capture would hide the store's log lines in process."""
    args = ["eval", "--model", "random", "--dataset", "example", "--trials", "1"]
    assert coordqa(*args, "--out", tmp_path / "run").returncode == 0
    calls = tmp_path / "run" / "calls.jsonl"
    calls.write_bytes(calls.read_bytes()[:-40])  # the last record loses its end and newline
    resumed = subprocess.run(
        [*CLI, *args, "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.count("ignored an incomplete last line") == 1, resumed.stderr
    assert "resuming: 11 samples already answered" in resumed.stderr  # the cut one is re-asked
    calls.write_bytes(calls.read_bytes()[:-40])
    for command in (["score"], ["report", "--out", str(tmp_path / "r")]):
        shown = subprocess.run(
            [*CLI, *command, str(tmp_path / "run")], capture_output=True, text=True, timeout=300
        )
        assert shown.returncode == 0, shown.stderr
        assert shown.stderr.count("ignored an incomplete last line") == 1, shown.stderr


def test_a_model_the_server_does_not_list_is_refused_before_anything_is_stored(
    tmp_path: Path,
) -> None:
    """Walkthrough 5 #214: llama.cpp answers whatever name it is sent, so a typo'd name ran and
    was recorded as gemma-3-27b although gemma-3-270m answered."""
    with LocalOpenAIServer(models=["gemma-3-270m"]) as server:
        result = coordqa(
            "eval", "--model", "openai/gemma-3-27b", "--api-base", server.base_url,
            "--dataset", "example", "--limit", "1", "--trials", "1", "--out", str(tmp_path / "run"),
        )  # fmt: skip
        sent = len(server.requests)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == (
        f"error: the server at {server.base_url} serves gemma-3-270m, not gemma-3-27b: "
        "use --model openai/gemma-3-270m"
    )
    assert sent == 0 and not (tmp_path / "run").exists()


def test_the_refusal_of_a_typo_suggests_the_closest_listed_name_not_the_first() -> None:
    """Walkthrough 13 #315: the fix offered was the first listed name, whatever the typo."""
    from coordqa.llm.served import not_served

    with LocalOpenAIServer(models=["zephyr-7b", "my-model", "my-model-2"]) as server:
        refusal = not_served(server.base_url, "openai/my-modl", None)
    assert refusal is not None and str(refusal).endswith("use --model openai/my-model")
    assert refusal.closest[:2] == ("my-model", "my-model-2"), refusal.closest


@pytest.mark.parametrize(
    ("listed", "model"),
    [
        ((), "openai/anything"),  # lists none: the test double answers every name
        (("gemma-3-270m",), "openai/gemma-3-270m"),
        (("llama3.1:latest",), "openai/llama3.1"),  # Ollama's implicit tag
        (("openai/*",), "openai/gpt-x"),  # a proxy's wildcard route (LiteLLM proxy)
        (("meta-llama/llama-3-8b",), "openai/meta-llama/llama-3-8b:nitro"),  # OpenRouter variant
    ],
)
def test_a_listed_or_routed_model_runs(tmp_path: Path, listed: tuple[str, ...], model: str) -> None:
    with LocalOpenAIServer(models=listed) as server:
        result = coordqa(
            "eval", "--model", model, "--api-base", server.base_url, "--dataset", "example",
            "--limit", "1", "--trials", "1", "--no-cache", "--out", str(tmp_path / "run"), "-q",
        )  # fmt: skip
        sent = len(server.requests)
    assert result.returncode == 0, result.stderr
    assert sent == 1


def test_ids_are_read_in_any_case_as_games_and_types_are(tmp_path: Path) -> None:
    """Walkthrough 26 (#39): ``--ids hanabi-27-EC,hanabi-27-TOM`` was refused (the id is
    ``hanabi-27-ToM``, and ``--types TOM`` is taken) and told the id may be of another
    release. Ids are read in any case; one not there at all is offered the closest."""
    taken = coordqa(
        "eval", "--model", "random", "--ids", "hanabi-27-EC,hanabi-27-TOM", "--trials", "1",
        "--out", tmp_path / "run",
    )  # fmt: skip
    assert taken.returncode == 0, taken.stderr
    asked = (tmp_path / "run" / "questions.jsonl").read_text(encoding="utf-8")
    assert asked.count("\n") == 2 and '"hanabi-27-ToM"' in asked
    typo = coordqa("eval", "--model", "random", "--ids", "hanabi-27-TMO")
    assert typo.returncode == 2
    assert "Did you mean 'hanabi-27-ToM'" in " ".join(typo.stderr.split())


def test_a_run_whose_replies_are_capped_is_not_told_to_cap_them(tmp_path: Path) -> None:
    """Walkthrough 31: a run given --max-tokens 256 that timed out was told to "cap replies with
    --max-tokens (e.g. 256) in a new run"; its replies are capped already."""
    from coordqa.runs.watch import ErrorWatch, Tally, retry_advice

    silent = "the server did not answer 10 attempts in a row (--max-connection-failures 10); "
    tally = Tally("samples", "answered", 0, 6, 0, "runs/x", "calls.jsonl")
    for capped in (False, True):
        watch = ErrorWatch("openai/m", api_base="http://127.0.0.1:8000/v1", replies_capped=capped)
        assert watch.stopping(silent + "last error: timed out after 3 s (--timeout)", "unreachable")
        said = (watch.failure(tally) or "") + retry_advice(2, 0, 2, capped=capped)
        assert ("--max-tokens" in said) is not capped, said
        assert "raise --timeout" in said.lower(), said
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(answers(), always=Fault.slow(3), one_at_a_time=True) as server:
        args = openai_eval(dataset, tmp_path / "run", server.base_url, "--limit", "1")
        result = coordqa(*args, "--timeout", "1", "--max-attempts", "2", "--max-tokens", "64")
    assert result.returncode == 1 and "timed out" in result.stderr, result.stderr
    assert "cap replies" not in result.stderr, result.stderr


def test_a_model_run_in_process_that_timed_out_is_not_told_about_a_server() -> None:
    """Walkthrough 27 (#278): a ``llamacpp/`` model run in process that timed out was told that
    "a server you run" answers late and to wait for it or restart it, and to cap replies at 256
    (they are capped at 256 there already). Its generation is stopped at the timeout."""
    from coordqa.runs.watch import ErrorWatch, Tally

    watch = ErrorWatch("llamacpp/models/gemma.gguf")
    watch.note(
        "gave up after 1 attempts (--max-attempts); last error: timed out after 3 s (--timeout)"
    )
    said = watch.failure(Tally("samples", "answered", 0, 1, 1, "runs/x", "calls.jsonl"))
    assert said is not None and "1 of them timed out" in said
    assert "server" not in said and "--max-tokens" not in said, said
    assert "raise --timeout" in said
