"""The ToM question ladder during play (Li et al.): introspection, first and second order.

With ``tom_ladder=N`` a CAC or HM agent is asked, at its first decision and every N-th one after
it, three yes/no questions whose answers the engine knows, one per order, about one card (the
card and the attribute, colour or rank, cycle with the decision number):

- introspection: "Do you know the colour of your Card 2?": yes when the engine's hint knowledge
  leaves one plausible colour for the agent's own card;
- first order: "Does Bob know that his Card 2 is Red?" (the card's true colour, which the agent
  sees): yes when Bob's knowledge leaves only that colour;
- second order: "Does Bob know that you know the colour of your Card 2?": hints are public, so
  Bob knows exactly what the agent was told: yes when the agent knows it.

The questions are *side calls*: asked after the decision's action is chosen, recorded with
``side_call: true`` (role ``ladder``), counted in the calls and tokens, and never shown to the
agent's later calls, so play is the same with the ladder as without it. Accuracy is kept per
order (``ladder_<order>_asked`` / ``_correct``).

Only Hanabi has hidden information in coordqa's games: in Overcooked and the Collab games every
fact is common knowledge, every answer would be "yes", and the ladder is refused there. A game's
profile names its question function (``GameProfile.tom_ladder``; Hanabi's is
:func:`ladder_questions`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.belief import known_colour, known_rank
from coordqa.agentic.agents.memory import PRONOUNS
from coordqa.agentic.agents.services import AgentServices
from coordqa.choices import choose, format_options
from coordqa.errors import ConfigError
from coordqa.games.base import GAMES, PLAYER_NAMES, game_profile
from coordqa.games.hanabi.engine import COLORS, RANKS
from coordqa.games.hanabi.knowledge import seat_hands
from coordqa.games.hanabi.view import hanabi_seat
from coordqa.games.seat import SeatView
from coordqa.llm import Reply
from coordqa.prompts import MARKERS
from coordqa.records import LadderPayload

ORDERS = ("introspection", "first_order", "second_order")
"""The rungs of the ladder, in order."""

ANSWERS = ["Yes", "No"]
"""The lettered answers of every ladder question."""


def check_ladder(game_name: str, every: object) -> int:
    """Return ``every`` (0: off; N: ask at decision 1 and every N-th after it) if it is valid.

    Raises:
        ConfigError: not an integer >= 0, or a game without hidden information.
    """
    if not isinstance(every, int) or isinstance(every, bool) or every < 0:
        raise ConfigError(
            f"tom_ladder must be an integer >= 0 (0: off; N: ask every N-th decision), "
            f"got {every!r}"
        )
    if every and game_profile(game_name).tom_ladder is None:
        with_ladder = [name for name, game in GAMES.items() if game.profile.tom_ladder]
        raise ConfigError(
            f"the ToM question ladder needs hidden information; in {game_name!r} every fact is "
            f"common knowledge (its GameProfile names no tom_ladder). Use it in "
            f"{', '.join(with_ladder) or 'a game whose profile names one'}, or drop tom_ladder."
        )
    return every


@dataclass(frozen=True)
class LadderQuestion:
    """One question of the ladder with the engine's answer."""

    order: str
    """One of :data:`ORDERS`."""
    question: str
    """The question."""
    truth: bool
    """The engine's answer."""


def ladder_questions(game: SeatView, player: int, decision: int) -> list[LadderQuestion]:
    """Hanabi: the three questions of ``player``'s ladder at ``decision``, with their answers."""
    seen = hanabi_seat(game).engine
    hands = seat_hands(seen, player)
    mine, theirs = hands[player], hands[1 - player]
    hand = seen.observed_hands()[1]
    index = decision % len(mine)
    partner, pronoun = PLAYER_NAMES[1 - player], PRONOUNS[1 - player]
    card = hand[index]
    if decision % 2 == 0:
        attribute, value = "colour", COLORS[card.color()]
        i_know, they_know = known_colour(mine[index]), known_colour(theirs[index])
    else:
        attribute, value = "rank", str(RANKS[card.rank()])
        i_know, they_know = known_rank(mine[index]), known_rank(theirs[index])
    return [
        LadderQuestion(
            "introspection",
            f"Do you know the {attribute} of your Card {index}?",
            i_know is not None,
        ),
        LadderQuestion(
            "first_order",
            f"Does {partner} know that {pronoun} Card {index} has {attribute} {value}?",
            they_know == value,
        ),
        LadderQuestion(
            "second_order",
            f"Does {partner} know that you know the {attribute} of your Card {index}?",
            i_know is not None,
        ),
    ]


async def ask_ladder(agent: AgentServices, game: SeatView) -> None:
    """Ask the three questions as side calls; count and record each answer against the truth."""
    memory = agent.memory(game)
    description = agent.long_term_memory(game)
    questions = game_profile(game.name).load("tom_ladder")
    answers = format_options(ANSWERS)
    for question in questions(game, agent.player, agent.decision):
        text = f"{memory.strip()}\n\n{question.question}\n\n{MARKERS['ToM']}\n{answers}"
        messages = prompts.conversation(prompts.LADDER_DIRECTIVE, description, text)

        def read(reply: Reply, q: LadderQuestion = question) -> tuple[bool | None, LadderPayload]:
            choice = choose(reply.text, ANSWERS)
            said = None if choice.index is None else choice.index == 0
            right = said == q.truth
            return said, LadderPayload(**asdict(q), options=ANSWERS, choice=choice, correct=right)

        _, said = await agent.ask("ladder", messages, read)
        agent.counters.count_ladder(question.order, said == question.truth)
