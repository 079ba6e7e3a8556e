"""The Guesser agent: before each action call it asks the model to guess the partner's move.

Its ``guess`` call is a role coordqa does not know: the agent declares the role's payload
(:class:`GuessPayload`) and record type (:class:`GuessExchange`), and the ``coordqa.agent_roles``
entry point registers the type, so runs store the role's records typed and read them back.
"""

from __future__ import annotations

from typing import Literal

from coordqa.agentic.agents import LLMAgent, agent_spec
from coordqa.games import PLAYER_NAMES, Observation
from coordqa.llm import Message, Reply
from coordqa.records import Exchange, Payload

GUESS_DIRECTIVE = (
    "You watch a cooperative game. Guess the next move of the named player in a few words.\n"
    "Reply in exactly this format:\nGuess: <the move>"
)


class GuessPayload(Payload):
    """What a guess call adds to its exchange."""

    partner: str
    """Whose move was guessed."""
    guess: str | None
    """The guess read from the reply (None when it held no ``Guess:`` line)."""


class GuessExchange(Exchange, GuessPayload):
    """A guess call's record."""

    role: Literal["guess"]


def read_guess(text: str | None) -> str | None:
    """The text after the last ``Guess:`` line, or None."""
    lines = [line for line in (text or "").splitlines() if line.startswith("Guess:")]
    return lines[-1].removeprefix("Guess:").strip() if lines else None


class GuesserAgent(LLMAgent):
    """Guesses the partner's move (role ``guess``), then makes the usual action call."""

    name = "guesser"
    version = "guesser-v1"

    async def decide(self, observation: Observation) -> str:
        """One guess call, then the action call."""
        game = observation.view
        partner = PLAYER_NAMES[1 - self.player]
        question = f"{self.memory(game).strip()}\n\nWhat will {partner} do next?"
        messages = [Message("system", GUESS_DIRECTIVE), Message("user", question)]

        def read(reply: Reply) -> tuple[str | None, GuessPayload]:
            guess = read_guess(reply.text)
            return guess, GuessPayload(partner=partner, guess=guess)

        await self.ask("guess", messages, read)
        legal = observation.legal_actions
        return (await self.choose_action(game, legal, self.memory(game))).action


GUESSER = agent_spec(GuesserAgent, "Guesser (a plugin): guesses the partner's move, then acts")
"""The agent's registry entry (entry point ``guesser``)."""
