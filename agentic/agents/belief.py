"""An explicit belief state (Li et al., ToM for multi-agent collaboration), checked by code.

With ``belief_state`` on, a CAC or HM agent rewrites a short belief text at each decision, after
it has seen the new state and before it plans or acts (one ``belief`` call). The text is bounded
(:data:`MAX_BELIEF_CHARS`), shown to every later call of the agent as a memory section, and stored
in the exchange record of each update.

The belief starts with one line per *checkable fact*: facts the engine knows the truth of, about
the partner (where the partner is, what the partner holds, what the partner knows about their own
cards). Code reads those lines back and compares them with the engine's state at that decision,
so belief accuracy is measured, not judged:

- Hanabi: for each of the partner's cards, the colour and the rank the partner knows (the
  engine's hint knowledge leaves one plausible value; ``?`` otherwise): "what the partner knows
  about their own cards";
- Overcooked: what the partner holds (nothing, onion, dish or soup), and the object the partner's
  action in progress ends at (checked only while the engine runs one: partners that move by
  primitives, such as the BC models and ``greedy_human``, have no target the engine knows);
- Collab Capture: the partner's room and the thief's room; Collab Escape: the partner's room and
  the killer's room.

Each game computes its own facts (``GameProfile.agents.belief_facts``, a
:class:`~coordqa.games.BeliefFacts` function in the game's package: Hanabi's in
``coordqa/games/hanabi/tom.py``); this module asks for them, writes the template and checks the
belief against them.

Free text (plans, intentions, anything else the model keeps) follows under ``Notes:``. A fact
line the model left out, or wrote unreadably, counts as wrong: the belief was asked for it. Only
the template's lines are kept (in its order); a reply with none of them is asked once more,
then the belief stays as it was (counted per role).
"""

from __future__ import annotations

import re

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.features import belief_facts
from coordqa.agentic.agents.replies import labelled_lines
from coordqa.agentic.agents.services import AgentServices
from coordqa.agentic.records import BeliefCheck, BeliefPayload
from coordqa.directives import format_labels
from coordqa.games import BeliefFact
from coordqa.games.agent_profile import fact_value
from coordqa.games.seat import SeatView
from coordqa.llm import Reply

MAX_BELIEF_CHARS = 800
"""A belief text is cut to this length (prompts that show it stay bounded)."""


def believed(text: str | None, label: str) -> str | None:
    r"""The value written on the last ``label:`` line of ``text``, normalised, or None.

    >>> believed("Bob's room: 6\nNotes: he chases.", "Bob's room")
    '6'
    >>> believed("**Bob holds:** Onion.", "Bob holds")
    'onion'
    """
    pattern = re.compile(rf"^[\s*_`#-]*{re.escape(label)}[\s*_`]*:\s*(.*)$", re.I | re.M)
    matches = pattern.findall((text or "").replace("**", ""))
    return fact_value(matches[-1]) if matches else None


def check_belief(text: str | None, facts: list[BeliefFact]) -> list[BeliefCheck]:
    """Each fact the engine knows now: what the belief says about it, and whether it is true."""
    checks = []
    for fact in facts:
        if fact.truth is None:
            continue
        said = believed(text, fact.label)
        checks.append(
            BeliefCheck(
                fact=fact.label, believed=said, truth=fact.truth, correct=said == fact.truth
            )
        )
    return checks


class BeliefState:
    """One agent's belief text over one episode, updated by a model call at each decision."""

    def __init__(self, agent: AgentServices, game_name: str) -> None:
        """Keep the belief of ``agent`` in ``game_name`` (empty until the first update).

        Raises:
            ConfigError: the game has no belief facts.
        """
        self.agent = agent
        self.facts = belief_facts(game_name)
        self.text = ""

    def reset(self) -> None:
        """Start a new episode with no belief."""
        self.text = ""

    def section(self) -> str:
        """The memory section that shows the belief ('' before the first update)."""
        return f"My belief state:\n{self.text}" if self.text else ""

    async def update(self, game: SeatView) -> None:
        """Rewrite the belief from the current state and the previous belief; check its facts."""
        agent = self.agent
        facts = self.facts(game, agent.player)
        template = "\n".join(f"{fact.label}: {fact.hint}" for fact in facts)
        messages = prompts.belief_messages(
            agent.long_term_memory(game), agent.memory(game), template, MAX_BELIEF_CHARS
        )

        labels = format_labels(messages[0].content)

        def read(reply: Reply) -> tuple[BeliefPayload | None, BeliefPayload]:
            text = (labelled_lines(reply.text, labels) or "")[:MAX_BELIEF_CHARS]
            payload = BeliefPayload(belief=text, belief_checks=check_belief(text, facts))
            return (payload if text else None), payload

        fallback = "the belief is kept as it was; its facts count as wrong"
        payload = await agent.ask_labelled("belief", messages, read, fallback)
        if payload is None:
            checks = check_belief("", facts)
        else:
            self.text, checks = payload.belief, payload.belief_checks
        correct = [check.correct for check in checks]
        agent.counters.count_belief(correct)
        if correct:
            agent.note_event("belief_accuracy", sum(correct) / len(correct))
