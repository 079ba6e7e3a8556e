"""Comparing QA runs: the model table, paired tests, correlations and JP failures of a report.

:func:`compare_runs` reads every run through :func:`coordqa.store.read_qa_run` and refuses to
compare runs over different question sets (a ``--limit 5`` run with a full one, the example
dataset with v1) unless ``allow_mixed`` is given, in which case the report says so and paired
tests use only the questions both runs answered with the same text and answer key (two releases
can give one id to different questions). :func:`write_report` writes the tables (CSV
and parquet), the figures and ``report.md``.

:func:`compare_by_dataset` is what ``coordqa report`` calls: one :func:`compare_runs` per
dataset of the runs given (:mod:`coordqa.analysis.groups`), so an eval set of several models on
several datasets gives one report per dataset, with ``reference`` resolved within each;
:func:`write_reports` writes them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from coordqa.analysis.accuracy import (
    ERROR_POLICY,
    INCOMPLETE_NOTE,
    RunAnalysis,
    analyze_run,
    format_accuracy,
    format_interval,
    trials_note,
)
from coordqa.analysis.groups import (
    NOT_COMPARABLE,
    DatasetGroup,
    describe_filters,
    group_by_dataset,
    merge_groups,
    pick_dataset,
)
from coordqa.analysis.labels import run_labels
from coordqa.analysis.stats import (
    EXACT_MAX_N,
    PAIRED_P_METHOD,
    Correlation,
    correlate,
    correlation_shortfall,
    format_fraction,
    paired_difference,
)
from coordqa.analysis.tables import (
    jp_failures,
    question_accuracy,
    samples_frame,
    summarize_failures,
)
from coordqa.errors import ConfigError, StoreError
from coordqa.jsonvalues import JSONObject
from coordqa.llm.registry import spelled_model
from coordqa.outputs import QA_REPORT, generated_output, in_output
from coordqa.records import QUESTION_TYPES, STATUSES
from coordqa.registry import did_you_mean
from coordqa.store import QARun, RunStore, read_qa_run
from coordqa.words import counted, format_list

__all__ = [
    "SCOPES",
    "DatasetReport",
    "ModelReport",
    "accuracy_summary",
    "check_question_sets",
    "question_set_row",
    "compare_by_dataset",
    "compare_runs",
    "markdown_table",
    "write_report",
    "write_reports",
]

SCOPES = (*QUESTION_TYPES, "overall")
"""What each model is compared on: every question type, then all questions."""


@dataclass
class ModelReport:
    """The comparison of several runs (one point per run, labelled by model)."""

    models: pd.DataFrame
    """One row per run: its dataset and question set, accuracy with trial SE and question-level
    CI per type and overall, baselines, outcome counts, completeness."""
    comparisons: pd.DataFrame
    """One row per pair of runs and scope: A - B with its paired 95% CI and p-value."""
    correlations: list[Correlation]
    """EC vs JP and ToM vs JP across runs."""
    failures: pd.DataFrame
    """One row per run and failure category, summed over scenarios and trials."""
    failures_by_scenario: pd.DataFrame
    """One row per run, scenario and trial: how JP went."""
    mixed: bool = False
    """Whether the runs answered different question sets (allowed with ``allow_mixed``)."""
    warnings: list[str] = field(default_factory=list)
    """Problems met while reading the runs, each prefixed with its run's label."""

    def correlation_table(self) -> pd.DataFrame:
        """Correlations as a table (n and both p-values kept)."""
        return pd.DataFrame([asdict(c) for c in self.correlations])


