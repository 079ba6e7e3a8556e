"""Eval sets on Ray: each member is a Ray task that writes its run into the set's folder.

The driver attaches to one limiter actor per endpoint (:func:`coordqa.llm.ray_limits.
shared_limiters`) before submitting the members; each task installs
:class:`~coordqa.llm.ray_limits.RayLimiter` as its process's limiter factory, so every model call
of every worker takes its slot and rate budget from its endpoint's actor. A task runs its
member with :func:`coordqa.evalset.members.run_member` exactly as the local backend does, writing
its run directory itself (one writer per run directory, so the store's lock holds): the set's folder
must be one that every node sees (a shared file system). Only the member's state comes back,
and the driver records it in the set manifest as each task ends.

API keys are read by the workers from their own environment: set the key variables on every
node (or in the cluster's ``runtime_env``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from coordqa.evalset.manifest import SetLedger
from coordqa.evalset.members import MemberState, SetEvent, SetProgress, run_member, stopped
from coordqa.evalset.spec import EvalSetSpec, SetMember, endpoint_limits
from coordqa.jsonvalues import JSONObject
from coordqa.llm import limiters
from coordqa.llm.ray_limits import RayLimiter, ray_cluster, shared_limiters

__all__ = ["member_task", "run_on_ray"]


def member_task(member: SetMember, out: Path) -> JSONObject:
    """Body of one Ray task: run a member with Ray-shared limits; return its state as JSON."""
    limiters.use(RayLimiter)
    state = asyncio.run(run_member(member, out))
    return state.model_dump(mode="json")


def run_on_ray(
    spec: EvalSetSpec,
    pending: Sequence[SetMember],
    ledger: SetLedger,
    progress: SetProgress | None,
) -> None:
    """Run ``pending`` as Ray tasks (``spec.member_cpus`` CPUs each); record each as it ends."""
    if not pending:
        return
    with ray_cluster(spec.address) as ray, shared_limiters(endpoint_limits(pending)):
        task = ray.remote(member_task).options(num_cpus=spec.member_cpus, max_retries=0)
        running = {task.remote(member, ledger.out): member for member in pending}
        for member in pending:
            if progress is not None:
                progress(SetEvent(member, "started"))
        try:
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                member = running.pop(done[0])
                state = MemberState.model_validate(ray.get(done[0]))
                ledger.update(member, state)
                if progress is not None:
                    progress(SetEvent.ended(member, state))
        finally:
            for ref, member in running.items():
                ray.cancel(ref, force=True)
                state = stopped(ledger.state(member), ledger.out, "interrupted", "interrupted")
                ledger.update(member, state)
