"""Tables and figures of agentic runs, in the shape of the LLM-Coordination paper's tables.

Everything is computed from stored episodes, read through
:class:`~coordqa.agentic.episodes.AgenticRun`: no model is called. Several runs are pooled by
episode key, an episode two runs hold counted once (:mod:`coordqa.agentic.pooling`). Only played
episodes enter the tables; episodes that failed (a model call failed, the episode raised) or
were skipped (a player not ready) are left out, and counted and named with their cause
(:attr:`AgenticReport.failures`). A run with no played episode has no table, not an error.
Each cell is the mean ± SE over its episodes with a 95% bootstrap interval and its n,
``12.33 ± 0.88 [10.67, 13.67] n=3`` (:class:`coordqa.analysis.stats.MeanSE` and
:func:`coordqa.analysis.stats.mean_ci`, the statistics of ``coordqa play`` and the QA tables);
one episode says ``(n=1)``; episodes that all played the same moves in a game whose seed does not
change it (``GameProfile.seeded`` false: Collab Capture, Overcooked; a deterministic model) are
one episode played n times, and the cell says ``(1 distinct episode, n=10)`` rather than
``± 0.00``. A cell with no episode is blank. Self-play and each partner are always rows (or
columns) of their own, never averaged together.

Rows are keyed by everything that makes a configuration: agent, model, agent options, preset and
game options (the ``label``, e.g. ``cac[gpt-4o] use_tom=False``), so full CAC, no-ToM and
no-verifier runs, or two horizons, never average into one row.

Each game's own tables are named by its profile (``GameProfile.agents.report_tables``: a stem, a
title and one of the shapes of :data:`TABLE_SHAPES`); the four games' are the paper's:

- Table 1: Overcooked self-play score per layout;
- Table 2: Hanabi self-play score;
- Table 4: Overcooked cross-play score per layout, the agent in seat 0 / seat 1;
- Table 5: Hanabi score in self-play and with each partner;
- Table 7: Collab games: wins (``escaped 7/10``, with the rate's Wilson interval) and turns to
  capture / escape over the won episodes.

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

``episodes.csv`` has one row per episode with every option as a column: ``agent.<name>`` the
value the agent played with (given, else its options class's default: :func:`played_options`),
``game.<name>`` and ``generate.<name>`` what was given (blank: the game's or model's default);
integer counts, and blanks where a measure or an option does not apply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from coordqa.agentic.episodes import NOT_READY, AgenticEpisode, AgenticRun, read_agentic_run
from coordqa.agentic.optimality import optimality
from coordqa.agentic.pooling import moves, pool_episodes
from coordqa.agentic.records import Failure
from coordqa.agentic.reply_counts import ReplyCounts
from coordqa.analysis.stats import MeanSE, mean_cell, proportion_ci
from coordqa.errors import ConfigError
from coordqa.games import GAMES, LADDER_ORDERS, PLAYERS, GameProfile, ReportTable, game_profile
from coordqa.jsonvalues import JSONObject
from coordqa.outputs import AGENTIC_REPORT, generated_output, in_output
from coordqa.words import counted

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
AGREEMENT_COLUMNS = ("policy_decisions", "policy_agreed")
"""Decisions of the agent's seats with a choice, and those that agreed with the strong policy."""
"""Agent statistics summed over the agent's seats (real numbers)."""

TABLE_TITLES = {
    "table3_ablation": "Table 3: CAC ablation, self-play score (mean ± SE)",
    "plan_optimality": (
        "Plan optimality: steps to the goal vs the strong policy's in the agent's seats, same "
        "partner and start"
    ),
    "per_decision": "Per decision (mean ± SE [95% CI] n over episodes)",
    "hm_validation": "HM: first validated hypothesis, reward per step before and after",
}
"""The tables every game's episodes go into, by file stem, with their titles (each game's own
tables, such as the paper's Tables 1, 2, 4, 5 and 7, are named by its profile's
``agents.report_tables``)."""

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


