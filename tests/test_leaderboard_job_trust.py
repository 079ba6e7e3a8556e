"""Board-run jobs cannot be turned against the board (issue 35): each probe of the attack report
(``shared/reports/board-and-viewer-attacks.md``) that is about jobs, their API and run folders,
written as the attack, against a hostile endpoint on 127.0.0.1.

N3 a failed job's private seed, N6/N7 the endpoint's address, paths and key in public errors,
N9 the "secret" sampling seed sent to the endpoint, N10 another user's entry credited, N12 one
token's jobs starving the others, N13 lists without pages, N14 a cancelled job that runs on,
N5 (the folder part) a job's folder without bound; walkthrough rough 8 (CLI advice and the
board's paths in a job error) and rough 12 (a job ending as another job's entry). The public
sentences of N1 (a rebound address) and N2 (a redirect) are checked with those probes, in
test_leaderboard_endpoints.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import coordqa
from leaderboard_support import BoardClient, synthetic_bundle
from sqlalchemy import select

from coordqa.dataset import DEFAULT_DATASET, load_rows
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.db import Job, Submission
from coordqa.leaderboard.jobs import claim_job, raise_budget, set_job_status
from coordqa.leaderboard.settings import BoardRunSettings, WorkerConfig
from coordqa.leaderboard.tokens import create_token
from coordqa.leaderboard.worker import private_split, work
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.prompts import question_text

KEY = "sk-PROBE-SECRET-echokey-4711"
"""The submitter's key, which the hostile endpoint echoes back (N7)."""
PUBLIC = len(load_rows(DEFAULT_DATASET))
PRIVATE = 12
"""One fresh scenario per game, three questions each."""


@pytest.fixture
def board(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BoardClient]:
    from cryptography.fernet import Fernet

    monkeypatch.setenv("COORDQA_BOARD_SECRET", Fernet.generate_key().decode())
    settings = BoardRunSettings(trials=1, private_per_game=1, allow_private_endpoints=True)
    client = BoardClient(db_url, tmp_path, board_run=settings)
    yield client
    client.close()


def register(board: BoardClient, token: str | None = None, **fields: Any) -> dict[str, Any]:
    answer = board.client.post(
        "/api/endpoints",
        json={"model": "openai/local-model", "api_key": KEY, **fields},
        headers={"Authorization": f"Bearer {token or board.token}"},
    )
    assert answer.status_code == 201, answer.text
    [job] = answer.json()["jobs"]
    return dict(job)


def run_worker(board: BoardClient, work_dir: Path) -> list[Any]:
    return work(board.db, BoardCatalog(board.db), WorkerConfig(work_dir=work_dir), once=True)


def public_job(board: BoardClient, job_id: int) -> dict[str, Any]:
    return dict(board.client.get(f"/api/jobs/{job_id}").json())


def files_text(folder: Path) -> str:
    return " ".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


PUBLIC_TEXTS = {question_text(row) for row in load_rows(DEFAULT_DATASET)}


def private_asked(requests: list[Any]) -> set[str]:
    """The question texts of the requests that were not public questions."""
    asked = {str(r["messages"][-1]["content"]) for r in requests}
    return asked - PUBLIC_TEXTS


# -- N3: the private split of a failed job ------------------------------------------------------


@pytest.mark.slow  # two sessions of a job: about 8 s of CPU per database
def test_a_failed_job_hides_its_private_seed_and_a_requeue_asks_a_fresh_split(
    board: BoardClient, tmp_path: Path
) -> None:
    """N3: the job failed at its budget inside the private split, GET /api/jobs showed its
    private_seed (the split and its key rebuild from it), and a requeue asked the same
    questions again."""
    with LocalOpenAIServer(api_key=KEY) as server:
        job = register(board, api_base=server.base_url, display_name="Hostile")
        # stops in the private split (12 calls), after its first 8 (the concurrency) were sent
        raise_budget(board.db, job["id"], max_calls=PUBLIC + 10)
        [first] = run_worker(board, tmp_path / "jobs")
        assert first.status == "failed", first
        seen_first = private_asked(server.requests)
        failed = public_job(board, job["id"])
        with board.db.session() as session:
            seed_first = session.execute(select(Job.private_seed)).scalar_one()
        raise_budget(board.db, job["id"], max_calls=5_000)
        set_job_status(board.db, job["id"], "queued")
        [second] = run_worker(board, tmp_path / "jobs")
        seen_second = private_asked(server.requests[len(seen_first) + PUBLIC :])
    assert seen_first  # the endpoint saw private questions before the job failed
    assert failed["status"] == "failed" and failed["private_seed"] is None
    assert str(seed_first) not in json.dumps(board.client.get("/api/jobs").json())
    assert "budget of" in failed["error"] and "secret until the job is done" in failed["seeds"]
    assert second.status == "done", second
    done = public_job(board, job["id"])
    assert done["private_seed"] is not None and done["private_seed"] != seed_first
    # the second session asked exactly the split of the new seed, and kept none of the first
    fresh = private_split(done["private_seed"], 1, tmp_path / "rebuilt")
    expected = {question_text(json.loads(line)) for line in fresh.read_text().splitlines()}
    assert seen_second == expected and len(expected) == PRIVATE
    assert not (tmp_path / "jobs" / f"job-{job['id']}" / "session-1").exists()
    assert (tmp_path / "jobs" / f"job-{job['id']}" / "session-2").is_dir()


