"""Tables and figures of agentic runs, in the shape of the LLM-Coordination paper's tables.

Everything is computed from stored episodes (:func:`~coordqa.agentic.episodes.load_agentic_run`):
no model is called. Each cell is the mean ± SE over episodes (SE NaN with fewer than two), via
:class:`coordqa.analysis.stats.MeanSE`, the statistics ``coordqa play`` and the QA tables use.

- Table 1: Overcooked self-play score per layout;
- Table 2: Hanabi self-play score;
- Table 4: Overcooked cross-play score per layout, the agent in seat 0 / seat 1;
- Table 5: Hanabi score in self-play and with each partner;
- Table 7: Collab games: capture and escape rates, turns to capture / escape when won;
- per decision: LLM calls, tokens, cost, latency, verifier rejection rate (rejections per
  verifier call), fallback rate and HM partner-prediction accuracy, from the agents' stats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from coordqa.agentic.episodes import AgenticEpisode, load_agentic_run
from coordqa.analysis.stats import MeanSE

STAT_COLUMNS = (
    "decisions",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "latency_s",
    "verifier_calls",
    "verifier_rejections",
    "fallbacks",
    "predictions_scored",
    "predictions_correct",
)
"""Agent statistics summed over the agent's seats in each episode."""

TABLE_TITLES = {
    "table1_overcooked_self_play": "Table 1: Overcooked self-play (score, mean ± SE)",
    "table2_hanabi_self_play": "Table 2: Hanabi self-play (score out of 25, mean ± SE)",
    "table4_overcooked_cross_play": "Table 4: Overcooked with partners (seat 0 / seat 1)",
    "table5_hanabi_cross_play": "Table 5: Hanabi self-play and cross-play (mean ± SE)",
    "table7_collab": "Table 7: Collab games (rate and turns when won, mean ± SE)",
    "per_decision": "Per decision: model calls, tokens, cost, latency, rejections, fallbacks",
}
"""Every table of the report, by file stem, with its title."""


def _label(agent: str, model: str | None) -> str:
    return agent if model is None else f"{agent}[{model}]"


def _agent_stats(episode: AgenticEpisode) -> dict[str, float]:
    seats = [episode.agent_stats[s] for s in episode.spec.agent_seats if s in episode.agent_stats]
    if not seats:
        return {name: math.nan for name in STAT_COLUMNS}
    totals: dict[str, float] = {}
    for name in STAT_COLUMNS:
        if name == "verifier_calls":
            values = [s.get("calls_by_role", {}).get("verifier", 0) for s in seats]
        else:
            values = [s.get(name) for s in seats]
        known = [float(v) for v in values if v is not None]
        totals[name] = sum(known) if len(known) == len(values) else math.nan
    return totals


def episode_frame(episodes: Iterable[AgenticEpisode]) -> pd.DataFrame:
    """One row per episode: the pairing, score, game metrics and the agent's summed stats."""
    rows: list[dict[str, Any]] = []
    for episode in episodes:
        spec = episode.spec
        rows.append(
            {
                "key": episode.key,
                "game": spec.game,
                "layout": spec.layout,
                "agent": spec.agent,
                "model": spec.model,
                "label": _label(spec.agent, spec.model),
                "partner": "self" if spec.partner is None else spec.partner,
                "position": spec.position,
                "seed": spec.seed,
                "score": episode.score,
                **{f"metric_{k}": v for k, v in episode.metrics.items()},
                **_agent_stats(episode),
            }
        )
    return pd.DataFrame(rows)


def _mean_se(values: Iterable[float]) -> MeanSE:
    return MeanSE.of([float(v) for v in values])


def _cell(values: Iterable[float]) -> str:
    """Mean ± SE over episodes with 2 decimals (game scores); ``-`` with no episode."""
    stat = _mean_se(values)
    return "-" if stat.n == 0 else stat.format(digits=2)


def _pivot(frame: pd.DataFrame, rows: Sequence[str], column: str, value: str) -> pd.DataFrame:
    """Mean ± SE of ``value`` with one row per ``rows`` group and one column per ``column``."""
    if frame.empty:
        return pd.DataFrame()
    table = frame.groupby([*rows, column])[value].apply(_cell).unstack(column, fill_value="-")
    return table.reset_index().rename_axis(columns=None)


