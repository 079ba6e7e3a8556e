"""A board-run job talks only to the endpoint it was given, and within bounds (issue 35).

The probes of ``shared/reports/board-and-viewer-attacks.md`` kept as tests, on 127.0.0.1:
N1 a host name that resolves to a public address when registered and to loopback when the
worker calls it (the resolver is replaced: no lookup leaves the machine), N2 a redirect to
another server, N8 absurd token counts; N4 and N5 (endless bodies, huge replies) at the
transport (test_llm_transports.py) and in a QA run here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import coordqa
from leaderboard_support import BoardClient

from coordqa.eval_config import EvalConfig
from coordqa.evaluation import evaluate
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.settings import BoardRunSettings, WorkerConfig
from coordqa.leaderboard.worker import work
from coordqa.llm import CallPolicy, addresses
from coordqa.llm.bounds import MAX_REPLY_CHARS
from coordqa.llm.testing import Fault, LocalOpenAIServer

PUBLIC_ADDRESS = "93.184.216.34"
"""A global address the replaced resolver gives at registration; nothing connects to it."""


def _board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, allow_private: bool) -> BoardClient:
    from cryptography.fernet import Fernet

    monkeypatch.setenv("COORDQA_BOARD_SECRET", Fernet.generate_key().decode())
    settings = BoardRunSettings(
        trials=1, private_per_game=1, max_calls=40, allow_private_endpoints=allow_private
    )
    return BoardClient(f"sqlite:///{tmp_path / 'lb.sqlite3'}", tmp_path, board_run=settings)


@pytest.fixture
def private_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BoardClient]:
    """A board started with --allow-private-endpoints: loopback endpoints may register."""
    board = _board(tmp_path, monkeypatch, allow_private=True)
    yield board
    board.close()


def register(board: BoardClient, **fields: Any) -> Any:
    return board.client.post(
        "/api/endpoints", json=fields, headers={"Authorization": f"Bearer {board.token}"}
    )


def run_jobs(board: BoardClient, tmp_path: Path) -> list[Any]:
    return work(
        board.db, BoardCatalog(board.db), WorkerConfig(work_dir=tmp_path / "jobs"), once=True
    )


def test_a_redirecting_endpoint_fails_its_job_and_the_target_gets_nothing(
    private_board: BoardClient, tmp_path: Path
) -> None:
    """N2: 307 to another port was followed for all 210 calls of a job, which ended done."""
    with LocalOpenAIServer() as target:
        location = f"{target.base_url}/chat/completions"
        with LocalOpenAIServer(always=Fault.redirect(location)) as endpoint:
            answer = register(private_board, model="openai/m", api_base=endpoint.base_url)
            assert answer.status_code == 201, answer.text
            [outcome] = run_jobs(private_board, tmp_path)
            asked = endpoint.count
        assert target.hits == 0, "the redirect's target was called"
    assert outcome.status == "failed"
    assert asked <= CallPolicy().concurrency, "the first refusal stopped the job (8 in flight)"
    assert "answered 307 (a redirect)" in str(outcome.detail)  # the admin's words
    # the submitter's (public) sentence: what failed and what to do, no address
    assert str(outcome.error).startswith("the endpoint answered with a redirect (307)")
    for said in (str(outcome.error), str(outcome.detail)):
        assert str(target.base_url.split(":")[-1]) not in said, "the Location is not shown"
    assert "http" not in str(outcome.error) and "--api-base" not in str(outcome.error)


def test_a_name_that_rebinds_to_loopback_is_refused_when_the_worker_connects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """N1: a name public at registration and 127.0.0.1 at call time was called within 3.5 s."""
    lookups: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        lookups.append(host)
        return [PUBLIC_ADDRESS] if len(lookups) == 1 else ["127.0.0.1"]

    monkeypatch.setattr(addresses, "resolve", rebinding)
    board = _board(tmp_path, monkeypatch, allow_private=False)
    try:
        with LocalOpenAIServer() as endpoint:
            api_base = endpoint.base_url.replace("127.0.0.1", "rebind-probe.invalid")
            answer = register(board, model="openai/m", api_base=api_base)
            assert answer.status_code == 201, answer.text  # public when registered
            [outcome] = run_jobs(board, tmp_path)
            assert endpoint.hits == 0, "the worker connected to loopback"
    finally:
        board.close()
    assert outcome.status == "failed"
    assert "rebind-probe.invalid resolves to 127.0.0.1, a loopback or private" in str(
        outcome.detail
    )
    public = str(outcome.error)  # the submitter's sentence: the cause, not the addresses
    assert public.startswith("the endpoint's address resolved to a loopback or private address")
    assert "127.0.0.1" not in public and "rebind-probe" not in public
    assert len(lookups) >= 2 and set(lookups) == {"rebind-probe.invalid"}


def test_the_guard_connects_to_the_address_it_checked(
    private_board: BoardClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With private endpoints allowed, a name the system cannot resolve is still reached: the
    connection goes to the address the guard's one lookup gave, never through a second one."""
    monkeypatch.setattr(addresses, "resolve", lambda host, port: ["127.0.0.1"])
    with LocalOpenAIServer(latency_s=0.0) as endpoint:
        api_base = endpoint.base_url.replace("127.0.0.1", "only-the-guard-knows.invalid")
        answer = register(private_board, model="openai/m", api_base=api_base)
        assert answer.status_code == 201, answer.text
        [outcome] = run_jobs(private_board, tmp_path)
        asked, hosts = endpoint.count, set(endpoint.hosts)
    # the job's budget of 40 calls stops it; every request named the host, not the address
    assert 40 - 8 <= asked <= 40 and "budget of 40 calls is spent" in str(outcome.detail)
    assert hosts == {api_base.split("/")[2]}


