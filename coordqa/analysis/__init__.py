"""Numbers from runs, never from a model: one home for the statistics of both tracks.

- :mod:`~coordqa.analysis.stats`: mean ± SE, question-level bootstrap CIs, paired comparisons,
  correlations (used by the QA tables, the agentic report, ``coordqa play`` and the leaderboard);
- :mod:`~coordqa.analysis.accuracy`: the accuracy tables of one QA run and the outcome rule
  (no pandas);
- :mod:`~coordqa.analysis.tables`: scores tables in pandas (per-question accuracy, JP failures);
- :mod:`~coordqa.analysis.report`: comparing QA runs (``coordqa report``);
- :mod:`~coordqa.analysis.results`: per-question tables of runs (``coordqa results``,
  ``coordqa compare``) and the run list (``coordqa runs list``);
- :mod:`~coordqa.analysis.labels`: what to call each run when several are shown together;
- :mod:`~coordqa.analysis.groups`: which runs are compared together (the runs of one dataset, or of
  one question set);
- :mod:`~coordqa.analysis.figures`: the report's PNG figures.

Names are exported lazily, so ``coordqa.analysis.stats`` can be used without pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_exports

if TYPE_CHECKING:
    from coordqa.analysis.accuracy import (
        ERROR_POLICY as ERROR_POLICY,
        INCOMPLETE_MARK as INCOMPLETE_MARK,
        AccuracyTable as AccuracyTable,
        RunAnalysis as RunAnalysis,
        accuracy_of as accuracy_of,
        analyze_run as analyze_run,
        format_accuracy as format_accuracy,
    )
    from coordqa.analysis.groups import (
        DatasetGroup as DatasetGroup,
        group_by_dataset as group_by_dataset,
        group_by_question_set as group_by_question_set,
    )
    from coordqa.analysis.labels import (
        run_labels as run_labels,
    )
    from coordqa.analysis.report import (
        DatasetReport as DatasetReport,
        ModelReport as ModelReport,
        compare_by_dataset as compare_by_dataset,
        compare_runs as compare_runs,
        markdown_table as markdown_table,
        write_report as write_report,
        write_reports as write_reports,
    )
    from coordqa.analysis.results import (
        RunComparison as RunComparison,
        RunList as RunList,
        RunSummary as RunSummary,
        compare_two_runs as compare_two_runs,
        joined_run_list as joined_run_list,
        list_runs as list_runs,
        list_runs_in as list_runs_in,
        results_table as results_table,
    )
    from coordqa.analysis.stats import (
        CONFIDENCE as CONFIDENCE,
        Correlation as Correlation,
        Interval as Interval,
        MeanSE as MeanSE,
        PairedDifference as PairedDifference,
        PairedRatio as PairedRatio,
        clustered_accuracy_ci as clustered_accuracy_ci,
        correlate as correlate,
        exact_correlation_p as exact_correlation_p,
        format_mean_se as format_mean_se,
        mean_ci as mean_ci,
        paired_difference as paired_difference,
        paired_ratio as paired_ratio,
    )
    from coordqa.analysis.tables import (
        accuracy_table as accuracy_table,
        jp_failures as jp_failures,
        load_scores as load_scores,
        question_accuracy as question_accuracy,
        samples_frame as samples_frame,
        summarize_failures as summarize_failures,
    )
    from coordqa.records import (
        QUESTION_TYPES as QUESTION_TYPES,
        STATUSES as STATUSES,
    )

__getattr__, __all__ = lazy_exports(__name__, __file__)
