"""Typed run records and the QA run reader: one call shape, old runs still load, no stale copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import get_args

import pytest
from qa_run_support import OPTIONS, Row, write_format1_run, write_qa_run

from coordqa.agentic import load_agentic_run, verify_episodes
from coordqa.agentic.records import (
    AGENT_ROLES,
    EXCHANGE_TYPES,
    ActionExchange,
    BeliefExchange,
    Decision,
    TomExchange,
    VanillaExchange,
    parse_record,
)
from coordqa.analysis import analyze_run
from coordqa.errors import StoreError
from coordqa.evaluation import score
from coordqa.llm import Reply, Usage
from coordqa.records import (
    EXCHANGE_ROLES,
    CallResult,
    Exchange,
    Payload,
    QACall,
    Sample,
    call_result,
    upgrade,
)
from coordqa.store import SCHEMA_VERSION, RunStore, open_run, read_qa_run

ROWS = [
    Row("s0-ec", "EC", 0, "answered", True),
    Row("s0-ec", "EC", 1, "answered", False),
    Row("s0-tom", "ToM", 0, "ambiguous"),
    Row("s0-tom", "ToM", 1, "no_answer"),
    Row("s0-jp", "JP", 0, "error"),
    Row("s0-jp", "JP", 1, "answered", True),
]


def test_a_call_is_stored_in_one_shape_for_qa_and_agents() -> None:
    reply = Reply("Answer: B", usage=Usage(12, 3, 0.5, 1), latency_s=0.25, attempts=2, model="m")
    shared = call_result(reply).to_json()
    qa = QACall.of("q1", 2, "hash", reply).to_json()
    assert {k: qa[k] for k in shared} == shared
    assert shared["usage"] == {"prompt_tokens": 12, "completion_tokens": 3, "cost": 0.5}
    failed = call_result(Reply(None, "HTTP 401: bad key"))
    assert failed.text is None and failed.error == "HTTP 401: bad key" and not failed.ok
    with pytest.raises(ValueError, match="exactly one of 'text'"):
        CallResult(text="A", error="also failed")


def test_format1_run_loads_with_its_outcomes_and_rescores_into_today_format(
    tmp_path: Path,
) -> None:
    old = write_format1_run(tmp_path / "old", "m", ROWS, trials=2)
    run = read_qa_run(old)
    assert run.manifest.schema_version == 1
    calls = run.last_calls()
    assert calls[("s0-ec", 0)].usage.prompt_tokens == 10  # flat field read into usage
    assert calls[("s0-jp", 0)].error == "HTTP 500" and calls[("s0-jp", 0)].text is None
    samples = {s.key: s for s in run.samples()}  # the stored format 1 scores.jsonl
    assert {k: (s.status, s.correct) for k, s in samples.items()} == {
        (r.question_id, r.trial): (r.status, r.correct) for r in ROWS
    }
    analysis = analyze_run(old)
    assert analysis.errors == 1 and analysis.stored_samples == 6

    rescored = score(old)  # rewrites the derived files only
    assert rescored.errors == 1
    lines = (old / "scores.jsonl").read_text().splitlines()
    assert all(Sample.from_json(json.loads(line)).n_options == 4 for line in lines)
    assert (old / "samples.jsonl").exists()  # format 1 stream left as it was, and ignored


def test_resuming_a_format1_run_marks_it_with_the_new_format(tmp_path: Path) -> None:
    old = write_format1_run(tmp_path / "old", "m", ROWS, trials=2)
    with RunStore.open_or_create(old, open_run(old).manifest) as store:
        assert store.manifest.schema_version == SCHEMA_VERSION
        reply = Reply("Answer: A", usage=Usage(1, 1, None, 1))
        store.append_record("calls", QACall.of("s0-jp", 0, "p", reply))
    run = read_qa_run(old)
    both = run.calls()  # format 1 and format 2 calls in one stream
    assert len(both) == 7 and both[-1].usage.prompt_tokens == 1
    assert run.last_calls()[("s0-jp", 0)].text == "Answer: A"


def test_scores_do_not_go_stale_when_the_run_goes_on(tmp_path: Path) -> None:
    path = write_qa_run(tmp_path / "run", "m", ROWS, trials=2)
    assert not read_qa_run(path).warnings
    with RunStore.open_or_create(path, open_run(path).manifest) as store:
        store.append_record("calls", QACall.of("s0-jp", 0, "p", Reply("Answer: A")))
    run = read_qa_run(path)
    samples = {s.key: s for s in run.samples()}
    assert samples[("s0-jp", 0)].status == "answered" and samples[("s0-jp", 0)].correct
    assert any("coordqa score" in w for w in run.warnings)
    score(path)
    fresh = read_qa_run(path)
    assert {s.key: s.status for s in fresh.samples()}[("s0-jp", 0)] == "answered"
    assert not fresh.warnings


def test_missing_keys_and_expected_keys(tmp_path: Path) -> None:
    path = write_qa_run(tmp_path / "run", "m", ROWS[:3], trials=2)
    run = read_qa_run(path)
    assert run.expected_keys() == [("s0-ec", 0), ("s0-ec", 1), ("s0-tom", 0), ("s0-tom", 1)]
    assert run.missing_keys() == [("s0-tom", 1)]


def test_a_damaged_record_names_its_file_and_field(tmp_path: Path) -> None:
    path = write_qa_run(tmp_path / "run", "m", ROWS[:1], trials=1)
    calls = path / "calls.jsonl"
    record = json.loads(calls.read_text())
    del record["question_id"]
    calls.write_text(json.dumps(record) + "\n")
    with pytest.raises(StoreError, match=r"calls.jsonl record 1: not a valid QACall.*question_id"):
        read_qa_run(path).calls()


def test_agent_exchanges_of_format1_are_upgraded() -> None:
    old = {
        "kind": "exchange",
        "role": "action",
        "agent": "cac",
        "player": 0,
        "decision": 1,
        "turn": 0,
        "messages": [{"role": "user", "content": "act"}],
        "reply": "Answer: A",
        "error": None,
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "cost": None},
        "latency_s": 0.1,
        "cached": False,
        "attempts": 1,
        "model": "m",
        "options": OPTIONS[:2],
        "choice": {"outcome": "chosen", "index": 0, "candidates": [0], "method": "marker_letter"},
        "action": OPTIONS[0],
        "episode": "e",
        "attempt": "a",
        "seat": 0,
        "step": 3,
    }
    exchange = parse_record(upgrade("exchanges", old))
    assert isinstance(exchange, ActionExchange) and exchange.text == "Answer: A"
    assert exchange.options == OPTIONS[:2] and exchange.action == OPTIONS[0]
    failed = parse_record(upgrade("exchanges", {**old, "reply": None}))
    assert isinstance(failed, Exchange) and failed.error == "no reply text"
    events = {"kind": "events", "role": "events", "agent": "cac", "player": 0, "decision": 1}
    decision = parse_record({**events, "action": "wait", "notes": ["x"]})
    assert isinstance(decision, Decision) and decision.action == "wait"


def test_every_agent_role_has_exactly_one_record_type_registered_in_the_core() -> None:
    """The agentic track's roles come from its record types alone, each registered once."""
    declared = [
        role for cls in EXCHANGE_TYPES for role in get_args(cls.model_fields["role"].annotation)
    ]
    assert len(declared) == len(set(declared)) == 17  # 16 in format 3, then HM's subgoals
    assert list(AGENT_ROLES) == declared
    for role in AGENT_ROLES:
        cls = EXCHANGE_ROLES.get(role)
        assert cls in EXCHANGE_TYPES and role in get_args(cls.model_fields["role"].annotation)
        assert issubclass(cls, Exchange) and issubclass(cls, Payload), role
        assert cls.model_config.get("extra") == "forbid", role


