"""The ToM question ladder during play (Li et al.): introspection, first and second order.

With ``tom_ladder=N`` a CAC or HM agent is asked, at its first decision and every N-th one after
it, yes/no questions whose answers follow from the engine's knowledge of both seats: for one of
its own cards, the colour and then the rank, three orders each (six questions). The k-th time the
ladder is asked it is about Card ``k mod hand size``, so over an episode with ``--tom-ladder 5``
every card is asked about, both clue kinds each time, after 5 asks (21 decisions):

- introspection: "Do you know the colour of your Card 2?": yes when the agent can tell from the
  reveals it was given and counting the cards it sees (the board, the discards, the partner's
  hand) that only one colour is left;
- first order: "Does Bob know that his Card 2 is Red?" (the card's true colour, which the agent
  sees): yes when the reveals Bob was given leave only that colour (the engine's knowledge of
  Bob's hand; Bob may count the agent's cards too, which the agent cannot see, so a "no" is what
  the reveals alone say);
- second order: "Does Bob know that you know the colour of your Card 2?": what Bob can work out
  of the agent's knowledge. Bob knows every reveal, but not his own cards unless reveals named
  them, so he can count only the board and his cards that he knows: yes when those leave the
  agent one colour. It differs from introspection whenever the agent needs Bob's unrevealed
  cards to count (the agent's card is a 5 of White or Blue, Bob holds the only White 5 and does
  not know it: the agent knows, Bob cannot know that it knows).

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
from coordqa.games.hanabi.knowledge import Board, CardKnowledge, hand_identities, seat_hands
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


def ladder_questions(game: SeatView, player: int, ask: int) -> list[LadderQuestion]:
    """Hanabi: the questions of ``player``'s ``ask``-th ladder (0 first), with their answers.

    About Card ``ask mod hand size``: its colour, then its rank, three orders each.
    """
    seen = hanabi_seat(game).engine
    hands = seat_hands(seen, player)
    mine, theirs = hands[player], hands[1 - player]
    visible = [(c.color(), c.rank()) for c in seen.observed_hands()[1]]
    board = Board.of(seen)
    index = ask % min(len(mine), len(visible))  # hands differ by a card once the deck is out
    # what I can tell: my reveals, counting everything I see (Bob's hand included)
    i_can = hand_identities(mine, board.unseen(visible))[index]
    # what Bob can tell of that: my reveals, counting the board and the cards he knows he holds
    known_to_bob = [card for card, k in zip(visible, theirs, strict=True) if _pinned(k)]
    bob_sees_me = hand_identities(mine, board.unseen(known_to_bob))[index]
    partner, pronoun = PLAYER_NAMES[1 - player], PRONOUNS[1 - player]
    color, rank = visible[index]
    questions = []
    for attribute, part, value, told in (
        ("colour", 0, COLORS[color], known_colour(theirs[index])),
        ("rank", 1, str(RANKS[rank]), known_rank(theirs[index])),
    ):
        questions.append(
            LadderQuestion(
                "introspection",
                f"Do you know the {attribute} of your Card {index}?",
                len({card[part] for card in i_can}) == 1,
            )
        )
        questions.append(
            LadderQuestion(
                "first_order",
                f"Does {partner} know that {pronoun} Card {index} has {attribute} {value}?",
                told == value,
            )
        )
        questions.append(
            LadderQuestion(
                "second_order",
                f"Does {partner} know that you know the {attribute} of your Card {index}?",
                len({card[part] for card in bob_sees_me}) == 1,
            )
        )
    return questions


def _pinned(knowledge: CardKnowledge) -> bool:
    """Whether reveals told a card's holder both its colour and its rank."""
    return len(knowledge.colors) == 1 and len(knowledge.ranks) == 1


async def ask_ladder(agent: AgentServices, game: SeatView, ask: int) -> None:
    """Ask the ``ask``-th ladder (0 first) as side calls; count and score each answer."""
    memory = agent.memory(game)
    description = agent.long_term_memory(game)
    questions = game_profile(game.name).load("tom_ladder")
    answers = format_options(ANSWERS)
    for question in questions(game, agent.player, ask):
        text = f"{memory.strip()}\n\n{question.question}\n\n{MARKERS['ToM']}\n{answers}"
        messages = prompts.conversation(prompts.LADDER_DIRECTIVE, description, text)

        def read(reply: Reply, q: LadderQuestion = question) -> tuple[bool | None, LadderPayload]:
            choice = choose(reply.text, ANSWERS)
            said = None if choice.index is None else choice.index == 0
            right = said == q.truth
            return said, LadderPayload(**asdict(q), options=ANSWERS, choice=choice, correct=right)

        _, said = await agent.ask("ladder", messages, read)
        agent.counters.count_ladder(question.order, said == question.truth)
