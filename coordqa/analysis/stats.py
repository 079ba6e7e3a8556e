"""The statistics of coordqa, one home for both tracks.

- :class:`MeanSE` and :func:`format_mean_se`: a mean with its standard error (sample standard
  deviation, ddof=1, over sqrt(n)); NaN, never 0, when n < 2. QA accuracies are the mean over
  trials of per-trial accuracy ± this SE across trials (the paper's error bar); agentic scores
  the mean over episodes.
- :func:`clustered_accuracy_ci`: a question-level 95% confidence interval of that accuracy, by
  bootstrapping *questions* with all their trials together (a cluster bootstrap). The trial SE
  only sees how trials of the same questions disagree: it is 0 for a deterministic model and
  NaN for one trial, and says nothing about how much the number depends on which questions
  were asked. The question-level interval does.
- :func:`paired_difference`: two models on the same questions: the accuracy difference with a
  paired bootstrap interval and a sign-flip permutation p-value.
- :func:`mean_ci`: a 95% percentile bootstrap interval of a mean over independent units
  (agentic episodes), beside their mean ± SE.
- :func:`paired_ratio`: one mean over another on the same units (an agent's score over a
  reference's, episode by episode from the same seeds), with a paired bootstrap interval.
- :func:`correlate`: Pearson and Spearman correlations that keep their n and p-values; with
  at most :data:`EXACT_MAX_N` models the p-values are exact (:func:`exact_correlation_p`), since
  the t and normal approximations scipy uses are wrong at a handful of points (at n = 3 and
  rho = -1 scipy says p = 0; the exact p is 2/6).

Every resampling uses a fixed seed (:data:`SEED`), so the same runs give the same numbers.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from coordqa.jsonvalues import json_value

__all__ = [
    "CONFIDENCE",
    "EXACT_MAX_N",
    "EXACT_SIGN_FLIPS_UP_TO",
    "PAIRED_P_METHOD",
    "RESAMPLES",
    "SIGNIFICANCE",
    "SEED",
    "Correlation",
    "Interval",
    "MeanSE",
    "PairedDifference",
    "PairedRatio",
    "clustered_accuracy_ci",
    "correlate",
    "exact_correlation_p",
    "format_mean_se",
    "mean_ci",
    "mean_cell",
    "proportion_ci",
    "paired_difference",
    "paired_ratio",
]

CONFIDENCE = 0.95
"""Coverage of every confidence interval."""
RESAMPLES = 2000
"""Bootstrap resamples per interval (and 5x as many sign flips per permutation test)."""
SEED = 0
"""Seed of every resampling: the same data always gives the same interval and p-value."""
EXACT_SIGN_FLIPS_UP_TO = 20
"""A paired p-value is exact (all 2^m sign patterns) when at most this many questions differ."""
PAIRED_P_METHOD = (
    f"sign-flip permutation test, exact when at most {EXACT_SIGN_FLIPS_UP_TO} questions differ "
    f"(else {5 * RESAMPLES:,} random flips, seed {SEED})"
)
"""How the paired p-value is computed, as tables say it."""
MIN_MODELS_FOR_CORRELATION = 3
"""Fewer paired values than this give NaN correlations (with a note), never a number."""
EXACT_MAX_N = 10
"""Up to this many paired values, correlation p-values enumerate all n! pairings (10! = 3.6
million: about half a second); above it they are scipy's asymptotic ones."""
SIGNIFICANCE = 0.05
"""The level the small-sample note speaks of: below 5 models no pairing is rare enough for it."""


ACCURACY_DIGITS = 3
"""Decimals of an accuracy wherever one is shown (CLI, reports, the viewer, the board): a
fraction of 1 (``0.205``), never a percentage, so the same run reads the same everywhere."""


