"""An agent of another package adds a model-call role of its own, touching no coordqa file.

``tests/plugins/toyagent`` (Guesser) declares the role ``guess`` with its payload (``partner``,
``guess``) and registers the agent and the role's record type through entry points alone. The
expected values follow from the agent and the offline ``scripted`` model: Guesser makes one guess
call at every decision that offers a choice, before its action call; a guess prompt lists no
lettered options, so ``scripted`` answers "Scripted policy: there are no lettered options to
choose from." and the guess read is None; the agent sits in seat 0, so the partner guessed is
Bob.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from plugin_support import coordqa, installed_fixture, run_process

from coordqa.errors import StoreError
from coordqa.records import exchange_type

ENTRY_POINTS = """\
[coordqa.players]
guesser = toyagent.agent:GUESSER

[coordqa.agent_roles]
guess = toyagent.agent:GuessExchange
"""

READ_BACK = """\
import sys
from coordqa.agentic import load_agentic_run
for episode in load_agentic_run(sys.argv[1]):
    for record in episode.exchanges:
        if record.role == "guess":
            print(type(record).__module__, type(record).__name__, record.partner, record.guess)
"""
"""Reads a run back through coordqa's reader and prints each guess record's type and payload."""


installed = installed_fixture("coordqa-guesser", ENTRY_POINTS)
"""The environment of a process that has the Guesser distribution installed."""


@pytest.mark.slow  # two real processes
def test_a_plugin_agent_stores_its_own_role_typed_and_the_run_reads_back(
    installed: dict[str, str], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    pairing = ["--game", "collab_capture", "--partner", "capture-greedy", "--seeds", "0"]
    coordqa(installed, "agentic", "run", "--agent", "guesser", "--model", "scripted", *pairing,
            "--out", str(run))  # fmt: skip
    stored = [json.loads(line) for line in (run / "exchanges.jsonl").open()]
    guesses = [r for r in stored if r["role"] == "guess"]
    chosen = [r for r in stored if r["kind"] == "events" and r["action"] and not r["forced"]]
    assert guesses and len(guesses) == len(chosen)
    for record in guesses:  # the scripted model fills in the format the directive asks for
        assert record["text"] == "Guess: scripted guess"
        assert (record["partner"], record["guess"], record["agent"]) == (
            "Bob",
            "scripted guess",
            "guesser",
        )
    episode = json.loads((run / "episodes.jsonl").read_text())
    assert episode["agent_stats"]["0"]["calls_by_role"]["guess"] == len(guesses)
    read = run_process(installed, [sys.executable, "-c", READ_BACK, str(run)]).splitlines()
    assert read == ["toyagent.agent GuessExchange Bob scripted guess"] * len(guesses)


def test_a_role_no_installed_package_registers_is_refused_naming_where_roles_come_from() -> None:
    with pytest.raises(StoreError, match="role: 'guess' is none of .*coordqa.agent_roles"):
        exchange_type("guess", "exchanges.jsonl record 3")