def test_an_exchange_with_a_field_its_role_does_not_declare_is_refused() -> None:
    exchange = ActionExchange(
        role="action",
        agent="cac",
        player=0,
        decision=1,
        messages=[],
        text="Action: A",
        options=OPTIONS[:2],
        choice=None,
        action=None,
    ).to_json()
    with pytest.raises(StoreError, match="verdict: Extra inputs are not permitted"):
        parse_record({**exchange, "verdict": "okay"})
    with pytest.raises(StoreError, match="role: 'planning' is none of action, belief, hypothesis"):
        parse_record({**exchange, "role": "planning"})
    decision = {"kind": "events", "role": "events", "agent": "cac", "player": 0, "decision": 1}
    with pytest.raises(StoreError, match="rejections: Extra inputs"):
        parse_record({**decision, "rejections": []})


FORMAT2_RUN = Path(__file__).parent / "data" / "agentic-format2"


def test_an_agentic_run_of_format_2_reads_with_typed_records(tmp_path: Path) -> None:
    """Format 2 stored HM's Vanilla Mind Prompting call as role tom: it reads as vanilla."""
    run = tmp_path / "run"
    shutil.copytree(FORMAT2_RUN, run)
    raw = [json.loads(line) for line in (run / "exchanges.jsonl").read_text().splitlines()]
    hm_tom = [r for r in raw if r["agent"] == "hm" and r["role"] == "tom"]
    cac_tom = [r for r in raw if r["agent"] == "cac" and r["role"] == "tom"]
    assert hm_tom and cac_tom and all("plan" in r for r in hm_tom)
    episodes = load_agentic_run(run)
    assert sorted(e.spec.agent for e in episodes) == ["cac", "hm"]
    records = [r for e in episodes for r in e.exchanges]
    assert len(records) == len(raw)
    hm, cac = (
        [r for r in records if r.agent == agent and isinstance(r, Exchange)]
        for agent in ("hm", "cac")
    )
    assert {r.role for r in hm} == {"action", "vanilla"}
    assert sum(isinstance(r, VanillaExchange) for r in hm) == len(hm_tom)
    assert sum(isinstance(r, TomExchange) for r in cac) == len(cac_tom)
    beliefs = [r for r in cac if isinstance(r, BeliefExchange)]
    assert beliefs and all(c.truth for b in beliefs for c in b.belief_checks)
    assert [v.key for v in verify_episodes(episodes)] == [e.key for e in episodes]


