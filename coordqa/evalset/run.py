"""Running a set: every pending member at once, on this process's event loop or on Ray."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from coordqa.analysis import RunAnalysis, analyze_run
from coordqa.errors import NOTHING_STARTED, RunInterrupted
from coordqa.evalset.manifest import (
    SET_MANIFEST,
    SetLedger,
    SetManifest,
    recorded_runs,
    refuse_run_folder,
)
from coordqa.evalset.members import (
    MemberState,
    SetEvent,
    SetProgress,
    member_state,
    run_member,
    stopped,
)
from coordqa.evalset.spec import EvalSetSpec, SetMember, endpoint_limits, members_of
from coordqa.outputs import check_run_output
from coordqa.runs import run_to_end, sigterm_as_ctrl_c

__all__ = ["SetInterrupted", "SetResult", "evaluate_set", "evaluate_set_async"]


class SetInterrupted(RunInterrupted):
    """The set was stopped (Ctrl-C or SIGTERM); every member's answers so far are stored."""


@dataclass
class SetResult:
    """What :func:`evaluate_set` returns."""

    out: Path
    """The set's folder."""
    manifest: SetManifest
    """Its manifest after this session."""
    dropped: list[MemberState] = field(default_factory=list)
    """Members an earlier session named that stored no run: this session, not naming them,
    left them out of the set (nothing of theirs was stored, so nothing is lost)."""

    @property
    def ok(self) -> bool:
        """Whether every member this session named is complete (``coordqa eval-set``'s status).

        Members only an earlier session named stand as they were and do not count: this
        session did not run them.
        """
        return not self.failed

    @property
    def failed(self) -> list[MemberState]:
        """The members this session named that are not complete, with their messages."""
        return [m for m in self.manifest.members if m.status != "complete" and not m.earlier]

    def runs(self) -> list[Path]:
        """Every member's run directory that exists, in spec order."""
        paths = [self.out / m.run for m in self.manifest.members if m.run is not None]
        return [p for p in paths if (p / "manifest.json").exists()]

    def analyses(self) -> dict[str, RunAnalysis]:
        """Each member's accuracy tables, by its run directory (relative to the set).

        Read from the runs (nothing is sent to a model); members with no run yet are left out.
        """
        return {
            m.run: analyze_run(self.out / m.run)
            for m in self.manifest.members
            if m.run is not None and (self.out / m.run / "manifest.json").exists()
        }


async def _run_local(
    pending: Sequence[SetMember], ledger: SetLedger, progress: SetProgress | None
) -> None:
    """Every pending member as a task of this event loop, sharing the process's limiters."""
    import anyio

    def emit(event: SetEvent) -> None:
        if progress is not None:
            progress(event)

    async def one(member: SetMember) -> None:
        try:
            state = await run_member(
                member, ledger.out, lambda p: emit(SetEvent(member, "progress", progress=p))
            )
        except BaseException:
            state = member_state(member, ledger.out)
            ledger.update(member, stopped(state, ledger.out, "interrupted", "interrupted"))
            raise
        ledger.update(member, state)
        emit(SetEvent.ended(member, state))

    for member in pending:  # all at once, as on Ray: a display knows every one before progress
        emit(SetEvent(member, "started"))
    async with anyio.create_task_group() as group:
        for member in pending:
            group.start_soon(one, member)


async def evaluate_set_async(
    spec: EvalSetSpec, *, progress: SetProgress | None = None
) -> SetResult:
    """Run (or resume) an eval set; see :func:`evaluate_set`."""
    from coordqa.llm.ray_limits import import_ray, ray_for_backend

    if spec.backend == "ray":
        import_ray(spec.address)  # a missing extra is said before any member is listed or run
    out = Path(spec.out) if spec.out is not None else spec.default_out()
    check_run_output(out, "eval set")
    refuse_run_folder(out)
    members = members_of(spec, out, recorded_runs(out))
    endpoint_limits(members)
    with ray_for_backend(spec.backend, spec.address):  # up before the set's folder is written
        return await _run_members(spec, out, members, progress)


async def _run_members(
    spec: EvalSetSpec, out: Path, members: Sequence[SetMember], progress: SetProgress | None
) -> SetResult:
    """Record the set's manifest, then run its members that are not complete."""
    ledger = SetLedger(spec, out, members)
    pending = []
    for member in members:
        state = ledger.state(member)
        if state.status == "complete":
            ledger.update(member, state.model_copy(update={"skipped": True}))
            if progress is not None:
                progress(SetEvent(member, "skipped", ledger.state(member)))
        else:
            pending.append(member)
    if spec.backend == "ray":
        from coordqa.evalset.ray_backend import run_on_ray

        # It blocks (Ray's tasks do the waiting), under a SIGTERM handler set after ray.init,
        # which sets its own: sys.exit(15) in silence, the members left "pending".
        with sigterm_as_ctrl_c():
            run_on_ray(spec, pending, ledger, progress)
    else:
        await _run_local(pending, ledger, progress)
    return SetResult(out, ledger.manifest, ledger.dropped)


def evaluate_set(spec: EvalSetSpec, *, progress: SetProgress | None = None) -> SetResult:
    """Run (or resume) every member of an eval set; failures stop only their member.

    Complete members are skipped; the others run (or resume) at once, sharing each endpoint's
    limits. The set manifest is rewritten as each member ends.

    Raises:
        ConfigError: a bad spec, two models declaring different limits for one endpoint, or a
            folder that holds a set with other shared settings (nothing is run).
        MissingDependencyError: ``backend: ray`` without ray installed (before any member).
        SetInterrupted: on Ctrl-C or SIGTERM; every member's answers so far are stored, and the
            same call resumes the set.
    """
    out = Path(spec.out) if spec.out is not None else spec.default_out()

    def interrupted() -> str:
        if not (out / SET_MANIFEST).exists():  # stopped while its folder was checked
            return NOTHING_STARTED
        return (
            f"interrupted: every member's answers so far are stored in {out}; run the same "
            "command again to resume the set"
        )

    if spec.backend == "ray":  # Ray's wait blocks the loop: its SIGTERM is Ctrl-C (_run_members)
        try:
            return asyncio.run(evaluate_set_async(spec, progress=progress))
        except KeyboardInterrupt:
            raise SetInterrupted(interrupted(), out) from None
    return run_to_end(
        lambda: evaluate_set_async(spec, progress=progress),
        interrupted=interrupted,
        run_dir=out,
        error=SetInterrupted,
    )