def _model_row(label: str, reader: QARun, analysis: RunAnalysis) -> JSONObject:
    overall = analysis.overall[0]
    dataset = reader.manifest.dataset
    row: dict[str, Any] = {
        "model": label,
        "run": str(analysis.run_dir),
        "dataset": dataset.name if dataset else "?",
        "fingerprint": dataset.fingerprint[:8] if dataset else "?",
        "question_set": reader.question_set()[:8],
        "filters": describe_filters(reader.manifest.config),
        "complete": analysis.complete,
        "status": analysis.status_note or "complete",
    }
    by_type = {row["question_type"]: row for row in analysis.by_type}
    for scope in SCOPES:
        source = overall if scope == "overall" else by_type.get(scope)
        for column, name in (("accuracy", ""), ("se", "_se"), ("ci_low", "_ci_low")):
            row[f"{scope}{name}"] = math.nan if source is None else float(source[column])
        row[f"{scope}_ci_high"] = math.nan if source is None else float(source["ci_high"])
    row["n_trials"] = int(overall["n_trials"])
    row["n_questions"] = len(reader.questions())  # the run's questions, scored or not
    row["random_baseline"] = float(overall["random_baseline"])
    for status in STATUSES[1:]:
        row[status] = int(overall[status])
    row["missing"] = analysis.missing
    return row


def _check_sizes(sizes: Mapping[str, float], labels: Sequence[str], models: Sequence[str]) -> None:
    unknown = sorted(set(sizes) - set(labels) - set(models))
    if unknown:
        other_labels = sorted(set(labels) - set(models))
        also = f" (or their labels {', '.join(other_labels)})" if other_labels else ""
        close = _suggestions(unknown, [*labels, *models])
        raise ConfigError(
            f"--sizes names {', '.join(unknown)}, which match no run.{close} The runs' models "
            f"are {', '.join(sorted(set(models)))}{also}"
        )


def _suggestions(unknown: Sequence[str], candidates: Sequence[str]) -> str:
    """The closest names to each of ``unknown``, each headed by its name where there are several.

    Walkthrough 23: ``--sizes random-a=1e9,rnd=2`` ran two suggestions together, unattributed.

    >>> _suggestions(["randm"], ["random"])
    " Did you mean 'random'?"
    >>> _suggestions(["rndom", "gtp-4o"], ["random", "gpt-4o"])
    " For 'gtp-4o': did you mean 'gpt-4o'? For 'rndom': did you mean 'random'?"
    """
    if len(unknown) == 1:
        return did_you_mean(unknown[0], candidates)
    return "".join(
        f" For {name!r}:{close.replace(' Did', ' did', 1)}"
        for name in sorted(unknown)
        if (close := did_you_mean(name, candidates))
    )


def _size_column(
    sizes: Mapping[str, float], labels: Sequence[str], models: Sequence[str]
) -> list[float]:
    """Each run's parameter count: by its label, else by its model name (NaN where none is given).

    Raises:
        ConfigError: ``sizes`` names a label or model no run has (a typo would otherwise leave
            a NaN where the user gave a number).
    """
    _check_sizes(sizes, labels, models)
    return [sizes.get(lbl, sizes.get(m, math.nan)) for lbl, m in zip(labels, models, strict=True)]


def _as_named(name: str, labels: Sequence[str]) -> str:
    """A ``--reference`` or ``--sizes`` name as runs record it: a label as given, else a model.

    A built-in model is named in any case (``Random``: the runs of ``random``,
    :func:`~coordqa.llm.registry.spelled_model`); a label is the user's own text, matched as
    written, and wins (a run labelled ``Random`` is that run).
    """
    return name if name in labels else spelled_model(name)


def _reference_label(reference: str, labels: Sequence[str], analyses: Sequence[RunAnalysis]) -> str:
    """The label of the one run that ``reference`` names (a label, or a model with one run)."""
    return labels[_named_run(reference, labels, [a.model for a in analyses])]


def _named_run(
    reference: str,
    labels: Sequence[str],
    models: Sequence[str],
    *,
    where: str = "",
    datasets: int = 1,
) -> int:
    """The index of the one run ``reference`` names: a run's label, or a model with one run.

    ``where`` (`` of coordinationqa-v1.2``) and ``datasets`` say which dataset's runs these are
    of how many reported. A refusal offers only names that would be taken: the labels, and
    models of one run (walkthrough 19 #37, #40: ``random`` was offered and then refused for
    naming two runs); ``--dataset`` only where several datasets are reported.

    Raises:
        ConfigError: ``reference`` names no run or several.
    """
    if reference in labels:
        return labels.index(reference)
    matches = [i for i, model in enumerate(models) if model == reference]
    if len(matches) == 1:
        return matches[0]
    pick = " (or pick the datasets it ran on with --dataset NAME)" if datasets > 1 else ""
    if matches:
        several = ", ".join(labels[i] for i in matches)
        raise ConfigError(
            f"--reference {reference!r} names several runs{where} ({several}); give one of "
            f"their labels{pick}"
        )
    taken = [*labels, *(model for model in set(models) if models.count(model) == 1)]
    raise ConfigError(
        f"--reference {reference!r} names no run{where}; its runs are {', '.join(labels)}."
        f"{did_you_mean(reference, sorted(set(taken)))} Give one of them{pick}"
    )


