"""Curation of the 28 Hanabi scenarios of CoordinationQA v1.

Run ``python -m coordqa.scenarios.curate_hanabi`` to rewrite ``curated/hanabi.json``: it walks
the Hanabi builder's seeded candidates (seeds 1-60), tries every EC question and both ToM kinds
on each accepted state, and picks at most one state per seed, greedily filling quotas of JP
situations (certain play, clued play, play clue, save clue, discards), ToM kinds and answers, and
EC kinds and answers. Deterministic: same code, same list.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from coordqa.games.hanabi.game import as_hanabi
from coordqa.scenarios.build import curated_scenarios
from coordqa.scenarios.curate_repair import Repair, repair
from coordqa.scenarios.hanabi import HanabiBuilder, ec_specs
from coordqa.scenarios.hanabi_solvers import (
    CHOP_DISCARD,
    PLAY_CLUE,
    SAFE_DISCARD,
    SAVE_CLUE,
    SURE_PLAY,
    TOM_KINDS,
    ec_question,
    jp_best_action,
    situation,
    tom_question,
)
from coordqa.scenarios.model import Scenario, ScenarioRejected

CURATED = Path(__file__).parent / "curated" / "hanabi.json"
"""Where the curated list lives."""
CURATED_COUNT = 28
"""Hanabi scenarios in CoordinationQA v1."""
CURATION_SEEDS = range(1, 81)
"""Seeds searched for the curated list."""
QUOTAS: dict[str, dict[str, int]] = {
    "JP": {
        "one-life play": 3,
        "clued play": 5,
        "certain play": 4,
        "play clue": 6,
        "save clue": 3,
        "free discard": 2,
        "chop discard": 5,
    },
    "phase": {"early": 7, "middle": 13, "late": 8},
    "ToM": {"reveal_play": 14, "infer_last Play": 9, "infer_last Keep": 5},
    "EC": {
        "certain_play Yes": 4,
        "certain_play No": 3,
        "useless some": 5,
        "useless none": 2,
        "unseen_copies": 7,
        "partner_critical Yes": 4,
        "partner_critical No": 3,
    },
}
"""How many curated scenarios of each kind the curation aims for (each group sums to 28).

The phase is the game's progress: early (at most 3 cards on the stacks), middle (4-12), late."""
JP_LABELS = {
    SURE_PLAY: "certain play",
    PLAY_CLUE: "play clue",
    SAVE_CLUE: "save clue",
    SAFE_DISCARD: "free discard",
    CHOP_DISCARD: "chop discard",
}


@dataclass(frozen=True)
class Option:
    """One way to ask about a candidate state, with the features curation balances."""

    scenario: Scenario
    features: dict[str, str]


def _options(candidate: Scenario) -> list[Option]:
    """Every accepted (EC spec, ToM kind) combination of a candidate state, with its features."""
    builder = HanabiBuilder()
    sit = situation(as_hanabi(builder.restore(candidate)), candidate.snapshot, candidate.player)
    if sit.broken_marks():
        return []
    try:
        jp, tier = jp_best_action(sit)
    except ScenarioRejected:
        return []
    label = "last rounds" if jp.concept.startswith("last rounds") else JP_LABELS[tier]
    if tier == SURE_PLAY and "clue marks" in jp.concept:
        label = "clued play"
    if tier == SURE_PLAY and sit.view.lives <= 1:
        label = "one-life play"
    progress = sum(sit.view.board.fireworks)
    phase = "early" if progress <= 3 else "middle" if progress <= 12 else "late"
    toms = []
    for kind in TOM_KINDS:
        try:
            tom = tom_question(sit, kind)
        except ScenarioRejected:
            continue
        answer = tom.options[tom.correct[0]].split(" ")[2] if kind == "infer_last" else ""
        toms.append((kind, f"{kind} {answer}".strip()))
    options = []
    for spec in ec_specs(sit):
        ec = ec_question(sit, spec)
        kind = spec.partition(":")[0]
        answer = ec.options[ec.correct[0]]
        value = {
            "certain_play": f"{kind} {answer}",
            "partner_critical": f"{kind} {answer}",
            "useless": f"{kind} {'none' if answer == 'None of them' else 'some'}",
        }.get(kind, kind)
        for tom_kind, tom_value in toms:
            kinds = {"EC": spec, "ToM": tom_kind, "JP": "best_action"}
            scenario = dataclasses.replace(candidate, kinds=kinds)
            features = {"JP": label, "ToM": tom_value, "EC": value, "phase": phase}
            options.append(Option(scenario, features))
    return options


