"""A running leaderboard server on 127.0.0.1: parallel submissions, a crash mid-submission, CLI."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_support import coordqa
from leaderboard_support import (
    LiveServer,
    synthetic_bundle,
    synthetic_rows,
)
from sqlalchemy import func, select
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.evaluation import EvalConfig, evaluate
from coordqa.leaderboard.catalog import register_dataset
from coordqa.leaderboard.db import Database, SampleResult, Submission, open_database
from coordqa.leaderboard.tokens import create_token

ROWS = synthetic_rows(scenarios=4)
SAMPLES_PER_BUNDLE = len(ROWS) * 3


@pytest.fixture
def prepared(db_url: str, tmp_path: Path) -> tuple[str, str]:
    """A database URL with the synthetic dataset registered, and a token for it."""
    url = db_url
    db = open_database(url)
    path = tmp_path / "synthetic.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    register_dataset(db, path, "synthetic")
    token = create_token(db, "tester")
    db.dispose()
    return url, token


def _post(url: str, token: str, bundle: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"{url}/api/submissions",
        content=json.dumps(bundle),
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )


def _counts(db: Database) -> tuple[int, int, dict[int, int]]:
    """Submissions, samples, and samples per submission id (orphans included)."""
    with db.session() as session:
        subs = session.execute(select(func.count()).select_from(Submission)).scalar_one()
        samples = session.execute(select(func.count()).select_from(SampleResult)).scalar_one()
        per = dict(
            session.execute(
                select(SampleResult.submission_id, func.count()).group_by(
                    SampleResult.submission_id
                )
            ).all()
        )
        ids = set(session.scalars(select(Submission.id)))
    assert set(per) <= ids, "samples without a submission"
    return int(subs), int(samples), {i: int(per.get(i, 0)) for i in ids}


@pytest.mark.slow
def test_50_parallel_submissions_are_each_stored_once(
    prepared: tuple[str, str], tmp_path: Path
) -> None:
    url, token = prepared
    bundles = [synthetic_bundle(ROWS, display_name=f"model {i}", run=str(i)) for i in range(35)]
    requests = bundles + bundles[:15]  # 50 requests: 35 distinct bundles, 15 sent twice at once
    server = LiveServer(url, log=tmp_path / "server.log", options=["--rate-limit", "0"])
    with server, ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda b: _post(server.url, token, b), requests))
    assert all(a.status_code in (200, 201) for a in answers), [
        a.text for a in answers if a.status_code >= 300
    ]
    ids = [a.json()["id"] for a in answers]
    assert ids[35:] == ids[:15]
    assert len(set(ids)) == 35
    assert sum(a.status_code == 201 for a in answers) == 35
    db = open_database(url)
    subs, samples, per = _counts(db)
    db.dispose()
    assert (subs, samples) == (35, 35 * SAMPLES_PER_BUNDLE)
    assert set(per.values()) == {SAMPLES_PER_BUNDLE}


@pytest.mark.slow
def test_killing_the_server_mid_submission_leaves_the_database_consistent(
    prepared: tuple[str, str], tmp_path: Path
) -> None:
    url, token = prepared
    bundles = [synthetic_bundle(ROWS, display_name=f"crash {i}", run=str(i)) for i in range(24)]
    no_limit = ["--rate-limit", "0"]  # attempts are counted across restarts; not the subject here
    server = LiveServer(url, log=tmp_path / "server.log", options=no_limit).start()

    def send(bundle: dict[str, Any]) -> int | None:
        try:
            return _post(server.url, token, bundle).status_code
        except httpx.HTTPError:
            return None  # the server died under this request

    with ThreadPoolExecutor(12) as pool:
        futures = [pool.submit(send, b) for b in bundles]
        futures[0].result(timeout=120)  # at least one stored; the others are in flight
        server.kill()
        statuses = [f.result(timeout=120) for f in futures]
    db = open_database(url)
    subs, _, per = _counts(db)
    assert all(count == SAMPLES_PER_BUNDLE for count in per.values()), per  # all or nothing
    answered = sum(s in (200, 201) for s in statuses)
    assert None in statuses  # some submissions were cut off by the kill
    assert 1 <= answered <= subs <= len(bundles)  # a commit may beat the kill, its answer not
    db.dispose()
    with LiveServer(url, log=tmp_path / "server2.log", options=no_limit) as again:
        answers = [_post(again.url, token, b) for b in bundles]
    assert all(a.status_code in (200, 201) for a in answers)
    db = open_database(url)
    subs, samples, per = _counts(db)
    db.dispose()
    assert (subs, samples) == (24, 24 * SAMPLES_PER_BUNDLE)


@pytest.mark.slow  # a live server process: about 4 s of CPU
def test_cli_submit_prints_the_entry_and_the_servers_refusals(tmp_path: Path) -> None:
    run = tmp_path / "run"
    evaluate(EvalConfig(model="random", dataset="example", trials=2, out=run))
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    token = create_token(db, "cli")
    db.dispose()
    runner = CliRunner()
    with LiveServer(url, log=tmp_path / "server.log") as server:
        ok = runner.invoke(
            app, ["submit", str(run), "--to", server.url, "--token", token, "--name", "cli model"]
        )
        again = runner.invoke(
            app, ["submit", str(run), "--to", server.url, "--token", token, "--name", "cli model"]
        )
        refused = runner.invoke(app, ["submit", str(run), "--to", server.url, "--token", "cqa_bad"])
        entries = httpx.get(f"{server.url}/api/entries", params={"dataset": "example"}).json()[
            "entries"
        ]
        hidden_db = open_database(url)
        hidden_db.set_hidden(1, True, "shown [red]as[/] typed")
        hidden_db.dispose()
        hidden = runner.invoke(
            app, ["submit", str(run), "--to", server.url, "--token", token, "--name", "cli model"]
        )
    assert ok.exit_code == 0, ok.output
    assert "submitted: entry 1" in ok.output and f"{server.url}/submissions/1" in ok.output
    assert "already on the leaderboard: entry 1" in again.output
    assert "hidden" not in again.output
    # walkthrough 9: a hidden entry resent said only "already on the leaderboard"
    assert hidden.exit_code == 0, hidden.output
    said = " ".join(hidden.output.split())
    assert "already on the leaderboard: entry 1" in said, said
    assert (
        "entry 1 is hidden (shown [red]as[/] typed): stored, but not ranked on the board; the "
        "board's admin shows it again with `coordqa leaderboard unhide 1 --db DB_URL`"
    ) in said, said
    assert refused.exit_code != 0
    assert "HTTP 401" in str(refused.exception) and "bearer token" in str(refused.exception)
    assert [e["display_name"] for e in entries] == ["cli model"]


@pytest.mark.slow  # a live server process: about 4 s of CPU
def test_a_bundle_saved_with_out_is_sent_as_it_is(tmp_path: Path) -> None:
    """Blind walkthrough: ``submit bundle.json --to URL`` said "run directory bundle.json does
    not exist" of the file ``submit RUN --out bundle.json`` had written."""
    run = tmp_path / "run"
    evaluate(EvalConfig(model="random", dataset="example", trials=2, out=run))
    saved = tmp_path / "bundle.json"
    assert coordqa("submit", run, "--out", saved, "--name", "saved model").returncode == 0
    not_a_bundle = tmp_path / "notes.json"
    not_a_bundle.write_text('{"hello": 1}')
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    token = create_token(db, "cli")
    db.dispose()
    with LiveServer(url, log=tmp_path / "server.log") as server:
        to = ["--to", server.url, "--token", token]
        sent = coordqa("submit", saved, *to)
        renamed = coordqa("submit", saved, *to, "--name", "other")
        refused = coordqa("submit", not_a_bundle, *to)
        again = coordqa("submit", run, *to, "--name", "saved model")
        entries = httpx.get(f"{server.url}/api/entries", params={"dataset": "example"}).json()
    assert sent.returncode == 0, sent.stderr
    assert "submitted: entry 1 (24 replies)" in sent.stdout, sent.stdout
    assert [e["display_name"] for e in entries["entries"]] == ["saved model"]
    assert "already on the leaderboard: entry 1" in again.stdout, again.stdout
    # walkthrough 9 #106: past 80 columns the URL was folded onto a line of its own (stdout a pipe)
    assert (
        f"already on the leaderboard: entry 1 (24 replies): {server.url}/submissions/1\n"
        in again.stdout
    ), again.stdout
    assert renamed.returncode == 2
    (line,) = renamed.stderr.strip().splitlines()
    assert line.startswith("error: --name cannot change a saved bundle"), line
    assert (
        "model. Save it again from its run directory with --name, into a new file: `coordqa "
        f"submit RUN_DIR --name other --out {tmp_path / 'bundle-other.json'}` (an agentic run: "
        "with --grid GRID), then send that file"
    ) in line, line
    assert refused.returncode == 2
    (line,) = refused.stderr.strip().splitlines()
    assert "is not a bundle written by coordqa submit --out" in line, line