def format_fraction(value: float, digits: int = ACCURACY_DIGITS, *, signed: bool = False) -> str:
    """An accuracy (or a difference of two) as a fraction: ``0.205``, ``+0.012`` when signed.

    A signed rounded zero is never ``-0.000``.

    >>> format_fraction(0.2534), format_fraction(-0.0123, signed=True)
    ('0.253', '-0.012')
    >>> format_fraction(-1e-9, signed=True)
    '+0.000'
    """
    if signed:
        return f"{round(value, digits) + 0.0:+.{digits}f}"
    return f"{value:.{digits}f}"


def format_mean_se(mean: float, se: float, digits: int = ACCURACY_DIGITS) -> str:
    """``0.512 ± 0.034``; NaN is spelled out (a missing SE is never shown as 0).

    ``digits`` decimals for both numbers: 3 for accuracies, 2 for game scores.

    >>> format_mean_se(0.5, float("nan"))
    '0.500 ± NaN'
    >>> format_mean_se(12.25, 1.5, digits=2)
    '12.25 ± 1.50'
    """
    if math.isnan(mean):
        return "NaN"
    spread = "NaN" if math.isnan(se) else format_fraction(se, digits)
    return f"{format_fraction(mean, digits)} ± {spread}"


@dataclass(frozen=True)
class MeanSE:
    """A mean with its standard error over ``n`` values (SE is NaN when n < 2)."""

    mean: float
    """Sample mean (NaN for no values: no data is not zero)."""
    se: float
    """Standard error of the mean: sample sd (ddof=1) / sqrt(n); NaN with fewer than 2 values."""
    n: int
    """Number of values."""

    @classmethod
    def of(cls, values: Sequence[float]) -> MeanSE:
        """Summarise ``values``; NaN values are left out (and not counted in ``n``)."""
        kept = [float(v) for v in values if not math.isnan(float(v))]
        if not kept:
            return cls(math.nan, math.nan, 0)
        se = statistics.stdev(kept) / math.sqrt(len(kept)) if len(kept) > 1 else math.nan
        return cls(statistics.fmean(kept), se, len(kept))

    def to_json(self) -> dict[str, float | int | None]:
        """``{"mean", "se", "n"}`` with NaN as None (JSON has no NaN), for stored summaries.

        >>> MeanSE.of([1.0]).to_json()
        {'mean': 1.0, 'se': None, 'n': 1}
        """
        return {"mean": json_value(self.mean), "se": json_value(self.se), "n": self.n}

    def format(self, digits: int = 3) -> str:
        """:func:`format_mean_se` of this value."""
        return format_mean_se(self.mean, self.se, digits)

    def __str__(self) -> str:
        """``"0.75 ± 0.10 (n=20)"`` (2 decimals, as game scores are shown)."""
        return f"{self.format(2)} (n={self.n})"


@dataclass(frozen=True)
class Interval:
    """A confidence interval; both ends NaN when there is too little data to resample."""

    low: float
    """Lower end."""
    high: float
    """Upper end."""

    @property
    def known(self) -> bool:
        """Whether the interval could be computed."""
        return not (math.isnan(self.low) or math.isnan(self.high))

    def format(self, digits: int = 3) -> str:
        """``[0.331, 0.478]``, or ``NaN``.

        >>> Interval(0.25, 0.5).format()
        '[0.250, 0.500]'
        """
        return f"[{self.low:.{digits}f}, {self.high:.{digits}f}]" if self.known else "NaN"

    def __contains__(self, value: float) -> bool:
        """Whether ``value`` lies within the interval (ends included)."""
        return self.known and self.low <= value <= self.high


NAN_INTERVAL = Interval(math.nan, math.nan)


@functools.lru_cache(maxsize=64)
def _resampling(n: int) -> tuple[np.ndarray, Mapping[str, Any]]:
    """The weights of :data:`RESAMPLES` bootstrap resamples of ``n`` units, and the rng after.

    Row r counts how often each unit is drawn in resample r: ``rng.multinomial(n, [1/n] * n)``
    with a fresh generator seeded :data:`SEED`. Drawing them is most of a bootstrap's cost
    (about 10 ms at n = 66), and every bootstrap of n units draws the same ones, so they are
    drawn once per n; the generator's state after the draw lets a caller go on drawing as if
    it had drawn them itself. The array is read-only.
    """
    rng = np.random.default_rng(SEED)
    weights = rng.multinomial(n, np.full(n, 1 / n), size=RESAMPLES)
    weights.flags.writeable = False
    return weights, rng.bit_generator.state


