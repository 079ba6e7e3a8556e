"""Hypothetical Minds bookkeeping against hand computations (pure code, no model)."""

from __future__ import annotations

import doctest

import agents_support
import pytest

from coordqa.agentic.agents import cac as cac_module, hypotheses, memory, replies
from coordqa.agentic.agents.hypotheses import HMParams, HypothesisBook, rescorla_wagner
from coordqa.errors import ConfigError


@pytest.mark.parametrize("module", [hypotheses, memory, replies, agents_support, cac_module])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_rescorla_wagner_matches_hand_computation() -> None:
    # V = 0 -> +1: 0 + 0.3 * (1 - 0) = 0.3; then 0.3 + 0.3 * 0.7 = 0.51
    assert rescorla_wagner(0.0, 1.0, 0.3) == pytest.approx(0.3)
    assert rescorla_wagner(0.3, 1.0, 0.3) == pytest.approx(0.51)
    # wrong from 0.51: 0.51 + 0.3 * (-1 - 0.51) = 0.057
    assert rescorla_wagner(0.51, -1.0, 0.3) == pytest.approx(0.057)
    # another alpha and c: 0.5 + 0.5 * (2 - 0.5) = 1.25
    assert rescorla_wagner(0.5, 2.0, 0.5) == pytest.approx(1.25)


def test_values_validation_and_invalidation() -> None:
    book = HypothesisBook()
    h = book.add("Bob fetches onions", decision=1)
    assert h.value == 0.0 and book.validated() is None
    values = [book.score(h.id, correct=True, decision=d) for d in (2, 3, 4)]
    assert values == pytest.approx([0.3, 0.51, 0.657])
    assert book.validated() is None and book.first_validation is None
    assert book.score(h.id, correct=True, decision=5) == pytest.approx(0.7599)
    assert book.validated() is h and book.first_validation == 5
    # one wrong prediction: 0.7599 + 0.3 * (-1 - 0.7599) = 0.23193 -> below the threshold
    assert book.score(h.id, correct=False, decision=6) == pytest.approx(0.23193)
    assert book.validated() is None
    assert book.first_validation == 5  # the first validation is kept
    assert (h.predictions, h.correct) == (5, 4)


def test_custom_parameters_and_initial_value() -> None:
    book = HypothesisBook(HMParams(alpha=0.5, c=2.0, threshold=1.0, top_k=2, initial_value=0.5))
    h = book.add("x", decision=0)
    assert h.value == 0.5
    assert book.score(h.id, correct=True, decision=1) == pytest.approx(1.25)
    assert book.validated() is h


def test_top_k_refinement_and_predictors() -> None:
    book = HypothesisBook(HMParams(top_k=2))
    a, b, c = (book.add(text, decision=0) for text in "abc")
    book.score(a.id, True, 1)  # 0.3
    book.score(b.id, False, 1)  # -0.3
    assert book.for_refinement() == [a]  # only positive values are shown
    d = book.add("d", decision=2)
    # the newest always predicts, plus the top_k = 2 best earlier ones (the paper's top-k + newest)
    assert book.predictors() == [d, a, c]
    assert book.for_plan() is d  # none validated: the newest conditions the plan
    for decision in range(3, 7):
        book.score(a.id, True, decision)
    assert book.predictors() == [a] and book.for_plan() is a
    assert [h.id for h in book.ranked()][:2] == [a.id, d.id]
    assert c.value == 0.0


def test_top_k_zero_predicts_with_the_newest_alone() -> None:
    book = HypothesisBook(HMParams(top_k=0))
    a = book.add("a", decision=0)
    book.score(a.id, True, 1)
    b = book.add("b", decision=2)
    assert book.predictors() == [b] and book.for_refinement() == []


def test_ties_rank_the_newer_first() -> None:
    book = HypothesisBook()
    first, second = book.add("first", 0), book.add("second", 1)
    assert book.ranked() == [second, first]


@pytest.mark.parametrize(
    "bad",
    [
        {"alpha": 0.0},
        {"alpha": 1.5},
        {"c": 0.0},
        {"threshold": 2.0},
        {"top_k": -1},
        {"initial_value": -3.0},
    ],
)
def test_invalid_parameters_are_rejected(bad: dict[str, float]) -> None:
    with pytest.raises(ConfigError, match=next(iter(bad))):
        HMParams(**bad)  # type: ignore[arg-type]


def test_unknown_hypothesis_id() -> None:
    with pytest.raises(ConfigError, match="no hypothesis 3"):
        HypothesisBook().score(3, True, 0)