def _agreement(episode: AgenticEpisode) -> JSONObject:
    """The agent's decisions with a choice and those that agreed with the strong policy.

    Summed over the agent's seats; blanks when it was not measured.
    """
    found = [episode.agreement[s] for s in episode.spec.agent_seats if s in episode.agreement]
    decisions, agreed = AGREEMENT_COLUMNS
    if not found:
        return {decisions: None, agreed: None}
    return {decisions: sum(a.decisions for a in found), agreed: sum(a.agreed for a in found)}


def _flat(prefix: str, options: Mapping[str, Any]) -> JSONObject:
    return {
        f"{prefix}.{k}": v if isinstance(v, (int, float, str, bool)) else json.dumps(v)
        for k, v in options.items()
    }


def played_options(episode: AgenticEpisode) -> Mapping[str, Any]:
    """The agent's options as it played them: those given over its defaults.

    An agent this install does not register (a plugin's, since removed) shows what was given.
    """
    spec = episode.spec
    if spec.agent not in PLAYERS:
        return spec.agent_options
    return PLAYERS.get(spec.agent).played_options(spec.agent_options)


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
                "moves": moves(episode),
                **_flat("agent", played_options(episode)),
                **_flat("game", spec.game_options),
                **_flat("generate", spec.generate),
                **{f"metric_{k}": v for k, v in episode.metrics.items()},
                **_agent_stats(episode),
                **_agreement(episode),
                **optimality(episode),
            }
        )
    frame = pd.DataFrame(rows)
    for name in (*COUNT_COLUMNS, *AGREEMENT_COLUMNS):
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
    options = played_options(episode)
    return ABLATION_STEPS[tuple(bool(options[name]) for name in SWITCHES)]  # type: ignore[index]


def _mean_se(values: Iterable[Any]) -> MeanSE:
    known = [float(v) for v in values if v is not None and not pd.isna(v)]
    return MeanSE.of(known)


def summary(values: pd.Series, episodes: pd.Series, digits: int = 2) -> str:
    """One cell: ``mean ± SE [95% CI] n=N`` of ``values`` over the episodes that have one.

    ``episodes`` holds each value's episode (:func:`moves`, same index): when all are one
    episode replayed, the cell says ``mean (1 distinct episode, n=N)``, since an SE of 0 over
    copies says nothing about uncertainty. One value: ``mean (n=1)``; none: '' (blank, never
    NaN).
    """
    known = values.notna() & values.map(lambda v: v is not None)
    kept = [float(v) for v in values[known]]
    return mean_cell(kept, episodes[known].nunique(), digits)


def cell(group: pd.DataFrame, column: str, digits: int = 2) -> str:
    """The :func:`summary` of ``column`` over the episodes of ``group``."""
    return summary(group[column], group["moves"], digits)


def _pivot(frame: pd.DataFrame, rows: Sequence[str], column: str, value: str) -> pd.DataFrame:
    """Cells of ``value`` with one row per ``rows`` group and one column per ``column``."""
    if frame.empty:
        return pd.DataFrame()
    groups = frame.groupby([*rows, column], sort=True)
    table = groups[[value, "moves"]].apply(lambda group: cell(group, value))
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
    groups = cut.groupby(["ablation_label", "step", "setting"], observed=True)
    table = groups[["score", "moves"]].apply(lambda group: cell(group, "score"))
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
        seats = [cell(group[group["position"] == seat], "score", 1) for seat in (0, 1)]
        return " / ".join(seat or "–" for seat in seats)

    table = cut.groupby(["label", "partner", "layout"], sort=True)[["position", "score", "moves"]]
    return (
        table.apply(sides).unstack("layout", fill_value="").reset_index().rename_axis(columns=None)
    )


def cross_play_by_partner(frame: pd.DataFrame, games: Mapping[str, GameProfile]) -> pd.DataFrame:
    """Rows are configurations, columns self-play and each partner (Table 5 for Hanabi)."""
    cut = frame.assign(
        column=["self-play" if p == "self" else f"with {p}" for p in frame["partner"]]
    )
    return _pivot(cut, ["label"], "column", "score")


