"""Curation of the 25 Overcooked scenarios of CoordinationQA v1.

Run ``python -m coordqa.scenarios.curate_overcooked`` to rewrite ``curated/overcooked.json``:
it walks the builder's seeded candidates (seeds 0-39), keeps those every solver accepts, and
picks five per layout greedily for variety (EC kind and answer, the partner's and my action,
which chef I am, the concept). Deterministic: same code, same list.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from coordqa.games.overcooked import LAYOUTS, Overcooked
from coordqa.scenarios.build import curated_scenarios
from coordqa.scenarios.curate_repair import Repair, repair
from coordqa.scenarios.model import Scenario, ScenarioQuestions, ScenarioRejected
from coordqa.scenarios.overcooked import OvercookedBuilder, _play, ec_kinds, ec_question

PER_LAYOUT = 5
"""Curated scenarios per layout (5 layouts x 5 = the 25 Overcooked scenarios)."""
CURATED = Path(__file__).parent / "curated" / "overcooked.json"
"""Where the curated list lives."""


def _signature(scenario: Scenario, built: ScenarioQuestions) -> set[str]:
    """Features a curated list should vary: EC kind and answer, partner's and my action, side."""
    ec_answer = built.ec.options[built.ec.correct[0]]
    tom = built.tom.options[built.tom.correct[0]].split(" ")[0]
    jp = built.jp.options[built.jp.correct[0]]
    return {
        f"ec:{built.ec.kind}",
        f"ec-answer:{built.ec.kind}:{ec_answer}",
        f"tom:{tom}",
        f"jp:{jp.split(' ')[0]}",
        f"player:{scenario.player}",
        f"concept:{built.jp.concept.split(';')[0]}",
        f"jp-options:{min(len(built.jp.options), 5)}",
        f"tom-correct:{len(built.tom.correct)}",
    }


def _state_key(scenario: Scenario) -> str:
    """The state without its clock: two seeds often reach the same kitchen at the same moment."""
    state = scenario.snapshot["state"]
    return json.dumps([state["players"], state["objects"], scenario.player], sort_keys=True)


def curate(per_layout: int = PER_LAYOUT, seeds: range = range(40)) -> list[Scenario]:
    """Choose ``per_layout`` diverse accepted scenarios per layout from seeded candidates.

    Candidates repeating a state already seen (same chefs, hands, pots and counters, seen by the
    same chef) are skipped. Greedy: each pick adds the most features (``_signature``) not yet in
    the list, preferring EC kinds used least so far across layouts; ids are
    ``overcooked-<layout>-NN``.
    """
    builder = OvercookedBuilder()
    pool: dict[str, list[tuple[Scenario, ScenarioQuestions]]] = {name: [] for name in LAYOUTS}
    for candidate, built in builder.accepted(seeds, key=_state_key):
        pool[candidate.layout].append((candidate, built))
    chosen: list[Scenario] = []
    ec_use: Counter[str] = Counter()
    for layout in LAYOUTS:
        seen: set[str] = set()
        options = list(pool[layout])
        for number in range(1, per_layout + 1):
            if not options:
                raise ScenarioRejected(f"only {number - 1} accepted {layout} scenarios; add seeds")
            pick = max(
                options,
                key=lambda item: len(_signature(*item) - seen) - ec_use[item[1].ec.kind],
            )
            options.remove(pick)
            seen |= _signature(*pick)
            ec_use[pick[1].ec.kind] += 1
            scenario = pick[0]
            chosen.append(
                Scenario(
                    scenario_id=f"overcooked-{layout}-{number:02d}",
                    game=scenario.game,
                    layout=layout,
                    player=scenario.player,
                    snapshot=scenario.snapshot,
                    kinds=scenario.kinds,
                    reached_by=scenario.reached_by,
                )
            )
    return chosen


