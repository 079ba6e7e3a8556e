"""Building submission bundles from run directories, and ``coordqa submit --out``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.errors import ConfigError
from coordqa.evaluation import EvalConfig, evaluate
from coordqa.leaderboard.bundle import BundleError, QABundle, build_qa_bundle, bundle_digest


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "run"
    evaluate(EvalConfig(model="random", dataset="example", trials=2, seed=5, out=out))
    return out


def test_bundle_holds_every_reply_and_a_digest_of_the_rest(run_dir: Path) -> None:
    bundle = build_qa_bundle(run_dir, display_name="Rand", parameters=1e6, link="https://x.org/a")
    model = QABundle.model_validate(bundle)
    assert model.track == "qa" and model.trials == 2
    assert len(model.replies) == 12 * 2
    assert {(r.question_id, r.trial) for r in model.replies} == {
        (json.loads(line)["question_id"], t)
        for line in (run_dir / "questions.jsonl").read_text().splitlines()
        for t in range(2)
    }
    assert bundle["digest"] == bundle_digest(bundle)
    assert bundle["model"] == {
        "display_name": "Rand",
        "provider": "coordqa",
        "parameters": 1e6,
        "organisation": None,
        "link": "https://x.org/a",
    }
    summary = json.loads((run_dir / "summary.json").read_text())
    assert bundle["reported"]["overall"] == pytest.approx(summary["overall"]["accuracy"])
    assert (
        build_qa_bundle(run_dir, display_name="Rand", parameters=1e6, link="https://x.org/a")
        == bundle
    )


def test_incomplete_run_lists_missing_pairs(tmp_path: Path, run_dir: Path) -> None:
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    calls = (copy / "calls.jsonl").read_text().splitlines(keepends=True)
    (copy / "calls.jsonl").write_text("".join(calls[:-3]))
    with pytest.raises(
        BundleError, match=r"3 of 24 \(question, trial\) pairs have no reply"
    ) as info:
        build_qa_bundle(copy)
    assert "#1" in str(info.value) and "coordqa eval" in str(info.value)


@pytest.mark.parametrize("selection", [{"limit": 3}, {"sample": 4}, {"types": ("EC",)}])
def test_filtered_run_is_refused(tmp_path: Path, selection: dict[str, Any]) -> None:
    out = tmp_path / "run"
    evaluate(EvalConfig(model="random", dataset="example", trials=1, out=out, **selection))
    with pytest.raises(BundleError, match="part of its dataset") as info:
        build_qa_bundle(out)
    assert f"(--{next(iter(selection))} " in str(info.value)  # the flag that made it partial


def test_cli_submit_out_writes_the_bundle(tmp_path: Path, run_dir: Path) -> None:
    out = tmp_path / "bundle.json"
    result = CliRunner().invoke(
        app,
        [
            "submit",
            str(run_dir),
            "--out",
            str(out),
            "--name",
            "R",
            "--params",
            "7B",
            "--org",
            "Lab",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["model"]["parameters"] == 7e9 and data["model"]["organisation"] == "Lab"
    assert data["digest"] == bundle_digest(data) and data["digest"][:12] in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "x.json", "--to", "http://127.0.0.1:9"], "exactly one of --to"),
        ([], "exactly one of --to"),
        (["--to", "http://127.0.0.1:9"], "--to needs --token"),
    ],
)
def test_cli_submit_option_errors(
    run_dir: Path, args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COORDQA_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["submit", str(run_dir), *args])
    assert isinstance(result.exception, ConfigError) and message in str(result.exception)


def test_unreachable_server_is_a_clear_error(run_dir: Path) -> None:
    from coordqa.local_servers import free_port

    url = f"http://127.0.0.1:{free_port()}"
    result = CliRunner().invoke(app, ["submit", str(run_dir), "--to", url, "--token", "cqa_x"])
    assert "cannot reach the leaderboard" in str(result.exception)
    # walkthrough 31: no next step was said, where eval says to start the server or fix it
    assert "start the board (coordqa leaderboard serve) or fix --to" in str(result.exception)


def with_long_reply(source: Path, target: Path) -> tuple[str, int]:
    """A copy of the run at ``source`` whose first stored reply is 100,500 characters long,
    as a coordqa that did not cut replies stored it; its (question, trial)."""
    import shutil

    shutil.copytree(source, target)
    calls = target / "calls.jsonl"
    lines = calls.read_text().splitlines()
    first = json.loads(lines[0])
    first["text"] = "Answer: A " + "x" * 100_490
    calls.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    return first["question_id"], first["trial"]


def test_cli_submit_of_a_reply_longer_than_a_bundle_carries_says_what_to_do(
    tmp_path: Path, run_dir: Path
) -> None:
    """It raised pydantic's ValidationError, a traceback, out of ``coordqa submit``."""
    from cli_support import coordqa

    with_long_reply(run_dir, tmp_path / "run")
    done = coordqa("submit", tmp_path / "run", "--out", tmp_path / "bundle.json")
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert said.startswith("error: ") and "Traceback" not in said, said
    assert "String should have at most 100000 characters" in said
    assert "run the same `coordqa eval` command with another --out folder" in said
    assert not (tmp_path / "bundle.json").exists()