def overcooked_self_play(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1: rows are agents, columns layouts."""
    cut = _select(frame, "overcooked", self_play=True)
    return _pivot(cut, ["label"], "layout", "score")


def hanabi_self_play(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 2: one score column per agent."""
    cut = _select(frame, "hanabi", self_play=True).assign(column="score")
    return _pivot(cut, ["label"], "column", "score")


def overcooked_cross_play(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 4: rows are agent and partner, columns layouts, cells ``seat 0 / seat 1`` means."""
    cut = _select(frame, "overcooked", self_play=False)
    if cut.empty:
        return pd.DataFrame()

    def sides(group: pd.DataFrame) -> str:
        means = []
        for seat in (0, 1):
            stat = _mean_se(group.loc[group["position"] == seat, "score"])
            means.append("-" if stat.n == 0 else f"{stat.mean:.1f}")
        return " / ".join(means)

    table = cut.groupby(["label", "partner", "layout"])[["position", "score"]].apply(sides)
    return table.unstack("layout", fill_value="-").reset_index().rename_axis(columns=None)


def hanabi_cross_play(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 5: rows are agents, columns self-play and each partner."""
    cut = _select(frame, "hanabi", self_play=None)
    cut = cut.assign(column=["self-play" if p == "self" else f"with {p}" for p in cut["partner"]])
    return _pivot(cut, ["label"], "column", "score")


def collab(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 7: capture/escape rate and turns when won, per agent and partner."""
    outcomes = {"collab_capture": ("captured", "capture"), "collab_escape": ("escaped", "escape")}
    rows: list[dict[str, Any]] = []
    groups = frame[frame["game"].isin(list(outcomes))] if not frame.empty else frame
    if groups.empty:
        return pd.DataFrame()
    for (label, partner), group in groups.groupby(["label", "partner"]):
        row: dict[str, Any] = {"label": label, "partner": partner}
        for game, (metric, noun) in outcomes.items():
            cut = group[group["game"] == game]
            won = f"metric_{metric}"
            if cut.empty or won not in cut:
                continue
            row[f"{noun} rate"] = _cell(cut[won])
            row[f"turns to {noun}"] = _cell(cut.loc[cut[won] == 1.0, "metric_turns"])
        rows.append(row)
    return pd.DataFrame(rows).fillna("-")


def per_decision(frame: pd.DataFrame) -> pd.DataFrame:
    """Per agent and game: means per decision over the episodes' totals (LLM agents only)."""
    if frame.empty:
        return pd.DataFrame()
    llm = frame[frame["decisions"].notna() & (frame["decisions"] > 0)]
    rows: list[dict[str, Any]] = []
    for (label, game), group in llm.groupby(["label", "game"]):
        sums = group[list(STAT_COLUMNS)].sum()
        decisions = sums["decisions"]
        tokens = sums["prompt_tokens"] + sums["completion_tokens"]
        rows.append(
            {
                "label": label,
                "game": game,
                "episodes": len(group),
                "decisions": int(decisions),
                "calls/dec": sums["llm_calls"] / decisions,
                "tokens/dec": tokens / decisions,
                "cost/dec": sums["cost"] / decisions,
                "latency/dec s": sums["latency_s"] / decisions,
                "verifier reject": _ratio(sums["verifier_rejections"], sums["verifier_calls"]),
                "fallback": sums["fallbacks"] / decisions,
                "HM pred acc": _ratio(sums["predictions_correct"], sums["predictions_scored"]),
            }
        )
    return pd.DataFrame(rows)


def _ratio(part: float, whole: float) -> float:
    """``part / whole``, NaN when there is nothing to divide by (no data is not zero)."""
    return part / whole if whole > 0 else math.nan


def _select(frame: pd.DataFrame, game: str, self_play: bool | None) -> pd.DataFrame:
    if frame.empty:
        return frame
    cut = frame[frame["game"] == game]
    if self_play is None:
        return cut
    return cut[(cut["partner"] == "self") == self_play]


@dataclass
class AgenticReport:
    """The tables of one or more agentic runs."""

    episodes: pd.DataFrame
    """One row per episode (see :func:`episode_frame`)."""
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Every non-empty table, by the stems of :data:`TABLE_TITLES`."""

    def write(self, out: str | Path) -> list[Path]:
        """Write each table as CSV, a Markdown report and the figures; return the paths."""
        from coordqa.analysis import markdown_table

        root = Path(out)
        root.mkdir(parents=True, exist_ok=True)
        written = [self._write_csv(root / "episodes.csv", self.episodes)]
        sections = ["# Agentic report", ""]
        for stem, table in self.tables.items():
            written.append(self._write_csv(root / f"{stem}.csv", table))
            sections += [f"## {TABLE_TITLES[stem]}", "", markdown_table(table), ""]
        figures = plot_report(self.episodes, root)
        sections += [f"![{path.stem}]({path.name})" for path in figures]
        report = root / "report.md"
        report.write_text("\n".join(sections) + "\n", encoding="utf-8")
        return [*written, *figures, report]

    @staticmethod
    def _write_csv(path: Path, table: pd.DataFrame) -> Path:
        table.to_csv(path, index=False)
        return path


def build_report(episodes: Iterable[AgenticEpisode]) -> AgenticReport:
    """All tables of a set of episodes (tables with no matching episode are left out)."""
    frame = episode_frame(episodes)
    builders = {
        "table1_overcooked_self_play": overcooked_self_play,
        "table2_hanabi_self_play": hanabi_self_play,
        "table4_overcooked_cross_play": overcooked_cross_play,
        "table5_hanabi_cross_play": hanabi_cross_play,
        "table7_collab": collab,
        "per_decision": per_decision,
    }
    tables = {stem: build(frame) for stem, build in builders.items()}
    return AgenticReport(frame, {stem: t for stem, t in tables.items() if not t.empty})


def agentic_report(runs: Sequence[str | Path], out: str | Path | None = None) -> AgenticReport:
    """Load the episodes of ``runs`` (run directories), build the tables and optionally write.

    Exchanges are not read: the report needs only episodes and the agents' stats.
    """
    episodes = [e for run in runs for e in load_agentic_run(run, with_exchanges=False)]
    report = build_report(episodes)
    if out is not None:
        report.write(out)
    return report


def plot_report(frame: pd.DataFrame, out: Path) -> list[Path]:
    """Score per agent and pairing for each game/layout (mean ± SE bars), and cost vs score."""
    if frame.empty:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths: list[Path] = []
    frame = frame.assign(
        pairing=[f"{lab} + {p}" for lab, p in zip(frame["label"], frame["partner"], strict=True)],
        setting=[f"{g}\n{lay}" for g, lay in zip(frame["game"], frame["layout"], strict=True)],
    )
    settings = sorted(frame["setting"].unique())
    fig, axes = plt.subplots(1, len(settings), figsize=(4 * len(settings), 3.5), squeeze=False)
    for ax, setting in zip(axes[0], settings, strict=True):
        cut = frame[frame["setting"] == setting]
        stats = [(name, _mean_se(g["score"])) for name, g in cut.groupby("pairing")]
        ax.bar(
            range(len(stats)),
            [s.mean for _, s in stats],
            yerr=[0.0 if math.isnan(s.se) else s.se for _, s in stats],
            capsize=3,
        )
        ax.set_xticks(range(len(stats)), [name for name, _ in stats], rotation=45, ha="right")
        ax.set_title(setting, fontsize=9)
        ax.set_ylabel("score")
    paths.append(_save(fig, out / "scores.png"))
    costly = frame[frame["llm_calls"].notna()]
    if not costly.empty:
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for label, group in costly.groupby("label"):
            ax.scatter(
                group["prompt_tokens"] + group["completion_tokens"], group["score"], label=label
            )
        ax.set_xlabel("tokens per episode")
        ax.set_ylabel("score")
        ax.legend(fontsize=7)
        paths.append(_save(fig, out / "tokens_vs_score.png"))
    return paths


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
