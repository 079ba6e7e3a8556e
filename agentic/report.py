"""Tables and figures of agentic runs, in the shape of the LLM-Coordination paper's tables.

Everything is computed from stored episodes, read through
:class:`~coordqa.agentic.episodes.AgenticRun`: no model is called. Only played episodes enter
the tables; episodes that failed (a model call failed, the episode raised) or were skipped (a
player not ready) are left out, and counted and named with their cause
(:attr:`AgenticReport.failures`). A run with no played episode has no table, not an error.
Each cell is the mean ± SE over episodes (:class:`coordqa.analysis.stats.MeanSE`, the statistics
``coordqa play`` and the QA tables use); with one episode the cell says ``(n=1)`` instead of an SE,
and a cell with no episode is blank.

Rows are keyed by everything that makes a configuration: agent, model, agent options, preset and
game options (the ``label``, e.g. ``cac[gpt-4o] use_tom=False``), so full CAC, no-ToM and
no-verifier runs, or two horizons, never average into one row.

Each game's own tables are named by its profile (``GameProfile.report_tables``: a stem, a title
and one of the shapes of :data:`TABLE_SHAPES`); the four games' are the paper's:

- Table 1: Overcooked self-play score per layout;
- Table 2: Hanabi self-play score;
- Table 4: Overcooked cross-play score per layout, the agent in seat 0 / seat 1;
- Table 5: Hanabi score in self-play and with each partner;
- Table 7: Collab games: capture and escape rates, turns to capture / escape when won.

Every game's episodes go into:

- Table 3: the CAC ablation (LLM alone, + verifier, + verifier + ToM, + ToM), self-play score per
  game (and layout), one row per model and ablation step; built when a run holds at least two
  of them;
- plan optimality: steps to the goal (Collab win, first Overcooked delivery) against a planner's
  from the same start (:mod:`coordqa.agentic.optimality`);
- per decision: model calls, tokens, cost, latency, verifier rejections per verifier call,
  verifier replies without a verdict, fallbacks, repeated decisions, partner-prediction accuracy
  (HM's hypotheses, or CAC's k-level ToM: rows differ by ``tom_level``) and how often a level-2
  CAC agent did what it inferred its partner expected, belief-state accuracy (checked facts
  right), each the mean ± SE over episodes of the episode's own rate; self-reflections per
  episode (HM and its baselines); and the accuracy of the ToM question ladder per order
  (introspection, first, second).

``episodes.csv`` has one row per episode with every option as a column (``agent.<name>``,
``game.<name>``, ``generate.<name>``), integer counts, and blanks where a measure does not apply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from coordqa.agentic.agents.ladder import ORDERS as LADDER_ORDERS
from coordqa.agentic.episodes import NOT_READY, AgenticEpisode, read_agentic_run
from coordqa.agentic.optimality import optimality
from coordqa.analysis.stats import MeanSE
from coordqa.errors import ConfigError
from coordqa.games import GAMES, GameProfile, ReportTable, game_profile
from coordqa.jsonvalues import JSONObject
from coordqa.records import Failure

COUNT_COLUMNS = (
    "decisions",
    "forced",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "verifier_calls",
    "verifier_rejections",
    "verifier_missing",
    "fallbacks",
    "repeated_decisions",
    "failed_actions",
    "predictions_scored",
    "predictions_correct",
    "expectations_scored",
    "expectations_met",
    "belief_facts",
    "belief_correct",
    "reflections",
    *(f"ladder_{order}_{n}" for order in LADDER_ORDERS for n in ("asked", "correct")),
)
"""Agent statistics summed over the agent's seats in each episode (integers)."""
SUM_COLUMNS = ("cost", "latency_s")
"""Agent statistics summed over the agent's seats (real numbers)."""

TABLE_TITLES = {
    "table3_ablation": "Table 3: CAC ablation, self-play score (mean ± SE)",
    "plan_optimality": "Plan optimality: steps to the goal vs the planner's from the same start",
    "per_decision": "Per decision (mean ± SE over episodes)",
}
"""The tables every game's episodes go into, by file stem, with their titles (each game's own
tables, such as the paper's Tables 1, 2, 4, 5 and 7, are named by its profile's
``report_tables``)."""

