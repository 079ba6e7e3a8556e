"""What the agents' theory-of-mind features ask of Hanabi: belief facts, behaviours, the ladder.

Hanabi's part of its :class:`~coordqa.games.agent_profile.AgentProfile`, written against the
contracts of :mod:`coordqa.games.agent_profile` and read from a seat's view only:

- :func:`hanabi_facts`: what the partner knows of each of its own cards (colour and rank, ``?``
  when the reveals leave more than one), the facts an agent's belief state is checked on;
- :class:`HanabiBehaviour`: the partner's next move, type and target ("Bob: Play his Card 2",
  "Bob: Reveal Alice's rank 1 cards"), all 20 move forms of the two-player game;
- :func:`ladder_questions`: the ToM question ladder (Li et al.): for one of the agent's own
  cards, its colour and then its rank, three orders each (six questions). The ``ask``-th ladder
  is about Card ``ask mod hand size``:

  - introspection: "Do you know the colour of your Card 2?": yes when the agent can tell from
    the reveals it was given and counting the cards it sees (the board, the discards, the
    partner's hand) that only one colour is left;
  - first order: "Does Bob know that his Card 2 is Red?" (the card's true colour, which the
    agent sees): yes when the reveals Bob was given leave only that colour (the engine's
    knowledge of Bob's hand; Bob may count the agent's cards too, which the agent cannot see,
    so a "no" is what the reveals alone say);
  - second order: "Does Bob know that you know the colour of your Card 2?": what Bob can work
    out of the agent's knowledge. Bob knows every reveal, but not his own cards unless reveals
    named them, so he can count only the board and his cards that he knows: yes when those
    leave the agent one colour. It differs from introspection whenever the agent needs Bob's
    unrevealed cards to count (the agent's card is a 5 of White or Blue, Bob holds the only
    White 5 and does not know it: the agent knows, Bob cannot know that it knows).

Only Hanabi has hidden information among coordqa's games, so only it has a ladder.
"""

from __future__ import annotations

from coordqa.games.agent_profile import BeliefFact, LadderQuestion, PartnerBehaviour
from coordqa.games.base import StepResult
from coordqa.games.hanabi.engine import COLORS, RANKS, uid_texts
from coordqa.games.hanabi.knowledge import Board, CardKnowledge, hand_identities, seat_hands
from coordqa.games.hanabi.view import hanabi_seat
from coordqa.games.names import PLAYER_NAMES, PRONOUNS, third_person
from coordqa.games.seat import SeatView

__all__ = ["HanabiBehaviour", "hanabi_facts", "known_colour", "known_rank", "ladder_questions"]


def known_colour(card: CardKnowledge) -> str | None:
    """The colour a card's holder knows it has (one plausible colour left), else None."""
    return COLORS[card.colors[0]] if len(card.colors) == 1 else None


def known_rank(card: CardKnowledge) -> str | None:
    """The rank a card's holder knows it has (one plausible rank left), else None."""
    return str(RANKS[card.ranks[0]]) if len(card.ranks) == 1 else None


def hanabi_facts(game: SeatView, player: int) -> list[BeliefFact]:
    """What the partner knows of each of their cards (colour and rank, ``?`` unknown)."""
    partner = PLAYER_NAMES[1 - player]
    theirs = seat_hands(hanabi_seat(game).engine, player)[1 - player]
    facts = []
    for index, card in enumerate(theirs):
        colour, rank = known_colour(card) or "?", known_rank(card) or "?"
        label = f"{partner} knows of {PRONOUNS[1 - player]} Card {index}"
        hint = "<colour known to them, or ?> <rank known to them, or ?>"
        facts.append(BeliefFact(label, hint, f"{colour} {rank}"))
    return facts


class HanabiBehaviour(PartnerBehaviour):
    """The partner's next Hanabi move."""

    def question(self, player: int) -> str:
        """What the partner does on its next turn."""
        partner = 1 - player
        return f"What will {PLAYER_NAMES[partner]} do on {PRONOUNS[partner]} next turn?"

    def _text(self, action: str, partner: int) -> str:
        return f"{PLAYER_NAMES[partner]}: {third_person(action, partner)}"

    def options(self, game: SeatView, player: int) -> list[str]:
        """Every move form of the partner (play/discard a card, reveal a colour or rank)."""
        partner = 1 - player
        return [self._text(action, partner) for action in uid_texts(partner)]

    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's move, when it moved in this step."""
        partner = 1 - player
        action = result.completed.get(partner)
        return [] if action is None else [self._text(action, partner)]


def ladder_questions(game: SeatView, player: int, ask: int) -> list[LadderQuestion]:
    """The questions of ``player``'s ``ask``-th ladder (0 first), with their answers.

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


REACT_EXAMPLES = (
    "Thought: Bob has been cluing the cards I can play right away, so his strategy is to point "
    "at my playable cards. He just revealed my Red cards, and Red 1 is the next red card "
    "needed, so my newly clued card is very likely Red 1.\nSubgoals:\n1. Play my Card 2",
    "Thought: Bob plays the cards I clue and otherwise discards his oldest card. His newest "
    "card is a Blue 1, playable now, which he does not know about; a colour clue names it "
    "alone, so he will play it on his turn.\nSubgoals:\n1. Reveal Bob's Blue color cards",
    "Thought: No reveal tokens are left, so Bob cannot clue me until someone discards, and he "
    "keeps his clues for playable cards. None of my cards is known to be playable, and my "
    "oldest card has had no clue.\nSubgoals:\n1. Discard my Card 0",
)
"""Three example responses for HM's ReAct baseline in Hanabi (coordqa's own, seat Alice)."""
