"""Numbers from QA runs: accuracy with standard errors, outcome counts, baselines, correlations.

Everything here reads the *scores* of a run (``scores.jsonl``, one row per question and trial,
written by :func:`coordqa.evaluation.score`) and never calls a model.

How outcomes count (the one rule every number below follows):

- ``answered`` samples are right or wrong by the answer key;
- ``ambiguous`` and ``no_answer`` samples are the model's doing and count as **wrong**;
- ``error`` samples (the call failed after its retries) say nothing about the model: they are
  **excluded** from accuracy denominators and always reported as a separate count, and a run with
  errors or missing samples is marked incomplete (resuming it retries them).

Accuracy of a group (a question type, a game x type cell) is the mean over trials of the
per-trial accuracy; its standard error is the sample standard deviation (ddof=1) of the
per-trial accuracies divided by sqrt(n), n being the number of trials with at least one scored
sample. With n < 2 the standard error is NaN, never 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from coordqa.dataset import QUESTION_TYPES
from coordqa.errors import StoreError
from coordqa.records import STATUSES, Sample
from coordqa.store import QARun, RunStore, read_qa_run

__all__ = [
    "ERROR_POLICY",
    "QUESTION_TYPES",
    "STATUSES",
    "Correlation",
    "ModelReport",
    "RunAnalysis",
    "accuracy_table",
    "analyze_run",
    "compare_runs",
    "correlate",
    "format_mean_se",
    "jp_failures",
    "load_scores",
    "samples_frame",
    "summarize_failures",
    "write_report",
]

ERROR_POLICY = (
    "error samples (calls that failed after retries) are excluded from accuracy denominators and "
    "counted separately; ambiguous and no_answer replies count as wrong"
)

SCORE_COLUMNS = (
    "question_id",
    "scenario_id",
    "game",
    "question_type",
    "trial",
    "status",
    "correct",
    "n_options",
    "n_correct",
)
"""Columns every scores table has (extra columns are kept)."""


# -- one run ---------------------------------------------------------------------------------


def check_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Validate a scores table and normalise its dtypes (``correct`` as bool)."""
    missing = [c for c in SCORE_COLUMNS if c not in scores.columns]
    if missing:
        raise StoreError(f"scores table lacks columns {missing}; expected {list(SCORE_COLUMNS)}")
    unknown = sorted(set(scores["status"]) - set(STATUSES))
    if unknown:
        raise StoreError(f"unknown sample status {unknown}; allowed: {list(STATUSES)}")
    out = scores.copy()
    out["correct"] = out["correct"].fillna(False).astype(bool) & (out["status"] == "answered")
    out["trial"] = out["trial"].astype(int)
    return out


def accuracy_table(
    scores: pd.DataFrame,
    by: Sequence[str] = ("question_type",),
    *,
    errors_count_as_wrong: bool = False,
) -> pd.DataFrame:
    """Accuracy ± SE across trials, outcome counts and the random baseline, per group.

    Args:
        scores: a scores table (see :data:`SCORE_COLUMNS`).
        by: grouping columns; empty for one overall row.
        errors_count_as_wrong: score ``error`` samples as wrong instead of leaving them out of
            the denominators (the leaderboard's rule: a submitter cannot raise an accuracy by
            labelling wrong replies as failed calls).

    Returns:
        One row per group with ``accuracy``, ``se``, ``n_trials``, ``n_questions``, a count per
        status in :data:`STATUSES`, ``correct`` and ``random_baseline`` (mean over the group's
        questions of len(correct) / len(options)).
    """
    df = check_scores(scores)
    keys = list(by)
    if not keys:
        df = df.assign(scope="all")
        keys = ["scope"]
    df = df.assign(scored=True if errors_count_as_wrong else df["status"] != "error")

    per_trial = df.groupby([*keys, "trial"]).agg(scored=("scored", "sum"), hit=("correct", "sum"))
    per_trial["accuracy"] = per_trial["hit"] / per_trial["scored"].where(per_trial["scored"] > 0)
    grouped = per_trial.groupby(level=keys)["accuracy"]
    stats = pd.DataFrame(
        {
            "accuracy": grouped.mean(),
            "sd": grouped.std(ddof=1),
            "n_trials": grouped.count(),
        }
    )
    stats["se"] = stats["sd"] / np.sqrt(stats["n_trials"].where(stats["n_trials"] > 0))
    stats.loc[stats["n_trials"] < 2, "se"] = np.nan

    counts = (
        df.groupby(keys)["status"]
        .value_counts()
        .unstack(fill_value=0)
        .reindex(columns=list(STATUSES), fill_value=0)
    )
    counts.columns = list(STATUSES)
    questions = df.drop_duplicates([*keys, "question_id"])
    baseline = (
        (questions["n_correct"] / questions["n_options"])
        .groupby([questions[k] for k in keys])
        .mean()
    )
    table = stats.drop(columns="sd").join(counts)
    table["correct"] = df.groupby(keys)["correct"].sum()
    table["n_questions"] = df.groupby(keys)["question_id"].nunique()
    table["random_baseline"] = baseline
    table = table.reset_index()
    if "question_type" in table.columns:
        order = {t: i for i, t in enumerate(QUESTION_TYPES)}
        table = table.sort_values(
            [*[k for k in keys if k != "question_type"], "question_type"],
            key=lambda col: (
                col.map(order).fillna(len(order)) if col.name == "question_type" else col
            ),
        ).reset_index(drop=True)
    columns = [*keys, "accuracy", "se", "n_trials", "n_questions", "correct", *STATUSES]
    return table[[*columns, "random_baseline"]]


