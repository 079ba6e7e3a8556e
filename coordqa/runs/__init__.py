"""One run lifecycle for every kind of run: QA (``coordqa eval``), agentic and ``play`` runs.

- :class:`RunLifecycle` and :func:`run_to_end`: open or resume a run directory (its identity
  checked), run a session, end it as finished, failed (:class:`~coordqa.errors.RunFailed`) or
  interrupted (:class:`~coordqa.errors.RunInterrupted`, on Ctrl-C and SIGTERM alike);
  :func:`sigterm_as_ctrl_c` for the synchronous code around sessions;
- :class:`ErrorWatch`: failing loudly, the same way in every driver: a refused call or an
  unreachable server stops the run at once, the first error of each kind is shown when it
  happens, and too many errors fail the run;
- :func:`check_reachable`: is anything listening at the model's endpoint, asked before the
  first unit; :func:`check_served`: does it serve the model named (when it lists its
  models), a refusal naming where the name was written (:func:`given_key`: a file's key,
  else ``--model``);
- :func:`say_if_moved`: a resumed run asked at another endpoint is said, once, before its calls.

Runs are read back by one reader per kind, all of one shape
(:class:`coordqa.store.RunReader`, with :class:`coordqa.store.RunCounts`).
"""

from coordqa.runs.counts import fewer_than_stored
from coordqa.runs.endpoint import check_reachable, check_served, given_key
from coordqa.runs.lifecycle import RunLifecycle, run_to_end
from coordqa.runs.moved import say_if_moved
from coordqa.runs.watch import STOPPING_ERRORS, ErrorWatch, Stop, Tally, error_signature
from coordqa.stops import sigterm_as_ctrl_c

__all__ = [
    "STOPPING_ERRORS",
    "ErrorWatch",
    "RunLifecycle",
    "Stop",
    "Tally",
    "check_reachable",
    "check_served",
    "error_signature",
    "fewer_than_stored",
    "given_key",
    "run_to_end",
    "say_if_moved",
    "sigterm_as_ctrl_c",
]