# -- N9: the sampling seed is public, and said to be ---------------------------------------------


def test_the_sampling_seed_sent_to_the_endpoint_is_not_called_secret(board: BoardClient) -> None:
    """N9: every QA request carries the job's seed, which /api/jobs called secret."""
    job = register(board, model="random", api_key=None)
    assert job["seed"] is not None and "sent to the endpoint" in job["seeds"]
    assert job["private_seed"] is None and "secret until the job is done" in job["seeds"]


# -- N14: cancelling a running job ---------------------------------------------------------------


def test_cancelling_a_running_job_stops_its_worker_at_the_next_call(
    board: BoardClient, tmp_path: Path
) -> None:
    """N14: ``job cancel`` only set the status; the worker went on calling the endpoint, and
    the cancelled job showed its seeds."""
    cancel_at = 30
    job_id: list[int] = []

    def cancelling(body: Any, index: int) -> str:
        if index == cancel_at:
            set_job_status(board.db, job_id[0], "cancelled", error="cancelled by the admin")
        return "Answer: A"

    with LocalOpenAIServer(cancelling, api_key=KEY) as server:
        job_id.append(register(board, api_base=server.base_url)["id"])
        [outcome] = run_worker(board, tmp_path / "jobs")
        asked = server.count
    assert outcome.status == "withdrawn"
    assert asked <= cancel_at + 1 + 8  # the calls in flight when it was cancelled, no more
    shown = public_job(board, job_id[0])
    assert shown["status"] == "cancelled" and shown["entry"] is None
    assert shown["private_seed"] is None and shown["error"] == "cancelled by the admin"


# -- N6, N7, rough 8: what a failed job says in public -------------------------------------------

SCRIPT = "<script>alert(1)</script>"


