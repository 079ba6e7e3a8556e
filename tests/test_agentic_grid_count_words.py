"""``agentic grid`` refuses a changed seed count in the grid file's words, not ``agentic run``'s.

A grid file's game entry sets its episodes with ``episodes:`` or ``seeds:``; ``agentic grid`` has
no ``--seeds`` (its ``--episodes`` overrides every entry), so a refusal that says "give --seeds
4,7" or "leave out --episodes and --seeds" names what the command does not take. ``agentic run``
keeps its options' words (tests/test_agentic_more_episodes.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa

BODY = "agents: [capture-planner]\npartners: [self]\ngames: [{{game: collab_capture, {count}}}]\n"
"""A grid of one offline agent on one game; ``count`` is its entry's ``episodes:`` or ``seeds:``."""


def _refusal(tmp_path: Path, first: str, then: str) -> str:
    """The one-line refusal of the grid rewritten from ``first`` to ``then`` on its run."""
    spec, out = tmp_path / "grid.yaml", tmp_path / "g"
    spec.write_text(BODY.format(count=first))
    started = coordqa("agentic", "grid", spec, "--out", out)
    assert started.returncode == 0, started.stderr
    spec.write_text(BODY.format(count=then))
    refused = coordqa("agentic", "grid", spec, "--out", out)
    assert refused.returncode == 2, refused.stderr
    return " ".join(refused.stderr.split())


def test_fewer_episodes_in_the_grid_file_are_refused_in_its_keys(tmp_path: Path) -> None:
    said = _refusal(tmp_path, "episodes: 2", "episodes: 1")
    assert "holds a run with 2 episodes of collab_capture" in said, said
    assert "episodes: 2 or more" in said and "grid.yaml" in said, said
    assert "--seeds" not in said and "ask for --episodes" not in said, said


def test_other_seeds_in_the_grid_file_are_refused_in_its_keys(tmp_path: Path) -> None:
    said = _refusal(tmp_path, "seeds: [4, 7]", "seeds: [4]")
    assert "on seeds: [4, 7], other episodes than seeds: [4]" in said, said
    assert "give seeds: [4, 7] in " in said and "grid.yaml to resume it" in said, said
    assert "--seeds" not in said, said


def test_the_games_own_seeds_are_refused_in_the_grid_files_keys(tmp_path: Path) -> None:
    """Hanabi's own seeds (the paper's 321, 212, 628) are no count: an entry that gave none is
    resumed by giving none again."""
    spec, out = tmp_path / "grid.yaml", tmp_path / "g"
    body = "agents: [hm]\nmodels: [scripted]\npartners: [self]\ngames: [{{game: hanabi{count}}}]\n"
    spec.write_text(body.format(count=""))
    started = coordqa("agentic", "grid", spec, "--out", out)
    assert started.returncode == 0, started.stderr
    spec.write_text(body.format(count=", episodes: 1"))
    refused = coordqa("agentic", "grid", spec, "--out", out)
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 2, said
    assert "other episodes than episodes: 1 (seed 0)" in said, said
    assert "remove episodes: and seeds: from" in said and "grid.yaml's hanabi entry" in said, said
    assert "--seeds" not in said and "--episodes" not in said, said


def test_fewer_episodes_of_several_layouts_say_the_whole_count_beside(tmp_path: Path) -> None:
    """Walkthrough 21, R3: "holds a run with 4 episodes of overcooked" of a run of 20 episodes
    (4 on each of 5 layouts) read as the whole run; the count is per layout and partner."""
    spec, out = tmp_path / "grid.yaml", tmp_path / "g"
    pytest.importorskip("overcooked_ai_py")
    body = "agents: [planner]\npartners: [self]\ngames: [{game: overcooked, %s}]\n"
    layouts = "layouts: [cramped_room, asymmetric_advantages], horizon: 10"
    spec.write_text(body % f"{layouts}, episodes: 2")
    assert coordqa("agentic", "grid", spec, "--out", out).returncode == 0
    spec.write_text(body % f"{layouts}, episodes: 1")
    refused = coordqa("agentic", "grid", spec, "--out", out)
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert "with 2 episodes of overcooked per layout and partner (4 played in all)" in said, said


def test_episodes_given_over_a_files_seeds_are_refused_with_leave_it_out(tmp_path: Path) -> None:
    """Walkthrough 30, R3: `agentic grid smoke --episodes 2` on a run of smoke's own seeds was
    told to "give seeds: [45] in smoke", a grid coordqa ships (no file to edit); leaving out
    --episodes resumes it."""
    spec, out = tmp_path / "grid.yaml", tmp_path / "g"
    spec.write_text(BODY.format(count="seeds: [4, 7]"))
    assert coordqa("agentic", "grid", spec, "--out", out).returncode == 0
    refused = coordqa("agentic", "grid", spec, "--out", out, "--episodes", "2")
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert "on seeds: [4, 7], other episodes than --episodes 2" in said, said
    assert "leave out --episodes to resume it" in said and "give seeds" not in said, said
    assert coordqa("agentic", "grid", spec, "--out", out).returncode == 0  # as advised
