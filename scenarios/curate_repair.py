"""Carrying a curated list over to a new release: keep what still holds, replace what does not.

A release that fixes solvers should not reshuffle the benchmark: a question id keeps naming the
same state. So each game's curated list is *repaired* rather than drawn again:

- every scenario the current builder still accepts is kept under its id (with its question kinds
  retuned by the game's rule, e.g. an EC lookup swapped for an inference the state supports);
- every scenario the builder now rejects is replaced by the first accepted candidate that matches
  it (the game decides what matches: same kinds, same phase of the game ...) from a seed or state
  not used yet, under a new id that continues the numbering;
- the order of the list is kept (a replacement takes the place of the scenario it replaces).

Deterministic: same code, same candidates in the same order, same list.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, replace

from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.model import Scenario, ScenarioRejected


@dataclass(frozen=True)
class Repair:
    """A repaired list and what happened to each scenario of the old one."""

    scenarios: list[Scenario]
    """The new list, in the old order."""
    replaced: dict[str, str]
    """Old scenario id -> the id of its replacement."""
    retuned: dict[str, dict[str, str]]
    """Scenario id -> the question kinds that changed (type -> new kind)."""


def rejection(scenario: Scenario) -> str | None:
    """Why the scenario's builder rejects the state (None: it makes its three questions)."""
    builder = BUILDERS.get(scenario.game)
    try:
        builder.questions(builder.restore(scenario), scenario)
    except ScenarioRejected as rejected:
        return str(rejected)
    return None


def accepted(scenario: Scenario) -> bool:
    """Whether the scenario's builder makes its three questions without rejecting the state."""
    return rejection(scenario) is None


def repair(
    current: list[Scenario],
    candidates: Callable[[], Iterable[Scenario]],
    *,
    matches: Callable[[Scenario, Scenario], bool],
    used_key: Callable[[Scenario], Hashable],
    new_id: Callable[[int, Scenario], str],
    retune: Callable[[Scenario], Scenario] = lambda s: s,
) -> Repair:
    """Repair ``current`` (see the module docstring).

    Args:
        current: the old curated list.
        candidates: yields fresh candidate scenarios, in a fixed order (called once, only when a
            replacement is needed).
        matches: whether a candidate can stand in for a rejected old scenario.
        used_key: what two scenarios must not share (a seed, a state).
        new_id: the id of the ``n``-th new scenario (``n`` counts from 1) replacing ``old``.
        retune: the new kinds of a kept scenario (applied first; the original kinds are kept when
            the retuned scenario is rejected).

    Raises:
        ScenarioRejected: no candidate matches a rejected scenario.
    """
    kept, retuned, rejected = _triage(current, retune)
    used = {used_key(s) for s in kept if s is not None}
    pool: Iterator[Scenario] = iter(candidates()) if None in kept else iter(())
    seen: list[Scenario] = []
    replaced: dict[str, str] = {}
    taken_ids = {s.scenario_id for s in current}
    result = []
    for old, new in zip(current, kept, strict=True):
        if new is not None:
            result.append(new)
            continue
        found = _first_match(old, seen, pool, matches, used_key, used)
        provenance = {
            **found.reached_by,
            "replaces": old.scenario_id,
            "replaced_because": rejected[old.scenario_id],
        }
        if "replaces" in old.reached_by:  # a replacement replaced: name the first state too
            provenance["originally"] = old.reached_by.get("originally", old.reached_by["replaces"])
        found = replace(found, scenario_id=new_id(len(replaced) + 1, old), reached_by=provenance)
        if found.scenario_id in taken_ids:
            raise ScenarioRejected(
                f"the replacement of {old.scenario_id} would reuse the id {found.scenario_id}: "
                "new ids must continue after every id already used"
            )
        taken_ids.add(found.scenario_id)
        used.add(used_key(found))
        replaced[old.scenario_id] = found.scenario_id
        result.append(found)
    return Repair(result, replaced, retuned)


def _triage(
    current: list[Scenario], retune: Callable[[Scenario], Scenario]
) -> tuple[list[Scenario | None], dict[str, dict[str, str]], dict[str, str]]:
    """Each old scenario retuned (when the retuned one is accepted), kept, or rejected (None).

    Returns:
        the kept scenarios in order (None where rejected), the retuned ones' new kinds by id,
        and why each rejected one was, by id.
    """
    kept: list[Scenario | None] = []
    retuned: dict[str, dict[str, str]] = {}
    rejected: dict[str, str] = {}
    for scenario in current:
        tuned = retune(scenario)
        if tuned.kinds != scenario.kinds and accepted(tuned):
            changed = {t: k for t, k in tuned.kinds.items() if scenario.kinds.get(t) != k}
            retuned[scenario.scenario_id] = changed
            kept.append(tuned)
            continue
        why = rejection(scenario)
        kept.append(scenario if why is None else None)
        if why is not None:
            rejected[scenario.scenario_id] = why
    return kept, retuned, rejected


def _first_match(
    old: Scenario,
    seen: list[Scenario],
    pool: Iterator[Scenario],
    matches: Callable[[Scenario, Scenario], bool],
    used_key: Callable[[Scenario], Hashable],
    used: set[Hashable],
) -> Scenario:
    """The first accepted candidate matching ``old``: those already drawn first, then new ones."""
    for candidate in _drawn_then_new(seen, pool):
        if used_key(candidate) in used or not matches(old, candidate):
            continue
        if accepted(candidate):
            return candidate
    raise ScenarioRejected(f"no candidate can replace {old.scenario_id}")


def _drawn_then_new(seen: list[Scenario], pool: Iterator[Scenario]) -> Iterator[Scenario]:
    """The candidates drawn so far, then more from ``pool`` (remembered in ``seen``)."""
    yield from list(seen)
    for candidate in pool:
        seen.append(candidate)
        yield candidate