ABLATION_STEPS = {
    (False, False): "LLM alone",
    (False, True): "+ verifier",
    (True, True): "+ verifier + ToM",
    (True, False): "+ ToM",
}
"""CAC's (use_tom, use_verifier) switches -> the paper's name of the ablation step, in order."""

SWITCHES = ("use_tom", "use_verifier")
"""The CAC options Table 3 varies."""

PLANNING_AGENTS = ("hm", "planreact", "react", "reflexion")
"""The agents that reflect on their plans (reflections per episode apply to them only)."""

LADDER_NAMES = {"introspection": "intro", "first_order": "1st", "second_order": "2nd"}
"""Short column names of the ToM ladder's orders."""


def _options_text(options: Mapping[str, Any], skip: Iterable[str] = ()) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items()) if k not in set(skip))


def configuration(episode: AgenticEpisode, skip: Iterable[str] = ()) -> str:
    """Agent options, preset and game options as one short text ('' when all are defaults)."""
    spec = episode.spec
    parts = [_options_text(spec.agent_options, skip), _options_text(spec.game_options)]
    if spec.preset != "coordqa":
        parts.append(f"preset={spec.preset}")
    return "; ".join(part for part in parts if part)


def label(episode: AgenticEpisode, skip: Iterable[str] = ()) -> str:
    """The row label: ``agent[model]`` plus its configuration."""
    spec = episode.spec
    who = spec.agent if spec.model is None else f"{spec.agent}[{spec.model}]"
    config = configuration(episode, skip)
    return f"{who} {config}" if config else who


def _agent_stats(episode: AgenticEpisode) -> JSONObject:
    """The agent's statistics summed over its seats; None where a seat did not report them."""
    seats = [episode.agent_stats[s] for s in episode.spec.agent_seats if s in episode.agent_stats]
    totals: dict[str, Any] = {}
    for name in (*COUNT_COLUMNS, *SUM_COLUMNS):
        if name == "verifier_calls":
            values = [s.get("calls_by_role", {}).get("verifier", 0) for s in seats]
        else:
            values = [s.get(name) for s in seats]
        known = [v for v in values if v is not None]
        complete = seats and len(known) == len(values)
        totals[name] = sum(known) if complete else None
    return totals


def _flat(prefix: str, options: Mapping[str, Any]) -> JSONObject:
    return {
        f"{prefix}.{k}": v if isinstance(v, (int, float, str, bool)) else json.dumps(v)
        for k, v in options.items()
    }


def episode_frame(episodes: Iterable[AgenticEpisode]) -> pd.DataFrame:
    """One row per episode: the pairing, every option, score, game metrics and agent stats."""
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
                "preset": spec.preset,
                "label": label(episode),
                "ablation_label": label(episode, skip=SWITCHES),
                "ablation_step": _ablation_step(episode),
                "partner": "self" if spec.partner is None else spec.partner,
                "position": spec.position,
                "seed": spec.seed,
                "score": episode.score,
                **_flat("agent", spec.agent_options),
                **_flat("game", spec.game_options),
                **_flat("generate", spec.generate),
                **{f"metric_{k}": v for k, v in episode.metrics.items()},
                **_agent_stats(episode),
                **optimality(episode),
            }
        )
    frame = pd.DataFrame(rows)
    for name in COUNT_COLUMNS:
        if name in frame:
            frame[name] = frame[name].astype("Int64")
    typed = [c for c in frame.columns if c.startswith(("agent.", "game.", "generate.", "metric_"))]
    if typed:  # options and metrics keep their own types (3, not 3.0) with blanks
        frame[typed] = frame[typed].convert_dtypes(convert_string=False)
    return frame


def _ablation_step(episode: AgenticEpisode) -> str | None:
    """The paper's name of a CAC episode's ablation step (None for other agents)."""
    if episode.spec.agent != "cac":
        return None
    options = episode.spec.agent_options
    return ABLATION_STEPS[tuple(bool(options.get(name, True)) for name in SWITCHES)]  # type: ignore[index]


def _mean_se(values: Iterable[Any]) -> MeanSE:
    known = [float(v) for v in values if v is not None and not pd.isna(v)]
    return MeanSE.of(known)


