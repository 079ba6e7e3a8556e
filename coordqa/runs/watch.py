"""Failing loudly: which errors stop a run, which are reported, and when a run counts as failed.

Every driver (``coordqa eval``, ``coordqa agentic run/grid``) feeds its units' errors (a QA
sample whose call failed, an episode whose model call failed) to one :class:`ErrorWatch`, which

- stops the run at the first error that every other call would meet too
  (:data:`STOPPING_ERRORS`: a refused key, model or parameter; a server that does not answer);
- reports the first error of each kind the moment it happens (kinds by :func:`error_signature`);
- says at the end whether the session failed: stopped, or more errors than ``max_error_rate``
  allows, in words that name the cause, what is kept and how to resume.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coordqa.llm.endpoints import shown_endpoint
from coordqa.llm.openai_api import CONTEXT_ADVICE, CONTEXT_EXCEEDED, exceeds_context
from coordqa.llm.retry import TIMED_OUT_CAUSE, TIMED_OUT_IN_PROCESS, timed_out, timed_out_fix
from coordqa.runs.endpoint import START_OR_FIX
from coordqa.words import capitalised

STOPPING_ERRORS = frozenset({"fatal", "unreachable"})
"""Error kinds after which no other call can succeed: the run stops at once."""

_VOLATILE = re.compile(r"\b[0-9a-f]{8,}\b|\d+\.\d+|\d{4,}", re.IGNORECASE)


def error_signature(error: str) -> str:
    """What makes two errors "the same kind": the cause without ids, times or ports.

    Every prompt over the model's context is one kind, whatever its token counts: its advice
    is said once (walkthrough 25).

    >>> error_signature("gave up after 6 attempts; last error: Timeout 12.5 s (id 3f9a2b7c1d)")
    'Timeout # s (id #)'
    """
    if exceeds_context(error):
        return CONTEXT_EXCEEDED
    cause = error.rpartition("last error: ")[2]
    return _VOLATILE.sub("#", cause)[:200]


@dataclass(frozen=True)
class Stop:
    """The error that stopped a run."""

    error: str
    """The error text (the provider's sentence for a refusal)."""
    kind: str
    """``fatal`` (refused) or ``unreachable`` (the server did not answer)."""
    model: str
    """The model that failed."""
    api_base: str | None
    """Its endpoint (None: the provider's own)."""


@dataclass(frozen=True)
class Tally:
    """Where a session's units stand when it ends, for the failure message."""

    unit: str
    """What the run counts, plural: ``samples`` or ``episodes``."""
    done: str
    """The participle of a unit with a result: ``answered`` or ``played``."""
    stored: int
    """Units with a result in the run directory."""
    total: int
    """Units the run plans."""
    errors: int
    """Units whose latest attempt failed."""
    run_dir: object
    """The run directory (shown in the message)."""
    errors_file: str
    """The stream that holds the errors (named when no error of this session is known)."""

    @property
    def error_rate(self) -> float:
        """Errors over the units the run plans."""
        return self.errors / self.total if self.total else 0.0

    def then_resume(self, fix: str) -> str:
        """What is kept, then ``fix`` and how to resume, as two sentences.

        >>> tally = Tally("samples", "answered", 0, 9, 1, "runs/x", "calls.jsonl")
        >>> for sentence in tally.then_resume("Start the server").split(". "):
        ...     print(sentence)
        0 of 9 samples are answered and stored in runs/x
        Start the server, then run the same command again to resume.
        """
        return (
            f"{self.stored} of {self.total} {self.unit} are {self.done} and stored in "
            f"{self.run_dir}. {fix}, then run the same command again to resume."
        )


@dataclass
class ErrorWatch:
    """The fail-loud bookkeeping of one session (one process) of a run."""

    model: str
    """The model the run calls (named in a refusal), unless a stop names its own."""
    api_base: str | None = None
    """Its endpoint (named when unreachable); None: the provider's own."""
    max_error_rate: float = 0.0
    """Share of the run's units that may end as errors without failing it."""
    replies_capped: bool = False
    """Whether the run caps its replies (``--max-tokens``): timeouts are not told to cap them."""
    errors: int = 0
    """Errors seen in this session."""
    over_context: int = 0
    """Of :attr:`errors`, those whose prompt does not fit the model's context: another try
    fails the same way (:func:`coordqa.llm.openai_api.exceeds_context`)."""
    timed_out: int = 0
    """Of :attr:`errors`, those whose last attempt ran out of time (--timeout)."""
    first_errors: dict[str, str] = field(default_factory=dict)
    """The first error of each kind (by :func:`error_signature`), in order of appearance."""
    stopped_by: Stop | None = None
    """The error that stopped the run, if one did."""

    def note(self, error: str) -> str | None:
        """Count one error; return it when it is the first of its kind (to show it now)."""
        self.errors += 1
        self.over_context += exceeds_context(error)
        self.timed_out += timed_out(error)
        signature = error_signature(error)
        if signature in self.first_errors:
            return None
        self.first_errors[signature] = error
        return error

    def stopping(
        self, error: str, kind: str | None, *, model: str | None = None, api_base: str | None = None
    ) -> bool:
        """Whether an error of ``kind`` stops the run; the first such error is kept.

        ``model`` and ``api_base`` name the model that failed, when the run calls several
        (default: the watch's).

        Called the moment the error comes back, before it is stored: while it is being written,
        calls still in flight may fail too, and their errors describe a later state (one more
        failed attempt), so the first one is the one reported.
        """
        if kind not in STOPPING_ERRORS:
            return False
        if self.stopped_by is None:
            if model is None:
                model, api_base = self.model, self.api_base
            self.stopped_by = Stop(error, kind, model, api_base)
        return True

    def failure(self, tally: Tally) -> str | None:
        """Why the session counts as failed (None: it did not)."""
        stop = self.stopped_by
        if stop is not None and stop.kind == "unreachable":
            where = (
                shown_endpoint(stop.api_base)
                if stop.api_base
                else f"the {stop.model.partition('/')[0]} API"
            )
            if timed_out(stop.error):  # a busy server, not a missing one
                return f"stopped: {where} is unreachable: {stop.error} ({TIMED_OUT_CAUSE}). " + (
                    tally.then_resume(capitalised(timed_out_fix(self.replies_capped)))
                )
            return f"stopped: {where} is unreachable: {stop.error}. " + tally.then_resume(
                START_OR_FIX
            )
        if stop is not None:
            return (
                f"stopped: {stop.model} refused the call, and would refuse every other one: "
                f"{stop.error}. " + tally.then_resume("Fix the API key, model name or parameters")
            )
        if tally.errors == 0 or tally.error_rate <= self.max_error_rate:
            return None
        kinds = "; ".join(map(without_advice, self.first_errors.values()))
        kinds = kinds or f"see {tally.errors_file}"
        advice = retry_advice(
            self.errors,
            self.over_context,
            self.timed_out,
            in_process=_in_process(self.model),
            capped=self.replies_capped,
        )
        return (
            f"{tally.errors} of {tally.total} {tally.unit} ({tally.error_rate:.1%}) are errors, "
            f"more than --max-error-rate {self.max_error_rate:g} allows (first of each kind: "
            f"{kinds}). {capitalised(advice)}, or allow a share of errors with "
            "--max-error-rate."
        )


def without_advice(error: str) -> str:
    """``error`` without the advice it carries, said once by :func:`retry_advice` instead.

    >>> without_advice(f"not retried (HTTP 400: {CONTEXT_EXCEEDED}, on any try: {CONTEXT_ADVICE})")
    "not retried (HTTP 400: the prompt does not fit the model's context, on any try)"
    """
    return error.replace(f": {CONTEXT_ADVICE}", "")


def _in_process(model: str) -> bool:
    """Whether ``model`` runs inside coordqa, behind no server (``llamacpp/PATH``)."""
    from coordqa.llm.registry import runs_in_process

    return runs_in_process(model)


def retry_advice(
    errors: int,
    over_context: int,
    timed_out: int = 0,
    *,
    said_below: bool = False,
    in_process: bool = False,
    capped: bool = False,
) -> str:
    """What to do about ``errors`` failed units, as a clause: run the same command again.

    Unless another try fails them the same way: ``over_context`` of them are prompts longer
    than the model's context (:func:`coordqa.llm.openai_api.exceeds_context`). ``timed_out`` of
    them ran out of time: why, and what to do (:data:`coordqa.llm.retry.TIMED_OUT_CAUSE`).
    ``said_below``: the run's error, printed next, gives this advice whole; only the causes are
    named here, so that a run says each advice once (walkthrough 25). ``in_process``: the model
    runs inside coordqa, behind no server (:data:`coordqa.llm.retry.TIMED_OUT_IN_PROCESS`).
    ``capped``: the run caps its replies already (:func:`coordqa.llm.retry.timed_out_fix`).

    >>> retry_advice(3, 0)
    'run the same command again to retry them'
    >>> retry_advice(3, 0, 3, said_below=True)
    'run the same command again to retry them (3 of them timed out: see the error below)'
    """
    below = "see the error below"
    if over_context and over_context >= errors:
        return (
            f"running the same command again fails them the same way ({CONTEXT_EXCEEDED}): "
            f"{below if said_below else CONTEXT_ADVICE}"
        )
    causes: list[tuple[str, str]] = []
    if over_context:
        verb = "fails" if over_context == 1 else "fail"
        causes.append(
            (f"{over_context} of them {verb} the same way, as {CONTEXT_EXCEEDED}", CONTEXT_ADVICE)
        )
    if timed_out:
        why = TIMED_OUT_IN_PROCESS if in_process else f"{TIMED_OUT_CAUSE}: {timed_out_fix(capped)}"
        causes.append((f"{timed_out} of them timed out", why))
    if not causes:
        return "run the same command again to retry them"
    if said_below:
        said = "; ".join(cause for cause, _ in causes) + f": {below}"
    else:
        said = "; ".join(f"{cause}: {advice}" for cause, advice in causes)
    return f"run the same command again to retry them ({said})"
