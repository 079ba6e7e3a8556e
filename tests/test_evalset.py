"""``coordqa eval-set``: models x datasets as one resumable set, against local servers.

Three models on the bundled release, two of them on one endpoint (so they share its limit), the
third on a server that refuses its key: the refused member stops with the provider's message,
the others finish, the set exits 1; fixing the key and rerunning resumes only that member.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from cli_support import coordqa
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.errors import ConfigError
from coordqa.eval_config import EvalConfig
from coordqa.evalset import SET_MANIFEST, evaluate_set, parse_spec, read_set
from coordqa.evaluation import default_out
from coordqa.llm.testing import LocalOpenAIServer
from coordqa.store import read_qa_run

runner = CliRunner()

LETTER = {"alpha": "A", "beta": "B", "gamma": "C"}
"""Each stub model always answers its own letter, so the models' accuracies differ."""


def _answer(body: dict[str, Any], index: int) -> str:
    return f"Answer: {LETTER[body['model']]}"


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LocalOpenAIServer, ...]]:
    """A shared endpoint (alpha, beta) and one that accepts only the key ``right`` (gamma)."""
    monkeypatch.setenv("SHARED_KEY", "sk-shared")
    monkeypatch.setenv("GAMMA_KEY", "sk-wrong")
    with (
        LocalOpenAIServer(_answer, latency_s=0.02) as shared,
        LocalOpenAIServer(_answer, api_key="sk-right") as strict,
    ):
        yield shared, strict


