"""Eval sets: many models x datasets as one resumable unit (``coordqa eval-set``).

An :class:`EvalSetSpec` names models (each with its own endpoint, key variable, model
arguments, request and token rates and concurrency), datasets (releases or files), and the
settings every member shares (trials, sampling, question filters, retries). Each (model,
dataset) pair is a *member*: an ordinary QA run (:func:`coordqa.evaluation.evaluate_async`) whose
directory, named as ``coordqa eval`` names it, lies in the set's folder next to the set manifest
``eval-set.json`` (:class:`SetManifest`), which says what the set is and how each member stands.

- Resuming: running the same set again skips every complete member (all its samples answered,
  status finished) and resumes the others, each from its own run directory.
- Limits: a model's ``concurrency``, ``rpm`` and ``tpm`` bound its endpoint (provider plus
  api_base), shared by every member that calls it: on the local backend through the process's
  :data:`coordqa.llm.limiters`, on Ray through one limiter actor per endpoint
  (:mod:`coordqa.llm.ray_limits`). Models that share an endpoint must declare the same bounds.
- Failures: a member that fails (a refused key, an unreachable server, too many errors, a
  missing key variable) is stopped with its message, stored in the manifest, and the other
  members go on; :attr:`SetResult.ok` is False.
- Backends: ``local`` runs every member as a task of one event loop; ``ray`` runs each member
  as a Ray task (:mod:`coordqa.evalset.ray_backend`) that writes its run directory into the
  set's folder, which must be shared by every node.
"""

from __future__ import annotations

from coordqa.evalset.manifest import SET_MANIFEST, SetManifest, expand_sets, is_set, read_set
from coordqa.evalset.members import MemberState, SetEvent, SetProgress
from coordqa.evalset.run import SetInterrupted, SetResult, evaluate_set, evaluate_set_async
from coordqa.evalset.spec import (
    EvalSetSpec,
    SetMember,
    SetModel,
    endpoint_limits,
    load_spec,
    members_of,
    parse_spec,
    refuse_repeats,
)

__all__ = [
    "SET_MANIFEST",
    "EvalSetSpec",
    "MemberState",
    "SetEvent",
    "SetInterrupted",
    "SetManifest",
    "SetMember",
    "SetModel",
    "SetProgress",
    "SetResult",
    "endpoint_limits",
    "evaluate_set",
    "evaluate_set_async",
    "expand_sets",
    "is_set",
    "load_spec",
    "members_of",
    "parse_spec",
    "read_set",
    "refuse_repeats",
]
