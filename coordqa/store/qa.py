"""The reader of QA runs (``coordqa eval``): questions, calls, scored samples and summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from coordqa.errors import StoreError
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.records import QACall, Question, Sample, SampleKey
from coordqa.runfolder import QUESTIONS as QUESTIONS
from coordqa.store.directory import RunStore
from coordqa.store.reader import RunCounts, RunReader

CALLS = "calls"
"""Stream of the model calls of a QA run (:class:`coordqa.records.QACall`)."""
SCORES_FILE = "scores.jsonl"
"""Derived file: one :class:`coordqa.records.Sample` per (question, trial)."""
SUMMARY_FILE = "summary.json"
"""Derived file: the run's accuracy tables (:meth:`coordqa.analysis.RunAnalysis.to_json`)."""


class QARun(RunReader):
    """A QA run directory, read: the one way every consumer reads QA runs.

    ``coordqa score``, ``report``, ``results``, ``compare``, ``runs list`` and the leaderboard's
    bundles all read runs through this class, so they agree on what a run holds::

        run = read_qa_run("runs/openai-gpt-4o_coordinationqa-v1.1_2c41f9a0")
        run.manifest.config["model"], run.manifest.dataset     # what was run
        run.questions()      # {question_id: Question}, in dataset order
        run.last_calls()     # {(question_id, trial): QACall}: the latest call of each key
        run.samples()        # [Sample]: scored outcomes (scores.jsonl, or scored now if stale)
        run.missing_keys()   # planned (question_id, trial) pairs without a call

    Reading never writes: a stale ``scores.jsonl`` is re-scored in memory and a warning added
    to :attr:`warnings`; ``coordqa score`` rewrites the file.
    """

    kind = "qa"
    elsewhere = "only QA runs (coordqa eval) hold questions and replies to score and report"

    def __init__(self, store: RunStore) -> None:
        """Wrap an open QA run (use :func:`read_qa_run`)."""
        super().__init__(store)
        self._questions: dict[str, Question] | None = None
        self._calls: list[QACall] | None = None

    @property
    def model(self) -> str:
        """The model name of the run."""
        return str(self.manifest.config.get("model", "?"))

    @property
    def trials(self) -> int:
        """Trials per question the run plans."""
        trials = self.manifest.config.get("trials")
        if not isinstance(trials, int) or trials < 1:
            raise StoreError(f"{self.path}: the manifest has no valid 'trials' ({trials!r})")
        return trials

    def questions(self) -> dict[str, Question]:
        """The run's questions by id, in dataset order."""
        if self._questions is None:
            self._questions = {
                q.question_id: q for q in self.store.read(QUESTIONS, Question.from_json)
            }
        return self._questions

    def question_set(self) -> str:
        """Hash of the questions the run answers: ids, contents and answer keys.

        Two runs with the same question set answered the same questions, whatever dataset file
        or filters selected them; runs over different sets must not be compared as if they had.
        """
        keys = [[q.question_id, q.question_hash, q.target_hash] for q in self.questions().values()]
        return content_hash(sorted(keys))

    def calls(self) -> list[QACall]:
        """Every model call in write order (a retried key appears once per call)."""
        if self._calls is None:
            self._calls = self.store.read(CALLS, QACall.from_json)
        return self._calls

    def last_calls(self) -> dict[SampleKey, QACall]:
        """The latest call of each (question_id, trial): a retry supersedes a failed call."""
        return {call.key: call for call in self.calls()}

    def expected_keys(self) -> list[SampleKey]:
        """Every (question_id, trial) the run plans, in question then trial order."""
        return [(qid, trial) for qid in self.questions() for trial in range(self.trials)]

    def missing_keys(self) -> list[SampleKey]:
        """Planned keys without any call (a run stopped before asking them)."""
        called = self.last_calls()
        return [key for key in self.expected_keys() if key not in called]

    def counts(self) -> RunCounts:
        """Samples planned, answered (latest call has a reply) and failed (latest call failed)."""
        last = self.last_calls()
        failed = sum(not call.ok for call in last.values())
        return RunCounts("samples", len(self.expected_keys()), len(last) - failed, failed)

    def score(self) -> list[Sample]:
        """Score every key's latest call with today's :mod:`coordqa.scoring` (no model call).

        Raises:
            StoreError: a call refers to a question ``questions.jsonl`` does not hold.
        """
        from coordqa.scoring import score_call

        questions = self.questions()
        samples = []
        for (question_id, trial), call in sorted(self.last_calls().items()):
            question = questions.get(question_id)
            if question is None:
                raise StoreError(
                    f"{self.path}: calls.jsonl refers to question {question_id!r}, which "
                    "questions.jsonl does not hold; the run directory is incomplete"
                )
            samples.append(score_call(question, trial, call))
        return samples

    def stored_samples(self) -> list[Sample] | None:
        """The samples of ``scores.jsonl`` as written by the last score (None: never scored)."""
        path = self.store.file(SCORES_FILE)
        if not path.exists():
            return None
        return [
            Sample.from_json(data, f"{path} line {number}")
            for number, data in enumerate(self.store.read_jsonl(SCORES_FILE), start=1)
        ]

    def samples(self) -> list[Sample]:
        """The scored samples of the run, one per (question, trial) that has a call.

        These are the stored ``scores.jsonl`` when it covers exactly the latest calls (same keys,
        errors where the calls failed); otherwise (never scored, or calls added since: a resumed
        or killed run) every call is scored now, and a warning says so.
        """
        stored = self.stored_samples()
        calls = self.last_calls()
        if stored is not None and _covers(stored, calls):
            return stored
        if stored is not None:
            self.warnings.append(
                f"{SCORES_FILE} is older than calls.jsonl (the run went on after it was scored); "
                f"the calls were scored again in memory: run `coordqa score {self.path}` to "
                "update the file"
            )
        return self.score()

    def summary(self) -> JSONObject | None:
        """The stored ``summary.json`` (None when the run was never scored)."""
        if not self.store.file(SUMMARY_FILE).exists():
            return None
        summary = self.store.read_json(SUMMARY_FILE)
        if not isinstance(summary, dict):
            raise StoreError(f"{self.path / SUMMARY_FILE} is not a JSON object")
        return summary


def _covers(samples: Sequence[Sample], calls: Mapping[SampleKey, QACall]) -> bool:
    """Whether ``samples`` were scored from exactly ``calls`` (same keys, same failures)."""
    if len(samples) != len(calls):
        return False
    for sample in samples:
        call = calls.get(sample.key)
        if call is None or (sample.status == "error") != (not call.ok):
            return False
    return True


read_qa_run = QARun.read
"""Open a QA run directory (or wrap an open store) for reading; see :class:`QARun`."""
