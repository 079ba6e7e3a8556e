"""CoordinationQA built from real game states (installed as ``coordqa.scenarios``).

Per-game builders propose candidate states, compute each question's options and answer key with
a solver, and reject ambiguous states; the curated list under ``curated/`` holds the 66 chosen
states as snapshots. ``build_dataset`` turns them into the current release (with its changelog
against the previous one), and ``validate_dataset`` re-checks any dataset against the same
solvers (a frozen earlier release against its pinned fingerprint and its successor's changelog).
"""

from coordqa.scenarios.build import DATASET_VERSION, build_dataset, build_rows, curated_scenarios
from coordqa.scenarios.builder import BUILDERS, ScenarioBuilder
from coordqa.scenarios.generate import fresh_scenarios, generate_dataset
from coordqa.scenarios.model import (
    QuestionDraft,
    Scenario,
    ScenarioQuestions,
    ScenarioRejected,
    ValidationFailed,
)
from coordqa.scenarios.stats import DatasetStats, dataset_stats
from coordqa.scenarios.validate import (
    ValidationReport,
    validate_dataset,
    validate_rows_against_solvers,
)

__all__ = [
    "BUILDERS",
    "DATASET_VERSION",
    "DatasetStats",
    "QuestionDraft",
    "Scenario",
    "ScenarioBuilder",
    "ScenarioQuestions",
    "ScenarioRejected",
    "ValidationFailed",
    "ValidationReport",
    "build_dataset",
    "build_rows",
    "curated_scenarios",
    "dataset_stats",
    "fresh_scenarios",
    "generate_dataset",
    "validate_dataset",
    "validate_rows_against_solvers",
]
