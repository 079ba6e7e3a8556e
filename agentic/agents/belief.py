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

Each game's profile names its facts function (``GameProfile.belief_facts``).

Free text (plans, intentions, anything else the model keeps) follows under ``Notes:``. A fact
line the model left out, or wrote unreadably, counts as wrong: the belief was asked for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.memory import PRONOUNS
from coordqa.agentic.agents.services import AgentServices
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES, game_profile
from coordqa.games.hanabi.engine import COLORS, RANKS
from coordqa.games.hanabi.knowledge import CardKnowledge, seat_hands
from coordqa.games.hanabi.view import hanabi_seat
from coordqa.games.seat import SeatView
from coordqa.llm import Reply
from coordqa.records import BeliefCheck, BeliefPayload

MAX_BELIEF_CHARS = 800
"""A belief text is cut to this length (prompts that show it stay bounded)."""


@dataclass(frozen=True)
class BeliefFact:
    """One checkable line of the belief: its label, what the model is told to write, the truth."""

    label: str
    """The line's label, e.g. ``Bob's room`` (the model writes ``<label>: <value>``)."""
    hint: str
    """What to write after the label (shown in the template)."""
    truth: str | None
    """The engine's value, normalised (lower case, single spaces); None when the engine does not
    know it now (the line is asked for but not checked)."""


def _normal(value: str) -> str:
    return " ".join(value.lower().replace("*", "").split()).strip(" .")


def known_colour(card: CardKnowledge) -> str | None:
    """The colour a card's holder knows it has (one plausible colour left), else None."""
    return COLORS[card.colors[0]] if len(card.colors) == 1 else None


def known_rank(card: CardKnowledge) -> str | None:
    """The rank a card's holder knows it has (one plausible rank left), else None."""
    return str(RANKS[card.ranks[0]]) if len(card.ranks) == 1 else None


def hanabi_facts(game: SeatView, player: int) -> list[BeliefFact]:
    """Hanabi: what the partner knows of each of their cards (colour and rank, ``?`` unknown)."""
    partner = PLAYER_NAMES[1 - player]
    theirs = seat_hands(hanabi_seat(game).engine, player)[1 - player]
    facts = []
    for index, card in enumerate(theirs):
        colour, rank = known_colour(card) or "?", known_rank(card) or "?"
        label = f"{partner} knows of {PRONOUNS[1 - player]} Card {index}"
        hint = "<colour known to them, or ?> <rank known to them, or ?>"
        facts.append(BeliefFact(label, hint, _normal(f"{colour} {rank}")))
    return facts


def overcooked_facts(game: SeatView, player: int) -> list[BeliefFact]:
    """Overcooked: what the partner holds, and the target of the action it runs (if any)."""
    from coordqa.games.overcooked.game import kitchen

    partner = PLAYER_NAMES[1 - player]
    seen = kitchen(game)
    held = seen.state.players[1 - player].held_object
    truth = "nothing" if held is None else str(held.name)
    task = seen.partner_task
    target = None if task is None or task.target is None else _normal(task.target)
    return [
        BeliefFact(f"{partner} holds", "nothing, onion, dish or soup", truth),
        BeliefFact(
            f"{partner}'s target", "<the object they are heading for, e.g. o0 or c0>", target
        ),
    ]


def _room_facts(game: SeatView, player: int, other: str) -> list[BeliefFact]:
    """A Collab game: the partner's room and the room of ``other`` (the thief, the killer)."""
    partner = PLAYER_NAMES[1 - player]
    state = game.observation().state
    partner_room = state.bob if player == 0 else state.alice
    return [
        BeliefFact(f"{partner}'s room", "<room number>", str(partner_room)),
        BeliefFact(f"The {other}'s room", "<room number>", str(getattr(state, other))),
    ]


def capture_facts(game: SeatView, player: int) -> list[BeliefFact]:
    """Collab Capture: the partner's room and the thief's room."""
    return _room_facts(game, player, "thief")


def escape_facts(game: SeatView, player: int) -> list[BeliefFact]:
    """Collab Escape: the partner's room and the killer's room."""
    return _room_facts(game, player, "killer")


def belief_facts(game: SeatView, player: int) -> list[BeliefFact]:
    """The checkable facts of ``player``'s belief in ``game`` now.

    The game profile's ``belief_facts`` function computes them.

    Raises:
        ConfigError: the game's profile names no belief facts.
    """
    facts = game_profile(game.name).load("belief_facts")
    if facts is None:
        raise ConfigError(
            f"the belief state has no checkable facts for game {game.name!r}: its GameProfile "
            "names no belief_facts. Set it to a function (SeatView, player) -> list[BeliefFact], "
            "or drop belief_state."
        )
    found: list[BeliefFact] = facts(game, player)
    return found


def believed(text: str | None, label: str) -> str | None:
    r"""The value written on the last ``label:`` line of ``text``, normalised, or None.

    >>> believed("Bob's room: 6\nNotes: he chases.", "Bob's room")
    '6'
    >>> believed("**Bob holds:** Onion.", "Bob holds")
    'onion'
    """
    pattern = re.compile(rf"^[\s*_`#-]*{re.escape(label)}[\s*_`]*:\s*(.*)$", re.I | re.M)
    matches = pattern.findall((text or "").replace("**", ""))
    return _normal(matches[-1]) if matches else None


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

    def __init__(self, agent: AgentServices) -> None:
        """Keep the belief of ``agent`` (empty until the first update)."""
        self.agent = agent
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
        facts = belief_facts(game, agent.player)
        template = "\n".join(f"{fact.label}: {fact.hint}" for fact in facts)
        messages = prompts.belief_messages(
            agent.long_term_memory(game), agent.memory(game), template, MAX_BELIEF_CHARS
        )

        def read(reply: Reply) -> tuple[BeliefPayload, BeliefPayload]:
            text = (reply.text or "").strip()[:MAX_BELIEF_CHARS]
            payload = BeliefPayload(belief=text, belief_checks=check_belief(text, facts))
            return payload, payload

        _reply, payload = await agent.ask("belief", messages, read)
        self.text = payload.belief
        correct = [check.correct for check in payload.belief_checks]
        agent.counters.count_belief(correct)
        if correct:
            agent.note_event("belief_accuracy", sum(correct) / len(correct))