@dataclass
class RunAnalysis:
    """The numbers of one run."""

    model: str
    """Model name from the manifest."""
    run_dir: Path
    """The run directory."""
    overall: pd.DataFrame
    """One row: all questions together."""
    by_type: pd.DataFrame
    """One row per question type."""
    by_game_type: pd.DataFrame
    """One row per game x question type."""
    expected_samples: int | None
    """Questions x trials planned by the run (None when the manifest does not say)."""
    stored_samples: int
    """Samples present in the scores."""
    warnings: list[str] = field(default_factory=list)
    """Problems met while reading the run (truncated lines)."""

    @property
    def errors(self) -> int:
        """Samples whose model call failed after retries."""
        return int(self.overall["error"].sum())

    @property
    def missing(self) -> int:
        """Planned samples not stored at all (a run that was killed or stopped)."""
        return max(0, (self.expected_samples or 0) - self.stored_samples)

    @property
    def complete(self) -> bool:
        """Whether every planned sample is stored and none is an error."""
        return self.errors == 0 and self.missing == 0

    def to_json(self) -> dict[str, Any]:
        """The JSON summary written as ``summary.json`` (NaN becomes null)."""
        return {
            "model": self.model,
            "complete": self.complete,
            "expected_samples": self.expected_samples,
            "stored_samples": self.stored_samples,
            "missing_samples": self.missing,
            "error_policy": ERROR_POLICY,
            "se": "sample sd (ddof=1) of per-trial accuracies / sqrt(n_trials); null when n < 2",
            "overall": _records(self.overall)[0],
            "by_type": _records(self.by_type),
            "by_game_type": _records(self.by_game_type),
            "warnings": self.warnings,
        }


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _json_value(v) for k, v in row.items()} for row in table.to_dict(orient="records")]


def _json_value(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    return value


def samples_frame(samples: Sequence[Sample]) -> pd.DataFrame:
    """A scores table of typed samples: one row each, the choice as its ``letter``."""
    rows = [
        {**sample.model_dump(exclude={"choice"}), "letter": sample.letter} for sample in samples
    ]
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=[*SCORE_COLUMNS, "letter"])
    return check_scores(frame)


def load_scores(run: QARun | RunStore | str | Path) -> pd.DataFrame:
    """The scores table of a run, as :meth:`coordqa.store.QARun.samples` reads it."""
    return samples_frame(read_qa_run(run).samples())


def analyze_run(
    run: QARun | RunStore | str | Path, scores: pd.DataFrame | None = None
) -> RunAnalysis:
    """Compute the tables of one run (from ``scores`` or the run's samples)."""
    reader = read_qa_run(run)
    table = load_scores(reader) if scores is None else check_scores(scores)
    manifest = reader.manifest
    trials = manifest.config.get("trials")
    expected = (
        manifest.dataset.num_questions * int(trials)
        if manifest.dataset is not None and isinstance(trials, int)
        else None
    )
    return RunAnalysis(
        model=str(manifest.config.get("model", "?")),
        run_dir=reader.path,
        overall=accuracy_table(table, by=()),
        by_type=accuracy_table(table, by=("question_type",)),
        by_game_type=accuracy_table(table, by=("game", "question_type")),
        expected_samples=expected,
        stored_samples=len(table),
        warnings=list(reader.warnings),
    )