def cell(values: Iterable[Any], digits: int = 2) -> str:
    """``mean ± SE``; ``mean (n=1)`` for one value; '' for none (blank, never NaN)."""
    stat = _mean_se(values)
    if stat.n == 0:
        return ""
    if stat.n == 1:
        return f"{stat.mean:.{digits}f} (n=1)"
    return stat.format(digits=digits)


def _pivot(frame: pd.DataFrame, rows: Sequence[str], column: str, value: str) -> pd.DataFrame:
    """Mean ± SE of ``value`` with one row per ``rows`` group and one column per ``column``."""
    if frame.empty:
        return pd.DataFrame()
    table = frame.groupby([*rows, column], sort=False)[value].apply(cell)
    return table.unstack(column, fill_value="").reset_index().rename_axis(columns=None)


def _self_play(frame: pd.DataFrame, self_play: bool) -> pd.DataFrame:
    return frame[(frame["partner"] == "self") == self_play] if not frame.empty else frame


def self_play(frame: pd.DataFrame, games: Mapping[str, GameProfile]) -> pd.DataFrame:
    """Self-play score, one column (Table 2 for Hanabi)."""
    cut = _self_play(frame, True).assign(column="score")
    return _pivot(cut, ["label"], "column", "score")


def self_play_by_layout(frame: pd.DataFrame, games: Mapping[str, GameProfile]) -> pd.DataFrame:
    """Self-play score: rows are configurations, columns layouts (Table 1 for Overcooked)."""
    return _pivot(_self_play(frame, True), ["label"], "layout", "score")


def ablation(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 3: CAC's ablation steps in self-play, per model and other options.

    Only games (and layouts) where one configuration was played with at least two ablation
    steps appear: a preset that merely configures each game differently is not an ablation.
    """
    if frame.empty:
        return pd.DataFrame()
    cut = frame[frame["ablation_step"].notna() & (frame["partner"] == "self")]
    cut = cut.assign(
        setting=[
            f"{game} {layout}" if _several_layouts(game) else game
            for game, layout in zip(cut["game"], cut["layout"], strict=True)
        ]
    )
    steps = cut.groupby(["ablation_label", "setting"])["ablation_step"].transform("nunique")
    cut = cut[steps >= 2]
    if cut.empty:
        return pd.DataFrame()
    cut = cut.assign(
        step=pd.Categorical(cut["ablation_step"], categories=list(ABLATION_STEPS.values()))
    )
    table = cut.groupby(["ablation_label", "step", "setting"], observed=True)["score"].apply(cell)
    table = table.unstack("setting", fill_value="").reset_index().rename_axis(columns=None)
    table = table.rename(columns={"ablation_label": "label", "step": "CAC"})
    return table.sort_values(["label", "CAC"], kind="stable").reset_index(drop=True)


def _several_layouts(game: str) -> bool:
    return len(GAMES.get(game).layouts) > 1


def cross_play_by_seat(frame: pd.DataFrame, games: Mapping[str, GameProfile]) -> pd.DataFrame:
    """Cross-play: rows are configuration and partner, columns layouts, cells seat 0 / seat 1.

    Table 4 for Overcooked.
    """
    cut = _self_play(frame, False)
    if cut.empty:
        return pd.DataFrame()

    def sides(group: pd.DataFrame) -> str:
        seats = [cell(group.loc[group["position"] == seat, "score"], 1) for seat in (0, 1)]
        return " / ".join(seat or "–" for seat in seats)

    table = cut.groupby(["label", "partner", "layout"], sort=False)[["position", "score"]]
    return (
        table.apply(sides).unstack("layout", fill_value="").reset_index().rename_axis(columns=None)
    )


def cross_play_by_partner(frame: pd.DataFrame, games: Mapping[str, GameProfile]) -> pd.DataFrame:
    """Rows are configurations, columns self-play and each partner (Table 5 for Hanabi)."""
    cut = frame.assign(
        column=["self-play" if p == "self" else f"with {p}" for p in frame["partner"]]
    )
    return _pivot(cut, ["label"], "column", "score")


def won(frame: pd.DataFrame, games: Mapping[str, GameProfile]) -> pd.DataFrame:
    """Win rate and turns when won, per configuration and partner.

    Table 7 for the Collab games (capture and escape).
    """
    if frame.empty:
        return pd.DataFrame()
    rows: list[dict[str, Any]] = []
    for (row_label, partner), group in frame.groupby(["label", "partner"], sort=False):
        row: dict[str, Any] = {"label": row_label, "partner": partner}
        for name, profile in games.items():
            if profile.win is None:
                raise ConfigError(
                    f"game {name!r} lists a 'won' report table but its GameProfile has no win"
                )
            cut = group[group["game"] == name]
            metric, noun = f"metric_{profile.win.metric}", profile.win.noun
            if cut.empty or metric not in cut:
                continue
            row[f"{noun} rate"] = cell(cut[metric])
            if "metric_turns" in cut:
                row[f"turns to {noun}"] = cell(cut.loc[cut[metric] == 1.0, "metric_turns"])
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


TABLE_SHAPES: Mapping[str, Callable[[pd.DataFrame, Mapping[str, GameProfile]], pd.DataFrame]] = {
    "self_play": self_play,
    "self_play_by_layout": self_play_by_layout,
    "cross_play_by_seat": cross_play_by_seat,
    "cross_play_by_partner": cross_play_by_partner,
    "won": won,
}
"""How a game's report table is laid out (``ReportTable.shape`` in its profile), by name."""


def plan_optimality(frame: pd.DataFrame) -> pd.DataFrame:
    """Per configuration, partner, game and layout: goal reached, steps, the planner's, ratio.

    Steps and the ratio average over the episodes that reached the goal (see
    :mod:`coordqa.agentic.optimality`).
    """
    if frame.empty or "optimal_steps" not in frame:
        return pd.DataFrame()
    cut = frame[frame["reached_goal"].notna()]
    if cut.empty:
        return pd.DataFrame()
    rows = []
    keys = ["label", "partner", "game", "layout"]
    for key, group in cut.groupby(keys, sort=False):
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "episodes": len(group),
                "goal reached": cell(group["reached_goal"]),
                "steps": cell(group["steps_to_goal"].dropna(), 1),
                "planner steps": cell(group["optimal_steps"].dropna(), 1),
                "steps / planner": cell(group["steps_over_optimal"].dropna(), 2),
            }
        )
    return pd.DataFrame(rows)


