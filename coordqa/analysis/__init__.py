"""Numbers from runs, never from a model: one home for the statistics of both tracks.

- :mod:`~coordqa.analysis.stats`: mean ± SE, question-level bootstrap CIs, paired comparisons,
  correlations (used by the QA tables, the agentic report, ``coordqa play`` and the leaderboard);
- :mod:`~coordqa.analysis.tables`: the accuracy tables of one QA run and the outcome rule;
- :mod:`~coordqa.analysis.report`: comparing QA runs (``coordqa report``);
- :mod:`~coordqa.analysis.results`: per-question tables of runs (``coordqa results``,
  ``coordqa compare``) and the run list (``coordqa runs list``);
- :mod:`~coordqa.analysis.labels`: what to call each run when several are shown together;
- :mod:`~coordqa.analysis.figures`: the report's PNG figures.

Names are exported lazily, so ``coordqa.analysis.stats`` can be used without pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_getattr

_EXPORTS = {
    "QUESTION_TYPES": "coordqa.records",
    "STATUSES": "coordqa.records",
    **dict.fromkeys(
        (
            "CONFIDENCE",
            "Correlation",
            "Interval",
            "MeanSE",
            "PairedDifference",
            "clustered_accuracy_ci",
            "correlate",
            "exact_correlation_p",
            "format_mean_se",
            "paired_difference",
        ),
        "coordqa.analysis.stats",
    ),
    **dict.fromkeys(
        (
            "ERROR_POLICY",
            "INCOMPLETE_MARK",
            "RunAnalysis",
            "accuracy_table",
            "analyze_run",
            "format_accuracy",
            "jp_failures",
            "load_scores",
            "question_accuracy",
            "samples_frame",
            "summarize_failures",
        ),
        "coordqa.analysis.tables",
    ),
    "run_labels": "coordqa.analysis.labels",
    **dict.fromkeys(
        ("ModelReport", "compare_runs", "markdown_table", "write_report"),
        "coordqa.analysis.report",
    ),
    **dict.fromkeys(
        ("RunComparison", "RunSummary", "compare_two_runs", "list_runs", "results_table"),
        "coordqa.analysis.results",
    ),
}

__all__ = [
    "QUESTION_TYPES",
    "STATUSES",
    "CONFIDENCE",
    "Correlation",
    "ERROR_POLICY",
    "INCOMPLETE_MARK",
    "Interval",
    "MeanSE",
    "ModelReport",
    "PairedDifference",
    "RunAnalysis",
    "RunComparison",
    "RunSummary",
    "accuracy_table",
    "analyze_run",
    "clustered_accuracy_ci",
    "compare_runs",
    "compare_two_runs",
    "correlate",
    "exact_correlation_p",
    "format_accuracy",
    "format_mean_se",
    "jp_failures",
    "list_runs",
    "load_scores",
    "markdown_table",
    "paired_difference",
    "question_accuracy",
    "results_table",
    "run_labels",
    "samples_frame",
    "summarize_failures",
    "write_report",
]

if TYPE_CHECKING:
    from coordqa.analysis.labels import run_labels
    from coordqa.analysis.report import ModelReport, compare_runs, markdown_table, write_report
    from coordqa.analysis.results import (
        RunComparison,
        RunSummary,
        compare_two_runs,
        list_runs,
        results_table,
    )
    from coordqa.analysis.stats import (
        CONFIDENCE,
        Correlation,
        Interval,
        MeanSE,
        PairedDifference,
        clustered_accuracy_ci,
        correlate,
        exact_correlation_p,
        format_mean_se,
        paired_difference,
    )
    from coordqa.analysis.tables import (
        ERROR_POLICY,
        INCOMPLETE_MARK,
        RunAnalysis,
        accuracy_table,
        analyze_run,
        format_accuracy,
        jp_failures,
        load_scores,
        question_accuracy,
        samples_frame,
        summarize_failures,
    )
    from coordqa.records import QUESTION_TYPES, STATUSES

__getattr__ = lazy_getattr(__name__, _EXPORTS)
