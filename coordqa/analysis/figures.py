"""Figures of a cross-model report, drawn with matplotlib's Agg backend (no display needed).

matplotlib is imported inside each function, so importing this module costs nothing.
Every figure is written as PNG and closed; functions return the path written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from coordqa.analysis.stats import Correlation
from coordqa.records import QUESTION_TYPES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_accuracy_by_type", "plot_accuracy_vs_size", "plot_correlations"]

DPI = 120


def _figure(width: float, height: float, ncols: int = 1) -> tuple[Figure, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, axes[0]


def _save(fig: Figure, path: Path) -> Path:
    from matplotlib import pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _ci_bars(models: pd.DataFrame, scope: str) -> np.ndarray:
    """Asymmetric error bars from the question-level 95% CI; an unknown CI is drawn as no bar."""
    mean = models[scope].to_numpy(dtype=float)
    low = mean - models[f"{scope}_ci_low"].to_numpy(dtype=float)
    high = models[f"{scope}_ci_high"].to_numpy(dtype=float) - mean
    return np.nan_to_num(np.vstack([low, high]), nan=0.0)


def plot_accuracy_by_type(models: pd.DataFrame, path: Path) -> Path:
    """Grouped bars: accuracy per question type per model, with question-level 95% CI bars."""
    fig, (ax,) = _figure(max(6.0, 1.2 * len(models) + 3), 4.0)
    width = 0.8 / len(QUESTION_TYPES)
    x = np.arange(len(models))
    for i, qtype in enumerate(QUESTION_TYPES):
        positions = x + (i - 1) * width
        heights = models[qtype].to_numpy(dtype=float)
        ax.bar(positions, heights, width, label=qtype)
        bars = _ci_bars(models, qtype)  # drawn apart: bar(yerr=) trips on a single model
        ax.errorbar(positions, heights, yerr=bars, fmt="none", ecolor="black", capsize=3)
    ax.set_xticks(x, models["model"], rotation=20, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy (bars: question-level 95% CI)")
    ax.legend(title="question type")
    ax.set_title("CoordinationQA accuracy per question type")
    return _save(fig, path)


def plot_correlations(models: pd.DataFrame, correlations: list[Correlation], path: Path) -> Path:
    """One scatter per correlation (EC vs JP, ToM vs JP), one point per model."""
    fig, axes = _figure(5.0 * len(correlations), 4.2, ncols=len(correlations))
    for ax, corr in zip(axes, correlations, strict=True):
        ax.scatter(models[corr.x], models[corr.y])
        for _, row in models.iterrows():
            ax.annotate(str(row["model"]), (row[corr.x], row[corr.y]), fontsize=7)
        ax.set_xlabel(f"{corr.x} accuracy")
        ax.set_ylabel(f"{corr.y} accuracy")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        stats = f"r={corr.pearson_r:.2f}, rho={corr.spearman_rho:.2f}, n={corr.n}"
        ax.set_title(f"{corr.x} vs {corr.y}: {stats}")
    return _save(fig, path)


def plot_accuracy_vs_size(models: pd.DataFrame, path: Path) -> Path:
    """Accuracy per type against model size (log scale, bars: question-level 95% CI)."""
    sized = models.dropna(subset=["size"]).sort_values("size")
    fig, (ax,) = _figure(6.0, 4.0)
    for qtype in QUESTION_TYPES:
        ax.errorbar(
            sized["size"],
            sized[qtype],
            yerr=_ci_bars(sized, qtype),
            marker="o",
            capsize=3,
            label=qtype,
        )
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("parameters")
    ax.set_ylabel("accuracy")
    ax.legend(title="question type")
    ax.set_title("Accuracy vs model size")
    return _save(fig, path)
