"""The cases whose prompts ``tests/test_prompt_pins.py`` pins, and how their prompts are hashed.

Each case plays one episode with a deterministic offline model (``bot`` plays the game's strong
policy from the agent's seat; ``scripted`` and ``random`` take the re-ask, verifier and fallback
paths) and hashes every message of every model call the agents made, in order. Run as a
script, it prints the table the test pins: ``python tests/prompt_pins_support.py``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from coordqa.agentic import run_match
from coordqa.agentic.grid import parse_grid
from coordqa.jsonvalues import content_hash
from coordqa.prompts import PROMPT_LAYOUTS, build_messages, prompt_hash
from coordqa.records import Exchange

LAYOUTS = {
    "hanabi": "default",
    "overcooked": "cramped_room",
    "collab_capture": "default",
    "collab_escape": "default",
}
"""The layout each game's cases play."""

GAME_OPTIONS: dict[str, dict[str, Any]] = {"overcooked": {"horizon": 20}}
"""Overcooked is cut short; the other games end by their rules."""

PARTNERS = {
    "hanabi": "hanabi-piers",
    "overcooked": "greedy_human",
    "collab_capture": "capture-greedy",
    "collab_escape": "escape-greedy",
}
"""The scripted partner of each game's cross-play case."""


class Case(NamedTuple):
    """One episode whose prompts are pinned."""

    game: str
    agent: str
    model: str = "bot"
    options: dict[str, Any] = {}
    preset: str = "coordqa"
    partner: str | None = None
    position: int = 0

    @property
    def name(self) -> str:
        """A readable id: game, agent, model, then whatever else differs from the defaults."""
        parts = [self.game, self.agent, self.model]
        parts += [f"{k}={v}" for k, v in sorted(self.options.items())]
        if self.preset != "coordqa":
            parts.append(f"preset={self.preset}")
        if self.partner is not None:
            parts.append(f"with={self.partner}@{self.position}")
        return "/".join(parts)


def cases() -> list[Case]:
    """Every bundled LLM agent in every game, and each switch that changes what a prompt says."""
    found: list[Case] = []
    for game in LAYOUTS:
        for agent in ("llm", "cac", "hm", "react", "reflexion", "planreact"):
            found.append(Case(game, agent))
        found += [
            Case(game, "cac", preset="paper"),
            Case(game, "hm", preset="paper"),
            Case(game, "cac", options={"belief_state": True, "tom_level": 2}),
            Case(game, "hm", options={"belief_state": True}),
            Case(game, "cac", model="scripted"),
            Case(game, "llm", model="random"),
            Case(game, "cac", partner=PARTNERS[game], position=1),
            Case(game, "hm", partner=PARTNERS[game], position=0),
        ]
        found += [Case(game, "hm", options={"variant": v}) for v in ("vmp", "mmp", "mmp_eval")]
        found.append(Case(game, "hm", options={"variant": "he_hr"}))
    found.append(Case("hanabi", "cac", options={"tom_ladder": 3}))
    found.append(Case("hanabi", "hm", options={"tom_ladder": 2}))
    found.append(Case("overcooked", "cac", options={"partner_info": False}))
    found.append(Case("overcooked", "cac", preset="paper", options={"partner_info": False}))
    return found


def prompts_hash(case: Case) -> str:
    """Hash of every message the case's agents sent, call by call, with each call's role.

    The episode is built as ``coordqa agentic run`` builds it (a one-pairing grid), so the
    preset's agent options and the grid's are merged as in a run.
    """
    entry = {"game": case.game, "layouts": [LAYOUTS[case.game]], "seeds": [0]}
    grid = parse_grid(
        {
            "agents": [case.agent],
            "models": [case.model],
            "partners": [case.partner or "self"],
            "positions": case.position if case.partner else None,  # self-play: both seats
            "games": [{**entry, **GAME_OPTIONS.get(case.game, {})}],
            "preset": case.preset,
            "agent_options": {case.agent: case.options},
        }
    )
    (spec,) = grid.episodes()
    episode = run_match(spec)
    calls = [
        [record.role, [[m.role, m.content] for m in record.messages]]
        for record in episode.exchanges
        if isinstance(record, Exchange)
    ]
    return f"{len(calls)}:{content_hash(calls)[:16]}"


def dataset_prompts_hash(name: str) -> str:
    """Hash of the prompt hash of every question of a bundled release, in both layouts."""
    from coordqa.dataset import load_rows

    rows = load_rows(name)
    hashes = [
        [row["question_id"], layout, prompt_hash(build_messages(row, layout=layout))]
        for row in rows
        for layout in PROMPT_LAYOUTS
    ]
    return f"{len(rows)}:{content_hash(hashes)[:16]}"


if __name__ == "__main__":
    for release in ("coordinationqa-v1", "coordinationqa-v1.1", "coordinationqa-v1.2"):
        print(f'    "{release}": "{dataset_prompts_hash(release)}",')
    for case in cases():
        print(f'    "{case.name}": "{prompts_hash(case)}",')
