"""One member of a set: its state, read from its run directory, and running it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from coordqa.errors import CoordqaError, ModelNotServed
from coordqa.evalset.spec import SetMember
from coordqa.evaluation import EvalFailed, EvalProgress, evaluate_async
from coordqa.llm.endpoints import stored_endpoint
from coordqa.store import MANIFEST, read_qa_run

__all__ = [
    "MemberState",
    "SetEvent",
    "SetProgress",
    "member_state",
    "run_fingerprint",
    "run_member",
    "stopped",
]

MemberStatus = Literal["pending", "complete", "failed", "interrupted"]


class MemberState(BaseModel):
    """How one member stands, as the set manifest records it."""

    model_config = ConfigDict(extra="forbid")

    model: str
    """The model."""
    api_base: str | None = None
    """Its endpoint, without credentials (:func:`~coordqa.llm.endpoints.stored_endpoint`)."""
    dataset: str
    """The dataset."""
    fingerprint: str | None = None
    """The dataset content its run answered (the run's dataset fingerprint); None before its
    run began, and in sets written before format 4. A file regenerated in place keeps its
    name and changes this: the set then holds two members of that name, told apart by it."""
    run: str | None
    """Its run directory, relative to the set's folder; None for a member that stopped before
    its run began (refused at set-up: a key variable not set, a model refused), which made none
    (:func:`stopped`)."""
    member: str | None = None
    """Which member it is whatever the set's trials (:attr:`SetMember.key`), so a resumed set
    keeps its folder; None in sets written before it was recorded, whose folder is its key."""
    status: MemberStatus = "pending"
    """``pending`` (not run yet), ``complete``, ``failed`` or ``interrupted``."""
    message: str | None = None
    """Why it failed or stopped."""
    answered: int = 0
    """Samples answered (stored with a reply)."""
    expected: int = 0
    """Samples the run needs (questions x trials: the set's, or the run's own when it holds
    more, as a run extended by ``coordqa eval --trials`` does); 0 until it has run. A run that
    answered the set's trials is complete whatever more it holds."""
    skipped: bool = False
    """Whether the latest session skipped it as complete."""
    earlier: bool = False
    """Whether only an earlier session named it: the latest left it as it stood (members are
    added to a set, never dropped from it by a session that names fewer)."""


@dataclass(frozen=True)
class SetEvent:
    """What the progress callback of :func:`evaluate_set` receives."""

    member: SetMember
    """The member concerned."""
    kind: Literal["skipped", "started", "progress", "finished", "failed"]
    """What happened."""
    state: MemberState | None = None
    """Its state after a ``skipped``, ``finished`` or ``failed`` event."""
    progress: EvalProgress | None = None
    """Its run's progress, for a ``progress`` event (local backend only)."""

    @classmethod
    def ended(cls, member: SetMember, state: MemberState) -> SetEvent:
        """The event of a member that ended in ``state``: ``finished`` when complete."""
        return cls(member, "finished" if state.status == "complete" else "failed", state)


SetProgress = Callable[[SetEvent], None]


def member_state(member: SetMember, out: Path) -> MemberState:
    """A member's state as its run directory shows it (``pending`` when it has none)."""
    state = MemberState(
        model=member.model.model,
        api_base=stored_endpoint(member.model.api_base),
        dataset=member.dataset,
        run=str(member.run.relative_to(out)),
        member=member.key,
    )
    if not (member.run / MANIFEST).exists():
        return state
    run = read_qa_run(member.run)
    manifest = run.manifest
    questions = manifest.dataset.num_questions if manifest.dataset else 0
    answered = sum(1 for call in run.last_calls().values() if call.ok)
    asked = questions * member.config.trials
    complete = manifest.status == "finished" and answered >= asked > 0
    held = manifest.config.get("trials")
    return state.model_copy(
        update={
            "answered": answered,
            # a run extended beyond the set's trials (coordqa eval --trials) needs what it
            # holds, as `runs list` counts it: never 48/36 (walkthrough 15 R5)
            "expected": max(asked, questions * held if isinstance(held, int) else 0),
            "status": "complete" if complete else "pending",
            "fingerprint": run_fingerprint(member.run),
        }
    )


def run_fingerprint(run: Path) -> str | None:
    """The fingerprint of the dataset the run at ``run`` answered; None when it holds no run."""
    if not (run / MANIFEST).is_file():
        return None
    dataset = read_qa_run(run).manifest.dataset
    return dataset.fingerprint if dataset is not None else None


def stopped(state: MemberState, out: Path, status: MemberStatus, message: str) -> MemberState:
    """``state`` ended with ``status`` and ``message``; its run folder forgotten if none was made.

    A member refused before its run began writes no folder, so the set records none rather than
    a name nothing answers to (``eval-set.json``, the summary's ``run:`` line), and a later
    session names its folder afresh.
    """
    made = state.run is not None and (out / state.run / MANIFEST).is_file()
    return state.model_copy(
        update={"status": status, "message": message, "run": state.run if made else None}
    )


async def run_member(
    member: SetMember, out: Path, progress: Callable[[EvalProgress], None] | None = None
) -> MemberState:
    """Run (or resume) one member; a failure is its state, never an exception.

    Raises only on cancellation (Ctrl-C), after the run has marked itself interrupted.
    """
    try:
        member.api_key()  # an unset variable said where the set named it, before the run
        await evaluate_async(member.config, progress=progress)
    except EvalFailed as failure:
        return stopped(member_state(member, out), out, "failed", str(failure))
    except ModelNotServed as refusal:
        said = str(refusal.leaving_out(member.set_models))
        return stopped(member_state(member, out), out, "failed", said)
    except CoordqaError as error:  # a missing key variable, an unknown provider, a bad filter
        # coordqa's errors are sentences that say what to do; the class name says nothing more
        return stopped(member_state(member, out), out, "failed", str(error) or type(error).__name__)
    return member_state(member, out)
