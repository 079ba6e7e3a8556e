"""The ToM question ladder during play (Li et al.): introspection, first and second order.

With ``tom_ladder=N`` a CAC or HM agent is asked, at its first decision and every N-th one after
it, yes/no questions whose answers follow from the engine's knowledge of both seats: for one of
its own cards, the colour and then the rank, three orders each (six questions). The k-th time the
ladder is asked it is about Card ``k mod hand size``, so over an episode with ``--tom-ladder 5``
every card is asked about, both clue kinds each time, after 5 asks (21 decisions). The questions
and the engine's answers are the game's (``GameProfile.agents.tom_ladder``; Hanabi's, with the
three orders explained, in ``coordqa/games/hanabi/tom.py``).

The questions are *side calls*: asked after the decision's action is chosen, recorded with
``side_call: true`` (role ``ladder``), counted in the calls and tokens, and never shown to the
agent's later calls, so play is the same with the ladder as without it. Accuracy is kept per
order (``ladder_<order>_asked`` / ``_correct``).

Only Hanabi has hidden information in coordqa's games: in Overcooked and the Collab games every
fact is common knowledge, every answer would be "yes", and the ladder is refused there.
"""

from __future__ import annotations

from dataclasses import asdict

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.features import tom_ladder
from coordqa.agentic.agents.services import AgentServices
from coordqa.agentic.records import LadderPayload
from coordqa.choices import choose, format_options
from coordqa.errors import ConfigError
from coordqa.games import LadderQuestion
from coordqa.games.seat import SeatView
from coordqa.llm import Reply
from coordqa.prompts import MARKERS

ANSWERS = ["Yes", "No"]
"""The lettered answers of every ladder question."""


def check_every(every: object) -> int:
    """Return ``every`` (0: off; N: ask at decision 1 and every N-th after it) if it is valid.

    Raises:
        ConfigError: not an integer >= 0.
    """
    if not isinstance(every, int) or isinstance(every, bool) or every < 0:
        raise ConfigError(
            f"tom_ladder must be an integer >= 0 (0: off; N: ask every N-th decision), "
            f"got {every!r}"
        )
    return every


async def ask_ladder(agent: AgentServices, game: SeatView, ask: int) -> None:
    """Ask the ``ask``-th ladder (0 first) as side calls; count and score each answer."""
    memory = agent.memory(game)
    description = agent.long_term_memory(game)
    questions = tom_ladder(game.name)
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
