"""A fifth game from another package: registered only through entry points, first-class in
every track.

``tests/plugins/toygame`` is the Lamps game written as a third party would write it (engine,
strong policy, question builder and profile in one folder). The test installs it the way pip
leaves a package: a ``.dist-info`` folder with its ``entry_points.txt`` on the path of fresh
``coordqa`` processes; no coordqa file names it. Everything below is then done through the
command line: building its questions, ``coordqa eval --games lamps``, an agentic grid with CAC
and HM (the offline ``scripted`` model), a report and ``coordqa play``.

Expected values come from the rules of Lamps (``toygame/game.py``): the ``scripted`` model
always answers with option A; offered actions list the lamps that are off in ascending order,
then ``Wait``. So a scripted agent in Alice's seat switches on the lowest-numbered lamp that is
off, which is exactly the convention's move for Alice: with the convention player as Bob every
episode is won in the convention's own number of turns; in self-play both seats switch on the
same lamp, the fuse trips every turn, and no episode is won.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_support import coordqa, coordqa_refused, installed_fixture

from coordqa.directives import DIRECTIVES
from coordqa.prompts import SEVERAL_CORRECT

ENTRY_POINTS = """\
[coordqa.games]
lamps = toygame.game:Lamps

[coordqa.players]
toygame = toygame.players:PLAYERS

[coordqa.scenario_builders]
lamps = toygame.questions:BUILDER
"""


installed = installed_fixture("coordqa-lamps", ENTRY_POINTS)
"""The environment of a process that has the Lamps distribution installed."""


@pytest.mark.slow  # two real processes
def test_qa_questions_are_built_and_asked_with_the_games_wording(
    installed: dict[str, str], tmp_path: Path
) -> None:
    dataset, run = tmp_path / "lamps-qa", tmp_path / "run"
    coordqa(installed, "dataset", "generate", "--game", "lamps", "--count", "2", "--seed", "0",
            "--out", str(dataset))  # fmt: skip
    coordqa(installed, "eval", "--model", "scripted", "--dataset", str(dataset), "--games",
            "lamps", "--trials", "1", "--out", str(run), "--quiet")  # fmt: skip
    questions = [json.loads(line) for line in (run / "questions.jsonl").open()]
    assert len(questions) == 6 and {q["game"] for q in questions} == {"lamps"}
    # every prompt opens with Lamps' own directive (its profile), not coordqa's default
    opening = "You are switching on lamps together with a partner."
    for question in questions:
        system = question["messages"][0]["content"]
        assert system.startswith(opening) and system != DIRECTIVES[question["question_type"]]
        # the game's wording, then the sentence every question from v1.2 on ends with
        wording = system.removesuffix(f"\n{SEVERAL_CORRECT}")
        assert wording != system
        assert wording.split(".", 1)[1] == DIRECTIVES[question["question_type"]].split(".", 1)[1]
    scores = [json.loads(line) for line in (run / "scores.jsonl").open()]
    assert len(scores) == 6 and all(s["status"] == "answered" for s in scores)


@pytest.mark.slow  # two real processes
def test_cac_and_hm_play_it_and_the_report_reads_its_profile(
    installed: dict[str, str], tmp_path: Path
) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(
        "name: lamps\nagents: [cac, hm]\nmodels: [scripted]\n"
        "partners: [self, lamps-convention]\ngames:\n  - game: lamps\n    episodes: 1\n"
    )
    run, report = tmp_path / "run", tmp_path / "report"
    coordqa(installed, "agentic", "grid", str(grid), "--out", str(run))
    episodes = [json.loads(line) for line in (run / "episodes.jsonl").open()]
    assert len(episodes) == 4  # 2 agents x (self-play, the convention partner)
    for episode in episodes:
        spec, metrics = episode["spec"], episode["metrics"]
        with_convention = spec["partner"] == "lamps-convention"
        assert metrics["lit"] == (1.0 if with_convention else 0.0), spec
    hm_self = [e for e in episodes if e["spec"]["agent"] == "hm" and e["spec"]["partner"] is None]
    for episode in hm_self:
        # HM's behaviour space comes from the profile (the partner's legal actions): the partner,
        # the same scripted agent, takes option A, which HM's scripted model predicts
        stats = episode["agent_stats"]["0"]
        assert stats["predictions_scored"] == 3 and stats["predictions_correct"] == 3
    coordqa(installed, "agentic", "report", str(run), "--out", str(report))
    optimality = (report / "plan_optimality.csv").read_text().splitlines()
    won = [row for row in optimality if ",lamps-convention," in row]
    assert len(won) == 2 and all(row.endswith(",1.00 (n=1)") for row in won)
    assert "Lamps self-play" in (report / "report.md").read_text()


@pytest.mark.slow  # a real process
def test_play_uses_the_strong_policy(installed: dict[str, str]) -> None:
    out = coordqa(installed, "play", "lamps", "--episodes", "2")
    assert "players: lamps-convention, lamps-convention" in out
    assert "turns when lit" in out


@pytest.mark.slow  # a real process
def test_an_agent_feature_the_profile_does_not_serve_is_refused_before_the_run(
    installed: dict[str, str], tmp_path: Path
) -> None:
    """Lamps' profile gives no belief facts: --belief-state is refused when the command is read
    (exit 2, the profile field named), as --tom-ladder is, and no run folder is made."""
    out = tmp_path / "run"
    for feature in (["--belief-state"], ["--tom-ladder", "1"]):
        done = coordqa_refused(installed, "agentic", "run", "--agent", "cac", "--model",
                               "scripted", "--game", "lamps", "--self-play", *feature,
                               "--out", str(out))  # fmt: skip
        assert done.returncode == 2, done.stderr
        field = "belief_facts" if feature[0] == "--belief-state" else "tom_ladder"
        assert f"names no agents.{field}" in " ".join(done.stderr.split())
        assert not out.exists()