def _check_reference(
    reference: str, groups: Sequence[DatasetGroup], readers: Sequence[QARun]
) -> None:
    """Raise unless ``reference`` names exactly one run of every dataset group.

    Checked before any run is scored, so a typo costs no bootstrap.
    """
    for group in groups:
        runs = [readers[i] for i in group.members]
        labels = run_labels([(r.manifest, r.path) for r in runs])
        models = [str(r.manifest.config.get("model", "?")) for r in runs]
        _named_run(reference, labels, models, where=f" of {group.title}", datasets=len(groups))


NAMES_PER_QUESTION_SET = 2
"""How many of a question set's runs the refusal of mixed sets names (a folder holds dozens)."""


MIXED_ADVICE = {
    "report": "Report one question set of each dataset: give its runs' directories alone (the "
    "runs of a set share its filters), or run the models on the same dataset and filters, or "
    "pass --allow-mixed to compare them anyway (the report then says so, and paired tests use "
    "the questions both runs share).",
    "compare": "Compare two runs of one question set: run B on A's dataset with A's filters "
    "(or A on B's), or pass --allow-mixed to compare them anyway (compare then says so, and "
    "pairs only the questions both runs asked with the same text and answer key).",
}
"""What to do about runs of different question sets, in the words of the command refusing them:
``report`` takes any number of runs and folders, ``compare`` exactly two runs (walkthrough 15
R8: compare gave report's advice, set directories and "the report then says so")."""


def question_set_row(reader: QARun) -> JSONObject:
    """What tells the question set of a run, for the refusal of mixed sets.

    Its directory, its dataset (name and fingerprint), the filters that chose its questions,
    their count and key.
    """
    dataset = reader.manifest.dataset
    return {
        "run": str(reader.path),
        "dataset": dataset.name if dataset else "?",
        "fingerprint": dataset.fingerprint[:8] if dataset else "?",
        "question_set": reader.question_set()[:8],
        "filters": describe_filters(reader.manifest.config),
        "n_questions": len(reader.questions()),
    }


def _mixed_sets(runs: pd.DataFrame, command: Literal["report", "compare"]) -> ConfigError:
    """The refusal of ``runs`` (rows of :func:`question_set_row`) over different question sets.

    Each dataset is said once, then each of its question sets with how many runs answered it
    and the directories of a few (what the advice asks to give: walkthrough 22 R4 named them by
    labels such as ``random (limit=none)``, and said one dataset of two that clashed), so a
    folder of 35 runs is a few lines, not 35; then ``command``'s advice (:data:`MIXED_ADVICE`).
    """
    lines = []
    for (name, fingerprint), of_dataset in runs.groupby(["dataset", "fingerprint"], sort=False):
        sets = of_dataset.groupby("question_set", sort=False)
        lines.append(f"  dataset {name} ({fingerprint}), {counted(sets.ngroups, 'question set')}:")
        lines += [
            f"    question set {key}: {counted(int(first.n_questions), 'question')}, filters "
            f"{first.filters}: {counted(len(members), 'run')} "
            f"({format_list(list(members.run), NAMES_PER_QUESTION_SET)})"
            for key, members in sets
            for first in [next(members.itertuples())]
        ]
    return ConfigError(f"{NOT_COMPARABLE}:\n" + "\n".join(lines) + f"\n{MIXED_ADVICE[command]}")


def check_question_sets(
    models: pd.DataFrame, allow_mixed: bool, command: Literal["report", "compare"] = "report"
) -> bool:
    """Whether the runs answered different question sets; raise unless that is allowed.

    ``models`` has one row per run with the columns of :func:`question_set_row`; the refusal
    is :func:`_mixed_sets`.
    """
    mixed = models["question_set"].nunique() > 1
    if mixed and not allow_mixed:
        raise _mixed_sets(models, command)
    return bool(mixed)