def test_a_board_job_whose_run_breaks_the_schema_fails_naming_the_rule(
    tmp_path: Path, run_dir: Path
) -> None:
    """The worker's side: the same refusal becomes the job's schema error, not the advice."""
    from coordqa.leaderboard.intake import SchemaError
    from coordqa.leaderboard.job_errors import job_failure
    from coordqa.leaderboard.worker import _bundle_schema

    with_long_reply(run_dir, tmp_path / "run")
    with pytest.raises(SchemaError) as refused, _bundle_schema():
        build_qa_bundle(tmp_path / "run")
    public = job_failure(refused.value).public
    assert public.startswith("the board refused the job's results"), public
    assert ".text: String should have at most 100000 characters" in public
    assert "--out" not in public and "xxxxxxxxxx" not in public


def test_a_name_given_to_a_saved_bundle_is_refused_with_the_command_that_saves_it_again(
    tmp_path: Path, run_dir: Path
) -> None:
    """Blind walkthrough 15 R1: ``submit bundle.json --to URL --name Random`` was refused ("its
    digest covers it") with no command that gets the name into a bundle; the refusal now gives
    the command that saves it again from its run with the options, and the one that sends the
    run directly. Refused before any connection: nothing listens at the address given."""
    from cli_support import coordqa

    saved = tmp_path / "bundle.json"
    assert coordqa("submit", run_dir, "--out", saved).returncode == 0
    to = ("--to", "http://127.0.0.1:9", "--token", "secret-token")
    refused = coordqa("submit", saved, *to, "--name", "My Model", "--org", "Lab")
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    said = " ".join(refused.stderr.split())
    assert said.startswith(f"error: --name and --org cannot change a saved bundle ({saved})"), line
    assert "`coordqa submit RUN_DIR --name 'My Model' --org Lab --to URL --token T`" in said
    assert "secret-token" not in said
    # walkthrough 16 B3 (#123, #125): the command advised named the saved file, which
    # `submit --out` refuses; it names a new file beside it, and works as given
    fresh = saved.with_name("bundle-My-Model-Lab.json")
    advised = f"`coordqa submit RUN_DIR --name 'My Model' --org Lab --out {fresh}`"
    assert advised in said, said
    command = shlex.split(advised.strip("`").replace("RUN_DIR", shlex.quote(str(run_dir))))
    assert command[0] == "coordqa"
    again = coordqa(*command[1:])
    assert again.returncode == 0, again.stderr
    assert json.loads(fresh.read_text())["model"]["display_name"] == "My Model"
    # and the next one, when that name is taken too, is another new file
    refused = coordqa("submit", saved, *to, "--name", "My Model", "--org", "Lab")
    assert f"--out {saved.with_name('bundle-My-Model-Lab-2.json')}`" in " ".join(
        refused.stderr.split()
    ), refused.stderr
