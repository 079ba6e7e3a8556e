"""How often coordqa.choices reads a reply as a careful grader does, on the labelled corpus.

Run: python benchmarks/bench_reply_corpus.py [--corpus DIR] [--show N] [--without-question]
Reads every tests/data/replies/*.jsonl (a raw reply and its grader label per line), reads each
reply with choose() and the question it answered (from the line's prompt_tail, as QA scoring
passes it; --without-question reads as before the reader took it), and prints agreement, false
credits (chosen where the grader sees none or several), credits of a different option, per
source and per method counts, and the disagreements.
Targets (issue 11): agreement >= 98%, no false credit, no wrong option.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from coordqa.choices.corpus import VERDICTS, CorpusReport, compare, load_corpus

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "replies"


def _row(report: CorpusReport, source: str | None) -> str:
    counts = "  ".join(f"{v} {report.count(v, source):>4}" for v in VERDICTS)
    return f"{report.size(source):>5}  {report.agreement(source):7.1%}  {counts}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--show", type=int, default=50, help="disagreements to list (default 50)")
    parser.add_argument(
        "--without-question",
        action="store_true",
        help="read replies without the question asked (as before choose took question=)",
    )
    args = parser.parse_args()
    report = compare(load_corpus(args.corpus), with_question=not args.without_question)

    print(f"{'source':<28} {'size':>5}  {'agree':>7}  verdicts")
    for source in report.sources:
        print(f"{source:<28} {_row(report, source)}")
    print(f"{'all':<28} {_row(report, None)}")
    print(
        f"\nagreement {report.agreement():.1%} of {report.size()} replies; "
        f"false credits {report.count('false_credit')}; "
        f"credits of a different option {report.count('wrong_option')}"
    )

    print("\nmethod counts (method: verdict count ...)")
    methods = report.methods()
    for method in sorted({m for m, _ in methods}):
        parts = ", ".join(f"{v} {methods[method, v]}" for v in VERDICTS if methods[method, v])
        print(f"  {method:<26} {parts}")

    shown = report.disagreements[: args.show]
    print(f"\ndisagreements ({len(report.disagreements)}, showing {len(shown)})")
    for comparison in shown:
        record, choice = comparison.record, comparison.choice
        grader = (
            f"{record.outcome} {record.option}" if record.option is not None else record.outcome
        )
        read = f"{choice.outcome} {list(choice.candidates)} by {choice.method}"
        print(f"- {record.id}: {comparison.verdict}; grader {grader}; choose {read}")
        print(f"  reason: {record.reason}")
        print(f"  reply: {record.reply[-300:]!r}")


if __name__ == "__main__":
    main()