def wins(group: pd.DataFrame, metric: str, verb: str) -> str:
    """``escaped 7/10 [0.40, 0.89]``: the won episodes of ``group`` and the rate's 95% CI.

    The interval is Wilson's (:func:`~coordqa.analysis.stats.proportion_ci`): a bootstrap of 0
    of 5 resamples only zeros, [0.00, 0.00].

    One episode replayed (:func:`summary`) says ``(1 distinct episode)`` instead of an interval.
    """
    values = group[metric].dropna()
    won, n = int((values == 1.0).sum()), len(values)
    if n == 0:
        return ""
    text = f"{verb} {won}/{n}"
    if n == 1:
        return text
    if group.loc[values.index, "moves"].nunique() == 1:
        return f"{text} (1 distinct episode)"
    return f"{text} {proportion_ci(won, n).format(2)}"


def won(frame: pd.DataFrame, games: Mapping[str, GameProfile]) -> pd.DataFrame:
    """Wins (``escaped 7/10`` and the rate's CI) and turns over the won episodes.

    One row per configuration and partner. Table 7 for the Collab games (capture and escape).
    """
    if frame.empty:
        return pd.DataFrame()
    rows: list[dict[str, Any]] = []
    for (row_label, partner), group in frame.groupby(["label", "partner"], sort=True):
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
            row[f"{noun}s"] = wins(cut, metric, profile.win.metric)
            if "metric_turns" in cut:
                row[f"turns to {noun}"] = cell(cut[cut[metric] == 1.0], "metric_turns")
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
    """Per configuration, partner, game and layout: goal reached, steps, the reference's, ratio.

    The reference is the game's strong policy in the agent's seats with the same partner from
    the same start; steps and the ratio are over the episodes that reached the goal (see
    :mod:`coordqa.agentic.optimality`).
    """
    if frame.empty or "reference_steps" not in frame:
        return pd.DataFrame()
    cut = frame[frame["reached_goal"].notna()]
    if cut.empty:
        return pd.DataFrame()
    rows = []
    keys = ["label", "partner", "game", "layout"]
    for key, group in cut.groupby(keys, sort=True):
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "goal reached": cell(group, "reached_goal"),
                "steps": cell(group, "steps_to_goal", 1),
                "reference steps": cell(group, "reference_steps", 1),
                "steps / reference": cell(group, "steps_over_reference", 2),
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
    """Per configuration, game and partner: each measure per decision, over episodes.

    Each cell summarises the episodes' own rates (:func:`summary`); self-play and each partner
    are rows of their own (a partner changes what is predicted and how the agent plays).
    """
    if frame.empty:
        return pd.DataFrame()
    llm = frame[frame["llm_calls"].notna() & (frame["decisions"].fillna(0) > 0)]
    rows: list[dict[str, Any]] = []
    keys = ["label", "game", "partner"]
    for key, group in llm.groupby(keys, sort=True):
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
            "policy agree": _rate(group["policy_agreed"], group["policy_decisions"]),
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
                **dict(zip(keys, key, strict=True)),
                "decisions": int(decisions.sum()),
                **{name: summary(values, group["moves"], 3) for name, values in rates.items()},
            }
        )
    return pd.DataFrame(rows)


def hm_hypotheses(episodes: Iterable[AgenticEpisode]) -> pd.DataFrame:
    """Every hypothesis of every HM seat: its text, final value, decision made, predictions."""
    rows = []
    for episode in episodes:
        spec = episode.spec
        if spec.agent != "hm":
            continue
        for seat in spec.agent_seats:
            stats = episode.agent_stats.get(seat, {})
            for hypothesis in stats.get("hypotheses", []):
                rows.append(
                    {
                        "label": label(episode),
                        "game": spec.game,
                        "partner": "self" if spec.partner is None else spec.partner,
                        "seed": spec.seed,
                        "seat": seat,
                        **hypothesis,
                        "first validated": hypothesis["id"] == stats.get("first_validated"),
                    }
                )
    return pd.DataFrame(rows)


