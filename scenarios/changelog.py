"""What changed between two CoordinationQA releases: every changed, added or removed question.

The changelog is computed, not written by hand: the previous release's rows are compared with
the new build question by question (by question id), so it cannot miss a change. Each entry
carries its reasons:

- a changed text (rules, state, question, or the directive it is asked with) gives the reason
  registered for that game and field in :data:`TEXT_REASONS` (a text change without a
  registered reason fails the build, so every change of wording is explained once, in one
  place);
- a changed question kind (the ``kind:`` tag, e.g. an EC lookup replaced by an inference) names
  both kinds;
- changed options list the options added and dropped;
- a changed answer key gives the old and new keys and the solver's new rationale;
- a removed question says why the current solvers reject its state (or why it was retired);
- an added question names its scenario and kinds.

Only what a model sees or is scored on counts as a change (rules, state, question, directive,
options, key); the metadata columns (``concept``, ``rationale``, ``tags``, ``source``,
``version``) are described once in the card.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from coordqa.errors import CoordqaError
from coordqa.prompts import directive_for
from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.model import Scenario, ScenarioRejected

ChangeKind = Literal["changed", "added", "removed"]

KIND_CHANGE = "question kind: "
"""How the reason of a question-kind change starts (the curation asks another question)."""

TEXT_FIELDS = ("game_description", "state_description", "question", "directive")
"""What a model sees of a question besides its options: the text columns, and the directive it is
asked with (:func:`coordqa.prompts.directive`, not a column: computed from the row); a change in
any of them is a change of the question."""

ISSUE = "(issue 27)"

TEXT_REASONS: Mapping[tuple[str, ...], str] = {
    ("hanabi", "game_description"): (
        "the rules say how the game ends as the engine plays it (after the last card is drawn "
        "each player has one more turn, the one who drew it last), how to read the card lists "
        "(exact lists, card counting included), and the conventions are this package's own, "
        "written out completely (chop, focus, a reveal read from public information, the order "
        "of preference of every move; no special 2 save, unlike H-group), with the claim that "
        f"both players have followed them on every move, which every history now bears out {ISSUE}"
    ),
    ("hanabi", "state_description"): (
        "every card list is counted, and is exactly what the solvers reason from: my cards from "
        "the reveals and every card I see, my partner's from the reveals and the public cards "
        f"(one model of knowledge for the text and the keys) {ISSUE}"
    ),
    ("hanabi", "question", "useless"): (
        "asks which one card is certainly useless and says that when several are, any one of "
        f"them is right (was 'Which of my cards are ...') {ISSUE}"
    ),
    ("overcooked", "state_description"): (
        "names the action I was on my way to do when the state was taken, so my position "
        f"agrees with my history {ISSUE}"
    ),
    ("overcooked", "question", "partner_intent"): (
        "the stated partner rule counts as 'on their way' only what the partner would not fetch "
        "(the plate or onion I hold; for a chef who reaches no cooker, also those on the shared "
        "counters, which it never takes back), so a source is never also on its way, and it says "
        f"where an empty-handed chef fetches from {ISSUE}"
    ),
    ("collab_capture", "question", "partner_intent"): (
        "no undefined policy name ('the capture-planner policy'): the partner's plan is said in "
        f"words (its part of the fastest capture, from this turn on) {ISSUE}"
    ),
    ("collab_escape", "game_description"): (
        "the timing as the engine plays it: this turn's fixing counts at once, so a gate it "
        "opens lets whoever stands in Room 7 (also one already there) escape before the killer "
        "moves; after a turn in which the killer chased nobody it chases Alice when both of you "
        f"are next to it {ISSUE}"
    ),
    ("collab_escape", "question", "partner_intent"): (
        "'certain whatever the killer's random moves' is said of a plan that chooses each turn "
        "after seeing where the killer went (the solver's worst case), and the partner's plan "
        f"holds from this turn on {ISSUE}"
    ),
    ("collab_escape", "question", "best_action"): (
        "'certain whatever the killer's random moves' is said of a plan that chooses each turn "
        f"after seeing where the killer went (the solver's worst case) {ISSUE}"
    ),
    ("hanabi", "directive", "best_action"): (
        "the JP directive times the partner's move 'on their next turn' (Hanabi is turn-based), "
        "and says that when several options are equally correct any one of them is right "
        f"{ISSUE}"
    ),
    **{
        (game, "directive"): (
            "the directive says that when several options are equally correct any one of them "
            f"is right {ISSUE}"
        )
        for game in ("overcooked", "hanabi", "collab_capture", "collab_escape")
    },
}
"""Why a text changed since the previous release, keyed by (game, field, question kind) or, for
every kind, by (game, field). A question whose kind changed needs no entry for its question."""

RETIRED: Mapping[str, str] = {}
"""Scenarios of the previous release dropped on purpose although the solvers still accept them,
with the reason (a scenario the solvers reject needs no entry: the rejection is the reason)."""


class ChangelogError(CoordqaError):
    """A change has no stated reason; register one where the change was made."""


@dataclass(frozen=True)
class Change:
    """One question that differs from the previous release."""

    question_id: str
    """The question's id (in the previous release for a removal, in the new one otherwise)."""
    change: ChangeKind
    """Changed, added or removed."""
    reasons: tuple[str, ...]
    """Why, one sentence per difference."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (``changelog.json``)."""
        return {**asdict(self), "reasons": list(self.reasons)}