@pytest.mark.slow  # a live server process: about 4 s of CPU
def test_submit_endpoint_takes_the_model_details_submit_takes(tmp_path: Path) -> None:
    """Blind walkthrough #179, #277, #280: ``submit-endpoint --details`` took no value at all;
    it takes ``--org``, ``--params`` and ``--link`` as ``submit`` does, and the board-run entry
    is built with them."""
    from coordqa.leaderboard.db import Endpoint, shown_as

    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    token = create_token(db, "cli")
    db.dispose()
    with LiveServer(url, log=tmp_path / "server.log") as server:
        done = coordqa(
            "submit-endpoint", "random", "--to", server.url, "--token", token, "--name", "R3",
            "--org", "Me", "--params", "7B", "--link", "https://example.org/r3",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "queued job 1 (CoordinationQA)" in done.stdout, done.stdout
    db = open_database(url, create=False)
    with db.session() as session:
        (endpoint,) = session.scalars(select(Endpoint)).all()
        shown = shown_as(endpoint)
    db.dispose()
    assert shown == {
        "display_name": "R3",
        "provider": "coordqa",
        "parameters": 7e9,
        "organisation": "Me",
        "link": "https://example.org/r3",
    }


@pytest.mark.slow  # a live server process: about 4 s of CPU
def test_a_run_sent_again_with_more_trials_says_the_earlier_entry_stays(tmp_path: Path) -> None:
    """Walkthrough 10 #145: ``runs/random`` raised from 3 to 5 trials and submitted again made
    a second ranked entry beside the first, and submit said only "submitted: entry 5". The
    board ranks each run (more trials are new results); submit says the earlier entry stays
    ranked and how to retire it."""
    run = tmp_path / "run"
    evaluate(EvalConfig(model="random", dataset="example", trials=2, out=run))
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    token, other = create_token(db, "cli"), create_token(db, "other")
    db.dispose()
    with LiveServer(url, log=tmp_path / "server.log") as server:
        to = ["--to", server.url, "--token", token, "--name", "Random"]
        first = coordqa("submit", run, *to)
        evaluate(EvalConfig(model="random", dataset="example", trials=3, out=run))
        second = coordqa("submit", run, *to)
        again = coordqa("submit", run, *to)
        elsewhere = tmp_path / "elsewhere"
        evaluate(EvalConfig(model="random", dataset="example", trials=1, seed=7, out=elsewhere))
        others = coordqa("submit", elsewhere, "--to", server.url, "--token", other)
        third = tmp_path / "third"  # walkthrough 11 #240: with several, none is named to hide
        evaluate(EvalConfig(model="random", dataset="example", trials=1, seed=8, out=third))
        several = coordqa("submit", third, *to)
        evaluate(EvalConfig(model="random", dataset="example", trials=2, seed=8, out=third))
        more = coordqa("submit", third, *to)  # more trials than the third's 1, not entry 2's
    assert "submitted: entry 1 (24 replies)" in first.stdout and "beside" not in first.stdout
    said = " ".join(second.stdout.split())
    assert "submitted: entry 2 (36 replies)" in said, said
    assert (
        "entry 1 (2 trials) of the same model and dataset from this token stays ranked beside "
        "entry 2: the board ranks each run as its own entry. If entry 2 replaces it (the same "
        "run with more trials), ask the board's admin to hide it: `coordqa leaderboard hide 1 "
        "--db DB_URL`"
    ) in said, said
    assert "already on the leaderboard: entry 2" in again.stdout and "beside" not in again.stdout
    assert "beside" not in others.stdout, others.stdout  # another token's entries are its own
    said = " ".join(several.stdout.split())
    new = re.search(r"submitted: entry (\d+)", said)
    assert new is not None, said
    # walkthrough 13 #252: a run of 1 trial was told it might replace entries of 2 and 3
    assert (
        "entries 1 (2 trials), 2 (3 trials) of the same model and dataset from this token stay "
        f"ranked beside entry {new[1]} (1 trial): the board ranks each run as its own entry"
    ) in said, said
    assert "hide" not in said and "replaces" not in said, said
    said = " ".join(more.stdout.split())
    last = re.search(r"submitted: entry (\d+)", said)
    assert last is not None, said
    assert (
        f"entry {new[1]} (1 trial) of the same model and dataset from this token stays ranked "
        f"beside entry {last[1]}: the board ranks each run as its own entry. If entry {last[1]} "
        "replaces it (the same run with more trials), ask the board's admin to hide it: "
        f"`coordqa leaderboard hide {new[1]} --db DB_URL`"
    ) in said, said
    assert (
        "entries 1 (2 trials), 2 (3 trials) of the same model and dataset from this token stay "
        f"ranked beside entry {last[1]} (2 trials): the board ranks each run as its own entry"
    ) in said, said


IMITATION_REFUSAL = (
    "error: the leaderboard refused it (HTTP 422): the display name 'random' looks like the "
    "existing name 'Random' of another submitter (names are compared by their Unicode look-alike "
    "skeleton, ignoring case and spaces); choose a name that reads differently"
)
"""The board's refusal of a second submitter's run of ``random`` under its default name."""


@pytest.mark.slow  # a live server process: about 4 s of CPU
def test_a_name_like_another_submitters_is_refused_with_the_command_that_names_it(
    tmp_path: Path,
) -> None:
    """Walkthrough 18 #174: a second submitter's run of ``random`` (its default display name
    is the model's) was refused as looking like 'Random', with no word of how to name it. A run
    is named with --name; a saved bundle holds its name, so it is saved again with --name, in
    the words the refusal of ``--name`` on a saved bundle uses."""
    import shlex

    run, other_run = tmp_path / "run", tmp_path / "other run"
    evaluate(EvalConfig(model="random", dataset="example", trials=2, out=run))
    evaluate(EvalConfig(model="random", dataset="example", trials=2, seed=7, out=other_run))
    saved = tmp_path / "bundle.json"
    assert coordqa("submit", other_run, "--out", saved).returncode == 0
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    alice, bob = create_token(db, "alice"), create_token(db, "bob")
    db.dispose()
    with LiveServer(url, log=tmp_path / "server.log") as server:
        first = coordqa("submit", run, "--to", server.url, "--token", alice, "--name", "Random")
        from_run = coordqa("submit", other_run, "--to", server.url, "--token", bob)
        from_file = coordqa("submit", saved, "--to", server.url, "--token", bob)
        endpoint = coordqa("submit-endpoint", "random", "--to", server.url, "--token", bob)
        renamed = coordqa(
            "submit", other_run, "--to", server.url, "--token", bob, "--name", "R\u0430ndom"
        )  # a Cyrillic a: the name given is refused, so another is asked for (walkthrough 25)
    assert first.returncode == 0, first.stderr
    assert renamed.returncode == 2, renamed.stderr
    assert "give another --name: `coordqa submit" in renamed.stderr, renamed.stderr
    assert "add --name" not in renamed.stderr, renamed.stderr
    said = {}
    for what, done in (("run", from_run), ("file", from_file), ("endpoint", endpoint)):
        assert done.returncode == 2, (what, done.stdout, done.stderr)
        (said[what],) = done.stderr.strip().splitlines()
    assert said["run"] == (
        f"{IMITATION_REFUSAL}: add --name NAME to the command: `coordqa submit "
        f"{shlex.quote(str(other_run))} --name NAME --to URL --token T`"
    ), said["run"]
    assert said["file"] == (
        f"{IMITATION_REFUSAL}. {saved} holds that name (its digest covers what it says of the "
        "model): save it again from its run directory with --name, into a new file: "
        f"`coordqa submit RUN_DIR --name NAME --out {tmp_path / 'bundle-NAME.json'}` (an "
        "agentic run: with --grid GRID), then send that file; or send the run directly: "
        "`coordqa submit RUN_DIR --name NAME --to URL --token T`"
    ), said["file"]
    assert said["endpoint"] == (
        f"{IMITATION_REFUSAL}: add --name NAME to the command: `coordqa submit-endpoint random "
        "--name NAME --to URL --token T`"
    ), said["endpoint"]