def _per_step(rewards: Sequence[float]) -> str:
    """Mean reward per step, 3 decimals ('' for no step)."""
    return f"{sum(rewards) / len(rewards):.3f}" if rewards else ""


def hm_validation(episodes: Iterable[AgenticEpisode]) -> pd.DataFrame:
    """Per HM episode and seat: its first validated hypothesis, when, and reward around it.

    The Hypothetical Minds paper's Figure 3 shows reward rising once a hypothesis about the
    partner is validated; here each HM seat gives the validated hypothesis's text, the decision
    and turn of its validation, and the shared reward per step before that turn and from it on
    (a turn is one step in every game: an Overcooked timestep, a Hanabi move, a Collab turn).
    Seats that never validated one get a row with blanks, so the table says how often it
    happens.
    """
    rows = []
    for episode in episodes:
        spec = episode.spec
        if spec.agent != "hm":
            continue
        rewards = [step.reward for step in episode.trajectory.steps]
        for seat in spec.agent_seats:
            stats = episode.agent_stats.get(seat, {})
            hypotheses = {int(h["id"]): h for h in stats.get("hypotheses", [])}
            first = stats.get("first_validated")
            turn = stats.get("first_validation_turn")
            row: dict[str, Any] = {
                "label": label(episode),
                "game": spec.game,
                "partner": "self" if spec.partner is None else spec.partner,
                "seed": spec.seed,
                "seat": seat,
                "hypotheses": len(hypotheses),
                "validated": "",
                "decision": "",
                "turn": "",
                "reward/step before": "",
                "reward/step after": "",
            }
            if first is not None and turn is not None and first in hypotheses:
                row.update(
                    validated=str(hypotheses[first]["text"]),
                    decision=str(stats.get("first_validation_decision")),
                    turn=str(turn),
                    **{
                        "reward/step before": _per_step(rewards[:turn]),
                        "reward/step after": _per_step(rewards[turn:]),
                    },
                )
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    return table.sort_values(["label", "game", "partner", "seed", "seat"], ignore_index=True)


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
    hypotheses: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Every HM hypothesis (see :func:`hm_hypotheses`); written, not printed."""
    replies: ReplyCounts = field(default_factory=ReplyCounts)
    """What the agents made of their models' replies, per role (printed after the tables)."""
    notes: list[str] = field(default_factory=list)
    """What pooling several runs did to n (:meth:`coordqa.agentic.pooling.PooledEpisodes.notes`):
    printed on stderr and written at the top of report.md."""
    incomplete: list[str] = field(default_factory=list)
    """Each run that played fewer episodes than it plans (interrupted, or with episodes left
    out), in a line (:func:`incomplete_said`): printed on stderr and written at the top of
    report.md."""

    def write(self, out: str | Path) -> list[Path]:
        """Write each table as CSV, a Markdown report and the figures; return the paths.

        ``out`` is a generated output folder (:func:`~coordqa.outputs.generated_output`):
        missing, empty or holding an earlier agentic report, which is removed first.
        """
        with generated_output(out, AGENTIC_REPORT) as root:
            return in_output(self._write_files(root), root, out)

    def _write_files(self, root: Path) -> list[Path]:
        """The tables, report.md and figures into ``root`` (checked and created)."""
        from coordqa.analysis import markdown_table

        written = [self._write_csv(root / "episodes.csv", self.episodes)]
        if not self.hypotheses.empty:
            written.append(self._write_csv(root / "hm_hypotheses.csv", self.hypotheses))
        sections = ["# Agentic report", ""]
        for line in self.incomplete:
            sections += [f"**Warning:** {line}", ""]
        for note in self.notes:
            sections += [f"**Note:** {note}", ""]
        for stem, table in self.tables.items():
            written.append(self._write_csv(root / f"{stem}.csv", table))
            sections += [f"## {self.titles[stem]}", "", markdown_table(table), ""]
        if self.replies.lines():
            sections += ["## Replies, per role", ""]
            sections += [f"- {line}" for line in self.replies.lines()]
            warning = self.replies.all_fell_back_warning()
            sections += ["", f"**Warning:** {warning}"] if warning else []
            sections.append("")
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
        """How many episodes the tables leave out, why, and what plays them, in one line.

        A failed episode is played again by the same run command; a skipped one only once its
        player is ready: the same command skips it again while the weights are not installed
        (walkthrough 18 R9b). The fix itself is each skip's cause, listed under this line: the
        registry's advice (what is missing, how to install or train it), stored with the skip.
        """
        failed = sum(f.error_kind != NOT_READY for f in self.failures.values())
        skipped = len(self.failures) - failed
        if not skipped:
            then = "the same run command plays them again"
        elif not failed:
            then = (
                "make each player ready as its cause below says, then the same run command "
                "plays them"
            )
        else:
            then = (
                "the same run command plays the failed ones again, and the skipped ones once "
                "you make each player ready as its cause below says"
            )
        return (
            f"{len(self.failures)} episode(s) left out of the tables: {failed} failed, "
            f"{skipped} skipped (a player not ready); {then}"
        )

    @staticmethod
    def _write_csv(path: Path, table: pd.DataFrame) -> Path:
        table.to_csv(path, index=False, na_rep="")
        return path


