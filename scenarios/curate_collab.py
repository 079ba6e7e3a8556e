"""Choosing the curated Collab scenarios of CoordinationQA v1 (6 Capture, 7 Escape).

Run ``python -m coordqa.scenarios.curate_collab`` to rewrite ``curated/collab_capture.json`` and
``curated/collab_escape.json``. The choice is deterministic (fixed seeds, ordered tie-breaks), so
running it again gives the same files.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

from coordqa.errors import ConfigError
from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.collab import CollabBuilder
from coordqa.scenarios.model import QuestionDraft, Scenario, ScenarioQuestions, ScenarioRejected

CURATED_COUNTS = {"collab_capture": 6, "collab_escape": 7}
"""How many scenarios of each game CoordinationQA v1 holds (issue #4)."""

CURATION_SEEDS = 36
"""Seeds searched by the curation: every pairing x noise level x random warm-up, once."""


def _answer(draft: QuestionDraft) -> str:
    return draft.options[draft.correct[0]]


def _state_key(scenario: Scenario) -> str:
    return json.dumps(scenario.snapshot["state"], sort_keys=True)


def collab_builder(game: str) -> CollabBuilder:
    """The scenario builder of a Collab game (its profile's), typed for the curation.

    Raises:
        ConfigError: ``game``'s builder is not a Collab builder.
    """
    builder = BUILDERS.get(game)
    if not isinstance(builder, CollabBuilder):
        raise ConfigError(f"{game!r} is not a Collab game: its builder is {builder!r}")
    return builder


def accepted_candidates(game: str, seeds: int) -> list[tuple[Scenario, ScenarioQuestions]]:
    """Every distinct candidate of the first ``seeds`` seeds that the solvers accept, in order."""
    return list(
        collab_builder(game).accepted(
            range(seeds),
            key=lambda candidate: (
                _state_key(candidate),
                candidate.player,
                candidate.kinds["EC"],
            ),
        )
    )


def curate(game: str, count: int, seeds: int = CURATION_SEEDS) -> list[Scenario]:
    """Pick ``count`` diverse accepted scenarios of ``game`` from the first ``seeds`` seeds.

    EC kinds take turns; within a kind the pick prefers, in order: concept phrases used least (a
    concept joins phrases with '; '), an EC answer used least, the least used kinds of best
    action and of partner intent (move, press, fix, wait), and the less used point of view. The
    earliest candidate wins remaining ties, so the result is deterministic.

    Raises:
        ScenarioRejected: fewer than ``count`` distinct states were accepted.
    """
    accepted = accepted_candidates(game, seeds)
    present = {c.kinds["EC"] for c, _ in accepted}
    kinds = [k for k in collab_builder(game).rules.ec_kinds if k in present]
    chosen: list[tuple[Scenario, ScenarioQuestions]] = []
    for turn in range(count * len(kinds)):
        if len(chosen) == count:
            break
        used_states = {_state_key(c) for c, _ in chosen}
        pool = [
            (c, b)
            for c, b in accepted
            if c.kinds["EC"] == kinds[turn % len(kinds)] and _state_key(c) not in used_states
        ]
        if not pool:
            continue
        phrases = Counter(p for _, b in chosen for p in b.jp.concept.split("; "))
        ec_answers = Counter(_answer(b.ec) for _, b in chosen)
        jp_kinds = Counter(_answer(b.jp).split()[0] for _, b in chosen)
        tom_kinds = Counter(_answer(b.tom).split()[0] for _, b in chosen)
        views = Counter(c.player for c, _ in chosen)
        chosen.append(
            min(
                pool,
                key=lambda item: (
                    sum(phrases[p] for p in item[1].jp.concept.split("; ")),
                    ec_answers[_answer(item[1].ec)],
                    jp_kinds[_answer(item[1].jp).split()[0]],
                    tom_kinds[_answer(item[1].tom).split()[0]],
                    views[item[0].player],
                ),
            )
        )
    if len(chosen) < count:
        raise ScenarioRejected(
            f"only {len(chosen)} distinct {game} states accepted from {seeds} seeds; "
            f"raise CURATION_SEEDS (needed {count})"
        )
    return [
        dataclasses.replace(c, scenario_id=f"{game}-{i:02d}")
        for i, (c, _) in enumerate(chosen, start=1)
    ]


def write_curated(folder: Path) -> dict[str, int]:
    """Write both games' curated lists into ``folder``; return the counts written."""
    written = {}
    for game, count in CURATED_COUNTS.items():
        scenarios = curate(game, count)
        text = json.dumps([s.to_dict() for s in scenarios], indent=1, sort_keys=True)
        (folder / f"{game}.json").write_text(text + "\n")
        written[game] = len(scenarios)
    return written


if __name__ == "__main__":
    print(write_curated(Path(__file__).resolve().parent / "curated"))
