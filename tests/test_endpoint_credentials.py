"""Credentials typed into an endpoint reach its server, and nothing else.

``--api-base http://user:secret@host/v1`` (or a key in its query) sends the password with every
call; the run folder, the reply cache, refusals, an eval set's record, the viewer's pages and a
leaderboard bundle carry the endpoint without it (:mod:`coordqa.llm.endpoints`). A run stored
before that rule, with the password in its manifest, still resumes, and shows and ships
without it.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from cli_support import coordqa
from test_evaluate_support import answers, fast_policy, write_dataset

from coordqa.agentic import GridConfig, run_grid
from coordqa.agentic.grid import stored_form
from coordqa.errors import ConfigError, ModelNotServed, RunFailed
from coordqa.evalset import evaluate_set, parse_spec
from coordqa.evaluation import EvalConfig, evaluate
from coordqa.leaderboard.bundle import build_qa_bundle
from coordqa.llm.endpoints import endpoint_route, shown_endpoint, stored_command, stored_endpoint
from coordqa.llm.testing import LocalOpenAIServer
from coordqa.store import MANIFEST, RunManifest, open_run
from coordqa.viewer.pages import Links, qa_run_page
from coordqa.viewer.runs import RunCatalog

SECRET = "s3cretPW-17"
"""The password in every endpoint here; no file or message may hold it."""

QUERY_KEY = "qk-5521"


@pytest.fixture(autouse=True)
def _key(openai_key: str) -> None:
    """Every test here talks to an openai/... model."""


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A reply cache of the test's own, to read back."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(folder))
    return folder


def _with_password(base_url: str) -> str:
    return base_url.replace("http://", f"http://user:{SECRET}@")


def _files_holding(folder: Path, secret: str = SECRET) -> list[str]:
    return [
        str(path)
        for path in folder.rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    ]


def _config(dataset: str, api_base: str, out: Path, **changes: object) -> EvalConfig:
    settings: dict[str, object] = {
        "model": "openai/test-model",
        "api_base": api_base,
        "dataset": dataset,
        "trials": 1,
        "out": out,
        "policy": fast_policy(concurrency=1, max_attempts=1, timeout_s=30.0),
        **changes,
    }
    return EvalConfig(**settings)  # type: ignore[arg-type]


def _as_before_this_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Store endpoints and command lines as typed, as coordqa did before the rule."""
    monkeypatch.setattr("coordqa.eval_config.stored_endpoint", lambda api_base: api_base)
    monkeypatch.setattr("coordqa.store.manifest.stored_command", list)
    monkeypatch.setattr("coordqa.agentic.grid.stored_endpoints", lambda settings: settings)