def _resample_weights(n: int) -> np.ndarray:
    """The bootstrap weights of ``n`` units (see :func:`_resampling`)."""
    return _resampling(n)[0]


def _generator_after_resampling(n: int) -> np.random.Generator:
    """A generator where one seeded :data:`SEED` stands after drawing ``n`` units' weights."""
    rng = np.random.default_rng(SEED)
    rng.bit_generator.state = _resampling(n)[1]
    return rng


def _accuracy_over_trials(hits: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """Mean over trials (last axis) of per-trial accuracy; trials with nothing scored skipped."""
    with np.errstate(invalid="ignore", divide="ignore"):
        per_trial = np.where(scored > 0, hits / np.where(scored > 0, scored, 1), np.nan)
    counted = (scored > 0).sum(axis=-1)
    total = np.nansum(per_trial, axis=-1)
    return np.where(counted > 0, total / np.maximum(counted, 1), np.nan)


def _percentile_interval(values: np.ndarray) -> Interval:
    values = values[~np.isnan(values)]
    if values.size == 0:
        return NAN_INTERVAL
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(float(low), float(high))


def clustered_accuracy_ci(correct: np.ndarray) -> Interval:
    """95% percentile bootstrap interval of an accuracy, resampling questions with their trials.

    Args:
        correct: one row per question, one column per trial: 1.0 right, 0.0 wrong, NaN for a
            sample that does not count (an error, or a trial the question lacks).

    The statistic is the one reported as accuracy: the mean over trials of per-trial accuracy.
    Each of :data:`RESAMPLES` resamples draws as many questions as there are, with replacement,
    and keeps each drawn question's trials together. Fewer than two questions give NaN: there
    is no spread between questions to resample.
    """
    matrix = np.asarray(correct, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] < 2:
        return NAN_INTERVAL
    questions = matrix.shape[0]
    scored = (~np.isnan(matrix)).astype(float)
    hits = np.nan_to_num(matrix, nan=0.0)
    weights = _resample_weights(questions)
    return _percentile_interval(_accuracy_over_trials(weights @ hits, weights @ scored))


@dataclass(frozen=True)
class PairedDifference:
    """Model A minus model B over the questions both answered."""

    n_questions: int
    """Questions with at least one scored trial in both runs."""
    difference: float
    """Mean over those questions of (A's per-question accuracy - B's); NaN with none."""
    interval: Interval
    """95% paired bootstrap interval of the difference (questions resampled, pairs kept)."""
    p_value: float
    """Two-sided sign-flip permutation p-value of "no difference" (NaN with < 2 questions)."""
    p_exact: bool = False
    """Whether :attr:`p_value` is exact (every sign pattern enumerated: at most
    :data:`EXACT_SIGN_FLIPS_UP_TO` questions differ) rather than sampled."""

    @property
    def significant(self) -> bool:
        """Whether the interval excludes 0 (at :data:`CONFIDENCE`)."""
        return self.interval.known and not (self.interval.low <= 0 <= self.interval.high)


def paired_difference(a: Sequence[float], b: Sequence[float]) -> PairedDifference:
    """Compare two models question by question.

    Args:
        a: per-question accuracy of model A (the mean over its scored trials; NaN when none
            was scored), in the same question order as ``b``.
        b: the same for model B.

    The interval resamples questions (:data:`RESAMPLES`, fixed seed) and keeps each question's
    pair together. The p-value flips the signs of the questions' differences (under "no
    difference" A and B are exchangeable within a question) and counts the sign patterns whose
    mean is at least as far from 0 as the observed one: every pattern of the questions that
    differ when there are at most :data:`EXACT_SIGN_FLIPS_UP_TO` (exact; a question without a
    difference flips to itself), else 5 x :data:`RESAMPLES` random ones, ``(1 + k) / (1 +
    flips)``.
    """
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if first.shape != second.shape:
        raise ValueError(
            f"a and b need one value per question each, got {first.shape} and {second.shape}"
        )
    keep = ~(np.isnan(first) | np.isnan(second))
    diffs = first[keep] - second[keep]
    n = int(diffs.size)
    if n == 0:
        return PairedDifference(0, math.nan, NAN_INTERVAL, math.nan)
    observed = float(diffs.mean())
    if n < 2:
        return PairedDifference(n, observed, NAN_INTERVAL, math.nan)
    interval = _percentile_interval(_resample_weights(n) @ diffs / n)
    differing = diffs[diffs != 0]
    if differing.size <= EXACT_SIGN_FLIPS_UP_TO:
        return PairedDifference(n, observed, interval, _exact_sign_flip_p(differing), True)
    flips = 5 * RESAMPLES
    rng = _generator_after_resampling(n)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(flips, n))
    null = np.abs(signs @ diffs / n)
    extreme = int(np.count_nonzero(null >= abs(observed) - 1e-12))
    return PairedDifference(n, observed, interval, (1 + extreme) / (1 + flips))


