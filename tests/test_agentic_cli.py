"""``coordqa agentic run``, ``grid`` and ``report`` through Typer's CliRunner."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from cli_support import coordqa
from typer.testing import CliRunner

from coordqa.agentic import load_agentic_run
from coordqa.agentic.records import LadderExchange
from coordqa.cli import app

runner = CliRunner()


def _flat(text: str) -> str:
    """Output with rich's line wrapping undone."""
    return " ".join(text.split())


def test_agentic_run_plays_stores_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [
        "agentic",
        "run",
        "--agent",
        "cac",
        "--model",
        "scripted",
        "--game",
        "collab_escape",
        "--partner",
        "escape-greedy",
        "--seeds",
        "0,1",
        "--no-tom",
        "--out",
        str(out),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Table 7" in result.output and "escaped" in result.output
    episodes = load_agentic_run(out)
    assert sorted(e.spec.seed for e in episodes) == [0, 1]
    assert all(e.spec.agent_options == {"use_tom": False} for e in episodes)
    assert not any(x.role == "tom" for e in episodes for x in e.exchanges)
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "0 played, 2 already done" in _flat(again.output)
    report_dir = tmp_path / "report"
    shown = runner.invoke(app, ["agentic", "report", str(out), "--out", str(report_dir)])
    assert shown.exit_code == 0, shown.output
    assert "2 episodes from 1 run" in _flat(shown.output)
    assert (report_dir / "table7_collab.csv").exists() and (report_dir / "scores.png").exists()


def test_the_progress_line_says_whose_moves_it_counts(tmp_path: Path) -> None:
    """The progress line counted both seats' moves as "decisions" (1,510) beside the table's
    agent decisions (710): it says "moves (both seats)", and the number is both seats'."""
    from coordqa.agentic.episodes import decisions_per_seat

    out = tmp_path / "run"
    args = ["--agent", "cac", "--model", "scripted", "--seeds", "0", "--no-tom"]
    done = coordqa(*_run_args(out), *args)
    assert done.returncode == 0, done.stderr
    (episode,) = load_agentic_run(out, with_exchanges=False)
    moves = sum(decisions_per_seat(episode.trajectory).values())
    assert f"{moves:,} moves (both seats)" in done.stderr
    assert " decisions," not in done.stderr
    # walkthrough 7, #77: beside the whole run's episodes, the moves and calls are this session's
    assert f"this session: {moves:,} moves" in done.stderr


def test_agentic_report_reads_the_runs_in_a_folder(tmp_path: Path) -> None:
    """As coordqa report does: a folder among the runs stands for the agentic runs inside it
    (it was refused as not a run)."""
    for seed in ("0", "1"):
        out = tmp_path / "runs" / f"s{seed}"
        played = coordqa(*_run_args(out), "--agent", "capture-planner", "--seeds", seed)
        assert played.returncode == 0, played.stderr
    report = coordqa("agentic", "report", tmp_path / "runs")
    assert report.returncode == 0, report.stderr
    assert "2 episodes from 2 runs" in " ".join(report.stderr.split())


def test_agentic_grid_command(tmp_path: Path) -> None:
    config = tmp_path / "grid.yaml"
    config.write_text(
        "agents: [hanabi-convention]\npartners: [self]\ngames: [{game: hanabi, seeds: [1, 2]}]\n"
    )
    result = runner.invoke(app, ["agentic", "grid", str(config), "--out", str(tmp_path / "g")])
    assert result.exit_code == 0, result.output
    assert "Table 2" in result.output and "2 played" in _flat(result.output)


def test_agentic_run_rejects_cac_flags_for_other_agents(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "agentic",
            "run",
            "--agent",
            "llm",
            "--game",
            "hanabi",
            "--no-verifier",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code != 0
    assert "--no-verifier sets use_verifier, an option of cac; agent 'llm'" in str(result.exception)
    both = runner.invoke(
        app,
        [
            "agentic",
            "run",
            "--agent",
            "llm",
            "--game",
            "hanabi",
            "--self-play",
            "--partner",
            "hanabi-iggi",
            "--out",
            str(tmp_path),
        ],
    )
    assert "not both" in str(both.exception)


def _run_args(out: Path) -> list[str]:
    game = ["--game", "collab_capture", "--partner", "capture-greedy"]
    return ["agentic", "run", *game, "--out", str(out)]


def _run(tmp_path: Path, *extra: str) -> Any:
    return runner.invoke(app, [*_run_args(tmp_path / "run"), *extra])


def test_model_is_required_for_llm_agents(tmp_path: Path) -> None:
    result = _run(tmp_path, "--agent", "cac")
    assert result.exit_code != 0
    assert "--model" in str(result.exception) and "scripted" in str(result.exception)
    assert "grid" not in str(result.exception)  # agentic run has no grid to add models to
    assert "agent cac calls a language model" in str(result.exception)
    assert not (tmp_path / "run").exists()
    assert _run(tmp_path, "--agent", "capture-planner", "--seeds", "0").exit_code == 0


def test_run_takes_sampling_episodes_and_agent_options(tmp_path: Path) -> None:
    result = _run(
        tmp_path,
        "--agent",
        "hm",
        "--model",
        "scripted",
        "--episodes",
        "2",
        "--temperature",
        "0.3",
        "--top-p",
        "0.5",
        "--max-tokens",
        "64",
        "--seed",
        "7",
        "--variant",
        "mmp",
        "--top-k",
        "3",
        "--reward",
        "0.5",
        "--threshold",
        "0.4",
    )
    assert result.exit_code == 0, result.output
    episodes = load_agentic_run(tmp_path / "run", with_exchanges=False)
    assert sorted(e.spec.seed for e in episodes) == [0, 1]
    spec = episodes[0].spec
    assert spec.generate == {"temperature": 0.3, "top_p": 0.5, "max_tokens": 64, "seed": 7}
    assert spec.agent_options == {"variant": "mmp", "top_k": 3, "c": 0.5, "threshold": 0.4}
    assert "decisions" in result.output and "model calls" in result.output


def test_uncapped_verifier_and_paper_preset_from_the_command_line(tmp_path: Path) -> None:
    result = _run(
        tmp_path, "--agent", "cac", "--model", "scripted", "--seeds", "0",
        "--preset", "paper", "--max-verifier-retries", "none",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (episode,) = load_agentic_run(tmp_path / "run", with_exchanges=False)
    assert episode.spec.preset == "paper"
    assert episode.spec.agent_options == {
        "use_tom": False,
        "use_verifier": False,
        "max_verifier_retries": None,
    }
    assert episode.spec.generate == {"temperature": 0.6, "top_p": 0.9}


def test_hm_flags_are_refused_for_other_agents(tmp_path: Path) -> None:
    result = _run(tmp_path, "--agent", "cac", "--model", "scripted", "--variant", "vmp")
    message = "--variant sets variant, an option of hm; agent 'cac' does not take it"
    assert result.exit_code != 0 and message in str(result.exception)


def test_registered_grid_by_name_with_a_model(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "agentic",
            "grid",
            "smoke",
            "--model",
            "scripted",
            "--episodes",
            "1",
            "--temperature",
            "0.1",
            "--out",
            str(tmp_path / "g"),
        ],
    )
    assert result.exit_code == 0, result.output
    episodes = load_agentic_run(tmp_path / "g", with_exchanges=False)
    assert {e.spec.seed for e in episodes} == {0}
    assert {e.spec.model for e in episodes if e.spec.agent == "cac"} == {"scripted"}
    assert all(e.spec.generate == {"temperature": 0.1} for e in episodes)


Play = tuple[str, str, str, list[str]]
"""What a scripted agentic run plays: game, partner, one seed, and the flags added."""


def _scripted_run(agent: str, play: Play, out: Path) -> Any:
    """``coordqa agentic run`` of ``agent`` with the scripted model."""
    game, partner, seed, flags = play
    args = ["agentic", "run", "--agent", agent, "--model", "scripted", "--game", game]
    args += ["--partner", partner, "--seeds", seed, *flags, "--out", str(out)]
    return runner.invoke(app, args)


def _played(agent: str, play: Play, out: Path) -> Any:
    """The one episode a scripted run of ``agent`` stored in ``out`` (the run must succeed)."""
    result = _scripted_run(agent, play, out)
    assert result.exit_code == 0, result.output
    (episode,) = load_agentic_run(out)
    return episode


def _refusal(agent: str, play: Play, out: Path) -> str:
    """Why a scripted run of ``agent`` is refused (the run must fail)."""
    result = _scripted_run(agent, play, out)
    assert result.exit_code != 0, result.output
    return str(result.exception)


def _per_decision_csv(run_dir: Path, folder: Path) -> str:
    """The per-decision table ``coordqa agentic report`` writes for ``run_dir`` into ``folder``."""
    shown = runner.invoke(app, ["agentic", "report", str(run_dir), "--out", str(folder)])
    assert shown.exit_code == 0, shown.output
    return (folder / "per_decision.csv").read_text()


def test_agentic_run_tom_level_reaches_the_agent_and_the_report(tmp_path: Path) -> None:
    out = tmp_path / "run"
    episode = _played("cac", ("collab_capture", "capture-greedy", "0", ["--tom-level", "2"]), out)
    assert episode.spec.agent_options == {"tom_level": 2}
    roles = {x.role for x in episode.exchanges}
    assert {"partner_belief", "partner_predict"} <= roles
    cost = _per_decision_csv(out, tmp_path / "report")
    assert "tom_level=2" in cost and "pred acc" in cost
    without_tom = ("collab_capture", "capture-greedy", "0", ["--tom-level", "1", "--no-tom"])
    assert "needs the ToM step" in _refusal("cac", without_tom, tmp_path / "refused")


def test_agentic_run_belief_state_for_hm(tmp_path: Path) -> None:
    out = tmp_path / "run"
    play: Play = ("collab_escape", "escape-greedy", "0", ["--belief-state"])
    episode = _played("hm", play, out)
    assert episode.spec.agent_options == {"belief_state": True}
    assert any(x.role == "belief" for x in episode.exchanges)
    assert "belief acc" in _per_decision_csv(out, tmp_path / "r")
    message = (
        "--belief-state sets belief_state, an option of cac, hm, planreact, react, reflexion; "
        "agent 'llm' does not"
    )
    assert message in _refusal("llm", play, tmp_path / "x")


def test_agentic_run_self_reflection_is_an_hm_option(tmp_path: Path) -> None:
    play: Play = ("collab_capture", "capture-greedy", "0", ["--self-reflection"])
    episode = _played("hm", play, tmp_path / "run")
    assert episode.spec.agent_options == {"self_reflection": True}
    assert "reflections" in episode.agent_stats[0]
    message = (
        "--self-reflection sets self_reflection, an option of hm, planreact, react, reflexion; "
        "agent 'cac' does not"
    )
    assert message in _refusal("cac", play, tmp_path / "x")


def test_agentic_run_tom_ladder_reaches_the_report(tmp_path: Path) -> None:
    out = tmp_path / "run"
    episode = _played("cac", ("hanabi", "hanabi-convention", "1", ["--tom-ladder", "3"]), out)
    assert episode.spec.agent_options == {"tom_ladder": 3}
    assert all(isinstance(x, LadderExchange) for x in episode.exchanges if x.role == "ladder")
    header = _per_decision_csv(out, tmp_path / "r").splitlines()[0]
    assert "ladder intro" in header and "ladder 2nd" in header


def test_every_agent_option_is_described_listed_and_flagged_from_its_dataclass() -> None:
    """The options dataclass is the one source: help, listing and docs/agentic.md follow it."""
    from coordqa.games.base import PLAYERS
    from coordqa.options import option_docs

    help_text = runner.invoke(app, ["agentic", "run", "-h"], terminal_width=200).output
    guide = (Path(__file__).parents[1] / "docs" / "agentic.md").read_text(encoding="utf-8")
    with_options = {name: spec for name, spec in PLAYERS.items() if spec.options}
    assert {"cac", "hm", "greedy_human"} <= set(with_options)
    for name, spec in with_options.items():
        listing = runner.invoke(app, ["agentic", "options", name], terminal_width=400).output
        for doc in option_docs(spec.options):
            assert doc.description, f"{name}.{doc.name} has no docstring"
            assert doc.name in listing
            if doc.flag is not None:
                assert doc.flag.name in help_text and f"{doc.name}=" in help_text
            if spec.kind == "llm":
                assert f"`{doc.name}`" in guide, (
                    f"docs/agentic.md does not list {name}'s {doc.name}"
                )


def test_agent_options_read_whole_at_80_columns() -> None:
    """Every description whole at 80 columns (the table's "what it does" column was 4
    characters wide there, each description cut into 4-character strips)."""
    from coordqa.games.base import PLAYERS
    from coordqa.options import option_docs

    listing = coordqa("agentic", "options", "cac", columns=80)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    joined = " ".join(" ".join(lines).split())
    for doc in option_docs(PLAYERS.get("cac").options):
        assert " ".join(doc.description.split()) in joined, doc.name
        assert doc.flag is None or doc.flag.name in joined


def test_any_option_by_agent_option_and_a_misspelt_one_is_named(tmp_path: Path) -> None:
    args = ["--agent", "hm", "--model", "scripted", "--episodes", "1"]
    result = _run(tmp_path, *args, "--agent-option", "variant=mmp", "--agent-option", "top_k=2")
    assert result.exit_code == 0, result.output
    (episode,) = load_agentic_run(tmp_path / "run", with_exchanges=False)
    assert episode.spec.agent_options == {"variant": "mmp", "top_k": 2}
    wrong = _run(tmp_path / "x", *args, "--agent-option", "top-k=2")
    assert "'hm' has no option 'top-k'" in str(wrong.exception)
    assert "Did you mean 'top_k'?" in str(wrong.exception)
    assert str(wrong.exception).startswith("--agent-option: ")
    assert "grid" not in str(wrong.exception)
    twice = _run(tmp_path / "y", *args, "--variant", "vmp", "--agent-option", "variant=mmp")
    assert "option variant is given twice" in str(twice.exception)


def test_report_tables_fit_80_columns_on_stdout_messages_on_stderr(tmp_path: Path) -> None:
    # two pairings in two runs: each has its own rows, sorted (escape-greedy before self)
    common = ["agentic", "run", "--agent", "hm", "--model", "scripted", "--game", "collab_escape"]
    runs = []
    for name, pairing in (("self", ["--self-play"]), ("greedy", ["--partner", "escape-greedy"])):
        runs.append(str(tmp_path / name))
        played = runner.invoke(app, [*common, *pairing, "--seeds", "0,1", "--out", runs[-1]])
        assert played.exit_code == 0, played.output
        assert "Table 7" in played.stdout and "played" not in played.stdout
    shown = runner.invoke(app, ["agentic", "report", *runs])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "4 episodes from 2 runs" in shown.stderr and "episodes from" not in shown.stdout
    decisions = shown.stdout[shown.stdout.index("Per decision") :]
    assert decisions.index("escape-greedy") < decisions.index("self /")
    assert "n=2" in shown.stdout and "mean ± SE [95% CI" in shown.stdout


def test_a_long_text_cell_wraps_alone_and_keys_and_measures_stay_whole() -> None:
    # the HM table holds a hypothesis's text: before, it took the whole width and folded the
    # keys and the measure names into 4-character strips ("labe", "l /", "rewa", "rd/s")
    import pandas as pd
    from rich.console import Console

    from coordqa.cli._tables import frame_table, long_if_wide

    text = " ".join(f"word{i}" for i in range(30))  # 209 characters
    frame = pd.DataFrame(
        {
            "label": ["hm[some/model-name]"],
            "partner": ["escape-greedy"],
            "game": ["collab_escape"],
            "validated": [text],
            "reward/step before": ["0.333"],
        }
    )
    keys = ("label", "partner", "game")
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(frame_table("HM", long_if_wide(frame, keys), keys))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    first = next(n for n, line in enumerate(lines) if line.split()[:1] == ["validated"])
    keys_shown = " ".join(" ".join(lines[:first]).split())  # the keys fold at their slashes
    under_header = keys_shown.rsplit("─", 1)[1].strip()
    assert under_header == "hm[some/model-name] / escape-greedy / collab_escape"
    assert any(line.split() == ["reward/step", "before", "0.333"] for line in lines)
    assert " ".join(" ".join(lines).split()).count(text) == 1  # every word, whole, in order


def test_long_form_labels_are_whole_and_cells_never_break() -> None:
    """Walkthrough 28 R4b: Table 4 of the paper grid at 80 columns put the label into a
    20-character column (``cac[scripted]`` / ``use_tom=False,`` / ... on 5 lines) and wrapped
    a seat's cell inside its interval (``... / 13.3 ± 6.7 [0.0,`` then ``20.0] n=3``). The label
    has the table's width; two cells too wide for a line break between cells, never inside."""
    import pandas as pd
    from rich.console import Console

    from coordqa.cli._tables import frame_table, long_if_wide

    label = "cac[scripted] use_tom=False, use_verifier=False; preset=paper"
    cells = ["13.3 ± 6.7 [0.0, 20.0] n=3", "80.0 ± 23.1 [40.0, 120.0] n=3"]
    frame = pd.DataFrame(
        {
            "label": [label],
            "partner": ["hp-asymmetric_advantages"],
            "asymmetric_advantages": [" / ".join(cells)],
            "counter_circuit_o_1order": [" / ".join(reversed(cells))],
        }
    )
    keys = ("label", "partner")
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(frame_table("Table 4", long_if_wide(frame, keys), keys))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    shown = [line.strip() for line in lines]
    below = shown[shown.index(next(s for s in shown if s.startswith("─"))) + 1 :]
    names = f"{label} / hp-asymmetric_advantages"
    # the label takes the whole width: it folds once, between words, not into 5 strips
    assert " ".join(below[:2]) == names, below
    for cell in cells:  # each cell whole on one line, twice
        assert sum(cell in line for line in lines) == 2, lines
    assert all(s.endswith(("n=3", "n=3 /")) for s in below[2:] if s), below


def test_run_without_a_partner_says_it_plays_self_play(tmp_path: Path) -> None:
    """Neither --partner nor --self-play played self-play without a word: one stderr line says
    so; --self-play given, nothing is said."""
    game = ["agentic", "run", "--agent", "capture-planner", "--game", "collab_capture"]
    chosen = coordqa(*game, "--seeds", "0", "--out", tmp_path / "a")
    assert chosen.returncode == 0, chosen.stderr
    assert "no --partner given: self-play" in chosen.stderr
    (episode,) = load_agentic_run(tmp_path / "a", with_exchanges=False)
    assert episode.spec.self_play
    asked = coordqa(*game, "--self-play", "--seeds", "0", "--out", tmp_path / "b")
    assert asked.returncode == 0, asked.stderr
    assert "no --partner given" not in asked.stderr


def test_run_help_gives_the_real_default_seeds() -> None:
    """--help said only "the paper's for Hanabi": every game's default is 3 seeds, 0, 1, 2
    but for Hanabi, and a run with neither --seeds nor --episodes plays them."""
    from coordqa.games import GAMES, game_profile

    help_text = _flat(runner.invoke(app, ["agentic", "run", "-h"], terminal_width=200).output)
    said = "default: the game's own, 0,1,2 for the built-in games but Hanabi: the paper's "
    assert f"{said}321,212,628 in self-play, 45,114,4788 with a partner" in help_text
    for name in GAMES.names():
        profile = game_profile(name)
        seeds = (profile.self_play_seeds, profile.cross_play_seeds)
        if name == "hanabi":
            assert seeds == ((321, 212, 628), (45, 114, 4788))
        else:
            assert seeds == ((0, 1, 2), (0, 1, 2))


def test_episodes_are_per_seat_and_the_run_says_how_many_it_plays(tmp_path: Path) -> None:
    """``--episodes 1 --partner P`` on Overcooked played 2 episodes (one per seat) without a
    word: --episodes' and --position's help say it, and the start and end lines give the count."""
    help_text = _flat(runner.invoke(app, ["agentic", "run", "-h"], terminal_width=200).output)
    assert "Episodes per seat" in help_text
    assert "default: the game's, both for Overcooked (the paper's Table 4), 0 for the others" in (
        help_text
    )
    out = tmp_path / "run"
    both = ["--agent", "capture-planner", "--position", "both", "--episodes", "1"]
    played = coordqa(*_run_args(out), *both)
    assert played.returncode == 0, played.stderr
    said = _flat(played.stderr)
    assert "playing 2 episodes: 1 per seat x 2 seats" in said
    assert f"run: {out} (2 played; 2 episodes: 1 per seat x 2 seats)" in said
    one_seat = coordqa(
        *_run_args(tmp_path / "one"), "--agent", "capture-planner", "--episodes", "1"
    )
    assert "playing 1 episode" in one_seat.stderr and "per seat" not in one_seat.stderr


def test_agent_and_partner_names_are_read_in_any_case(tmp_path: Path) -> None:
    """The docs call the agent "CAC"; ``--agent CAC`` was refused as unknown with no suggestion
    (walkthrough 11, #84), though ``--game Hanabi`` is read as ``hanabi``: a player's name is
    read in any case too, and stored as registered, so its option and the run say ``cac``."""
    args = ["--agent", "CAC", "--model", "scripted", "--seeds", "0", "--agent-option"]
    result = runner.invoke(
        app,
        ["agentic", "run", "--game", "collab_capture", "--partner", "Capture-Greedy"]
        + ["--out", str(tmp_path / "run"), *args, "use_tom=false"],
    )
    assert result.exit_code == 0, result.output
    (episode,) = load_agentic_run(tmp_path / "run", with_exchanges=False)
    assert (episode.spec.agent, episode.spec.partner) == ("cac", "capture-greedy")
    assert episode.spec.agent_options == {"use_tom": False}
    shown = runner.invoke(app, ["agentic", "options", "HM"])
    assert shown.exit_code == 0 and shown.output.startswith("hm: "), shown.output
    typo = _run(tmp_path / "typo", "--agent", "CAK", "--model", "scripted")
    assert "unknown agent 'CAK'. Did you mean 'cac'?" in str(typo.exception)


def test_a_resumed_run_opens_with_what_this_session_plays(tmp_path: Path) -> None:
    """Walkthrough 11 #85: raising --episodes from 1 to 3 on a run opened with ``playing 3
    episodes`` though 2 were played; the opening line says what this session plays, of how many,
    and the bar (which counts the whole run, as eval's does) says so."""
    out = tmp_path / "run"
    agent = ["--agent", "capture-planner"]
    first = coordqa(*_run_args(out), *agent, "--episodes", "1")
    assert first.returncode == 0, first.stderr
    more = coordqa(*_run_args(out), *agent, "--episodes", "3")
    assert more.returncode == 0, more.stderr
    said = _flat(more.stderr)
    assert "playing 2 of 3 episodes (1 already done)" in said
    assert "playing 3" not in said
    assert "episodes finished in the run" in said
    assert f"run: {out} (2 played, 1 already done; 3 episodes)" in said
    quiet = coordqa(*_run_args(out), *agent, "--episodes", "4", "--quiet")
    assert quiet.returncode == 0, quiet.stderr
    assert "playing" not in quiet.stderr


def test_self_play_says_its_episodes_are_per_layout(tmp_path: Path) -> None:
    """``--self-play --episodes 4`` on Overcooked printed ``playing 20 episodes`` without
    saying it is 4 per layout x 5 layouts; a partner's run explained its count."""
    horizon = ["--horizon", "5", "--episodes", "2"]
    self_play = coordqa(
        "agentic", "run", "--agent", "greedy_human", "--game", "overcooked", "--self-play",
        *horizon, "--out", str(tmp_path / "self"),
    )  # fmt: skip
    assert self_play.returncode == 0, self_play.stderr
    said = _flat(self_play.stderr)
    assert "playing 10 episodes: 2 per layout x 5 layouts" in said
    assert "(10 played; 10 episodes: 2 per layout x 5 layouts)" in said
    one_seat = coordqa(
        "agentic", "run", "--agent", "greedy_human", "--game", "overcooked",
        "--partner", "planner", "--position", "1", *horizon, "--out", str(tmp_path / "seat"),
    )  # fmt: skip
    assert "playing 10 episodes: 2 per layout x 5 layouts" in _flat(one_seat.stderr)


def test_progress_to_a_pipe_is_plain_whole_lines(tmp_path: Path) -> None:
    """Walkthrough 16 R4: `agentic run ... 2>&1 | head` showed the bar's last frame cut at the
    width: "episodes finished in th… this session: 11,550 moves (both seats), 31,020 model …".
    Not on a terminal, progress is plain whole lines (as `coordqa eval`'s), however narrow."""
    out = tmp_path / "run"
    agent = ["--agent", "capture-planner", "--episodes", "2"]
    result = coordqa(*_run_args(out), *agent, columns=40)
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    shown = [line for line in lines if line.startswith("episodes finished ")]
    assert shown[-1].startswith("episodes finished 2/2"), result.stderr
    counted = [line for line in shown if " | " in line]  # counters only where they changed
    assert counted, result.stderr
    assert all("this session: " in line and line.endswith("model calls") for line in counted)
    assert "━" not in result.stderr, result.stderr


def test_report_of_an_interrupted_run_says_it_is_incomplete_and_how_to_finish_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 23, h23g item 2: ``agentic report`` of a run stopped with Ctrl-C after some
    of its episodes said "3 episodes from 1 run", and its tables read as complete; nothing said
    that 5 more were never played. Each incomplete run is now said to be one, on the terminal
    and in report.md, in the words of the QA report (an incomplete run; run the command that
    wrote it again)."""
    from coordqa.agentic.episodes import EPISODES
    from coordqa.agentic.runner import RecordWriter

    real = RecordWriter.write
    written: list[str] = []

    async def interrupted_at_the_third(self: RecordWriter, stream: str, record: Any) -> None:
        await real(self, stream, record)
        if stream == EPISODES:
            written.append(stream)
            if len(written) == 3:
                raise KeyboardInterrupt

    monkeypatch.setattr(RecordWriter, "write", interrupted_at_the_third)
    out = tmp_path / "run"
    stopped = coordqa(
        "agentic", "run", "--agent", "capture-planner", "--game", "collab_capture",
        "--self-play", "--episodes", "8", "--parallel-episodes", "1", "--out", str(out),
    )  # fmt: skip
    assert stopped.returncode == 130, stopped.stderr
    monkeypatch.setattr(RecordWriter, "write", real)
    played = len(load_agentic_run(out, with_exchanges=False))
    assert played == 3
    report = coordqa("agentic", "report", out, "--out", tmp_path / "rep")
    assert report.returncode == 0, report.stderr
    said = (
        f"{out} is an incomplete run: played 3 of 8 episodes (5 not played yet), missing from "
        "the tables; run the command that wrote it again to finish it (`coordqa agentic "
        f"run` or `coordqa agentic grid` with the same options, --out {out})"
    )
    assert said in _flat(report.stderr), report.stderr
    assert "3 episodes from 1 run (1 incomplete run)" in _flat(report.stderr), report.stderr
    assert said in _flat((tmp_path / "rep" / "report.md").read_text())
    finished = coordqa(
        "agentic", "run", "--agent", "capture-planner", "--game", "collab_capture",
        "--self-play", "--episodes", "8", "--parallel-episodes", "1", "--out", str(out),
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    complete = coordqa("agentic", "report", out)
    assert "incomplete" not in complete.stdout + complete.stderr, complete.stderr
    assert "8 episodes from 1 run" in _flat(complete.stderr)


def test_ctrl_c_before_a_resumed_run_began_says_what_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 28, R2: a Ctrl-C while a run is checked, before it begins, says what its
    folder holds once it holds episodes, and how to resume."""
    from coordqa.agentic import runner as agentic_runner
    from coordqa.errors import NOTHING_STARTED

    out = tmp_path / "run"
    args = (
        "agentic", "run", "--agent", "capture-planner", "--game", "collab_capture",
        "--self-play", "--episodes", "2", "--out", str(out),
    )  # fmt: skip

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    real = agentic_runner.plan_grid
    monkeypatch.setattr(agentic_runner, "plan_grid", interrupted)
    fresh = coordqa(*args)
    assert fresh.returncode == 130 and fresh.stderr == f"{NOTHING_STARTED}\n", fresh.stderr
    monkeypatch.setattr(agentic_runner, "plan_grid", real)
    assert coordqa(*args).returncode == 0
    monkeypatch.setattr(agentic_runner, "plan_grid", interrupted)
    resumed = coordqa(*args)
    assert resumed.returncode == 130, resumed.stderr
    assert NOTHING_STARTED not in resumed.stderr
    assert "2 of 2 episodes finished (as the bar counts them)" in _flat(resumed.stderr)


def test_a_model_for_agents_that_call_none_is_refused(tmp_path: Path) -> None:
    """Walkthrough 31: `agentic run --agent escape-planner --model openai/gpt-4o` ran with no key,
    never called the model, and named the run after it; a setting that would be ignored is
    refused, as `--model-arg` for `random` is."""
    from cli_support import coordqa

    done = coordqa(
        "agentic", "run", "--agent", "escape-planner", "--model", "openai/gpt-4o",
        "--game", "collab_escape", "--self-play", "--episodes", "1", "--out", tmp_path / "r",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert "escape-planner calls no language model: leave --model out" in said, said
    assert not (tmp_path / "r").exists()