# -- JP failures per scenario ----------------------------------------------------------------


def jp_failures(scores: pd.DataFrame) -> pd.DataFrame:
    """Classify each (scenario, trial) by how its JP question went.

    ``category`` is ``jp_correct``; ``synthesis_failure`` (JP wrong while EC and ToM are both
    right: the model understood the state and its partner but did not put them together);
    ``component_failure`` (JP wrong with EC or ToM wrong too); or ``incomplete`` (a question of
    the three is missing or an error sample, so nothing is claimed). A type with several
    questions in a scenario counts as right only if all of them are right.
    """
    df = check_scores(scores)
    df = df[df["question_type"].isin(QUESTION_TYPES)]
    keys = ["scenario_id", "game", "trial"]
    usable = df.assign(usable=df["status"] != "error")
    right = usable.pivot_table(
        index=keys, columns="question_type", values="correct", aggfunc="all"
    ).reindex(columns=list(QUESTION_TYPES))
    ok = usable.pivot_table(
        index=keys, columns="question_type", values="usable", aggfunc="all"
    ).reindex(columns=list(QUESTION_TYPES))
    complete = ok.fillna(False).astype(bool).all(axis=1)
    right = right.fillna(False).astype(bool)
    category = np.select(
        [
            ~complete,
            right["JP"],
            right["EC"] & right["ToM"],
        ],
        ["incomplete", "jp_correct", "synthesis_failure"],
        default="component_failure",
    )
    out = pd.DataFrame(
        {
            "ec_correct": right["EC"],
            "tom_correct": right["ToM"],
            "jp_correct": right["JP"],
            "category": category,
        },
        index=right.index,
    )
    return out.reset_index()


FAILURE_CATEGORIES = ("jp_correct", "synthesis_failure", "component_failure", "incomplete")


def summarize_failures(failures: pd.DataFrame) -> dict[str, Any]:
    """Counts per category over (scenario, trial) pairs, and the synthesis share of JP misses."""
    counts = {c: int((failures["category"] == c).sum()) for c in FAILURE_CATEGORIES}
    misses = counts["synthesis_failure"] + counts["component_failure"]
    share = counts["synthesis_failure"] / misses if misses else float("nan")
    return {**counts, "jp_wrong": misses, "synthesis_share": share}


# -- across runs -----------------------------------------------------------------------------


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
    """Why a value is NaN, if it is."""


MIN_MODELS_FOR_CORRELATION = 3


def correlate(x: Sequence[float], y: Sequence[float], names: tuple[str, str]) -> Correlation:
    """Correlate paired values (NaN pairs dropped); needs 3 pairs and non-constant inputs."""
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
    return Correlation(
        names[0],
        names[1],
        n,
        float(pearson.statistic),
        float(pearson.pvalue),
        float(spearman.statistic),
        float(spearman.pvalue),
    )


@dataclass
class ModelReport:
    """The comparison of several runs (one point per run, labelled by model)."""

    models: pd.DataFrame
    """One row per run: accuracy ± SE per type and overall, baselines, outcome counts."""
    correlations: list[Correlation]
    """EC vs JP and ToM vs JP across runs."""
    failures: pd.DataFrame
    """One row per run and failure category, summed over scenarios and trials."""
    failures_by_scenario: pd.DataFrame
    """One row per run, scenario and trial: how JP went."""
    warnings: list[str] = field(default_factory=list)
    """Problems met while reading the runs, each prefixed with its run's label."""

    def correlation_table(self) -> pd.DataFrame:
        """Correlations as a table."""
        return pd.DataFrame([c.__dict__ for c in self.correlations])


def _labels(analyses: Sequence[RunAnalysis]) -> list[str]:
    """Model names, disambiguated with the run directory name when a model appears twice."""
    names = [a.model for a in analyses]
    return [
        f"{a.model} ({a.run_dir.name})" if names.count(a.model) > 1 else a.model for a in analyses
    ]


def _model_row(label: str, analysis: RunAnalysis) -> dict[str, Any]:
    overall = analysis.overall.iloc[0]
    row: dict[str, Any] = {"model": label, "run": str(analysis.run_dir)}
    by_type = analysis.by_type.set_index("question_type")
    for qtype in QUESTION_TYPES:
        has = qtype in by_type.index
        row[qtype] = float(by_type.at[qtype, "accuracy"]) if has else float("nan")
        row[f"{qtype}_se"] = float(by_type.at[qtype, "se"]) if has else float("nan")
    row["overall"] = float(overall["accuracy"])
    row["overall_se"] = float(overall["se"])
    row["n_trials"] = int(overall["n_trials"])
    row["n_questions"] = int(overall["n_questions"])
    row["random_baseline"] = float(overall["random_baseline"])
    for status in STATUSES[1:]:
        row[status] = int(overall[status])
    row["missing"] = analysis.missing
    return row