def _exact_sign_flip_p(differences: np.ndarray) -> float:
    """The share of the 2^m sign patterns of ``differences`` whose |sum| reaches the observed.

    Meet in the middle: the 2^(m/2) signed sums of each half, and for each sum of one half the
    sums of the other that take the total to +-observed or beyond (a sorted search), so 20
    differences cost 2 x 1,024 sums instead of 1,048,576 patterns.
    """
    observed = abs(float(differences.sum())) - 1e-9
    if observed <= 0:
        return 1.0  # no difference at all: every pattern is as extreme
    half = differences.size // 2
    left = _signed_sums(differences[:half])
    right = np.sort(_signed_sums(differences[half:]))
    high = right.size - np.searchsorted(right, observed - left, side="left")
    low = np.searchsorted(right, -observed - left, side="right")
    return float((high + low).sum()) / (left.size * right.size)


def _signed_sums(values: np.ndarray) -> np.ndarray:
    """The sums of ``values`` under each of their 2^k sign patterns."""
    sums = np.zeros(1)
    for value in values:
        sums = np.concatenate([sums + value, sums - value])
    return sums


def _resampled_means(values: np.ndarray) -> np.ndarray:
    """The means of :data:`RESAMPLES` bootstrap resamples of the rows of ``values``."""
    n = values.shape[0]
    means: np.ndarray = _resample_weights(n) @ values / n
    return means


def mean_cell(values: Sequence[float], distinct: int, digits: int = 2) -> str:
    """One table cell of a mean score over episodes: ``mean ± SE [95% CI] n=N``.

    The agentic report's tables and ``coordqa play``'s write a score this one way. ``distinct``
    is how many different episodes the values come from: when it is 1 (a deterministic game
    replayed), the cell says ``mean (1 distinct episode, n=N)``, since an SE of 0 over copies
    says nothing about uncertainty. One value: ``mean (n=1)`` (no SE of NaN); none: '' (blank).

    >>> mean_cell([3.0, 3.0], distinct=1)
    '3.00 (1 distinct episode, n=2)'
    >>> mean_cell([19.0], distinct=1)
    '19.00 (n=1)'
    """
    stat = MeanSE.of(values)
    if stat.n == 0:
        return ""
    mean = f"{stat.mean:.{digits}f}"
    if stat.n == 1:
        return f"{mean} (n=1)"
    if distinct == 1:
        return f"{mean} (1 distinct episode, n={stat.n})"
    return f"{stat.format(digits=digits)} {mean_ci(values).format(digits)} n={stat.n}"


