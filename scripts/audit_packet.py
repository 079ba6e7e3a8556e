"""Write the packet of a blind audit of a CoordinationQA release, and its keys apart.

Run: python scripts/audit_packet.py [--dataset NAME] [--seed N] [--size 30] [--facts FILE] --out DIR

An auditor who has not seen the keys or the code answers every question from the texts alone
and flags any that the texts leave ambiguous (the release cards report such audits). The sample
is stratified over game x question type (``coordqa.dataset.stratified_sample``, as ``coordqa eval
--sample``). ``DIR/packet.md`` holds the instructions, the engines' rules, each game's rules text
as a model sees it and every question exactly as it is asked (directive, then the question
message with its lettered options); ``DIR/keys.json`` holds the keyed letters and the solvers'
rationales, for whoever compares the answers afterwards: hand the auditor the packet only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from coordqa.choices import option_letter
from coordqa.dataset import load_rows, stratified_sample
from coordqa.prompts import build_messages

INSTRUCTIONS = """\
For every question: (1) give the answer you would key, worked out from the texts alone: its
letter, and every other letter that is equally right; (2) say whether the question is ambiguous:
does the answer depend on anything the texts (directive, rules, state, question) do not say, or
do two readings of them give different answers? Name the sentence. Decide each answer before
you look at anything else; do not look for keys, code or earlier audits."""

ENGINE_RULES = """\
The games are played by these engines: Overcooked on overcooked-ai 1.1.0 (with the old rule that
a pot starts cooking by itself when its third onion goes in), Hanabi on the Hanabi Learning
Environment (two players, 8 reveal tokens, 3 lives), Collab Capture and Collab Escape on
coordqa's own engines. Each game's rules text below is what a model is told; where it says how
something works, that is how the engine does it."""


def packet(
    rows: list[dict], dataset: str, seed: int, engines: str = ENGINE_RULES
) -> tuple[str, dict[int, dict]]:
    """The packet's text and the keys, by question number.

    ``engines`` says how the games are played (by default a short note; ``--facts`` embeds a
    fuller description).
    """
    games = sorted({row["game"] for row in rows})
    lines = [
        f"# Blind audit: {len(rows)} questions of {dataset} (stratified by game x type, "
        f"seed {seed})",
        "",
        INSTRUCTIONS,
        "",
        "## The engines",
        "",
        engines,
    ]
    for game in games:
        rules = next(row["game_description"] for row in rows if row["game"] == game)
        lines += ["", f"## Rules text the model sees: {game}", "", "```", rules, "```"]
    keys = {}
    for number, row in enumerate(rows, 1):
        messages = build_messages(row)
        system = next(m.content for m in messages if m.role == "system")
        lines += [
            "",
            f"## Question {number} ({row['game']}, {row['question_type']})",
            "",
            "Directive (system message):",
            "```",
            system,
            "```",
            "Question (user message):",
            "```",
            messages[-1].content,
            "```",
        ]
        keys[number] = {
            "question_id": row["question_id"],
            "correct": [option_letter(i) for i in row["correct"]],
            "rationale": row["rationale"],
        }
    return "\n".join(lines) + "\n", keys


def main() -> None:
    """Sample, then write ``packet.md`` and ``keys.json``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", default="coordinationqa", help="release name or path")
    parser.add_argument("--seed", type=int, default=27, help="sample seed (default 27)")
    parser.add_argument("--size", type=int, default=30, help="questions (default 30)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write")
    parser.add_argument(
        "--facts", type=Path, help="a text file on the engines' rules to embed (e.g. games.md)"
    )
    args = parser.parse_args()
    rows = load_rows(args.dataset)
    cells = [(row["game"], row["question_type"]) for row in rows]
    chosen = [rows[i] for i in stratified_sample(cells, range(len(rows)), args.size, args.seed)]
    engines = args.facts.read_text(encoding="utf-8") if args.facts else ENGINE_RULES
    text, keys = packet(chosen, args.dataset, args.seed, engines)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "packet.md").write_text(text, encoding="utf-8")
    (args.out / "keys.json").write_text(json.dumps(keys, indent=1) + "\n", encoding="utf-8")
    per_game = {game: sum(row["game"] == game for row in chosen) for game, _ in cells}
    print(f"{len(chosen)} questions {per_game}; hand the auditor {args.out / 'packet.md'} only")


if __name__ == "__main__":
    main()