INFERENCE_KINDS = ("plate_filled_in", "onion_cooked_in", "onions_to_fetch")
"""EC kinds that need a step of inference, in the order a lookup gives way to one."""
RETUNE: dict[str, tuple[str, ...]] = {
    "soup_timer": INFERENCE_KINDS,
    "reachable": INFERENCE_KINDS,
    "onions_needed": INFERENCE_KINDS,
    "closer_cooker": INFERENCE_KINDS,
}
"""EC kinds whose answer the state prints (the timer, a walk listed as blocked or inaccessible)
or nearly prints (one cooker's count, two listed walks compared) give way, where the state
supports one, to a kind that needs a step of inference, in this order of preference (v1.1 did
so for the first three with onions_total as the fallback; v1.2 for all four, with
onions_to_fetch, which every state supports)."""


def _retune(scenario: Scenario) -> Scenario:
    """The scenario with its EC kind replaced by the first preferred inference kind it supports."""
    current = scenario.kinds.get("EC", "").partition(":")[0]
    builder = OvercookedBuilder()
    game = builder.restore(scenario)
    if not isinstance(game, Overcooked):
        return scenario
    available = [kind for family in ec_kinds(game, scenario.player) for kind in family]
    for preferred in RETUNE.get(current, ()):
        for kind in available:
            if kind.partition(":")[0] != preferred:
                continue
            try:
                ec_question(game, scenario.player, kind)
            except ScenarioRejected:
                continue
            return dataclasses.replace(scenario, kinds={**scenario.kinds, "EC": kind})
    return scenario


def _candidates(seeds: range) -> Iterator[Scenario]:
    """Fresh candidates of the curation seeds, each with its EC kind retuned."""
    builder = OvercookedBuilder()
    for seed in seeds:
        for candidate in builder.candidates(seed):
            yield _retune(candidate)


def repair_list(current: list[Scenario], seeds: range = range(40)) -> Repair:
    """The curated list carried over to the current solvers (see :mod:`.curate_repair`).

    A replacement comes from the same layout; ids continue each layout's numbering.
    """
    numbers = Counter(s.layout for s in current)
    taken: Counter[str] = Counter()

    def new_id(_: int, old: Scenario) -> str:
        taken[old.layout] += 1
        return f"overcooked-{old.layout}-{numbers[old.layout] + taken[old.layout]:02d}"

    return repair(
        current,
        lambda: _candidates(seeds),
        matches=lambda old, new: old.layout == new.layout,
        used_key=_state_key,
        new_id=new_id,
        retune=_retune,
    )


def with_interrupted(scenario: Scenario) -> Scenario:
    """The scenario with the actions that were in progress at its snapshot named (v1.2).

    Snapshots before v1.2 dropped them silently. The play that reached the state is replayed
    from ``reached_by`` (seeded, deterministic) and must give the same kitchen; its snapshot
    records which action each chef was on the way to do, so the description can say it.

    Raises:
        ScenarioRejected: the replay reaches another state (the provenance does not rebuild it).
    """
    if "interrupted" in scenario.snapshot or "opening" not in scenario.reached_by:
        return scenario
    reached = scenario.reached_by
    pair = (str(reached["players"][0]), str(reached["players"][1]))
    opening = [(str(a), str(b)) for a, b in reached["opening"]]
    steps = int(reached["steps"])
    _, replayed = next(_play(scenario.layout, pair, int(reached["seed"]), [steps], opening))
    same = {k: v for k, v in replayed.items() if k != "interrupted"}
    if same != scenario.snapshot:
        raise ScenarioRejected(f"{scenario.scenario_id}: its provenance replays to another state")
    return dataclasses.replace(scenario, snapshot=replayed)


def main() -> None:
    """Repair ``curated/overcooked.json`` for the current solvers and print what changed.

    (:func:`curate` drew the v1 list from scratch; releases after v1 repair it, so that question
    ids keep naming the same states.)
    """
    current = [with_interrupted(s) for s in curated_scenarios() if s.game == "overcooked"]
    repaired = repair_list(current)
    CURATED.write_text(json.dumps([s.to_dict() for s in repaired.scenarios], indent=1) + "\n")
    print(f"wrote {len(repaired.scenarios)} scenarios to {CURATED}")
    print(f"replaced: {repaired.replaced}; retuned: {repaired.retuned}")


if __name__ == "__main__":
    main()