def mean_ci(values: Sequence[float]) -> Interval:
    """95% percentile bootstrap interval of the mean of independent values (NaN left out).

    Resamples the values (:data:`RESAMPLES` times, fixed seed, values in sorted order so the
    interval depends on the values alone, not on their order); fewer than two give NaN.
    Values that are all equal give a zero-width interval: resampling cannot show a spread the
    data does not have (say so where it matters, e.g. a deterministic game replayed).

    >>> mean_ci([1.0, 1.0, 1.0])
    Interval(low=1.0, high=1.0)
    >>> mean_ci([2.0]).known
    False
    """
    kept = np.sort([float(v) for v in values if not math.isnan(float(v))])
    if kept.size < 2:
        return NAN_INTERVAL
    return _percentile_interval(_resampled_means(kept))


def proportion_ci(successes: int, n: int) -> Interval:
    """95% Wilson score interval of a proportion of ``successes`` in ``n`` (NaN when n is 0).

    For rates of 0/1 outcomes (escaped, captured): a bootstrap of 0 of 5 resamples only zeros
    and gives [0, 0], as if five episodes proved the rate is 0; Wilson's interval is [0, 0.43].

    >>> proportion_ci(0, 5).format(2)
    '[0.00, 0.43]'
    """
    if n == 0:
        return NAN_INTERVAL
    from scipy.stats import binomtest

    low, high = binomtest(successes, n).proportion_ci(CONFIDENCE, method="wilson")
    return Interval(float(low), float(high))


@dataclass(frozen=True)
class PairedRatio:
    """One mean over another, over the same units (pairs)."""

    n: int
    """Pairs with both values."""
    ratio: float
    """mean(a) / mean(b) over those pairs; NaN with none, or when mean(b) is 0."""
    interval: Interval
    """95% paired bootstrap interval of the ratio (pairs resampled together), over the
    resamples where it is defined; NaN with fewer than two pairs."""
    undefined: int = 0
    """Resamples left out of the interval because their mean(b) was 0 (a reference that
    sometimes scores nothing: the resample drew only those pairs)."""

    def format(self, digits: int = 2) -> str:
        """``0.98 [0.95, 1.00] (n=30)``; ``NaN (n=30)`` when undefined.

        >>> PairedRatio(30, 0.98, Interval(0.95, 1.0)).format()
        '0.98 [0.95, 1.00] (n=30)'
        """
        if math.isnan(self.ratio):
            return f"NaN (n={self.n})"
        return f"{self.ratio:.{digits}f} {self.interval.format(digits)} (n={self.n})"


def paired_ratio(a: Sequence[float], b: Sequence[float]) -> PairedRatio:
    """``mean(a) / mean(b)`` over pairs ``(a[i], b[i])``, with a paired bootstrap interval.

    Pairs with a NaN are left out. The interval resamples pairs (:data:`RESAMPLES`, fixed seed)
    and takes the ratio of the resampled means, so each unit's two values stay together (the
    same seed played by an agent and by a reference). Resamples whose mean(b) is 0 have no
    ratio: they are left out and counted (:attr:`PairedRatio.undefined`).

    >>> paired_ratio([2.0, 4.0], [1.0, 2.0]).ratio
    2.0
    """
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if first.shape != second.shape:
        raise ValueError(
            f"a and b need one value per pair each, got {first.shape} and {second.shape}"
        )
    keep = ~(np.isnan(first) | np.isnan(second))
    pairs = np.stack([first[keep], second[keep]], axis=1)
    n = int(pairs.shape[0])
    if n == 0 or pairs[:, 1].mean() == 0:
        return PairedRatio(n, math.nan, NAN_INTERVAL)
    ratio = float(pairs[:, 0].mean() / pairs[:, 1].mean())
    if n < 2:
        return PairedRatio(n, ratio, NAN_INTERVAL)
    means = _resampled_means(pairs)
    defined = means[:, 1] != 0
    interval = _percentile_interval(means[defined, 0] / means[defined, 1])
    return PairedRatio(n, ratio, interval, int(RESAMPLES - defined.sum()))