def _check_each_dataset(groups: Sequence[DatasetGroup], readers: Sequence[QARun]) -> None:
    """Raise, before any run is scored, if the runs of a dataset answered different sets.

    One refusal says every such dataset, each headed by its group's name (walkthrough 22 R4:
    the first dataset's refusal hid the others').

    Raises:
        ConfigError: the runs of one dataset or more answered different question sets.
    """
    clashing = []
    for group in groups:
        rows = pd.DataFrame(
            [{**question_set_row(readers[i]), "dataset": group.name} for i in group.members]
        )
        if rows["question_set"].nunique() > 1:
            clashing.append(rows)
    if clashing:
        raise _mixed_sets(pd.concat(clashing, ignore_index=True), "report")


def _pairs(labels: Sequence[str], reference: str | None) -> list[tuple[int, int]]:
    """The (A, B) run indices to compare: every pair, or each run (A) against the reference (B)."""
    if reference is None:
        return list(itertools.combinations(range(len(labels)), 2))
    base = labels.index(reference)
    return [(i, base) for i in range(len(labels)) if i != base]


def _comparisons(
    labels: Sequence[str],
    scores: Sequence[pd.DataFrame],
    contents: Sequence[Mapping[str, tuple[str, str]]],
    reference: str | None = None,
) -> pd.DataFrame:
    """Pairs of runs (:func:`_pairs`) on every scope: the paired difference of accuracies.

    ``contents`` holds each run's (question hash, answer-key hash) by question id: a question
    is paired only where both runs asked it with the same text and key, so runs of two releases
    (``--allow-mixed``) are not compared on an id whose question changed.
    """
    per_question = [
        {scope: question_accuracy(_scope(table, scope)) for scope in SCOPES} for table in scores
    ]
    rows = []
    for i, j in _pairs(labels, reference):
        a, b = labels[i], labels[j]
        same = same_questions(contents[i], contents[j])
        for scope in SCOPES:
            left, right = per_question[i][scope].align(per_question[j][scope], join="inner")
            left, right = left[left.index.isin(same)], right[right.index.isin(same)]
            result = paired_difference(left.to_numpy(), right.to_numpy())
            rows.append(
                {
                    "model_a": a,
                    "model_b": b,
                    "scope": scope,
                    "n_questions": result.n_questions,
                    "difference": result.difference,
                    "ci_low": result.interval.low,
                    "ci_high": result.interval.high,
                    "p_value": result.p_value,
                }
            )
    columns = ["model_a", "model_b", "scope", "n_questions", "difference", "ci_low", "ci_high"]
    return pd.DataFrame(rows, columns=[*columns, "p_value"])


def question_contents(run: QARun) -> dict[str, tuple[str, str]]:
    """Each question's (question hash, answer-key hash), by id: what pairs it with another's."""
    return {qid: (q.question_hash, q.target_hash) for qid, q in run.questions().items()}


def same_questions(
    first: Mapping[str, tuple[str, str]], second: Mapping[str, tuple[str, str]]
) -> list[str]:
    """The ids both runs asked with the same text and answer key (:func:`question_contents`).

    Paired tests compare only these: two releases can give one id to different questions.
    """
    return [qid for qid, content in first.items() if second.get(qid) == content]


def _scope(table: pd.DataFrame, scope: str) -> pd.DataFrame:
    return table if scope == "overall" else table[table["question_type"] == scope]