def curate(seeds: Iterable[int] = CURATION_SEEDS, count: int = CURATED_COUNT) -> list[Scenario]:
    """Pick ``count`` scenarios, at most one per seed, filling the :data:`QUOTAS` greedily.

    Each pick maximises the number of features still under quota (a rarer feature, found in
    fewer seeds, counts a little more) minus the number already at quota.

    Raises:
        ScenarioRejected: the seeds do not give ``count`` scenarios.
    """
    builder = HanabiBuilder()
    pool: dict[int, list[Option]] = {}
    for seed in seeds:
        pool[seed] = [o for c in builder.candidates(seed) for o in _options(c)]
    seeds_with = Counter(
        feature
        for options in pool.values()
        for feature in {(g, v) for o in options for g, v in o.features.items()}
    )
    taken: dict[str, Counter[str]] = {group: Counter() for group in QUOTAS}
    chosen: list[Option] = []
    for _ in range(count):
        best: tuple[float, Option] | None = None
        for options in pool.values():
            for option in options:
                gain = sum(
                    1 + 1 / seeds_with[g, v] if QUOTAS[g].get(v, 0) > taken[g][v] else -1
                    for g, v in option.features.items()
                )
                if best is None or gain > best[0]:
                    best = (gain, option)
        if best is None:
            raise ScenarioRejected(f"only {len(chosen)} Hanabi scenarios found, need {count}")
        option = best[1]
        chosen.append(option)
        pool.pop(int(option.scenario.reached_by["seed"]))
        for group, value in option.features.items():
            taken[group][value] += 1
    chosen.sort(key=lambda o: (o.scenario.reached_by["seed"], o.scenario.reached_by["steps"]))
    return [
        dataclasses.replace(o.scenario, scenario_id=f"hanabi-{n:02d}")
        for n, o in enumerate(chosen, 1)
    ]


def _phase(scenario: Scenario) -> str:
    """Early, middle or late game (see :data:`QUOTAS`)."""
    game = as_hanabi(HanabiBuilder().restore(scenario))  # keeps the engine alive while read
    progress = sum(game.state.fireworks())
    return "early" if progress <= 3 else "middle" if progress <= 12 else "late"


LOOKUP_EC = "certain_play"
"""Since v1.2 the state prints every card's counted list, so "is my card certainly playable" is
one comparison of the list with the next playable cards: a lookup, asked no more."""
INFERENCE_EC = ("max_score", "unseen_copies", "partner_critical", "useless")
"""The EC kinds that need a step of inference, in the order a lookup is replaced by one."""


def _ec_kind(scenario: Scenario) -> str:
    return scenario.kinds["EC"].partition(":")[0]


def _matches(old: Scenario, candidate: Scenario) -> bool:
    """A replacement asks the same ToM kind and EC kind at the same phase of the game.

    A lookup EC (:data:`LOOKUP_EC`) is replaced by any inference EC kind.
    """
    old_ec, new_ec = _ec_kind(old), _ec_kind(candidate)
    same_ec = new_ec in INFERENCE_EC if old_ec == LOOKUP_EC else new_ec == old_ec
    return (
        candidate.kinds["ToM"] == old.kinds["ToM"] and same_ec and _phase(candidate) == _phase(old)
    )


def _retune(scenario: Scenario) -> Scenario:
    """A lookup EC becomes the first inference EC kind the state supports (:data:`INFERENCE_EC`).

    v1.1 turned counts of unseen copies into the best reachable score where a stack is cut
    short; v1.2 replaces "is my card certainly playable", a lookup once the state prints counted
    lists.
    """
    if _ec_kind(scenario) != LOOKUP_EC:
        return scenario
    builder = HanabiBuilder()
    sit = situation(as_hanabi(builder.restore(scenario)), scenario.snapshot, scenario.player)
    specs = ec_specs(sit)
    for kind in INFERENCE_EC:
        matching = [spec for spec in specs if spec.partition(":")[0] == kind]
        if matching:
            return dataclasses.replace(scenario, kinds={**scenario.kinds, "EC": matching[0]})
    return scenario


def _variants(seeds: Iterable[int]) -> Iterator[Scenario]:
    """Every candidate state with each EC question it supports and each ToM kind, unsolved.

    The repair keeps a variant only if it matches the scenario it replaces and the builder
    accepts it, so nothing is solved for a state that could not stand in anyway.
    """
    builder = HanabiBuilder()
    for seed in seeds:
        for candidate in builder.candidates(seed):
            sit = situation(
                as_hanabi(builder.restore(candidate)), candidate.snapshot, candidate.player
            )
            for spec in ec_specs(sit):
                for tom in TOM_KINDS:
                    kinds = {"EC": spec, "ToM": tom, "JP": "best_action"}
                    yield dataclasses.replace(candidate, kinds=kinds)


def repair_list(current: list[Scenario], seeds: Iterable[int] = CURATION_SEEDS) -> Repair:
    """The curated list carried over to the current solvers (see :mod:`.curate_repair`).

    New ids continue after the highest id in v1 (``hanabi-28``) and in the current list (ids of
    replacements only grow), so an id never names two states.
    """
    first_new = max(CURATED_COUNT, *(int(s.scenario_id.rsplit("-", 1)[1]) for s in current)) + 1
    return repair(
        current,
        lambda: _variants(seeds),
        matches=_matches,
        used_key=lambda s: int(s.reached_by["seed"]),
        new_id=lambda n, _: f"hanabi-{first_new + n - 1:02d}",
        retune=_retune,
    )


def main() -> None:
    """Repair ``curated/hanabi.json`` for the current solvers and print what changed.

    (:func:`curate` drew the v1 list from scratch; releases after v1 repair it, so that question
    ids keep naming the same states.)
    """
    current = [s for s in curated_scenarios() if s.game == "hanabi"]
    repaired = repair_list(current)
    scenarios = repaired.scenarios
    CURATED.write_text(json.dumps([s.to_dict() for s in scenarios], indent=1) + "\n")
    kinds = Counter(f"{s.kinds['EC'].partition(':')[0]} / {s.kinds['ToM']}" for s in scenarios)
    print(f"wrote {len(scenarios)} scenarios to {CURATED}: {dict(kinds)}")
    print(f"replaced: {repaired.replaced}; retuned: {repaired.retuned}")


if __name__ == "__main__":
    main()