@dataclass(frozen=True)
class Correlation:
    """Pearson and Spearman correlation of two accuracies across models."""

    x: str
    """First variable (e.g. ``EC``)."""
    y: str
    """Second variable (``JP``)."""
    n: int
    """Models with both values."""
    pearson_r: float
    """Pearson r (NaN when undefined)."""
    pearson_p: float
    """Two-sided p-value of r."""
    spearman_rho: float
    """Spearman rho (NaN when undefined)."""
    spearman_p: float
    """Two-sided p-value of rho."""
    note: str = ""
    """Why a value is NaN, or why the p-values cannot be small (fewer than 5 models)."""
    p_method: str = ""
    """How the p-values were computed: ``exact`` (every pairing enumerated, n <=
    :data:`EXACT_MAX_N`), ``asymptotic`` (scipy's t / normal approximation) or empty (none)."""


@functools.cache
def _pairings(n: int) -> np.ndarray:
    """All n! orderings of ``range(n)``, one per row (int8), built by inserting each element."""
    orders = np.zeros((1, 0), dtype=np.int8)
    for k in range(n):
        rows = orders.shape[0]
        grown = np.empty((rows * (k + 1), k + 1), dtype=np.int8)
        for position in range(k + 1):
            block = grown[position * rows : (position + 1) * rows]
            block[:, :position] = orders[:, :position]
            block[:, position] = k
            block[:, position + 1 :] = orders[:, position:]
        orders = grown
    return orders


def exact_correlation_p(x: Sequence[float], y: Sequence[float]) -> float:
    """Exact two-sided permutation p-value of the Pearson correlation of ``x`` and ``y``.

    Under "no association" every pairing of the ``y`` values with the ``x`` values is equally
    likely, so the p-value is the share of the n! pairings whose correlation is at least as far
    from 0 as the observed one (the observed pairing included). Pass ranks for Spearman's rho.
    Needs 2 <= n <= :data:`EXACT_MAX_N` paired values, neither variable constant.

    >>> round(exact_correlation_p([1, 2, 3], [3, 2, 1]), 4)  # rho = -1 with 3 models: 2 of 6
    0.3333
    """
    xs = tuple(float(v) for v in x)
    ys = tuple(float(v) for v in y)
    if len(ys) != len(xs) or not 2 <= len(xs) <= EXACT_MAX_N:
        raise ValueError(
            f"exact_correlation_p needs 2 to {EXACT_MAX_N} paired values, got {len(xs)} and "
            f"{len(ys)}"
        )
    return _exact_p(xs, ys)


@functools.lru_cache(maxsize=256)
def _exact_p(x: tuple[float, ...], y: tuple[float, ...]) -> float:
    """:func:`exact_correlation_p`, remembered: a leaderboard page asks the same on every view."""
    xs, ys = np.asarray(x), np.asarray(y)
    n = xs.size
    xc, yc = xs - xs.mean(), ys - ys.mean()
    # r is the centred dot product over norms that no pairing changes, so compare dot products.
    observed = abs(float(xc @ yc))
    tolerance = 1e-9 * float(np.linalg.norm(xc) * np.linalg.norm(yc))
    orders = _pairings(n)
    extreme = 0
    chunk = 1 << 18
    for start in range(0, orders.shape[0], chunk):
        dots = yc[orders[start : start + chunk]] @ xc
        extreme += int(np.count_nonzero(np.abs(dots) >= observed - tolerance))
    return extreme / orders.shape[0]


