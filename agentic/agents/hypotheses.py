"""Hypothetical Minds' hypothesis bookkeeping: Rescorla-Wagner values, validation, top-k.

Pure code, no model calls, so the numbers an HM agent acts on can be checked by hand.

Each hypothesis about the partner predicts the partner's next behaviour; when the behaviour is
observed, the prediction earns an intrinsic reward ``r = +c`` (right) or ``-c`` (wrong), and the
hypothesis value moves by Rescorla-Wagner: ``V <- V + alpha * (r - V)``. A hypothesis whose value
reaches ``threshold`` is *validated*: while one is, no new hypotheses are generated and only the
best validated one predicts and conditions plans, until its value falls below the threshold.
Without a validated one, the plan rests on the newest hypothesis (HM, as its paper says), or on
the best-valued kept one (``in_use="best"``: HE + HR, whose values come from the reward of the
hypothesis in use, so it must stay in use to collect it).

The paper does not give the value of a new hypothesis; coordqa starts it at ``initial_value``
(default 0.0, "no evidence either way").

>>> book = HypothesisBook()
>>> h = book.add("Bob only fetches onions", decision=0)
>>> [round(book.score(h.id, correct=True, decision=d), 4) for d in (1, 2, 3, 4)]
[0.3, 0.51, 0.657, 0.7599]
>>> book.validated() is h, book.first_validation
(True, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject


def rescorla_wagner(value: float, reward: float, alpha: float) -> float:
    """One Rescorla-Wagner step: move ``value`` a fraction ``alpha`` of the way to ``reward``.

    >>> rescorla_wagner(0.0, 1.0, 0.3)
    0.3
    >>> round(rescorla_wagner(0.7599, -1.0, 0.3), 5)
    0.23193
    """
    return value + alpha * (reward - value)


@dataclass(frozen=True)
class HMParams:
    """The Hypothetical Minds constants a hypothesis book runs on (HM's paper defaults).

    :class:`~coordqa.agentic.agents.hm.HMOptions` fills them in per variant.
    """

    alpha: float = 0.3
    """Learning rate of the Rescorla-Wagner update."""
    c: float = 1.0
    """Magnitude of the intrinsic reward of a prediction (+c right, -c wrong)."""
    threshold: float = 0.7
    """Value at which a hypothesis is validated (V >= threshold)."""
    top_k: int = 5
    """How many earlier hypotheses, the best by value, predict next to the newest and are shown
    for refinement (those with a positive value)."""
    initial_value: float = 0.0
    """Value of a new hypothesis (not given in the paper; 0 means no evidence yet)."""
    in_use: Literal["newest", "best"] = "newest"
    """Which hypothesis conditions the plan while none is validated: the ``newest`` (HM's
    paper: "the latest generated hypothesis") or the ``best``-valued kept one, the newest among
    equals (HE + HR; the paper's code note: "The highest value hypothesis could also be
    used")."""

    def __post_init__(self) -> None:
        checks = {
            "alpha": (0.0 < self.alpha <= 1.0, "in (0, 1]"),
            "c": (self.c > 0.0, "> 0"),
            "threshold": (abs(self.threshold) <= self.c, f"in [-c, c] = [{-self.c}, {self.c}]"),
            "top_k": (isinstance(self.top_k, int) and self.top_k >= 0, "an integer >= 0"),
            "initial_value": (abs(self.initial_value) <= self.c, "in [-c, c]"),
            "in_use": (self.in_use in ("newest", "best"), "'newest' or 'best'"),
        }
        for name, (ok, allowed) in checks.items():
            if not ok:
                raise ConfigError(
                    f"HM option {name}={getattr(self, name)!r} is invalid: it must be {allowed}"
                )


@dataclass
class Hypothesis:
    """One natural-language hypothesis about the partner, with its running value."""

    id: int
    """Position in generation order (0 first)."""
    text: str
    """The hypothesis as the model wrote it."""
    value: float
    """Current Rescorla-Wagner value."""
    created: int
    """Decision number at which it was generated."""
    predictions: int = 0
    """Predictions scored so far."""
    correct: int = 0
    """Predictions that were right."""

    def to_dict(self) -> JSONObject:
        """JSON-able form for records and reports."""
        return {
            "id": self.id,
            "text": self.text,
            "value": self.value,
            "created": self.created,
            "predictions": self.predictions,
            "correct": self.correct,
        }


class HypothesisBook:
    """All hypotheses of one agent about one partner, over one episode."""

    def __init__(self, params: HMParams | None = None) -> None:
        """Start empty with ``params`` (paper defaults when None)."""
        self.params = params or HMParams()
        self.hypotheses: list[Hypothesis] = []
        self.first_validation: int | None = None
        """Decision number at which a hypothesis was first validated (None: never)."""
        self.first_validated: int | None = None
        """The id of that hypothesis (None: never)."""

    def add(self, text: str, decision: int) -> Hypothesis:
        """Record a newly generated hypothesis at ``params.initial_value``."""
        hypothesis = Hypothesis(len(self.hypotheses), text, self.params.initial_value, decision)
        self.hypotheses.append(hypothesis)
        self._note_validation(decision)
        return hypothesis

    def get(self, hypothesis_id: int) -> Hypothesis:
        """The hypothesis with ``hypothesis_id``.

        Raises:
            ConfigError: no such hypothesis.
        """
        if not 0 <= hypothesis_id < len(self.hypotheses):
            raise ConfigError(
                f"no hypothesis {hypothesis_id}: ids run from 0 to {len(self.hypotheses) - 1}"
            )
        return self.hypotheses[hypothesis_id]

    def score(self, hypothesis_id: int, correct: bool, decision: int) -> float:
        """Reward a prediction of ``hypothesis_id`` (+c right, -c wrong); return its new value."""
        hypothesis = self.get(hypothesis_id)
        hypothesis.predictions += 1
        hypothesis.correct += int(correct)
        return self.reward(hypothesis_id, self.params.c if correct else -self.params.c, decision)

    def reward(self, hypothesis_id: int, reward: float, decision: int) -> float:
        """Move ``hypothesis_id``'s value towards ``reward`` (Rescorla-Wagner); return it."""
        hypothesis = self.get(hypothesis_id)
        hypothesis.value = rescorla_wagner(hypothesis.value, reward, self.params.alpha)
        self._note_validation(decision)
        return hypothesis.value

    def ranked(self) -> list[Hypothesis]:
        """Every hypothesis, highest value first (ties: the newer first)."""
        return sorted(self.hypotheses, key=lambda h: (-h.value, -h.id))

    def validated(self) -> Hypothesis | None:
        """The highest-valued hypothesis at or above the threshold, if any."""
        best = self.ranked()[:1]
        return best[0] if best and best[0].value >= self.params.threshold else None

    def for_refinement(self) -> list[Hypothesis]:
        """The top-k hypotheses with a positive value, shown to the generator to refine."""
        return [h for h in self.ranked() if h.value > 0][: self.params.top_k]

    def kept(self) -> list[Hypothesis]:
        """The hypotheses evaluated now: the validated one, else the newest and top-k earlier.

        The earlier ones are the best by value.
        """
        validated = self.validated()
        if validated is not None:
            return [validated]
        if not self.hypotheses:
            return []
        newest = self.hypotheses[-1]
        earlier = [h for h in self.ranked() if h is not newest]
        return [newest, *earlier[: self.params.top_k]]

    def predictors(self) -> list[Hypothesis]:
        """Hypotheses that predict the partner's next behaviour: the kept ones.

        So an update without a validated hypothesis makes the paper's 3 + top_k calls
        (generation, top_k + 1 predictions, the plan) once top_k earlier hypotheses exist, and
        one with a validated hypothesis 2 (its prediction, the plan).
        """
        return self.kept()

    def others(self, in_use: Hypothesis | None) -> list[Hypothesis]:
        """The kept hypotheses other than ``in_use`` (none while one is validated).

        HE + HR scores them by counterfactual judgement: top_k of them once top_k earlier
        hypotheses exist, the newest among them unless it is the one in use.
        """
        return [h for h in self.kept() if h is not in_use]

    def for_plan(self) -> Hypothesis | None:
        """The hypothesis that conditions the plan (and, in HE + HR, is scored by reward).

        The validated one, else the newest, or with ``in_use="best"`` the best-valued kept one
        (the newest among equals).
        """
        kept = self.kept()
        if not kept or self.validated() is not None or self.params.in_use == "newest":
            return kept[0] if kept else None
        return max(kept, key=lambda h: (h.value, h.id))

    def _note_validation(self, decision: int) -> None:
        validated = self.validated()
        if self.first_validation is None and validated is not None:
            self.first_validation = decision
            self.first_validated = validated.id