def build_report(episodes: Iterable[AgenticEpisode]) -> AgenticReport:
    """All tables of a set of episodes (tables with no matching episode are left out).

    The games' own tables (their profiles' ``agents.report_tables``) and the ablation come in stem
    order (the paper's table numbers first), then plan optimality, the per-decision measures and
    HM's validated hypotheses.
    """
    episodes = list(episodes)
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
    ordered["hm_validation"] = hm_validation(episodes)
    kept = {stem: table for stem, table in ordered.items() if not table.empty}
    titled = {stem: titles[stem] for stem in kept}
    seats = [stats for episode in episodes for stats in episode.agent_stats.values()]
    return AgenticReport(
        frame,
        kept,
        titled,
        hypotheses=hm_hypotheses(episodes),
        replies=ReplyCounts.of(seats),
    )


def _game_tables(frame: pd.DataFrame) -> dict[ReportTable, dict[str, GameProfile]]:
    """Each report table the played games' profiles name, with those games (by name, sorted).

    Raises:
        ConfigError: two games give one stem different titles or shapes, or a shape is unknown.
    """
    played = sorted(set(frame["game"])) if not frame.empty else []
    by_stem: dict[str, tuple[ReportTable, dict[str, GameProfile]]] = {}
    for name in played:
        profile = game_profile(name)
        for table in profile.agents.report_tables:
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


INCOMPLETE_LEFT_OUT = "missing from the tables"
"""What an incomplete agentic run's episodes not played yet are to its report."""


def incomplete_said(run: AgenticRun) -> str | None:
    """The run in a line if some episodes were not played yet (an interrupted run), else None.

    In the QA report's words (:func:`coordqa.analysis.accuracy.incomplete_run_said`)::

        runs/ag is an incomplete run: played 3 of 8 episodes (5 not played yet), missing from
        the tables; run the command that wrote it again to finish it (...)

    Episodes that failed or were skipped are counted here too, but said by
    :meth:`AgenticReport.left_out`, with what plays them: a skipped episode is played only once
    its player is ready, so a run whose only unplayed episodes failed or were skipped has no
    line here.
    """
    from coordqa.analysis.accuracy import incomplete_run_said

    counts = run.counts()
    if counts.planned is None or counts.complete:
        return None
    waiting = counts.planned - counts.done - counts.failed - counts.skipped
    if waiting <= 0:
        return None
    also = counts.failed + counts.skipped
    listed = f"; {also} failed or skipped, listed below" if also else ""
    lacks = f"played {counts.done} of {counted(counts.planned, 'episode')} "
    lacks += f"({waiting} not played yet{listed})"
    how = f"`coordqa agentic run` or `coordqa agentic grid` with the same options, --out {run.path}"
    return incomplete_run_said(str(run.path), lacks, INCOMPLETE_LEFT_OUT, how)