def _key(row: Mapping[str, Any]) -> list[str]:
    return sorted(row["options"][i] for i in row["correct"])


def _kind(row: Mapping[str, Any]) -> str:
    return next((t.removeprefix("kind:") for t in row["tags"] if t.startswith("kind:")), "")


def _shown(row: Mapping[str, Any], field: str) -> str:
    """A text of :data:`TEXT_FIELDS` as the model sees it."""
    return directive_for(row) if field == "directive" else str(row[field])


def _changed_reasons(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Why ``new`` differs from ``old`` (same id); empty when nothing a model sees moved."""
    reasons = []
    kind_changed = _kind(old) != _kind(new)
    for field in TEXT_FIELDS:
        if field == "question" and kind_changed:
            continue
        if _shown(old, field) != _shown(new, field):
            game = new["game"]
            reason = TEXT_REASONS.get((game, field, _kind(new)), TEXT_REASONS.get((game, field)))
            if reason is None:
                raise ChangelogError(
                    f"{new['question_id']}: {field} changed but TEXT_REASONS has no reason for "
                    f"({new['game']!r}, {field!r}); register why in coordqa.scenarios.changelog"
                )
            reasons.append(f"{field.replace('_', ' ')}: {reason}")
    if kind_changed:
        reasons.append(f"{KIND_CHANGE}{_kind(old)} replaced by {_kind(new)}")
    if sorted(old["options"]) != sorted(new["options"]):
        added = sorted(set(new["options"]) - set(old["options"]))
        dropped = sorted(set(old["options"]) - set(new["options"]))
        parts = [f"added {added}" if added else "", f"dropped {dropped}" if dropped else ""]
        why = TEXT_REASONS.get((new["game"], "options", _kind(new)))
        reasons.append("options: " + "; ".join(p for p in parts if p) + (f": {why}" if why else ""))
    if _key(old) != _key(new):
        reasons.append(f"answer key: {_key(old)} -> {_key(new)} (solver: {new['rationale']})")
    return reasons


def _removal_reason(row: Mapping[str, Any]) -> str:
    """Why a question of the previous release is gone: the solvers' rejection or a retirement."""
    scenario_id = row["scenario_id"]
    if scenario_id in RETIRED:
        return f"scenario retired: {RETIRED[scenario_id]}"
    scenario = Scenario.from_row(row)
    builder = BUILDERS.get(scenario.game)
    try:
        builder.questions(builder.restore(scenario), scenario)
    except ScenarioRejected as rejection:
        return f"the current solvers reject this state: {rejection}"
    raise ChangelogError(
        f"scenario {scenario_id} is still accepted by its builder but was dropped; add the reason "
        "to RETIRED in coordqa.scenarios.changelog"
    )


def _replacing(row: Mapping[str, Any]) -> str:
    """``", replacing hanabi-22"``, with the chain and the rejection where recorded.

    The repair records them when a state that replaced another was itself replaced before the
    release (the reader of the changelog knows only the previous release's ids).
    """
    reached_by = json.loads(row["snapshot"]).get("reached_by", {})
    replaces = reached_by.get("replaces")
    if not replaces:
        return ""
    text = f", replacing {replaces}"
    if "originally" in reached_by:
        text += f" (which replaced {reached_by['originally']} of the previous release)"
    if "replaced_because" in reached_by:
        text += f"; {replaces} was dropped: {reached_by['replaced_because']}"
    return text


def changelog(
    previous: Iterable[Mapping[str, Any]], rows: Iterable[Mapping[str, Any]]
) -> list[Change]:
    """Every question that differs between ``previous`` and ``rows``, ordered by new row order.

    Raises:
        ChangelogError: a difference has no reason (see the module docstring).
    """
    before = {row["question_id"]: row for row in previous}
    after = {row["question_id"]: row for row in rows}
    changes = []
    for qid, row in after.items():
        if qid not in before:
            reason = f"new scenario {row['scenario_id']}{_replacing(row)} (kind {_kind(row)})"
            changes.append(Change(qid, "added", (reason,)))
            continue
        reasons = _changed_reasons(before[qid], row)
        if reasons:
            changes.append(Change(qid, "changed", tuple(reasons)))
    removal_reasons: dict[str, str] = {}
    for qid, row in before.items():
        if qid not in after:
            sid = row["scenario_id"]
            if sid not in removal_reasons:
                removal_reasons[sid] = _removal_reason(row)
            changes.append(Change(qid, "removed", (removal_reasons[sid],)))
    return changes


def changelog_json(changes: Sequence[Change], previous: str) -> str:
    """The machine-readable changelog stored next to a release (``changelog.json``)."""
    payload = {"previous": previous, "changes": [c.to_dict() for c in changes]}
    return json.dumps(payload, indent=1, ensure_ascii=False) + "\n"


def read_changelog(text: str) -> tuple[str, list[Change]]:
    """Inverse of :func:`changelog_json`: the previous release's name and the changes."""
    data = json.loads(text)
    return str(data["previous"]), [
        Change(str(c["question_id"]), c["change"], tuple(c["reasons"])) for c in data["changes"]
    ]


def changelog_markdown(changes: Sequence[Change], previous: str) -> str:
    """The card's changelog section: counts, then every question with its reasons.

    Reasons shared by many questions (a reworded state text) are listed once with the question
    ids they apply to; the rest are listed per question.
    """
    counts = {
        kind: sum(c.change == kind for c in changes) for kind in ("changed", "added", "removed")
    }
    lines = [
        f"## Changes from {previous}",
        "",
        f"{counts['changed']} questions changed, {counts['added']} added, {counts['removed']} "
        f"removed (computed by comparing every question with {previous}; "
        "`changelog.json` holds the same list).",
        "",
    ]
    shared: dict[str, list[str]] = {}
    for change in changes:
        for reason in change.reasons:
            if change.change == "changed" and reason.startswith(TEXT_FIELDS_PREFIXES):
                shared.setdefault(reason, []).append(change.question_id)
    if shared:
        lines += ["### Reworded texts", ""]
        for reason, ids in shared.items():
            lines.append(f"- {reason} ({len(ids)} questions: {', '.join(ids)})")
        lines.append("")
    lines += ["### Per question", "", "| question | change | reasons |", "|---|---|---|"]
    for change in changes:
        own = [
            r
            for r in change.reasons
            if not (change.change == "changed" and r.startswith(TEXT_FIELDS_PREFIXES))
        ]
        if not own:
            own = ["reworded texts only (see above)"]
        cell = "<br>".join(r.replace("|", "\\|") for r in own)
        lines.append(f"| {change.question_id} | {change.change} | {cell} |")
    return "\n".join(lines) + "\n"


TEXT_FIELDS_PREFIXES = tuple(f"{field.replace('_', ' ')}: " for field in TEXT_FIELDS)
"""How the reasons of text changes start (they are grouped in the card)."""
DIRECTIVE_PREFIX = "directive: "
"""How the reason of a directive change starts (the directive is not a column)."""
