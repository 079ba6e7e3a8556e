"""Does the agents' pipeline carry good decisions into score? The ``bot`` benchmark (issue 23).

Run by hand, once: ``python benchmarks/bench_bot.py [--seeds 10] [--horizon 100] [--out DIR]``.
Everything is offline; two agentic grids are played into ``--out`` through the real runner (so
``coordqa agentic report DIR/ratio DIR/noise`` shows them too):

1. ``ratio``: the agents (:data:`AGENTS`: ``llm``, ``cac``, ``hm``, ``react``, ``reflexion``,
   ``planreact``) with the model ``bot`` (which answers from each game's strong policy, acting
   from the agent's own seat view), and the strong policies themselves as players, in all four
   games (Overcooked on its five layouts, ``--horizon`` timesteps), in self-play and with one
   scripted partner in seat 1 (:data:`PARTNERS`), on seeds 0..N-1. For each game, pairing and
   agent: the agent's mean score over the policy's on the same (layout, seed) pairs, with a
   paired bootstrap 95% CI (:func:`coordqa.analysis.paired_ratio`). With a perfect pipeline it
   is 1.
2. ``noise``: ``llm`` with ``bot?noise=p`` for each p of ``--noise`` (p = 0 is grid 1's ``llm``
   with ``bot``), Overcooked on cramped_room only: each game's score against decision accuracy
   (how often the agent's action was the strong policy's, :mod:`coordqa.agentic.agreement`).

Every difference from the policy is given a pipeline cause from what the episodes store:
decisions where the agent's action was not the policy's, fallbacks by reason (with ``bot`` a
reply is unreadable only when the policy's action was not among the offered options:
``unmappable``), verifier rejections, actions the game could not complete (grounding), and how
many episodes replayed the policy's trajectory exactly.

Prints the tables (stdout) and progress (stderr); writes ``bench_bot.md``, the episode tables
and ``bot-noise.png`` (also to ``benchmarks/artifacts/`` with ``--artifacts``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from coordqa.agentic import load_agentic_run, parse_grid, run_grid
from coordqa.agentic.episodes import AgenticEpisode
from coordqa.analysis import markdown_table, paired_ratio
from coordqa.analysis.stats import MeanSE
from coordqa.games import game_profile
from coordqa.jsonvalues import content_hash

AGENTS = ("llm", "cac", "hm", "react", "reflexion", "planreact")
"""Every registered LLM agent: the paper's two, the LLM-only baseline and HM's baselines."""
GAMES = ("overcooked", "hanabi", "collab_capture", "collab_escape")
PARTNERS = {
    "overcooked": "greedy_human",
    "hanabi": "hanabi-piers",
    "collab_capture": "capture-greedy",
    "collab_escape": "escape-greedy",
}
"""One scripted partner per game (none of them the game's strong policy)."""
NOISE = (0.1, 0.25, 0.5, 1.0)
NOISE_LAYOUT = "cramped_room"
ARTIFACTS = Path(__file__).parent / "artifacts"


def grid(name: str, agents: list[str], models: list[str], options: argparse.Namespace) -> dict:
    """A grid of ``agents`` x ``models`` over the four games, self-play and the partner."""
    seeds = list(range(options.seeds))
    layouts = None if name == "ratio" else [NOISE_LAYOUT]
    games = []
    for game in GAMES:
        entry: dict[str, object] = {"game": game, "seeds": seeds}
        if game == "overcooked":
            entry.update(layouts=layouts, horizon=options.horizon)
        games.append(entry)
    return {
        "name": f"bench-bot-{name}",
        "agents": agents,
        "models": models,
        "partners": ["self", *PARTNERS.values()],
        "positions": 0,
        "games": games,
        "runtime": {"parallel_episodes": options.parallel},
    }


def play(name: str, data: dict, out: Path) -> list[AgenticEpisode]:
    """Play (or resume) one grid into ``out/name``; return its episodes."""
    started = time.perf_counter()
    result = run_grid(parse_grid(data), out / name)
    if result.failures or not result.complete:
        raise SystemExit(f"{name}: {len(result.failures)} episode(s) failed: {result.failures[:3]}")
    seconds = time.perf_counter() - started
    print(f"{name}: {result.total} episodes ({len(result.played)} played) in {seconds:.0f} s",
          file=sys.stderr)  # fmt: skip
    return load_agentic_run(result.run_dir, with_exchanges=False)


def pairing(episode: AgenticEpisode) -> str:
    """``self`` or the partner's name."""
    return "self" if episode.spec.partner is None else episode.spec.partner


def moves(episode: AgenticEpisode) -> str:
    """A hash of what was played (every step's decisions), to find identical episodes."""
    return content_hash([step.decisions for step in episode.trajectory.steps])


def episode_rows(episodes: Iterable[AgenticEpisode]) -> pd.DataFrame:
    """One row per episode with what the tables need."""
    rows = []
    for episode in episodes:
        spec = episode.spec
        stats = [episode.agent_stats.get(seat, {}) for seat in spec.agent_seats]
        reasons = [s.get("fallback_reasons", {}) for s in stats]
        agreement = list(episode.agreement.values())
        rows.append(
            {
                "game": spec.game,
                "layout": spec.layout,
                "seed": spec.seed,
                "pairing": pairing(episode),
                "agent": spec.agent,
                "model": spec.model or "",
                "score": episode.score,
                "moves": moves(episode),
                "decisions": sum(a.decisions for a in agreement),
                "agreed": sum(a.agreed for a in agreement),
                "fallbacks": sum(s.get("fallbacks", 0) for s in stats),
                "unmappable": sum(r.get("unreadable", 0) for r in reasons),
                "verifier_cap": sum(r.get("verifier_cap", 0) for r in reasons),
                "rejections": sum(s.get("verifier_rejections", 0) for s in stats),
                "failed_actions": sum(s.get("failed_actions", 0) for s in stats),
                "shadow_errors": sum(a.error is not None for a in agreement),
            }
        )
    return pd.DataFrame(rows)


def with_policy(frame: pd.DataFrame) -> pd.DataFrame:
    """Each agent episode beside the strong policy's episode of the same task."""
    strong = {game: game_profile(game).strong_policy for game in GAMES}
    is_policy = frame["agent"] == frame["game"].map(strong)
    keys = ["game", "layout", "seed", "pairing"]
    policy = frame[is_policy][[*keys, "score", "moves"]]
    joined = frame[~is_policy].merge(policy, on=keys, suffixes=("", "_policy"), how="left")
    if joined["score_policy"].isna().any():
        raise SystemExit("some agent episodes have no policy episode of the same task")
    return joined


def ratio_table(joined: pd.DataFrame) -> pd.DataFrame:
    """Game x pairing rows, one column per agent: score / policy score, paired 95% CI, n.

    ``distinct``: how many of the policy's n episodes differ from each other.
    """
    rows = []
    agents = sorted(set(joined["agent"]))
    for (game, partner), group in joined.groupby(["game", "pairing"], sort=True):
        row = {"game": game, "pairing": partner}
        for agent in agents:
            cut = group[group["agent"] == agent]
            row[agent] = paired_ratio(cut["score"], cut["score_policy"]).format()
        policy = group[group["agent"] == agents[0]]
        row["policy score"] = MeanSE.of(list(policy["score_policy"]))
        # Overcooked and Collab Capture are deterministic (and so are their policies): their
        # seeds replay a few distinct episodes, which n alone would overstate
        row["distinct"] = f"{policy['moves_policy'].nunique()} of {len(policy)}"
        rows.append(row)
    table = pd.DataFrame(rows)
    table["policy score"] = [f"{s.mean:.2f} ± {s.se:.2f}" for s in table["policy score"]]
    return table


def causes_table(joined: pd.DataFrame) -> pd.DataFrame:
    """Per game and agent: what could lose score, counted."""
    rows = []
    for (game, agent), group in joined.groupby(["game", "agent"], sort=True):
        decisions = int(group["decisions"].sum())
        rows.append(
            {
                "game": game,
                "agent": agent,
                "episodes": len(group),
                "same as policy": int((group["moves"] == group["moves_policy"]).sum()),
                "decisions": decisions,
                "not the policy's": decisions - int(group["agreed"].sum()),
                "fallbacks": int(group["fallbacks"].sum()),
                "unmappable": int(group["unmappable"].sum()),
                "verifier cap": int(group["verifier_cap"].sum()),
                "rejections": int(group["rejections"].sum()),
                "failed actions": int(group["failed_actions"].sum()),
                "shadow errors": int(group["shadow_errors"].sum()),
            }
        )
    return pd.DataFrame(rows)


def noise_table(frame: pd.DataFrame, joined: pd.DataFrame) -> pd.DataFrame:
    """Per game, pairing and noise: decision accuracy and score (mean ± SE, n)."""
    clean = joined[(joined["agent"] == "llm") & (joined["model"] == "bot")]
    clean = clean[(clean["game"] != "overcooked") | (clean["layout"] == NOISE_LAYOUT)]
    noisy = frame[frame["model"].str.startswith("bot?")]
    cut = pd.concat([clean, noisy])
    cut = cut.assign(noise=[_noise(m) for m in cut["model"]])
    rows = []
    for (game, partner, noise), group in cut.groupby(["game", "pairing", "noise"], sort=True):
        score = MeanSE.of(list(group["score"]))
        rows.append(
            {
                "game": game,
                "pairing": partner,
                "noise": noise,
                "accuracy": group["agreed"].sum() / max(1, group["decisions"].sum()),
                "decisions": int(group["decisions"].sum()),
                "score": score.mean,
                "se": score.se,
                "n": score.n,
            }
        )
    return pd.DataFrame(rows)


def _noise(model: str) -> float:
    return float(model.partition("noise=")[2] or 0.0)


def plot_noise(table: pd.DataFrame, path: Path, seeds: int) -> Path:
    """Score against decision accuracy, one panel per game, one line per pairing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(table["game"]))
    columns = 2
    rows = -(-len(games) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(9, 3.3 * rows), squeeze=False,
                             layout="constrained")  # fmt: skip
    for ax, game in zip(axes.flat, games, strict=False):
        for partner, group in table[table["game"] == game].groupby("pairing", sort=True):
            group = group.sort_values("accuracy")
            shown = "self-play" if partner == "self" else f"with {partner}"
            ax.errorbar(group["accuracy"], group["score"], yerr=group["se"].fillna(0.0),
                        marker="o", ms=4, capsize=2, label=shown)  # fmt: skip
            for _, row in group.iterrows():
                ax.annotate(f"{row['noise']:g}", (row["accuracy"], row["score"]), fontsize=6,
                            xytext=(3, -8), textcoords="offset points")  # fmt: skip
        ax.set_title(game, fontsize=10)
        ax.set_xlabel("decision accuracy (share of the strong policy's moves)", fontsize=8)
        ax.set_ylabel("score (mean ± SE)", fontsize=8)
        ax.set_xlim(-0.03, 1.05)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="upper left")
    for ax in list(axes.flat)[len(games) :]:
        ax.set_visible(False)
    fig.suptitle(f"llm agent with bot?noise=p (p by each point), {seeds} seeds", fontsize=10)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main() -> None:
    """Play both grids, print and write the tables and the figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 per pairing")
    parser.add_argument("--agents", nargs="*", default=list(AGENTS), help="agents under test")
    parser.add_argument("--horizon", type=int, default=100, help="Overcooked timesteps")
    parser.add_argument("--noise", type=float, nargs="*", default=list(NOISE))
    parser.add_argument("--parallel", type=int, default=4, help="episodes in flight at once")
    parser.add_argument("--out", type=Path, default=Path("runs/bench-bot"))
    parser.add_argument("--artifacts", action="store_true", help="copy the figure to artifacts/")
    options = parser.parse_args()
    started = time.perf_counter()
    policies = [game_profile(game).strong_policy or "" for game in GAMES]
    players = [*options.agents, *policies]
    ratio = play("ratio", grid("ratio", players, ["bot"], options), options.out)
    models = [f"bot?noise={p:g}" for p in options.noise]
    noise = play("noise", grid("noise", ["llm"], models, options), options.out)
    joined = with_policy(episode_rows(ratio))
    tables = {
        "Agent with bot over the strong policy in the same seats (score ratio, paired "
        "bootstrap 95% CI)": ratio_table(joined),
        "What could lose score, per game and agent (counts over the episodes)": causes_table(
            joined
        ),
    }
    noisy = noise_table(episode_rows(noise), joined)
    tables["Score against decision accuracy (llm with bot?noise=p)"] = noisy.round(3)
    figure = plot_noise(noisy, options.out / "bot-noise.png", options.seeds)
    if options.artifacts:
        shutil.copy(figure, ARTIFACTS / figure.name)
    lines = [
        f"seeds 0-{options.seeds - 1}; Overcooked horizon {options.horizon} (noise: "
        f"{NOISE_LAYOUT}); partners in seat 1: {PARTNERS}; {time.perf_counter() - started:.0f} s"
    ]
    for title, table in tables.items():
        print(f"\n{title}\n{table.to_string(index=False)}")
        lines += ["", f"### {title}", "", markdown_table(table)]
    (options.out / "bench_bot.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\n{lines[0]}\nwritten: {options.out / 'bench_bot.md'}, {figure}", file=sys.stderr)


if __name__ == "__main__":
    main()