@pytest.mark.parametrize("counts", [(10**15, 5), (-(10**9), 5)], ids=["huge", "negative"])
def test_absurd_token_counts_spend_no_budget(
    private_board: BoardClient, tmp_path: Path, counts: tuple[int, int]
) -> None:
    """N8: 10**15 prompt tokens a call failed the job 'budget spent' (the trigger of N3), and
    -10**9 left a done job with -2.1e11 tokens. Only the calls budget (40) stops it here."""
    with LocalOpenAIServer(always=Fault.tokens(*counts)) as endpoint:
        answer = register(private_board, model="openai/m", api_base=endpoint.base_url)
        assert answer.status_code == 201, answer.text
        [outcome] = run_jobs(private_board, tmp_path)
    job = private_board.client.get(f"/api/jobs/{outcome.job_id}").json()
    assert "budget of 40 calls is spent" in str(outcome.detail)
    assert job["usage"]["tokens"] == 0 and 40 - 8 <= job["usage"]["calls"] <= 40


def test_huge_replies_are_stored_cut_and_marked(tmp_path: Path) -> None:
    """N5: 10 MB replies were stored whole (155 MB for 14 calls); a reply within the body
    limit is stored cut to its bounds, and one beyond it is never read."""
    with LocalOpenAIServer(always=Fault.huge(500_000)) as endpoint:
        config = EvalConfig(
            model="openai/m",
            api_base=endpoint.base_url,
            limit=3,
            trials=1,
            cache=False,
            out=tmp_path / "run",
            policy=CallPolicy(concurrency=3),
        )
        result = evaluate(config)
    calls = [json.loads(line) for line in (tmp_path / "run" / "calls.jsonl").open()]
    assert len(calls) == 3 and all(call["truncated"] for call in calls)
    assert all(len(call["text"]) < MAX_REPLY_CHARS + 200 for call in calls)
    assert (tmp_path / "run" / "calls.jsonl").stat().st_size < 3 * (MAX_REPLY_CHARS + 1000)
    assert result.analysis.errors == 0


def test_a_loopback_registration_says_how_a_board_on_one_machine_allows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough rough R4: a board and a server on one laptop, and the 422 named neither
    the serve switch nor what to do. Expected: the refusal names --allow-private-endpoints."""
    board = _board(tmp_path, monkeypatch, allow_private=False)
    try:
        answer = register(board, model="openai/m", api_base="http://127.0.0.1:9/v1")
    finally:
        board.close()
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert "loopback or private address" in detail
    assert "coordqa leaderboard serve --allow-private-endpoints" in detail


@pytest.mark.parametrize(
    "api_base",
    ["http://me:hunter2@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?key=hunter2"],
    ids=["password", "query-key"],
)
def test_an_address_holding_a_secret_is_refused_and_nothing_of_it_is_stored(
    private_board: BoardClient, api_base: str
) -> None:
    """Trust at the edges: the board seals an endpoint's api_key, but it stored an api_base as
    given, so a password or key typed into the address sat in the database in clear, for
    every admin and backup to read. Expected: a 422 that says where the key goes instead
    (--api-key-env, stored encrypted), that does not echo the secret, and no endpoint row."""
    from sqlalchemy import func, select

    from coordqa.leaderboard.db import Endpoint

    answer = register(private_board, model="openai/m", api_base=api_base)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert "hunter2" not in answer.text
    assert "--api-key-env" in detail
    assert "http://127.0.0.1:9/v1" in detail
    with private_board.db.session() as session:
        assert session.scalar(select(func.count()).select_from(Endpoint)) == 0


def test_a_job_stopped_by_its_calls_budget_shows_one_count_of_calls(
    private_board: BoardClient, tmp_path: Path
) -> None:
    """Walkthrough 16 #178: ``job list`` of a job stopped by its budget of 100 calls said "used
    96 calls" beside "budget of 100 calls is spent (100 calls)": the budget counts the calls it
    admitted (the hard cap), the usage counted answers, and 4 were cut off in flight. The usage
    counts what the budget counts. Walkthrough 17 #135-#142: an "answered" count beside it,
    taken from the run's progress, missed the answers stored after the stop ("used 954 calls
    (951 answered)" for 954 stored replies), and the listing named no budget: the listing shows
    one count of calls, beside its budget."""
    with LocalOpenAIServer(latency_s=0.2) as endpoint:
        answer = register(private_board, model="openai/m", api_base=endpoint.base_url)
        assert answer.status_code == 201, answer.text
        [outcome] = run_jobs(private_board, tmp_path)
        asked = endpoint.count
    assert "budget of 40 calls is spent (40 calls)" in str(outcome.detail), outcome.detail
    usage = private_board.client.get(f"/api/jobs/{outcome.job_id}").json()["usage"]
    assert usage["calls"] == 40, usage  # the hard cap, as the detail says
    assert asked <= usage["calls"] and "answered" not in usage, (usage, asked)
    listed = coordqa("leaderboard", "job", "list", "--db", f"sqlite:///{tmp_path / 'lb.sqlite3'}")
    assert listed.returncode == 0, listed.stderr
    said = " ".join(listed.stdout.split())
    assert "used 40 of 40 calls, " in said and "answered" not in said, said
    assert " of 5,000,000 tokens, " in said, said
