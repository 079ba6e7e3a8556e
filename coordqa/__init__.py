"""coordqa: measure how well language models coordinate with partners.

The public API is re-exported here and loaded lazily (PEP 562), so ``import coordqa`` and
``coordqa --help`` do not pay for datasets, litellm or the game engines until they are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_getattr
from coordqa._version import __version__

_EXPORTS = {
    "Choice": "coordqa.choices",
    "choose": "coordqa.choices",
    "load_dataset": "coordqa.dataset",
    "dataset_fingerprint": "coordqa.dataset",
    "evaluate": "coordqa.evaluation",
    "evaluate_async": "coordqa.evaluation",
    "EvalConfig": "coordqa.evaluation",
    "score": "coordqa.evaluation",
    "evaluate_set": "coordqa.evalset",
    "EvalSetSpec": "coordqa.evalset",
    "load_spec": "coordqa.evalset",
    "compare_runs": "coordqa.analysis",
    "RunStore": "coordqa.store",
    "open_run": "coordqa.store",
    "get_model": "coordqa.llm",
    "GenerateConfig": "coordqa.llm",
    "CallPolicy": "coordqa.llm",
    "Message": "coordqa.llm",
    "make_game": "coordqa.games",
    "make_player": "coordqa.games",
    "play_episode": "coordqa.games",
}

__all__ = [
    "CallPolicy",
    "Choice",
    "EvalConfig",
    "EvalSetSpec",
    "GenerateConfig",
    "Message",
    "RunStore",
    "__version__",
    "choose",
    "compare_runs",
    "dataset_fingerprint",
    "evaluate",
    "evaluate_async",
    "evaluate_set",
    "get_model",
    "load_dataset",
    "load_spec",
    "make_game",
    "make_player",
    "open_run",
    "play_episode",
    "score",
]

if TYPE_CHECKING:
    from coordqa.analysis import compare_runs
    from coordqa.choices import Choice, choose
    from coordqa.dataset import dataset_fingerprint, load_dataset
    from coordqa.evalset import EvalSetSpec, evaluate_set, load_spec
    from coordqa.evaluation import EvalConfig, evaluate, evaluate_async, score
    from coordqa.games import make_game, make_player, play_episode
    from coordqa.llm import CallPolicy, GenerateConfig, Message, get_model
    from coordqa.store import RunStore, open_run


__getattr__ = lazy_getattr(__name__, _EXPORTS)
