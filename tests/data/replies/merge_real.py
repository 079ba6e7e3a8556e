"""Merge collected real replies with the blind labellers' labels into one corpus file.

Run: python tests/data/replies/merge_real.py RAW_DIR LABEL_DIR OUT.jsonl
RAW_DIR holds ``<source>.jsonl`` files of raw replies and LABEL_DIR ``<labeller>.jsonl`` files of
labels, as /work/corpus/FORMAT.md describes. Each labelled raw line is written with its label's
``outcome``, ``option`` and ``reason`` copied unchanged. A raw reply that no labeller labelled is
left out; one that labellers labelled differently is left out too and printed, so the
disagreement goes to the lead rather than being settled here. coordqa.choices is never called.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from coordqa.choices.corpus import load_corpus

LABEL_KEYS = ("outcome", "option", "reason")


def read_lines(folder: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def main(raw_dir: str, label_dir: str, out: str) -> None:
    labels: dict[str, list[dict]] = {}
    for label in read_lines(Path(label_dir)):
        labels.setdefault(label["id"], []).append(label)
    merged, unlabelled, split = [], 0, []
    for raw in read_lines(Path(raw_dir)):
        given = labels.get(raw["id"], [])
        readings = {(g["outcome"], g["option"]) for g in given}
        if not given:
            unlabelled += 1
        elif len(readings) > 1:
            split.append((raw["id"], given))
        else:
            merged.append({**raw, **{key: given[0][key] for key in LABEL_KEYS}})
    Path(out).write_text(
        "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in merged),
        encoding="utf-8",
    )
    load_corpus(Path(out).parent)  # every written line is a valid corpus line, or this raises
    print(f"{len(merged)} labelled replies written to {out}; {unlabelled} raw replies unlabelled")
    for reply_id, given in split:
        print(f"labellers disagree on {reply_id}: {[(g['outcome'], g['option']) for g in given]}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(f"usage: python {sys.argv[0]} RAW_DIR LABEL_DIR OUT.jsonl")
    main(*sys.argv[1:])