FORMAT3 = Path(__file__).parent / "data" / "agentic-format3"


def test_every_role_stored_by_format_3_reads_back_as_it_was_written() -> None:
    """One record of each role, as coordqa wrote them before the agentic records moved out of
    the core: each reads as its role's type and writes back the same JSON (nothing lost)."""
    stored = [json.loads(line) for line in (FORMAT3 / "roles.jsonl").read_text().splitlines()]
    newer = {"subgoals"}  # the subgoal module's own call (issue 37), after these were written
    assert [r["role"] for r in stored] == [*(r for r in AGENT_ROLES if r not in newer), "events"]
    for data in stored:
        record = parse_record(data, "roles.jsonl")
        assert record.role == data["role"]
        assert json.loads(json.dumps(record.to_json())) == data


def test_an_agentic_run_of_format_3_reads_and_replays(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(FORMAT3 / "run", run)
    raw = [json.loads(line) for line in (run / "exchanges.jsonl").read_text().splitlines()]
    episodes = load_agentic_run(run)
    assert sorted(e.spec.agent for e in episodes) == ["cac", "hm", "react", "reflexion"]
    records = [r for e in episodes for r in e.exchanges]

    def lines(found: list[dict[str, object]]) -> list[str]:
        return sorted(json.dumps(r, sort_keys=True) for r in found)

    assert lines([r.to_json() for r in records]) == lines(raw)  # every record, as written
    assert [v.key for v in verify_episodes(episodes)] == [e.key for e in episodes]
