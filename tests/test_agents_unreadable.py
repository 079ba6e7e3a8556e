"""Free-text roles read as strictly as actions (issue 37; review rows 2b, 2c, 3e).

The rule, written before the code: a reply without its role's label (``Hypothesis:``, ``Plan:``,
``Subgoals:``, ``Thought:``, ``Reflection:``, the ToM format's labels, the belief template's
lines) is unreadable for that role. It is asked once more with a reminder that restates the
role's format; a second unreadable reply takes the role's documented fallback (no ToM note, no
new hypothesis, no plan, no subgoals, no reflection, the belief kept as it was, nothing from the
vanilla call). Each is counted per role (``unreadable_replies``, ``role_fallbacks``), and the
unreadable text is never shown in a later prompt (only to the re-ask of the same call, as an
action's re-ask shows the model its reply). Empty replies are counted per role
(``empty_replies``). Lettered side questions (predictions, targets, judgements, ladder) are not
asked again: a reply that names no option is no answer, counted per role.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.llm import Message, ScriptedModel

UNLABELLED = "- Move to Room 1 - Move to Room 2 ZQXW I'm not sure if I want to use it"
"""A reply with no label of any role (gemma-3-270m wrote such replies), with a marker."""

REMINDER = "Reply again in exactly this format"


class Waiter(ScriptedPlayer):
    """A Collab partner that always waits."""

    name = "waiter"

    def choose(self, observation: Observation) -> str:
        return "Wait"


def play(agent: str, game: str, script: RoleScript, **options: Any):  # type: ignore[no-untyped-def]
    records: list[dict[str, Any]] = []
    player = make_player(
        agent, game, model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    partner = make_player("hanabi-convention", "hanabi") if game == "hanabi" else Waiter()
    asyncio.run(play_episode(make_game(game, seed=0), [player, partner], seed=0))
    return player, records


def calls(records: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    return [r for r in records if r["kind"] == "exchange" and r["role"] == role]


def later_prompts(records: list[dict[str, Any]], role: str) -> list[str]:
    """Every message sent, except the re-asks of ``role`` (which show the model its reply)."""
    shown = []
    for record in records:
        if record["kind"] != "exchange":
            continue
        if record["role"] == role and REMINDER in record["messages"][-1]["content"]:
            continue
        shown += [m["content"] for m in record["messages"]]
    return shown


CASES = [
    # role, agent, game, options, a text the memory shows only when the role was read
    ("tom", "cac", "hanabi", {}, "Theory of Mind notes"),
    ("hypothesis", "hm", "collab_capture", {}, "my hypothesis"),
    ("plan", "planreact", "collab_capture", {}, "My plan:"),
    ("subgoals", "planreact", "collab_capture", {}, None),
    ("react", "react", "collab_capture", {}, "My plan:"),
    ("reflection", "reflexion", "collab_capture", {}, "Reflections on my earlier plans"),
    ("belief", "cac", "collab_capture", {"belief_state": True}, "My belief state:"),
    ("vanilla", "hm", "collab_capture", {"variant": "vmp"}, "my hypothesis"),
]


@pytest.mark.parametrize(("role", "agent", "game", "options", "shown_when_read"), CASES)
def test_an_unlabelled_reply_is_asked_again_once_then_the_role_falls_back(
    role: str, agent: str, game: str, options: dict[str, Any], shown_when_read: str | None
) -> None:
    player, records = play(agent, game, RoleScript(**{role: UNLABELLED}), **options)
    made = calls(records, role)
    assert made, f"no {role} call was made"
    by_decision: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for call in made:
        by_decision[call["decision"]].append(call)
    for pair in by_decision.values():
        assert len(pair) % 2 == 0  # each call asked once more, never a third time
        for first, again in zip(pair[::2], pair[1::2], strict=True):
            assert REMINDER not in first["messages"][-1]["content"]
            reminder = again["messages"][-1]["content"]
            assert REMINDER in reminder and "could not be read" in reminder
    stats = player.stats()
    assert stats["unreadable_replies"][role] == len(made)
    assert stats["role_fallbacks"][role] == len(made) // 2
    assert not any("ZQXW" in text for text in later_prompts(records, role))
    if shown_when_read is not None:
        assert not any(shown_when_read in text for text in later_prompts(records, role))
    if role == "subgoals" or role == "react":
        assert stats["subgoal_actions"] == 0  # every decision became an action call
    if role in ("hypothesis", "vanilla"):
        assert stats["hypotheses_generated"] == 0
    if role == "plan":
        assert not calls(records, "subgoals")  # no plan, no subgoal module


def test_a_labelled_reply_to_the_reminder_is_read_and_used() -> None:
    def hypothesis(messages: Sequence[Message]) -> str:
        if REMINDER in messages[-1].content:
            return "Hypothesis: Bob waits for me every turn."
        return UNLABELLED

    player, records = play("hm", "collab_capture", RoleScript(hypothesis=hypothesis))
    stats = player.stats()
    assert stats["hypotheses_generated"] == len(calls(records, "hypothesis")) // 2 > 0
    assert stats["role_fallbacks"].get("hypothesis", 0) == 0
    assert stats["unreadable_replies"]["hypothesis"] == stats["hypotheses_generated"]
    plans = [c["messages"][-1]["content"] for c in calls(records, "plan")]
    assert any("Bob waits for me every turn." in plan for plan in plans)


def test_the_tom_note_keeps_only_the_labelled_lines() -> None:
    tom = "I think so, ZQXW.\nPartner Action Explanation: Bob saved a card.\nAction: B ZQXW"
    _, records = play("cac", "hanabi", RoleScript(tom=tom))
    actions = [c["messages"][-1]["content"] for c in calls(records, "action")]
    noted = [a for a in actions if "Theory of Mind notes" in a]
    assert noted and all("Partner Action Explanation: Bob saved a card." in a for a in noted)
    assert not any("ZQXW" in a for a in actions)


def test_empty_replies_are_counted_per_role() -> None:
    empty = {role: "" for role in ("tom", "action", "reprompt", "verifier")}
    player, _ = play("cac", "collab_escape", RoleScript(**empty))
    stats = player.stats()
    assert stats["empty_replies"] == stats["calls_by_role"]
    assert set(stats["empty_replies"]) == {"tom", "action", "reprompt"}
    assert stats["fallbacks"] == stats["decisions"] - stats["forced"]


def test_a_lettered_side_question_that_names_no_option_is_counted_not_asked_again() -> None:
    player, records = play("hm", "collab_capture", RoleScript(predict="I cannot tell, ZQXW."))
    stats = player.stats()
    assert stats["unreadable_replies"]["predict"] == len(calls(records, "predict")) > 0
    assert stats["predictions_scored"] == 0
    assert "predict" not in stats["role_fallbacks"]
    assert not any(REMINDER in c["messages"][-1]["content"] for c in calls(records, "predict"))


def test_the_verifier_is_given_the_explanation_section_alone() -> None:
    action = "I ramble ZQXW on and on.\nExplanation: the first action is safe.\nAction: A"
    _, records = play("cac", "collab_escape", RoleScript(action=action))
    asked = [c["messages"][-1]["content"] for c in calls(records, "verifier")]
    assert asked and all("Reason given: the first action is safe." in text for text in asked)
    assert not any("ZQXW" in text for text in asked)