def test_stored_and_shown_endpoints_keep_only_scheme_host_port_and_path() -> None:
    typed = f"http://user:{SECRET}@127.0.0.1:8000/v1/?key={QUERY_KEY}#top"
    assert stored_endpoint(typed) == "http://127.0.0.1:8000/v1/"
    assert shown_endpoint(typed) == "http://127.0.0.1:8000/v1"
    assert stored_endpoint("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/v1/"  # as typed
    assert stored_endpoint(None) is None
    for not_a_url in (f"user:{SECRET}@host:8000/v1", "http://[::1/v1", f"{SECRET}"):
        assert SECRET not in str(stored_endpoint(not_a_url)), not_a_url
        assert SECRET not in shown_endpoint(not_a_url), not_a_url
    argv = ["coordqa", "eval", "--api-base", typed, f"--api-base={typed}", "--limit", "2"]
    assert stored_command(argv) == [
        "coordqa",
        "eval",
        "--api-base",
        "http://127.0.0.1:8000/v1/",
        "--api-base=http://127.0.0.1:8000/v1/",
        "--limit",
        "2",
    ]


def test_the_server_gets_the_password_and_the_run_and_cache_never_hold_it(
    tmp_path: Path, _cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions
    out = tmp_path / "run"
    with LocalOpenAIServer(answers()) as server:
        typed = _with_password(server.base_url)
        monkeypatch.setattr("sys.argv", ["coordqa", "eval", "--api-base", typed])
        result = evaluate(_config(dataset, typed, out))
        other_password = typed.replace(SECRET, "another-password")  # one endpoint: one cache
        again = evaluate(_config(dataset, other_password, tmp_path / "again"))
    assert result.new_samples == 3 and server.count == 3
    basic = "Basic " + base64.b64encode(f"user:{SECRET}".encode()).decode()
    assert server.authorizations == [basic] * 3  # the password went with every call
    manifest = open_run(out).manifest
    assert manifest.config["api_base"] == server.base_url
    assert manifest.command == ["coordqa", "eval", "--api-base", server.base_url]
    assert _files_holding(out) == []
    assert _files_holding(_cache) == []
    assert again.calls.cache_hits == 3 and again.calls.attempts == 0  # no call was sent


def test_refusals_name_the_endpoint_without_its_password(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(answers()) as server:
        base = server.base_url
    with pytest.raises(RunFailed) as unreachable:  # nothing listens there now
        evaluate(_config(dataset, _with_password(base), tmp_path / "gone"))
    assert "unreachable" in str(unreachable.value) and base in str(unreachable.value)
    with LocalOpenAIServer(answers(), models=["served"]) as server:
        with pytest.raises(ModelNotServed) as not_served:
            evaluate(_config(dataset, _with_password(server.base_url), tmp_path / "other"))
    assert "serves served" in str(not_served.value)
    with pytest.raises(ConfigError) as in_process:
        evaluate(EvalConfig(model="random", api_base=_with_password(base), dataset=dataset))
    for error in (unreachable, not_served, in_process):
        assert SECRET not in str(error.value), error.value
    stored = RunManifest(kind="agentic", config={"api_base": _with_password(base)}, fingerprint="f")
    asked = RunManifest(
        kind="agentic", config={"api_base": "http://127.0.0.1:1/v1"}, fingerprint="f"
    )
    (difference,) = stored.mismatches(asked)
    assert difference.startswith("api_base: stored") and SECRET not in difference, difference


def test_a_run_stored_with_its_password_resumes_and_shows_and_ships_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    with LocalOpenAIServer() as server:  # "Answer: A" to every question
        typed = _with_password(server.base_url)
        monkeypatch.setattr("sys.argv", ["coordqa", "eval", "--api-base", typed])
        with monkeypatch.context() as before:
            _as_before_this_rule(before)
            evaluate(_config("example", typed, out))
        assert SECRET in (out / MANIFEST).read_text()  # the run as coordqa stored it then
        catalog = RunCatalog([out])
        page = qa_run_page(catalog, catalog.entries[0].id, Links())
        bundle = str(build_qa_bundle(out, display_name="stand-in"))
        assert SECRET not in page and SECRET not in bundle
        assert server.base_url in page and server.base_url in bundle
        assert SECRET not in str(open_run(out).manifest.shareable().model_dump())
        resumed = evaluate(_config("example", typed, out, trials=2))
    assert resumed.resumed_samples == 12 and resumed.new_samples == 12
    assert _files_holding(out) == []  # the session that sent calls recorded its settings


def test_an_agentic_grid_stores_its_endpoints_without_passwords_and_old_runs_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "grid"
    with LocalOpenAIServer(answers()) as server:
        typed = _with_password(server.base_url)

        def grid(seeds: list[int]) -> GridConfig:
            return GridConfig(
                name="llm-grid",
                agents=["llm"],
                models=[{"name": "openai/test-model", "api_base": typed}],
                api_base=typed,
                games=[{"game": "hanabi", "seeds": seeds}],
            )

        identity = grid([0]).identity()
        assert identity["api_base"] == server.base_url
        assert identity["models"][0]["api_base"] == server.base_url
        assert stored_form({**identity, "api_base": typed}) == identity
        with monkeypatch.context() as before:
            _as_before_this_rule(before)
            run_grid(grid([0]), out)
        assert SECRET in (out / MANIFEST).read_text()
        calls = server.count
        resumed = run_grid(grid([0, 1]), out)  # the run before the rule, raised to 2 episodes
        assert resumed.resumed == 1 and len(resumed.played) == 1
        assert server.count > calls
        assert server.authorizations[-1].startswith("Basic ")
        fresh = tmp_path / "fresh"
        run_grid(grid([0]), fresh)
    assert _files_holding(fresh) == []


def test_an_eval_set_records_its_models_endpoints_without_passwords(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    out = tmp_path / "set"
    with LocalOpenAIServer(answers()) as server:
        typed = _with_password(server.base_url) + f"/?key={QUERY_KEY}"
        spec = {
            "models": [{"model": "openai/test-model", "api_base": _with_password(server.base_url)}],
            "datasets": [dataset],
            "trials": 1,
            "out": str(out),
        }
        evaluate_set(parse_spec(spec))
    assert server.count == 3
    assert _files_holding(out) == []
    assert stored_endpoint(typed) == server.base_url + "/"


def test_the_endpoint_rule_s_examples_hold() -> None:
    import doctest

    from coordqa.llm import endpoints

    result = doctest.testmod(endpoints)
    assert result.attempted >= 6 and result.failed == 0


def test_a_key_in_the_endpoint_s_query_reaches_the_server_and_the_run_never_holds_it(
    tmp_path: Path, _cache: Path
) -> None:
    """``--api-base http://host/v1?key=K``: the route goes on the path, the query stays a query.

    Before, ``/chat/completions`` was appended to the whole address, so it landed inside the
    query (``/v1?key=K/chat/completions``) and the server answered 404 to every call.
    """
    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions
    out = tmp_path / "run"
    with LocalOpenAIServer(answers()) as server:
        typed = f"{server.base_url}/?key={QUERY_KEY}"
        result = evaluate(_config(dataset, typed, out, transport="direct"))
    assert result.new_samples == 3 and server.count == 3
    assert _files_holding(out, QUERY_KEY) == [] and _files_holding(_cache, QUERY_KEY) == []


def test_a_route_goes_on_the_endpoint_s_path_before_its_query() -> None:
    assert endpoint_route("http://u:pw@h:8000/v1/?key=K", "models") == (
        "http://u:pw@h:8000/v1/models?key=K"
    )
    assert endpoint_route("http://h:8000/v1", "chat/completions") == (
        "http://h:8000/v1/chat/completions"
    )


def test_a_shared_manifest_names_no_folder_of_the_machine_it_ran_on() -> None:
    """A bundle and an exported page carry the run's command line off the machine: the
    executable's folder and absolute paths (a home folder, a user name) are left out."""
    manifest = RunManifest(
        kind="qa",
        config={},
        fingerprint="f",
        command=[
            "/home/alice/venvs/x/bin/coordqa",
            "eval",
            "--out",
            "/home/alice/runs/gpt",
            "--dataset=/home/alice/data/fresh",
            "--limit",
            "2",
        ],
    )
    assert manifest.shareable().command == [
        "coordqa",
        "eval",
        "--out",
        "…/gpt",
        "--dataset=…/fresh",
        "--limit",
        "2",
    ]


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("localhost:8000", "http://localhost:8000"),
        (f"me:{SECRET}@gpu7:8000/v1?key={QUERY_KEY}", "http://gpu7:8000/v1"),
    ],
)
def test_an_address_typed_without_its_scheme_is_shown_as_the_address_to_type(
    typed: str, shown: str
) -> None:
    """Walkthrough 25, R4: ``127.0.0.1:8000/v1`` was refused without showing what was typed.

    It reads as an address, so it is shown with ``http://`` in front (without its password or
    query), as the value to give instead."""
    done = coordqa("eval", "--model", "openai/x", "--api-base", typed, "--limit", "1")
    assert done.returncode == 2, done.stderr
    assert f"--api-base {shown}" in done.stderr and "no http:// or https://" in done.stderr
    assert SECRET not in done.stderr and QUERY_KEY not in done.stderr


@pytest.mark.parametrize("typed", ["sk-live-abc123", "gpu7/v1", "ftp://gpu7:8000/v1"])
def test_text_that_does_not_read_as_an_address_is_not_shown_back(typed: str) -> None:
    """A key pasted into ``--api-base`` has no port and no local host: it is not echoed."""
    done = coordqa("eval", "--model", "openai/x", "--api-base", typed, "--limit", "1")
    assert done.returncode == 2, done.stderr
    assert "is not an http(s) URL with a host" in done.stderr
    assert "sk-live-abc123" not in done.stderr and "gpu7/v1" not in done.stderr
