"""Turning scenarios into dataset rows: rendering, solving, deterministic option shuffling.

Rows are rendered by ``coordqa.games`` (the same descriptions agents see) and answered by the
builders' solvers; nothing is typed in by hand. Options are shuffled with a generator seeded by
the question id, so rebuilding gives byte-identical files and the position of the right answer
carries no signal.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from coordqa.games import GAME_NAMES
from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.model import QuestionDraft, Scenario

if TYPE_CHECKING:
    from coordqa.dataset import QuestionRow

DATASET_NAME = "coordinationqa-v1.2"
"""The release the curated list builds (a name in ``coordqa.dataset.RELEASES``)."""
DATASET_VERSION = "1.2.0"
SOURCE = "coordqa-v1.2"
PREVIOUS_RELEASE = "coordinationqa-v1.1"
"""The release the changelog compares with."""
CHANGELOG_FILE = "changelog.json"
"""The machine-readable changelog written next to the data (validation of the previous, frozen
release reads it)."""


def curated_scenarios() -> list[Scenario]:
    """The curated scenarios of the current CoordinationQA release, in dataset order."""
    folder = resources.files("coordqa.scenarios").joinpath("curated")
    scenarios: list[Scenario] = []
    for game in GAME_NAMES:
        entry = folder.joinpath(f"{game}.json")
        if entry.is_file():
            scenarios.extend(Scenario.from_dict(item) for item in json.loads(entry.read_text()))
    return scenarios


def question_id(scenario: Scenario, draft: QuestionDraft) -> str:
    """``<scenario id>-<type>``, e.g. ``hanabi-07-ToM``."""
    return f"{scenario.scenario_id}-{draft.question_type}"


def shuffled(draft: QuestionDraft, qid: str) -> tuple[list[str], list[int]]:
    """Shuffle a draft's options deterministically.

    Returns the options in a pseudo-random order seeded by the question id, and the correct
    indices remapped to that order.
    """
    seed = int.from_bytes(hashlib.sha256(qid.encode()).digest()[:8], "big")
    order = list(range(len(draft.options)))
    random.Random(seed).shuffle(order)
    options = [draft.options[i] for i in order]
    correct = sorted(order.index(i) for i in draft.correct)
    return options, correct


def scenario_snapshot(scenario: Scenario) -> str:
    """The JSON stored in a row's ``snapshot`` column (read back by ``Scenario.from_row``)."""
    payload = {
        "scenario_id": scenario.scenario_id,
        "game": scenario.game,
        "layout": scenario.layout,
        "player": scenario.player,
        "kinds": scenario.kinds,
        "reached_by": scenario.reached_by,
        "snapshot": scenario.snapshot,
    }
    return json.dumps(payload, sort_keys=True, separators=(",", ":"))


def scenario_rows(
    scenario: Scenario, *, source: str = SOURCE, version: str = DATASET_VERSION
) -> list[QuestionRow]:
    """The three dataset rows (EC, ToM, JP) of one scenario.

    Raises:
        ScenarioRejected: the builder finds the state ambiguous.
    """
    builder = BUILDERS.get(scenario.game)
    game = builder.restore(scenario)
    built = builder.questions(game, scenario)
    game_description = game.game_description()
    state_description = game.describe(scenario.player)
    snapshot = scenario_snapshot(scenario)
    rows: list[QuestionRow] = []
    for draft in built.drafts():
        qid = question_id(scenario, draft)
        options, correct = shuffled(draft, qid)
        rows.append(
            {
                "scenario_id": scenario.scenario_id,
                "game": scenario.game,
                "layout": scenario.layout,
                "game_description": game_description,
                "state_description": state_description,
                "source": source,
                "version": version,
                "snapshot": snapshot,
                "question_id": qid,
                "question_type": draft.question_type,
                "question": draft.question,
                "options": options,
                "correct": correct,
                "rationale": draft.rationale,
                "concept": draft.concept,
                "tags": [f"kind:{draft.kind}", f"builder:{scenario.game}-v{builder.version}"],
            }
        )
    return rows


def build_rows(scenarios: Iterable[Scenario], **labels: str) -> Iterator[QuestionRow]:
    """Rows of every scenario in order (see :func:`scenario_rows`)."""
    for scenario in scenarios:
        yield from scenario_rows(scenario, **labels)


def build_dataset(out_dir: str | Path | None = None) -> Path:
    """Build the current CoordinationQA release from the curated list; return the folder written.

    Writes ``data.parquet``, the per-type copies, the card (with the changelog against
    :data:`PREVIOUS_RELEASE`) and ``changelog.json``. ``out_dir`` defaults to the release's
    folder in the package (for maintainers; ``coordqa dataset build`` passes a folder).

    Raises:
        ScenarioRejected: a curated scenario no longer gives an unambiguous question.
        ChangelogError: a change against the previous release has no stated reason.
    """
    from coordqa.dataset import bundled_dataset_dir, load_rows, save_dataset
    from coordqa.files import atomic_write_bytes
    from coordqa.scenarios.card import dataset_card
    from coordqa.scenarios.changelog import changelog, changelog_json

    rows = list(build_rows(curated_scenarios()))
    changes = changelog(load_rows(PREVIOUS_RELEASE), rows)
    target = Path(out_dir) if out_dir is not None else bundled_dataset_dir(DATASET_NAME)
    save_dataset(rows, target, card=dataset_card(rows, changes=changes), by_type=True)
    text = changelog_json(changes, PREVIOUS_RELEASE)
    atomic_write_bytes(target / CHANGELOG_FILE, text.encode("utf-8"))
    return target
