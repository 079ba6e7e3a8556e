"""coordqa: measure how well language models coordinate with partners.

The public API is re-exported here and loaded lazily (PEP 562), so ``import coordqa`` and
``coordqa --help`` do not pay for datasets, litellm or the game engines until they are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_exports
from coordqa._version import __version__

if TYPE_CHECKING:
    from coordqa.analysis import (
        compare_runs as compare_runs,
    )
    from coordqa.choices import (
        Choice as Choice,
        choose as choose,
    )
    from coordqa.dataset import (
        dataset_fingerprint as dataset_fingerprint,
        load_dataset as load_dataset,
    )
    from coordqa.eval_config import (
        EvalConfig as EvalConfig,
    )
    from coordqa.evalset import (
        EvalSetSpec as EvalSetSpec,
        evaluate_set as evaluate_set,
        load_spec as load_spec,
    )
    from coordqa.evaluation import (
        evaluate as evaluate,
        evaluate_async as evaluate_async,
        score as score,
    )
    from coordqa.games import (
        make_game as make_game,
        make_player as make_player,
        play_episode as play_episode,
    )
    from coordqa.llm import (
        CallPolicy as CallPolicy,
        GenerateConfig as GenerateConfig,
        Message as Message,
        get_model as get_model,
    )
    from coordqa.store import (
        RunStore as RunStore,
        open_run as open_run,
    )

__getattr__, _LAZY = lazy_exports(__name__, __file__)
__all__ = ["__version__", *_LAZY]