def agentic_report(runs: Sequence[str | Path], out: str | Path | None = None) -> AgenticReport:
    """Load the episodes of ``runs`` (run directories), build the tables and optionally write.

    Exchanges are not read: the report needs only episodes and the agents' stats. An episode
    several runs hold is counted once (:mod:`coordqa.agentic.pooling`, said in
    :attr:`AgenticReport.notes`); runs whose partner played two checkpoints are refused
    (:func:`~coordqa.agentic.partners.played.mixed_checkpoints_problem`). Episodes that were
    not played are named in :attr:`AgenticReport.failures`.
    """
    from coordqa.agentic.partners.played import mixed_checkpoints_problem

    readers = [read_agentic_run(run) for run in runs]
    played = [run.episodes(with_exchanges=False) for run in readers]
    if problem := mixed_checkpoints_problem(list(zip(map(str, runs), played, strict=True))):
        raise ConfigError(problem)
    pooled = pool_episodes(played, [run.failures() for run in readers])
    report = build_report(pooled.episodes)
    report.failures = pooled.failures
    report.notes = pooled.notes()
    report.incomplete = [said for run in readers if (said := incomplete_said(run))]
    if out is not None:
        report.write(out)
    return report


def plot_report(frame: pd.DataFrame, out: Path) -> list[Path]:
    """The report's figures, one panel per game.

    ``scores.png``: mean ± SE bars per configuration and pairing, layouts on the x axis;
    ``tokens_vs_score.png``: tokens per episode against score; ``accuracy_vs_score.png``: score
    against decision accuracy (agreement with the strong policy), one point per configuration
    and pairing, joined per agent and partner (``bot?noise=p`` runs draw the noise curve).
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
    measured = frame[frame["policy_decisions"].fillna(0) > 0]
    if not measured.empty:
        paths.append(_save(_accuracy_panels(plt, measured), out / "accuracy_vs_score.png"))
    return paths


def accuracy_points(frame: pd.DataFrame) -> pd.DataFrame:
    """Per game, agent, partner and configuration: decision accuracy and score.

    Accuracy pools the decisions of the group's episodes (agreed / decisions with a choice);
    the score is the mean ± SE over its episodes.
    """
    rows = []
    for (game, agent, partner, row_label), group in frame.groupby(
        ["game", "agent", "partner", "label"], sort=True
    ):
        decisions = int(group["policy_decisions"].sum())
        score = _mean_se(group["score"])
        rows.append(
            {
                "game": game,
                "agent": agent,
                "partner": partner,
                "label": row_label,
                "accuracy": int(group["policy_agreed"].sum()) / decisions,
                "score": score.mean,
                "se": 0.0 if score.n < 2 else score.se,
            }
        )
    return pd.DataFrame(rows)


def _accuracy_panels(plt: Any, frame: pd.DataFrame) -> Any:
    """Score against decision accuracy, one panel per game, one line per agent and partner."""
    points = accuracy_points(frame)
    games = list(dict.fromkeys(points["game"]))
    fig, axes = plt.subplots(
        1, len(games), figsize=(4.2 * len(games) + 2.5, 3.6), squeeze=False, layout="constrained"
    )
    for ax, game in zip(axes[0], games, strict=True):
        cut = points[points["game"] == game]
        for (agent, partner), line in cut.groupby(["agent", "partner"], sort=True):
            line = line.sort_values("accuracy")
            ax.errorbar(
                line["accuracy"], line["score"], yerr=line["se"], marker="o", ms=3, capsize=2,
                label=f"{agent} + {partner}",
            )  # fmt: skip
        ax.set_xlim(-0.02, 1.02)
        ax.set_title(game, fontsize=10)
        ax.set_xlabel("decision accuracy (agrees with the strong policy)", fontsize=8)
        ax.set_ylabel("score (mean ± SE)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    return fig


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
