"""Fresh verified scenarios beyond the fixed 66, for contamination-free re-testing.

The generator walks the builder's seeded candidates and keeps those its solvers accept, with
exactly the checks used for the curated list; a different seed gives different states that no
model can have seen in training data. A candidate that reads like a state of a bundled release
is skipped: small games reach the same states from many seeds (a board job's private split of
40 scenarios held 1 or 2 released states in 3 of 6 draws), and a model may have learnt those.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from coordqa.errors import ConfigError
from coordqa.scenarios.build import build_rows
from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.model import Scenario, ScenarioRejected
from coordqa.scenarios.validate import validate_rows_against_solvers

MAX_SEEDS = 200
"""How many consecutive seeds are tried before giving up (keeps the search bounded)."""


@cache
def released_states(game: str) -> frozenset[str]:
    """What ``game``'s states read like in the bundled releases (any a model may have learnt)."""
    from coordqa.dataset import load_rows
    from coordqa.dataset.releases import RELEASES

    return frozenset(
        row["state_description"]
        for release in RELEASES
        for row in load_rows(release.name)
        if row["game"] == game
    )


def fresh_scenarios(game: str, count: int, seed: int) -> Iterator[Scenario]:
    """Up to ``count`` accepted scenarios of ``game`` from seeds ``seed``, ``seed + 1``, ...

    None of them is a state of a bundled release (:func:`released_states`).

    Raises:
        ConfigError: ``count`` is not positive, or too few states were accepted within
            :data:`MAX_SEEDS` seeds.
    """
    if count < 1:
        raise ConfigError(f"--count must be at least 1, got {count}")
    builder = BUILDERS.get(game)
    accepted = 0
    seen = set(released_states(game))
    for offset in range(MAX_SEEDS):
        for candidate in builder.candidates(seed + offset):
            state = builder.restore(candidate)
            # Two histories can reach states that read the same, and a state asked with other
            # EC kinds repeats its ToM and JP questions: what a model sees is the text.
            key = state.describe(candidate.player)
            if key in seen:
                continue
            seen.add(key)
            try:
                builder.questions(state, candidate)
            except ScenarioRejected:
                continue
            accepted += 1
            yield dataclasses.replace(candidate, scenario_id=f"fresh-{game}-s{seed}-{accepted:03d}")
            if accepted == count:
                return
    raise ConfigError(
        f"only {accepted} of {count} {game} scenarios were accepted within {MAX_SEEDS} seeds "
        f"from {seed}; ask for fewer or another --seed"
    )


def generate_dataset(game: str, count: int, seed: int, out_dir: str | Path) -> Path:
    """Generate, validate and save ``count`` fresh scenarios of ``game`` (3 questions each)."""
    from coordqa.dataset import save_dataset
    from coordqa.scenarios.card import dataset_card

    rows = list(
        build_rows(fresh_scenarios(game, count, seed), source=f"coordqa-fresh-{game}-s{seed}")
    )
    validate_rows_against_solvers(rows)
    target = Path(out_dir)
    save_dataset(rows, target, card=dataset_card(rows, fresh=True), by_type=True)
    return target
