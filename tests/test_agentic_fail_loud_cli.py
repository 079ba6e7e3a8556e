"""``coordqa agentic run`` as a user meets a broken model or partner (issue 23).

The four cases of the issue's "done when": a dead port, a 401, a missing API key and a partner
without weights. Each exits 1 (2 for a bad option, a missing key included) within seconds, with
the cause on stderr and no traceback, stores nothing as played, and, where the model can come
back, the same command then plays the episodes. The commands run through the CLI's entry point
in the test process (:mod:`cli_support`: exit status, stdout and stderr as a shell sees them);
the missing key is also checked in a real process, from spawn to exit status. Everything else
about failing loudly is tested on the library (``test_agentic_fail_loud.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, coordqa

from coordqa.agentic import read_agentic_run
from coordqa.llm import Message
from coordqa.llm.offline import default_policy
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.local_servers import free_port

CLI = [sys.executable, "-c", "from coordqa.cli import main; main()"]


def scripted(body: dict[str, Any], index: int) -> str:
    """Answer as the offline ``scripted`` model: the first option."""
    return default_policy([Message(m["role"], m["content"]) for m in body["messages"]])


def agentic_args(out: Path, *options: str) -> list[str]:
    """``agentic run`` of the LLM agent on one Collab Capture episode."""
    return [
        "agentic", "run", "--agent", "llm", "--game", "collab_capture",
        "--partner", "capture-greedy", "--episodes", "1", "--out", str(out), *options,
    ]  # fmt: skip


def agentic_run(out: Path, *options: str) -> tuple[CliResult, float]:
    """``coordqa agentic run`` (:func:`agentic_args`) in this process; its seconds."""
    started = time.monotonic()
    done = coordqa(*agentic_args(out, *options))
    return done, time.monotonic() - started


def played(out: Path) -> int:
    """Episodes stored as played (0 when the run directory was never made)."""
    return len(read_agentic_run(out).episodes()) if (out / "manifest.json").exists() else 0


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("COLUMNS", "80")


def test_a_dead_port_exits_1_in_seconds_and_the_rerun_plays(tmp_path: Path) -> None:
    out, port = tmp_path / "run", free_port()
    base = f"http://127.0.0.1:{port}/v1"
    dead, seconds = agentic_run(out, "--model", "openai/test-model", "--api-base", base)
    assert dead.returncode == 1, dead.stderr
    assert seconds < 20, f"took {seconds:.1f} s"  # before: exit 0 after 19-33 s
    assert f"{base} is unreachable" in dead.stderr and "ConnectionRefusedError" in dead.stderr
    assert "Traceback" not in dead.stderr and played(out) == 0
    with LocalOpenAIServer(scripted, port=port):
        again, _ = agentic_run(out, "--model", "openai/test-model", "--api-base", base)
    assert again.returncode == 0, again.stderr
    assert played(out) == 1


def test_a_401_stops_at_once_with_the_providers_words_and_the_rerun_plays(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    with LocalOpenAIServer(scripted, always=Fault.bad_key()) as server:
        options = ("--model", "openai/test-model", "--api-base", server.base_url)
        refused, seconds = agentic_run(out, *options)
        assert server.count == 1, "calls went on after the refusal"
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
    assert refused.returncode == 1, refused.stderr
    assert seconds < 60, f"took {seconds:.1f} s"  # litellm's import is most of it
    assert "Incorrect API key provided" in refused.stderr and "Traceback" not in refused.stderr
    assert "run the same command again to resume" in refused.stderr
    run = read_agentic_run(out)
    assert run.episodes() == [] and [f.error_kind for f in run.failures().values()] == ["fatal"]
    with LocalOpenAIServer(scripted, port=port):
        again, _ = agentic_run(out, *options)
    assert again.returncode == 0, again.stderr
    assert played(out) == 1 and read_agentic_run(out).failures() == {}


@pytest.mark.slow  # a real process importing litellm: about 5 s of CPU
def test_a_missing_key_exits_2_before_anything_is_stored(tmp_path: Path) -> None:
    """Nothing is stored, so there is nothing to resume: with a key, the run is a first run."""
    out = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    started = time.monotonic()
    missing = subprocess.run(
        [*CLI, *agentic_args(out, "--model", "openai/gpt-4o-mini")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    seconds = time.monotonic() - started
    assert missing.returncode == 2, missing.stderr
    assert seconds < 60, f"took {seconds:.1f} s"
    assert "OPENAI_API_KEY" in missing.stderr and "Traceback" not in missing.stderr
    assert not out.exists()


def test_the_missing_key_message_names_every_command_that_takes_api_key_env(
    tmp_path: Path,
) -> None:
    """Blind walkthrough: the message said "coordqa eval and eval-set take --api-key-env" from
    ``agentic run`` and ``agentic grid``, which take it too (each command's --help lists it)."""
    args = agentic_args(tmp_path / "run", "--model", "openai/gpt-4o-mini")
    done = coordqa(*args, env={"OPENAI_API_KEY": None})
    assert done.returncode == 2, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert "Set the environment variable OPENAI_API_KEY" in line and "--api-base URL" in line
    takers = "coordqa eval, eval-set, agentic run and agentic grid take --api-key-env NAME"
    assert takers in line, line
    # walkthrough 24 R3: an eval-set spec's model was told only --api-key-env, which eval-set
    # refuses for the spec's models; the spec's own key is named too
    assert "a model of an eval-set spec file takes api_key_env: NAME" in line, line
    for command in (["eval"], ["eval-set"], ["agentic", "run"], ["agentic", "grid"]):
        shown = coordqa(*command, "--help", columns=200)
        assert "--api-key-env" in shown.stdout, command


def _with_obl1(out: Path, seeds: str) -> list[str]:
    """``agentic run`` of CAC with the OBL partner obl1 on Hanabi ``seeds``, into ``out``."""
    return [
        "agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "hanabi",
        "--partner", "obl1", "--seeds", seeds, "--out", str(out),
    ]  # fmt: skip


def test_an_unready_partner_is_named_with_the_fix_by_run_report_and_list(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "obl"
    env = {"COORDQA_DATA_DIR": str(tmp_path / "data"), "COORDQA_HANABI_WEIGHTS": None}
    args = _with_obl1(out, seeds="0")
    started = time.monotonic()
    skipped = coordqa(*args, env=env)  # no OBL registered
    assert skipped.returncode == 1, skipped.stderr
    assert time.monotonic() - started < 60
    flat = " ".join(skipped.stderr.split())
    assert "obl1" in flat and "add-hanabi" in flat and "hanabi/default/cac" in flat
    assert "Traceback" not in skipped.stderr and played(out) == 0
    report = coordqa("agentic", "report", str(out), env=env)
    assert report.returncode == 0, report.stderr
    flat = " ".join(report.stderr.split())
    assert "1 skipped" in flat and "add-hanabi" in flat
    listed = coordqa("runs", "list", str(tmp_path / "runs"), env=env)
    assert listed.returncode == 0 and "finished" not in listed.stdout
    # nothing failed: its one episode waits for OBL's weights (it was listed as failed)
    assert listed.stdout.splitlines()[-1].split()[:6] == ["-", "0/1", "ep,", "1", "skipped", "-"]
    assert "incomplete" in listed.stdout and "failed" not in listed.stdout


def test_an_endpoint_that_answers_only_empty_content_is_said_and_can_fail_the_run(
    tmp_path: Path,
) -> None:
    """Issue 38's rough 5 and issue 37: every decision fell back, with exit 0 and no word.

    Expected from the rule: each action call and its re-ask get an empty reply, so every
    decision with a choice falls back; stderr says so after the tables with the empty replies
    per role; --max-fallback-rate below 1 fails the run (exit 1) with the rate and the limit,
    on the stored episodes, without playing them again.
    """
    out = tmp_path / "run"
    with LocalOpenAIServer(lambda body, index: "") as server:
        options = ("--model", "openai/test-model", "--api-base", server.base_url)
        done, _ = agentic_run(out, *options)
        assert done.returncode == 0, done.stderr
        calls = server.count
        again, _ = agentic_run(out, *options, "--max-fallback-rate", "0.5")
        assert server.count == calls  # nothing played again
    decisions = read_agentic_run(out).episodes()[0].agent_stats[0]
    chosen = decisions["decisions"] - decisions["forced"]
    assert chosen > 0 and decisions["fallbacks"] == chosen
    assert f"fallbacks: {chosen} of {chosen} decisions with a choice (1.00)" in done.stderr
    assert f"empty replies: action {chosen} of {chosen}, reprompt {chosen} of {chosen} calls" in (
        " ".join(done.stderr.split())
    )
    assert f"every one of the {chosen} decisions with a choice fell back" in " ".join(
        done.stderr.split()
    )
    assert again.returncode == 1, again.stderr
    said = " ".join(again.stderr.split())
    assert "fallback rate 1.00, above --max-fallback-rate 0.5" in said
    assert "Traceback" not in again.stderr
    report = coordqa("agentic", "report", str(out))  # the report says the same
    assert report.returncode == 0, report.stderr
    told = " ".join(report.stderr.split())
    assert f"empty replies: action {chosen} of {chosen}" in told
    assert f"every one of the {chosen} decisions with a choice fell back" in told


def test_an_unready_partners_fix_is_printed_once(tmp_path: Path) -> None:
    """Walkthrough 3, rough 18: the fix of a skipped partner was printed once per player, once
    per episode, and again in the error (four times for two episodes)."""
    out = tmp_path / "runs" / "obl"
    env = {"COORDQA_DATA_DIR": str(tmp_path / "data"), "COORDQA_HANABI_WEIGHTS": None}
    skipped = coordqa(*_with_obl1(out, seeds="0,1"), env=env)
    assert skipped.returncode == 1, skipped.stderr
    flat = " ".join(skipped.stderr.split())
    assert flat.count("coordqa partners add-hanabi PATH") == 1, skipped.stderr
    assert flat.count("hanabi/default/cac[scripted]+obl1") == 2  # each episode named
    report = coordqa("agentic", "report", str(out), env=env)
    flat = " ".join(report.stderr.split())
    assert flat.count("coordqa partners add-hanabi PATH") == 1, report.stderr
    assert flat.count("hanabi/default/cac[scripted]+obl1") == 2


def test_a_model_the_server_does_not_list_is_refused_before_the_bar_and_the_folder(
    tmp_path: Path,
) -> None:
    """Served-model walkthrough: eval refused a name its server does not list, but an LLM agent
    started playing and every call failed. Expected from eval's rule (the same message, exit 2):
    no request to the server, no progress line, no run folder."""
    out = tmp_path / "run"
    with LocalOpenAIServer(scripted, models=["gemma-3-270m"]) as server:
        refused, _ = agentic_run(out, "--model", "openai/not-served", "--api-base", server.base_url)
        sent = server.count
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip() == (
        f"error: the server at {server.base_url} serves gemma-3-270m, not not-served: "
        "use --model openai/gemma-3-270m"
    )
    assert "playing" not in refused.stdout + refused.stderr
    assert sent == 0 and not out.exists()


def test_a_grid_model_its_own_server_does_not_list_is_refused(tmp_path: Path) -> None:
    """A grid's model with an ``api_base`` of its own is checked against that server's list."""
    out, grid = tmp_path / "run", tmp_path / "grid.yaml"
    with LocalOpenAIServer(scripted, models=["gemma-3-270m"]) as server:
        grid.write_text(
            "games: [{game: collab_capture, episodes: 1}]\nagents: [llm]\n"
            "partners: [capture-greedy]\n"
            f"models:\n  - {{name: openai/typo, api_base: '{server.base_url}'}}\n"
        )
        refused = coordqa("agentic", "grid", str(grid), "--out", str(out))
        sent = server.count
    assert refused.returncode == 2, refused.stderr
    assert f"the server at {server.base_url} serves gemma-3-270m, not typo" in refused.stderr
    assert sent == 0 and not out.exists()


@pytest.mark.parametrize(
    ("models", "fix"),
    [
        ("[{name: openai/typo, api_base: URL}]", "set grid.yaml's models[0].name to"),
        ("[scripted, openai/typo]", "set grid.yaml's models[1] to"),
    ],
)
def test_a_grid_files_model_refused_by_its_server_names_the_files_key_not_model(
    models: str, fix: str, tmp_path: Path
) -> None:
    """Walkthrough 15 R4 (#290): a grid file's ``name: openai/my-modle`` was refused with "use
    --model openai/my-model", an option the user never passed; the fix is the file's key. A
    ``--model`` given over the file's models is named as the option."""
    out, grid = tmp_path / "run", tmp_path / "grid.yaml"
    with LocalOpenAIServer(scripted, models=["gemma-3-270m"]) as server:
        grid.write_text(
            "games: [{game: collab_capture, episodes: 1}]\nagents: [llm]\n"
            f"partners: [capture-greedy]\napi_base: '{server.base_url}'\n"
            f"models: {models.replace('URL', repr(server.base_url))}\n"
        )
        refused = coordqa("agentic", "grid", "grid.yaml", "--out", str(out), cwd=tmp_path)
        option = coordqa(
            "agentic", "grid", "grid.yaml", "--model", "openai/typo", "--out", str(out),
            cwd=tmp_path,
        )  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip().endswith(f"not typo: {fix} openai/gemma-3-270m"), refused.stderr
    assert "--model" not in refused.stderr
    assert option.returncode == 2, option.stderr
    assert option.stderr.strip().endswith("not typo: use --model openai/gemma-3-270m")


def test_a_run_whose_episodes_were_skipped_is_told_why_before_it_is_told_to_play_them(
    tmp_path: Path,
) -> None:
    """Walkthrough 27 (#142): ``submit`` of a run whose OBL episodes were skipped (no weights)
    advised to play the missing tasks into the run's folder, which plays none of them again
    and exits 1: it says they were skipped, why, and the fix, before how to play them."""
    grid = tmp_path / "obl-grid.yaml"
    grid.write_text(
        "name: obl-grid\nversion: 1\nagents: [cac]\nmodels: [scripted]\n"
        "partners: [self, obl1]\ngames:\n  - game: hanabi\n    seeds: [0]\n",
        encoding="utf-8",
    )
    env = {"COORDQA_DATA_DIR": str(tmp_path / "data"), "COORDQA_HANABI_WEIGHTS": None}
    out = tmp_path / "run"
    played = coordqa("agentic", "grid", grid, "--out", out, env=env)
    assert played.returncode == 1, played.stderr  # the OBL episodes were skipped
    refused = coordqa("submit", out, "--grid", grid, "--out", tmp_path / "b.json", env=env)
    assert refused.returncode != 0
    said = " ".join(refused.stderr.split())
    assert "1 episode was skipped as the run played" in said and "add-hanabi" in said, said
    assert said.index("add-hanabi") < said.index("play the missing tasks"), said