def _small_sample_note(n: int) -> str:
    """Which of the correlations of ``n`` models cannot be significant, or nothing.

    The observed pairing is one of the n! an exact p counts, so p is at least 1/n!; Spearman's
    ρ is also reached by the reversed ranking's -ρ, so its p is at least 2/n! (walkthrough 26:
    the note said 2/n! for both, beside a Pearson p of 1/6 with 3 models).

    >>> print(_small_sample_note(4))  # doctest: +NORMALIZE_WHITESPACE
    with 4 models Spearman's ρ cannot be significant at 0.05: its smallest possible p is 0.083
    (2 of 24 pairings); Pearson's r can (1 of 24 is 0.042)
    """
    pairings = math.factorial(n)
    if 2 / pairings <= SIGNIFICANCE:
        return ""
    if 1 / pairings <= SIGNIFICANCE:
        return (
            f"with {n} models Spearman's ρ cannot be significant at {SIGNIFICANCE}: its smallest "
            f"possible p is {2 / pairings:.3f} (2 of {pairings} pairings); Pearson's r can (1 of "
            f"{pairings} is {1 / pairings:.3f})"
        )
    return (
        f"with {n} models no correlation can be significant at {SIGNIFICANCE}: the smallest "
        f"possible p is {1 / pairings:.3f} for Pearson's r (1 of {pairings} pairings) and "
        f"{2 / pairings:.3f} for Spearman's ρ (2 of {pairings})"
    )


def correlation_shortfall(correlations: Sequence[Correlation]) -> str | None:
    """Why no correlation across models is shown, when too few models give any; else None.

    With fewer than :data:`MIN_MODELS_FOR_CORRELATION` models every coefficient is NaN, and a
    table of ``nan (NaN)`` reads like a failure: the report prints this sentence instead.

    >>> short = Correlation("EC", "JP", 2, *[float("nan")] * 4, "")
    >>> print(correlation_shortfall([short]))  # doctest: +NORMALIZE_WHITESPACE
    Correlations across models (EC vs JP) need at least 3 models with both values; these runs
    give 2: not computed.
    """
    if not correlations or any(c.n >= MIN_MODELS_FOR_CORRELATION for c in correlations):
        return None
    pairs = ", ".join(f"{c.x} vs {c.y}" for c in correlations)
    have = " or ".join(str(n) for n in sorted({c.n for c in correlations}))
    return (
        f"Correlations across models ({pairs}) need at least {MIN_MODELS_FOR_CORRELATION} "
        f"models with both values; these runs give {have}: not computed."
    )


def correlate(x: Sequence[float], y: Sequence[float], names: tuple[str, str]) -> Correlation:
    """Correlate paired values (NaN pairs dropped); needs 3 pairs and non-constant inputs.

    p-values are exact (:func:`exact_correlation_p`; Spearman's on the ranks, ties averaged)
    up to :data:`EXACT_MAX_N` pairs and scipy's asymptotic ones above; fewer than 5 pairs add a
    note saying which p-values cannot reach :data:`SIGNIFICANCE`.
    """
    from scipy import stats

    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    keep = ~(np.isnan(xs) | np.isnan(ys))
    xs, ys = xs[keep], ys[keep]
    n = int(len(xs))
    nan = float("nan")
    if n < MIN_MODELS_FOR_CORRELATION:
        note = f"needs at least {MIN_MODELS_FOR_CORRELATION} models with both values, got {n}"
        return Correlation(names[0], names[1], n, nan, nan, nan, nan, note)
    if np.ptp(xs) == 0 or np.ptp(ys) == 0:
        note = "one variable is constant across models; correlation is undefined"
        return Correlation(names[0], names[1], n, nan, nan, nan, nan, note)
    pearson = stats.pearsonr(xs, ys)
    spearman = stats.spearmanr(xs, ys)
    if n <= EXACT_MAX_N:
        x_ranks, y_ranks = stats.rankdata(xs), stats.rankdata(ys)
        pearson_p, spearman_p = exact_correlation_p(xs, ys), exact_correlation_p(x_ranks, y_ranks)
        method = "exact"
    else:
        pearson_p, spearman_p = float(pearson.pvalue), float(spearman.pvalue)
        method = "asymptotic"
    return Correlation(
        names[0],
        names[1],
        n,
        float(pearson.statistic),
        pearson_p,
        float(spearman.statistic),
        spearman_p,
        _small_sample_note(n),
        method,
    )
