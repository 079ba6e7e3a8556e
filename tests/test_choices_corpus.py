"""The labelled reply corpus (tests/data/replies) holds choose() to issue 11's targets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coordqa.choices import Choice
from coordqa.choices.corpus import CorpusReport, LabelledReply, compare, load_corpus, verdict
from coordqa.errors import DatasetError

CORPUS = Path(__file__).parent / "data" / "replies"


@pytest.fixture(scope="module")
def report() -> CorpusReport:
    return compare(load_corpus(CORPUS))


def test_corpus_meets_the_targets(report: CorpusReport) -> None:
    listing = "\n".join(
        f"{c.record.id}: {c.verdict} ({c.choice.method}) {c.record.reply[-120:]!r}"
        for c in report.disagreements
    )
    assert report.count("false_credit") == 0, listing
    assert report.count("wrong_option") == 0, listing
    assert report.agreement() >= 0.98, listing


def test_corpus_covers_every_outcome_and_source_size(report: CorpusReport) -> None:
    assert report.size("adversarial/v1") >= 200
    outcomes = {c.record.outcome for c in report.comparisons}
    assert outcomes == {"chosen", "ambiguous", "no_answer"}
    assert all(c.record.reason.strip() for c in report.comparisons)


def _record(outcome: str, option: int | None) -> LabelledReply:
    return LabelledReply("t/1", "t", ("wait", "move away"), "reply", outcome, option, "why")


@pytest.mark.parametrize(
    ("label", "choice", "expected"),
    [
        (("chosen", 1), Choice("chosen", 1, (1,), "marker_letter"), "agree"),
        (("chosen", 1), Choice("chosen", 0, (0,), "marker_letter"), "wrong_option"),
        (("ambiguous", None), Choice("chosen", 0, (0,), "marker_letter"), "false_credit"),
        (("no_answer", None), Choice("chosen", 0, (0,), "marker_letter"), "false_credit"),
        (("chosen", 0), Choice("no_answer", None, (), "none"), "missed"),
        (("ambiguous", None), Choice("no_answer", None, (), "none"), "other"),
        (("ambiguous", None), Choice("ambiguous", None, (0, 1), "marker_letter"), "agree"),
        (("no_answer", None), Choice("no_answer", None, (), "none"), "agree"),
    ],
)
def test_verdict(label: tuple, choice: Choice, expected: str) -> None:
    assert verdict(_record(*label), choice) == expected


GOOD = {
    "id": "s/1",
    "source": "s",
    "options": ["wait", "move away"],
    "reply": "Answer: B",
    "outcome": "chosen",
    "option": 1,
    "reason": "one letter",
}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps({**GOOD, "reason": " "}), "reason"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "reply"}), "missing keys"),
        (json.dumps({**GOOD, "outcome": "maybe"}), "outcome"),
        (json.dumps({**GOOD, "option": 2}), "option"),
        (json.dumps({**GOOD, "outcome": "no_answer"}), "option"),
        (json.dumps({**GOOD, "options": []}), "options"),
        (json.dumps(GOOD) + "\n" + json.dumps(GOOD), "already used"),
    ],
)
def test_load_corpus_rejects_bad_lines(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / "bad.jsonl").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        load_corpus(tmp_path)


def test_load_corpus_needs_a_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no \\*.jsonl"):
        load_corpus(tmp_path)


def test_held_out_real_replies_never_credit_a_different_option() -> None:
    """Replies the reader was not tuned on (holdout/README), read with the question asked.

    Without the question the reader credited "Answer: Yes" to a question the model invented
    ("Do you know anything about this game?"); with it, that reply answers nothing.
    """
    records = load_corpus(CORPUS / "holdout")
    held_out = compare(records)
    assert held_out.count("wrong_option") == 0 and held_out.count("false_credit") == 0
    assert held_out.size("gemma-3-270m/v1.1-system") == 42
    blind = compare(records, with_question=False)
    false_credits = [c.record.id for c in blind.comparisons if c.verdict == "false_credit"]
    assert false_credits == ["gemma-3-270m/v1.1-system/hanabi-02-EC/0"]


def test_every_real_reply_carries_the_question_it_answered() -> None:
    records = load_corpus(CORPUS) + load_corpus(CORPUS / "holdout")
    real = [r for r in records if not r.source.startswith("adversarial")]
    assert real and all(r.question and "?" in r.question for r in real)