def compare_runs(
    runs: Sequence[QARun | RunStore | str | Path],
    sizes: Mapping[str, float] | None = None,
    *,
    allow_mixed: bool = False,
    reference: str | None = None,
) -> ModelReport:
    """Build the cross-model report of ``runs``.

    Args:
        runs: run directories or readers, one point per run in correlations.
        sizes: parameter counts per model name (or run label), added as a ``size`` column.
        allow_mixed: compare runs over different question sets (the report says so).
        reference: a model name or run label: paired tests compare every other run (A) with
            it (B), instead of every pair of runs (with 8 models, 7 tests per scope, not 28).

    Raises:
        ConfigError: the runs answered different question sets and ``allow_mixed`` is False,
            ``sizes`` names a model no run has, or ``reference`` names none or several.
        StoreError: a run is missing, damaged, or not a QA run.
    """
    if not runs:
        raise StoreError("no runs given; pass one or more run directories")
    readers = [read_qa_run(run) for run in runs]
    samples = [reader.samples() for reader in readers]
    scores = [samples_frame(s) for s in samples]
    analyses = [analyze_run(r, s) for r, s in zip(readers, samples, strict=True)]
    labels = run_labels([(reader.manifest, reader.path) for reader in readers])
    reference = None if reference is None else _as_named(reference, labels)
    sizes = {_as_named(name, labels): size for name, size in (sizes or {}).items()}
    models = pd.DataFrame(
        [_model_row(*item) for item in zip(labels, readers, analyses, strict=True)]
    )
    mixed = check_question_sets(models, allow_mixed)
    base = None if reference is None else _reference_label(reference, labels, analyses)
    if sizes:
        models["size"] = _size_column(sizes, labels, [a.model for a in analyses])
    correlations = [correlate(models[x], models["JP"], (x, "JP")) for x in ("EC", "ToM")]
    by_scenario = [jp_failures(t).assign(model=lbl) for lbl, t in zip(labels, scores, strict=True)]
    failures = pd.DataFrame(
        [
            {"model": lbl, **summarize_failures(f)}
            for lbl, f in zip(labels, by_scenario, strict=True)
        ]
    )
    warnings = [
        f"{label}: {warning}"
        for label, analysis in zip(labels, analyses, strict=True)
        for warning in analysis.warnings
    ]
    return ModelReport(
        models=models,
        comparisons=_comparisons(labels, scores, [question_contents(r) for r in readers], base),
        correlations=correlations,
        failures=failures,
        failures_by_scenario=pd.concat(by_scenario, ignore_index=True),
        mixed=mixed,
        warnings=warnings,
    )


@dataclass
class DatasetReport:
    """The report of the runs of one dataset (or of several, mixed with ``allow_mixed``)."""

    group: DatasetGroup
    """The dataset and which of the runs given answered it."""
    report: ModelReport
    """Its runs compared."""


def compare_by_dataset(
    runs: Sequence[QARun | RunStore | str | Path],
    sizes: Mapping[str, float] | None = None,
    *,
    dataset: str | None = None,
    allow_mixed: bool = False,
    reference: str | None = None,
) -> list[DatasetReport]:
    """:func:`compare_runs` on the runs of each dataset among ``runs``, datasets in order.

    Args:
        runs: run directories or readers (an eval set's members, a folder's runs).
        sizes: parameter counts per model name or run label (must match some run).
        dataset: report only this dataset (a name the runs recorded, an alias such as
            ``coordinationqa``, or a fingerprint's first characters).
        allow_mixed: one report over every dataset, and runs of different question sets
            within one (the report says so).
        reference: a model or run label, resolved within each dataset: every other run of the
            dataset is compared with that dataset's run of it.

    Raises:
        ConfigError: ``dataset`` matches no run; ``reference`` names no run or several of a
            dataset; runs of one dataset answered different question sets (a ``--limit``
            run beside a full one) without ``allow_mixed``; ``sizes`` names no run.
        StoreError: a run is missing, damaged, or not a QA run.
    """
    if not runs:
        raise StoreError("no runs given; pass one or more run directories")
    readers = [read_qa_run(run) for run in runs]
    groups = group_by_dataset([reader.manifest for reader in readers])
    if dataset is not None:
        groups = pick_dataset(groups, dataset)
    if allow_mixed:
        groups = [merge_groups(groups)]
    every_label = _group_labels(groups, readers)
    reference = None if reference is None else _as_named(reference, every_label)
    sizes = {_as_named(name, every_label): size for name, size in (sizes or {}).items()}
    if not allow_mixed:
        _check_each_dataset(groups, readers)
    if reference is not None:
        _check_reference(reference, groups, readers)
    if sizes:
        chosen = [readers[i] for group in groups for i in group.members]
        _check_sizes(
            sizes,
            [*run_labels([(r.manifest, r.path) for r in chosen]), *every_label],
            [str(r.manifest.config.get("model", "?")) for r in chosen],
        )
    return [
        DatasetReport(
            group,
            compare_runs(
                [readers[i] for i in group.members],
                _sizes_of(sizes or {}, [readers[i] for i in group.members]),
                allow_mixed=allow_mixed,
                reference=reference,
            ),
        )
        for group in groups
    ]