def compare_runs(
    runs: Sequence[QARun | RunStore | str | Path], sizes: Mapping[str, float] | None = None
) -> ModelReport:
    """Build the cross-model report of ``runs`` (each must have been scored).

    Args:
        runs: run directories or stores, one point per run in correlations.
        sizes: optional parameter counts per model name, added as a ``size`` column.
    """
    if not runs:
        raise StoreError("no runs given; pass one or more run directories")
    analyses: list[RunAnalysis] = []
    scores: list[pd.DataFrame] = []
    for run in runs:
        reader = read_qa_run(run)
        table = load_scores(reader)
        scores.append(table)
        analyses.append(analyze_run(reader, table))
    labels = _labels(analyses)
    models = pd.DataFrame([_model_row(lbl, a) for lbl, a in zip(labels, analyses, strict=True)])
    if sizes:
        models["size"] = [
            sizes.get(a.model, sizes.get(lbl, float("nan")))
            for lbl, a in zip(labels, analyses, strict=True)
        ]
    correlations = [correlate(models[x], models["JP"], (x, "JP")) for x in ("EC", "ToM")]
    by_scenario = [jp_failures(t).assign(model=lbl) for lbl, t in zip(labels, scores, strict=True)]
    failures_by_scenario = pd.concat(by_scenario, ignore_index=True)
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
    return ModelReport(models, correlations, failures, failures_by_scenario, warnings)


# -- written report --------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return "NaN" if math.isnan(value) else f"{value:.3f}"
    return str(value)


def markdown_table(table: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (floats to 3 decimals, NaN spelled out)."""
    header = "| " + " | ".join(str(c) for c in table.columns) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in table.itertuples(False)]
    return "\n".join([header, rule, *body])


def format_mean_se(mean: float, se: float) -> str:
    """``0.512 ± 0.034``; NaN is spelled out (a missing SE is never shown as 0).

    >>> format_mean_se(0.5, float("nan"))
    '0.500 ± NaN'
    """
    if math.isnan(mean):
        return "NaN"
    return f"{mean:.3f} ± {'NaN' if math.isnan(se) else f'{se:.3f}'}"


def accuracy_summary(models: pd.DataFrame) -> pd.DataFrame:
    """The model table as display strings: accuracy ± SE per type and overall, and counts."""
    shown = pd.DataFrame({"model": models["model"]})
    for column in (*QUESTION_TYPES, "overall"):
        shown[column] = [
            format_mean_se(m, s)
            for m, s in zip(models[column], models[f"{column}_se"], strict=True)
        ]
    for column in ("random_baseline", "n_trials", *STATUSES[1:], "missing"):
        shown[column] = models[column]
    return shown


def _report_markdown(report: ModelReport, figures: list[Path]) -> str:
    lines = [
        "# CoordinationQA report",
        "",
        "Accuracy is the mean over trials of per-trial accuracy, ± the standard error across "
        "trials (NaN with fewer than 2 trials). " + ERROR_POLICY.capitalize() + ".",
        "",
        "## Models",
        "",
        markdown_table(accuracy_summary(report.models)),
        "",
        "## Correlations across models (one point per model)",
        "",
        markdown_table(report.correlation_table()),
        "",
        "## JP failures per scenario and trial",
        "",
        "`synthesis_failure`: JP wrong while EC and ToM of the same scenario and trial are right; "
        "`component_failure`: JP wrong with EC or ToM wrong; `incomplete`: a call of the three "
        "failed or is missing.",
        "",
        markdown_table(report.failures),
        "",
        "## Runs",
        "",
        *[
            f"- {m}: `{r}`"
            for m, r in zip(report.models["model"], report.models["run"], strict=True)
        ],
        "",
    ]
    if figures:
        lines += ["## Figures", "", *[f"![{p.stem}]({p.name})" for p in figures], ""]
    return "\n".join(lines)


def write_report(report: ModelReport, out: str | Path) -> list[Path]:
    """Write tables (CSV and parquet), PNG figures and ``report.md`` into ``out``.

    Returns:
        The paths written.
    """
    from coordqa import figures as fig

    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    tables = {
        "models": report.models,
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