def _rate(part: pd.Series, whole: pd.Series) -> pd.Series:
    """Per-episode ``part / whole``; None where ``whole`` is 0 or unknown (no data is not 0)."""
    return pd.Series(
        [
            None if pd.isna(w) or w == 0 or pd.isna(p) else p / w
            for p, w in zip(part, whole, strict=True)
        ],
        index=part.index,
        dtype=object,
    )


def per_decision(frame: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and game: each measure per decision, mean ± SE over episodes."""
    if frame.empty:
        return pd.DataFrame()
    llm = frame[frame["llm_calls"].notna() & (frame["decisions"].fillna(0) > 0)]
    rows: list[dict[str, Any]] = []
    for (row_label, game), group in llm.groupby(["label", "game"], sort=False):
        decisions = group["decisions"]
        tokens = group["prompt_tokens"] + group["completion_tokens"]
        rates = {
            "calls/dec": _rate(group["llm_calls"], decisions),
            "tokens/dec": _rate(tokens, decisions),
            "cost/dec": _rate(group["cost"], decisions),
            "latency/dec s": _rate(group["latency_s"], decisions),
            "verifier reject": _rate(group["verifier_rejections"], group["verifier_calls"]),
            "no verdict/dec": _rate(group["verifier_missing"], decisions),
            "fallback": _rate(group["fallbacks"], decisions),
            "repeated": _rate(group["repeated_decisions"], decisions),
            "pred acc": _rate(group["predictions_correct"], group["predictions_scored"]),
            "L2 belief met": _rate(group["expectations_met"], group["expectations_scored"]),
            "belief acc": _rate(group["belief_correct"], group["belief_facts"]),
            "reflections/ep": group["reflections"].where(group["agent"].isin(PLANNING_AGENTS)),
            **{
                f"ladder {LADDER_NAMES[order]}": _rate(
                    group[f"ladder_{order}_correct"], group[f"ladder_{order}_asked"]
                )
                for order in LADDER_ORDERS
            },
        }
        rows.append(
            {
                "label": row_label,
                "game": game,
                "episodes": len(group),
                "decisions": int(decisions.sum()),
                **{name: cell(values, 3) for name, values in rates.items()},
            }
        )
    return pd.DataFrame(rows)


@dataclass
class AgenticReport:
    """The tables of one or more agentic runs."""

    episodes: pd.DataFrame
    """One row per episode (see :func:`episode_frame`)."""
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Every non-empty table, by file stem."""
    titles: dict[str, str] = field(default_factory=dict)
    """The title of each table, by file stem."""
    failures: dict[str, Failure] = field(default_factory=dict)
    """Episodes left out of the tables, by key: failed or skipped, with the cause."""

    def write(self, out: str | Path) -> list[Path]:
        """Write each table as CSV, a Markdown report and the figures; return the paths."""
        from coordqa.analysis import markdown_table

        root = Path(out)
        root.mkdir(parents=True, exist_ok=True)
        written = [self._write_csv(root / "episodes.csv", self.episodes)]
        sections = ["# Agentic report", ""]
        for stem, table in self.tables.items():
            written.append(self._write_csv(root / f"{stem}.csv", table))
            sections += [f"## {self.titles[stem]}", "", markdown_table(table), ""]
        if self.failures:
            sections += [f"## {self.left_out()}", ""]
            sections += [f"- `{key}`: {f.error}" for key, f in sorted(self.failures.items())]
            sections.append("")
        figures = plot_report(self.episodes, root)
        sections += [f"![{path.stem}]({path.name})" for path in figures]
        report = root / "report.md"
        report.write_text("\n".join(sections) + "\n", encoding="utf-8")
        return [*written, *figures, report]

    def left_out(self) -> str:
        """How many episodes the tables leave out, and why, in one line."""
        failed = sum(f.error_kind != NOT_READY for f in self.failures.values())
        skipped = len(self.failures) - failed
        return (
            f"{len(self.failures)} episode(s) left out of the tables: {failed} failed, "
            f"{skipped} skipped (a player not ready); the same run command plays them again"
        )

    @staticmethod
    def _write_csv(path: Path, table: pd.DataFrame) -> Path:
        table.to_csv(path, index=False, na_rep="")
        return path


def build_report(episodes: Iterable[AgenticEpisode]) -> AgenticReport:
    """All tables of a set of episodes (tables with no matching episode are left out).

    The games' own tables (their profiles' ``report_tables``) and the ablation come in stem
    order (the paper's table numbers first), then plan optimality and the per-decision measures.
    """
    frame = episode_frame(episodes)
    titles = dict(TABLE_TITLES)
    tables = {"table3_ablation": ablation(frame)}
    for table, games in _game_tables(frame).items():
        cut = frame[frame["game"].isin(list(games))]
        tables[table.stem] = TABLE_SHAPES[table.shape](cut, games)
        titles[table.stem] = table.title
    ordered = {stem: tables[stem] for stem in sorted(tables)}
    ordered["plan_optimality"] = plan_optimality(frame)
    ordered["per_decision"] = per_decision(frame)
    kept = {stem: table for stem, table in ordered.items() if not table.empty}
    return AgenticReport(frame, kept, {stem: titles[stem] for stem in kept})


def _game_tables(frame: pd.DataFrame) -> dict[ReportTable, dict[str, GameProfile]]:
    """Each report table the played games' profiles name, with those games (by name, sorted).

    Raises:
        ConfigError: two games give one stem different titles or shapes, or a shape is unknown.
    """
    played = sorted(set(frame["game"])) if not frame.empty else []
    by_stem: dict[str, tuple[ReportTable, dict[str, GameProfile]]] = {}
    for name in played:
        profile = game_profile(name)
        for table in profile.report_tables:
            if table.shape not in TABLE_SHAPES:
                raise ConfigError(
                    f"game {name!r}: report table {table.stem!r} has shape {table.shape!r}; "
                    f"shapes: {', '.join(TABLE_SHAPES)}"
                )
            known, games = by_stem.setdefault(table.stem, (table, {}))
            if known != table:
                raise ConfigError(
                    f"report table {table.stem!r} is declared differently by {name!r} "
                    f"({table}) and by {', '.join(games)} ({known})"
                )
            games[name] = profile
    return {table: games for table, games in by_stem.values()}


def agentic_report(runs: Sequence[str | Path], out: str | Path | None = None) -> AgenticReport:
    """Load the episodes of ``runs`` (run directories), build the tables and optionally write.

    Exchanges are not read: the report needs only episodes and the agents' stats. Episodes
    that were not played are named in :attr:`AgenticReport.failures`.
    """
    readers = [read_agentic_run(run) for run in runs]
    report = build_report(e for run in readers for e in run.episodes(with_exchanges=False))
    report.failures = {key: f for run in readers for key, f in run.failures().items()}
    if out is not None:
        report.write(out)
    return report


def plot_report(frame: pd.DataFrame, out: Path) -> list[Path]:
    """The report's figures: scores and tokens against score, one panel per game.

    ``scores.png``: mean ± SE bars per configuration and pairing, layouts on the x axis.
    """
    if frame.empty:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame = frame.assign(
        pairing=[
            f"{lab} + {p}" if p != "self" else f"{lab} (self-play)"
            for lab, p in zip(frame["label"], frame["partner"], strict=True)
        ]
    )
    games = list(dict.fromkeys(frame["game"]))
    paths = [_save(_score_panels(plt, frame, games), out / "scores.png")]
    costly = frame[frame["llm_calls"].notna()]
    if not costly.empty:
        paths.append(_save(_token_panels(plt, costly), out / "tokens_vs_score.png"))
    return paths


def _score_panels(plt: Any, frame: pd.DataFrame, games: list[str]) -> Any:
    """One panel per game: layouts on the x axis, one bar per pairing, legend below."""
    fig, axes = plt.subplots(
        len(games), 1, figsize=(10, 3.6 * len(games)), squeeze=False, layout="constrained"
    )
    for ax, game in zip(axes[:, 0], games, strict=True):
        cut = frame[frame["game"] == game]
        layouts = list(dict.fromkeys(cut["layout"]))
        pairings = list(dict.fromkeys(cut["pairing"]))
        width = 0.8 / len(pairings)
        for index, pairing in enumerate(pairings):
            stats = [
                _mean_se(cut[(cut["layout"] == lay) & (cut["pairing"] == pairing)]["score"])
                for lay in layouts
            ]
            ax.bar(
                [x + (index - (len(pairings) - 1) / 2) * width for x in range(len(layouts))],
                [0.0 if s.n == 0 else s.mean for s in stats],
                width,
                yerr=[0.0 if s.n < 2 else s.se for s in stats],
                capsize=2,
                label=pairing,
            )
        if (cut["score"] >= 0).all():
            ax.set_ylim(bottom=0, top=max(1.0, ax.get_ylim()[1]))
        ax.set_xticks(range(len(layouts)), layouts, fontsize=8)
        ax.set_title(game, fontsize=10)
        ax.set_ylabel("score (mean ± SE)")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def _token_panels(plt: Any, frame: pd.DataFrame) -> Any:
    """Tokens per episode against score, one panel per game, one colour per configuration."""
    games = list(dict.fromkeys(frame["game"]))
    fig, axes = plt.subplots(
        1, len(games), figsize=(4.2 * len(games) + 2.5, 3.6), squeeze=False, layout="constrained"
    )
    for ax, game in zip(axes[0], games, strict=True):
        cut = frame[frame["game"] == game]
        for row_label, group in cut.groupby("label", sort=False):
            tokens = (group["prompt_tokens"] + group["completion_tokens"]).astype(float)
            ax.scatter(tokens, group["score"], label=row_label, s=14)
        ax.set_title(game, fontsize=10)
        ax.set_xlabel("tokens per episode", fontsize=8)
        ax.set_ylabel("score", fontsize=8)
        ax.tick_params(labelsize=7)
    legend: dict[str, Any] = {}
    for ax in axes[0]:
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(name, handle)
    fig.legend(legend.values(), legend.keys(), fontsize=7, loc="outside right upper", frameon=False)
    return fig


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