def write_spec(tmp_path: Path, shared: LocalOpenAIServer, strict: LocalOpenAIServer) -> Path:
    spec = {
        "out": str(tmp_path / "set"),
        "datasets": ["coordinationqa-v1.1"],
        "trials": 1,
        "sample": 24,
        "concurrency": 3,
        "max_attempts": 2,
        "models": [
            {"model": "openai/alpha", "api_base": shared.base_url, "api_key_env": "SHARED_KEY"},
            {"model": "openai/beta", "api_base": shared.base_url, "api_key_env": "SHARED_KEY"},
            {
                "model": "openai/gamma",
                "api_base": strict.base_url,
                "api_key_env": "GAMMA_KEY",
                "concurrency": 1,
            },
        ],
    }
    path = tmp_path / "set.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_a_refused_key_stops_its_member_the_set_exits_1_and_resumes(
    tmp_path: Path, servers: tuple[LocalOpenAIServer, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared, strict = servers
    spec = write_spec(tmp_path, shared, strict)
    first = runner.invoke(app, ["eval-set", str(spec)])
    assert first.exit_code == 1, first.output
    assert "Incorrect API key provided" in first.output
    assert "FAILED openai/gamma on coordinationqa-v1.1" in first.output
    manifest = read_set(tmp_path / "set")
    status = {m.model: m.status for m in manifest.members}
    assert status == {
        "openai/alpha": "complete",
        "openai/beta": "complete",
        "openai/gamma": "failed",
    }
    gamma = manifest.members[2]
    assert "Incorrect API key provided" in (gamma.message or "")
    assert (gamma.answered, gamma.expected) == (0, 24)
    # The two members on one endpoint shared its limit: 3 in flight at most, not 3 each.
    assert shared.count == 48 and shared.max_in_flight <= 3
    assert strict.count == 1, "the refused member stops at its first refusal"
    runs = sorted(p.name for p in (tmp_path / "set").iterdir() if p.is_dir())
    assert len(runs) == 3 and all(name.endswith(tuple("0123456789abcdef")) for name in runs)

    monkeypatch.setenv("GAMMA_KEY", "sk-right")
    second = runner.invoke(app, ["eval-set", str(spec)])
    assert second.exit_code == 0, second.output
    assert "skip openai/alpha" in second.output and "skip openai/beta" in second.output
    assert shared.count == 48, "complete members send nothing"
    assert strict.count == 1 + 24
    manifest = read_set(tmp_path / "set")
    assert manifest.ok and manifest.sessions == 2
    assert [m.skipped for m in manifest.members] == [True, True, False]

    # The set reads as its three runs: correlations with exact p, paired tests vs a reference.
    report_dir = tmp_path / "report"
    args = ["report", str(tmp_path / "set"), "--out", str(report_dir), "--reference", "openai/beta"]
    report = runner.invoke(app, args)
    assert report.exit_code == 0, report.output
    correlations = pd.read_csv(report_dir / "correlations.csv")
    assert list(correlations["n"]) == [3, 3] and set(correlations["p_method"]) == {"exact"}
    # With 3 models an exact two-sided p is a multiple of 1/6 (3! pairings), never below 1/3.
    p_values = correlations[["pearson_p", "spearman_p"]].to_numpy().ravel()
    assert all(round(p * 6, 6).is_integer() and p >= 1 / 3 for p in p_values if p == p)
    paired = pd.read_csv(report_dir / "comparisons.csv")
    assert set(paired["model_b"]) == {"openai/beta"} and len(paired) == 2 * 4
    assert set(paired["model_a"]) == {"openai/alpha", "openai/gamma"}
    assert (report_dir / "correlations.png").is_file()


def test_the_command_line_names_models_and_refuses_bad_sets(tmp_path: Path) -> None:
    out = tmp_path / "cli-set"
    args = ["eval-set", "--model", "random", "--model", "scripted", "--limit", "3"]
    done = runner.invoke(app, [*args, "--trials", "2", "--out", str(out)])
    assert done.exit_code == 0, done.output
    manifest = json.loads((out / SET_MANIFEST).read_text())
    assert [m["status"] for m in manifest["members"]] == ["complete", "complete"]
    assert [m["answered"] for m in manifest["members"]] == [6, 6]
    site = tmp_path / "site"
    shown = runner.invoke(app, ["view", str(out), "--export", str(site)])
    assert shown.exit_code == 0, shown.output
    index = (site / "index.html").read_text()
    assert all(m["run"] in index for m in manifest["members"]), "the set shows as its runs"
    # Another shared setting in the same folder is another experiment: refused, nothing run.
    with pytest.raises(
        ConfigError,
        match="other shared settings \\(seed: None before, 1 now from the eval-set spec's seed\\)",
    ):
        evaluate_set(
            parse_spec({"models": ["random"], "limit": 3, "trials": 2, "seed": 1, "out": out})
        )
    with pytest.raises(ConfigError, match="ask for --trials 2 or more to resume it"):  # as eval
        evaluate_set(parse_spec({"models": ["random"], "limit": 3, "trials": 1, "out": out}))
    with pytest.raises(ConfigError, match="name the models"):
        runner.invoke(app, ["eval-set"], catch_exceptions=False)
    with pytest.raises(ConfigError, match="models: .*at least one"):
        parse_spec({"models": []})
    with pytest.raises(ConfigError, match="unknown field 'trails'. Did you mean 'trials'"):
        parse_spec({"models": ["random"], "trails": 3})


def test_a_set_wide_endpoint_for_an_in_process_model_gets_advice_that_works(
    tmp_path: Path,
) -> None:
    """Blind walkthrough: ``--model openai/slow --model random --api-base URL`` advised leaving
    --api-base out, which would break openai/slow. --api-base is every --model model's, and
    random would ignore it: still refused, with the advice the set's per-model keys allow, and
    following the advice runs both members."""
    with LocalOpenAIServer() as server:
        out = tmp_path / "mixed"
        both = ["--model", "openai/slow", "--model", "random", "--limit", "2", "--trials", "1"]
        refused = coordqa("eval-set", *both, "--api-base", server.base_url, "--out", out)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert line.startswith("error: model 'random' runs inside coordqa and calls no server"), (
            line
        )
        assert "leave --api-base" not in line and "docs/eval-sets.md" in line, line
        assert "{model: openai/slow, api_base: ...}, {model: random}" in line, line
        assert server.count == 0 and not out.exists(), "refused before anything runs"
        # The first way it names: random in a spec file, openai/slow on the command line.
        spec = tmp_path / "mixed.yaml"
        spec.write_text(yaml.safe_dump({"models": [{"model": "random"}], "limit": 2, "trials": 1}))
        followed = coordqa(
            "eval-set", spec, "--model", "openai/slow", "--api-base", server.base_url, "--out", out
        )
        assert followed.returncode == 0, followed.stderr
        members = json.loads((out / SET_MANIFEST).read_text())["members"]
        assert {(m["model"], m["api_base"], m["status"]) for m in members} == {
            ("openai/slow", server.base_url, "complete"),
            ("random", None, "complete"),
        }
        assert server.count == 2, "openai/slow's two questions went to the server"
    args = ["--model", "openai/m", "--model", "random", "--model-arg", "top_k=5", "--out", out]
    with_args = coordqa("eval-set", *args)
    assert with_args.returncode == 2 and "leave --model-arg" not in with_args.stderr
    assert "{model: openai/m, model_args: ...}, {model: random}" in with_args.stderr
    alone = coordqa("eval-set", "--model", "random", "--api-base", "http://127.0.0.1:9/v1")
    assert "leave --api-base http://127.0.0.1:9/v1 out" in alone.stderr, "nothing else needs it"


def test_a_set_whose_members_stored_no_run_is_a_folder_without_runs(tmp_path: Path) -> None:
    """Blind walkthrough: ``report SET/`` of a set whose every member failed before storing a
    run said "no runs given", though a folder was given; ``runs list`` words it right."""
    spec = tmp_path / "set.yaml"
    model = {"model": "openai/gpt-4o", "api_key_env": "COORDQA_TEST_UNSET_KEY"}
    spec.write_text(yaml.safe_dump({"out": "models", "datasets": ["example"], "models": [model]}))
    env = {"COORDQA_TEST_UNSET_KEY": None, "OPENAI_API_KEY": None}
    assert coordqa("eval-set", spec, cwd=tmp_path, env=env).returncode == 1
    listed = coordqa("runs", "list", "models", cwd=tmp_path)
    wording = "error: no runs under models: no folder there holds a manifest.json"
    assert listed.returncode == 2 and listed.stderr.startswith(wording), listed.stderr
    for command in (["report", "models/", "--reference", "openai/gpt-4o"], ["view", "models"]):
        result = coordqa(
            *command, "--export" if command[0] == "view" else "--out", "x", cwd=tmp_path
        )
        assert result.returncode == 2, result.stderr
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith("error: no runs under models: no member of the eval set"), line
        assert "eval-set.json" in line and "no runs given" not in line


def test_a_typo_in_a_models_entry_lists_an_entrys_fields_not_the_sets() -> None:
    """Blind walkthrough: ``models: [{modl: random}]`` listed the top-level fields (models,
    datasets, out, trials...) as though ``modl`` were a set's setting."""
    with pytest.raises(ConfigError) as raised:
        parse_spec({"models": [{"modl": "random"}]})
    said = str(raised.value)
    assert "models[0]: unknown field 'modl'. Did you mean 'model'" in said
    entry = "model, api_base, api_key_env, model_args, rpm, tpm, concurrency"
    assert f"fields: {entry}." in said, said
    assert "datasets" not in said and "trials" not in said
    with pytest.raises(ConfigError, match=r"unknown field 'trails'.*fields: models, datasets"):
        parse_spec({"models": ["random"], "trails": 3})


def test_a_set_recorded_without_a_setting_is_refused_naming_it(tmp_path: Path) -> None:
    """A set made before a shared setting existed differs only by that key's absence."""
    from coordqa.evalset.manifest import SetLedger
    from coordqa.evalset.spec import members_of

    spec = parse_spec({"models": ["random"], "limit": 3})
    out = tmp_path / "set"
    SetLedger(spec, out, members_of(spec, out))
    manifest = json.loads((out / SET_MANIFEST).read_text())
    del manifest["shared"]["seed"]  # as if written before seed was shared
    (out / SET_MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(
        ConfigError, match=r"settings \(seed: not recorded before, None now from the default\)"
    ):
        SetLedger(spec, out, members_of(spec, out))


def test_a_damaged_set_manifest_says_where_and_what_to_do_in_one_line(tmp_path: Path) -> None:
    """A hand-edited eval-set.json names the bad fields, not pydantic's dump with URLs."""
    from coordqa.evalset.manifest import SetLedger
    from coordqa.evalset.spec import members_of

    spec = parse_spec({"models": ["random"], "limit": 3})
    out = tmp_path / "set"
    SetLedger(spec, out, members_of(spec, out))
    manifest = json.loads((out / SET_MANIFEST).read_text())
    manifest["members"] = "all of them"
    (out / SET_MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ConfigError) as caught:
        read_set(out)
    message = str(caught.value)
    assert "\n" not in message and "errors.pydantic.dev" not in message
    assert "members: " in message and SET_MANIFEST in message


def test_a_corrupt_set_manifest_says_its_members_still_report_alone(tmp_path: Path) -> None:
    """Walkthrough 23 #353: ``report SET/`` of a set whose eval-set.json is corrupt gave only
    the set's advice (restore it, or run the set anew), though its member runs are intact and
    ``coordqa report SET/*/`` reports them; following the new advice works."""
    out = tmp_path / "set"
    spec = tmp_path / "set.yaml"
    spec.write_text("models: [random, scripted]\ntrials: 1\nlimit: 3\n")
    made = coordqa("eval-set", spec, "--out", out)
    assert made.returncode == 0, made.stderr
    (out / SET_MANIFEST).write_text("{bad")
    refused = coordqa("report", out, "--out", tmp_path / "rep")
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 2 and "is corrupt" in said, said
    advised = re.search(r"`coordqa report (\S+)`", said)
    assert advised, said
    members = sorted(str(p) + "/" for p in out.iterdir() if p.is_dir())
    assert advised.group(1) == f"{out}/*/", said
    reported = coordqa("report", *members, "--out", tmp_path / "rep")
    assert reported.returncode == 0, reported.stderr


def test_sigterm_interrupts_a_set_like_ctrl_c_and_records_its_members(tmp_path: Path) -> None:
    """Walkthrough 23 #399: ``timeout -s TERM 4 coordqa eval-set ...`` ended with exit 143 and no
    line, and eval-set.json still called its members ``pending`` though they held 559 answers;
    ``eval`` and ``agentic`` end a SIGTERM as a Ctrl-C (exit 130, what is kept)."""
    import os
    import signal

    from coordqa.errors import RunInterrupted
    from coordqa.evalset import SetInterrupted

    spec = parse_spec(
        {"models": ["random", "scripted"], "trials": 1, "limit": 12, "out": str(tmp_path / "s")}
    )

    def unhandled(signum: int, frame: object) -> None:
        raise AssertionError("the set left SIGTERM to the default handler (exit 143, no line)")

    def terminate_once_answering(event: Any) -> None:
        if event.kind == "progress" and event.progress.done == 3:
            os.kill(os.getpid(), signal.SIGTERM)

    before = signal.signal(signal.SIGTERM, unhandled)  # the old code would end pytest itself
    try:
        with pytest.raises(SetInterrupted, match="run the same command again") as stop:
            evaluate_set(spec, progress=terminate_once_answering)
        assert signal.getsignal(signal.SIGTERM) is unhandled  # the set's handler was put back
    finally:
        signal.signal(signal.SIGTERM, before)
    assert isinstance(stop.value, RunInterrupted)  # one interruption for every kind of run
    states = read_set(tmp_path / "s").members
    assert {m.status for m in states} <= {"interrupted", "complete"}, states
    assert "pending" not in {m.status for m in states}
    again = evaluate_set(spec)
    assert again.manifest.ok


def test_a_double_ctrl_c_ends_a_set_without_asyncios_shutdown_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Walkthrough 24 #251: ``timeout -s INT`` signals the command and then its group, so a set
    got SIGINT twice; the second raised KeyboardInterrupt inside a member's task, and asyncio
    logged "unhandled exception during asyncio.run() shutdown" with a 70-line traceback before
    the interrupted line. The interruption is said once, by the set."""
    import logging
    import os
    import signal

    from coordqa.evalset import SetInterrupted

    spec = parse_spec(
        {"models": ["random", "scripted"], "trials": 1, "limit": 12, "out": str(tmp_path / "s")}
    )

    def ctrl_c_twice(event: Any) -> None:
        if event.kind == "progress" and event.progress.done == 3:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)

    caplog.set_level(logging.ERROR, logger="asyncio")
    with pytest.raises(SetInterrupted):
        evaluate_set(spec, progress=ctrl_c_twice)
    shutdown = [r for r in caplog.records if r.name == "asyncio"]
    assert shutdown == [], [r.getMessage() for r in shutdown]
    assert "pending" not in {m.status for m in read_set(tmp_path / "s").members}


def test_a_set_written_by_a_newer_coordqa_says_to_upgrade(tmp_path: Path) -> None:
    """Members now record their key (format 2), no folder when they made none (format 3) and
    their dataset's fingerprint (format 4); a later format is refused with what to do."""
    from coordqa.evalset.manifest import SET_SCHEMA_VERSION, SetLedger
    from coordqa.evalset.spec import members_of

    assert SET_SCHEMA_VERSION == 4
    spec = parse_spec({"models": ["random"], "limit": 3})
    out = tmp_path / "set"
    SetLedger(spec, out, members_of(spec, out))
    manifest = json.loads((out / SET_MANIFEST).read_text())
    assert manifest["schema_version"] == 4
    manifest["schema_version"] = 5
    manifest["members"][0]["added_later"] = True
    (out / SET_MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(
        ConfigError, match=r"set format 5, newer than this coordqa .*pip install -U"
    ):
        read_set(out)


def test_a_default_set_records_the_shared_settings_existing_sets_hold() -> None:
    """Every set since sets existed recorded these twelve keys, unset ones as None.

    A set resumes only if its recorded shared settings are equal, so a key dropped when unset,
    or a new key recorded at its default, would refuse every existing set: a new setting is
    added only when it differs from its default (docs/ARCHITECTURE.md 6.4 step 5).
    """
    assert parse_spec({"models": ["random"]}).shared_identity() == {
        "trials": 3,
        "temperature": 0.6,
        "top_p": 0.9,
        "max_tokens": None,
        "seed": None,
        "games": None,
        "types": None,
        "ids": None,
        "sample": None,
        "sample_seed": 0,
        "limit": None,
        "prompt_layout": "system",
    }


def test_models_on_one_endpoint_must_declare_the_same_limits(tmp_path: Path) -> None:
    spec = parse_spec(
        {
            "out": tmp_path / "s",
            "limit": 2,
            "models": [
                {"model": "openai/a", "api_base": "http://127.0.0.1:9/v1", "rpm": 60},
                {"model": "openai/b", "api_base": "http://127.0.0.1:9/v1", "rpm": 120},
            ],
        }
    )
    with pytest.raises(ConfigError, match="share the endpoint openai@http://127.0.0.1:9/v1"):
        evaluate_set(spec)
    assert not (tmp_path / "s").exists(), "nothing is written before the set is valid"


@pytest.mark.slow
def test_the_set_on_a_local_ray_shares_each_endpoints_limit_across_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two stub endpoints, two models each: four member tasks on a local Ray with 2 CPUs."""
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("STUB_KEY", "sk-stub")
    letters = {"m1": "A", "m2": "B", "m3": "C", "m4": "D"}
    with (
        LocalOpenAIServer(lambda body, i: f"Answer: {letters[body['model']]}", latency_s=0.05) as a,
        LocalOpenAIServer(lambda body, i: f"Answer: {letters[body['model']]}", latency_s=0.05) as b,
    ):
        models = [
            {"model": f"openai/m{n}", "api_base": server.base_url, "api_key_env": "STUB_KEY"}
            for n, server in ((1, a), (2, a), (3, b), (4, b))
        ]
        spec = parse_spec(
            {
                "out": tmp_path / "ray-set",
                "models": models,
                "sample": 12,
                "trials": 2,
                "concurrency": 2,
                "backend": "ray",
                "cache": False,
            }
        )
        ray.init(num_cpus=2, include_dashboard=False, namespace="coordqa")
        try:
            result = evaluate_set(spec)
            left = [n for n in ray.util.list_named_actors() if n.startswith("coordqa-limiter-")]
            again = evaluate_set(spec)
        finally:
            ray.shutdown()
    assert result.ok, result.failed
    assert [m.answered for m in result.manifest.members] == [24] * 4
    assert a.count == b.count == 48, "each endpoint served its two members once"
    # Both members of an endpoint ran in other worker processes, bounded together by its actor.
    assert a.max_in_flight <= 2 and b.max_in_flight <= 2
    assert left == [], "the set's limiter actors are gone once it ends"
    assert all(m.skipped for m in again.manifest.members) and a.count == 48
    runs = result.runs()
    assert len(runs) == 4 and all(run.parent == tmp_path / "ray-set" for run in runs)


def test_the_set_summary_names_members_whole_at_80_columns(tmp_path: Path) -> None:
    """Members are entries (model and dataset, then status, samples and run directory),
    not table cells that cut 'coordinationqa-v1.2' and run directories into pieces."""
    from cli_support import coordqa

    out = tmp_path / "set"
    args = ["eval-set", "-m", "random", "-m", "scripted", "--limit", "2", "--out", out]
    done = coordqa(*args, env={"COORDQA_CACHE_DIR": str(tmp_path / "cache")}, columns=80)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), done.stdout
    for member in read_set(out).members:
        assert any(member.run in line for line in lines), member.run
        assert any(f"{member.model} · {member.dataset}" in line for line in lines)


# -- issue 38: the guide's eval set (docs/eval-sets.md), run as written against local servers --


class AnthropicStub:
    """A local server answering Anthropic's Messages API (``POST /v1/messages``) with one reply.

    :class:`LocalOpenAIServer` speaks OpenAI's chat API only; the guide's set names an
    ``anthropic/`` model, which litellm sends to ``{api_base}/v1/messages`` in that format.
    """

    def __init__(self, reply: str) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        stub = self
        self.models: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                stub.models.append(body["model"])
                answer = {
                    "id": "msg_stub",
                    "type": "message",
                    "role": "assistant",
                    "model": body["model"],
                    "content": [{"type": "text", "text": reply}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 3},
                }
                data = json.dumps(answer).encode()
                self.send_response(200 if self.path == "/v1/messages" else 404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> AnthropicStub:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def _guide_block(marker: str) -> str:
    """The fenced block of the guide's eval-set page that contains ``marker``."""
    from source_tree import ROOT

    page = (ROOT / "docs" / "eval-sets.md").read_text()
    blocks = re.findall(r"```\w*\n(.*?)```", page, re.S)
    (found,) = [block for block in blocks if marker in block]
    return found


def test_the_guide_eval_set_reports_one_table_per_dataset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guide's models.yaml (three models, two datasets) and its commands, each model's endpoint
    a local server: ``coordqa report runs/models/ --reference openai/gpt-4o`` refused the set
    (different question sets) and then, with --allow-mixed, the reference (several runs)."""
    import shlex

    from cli_support import coordqa

    spec = yaml.safe_load(_guide_block("# models.yaml"))
    commands = _guide_block("coordqa eval-set models.yaml ").splitlines()
    lines = [shlex.split(line, comments=True) for line in commands]
    (run_set,) = [line for line in lines if line == ["coordqa", "eval-set", "models.yaml"]]
    (report,) = [line for line in lines if line[:3] == ["coordqa", "report", "runs/models/"]]
    assert spec["datasets"] == ["coordinationqa-v1.2", "coordinationqa-v1.1"]
    models = [m["model"] for m in spec["models"]]
    reference = report[report.index("--reference") + 1]
    assert reference == models[0] == "openai/gpt-4o" and len(models) == 3
    letters = {"gpt-4o": "A", "meta-llama/Llama-3.1-8B-Instruct": "B"}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-stub")
    with (
        LocalOpenAIServer(lambda body, _: f"Answer: {letters[body['model']]}") as openai,
        AnthropicStub("Answer: C") as anthropic,
    ):
        for entry in spec["models"]:
            entry["api_base"] = (
                anthropic.base_url if entry["model"].startswith("anthropic/") else openai.base_url
            )
        Path("models.yaml").write_text(yaml.safe_dump(spec))
        done = coordqa(*run_set[1:], "--limit", "6")
        assert done.returncode == 0, done.stderr
        assert anthropic.models and openai.count
        reported = coordqa(*report[1:])
    assert reported.returncode == 0, reported.stderr
    for dataset in spec["datasets"]:
        assert f"dataset {dataset} (3 runs)" in reported.stdout
        folder = Path(report[report.index("--out") + 1]) / dataset
        runs = pd.read_csv(folder / "models.csv")
        assert sorted(runs["model"]) == sorted(models) and set(runs["dataset"]) == {dataset}
        paired = pd.read_csv(folder / "comparisons.csv")
        assert set(paired["model_b"]) == {reference}
        assert sorted(set(paired["model_a"])) == sorted(models[1:])
    index = (Path("report") / "report.md").read_text()
    assert all(f"({dataset}/report.md)" in index for dataset in spec["datasets"])

    at = report.index("--out")  # the guide's --out, swapped for a folder of this report's own
    one = coordqa(
        *report[1:at], *report[at + 2 :], "--dataset", "coordinationqa-v1.1", "--out", "v11"
    )
    assert one.returncode == 0, one.stderr
    assert set(pd.read_csv(Path("v11") / "models.csv")["dataset"]) == {"coordinationqa-v1.1"}
    typo = coordqa(*report[1:], "--dataset", "coordinationqa-v1.3")
    assert typo.returncode == 2 and "Did you mean" in typo.stderr


def test_the_set_shows_each_member_running_and_its_accuracy_at_the_end(tmp_path: Path) -> None:
    """On a terminal a bar per member (samples, errors, elapsed time), in a log a summed line;
    at the end each member's headline accuracy, in the words of coordqa eval (score)."""
    from cli_support import coordqa

    args = ["eval-set", "-m", "random", "-m", "scripted", "--limit", "3", "--trials", "2"]
    env = {"COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    bars = coordqa(*args, "--out", tmp_path / "bars", env={**env, "TTY_COMPATIBLE": "1"})
    assert bars.returncode == 0, bars.stderr
    plain = coordqa(*args, "--out", tmp_path / "plain", env=env)
    assert plain.returncode == 0, plain.stderr
    assert "eval-set 12/12 samples (100%) of 2 members started, 0 errors" in plain.stderr
    for member in read_set(tmp_path / "bars").members:
        label = f"{member.model} on {member.dataset}"
        assert re.search(rf"{re.escape(label)} +\S+ 6/6 0 err elapsed 0:00:\d\d", bars.stderr)
        scored = coordqa("score", tmp_path / "bars" / member.run, env=env)
        accuracy = re.search(r"overall accuracy .*", scored.stdout)
        entry = bars.stdout.split(f"{member.model} · {member.dataset}\n")[1]
        entry = entry.split(f"run: {member.run}")[0]
        assert accuracy is not None and accuracy.group(0) in entry, bars.stdout
    assert "\x1b" not in plain.stderr  # a log gets no control codes


def test_the_ray_backend_without_ray_fails_before_any_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli_support import coordqa

    args = ["eval-set", "-m", "random", "--limit", "2", "--out", tmp_path / "set"]
    assert coordqa(*args).returncode == 0  # a complete member, skipped by the next session
    monkeypatch.setitem(sys.modules, "ray", None)  # 'import ray' raises ImportError
    done = coordqa(*args, "--backend", "ray")
    assert done.returncode == 2 and "pip install 'coordqa[ray]'" in done.stderr
    assert "skip" not in done.stderr and "start" not in done.stderr


def test_a_sets_types_take_their_canonical_spelling() -> None:
    """``types: [TOM]`` was another set (and another default folder) than ``types: [ToM]``."""
    shouted = parse_spec({"models": ["random"], "types": ["jp", "TOM"]})
    canonical = parse_spec({"models": ["random"], "types": ["JP", "ToM"]})
    assert shouted.types == ("JP", "ToM")
    assert shouted.shared_identity() == canonical.shared_identity()
    assert shouted.default_out() == canonical.default_out()


def test_a_sets_games_take_their_registered_spelling() -> None:
    """``games: [Hanabi]`` was another set than ``games: [hanabi]`` (walkthrough 16, #56)."""
    shouted = parse_spec({"models": ["random"], "games": ["Hanabi"]})
    canonical = parse_spec({"models": ["random"], "games": ["hanabi"]})
    assert shouted.games == ("hanabi",)
    assert shouted.shared_identity() == canonical.shared_identity()
    assert shouted.default_out() == canonical.default_out()


def test_a_model_named_twice_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """Two entries that are one member would race for its run folder (walkthrough #47, #410)."""
    out = tmp_path / "dup"
    twice = coordqa(
        "eval-set", "--model", "random", "--model", "random", "--limit", "3", "--out", out
    )
    assert twice.returncode == 2, twice.stderr
    assert "the model random is named twice (--model); name it once" in twice.stderr
    assert not out.exists(), "nothing is written before the spec is accepted"
    spec = tmp_path / "models.yaml"
    spec.write_text(yaml.safe_dump({"models": ["random", "scripted"], "limit": 3}))
    added = coordqa("eval-set", spec, "--model", "scripted", "--out", out)
    assert added.returncode == 2, added.stderr
    assert (
        f"the model scripted is named twice ({spec}'s models[1] and --model); name it once"
        in added.stderr
    )
    assert not out.exists()
    # Only endpoint limits differ: still one run folder, so still one member.
    with pytest.raises(ConfigError, match=r"named twice \(models\[0\] and models\[1\]\)"):
        evaluate_set(parse_spec({"models": ["random", {"model": "random", "rpm": 5}], "out": out}))
    with pytest.raises(ConfigError, match="the dataset coordinationqa-v1.1 is named twice"):
        evaluate_set(
            parse_spec(
                {
                    "models": ["random"],
                    "datasets": ["coordinationqa-v1.1", "coordinationqa-v1.1"],
                    "out": out,
                }
            )
        )


def test_other_settings_are_said_before_any_advice_on_the_trials(tmp_path: Path) -> None:
    """As ``eval`` says a run's identity first (walkthrough 5 #48, #49): following the trials
    advice only to be refused for the limit sent the user round twice."""
    out = tmp_path / "set"
    evaluate_set(parse_spec({"models": ["random"], "limit": 3, "trials": 2, "out": out}))
    fewer_and_other = {"models": ["random"], "limit": 2, "trials": 1, "out": out}
    with pytest.raises(ConfigError) as refused:
        evaluate_set(parse_spec(fewer_and_other))
    assert (
        "other shared settings (limit: 3 before, 2 now from the eval-set spec's limit; trials: 2 "
        "before, 1 now from the eval-set spec's trials)"
    ) in str(refused.value)
    assert "--trials 2 or more" not in str(refused.value)
    with pytest.raises(ConfigError, match="ask for --trials 2 or more to resume it"):
        evaluate_set(parse_spec({**fewer_and_other, "limit": 3}))


def test_each_changed_setting_says_where_its_value_now_came_from(tmp_path: Path) -> None:
    """Walkthrough 18 R9a: after ``eval-set SPEC --trials 3`` (the spec says ``trials: 2``),
    ``eval-set SPEC --limit 8`` listed ``trials: 3 before, 2 now`` as if the user had changed
    the trials. The spec's 2 does differ from the set's 3 (and would be refused next), so it is
    said, with where each value now came from: the option given, or the spec's key."""
    spec = tmp_path / "local-models.yaml"
    spec.write_text(yaml.safe_dump({"models": ["random"], "limit": 2, "trials": 2}))
    out = ["--out", "runs/local"]
    for more in ([], ["--trials", "3"]):
        done = coordqa("eval-set", "local-models.yaml", *out, *more, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    refused = coordqa("eval-set", "local-models.yaml", *out, "--limit", "3", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line == (
        "error: runs/local holds an eval set with other shared settings (limit: 2 before, 3 now "
        "from --limit; trials: 3 before, 2 now from local-models.yaml's trials); run it with the "
        "same settings (models and datasets may be added), or choose another --out"
    ), line


def test_a_member_is_named_as_eval_names_its_run_and_keeps_its_folder(tmp_path: Path) -> None:
    """Walkthrough 7 #30, #31, #343: a ``trials: 2`` member was named without its trials, the
    name ``eval --limit 6`` gives a 3-trial run, while the guide says members are named as
    ``coordqa eval`` names them. A set records each member's folder, so it keeps it."""
    out = tmp_path / "set"
    spec = {"models": ["random"], "datasets": ["example"], "limit": 6, "trials": 2, "out": out}
    evaluate_set(parse_spec(spec))
    alone = EvalConfig(model="random", dataset="example", limit=6, trials=2)
    named = default_out(alone).name
    assert "_first6_trials2_" in named
    assert [m.run for m in read_set(out).members] == [named]
    evaluate_set(parse_spec({**spec, "trials": 3}))  # raised in place: the same folder
    assert [m.run for m in read_set(out).members] == [named]
    assert read_qa_run(out / named).manifest.config["trials"] == 3


def test_a_set_that_named_members_without_their_trials_keeps_their_folders(
    tmp_path: Path,
) -> None:
    """Sets written before members were named as ``eval`` names them still resume."""
    out = tmp_path / "set"
    spec = {"models": ["random"], "datasets": ["example"], "limit": 6, "trials": 2, "out": out}
    evaluate_set(parse_spec(spec))
    named = read_set(out).members[0].run
    before = default_out(EvalConfig(model="random", dataset="example", limit=6)).name
    (out / named).rename(out / before)  # the folder, and the manifest, as sets wrote them
    manifest = json.loads((out / SET_MANIFEST).read_text(encoding="utf-8"))
    manifest["members"] = [
        {key: value for key, value in member.items() if key != "member"} | {"run": before}
        for member in manifest["members"]
    ]
    (out / SET_MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    result = evaluate_set(parse_spec({**spec, "trials": 3}))
    assert [m.run for m in read_set(out).members] == [before]
    assert not (out / named).exists() and result.ok
    assert read_qa_run(out / before).manifest.config["trials"] == 3


def test_a_model_added_later_joins_the_set_and_earlier_members_stay(tmp_path: Path) -> None:
    """The guide: models and datasets may be added to a set later. A second session naming only
    the new model keeps the earlier member in eval-set.json (as it stood), so the set's report,
    view and summary still hold it, and only the new one is run."""
    from cli_support import coordqa

    out = tmp_path / "set"
    env = {"COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    first = coordqa("eval-set", "-m", "random", "--limit", "2", "--out", out, env=env)
    assert first.returncode == 0, first.stderr
    before = read_set(out).members[0]
    second = coordqa("eval-set", "-m", "scripted", "--limit", "2", "--out", out, env=env)
    assert second.returncode == 0, second.stderr
    members = read_set(out).members
    assert [m.model for m in members] == ["scripted", "random"]
    kept = members[1]
    assert (kept.run, kept.status, kept.answered) == (before.run, "complete", before.answered)
    assert "random" in second.stdout and "earlier session" in second.stdout
    # walkthrough 27 (#199): "name it again to run it" read as if the complete member had to run
    assert "(earlier session, not named this time)" in second.stdout, second.stdout
    assert "to run it" not in second.stdout
    report = coordqa("report", out, "--out", tmp_path / "report", env=env)
    assert report.returncode == 0, report.stderr
    assert "random" in report.stdout and "scripted" in report.stdout


def test_a_dataset_regenerated_in_place_keeps_its_old_member_apart(tmp_path: Path) -> None:
    """walk13 R8: after ``dataset generate --out fresh/ --overwrite`` the set held two members
    labelled ``random · fresh/``, the old one "(earlier session; name it again to run it)",
    though naming fresh/ again runs the new content. Members of one dataset path with other
    content are told apart by their fingerprints, and the old one says its content changed."""
    fresh = tmp_path / "fresh"
    made = tmp_path / "set"
    env = {"COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    generate = ("dataset", "generate", "--game", "collab_escape", "--count", "2", "--overwrite")
    run_set = ("eval-set", "-m", "random", "--dataset", fresh, "--trials", "1", "--out", made)
    assert coordqa(*generate, "--seed", "9", "--out", fresh).returncode == 0
    assert coordqa(*run_set, env=env).returncode == 0
    old = read_set(made).members[0].fingerprint
    assert coordqa(*generate, "--seed", "10", "--out", fresh).returncode == 0
    second = coordqa(*run_set, env=env)
    assert second.returncode == 0, second.stderr
    new, earlier = read_set(made).members
    assert (new.earlier, earlier.earlier) == (False, True)
    assert earlier.fingerprint == old and new.fingerprint and new.fingerprint != old
    said = " ".join(second.stdout.split())
    assert f"random · {fresh} ({new.fingerprint[:8]}) complete" in said, said
    assert f"random · {fresh} ({old[:8]}) complete (earlier session; the dataset has" in said
    assert "name it again" not in said
    wide = {**env, "COLUMNS": "400"}
    report = coordqa("report", made, "--out", tmp_path / "report", env=wide)
    assert report.returncode == 0, report.stderr
    headers = [line for line in report.stdout.splitlines() if line.startswith("dataset ")]
    told_apart = [f"dataset {fresh} ({fingerprint[:8]}) " for fingerprint in (new.fingerprint, old)]
    assert sorted(h[: len(told_apart[0])] for h in headers) == sorted(told_apart), headers


def test_a_model_that_answers_no_question_is_refused_before_any_member_with_evals_words(
    tmp_path: Path,
) -> None:
    """Walkthrough 9, #38: ``eval-set --model bot`` added bot members that failed at run time
    (``ConfigError: ...`` shown) while ``eval --model bot`` is refused up front. The set now
    refuses it with eval's own line before anything runs; named in a spec, in the spec's words."""
    out = tmp_path / "set"
    said_by_eval = coordqa("eval", "--model", "bot", "--limit", "2", "--out", tmp_path / "r")
    (eval_line,) = said_by_eval.stderr.strip().splitlines()
    refused = coordqa("eval-set", "-m", "random", "-m", "bot", "--limit", "2", "--out", out)
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip().splitlines() == [eval_line]
    assert not out.exists(), "nothing of the set is written, no member runs"
    spec = tmp_path / "bots.yaml"
    spec.write_text(yaml.safe_dump({"models": [{"model": "random"}, {"model": "bot"}]}))
    in_spec = coordqa("eval-set", spec, "--limit", "2", "--out", out)
    assert in_spec.returncode == 2, in_spec.stderr
    (line,) = in_spec.stderr.strip().splitlines()
    assert line == eval_line.replace("error: ", f"error: {spec}'s models[1]: ", 1)
    assert not out.exists()


def test_an_earlier_member_that_stored_no_run_is_left_out_and_not_counted_as_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 9, #221-#223: a member that failed before storing anything was listed as
    failed by every later session, which exited 1 for it although it did not run it, with no
    way to drop it. A later session not naming it leaves it out (it holds nothing: nothing is
    lost) and says so; a member that failed this session still fails it, with its message as a
    sentence (no exception class name); an earlier member holding a run stays (sets only grow)."""
    monkeypatch.delenv("W9_UNSET_KEY", raising=False)
    out = tmp_path / "set"
    env = {"COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    unset = {
        "model": "openai/x",
        "api_base": "http://127.0.0.1:9/v1",
        "api_key_env": "W9_UNSET_KEY",
    }
    both = tmp_path / "both.yaml"
    both.write_text(yaml.safe_dump({"models": [{"model": "random"}, unset], "limit": 2}))
    first = coordqa("eval-set", both, "--out", out, "--quiet", env=env)
    assert first.returncode == 1, first.stderr
    failure = "failed: openai/x on coordinationqa-v1.2: "
    (failed,) = [line for line in first.stderr.splitlines() if line.startswith(failure)]
    assert "W9_UNSET_KEY is not set" in failed and "Error:" not in failed
    assert [m.status for m in read_set(out).members] == ["complete", "failed"]
    # walkthrough 12: it recorded and showed a run folder it never made
    assert [m.run is None for m in read_set(out).members] == [False, True]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["eval-set.json", str(read_set(out).members[0].run)]
    )
    assert "run: none: it stopped before its run began, so it made no folder" in " ".join(
        first.stdout.split()
    )
    second = coordqa("eval-set", "-m", "scripted", "--limit", "2", "--out", out, env=env)
    assert second.returncode == 0, second.stderr
    assert "failed" not in second.stderr and "openai/x" not in second.stdout
    assert "left out: openai/x on coordinationqa-v1.2" in second.stderr
    members = read_set(out).members
    assert [(m.model, m.status, m.earlier) for m in members] == [
        ("scripted", "complete", False),
        ("random", "complete", True),
    ]
    third = coordqa("eval-set", both, "--out", out, "--quiet", env=env)
    assert third.returncode == 1, "named again, it runs again and fails again"
    assert failure in third.stderr


def test_a_member_extended_beyond_the_sets_trials_counts_what_it_holds_as_runs_list_does(
    tmp_path: Path,
) -> None:
    """Walkthrough 15 R5 (#329-#332): a member raised to 4 trials by a plain ``coordqa eval``
    was summarised as ``complete (skipped), 48/36 samples`` while ``runs list`` said 48/48. It
    is complete (it answered the set's trials) and holds 6 questions x 4 trials = 24 samples."""
    out = tmp_path / "set"
    args = ["eval-set", "-m", "random", "--dataset", "example", "--limit", "6", "--out", out]
    env = {"COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    assert coordqa(*args, env=env).returncode == 0
    (member,) = read_set(out).members
    extended = coordqa(
        "eval", "-m", "random", "--dataset", "example", "--limit", "6", "--trials", "4",
        "--out", out / str(member.run), env=env,
    )  # fmt: skip
    assert extended.returncode == 0, extended.stderr
    again = coordqa(*args, env=env)
    assert again.returncode == 0, again.stderr
    (state,) = read_set(out).members
    assert (state.status, state.answered, state.expected) == ("complete", 24, 24)
    assert "complete (skipped), 24/24 samples (4 trials, more than the set's 3)" in again.stdout
    listed = coordqa("runs", "list", out, env=env)
    assert "24/24" in listed.stdout, listed.stdout


def test_a_spec_model_refused_by_its_server_names_the_specs_key_not_model(
    tmp_path: Path,
) -> None:
    """Walkthrough 15 R4 (#292): an eval-set spec's ``model: openai/my-modle`` was refused with
    "use --model openai/my-model", an option the set was not given; the fix is the spec's key.
    A model given by ``--model`` is named as the option."""
    with LocalOpenAIServer(_answer, models=["alpha"]) as server:
        spec = tmp_path / "models.yaml"
        spec.write_text(
            f"models:\n  - {{model: random}}\n  - {{model: openai/alpah, api_base: "
            f"'{server.base_url}'}}\ndatasets: [example]\nlimit: 2\ntrials: 1\n"
        )
        from_file = coordqa("eval-set", "models.yaml", "--out", "set", cwd=tmp_path)
        from_option = coordqa(
            "eval-set", "--model", "openai/alpah", "--api-base", server.base_url,
            "--dataset", "example", "--limit", "2", "--out", "set2", cwd=tmp_path,
        )  # fmt: skip
    assert from_file.returncode == 1, from_file.stderr
    said = " ".join(from_file.stderr.split())
    assert "not alpah: set models.yaml's models[1].model to openai/alpha" in said, said
    assert "--model" not in said
    assert from_option.returncode == 1, from_option.stderr
    assert "not alpah: use --model openai/alpha" in " ".join(from_option.stderr.split())


@pytest.mark.parametrize(
    ("served", "advice"),
    [
        (["my-model", "my-other-model"], "not nope-model: use --model openai/my-other-model"),
        (["my-model"], "serves my-model, not nope-model"),
    ],
)
def test_a_refused_member_is_offered_no_model_the_set_names_already(
    tmp_path: Path, served: list[str], advice: str
) -> None:
    """Walkthrough 21, R2 (#219, #221): ``eval-set --model openai/my-model --model
    openai/nope-model`` told the refused member to ``use --model openai/my-model``, a member of
    that set, and following it was refused as a model named twice. A member's refusal offers a
    served name the set does not name; where none is left it lists the served names alone."""
    with LocalOpenAIServer(models=served) as server:
        result = coordqa(
            "eval-set", "--model", "openai/my-model", "--model", "openai/nope-model",
            "--api-base", server.base_url, "--dataset", "example", "--limit", "2",
            "--trials", "1", "--out", "set", cwd=tmp_path,
        )  # fmt: skip
    assert result.returncode == 1, result.stderr
    said = " ".join((result.stdout + result.stderr).split())
    assert advice in said, said
    assert "use --model openai/my-model" not in said, said
    assert ("use --model" in said) == ("use --model" in advice), said


def test_a_model_not_served_pickles_whole_and_leaves_out_the_names_taken() -> None:
    """A Ray task's error reaches the driver pickled: its offer survives, as its closest names."""
    import pickle

    from coordqa.errors import ModelNotServed

    refusal = ModelNotServed(
        "the server serves a, b, not c", ("a",), fix="use --model", offered=("x/a", "x/b")
    )
    again = pickle.loads(pickle.dumps(refusal))
    assert str(again) == "the server serves a, b, not c: use --model x/a"
    assert (again.closest, again.offered) == (("a",), ("x/a", "x/b"))
    assert str(again.leaving_out({"x/a"})) == "the server serves a, b, not c: use --model x/b"
    assert str(again.leaving_out({"x/a", "x/b"})) == "the server serves a, b, not c"