def _group_labels(groups: Sequence[DatasetGroup], readers: Sequence[QARun]) -> list[str]:
    """Every run's label within its dataset (what ``--sizes`` and ``--reference`` may name)."""
    return [
        label
        for group in groups
        for label in run_labels([(readers[i].manifest, readers[i].path) for i in group.members])
    ]


def _sizes_of(sizes: Mapping[str, float], runs: Sequence[QARun]) -> dict[str, float]:
    """The entries of ``sizes`` that name one of ``runs`` (by model or label)."""
    names = {str(r.manifest.config.get("model", "?")) for r in runs}
    names.update(run_labels([(r.manifest, r.path) for r in runs]))
    return {name: size for name, size in sizes.items() if name in names}


# -- written report --------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:  # nothing to show (a trial with no answer scored), not Python's "None"
        return "-"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "NaN" if math.isnan(value) else f"{value:.3f}"
    return str(value)


def markdown_table(table: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table, cells as people read them.

    Floats to 3 decimals, NaN spelled out, counts whole, booleans yes/no, an empty cell ``-``.
    """
    header = "| " + " | ".join(str(c) for c in table.columns) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in table.itertuples(False)]
    return "\n".join([header, rule, *body])


def format_count(value: float) -> str:
    """A parameter count for people: ``7B``, ``1.8T``, ``350M`` (never ``7e+09``).

    >>> format_count(7e9), format_count(1.8e12), format_count(125e6)
    ('7B', '1.8T', '125M')
    """
    if math.isnan(value):
        return "?"
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.0f}"


def accuracy_summary(models: pd.DataFrame) -> pd.DataFrame:
    """The model table as display strings: accuracy ± trial SE and question CI per scope."""
    shown = pd.DataFrame({"model": models["model"]})
    for scope in SCOPES:
        shown[f"{scope} ± SE"] = [
            format_accuracy(
                row[scope],
                row[f"{scope}_se"],
                complete=bool(row["complete"]),
                trials=int(row["n_trials"]),
            )
            for _, row in models.iterrows()
        ]
        shown[f"{scope} 95% CI"] = [
            format_interval(row[f"{scope}_ci_low"], row[f"{scope}_ci_high"])
            for _, row in models.iterrows()
        ]
    shown["random"] = models["random_baseline"]
    for column in ("n_trials", *STATUSES[1:], "missing"):
        shown[column] = models[column]
    if "size" in models:
        shown["size"] = [format_count(value) for value in models["size"]]
    return shown


NO_SHARED_QUESTION = (
    "no question is shared (none asked with the same text and answer key), so there is no "
    "paired comparison"
)
"""Said of a pair of runs with nothing to pair (``--allow-mixed`` across releases), in place of
a table of NaN."""


def _pair_names(comparisons: pd.DataFrame) -> list[str]:
    return [
        f"{a} vs {b}" for a, b in zip(comparisons["model_a"], comparisons["model_b"], strict=True)
    ]


def unshared_pairs(comparisons: pd.DataFrame) -> list[str]:
    """The pairs (``A vs B``) that share no question: :data:`NO_SHARED_QUESTION` is said of them.

    The comparisons table keeps their rows (``n_questions`` 0) for whoever reads the data.
    """
    overall = comparisons[comparisons["scope"] == "overall"]
    shared = zip(_pair_names(overall), overall["n_questions"], strict=True)
    return [name for name, n in shared if n == 0]


def comparison_summary(comparisons: pd.DataFrame) -> pd.DataFrame:
    """The paired comparisons as display strings, less the :func:`unshared_pairs`."""
    unshared = unshared_pairs(comparisons)
    comparisons = comparisons[[name not in unshared for name in _pair_names(comparisons)]]
    return pd.DataFrame(
        {
            "A vs B": _pair_names(comparisons),
            "scope": comparisons["scope"],
            "A - B": [format_difference(d) for d in comparisons["difference"]],
            "95% CI": [
                format_interval(lo, hi)
                for lo, hi in zip(comparisons["ci_low"], comparisons["ci_high"], strict=True)
            ],
            "p": [format_p(p) for p in comparisons["p_value"]],
            "questions": comparisons["n_questions"],
        }
    )


def format_difference(value: float) -> str:
    """A signed difference to 3 decimals (``+0.083``); a rounded zero is never ``-0.000``.

    >>> format_difference(-1e-9), format_difference(-0.05)
    ('+0.000', '-0.050')
    """
    return "NaN" if math.isnan(value) else format_fraction(value, signed=True)


def format_p(p: float) -> str:
    """A p-value to 3 decimals, ``<0.001`` below that, ``NaN`` when undefined.

    >>> format_p(0.04321), format_p(0.0001)
    ('0.043', '<0.001')
    """
    if math.isnan(p):
        return "NaN"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def format_coefficient(value: float, p: float) -> str:
    """A correlation and its p in one cell, ``0.500 (0.333)``; ``NaN`` once when undefined.

    An undefined coefficient has no p either: ``nan (NaN)`` spelled one missing value twice
    (walkthrough 20, R8). The row's note says why it is undefined.

    >>> format_coefficient(0.5, 1 / 3), format_coefficient(float("nan"), float("nan"))
    ('0.500 (0.333)', 'NaN')
    """
    return "NaN" if math.isnan(value) else f"{value:.3f} ({format_p(p)})"


STATISTICS_NOTE = (
    "Accuracy is the mean over trials of per-trial accuracy. `± SE` is the paper's trial SE: "
    "the standard error across trials (0 for a deterministic model, NaN with one trial; it "
    "ignores which questions were asked). `95% CI` is the question-level interval: a bootstrap "
    "over questions that keeps each question's trials together, so it says how much the number "
    "depends on the questions."
)
PAIRED_NOTE = (
    "A - B is the mean over shared questions of the difference in per-question accuracy, with a "
    f"paired bootstrap 95% CI over questions and a p-value of a {PAIRED_P_METHOD}."
)
CORRELATION_NOTE = (
    f"n is the number of models. With at most {EXACT_MAX_N} models the p-values are exact: the "
    "share of all n! pairings of the models' values whose correlation is at least as far from 0 "
    "as the observed one (`p_method` exact); above that, scipy's asymptotic p-values. With fewer "
    "than 5 models no p-value can fall below 0.05."
)
MIXED_NOTE = (
    "**Mixed question sets** (`--allow-mixed`): these runs answered different questions, so "
    "their accuracies are not directly comparable and the correlations mix question sets; "
    "paired tests use only the questions both runs answered with the same text and answer key."
)


def _paired_markdown(comparisons: pd.DataFrame) -> list[str]:
    """The paired comparisons' table, and a line for each pair that shares no question."""
    if not len(comparisons):
        return ["One run: nothing to compare."]
    summary = comparison_summary(comparisons)
    table = [markdown_table(summary), ""] if len(summary) else []
    return [*table, *[f"- {pair}: {NO_SHARED_QUESTION}." for pair in unshared_pairs(comparisons)]]


def _report_markdown(report: ModelReport, figures: list[Path]) -> str:
    runs = report.models[
        ["model", "dataset", "fingerprint", "n_questions", "filters", "question_set", "status"]
    ]
    incomplete = not report.models["complete"].all()
    noted = [
        f"{row.model}: {note}."
        for row in report.models.itertuples()
        if (note := trials_note(row.n_trials))
    ]
    lines = [
        "# CoordinationQA report",
        "",
        STATISTICS_NOTE + " " + ERROR_POLICY.capitalize() + ".",
        "",
        *([MIXED_NOTE, ""] if report.mixed else []),
        "## Runs",
        "",
        markdown_table(runs),
        "",
        *[f"- {row.model}: `{row.run}`" for row in report.models.itertuples()],
        "",
        "## Models",
        "",
        markdown_table(accuracy_summary(report.models)),
        "",
        *([INCOMPLETE_NOTE, ""] if incomplete else []),
        *([*noted, ""] if noted else []),
        "## Paired comparisons (same questions)",
        "",
        PAIRED_NOTE,
        "",
        *_paired_markdown(report.comparisons),
        "",
        "## Correlations across models (one point per model)",
        "",
        *_correlations_markdown(report),
        "",
        "## JP failures per scenario and trial",
        "",
        "`synthesis_failure`: JP wrong while EC and ToM of the same scenario and trial are right; "
        "`component_failure`: JP wrong with EC or ToM wrong; `incomplete`: a call of the three "
        "failed or is missing.",
        "",
        markdown_table(report.failures),
        "",
    ]
    if figures:
        lines += ["## Figures", "", *[f"![{p.stem}]({p.name})" for p in figures], ""]
    return "\n".join(lines)


def _correlations_markdown(report: ModelReport) -> list[str]:
    """The correlations section's body: the table, or why too few models give one."""
    shortfall = correlation_shortfall(report.correlations)
    if shortfall is not None:
        return [shortfall]
    return [CORRELATION_NOTE, "", markdown_table(report.correlation_table())]


def write_report(report: ModelReport, out: str | Path) -> list[Path]:
    """Write tables (CSV and parquet), PNG figures and ``report.md`` into ``out``.

    ``out`` is a generated output folder (:func:`~coordqa.outputs.generated_output`): missing,
    empty or holding an earlier report, which is removed first.

    Returns:
        The paths written.
    """
    with generated_output(out, QA_REPORT) as root:
        return in_output(_write_report_files(report, root), root, out)


def _write_report_files(report: ModelReport, root: Path) -> list[Path]:
    """Write one report's files into ``root`` (created if needed)."""
    from coordqa.analysis import figures as fig

    root.mkdir(parents=True, exist_ok=True)
    tables = {
        "models": report.models,
        "comparisons": report.comparisons,
        "correlations": report.correlation_table(),
        "jp_failures": report.failures,
        "jp_failures_by_scenario": report.failures_by_scenario,
    }
    written: list[Path] = []
    for name, table in tables.items():
        table.to_csv(root / f"{name}.csv", index=False)
        table.to_parquet(root / f"{name}.parquet", index=False)
        written += [root / f"{name}.csv", root / f"{name}.parquet"]
    images = [
        fig.plot_accuracy_by_type(report.models, root / "accuracy_by_type.png"),
        fig.plot_correlations(report.models, report.correlations, root / "correlations.png"),
    ]
    if "size" in report.models and report.models["size"].notna().any():
        images.append(fig.plot_accuracy_vs_size(report.models, root / "accuracy_vs_size.png"))
    markdown = root / "report.md"
    markdown.write_text(_report_markdown(report, images), encoding="utf-8")
    return [*written, *images, markdown]


def write_reports(reports: Sequence[DatasetReport], out: str | Path) -> list[Path]:
    """Write each dataset's report (:func:`write_report`).

    One report goes into ``out`` itself; several each into ``out/<dataset>/``, with a
    ``report.md`` in ``out`` linking them. ``out`` is checked and emptied of an earlier report
    as :func:`write_report` says.

    Returns:
        The paths written.
    """
    with generated_output(out, QA_REPORT) as root:
        if len(reports) == 1:
            return in_output(_write_report_files(reports[0].report, root), root, out)
        return in_output(_write_report_index(reports, root), root, out)


def _write_report_index(reports: Sequence[DatasetReport], root: Path) -> list[Path]:
    """Each dataset's report in ``root/<dataset>/`` and a ``report.md`` linking them."""
    written: list[Path] = []
    lines = [
        "# CoordinationQA report",
        "",
        "One report per dataset (runs are compared within one).",
        "",
    ]
    for item in reports:
        written += _write_report_files(item.report, root / item.group.slug)
        runs = len(item.report.models)
        lines.append(
            f"- [{item.group.title}]({item.group.slug}/report.md): {runs} run{'s' * (runs != 1)}"
        )
    index = root / "report.md"
    index.write_text("\n".join([*lines, ""]), encoding="utf-8")
    return [*written, index]