@pytest.mark.parametrize(
    ("fault", "models", "expected", "fix"),
    [
        (
            Fault.error(401, f"bad key: Bearer {KEY}; see http://127.0.0.1:9/help {SCRIPT}"),
            ("local-model",),
            "the endpoint refused the key (401)",
            "register it again with a working key",
        ),
        (
            Fault.error(404, "The model `local-model` does not exist " + "x" * 5000),
            (SCRIPT, "y" * 5000, "local-model"),  # listed, then refused by the call
            "the endpoint does not serve the model (404)",
            "register it again with a model name it serves",
        ),
        (
            None,  # not listed: refused before the first call (walkthrough 5 #214)
            (SCRIPT, "y" * 5000),
            "the endpoint does not serve the model (it lists others)",
            "register it again with a model name it serves",
        ),
    ],
)
def test_a_failed_jobs_public_error_is_one_sentence_for_the_submitter(
    board: BoardClient,
    tmp_path: Path,
    fault: Fault | None,
    models: tuple[str, ...],
    expected: str,
    fix: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """N6: errors carried the endpoint's URL, 5,000 characters it chose and the worker's paths;
    N7: an endpoint that echoes its key put "Bearer sk-..." into the public error, the log and
    calls.jsonl; rough 8: the CLI's "run the same command again" and the board's folder."""
    work_dir = tmp_path / "board-jobs"
    with LocalOpenAIServer(always=fault, models=models) as server:
        job = register(board, api_base=server.base_url)
        logged = coordqa(
            "leaderboard",
            "worker",
            "--db",
            str(board.db.engine.url),
            "--work-dir",
            work_dir,
            "--once",
        )
    assert logged.returncode == 0, logged.stderr
    error = public_job(board, job["id"])["error"]
    assert error.startswith(expected) and error.endswith(fix), error
    assert len(error) < 300 and error.count(": ") <= 2
    for leak in (KEY, "sk-", "127.0.0.1", "http", str(tmp_path), "job-", SCRIPT, "command"):
        assert leak not in error, leak
    whole_api = json.dumps(board.client.get("/api/jobs").json())
    assert KEY not in whole_api and server.base_url not in whole_api
    log = logged.stdout + logged.stderr + capsys.readouterr().err
    assert KEY not in log and expected in log  # the worker's log: the sentence, key redacted
    assert KEY not in files_text(work_dir)  # nor in the stored run folder


def test_an_unreachable_endpoint_is_said_without_its_address(
    board: BoardClient, tmp_path: Path
) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    job = register(board, api_base=dead)
    [outcome] = run_worker(board, tmp_path / "jobs")
    error = public_job(board, job["id"])["error"]
    assert outcome.status == "failed" and error.startswith("the endpoint did not answer")
    assert "127.0.0.1" not in error and "http" not in error and "run the same" not in error


def test_every_failure_maps_to_a_sentence_without_addresses_paths_or_keys() -> None:
    """The one mapping (job_failure), for failures too slow to provoke end to end."""
    from coordqa.errors import RunFailed, StoreError
    from coordqa.leaderboard.job_errors import BudgetExceeded, GridIncomplete, job_failure

    echo = f"InternalServerError: {SCRIPT} at https://10.0.0.1/v1 Bearer {KEY} " + "z" * 5000
    cases = {
        "too many of the endpoint's calls failed": RunFailed(
            "2 of 2 samples are errors ... run the same command again",
            first_errors=(f"gave up after 6 attempts; last error: {echo}",),
        ),
        "the endpoint answered with a redirect (307)": RunFailed(
            "stopped",
            stop_kind="fatal",
            stop_error="RedirectRefused: the endpoint answered 307 (a redirect to "
            "http://127.0.0.1:8/x); coordqa follows no redirect: give the endpoint's own "
            "address as --api-base; not retried (the endpoint redirects its requests)",
        ),
        "the endpoint's address resolved to a loopback or private address": RunFailed(
            "stopped",
            stop_kind="unreachable",
            stop_error="rebind.example resolves to 127.0.0.1, a loopback or private address; "
            "this board calls only public addresses",
        ),
        "the endpoint reported more tokens than": BudgetExceeded("tokens", 5e6, 1e15),
        "the endpoint's replies filled the job's disk budget of 200 MB": BudgetExceeded(
            "disk", 200, 201
        ),
        "2 episodes of the grid failed": GridIncomplete(2, 0, echo),
        "the board could not run the job": StoreError("/srv/board-jobs/job-3/public is corrupt"),
    }
    for start, exc in cases.items():
        failure = job_failure(exc, (KEY,))
        assert failure.public.startswith(start), failure.public
        for leak in (KEY, "http", "10.0.0.1", "127.0.0.1", "/srv/", "command", "--", "z" * 100):
            assert leak not in failure.public, (leak, failure.public)
        assert KEY not in failure.detail and len(failure.detail) <= 2_100
    # an error of the private split's generation may name its secret seed: never shown
    from coordqa.errors import GameError

    seeded = job_failure(GameError("no state from seed 1234567 after 500 tries"), (KEY, "1234567"))
    assert "1234567" not in seeded.public + seeded.detail


def test_a_calls_budget_says_that_no_call_past_it_was_sent() -> None:
    """Walkthrough 12 #153-#154: a budget of 100 calls ended as "used 103 calls" with no word
    why; walkthrough 15: a call is now sent only while the budget has room, which the failure
    says."""
    from coordqa.leaderboard.job_errors import BudgetExceeded, job_failure

    public = job_failure(BudgetExceeded("calls", 100, 100)).public
    assert public.startswith("the job used its budget of 100 model calls before it finished")
    assert "no call past it was sent" in public, public


@pytest.mark.parametrize(
    ("said", "address"),
    [
        ("[Errno 111] Connect call failed ('127.0.0.1', 18122)", ("127.0.0.1", "18122")),
        ("[Errno 111] Connect call failed ('::1', 18122, 0, 0)", ("::1", "18122")),
        ("Cannot connect to host 10.1.2.3:8443 ssl:default", ("10.1.2.3", "8443")),
        ("Cannot connect to host internal.example:8443", ("internal.example", "8443")),
        ("Cannot connect to host [fe80::1%eth0]:8000", ("fe80::1", "8000")),
        ("connection to 2001:db8::7 refused", ("2001:db8::7",)),
        ("no route to 192.168.4.20", ("192.168.4.20",)),
        ("connect to ::ffff:10.0.0.9 failed", ("10.0.0.9", "ffff")),
    ],
)
def test_an_address_in_the_operating_systems_words_stays_out_of_the_public_error(
    said: str, address: tuple[str, ...]
) -> None:
    """Probe N6: an endpoint killed mid-job left ``it said "[Errno 111] Connect call failed
    ('127.0.0.1', 18122)"`` in ``/api/jobs/22``: the OS names the address it could not reach."""
    from coordqa.errors import RunFailed
    from coordqa.leaderboard.job_errors import job_failure

    for failed in (
        RunFailed("stopped", stop_kind="unreachable", stop_error=f"ConnectionError: {said}"),
        RunFailed("2 of 2 failed", first_errors=(f"gave up; last error: OSError: {said}",)),
    ):
        failure = job_failure(failed)
        assert "(an address)" in failure.public, failure.public
        for part in address:
            assert part not in failure.public, (part, failure.public)


CLI_WORDS = re.compile(r"(?<![\w-])--[a-z]|\bcoordqa \w|\bcommand\b")
"""What advice for someone at a terminal looks like: an option, a coordqa command, "the same
command"."""


def failure_kinds() -> dict[str, BaseException]:
    """One failure of each kind a job can end on, each worded as coordqa words it today."""
    from types import SimpleNamespace

    from coordqa.errors import RunFailed, StoreError
    from coordqa.leaderboard.db import QuotaError
    from coordqa.leaderboard.intake import SchemaError
    from coordqa.leaderboard.job_errors import BudgetExceeded, GridIncomplete
    from coordqa.leaderboard.names import imitation_refusal
    from coordqa.leaderboard.verify import VerificationError, _check_count, _check_reading
    from coordqa.llm.retry import ConnectionBreaker, describe_error

    timed_out = describe_error(TimeoutError(), timeout_s=120)
    gave_up = f"gave up after 6 attempts (--max-attempts); last error: {timed_out}"
    breaker = ConnectionBreaker(10)
    for _ in range(10):
        breaker.observe(False, timed_out)
    kinds: dict[str, BaseException] = {
        "calls timed out": RunFailed("failed", first_errors=(gave_up,)),
        "unreachable, timed out": RunFailed(
            "stopped", stop_kind="unreachable", stop_error=breaker.describe()
        ),
        "grid episodes timed out": GridIncomplete(2, 1, gave_up),
        "key refused": RunFailed(
            "stopped",
            stop_kind="fatal",
            stop_error="AuthenticationError: bad key; not retried (HTTP 401: no call can succeed)",
        ),
        "request refused": RunFailed(
            "stopped",
            stop_kind="fatal",
            stop_error="BadRequestError: no top_p; not retried (HTTP 400)",
        ),
        "quota": QuotaError(2, 1, 2),
        "schema": SchemaError([{"loc": "replies.3.text", "msg": "too long"}]),
        "look-alike name": VerificationError(imitation_refusal("GPT-4o", "GPT-4o")),
        "generic": StoreError("corrupt"),
    }
    for budget in ("calls", "tokens", "seconds", "disk"):
        kinds[f"budget {budget}"] = BudgetExceeded(budget, 10, 11)
    replies = [SimpleNamespace(text="x" * 3_000)] * 2_000
    board_run = SimpleNamespace(trials=5, replies=replies)
    for name, check in (
        ("too many trials", lambda: _check_count(board_run, SimpleNamespace(rows=[1] * 198,
                                                                           name="d"), 3)),
        ("too much to read", lambda: _check_reading(board_run)),
    ):  # fmt: skip
        with pytest.raises(VerificationError) as refused:
            check()
        kinds[name] = refused.value
    return kinds


@pytest.mark.parametrize("kind", list(failure_kinds()))
def test_no_job_failure_gives_advice_for_a_terminal(kind: str) -> None:
    """Walkthrough rough 8, every kind: a submitter cannot type "--timeout" or "coordqa eval
    --trials 3" at the board; coordqa's own words for a timeout are not the endpoint's."""
    from coordqa.leaderboard.job_errors import job_failure

    public = job_failure(failure_kinds()[kind]).public
    assert not CLI_WORDS.search(public), public
    if "timed out" in kind:
        assert "a call timed out after 120 s" in public and "it said" not in public, public


# -- N5: a job's folder is bounded ---------------------------------------------------------------


def test_a_job_whose_replies_fill_its_disk_budget_fails_saying_so(
    board: BoardClient, tmp_path: Path
) -> None:
    """N5: 10 MB replies were stored whole: 14 calls left 155 MB in the job's folder."""
    reply = "Answer: A " + "x" * 300_000
    budget_mb = 3  # the public run's questions.jsonl alone takes 1.3 MB

    with LocalOpenAIServer(lambda body, index: reply, api_key=KEY) as server:
        job = register(board, api_base=server.base_url)
        raise_budget(board.db, job["id"], max_disk_mb=budget_mb)
        [outcome] = run_worker(board, tmp_path / "jobs")
        asked = server.count
    error = public_job(board, job["id"])["error"]
    assert outcome.status == "failed" and f"disk budget of {budget_mb} MB" in error, error
    folder = tmp_path / "jobs" / f"job-{job['id']}"
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    # stored replies are cut to 32,768 characters (the direct transport): the budget, plus at
    # most the calls in flight when it was crossed
    assert budget_mb * 1e6 < size <= budget_mb * 1e6 + 8 * 70_000
    assert 1 <= asked < PUBLIC  # stopped long before the public run's 198 calls


def test_a_run_that_breaks_the_bundle_schema_fails_the_job_not_the_worker() -> None:
    """Found re-running N5 on the code before: a reply over the bundle's 100,000 characters
    raised pydantic's ValidationError out of the worker (it died, the job stayed running). The
    direct transport now cuts stored replies to 32,768 characters, so the schema's refusal is
    provoked here directly: it becomes the job's public sentence, not an exception."""
    from coordqa.leaderboard.bundle import QABundle
    from coordqa.leaderboard.intake import SchemaError
    from coordqa.leaderboard.job_errors import job_failure
    from coordqa.leaderboard.worker import _bundle_schema

    with pytest.raises(SchemaError) as refused, _bundle_schema():
        QABundle.model_validate({"track": "qa", "replies": [{"text": "x" * 100_001}]})
    public = job_failure(refused.value).public
    assert public.startswith("the board refused the job's results"), public
    assert "xxxxxxxxxx" not in public


# -- N10, rough 12: each job is its own entry ----------------------------------------------------


@pytest.mark.slow  # two full jobs: about 6 s of CPU per database
def test_two_jobs_that_answer_the_public_questions_alike_are_two_entries(
    board: BoardClient, tmp_path: Path
) -> None:
    """Walkthrough 12: two models at one stand-in server (``Answer: A`` to everything) made one
    entry; the second job, refused as equal results, lost its private split's accuracy (4/24
    and 8/24 on the two jobs' splits). Each job draws its own secret split, which is part of
    its results: the same public replies do not make two jobs one run."""
    with LocalOpenAIServer(api_key=KEY) as server:  # deterministic: the same replies twice
        jobs = [
            register(board, model=model, api_base=server.base_url, display_name=name)
            for model, name in (("openai/model-one", "One"), ("openai/model-two", "Two"))
        ]
        outcomes = run_worker(board, tmp_path / "jobs")
    assert [(o.status, o.note) for o in outcomes] == [("done", None), ("done", None)], outcomes
    entries = board.client.get("/api/entries", params={"dataset": DEFAULT_DATASET}).json()
    made = {e["job_id"]: e for e in entries["entries"]}
    assert sorted(made) == [job["id"] for job in jobs]
    with board.db.session() as session:
        splits = {
            row.metrics["private"]["fingerprint"] for row in session.scalars(select(Submission))
        }
        publics = {row.metrics["overall"]["correct"] for row in session.scalars(select(Submission))}
    assert len(splits) == 2 and len(publics) == 1  # one public accuracy, two secret splits


@pytest.mark.slow  # two full jobs: about 6 s of CPU per database
def test_a_job_with_another_entrys_results_is_told_so_and_credits_nothing(
    board: BoardClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """N10: jobs of tokens b and d ended "done, entry 1", entry 1 being token a's job. Equal
    results need equal private splits too: the seeds are pinned here to provoke it."""
    monkeypatch.setattr("coordqa.leaderboard.jobs._draw_seed", lambda: 1_234_567)
    other = create_token(board.db, "another submitter")
    with LocalOpenAIServer(api_key=KEY) as server:  # deterministic: the same replies twice
        first = register(board, api_base=server.base_url, display_name="First")
        second = register(board, token=other, api_base=server.base_url, display_name="Second")
        outcomes = run_worker(board, tmp_path / "jobs")
    assert [o.status for o in outcomes] == ["done", "done"], outcomes
    mine, theirs = public_job(board, first["id"]), public_job(board, second["id"])
    assert mine["entry"] is not None and mine["note"] is None
    assert theirs["entry"] is None
    assert f"equal those of entry {mine['entry']}" in theirs["note"]
    entries = board.client.get("/api/entries", params={"dataset": DEFAULT_DATASET}).json()
    assert [(e["job_id"], e["display_name"]) for e in entries["entries"]] == [
        (first["id"], "First")
    ]
    # one trial: no trial SE, and the page shows the entry's private split all the same
    assert board.client.get("/", params={"dataset": DEFAULT_DATASET}).status_code == 200


# -- N12: round-robin over tokens ----------------------------------------------------------------


def test_jobs_are_claimed_round_robin_over_tokens(board: BoardClient) -> None:
    """N12: jobs ran strictly by id, so one token's queue held back everyone else's."""
    other = create_token(board.db, "late submitter")
    flood = [register(board, model="random", api_key=None)["id"] for _ in range(3)]
    late = register(board, token=other, model="random", api_key=None, display_name="late")["id"]
    claimed = [claim_job(board.db, "w") for _ in range(5)]
    assert claimed == [flood[0], late, flood[1], flood[2], None]


def test_a_job_claimed_between_a_workers_two_looks_is_not_taken_from_its_claimer(
    board: BoardClient,
) -> None:
    """CI (stop 49): two Ray workers ran one job. A claim read the claimable jobs, then their
    state; a job claimed by another worker in between read as running with a fresh heartbeat,
    which the conditional update took as the state to replace: the job was taken from its
    claimer, which found it withdrawn."""
    from sqlalchemy import event

    job = register(board, model="random", api_key=None)["id"]
    taken_by_first: list[int | None] = []

    def first_claims_between(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "GROUP BY" in statement and not taken_by_first:
            taken_by_first.append(None)  # the other worker claims once, in between
            taken_by_first[0] = claim_job(board.db, "first")

    event.listen(board.db.engine, "after_cursor_execute", first_claims_between)
    try:
        second = claim_job(board.db, "second")
    finally:
        event.remove(board.db.engine, "after_cursor_execute", first_claims_between)
    assert taken_by_first == [job]
    assert second is None
    with board.db.session() as session:
        assert session.get(Job, job).worker == "first"


def test_an_admins_cancel_and_a_workers_ending_land_one_after_the_other(
    board: BoardClient,
) -> None:
    """The admin's cancel read the job, then wrote it: a worker that ended the job as done in
    between had its ending overwritten (a done job, final, turned cancelled while its worker
    took it as done). The job is locked before it is read, so whichever comes second sees the
    first: either the worker ends it (and the cancel is refused as for any done job) or the
    cancel lands (and the worker finds the job no longer its own)."""
    import threading

    from sqlalchemy import event

    from coordqa.leaderboard.db import LeaderboardError
    from coordqa.leaderboard.jobs import end_job

    job = register(board, model="random", api_key=None)["id"]
    assert claim_job(board.db, "w") == job
    ended: list[bool] = []
    endings: list[threading.Thread] = []

    def worker_ends_between(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "jobs" in statement and not endings:
            endings.append(threading.Thread(target=lambda: ended.append(end_job(*ending))))
            endings[0].start()
            endings[0].join(timeout=2)  # it waits for the admin's change, or lands in between

    ending = (board.db, job, "w", "done")

    event.listen(board.db.engine, "after_cursor_execute", worker_ends_between)
    try:
        try:
            change = set_job_status(board.db, job, "cancelled", error="cancelled by the admin")
        except LeaderboardError:
            change = None  # the worker's ending came first: the job is done, and final
    finally:
        event.remove(board.db.engine, "after_cursor_execute", worker_ends_between)
    endings[0].join(timeout=60)
    with board.db.session() as session:
        status = session.get(Job, job).status
    assert (ended, status, change is None) in (
        ([True], "done", True),
        ([False], "cancelled", False),
    )


# -- N13: lists come in pages --------------------------------------------------------------------


def test_lists_come_in_bounded_pages(board: BoardClient) -> None:
    """N13: ?limit=100000000&offset=-1 was ignored and every row returned."""
    for name in ("a", "b", "c"):
        bundle = synthetic_bundle(board.rows, display_name=f"entry {name}", run=name)
        assert board.submit(bundle).status_code == 201
        register(board, model="random", api_key=None, display_name=f"job {name}")
    whole = board.client.get("/api/entries").json()
    assert whole["total"] == 3 and whole["limit"] == 100 and whole["offset"] == 0
    page = board.client.get("/api/entries", params={"limit": 1, "offset": 1}).json()
    assert [e["id"] for e in page["entries"]] == [whole["entries"][1]["id"]]
    assert page["entries"][0]["rank"] == whole["entries"][1]["rank"]  # ranks of the whole board
    jobs = board.client.get("/api/jobs", params={"limit": 2}).json()
    assert jobs["total"] == 3 and [j["id"] for j in jobs["jobs"]] == [3, 2]
    for path in ("/api/entries", "/api/jobs", "/api/agentic/entries"):
        for params, named in (
            ({"limit": 100000000}, "limit must be from 1 to 500"),
            ({"limit": 0}, "limit must be from 1 to 500"),
            ({"offset": -1}, "offset must be from 0 to"),
        ):
            answer = board.client.get(path, params=params)
            assert answer.status_code == 400 and named in answer.json()["detail"], (path, params)
        assert board.client.get(path, params={"limit": "many"}).status_code == 422


def test_errors_stored_before_move_to_the_admins_detail(board: BoardClient, db_url: str) -> None:
    """A board upgraded from schema 5 stops serving the errors it stored (URLs, paths, keys)."""
    from sqlalchemy import text

    from coordqa.leaderboard.db import LEGACY_JOB_ERROR, open_database

    job = register(board, model="random", api_key=None)
    leaked = f"stopped: http://127.0.0.1:1/v1 refused: Bearer {KEY}; stored in /srv/board-jobs"
    with board.db.engine.begin() as connection:
        connection.execute(
            text("UPDATE jobs SET status = 'failed', error = :e WHERE id = :i"),
            {"e": leaked, "i": job["id"]},
        )
        for column in ("detail", "note"):
            connection.execute(text(f"ALTER TABLE jobs DROP COLUMN {column}"))
        connection.execute(text("UPDATE meta SET value = '5' WHERE key = 'schema_version'"))
    board.db.dispose()
    upgraded = open_database(db_url)
    try:
        with upgraded.session() as session:
            stored = session.get(Job, job["id"])
            assert stored is not None
            assert stored.error == LEGACY_JOB_ERROR and stored.detail == leaked
    finally:
        upgraded.dispose()


def test_a_worker_stopped_by_ctrl_c_puts_its_job_back_in_the_queue(
    board: BoardClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough rough R5: Ctrl-C on `worker --once` exited 130 with no word and left the job
    'running' for the 5-minute lease, so every rerun said the queue was empty. Expected: the
    job is queued again at once (its secret seeds not shown), the interruption says so, and the
    next worker takes it."""
    from coordqa.errors import RunInterrupted
    from coordqa.leaderboard import worker

    with LocalOpenAIServer(api_key=KEY) as server:
        job_id = register(board, api_base=server.base_url)["id"]

        def interrupted(run: Any) -> Any:
            raise KeyboardInterrupt

        with monkeypatch.context() as patch:
            patch.setattr(worker, "_run_qa_job", interrupted)
            with pytest.raises(RunInterrupted, match=rf"job {job_id} is back in the queue"):
                run_worker(board, tmp_path / "jobs")
        shown = public_job(board, job_id)
        assert shown["status"] == "queued" and shown["private_seed"] is None
        [outcome] = run_worker(board, tmp_path / "jobs")
    assert outcome.status == "done"


def test_a_model_not_served_names_the_closest_listed_names_bounded_and_escaped() -> None:
    """Walkthrough 13 #315-#316: a mistyped model failed its job with "the endpoint does not
    serve the model (it lists others)" and no name, where ``coordqa eval`` says which to use.
    The names are the endpoint's (untrusted): at most three, each cut, escaped, without an
    address or the key."""
    from coordqa.errors import ModelNotServed
    from coordqa.leaderboard.job_errors import job_failure

    listed = ("my-model", SCRIPT, f"https://10.0.0.1/v1?k={KEY}" + "z" * 500, "fourth")
    public = job_failure(ModelNotServed("not served", closest=listed), (KEY,)).public
    assert public.startswith("the endpoint does not serve the model; the closest names it lists")
    assert '"my-model"' in public and "fourth" not in public, public
    for leak in (KEY, SCRIPT, "10.0.0.1", "z" * 100):
        assert leak not in public, (leak, public)
    assert len(public) < 400, public


@pytest.mark.slow  # a worker process: about 8 s
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_a_worker_stopped_by_a_signal_requeues_its_job_without_waiting_for_its_calls(
    board: BoardClient, tmp_path: Path, stop: str
) -> None:
    """Walkthrough 15 (leaderboard 1): the guide says a worker stopped with Ctrl-C or SIGTERM
    puts its job back in the queue at once. SIGTERM killed it on the spot instead (status 143)
    and left the job 'running' until its 5-minute lease ran out. Expected, for both signals:
    status 130 well before the calls in flight (30 s each) could have come back, the job
    queued again, and no call in flight counted."""
    import os
    import signal
    import subprocess
    import sys
    import time

    if board.db.engine.url.get_backend_name() != "sqlite":
        pytest.skip("one database is enough to see the process stop")
    latency = 30.0
    with LocalOpenAIServer(api_key=KEY, latency_s=latency) as server:
        job_id = register(board, api_base=server.base_url)["id"]
        url = board.db.engine.url.render_as_string(hide_password=False)
        command = [
            str(Path(sys.executable).with_name("coordqa")),
            "leaderboard",
            "worker",
            "--db",
            url,
        ]
        worker = subprocess.Popen(
            [*command, "--work-dir", str(tmp_path / "jobs"), "--once"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while server.count == 0 and time.monotonic() < deadline and worker.poll() is None:
                time.sleep(0.1)
            assert server.count > 0, "the worker never called the endpoint"
            sent = time.monotonic()
            os.kill(worker.pid, getattr(signal, stop))
            output, _ = worker.communicate(timeout=latency / 2)
            took = time.monotonic() - sent
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    assert worker.returncode == 130, output
    assert took < 5, f"{took:.1f} s to stop"
    assert f"job {job_id} is back in the queue" in output, output
    shown = public_job(board, job_id)
    assert shown["status"] == "queued", shown
    assert shown["usage"]["calls"] == 0, shown


def test_ctrl_c_while_the_private_split_is_made_stops_the_worker_at_once(
    board: BoardClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 15 (leaderboard 1): Ctrl-C took 11 s (24 s measured) to stop a worker that was
    generating a job's private split (a minute of solver work inside the event loop, which saw
    the signal only when it ended). Expected: the worker stops within seconds, the job queued
    again; the split here is a stand-in that would take 20 s, and Ctrl-C comes 0.5 s into it."""
    import os
    import signal
    import threading
    import time

    from coordqa.errors import RunInterrupted
    from coordqa.leaderboard import worker

    sent: list[float] = []

    def send_ctrl_c() -> None:
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    def slow_split(*args: Any) -> Path:
        threading.Timer(0.5, send_ctrl_c).start()
        for _ in range(400):  # 20 s, bounded
            time.sleep(0.05)
        raise AssertionError("the private split ran to its end after Ctrl-C")

    monkeypatch.setattr(worker, "private_split", slow_split)
    with LocalOpenAIServer(api_key=KEY) as server:
        job_id = register(board, api_base=server.base_url)["id"]
        with pytest.raises(RunInterrupted, match=rf"job {job_id} is back in the queue"):
            run_worker(board, tmp_path / "jobs")
    took = time.monotonic() - sent[0]
    assert public_job(board, job_id)["status"] == "queued"
    assert took < 5, f"{took:.1f} s to stop"


def test_an_unfinished_grid_counts_its_episodes_in_agreeing_words() -> None:
    """Walkthrough 15 R2's sweep: "1 episodes failed and 1 were skipped"."""
    from coordqa.leaderboard.job_errors import GridIncomplete

    assert str(GridIncomplete(1, 1, None)) == (
        "the grid did not finish: 1 episode failed and 1 was skipped"
    )
    assert str(GridIncomplete(2, 0, None)).endswith("2 episodes failed and 0 were skipped")


@pytest.mark.slow  # a worker process: about 5 s
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_an_idle_worker_says_it_waits_once_and_that_it_stopped(tmp_path: Path, stop: str) -> None:
    """Walkthrough 17 R7: ``leaderboard worker`` on an empty queue printed nothing (8 s), and
    Ctrl-C ended it with status 130 and no line. Expected: one line when it starts waiting
    (not one per look at the queue), and one saying no job was running when stopped."""
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    from coordqa.leaderboard.db import open_database

    url = f"sqlite:///{tmp_path / 'board.db'}"
    open_database(url, create=True).dispose()
    command = [str(Path(sys.executable).with_name("coordqa")), "leaderboard", "worker"]
    worker = subprocess.Popen(
        [*command, "--db", url, "--work-dir", str(tmp_path / "jobs"), "--poll-s", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(worker.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while not lines and worker.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # about ten more looks at the empty queue
        os.kill(worker.pid, getattr(signal, stop))
        worker.wait(timeout=30)
        reader.join(timeout=10)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    first, rest = (lines[0] if lines else ""), "".join(lines[1:])
    assert first.startswith("worker ") and first.rstrip().endswith(
        f"waiting for jobs on {url} (Ctrl-C to stop)"
    ), first + rest
    assert "waiting" not in rest, rest  # once, not per poll
    assert worker.returncode == 130, first + rest
    assert rest.strip().splitlines()[-1] == "stopped: no job was running", rest


@pytest.mark.parametrize("ending", ["ctrl-c in the private split", "failed", "done"])
def test_every_session_counts_all_the_time_it_held_its_job(
    board: BoardClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    """Walkthrough 19 B3 (#315-#318): a worker stopped by Ctrl-C while it built the private split
    (about 10 s held) left "1 of 21,600 s of worker time": the seconds were written only at the
    evaluations' heartbeats, so whatever a session did after its last one (the split, scoring,
    storing) never counted, and repeated interruptions escaped ``--job-max-seconds``. Expected:
    however the session ends, the job's seconds grow by at least the time it was held after the
    last write (here a 1.5 s stand-in step, timed from the usage stored when it began)."""
    import time

    from coordqa.errors import RunInterrupted
    from coordqa.leaderboard import worker

    held_s = 1.5
    stored_at_step: list[float] = []

    def usage_now() -> float:
        with board.db.session() as session:
            [usage] = session.scalars(select(Job.usage))
        return float(usage["seconds"])

    def slow_step(real: Any, interrupt: bool) -> Any:
        def step(*args: Any, **kwargs: Any) -> Any:
            stored_at_step.append(usage_now())
            time.sleep(held_s)
            if interrupt:
                raise KeyboardInterrupt
            if ending == "failed":
                raise ValueError("a step that broke")
            return real(*args, **kwargs)

        return step

    if ending == "ctrl-c in the private split":
        monkeypatch.setattr(worker, "private_split", slow_step(worker.private_split, True))
    else:
        monkeypatch.setattr(worker, "_private_numbers", slow_step(worker._private_numbers, False))
    with LocalOpenAIServer(api_key=KEY) as server:
        job_id = register(board, api_base=server.base_url)["id"]
        if ending == "ctrl-c in the private split":
            with pytest.raises(RunInterrupted, match=rf"job {job_id} is back in the queue"):
                run_worker(board, tmp_path / "jobs")
        else:
            [outcome] = run_worker(board, tmp_path / "jobs")
            assert outcome.status == ending, outcome
    [before_step] = stored_at_step
    assert usage_now() >= before_step + held_s, (usage_now(), before_step)


def test_a_stop_while_an_idle_worker_looks_at_the_queue_says_no_job_was_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A CI run (SIGTERM to an idle worker) ended it with status 130 and no line: the stop
    landed while the worker looked at the queue (claim_job, a database query), outside the
    sleep that said ``stopped: no job was running``. Any stop while idle says it."""
    from coordqa.errors import RunInterrupted
    from coordqa.leaderboard import worker
    from coordqa.leaderboard.settings import STOPPED_IDLE

    def stopped_while_looking(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(worker, "claim_job", stopped_while_looking)
    with pytest.raises(RunInterrupted) as stopped:
        work(None, None, WorkerConfig(work_dir=tmp_path, poll_s=0.1))  # type: ignore[arg-type]
    assert str(stopped.value) == STOPPED_IDLE
