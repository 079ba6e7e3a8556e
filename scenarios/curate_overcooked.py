"""Curation of the 25 Overcooked scenarios of CoordinationQA v1.

Run ``python -m coordqa.scenarios.curate_overcooked`` to rewrite ``curated/overcooked.json``:
it walks the builder's seeded candidates (seeds 0-39), keeps those every solver accepts, and
picks five per layout greedily for variety (EC kind and answer, the partner's and my action,
which chef I am, the concept). Deterministic: same code, same list.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from coordqa.games.overcooked import LAYOUTS
from coordqa.scenarios.model import Scenario, ScenarioQuestions, ScenarioRejected
from coordqa.scenarios.overcooked import OvercookedBuilder

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
    states: set[str] = set()
    for seed in seeds:
        for candidate in builder.candidates(seed):
            key = _state_key(candidate)
            if key in states:
                continue
            states.add(key)
            try:
                built = builder.questions(builder.restore(candidate), candidate)
            except ScenarioRejected:
                continue
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


def main() -> None:
    """Rewrite ``curated/overcooked.json`` (deterministic: same seeds, same list)."""
    scenarios = curate()
    CURATED.write_text(json.dumps([s.to_dict() for s in scenarios], indent=1) + "\n")
    print(f"wrote {len(scenarios)} scenarios to {CURATED}")


if __name__ == "__main__":
    main()
