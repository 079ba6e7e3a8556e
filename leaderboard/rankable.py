"""Whether a run's model may be ranked at all: the one rule, for the board and submit.

A model that plays from the game's state rather than from its prompts (the offline ``bot``,
which answers from a game's strong policy: :attr:`coordqa.llm.Provider.reads_context`) measures
coordqa's pipeline, not a language model. The board refuses its bundles
(:func:`coordqa.leaderboard.verify.refuse_unrankable`); the bundle builder applies the same
rule, in the same words, before ``coordqa submit`` writes or sends a bundle
(:mod:`coordqa.leaderboard.bundle`): a saved bundle of ``bot`` was written without a word and
refused only on upload (walkthrough 11, #167). It depends on no other module of the
leaderboard, so both import it.
"""

from __future__ import annotations

from coordqa.errors import CoordqaError

__all__ = ["unrankable_problem"]


def unrankable_problem(model: str | None) -> str | None:
    """Why runs of ``model`` are never ranked, or None when they may be.

    Names this installation cannot build are not refused here: their replies or episodes are
    checked like any other.

    >>> unrankable_problem("scripted") is None
    True
    """
    from coordqa.llm import create_provider

    if model is None:
        return None
    try:
        provider = create_provider(model, None, None)
    except CoordqaError:  # a model this installation cannot build: judged by what it played
        return None
    if not provider.reads_context:
        return None
    return (
        f"model {model!r} plays from the game's own strong policy, not from the prompts: "
        "its runs measure coordqa's pipeline and are never ranked"
    )
