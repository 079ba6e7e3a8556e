"""``bot``: a built-in model that plays well, to measure what the agents' pipeline does with it.

Every table the agentic track produced with its offline models showed zeros (the ``scripted``
model picks the first option), so nothing said whether a good model's choices survive the
prompts, option letters, grounding, verifier and fallbacks and become the score they should.
``bot`` answers from the game's own strong policy (``GameProfile.strong_policy``: the Hanabi
convention bot, the Overcooked planner, the Capture and Escape planners) acting from the agent's
own seat: the agent passes its :class:`~coordqa.games.feed.SeatFeed` with every call
(``Model.generate(context=...)``, asked for because :attr:`BotProvider.reads_context`), and the
bot replays what the seat was handed into its own instance of the policy, so it knows exactly
what the seat knows (its seat views), never more. An agent playing ``bot`` should then score
what the policy scores in the same seat, with the same partner and seeds; every difference is
the pipeline's (``benchmarks/bench_bot.py`` measures it).

It answers every role an agent asks, by filling in the reply format the call's system prompt
states (each ``Label: <...>`` line):

- action calls and their re-asks: the letter of the policy's action among the prompt's lettered
  options; an action that is not offered is matched by its text, and when nothing matches the
  reply names no option (counted as ``unmappable``: the agent's option list cannot express it);
- the verifier: ``Verification: Okay`` when the proposed action is the policy's, else ``Not
  Okay``;
- lettered questions about my own next action (level-2 ToM: what my partner expects of me): the
  policy's action; lettered predictions of the partner (HM, k-level ToM), the ToM ladder's
  yes/no questions and HE + HR's judgements: the first option (the bot does not model
  partners); HE + HR's targets (my action under a hypothesis): the policy's action;
- plans and subgoal lists: the policy's action as the one subgoal;
- belief updates: each checkable fact as the engine computes it from the seat's view;
- free text (ToM notes, hypotheses, reflections): one sentence naming the policy's action and the
  partner's last action.

``bot?noise=p`` replaces the policy's action at each decision, with probability p, by a legal
action drawn uniformly among the others, from a generator seeded by (``GenerateConfig.seed``, the
seat's seed, the decision's number): reruns agree. The verifier then judges against the noisy
action, so a noisy decision is carried out, not corrected: p sets the decision quality.

``bot`` refuses a call with no seat feed (a CoordinationQA question: it answers only agents
playing a game), as a fatal error that stops the run. It is never ranked: the leaderboard
refuses its runs.
"""

from __future__ import annotations

import asyncio
import random
import re
import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from coordqa.choices import OPTION_LABELS, choose, option_letter
from coordqa.directives import format_labels
from coordqa.errors import ModelError
from coordqa.games.base import PLAYER_NAMES, Observation, Player, game_profile, make_player
from coordqa.games.feed import ActEvent, ResetEvent, SeatFeed
from coordqa.jsonvalues import content_hash
from coordqa.llm.providers import Completion, Provider
from coordqa.llm.types import GenerateConfig, Message, RetryDecision, Usage

__all__ = ["BOT", "BotDecision", "BotOptions", "BotProvider", "BotTally", "bot_provider"]

BOT = "bot"
"""The model's registered name."""

PARTNER_ROLES = frozenset({"predict", "partner_predict", "vanilla", "ladder", "judgement"})
"""Roles whose lettered options are not this seat's actions (partner behaviours, yes/no, HE +
HR's better / same / worse)."""

_OPTION_LINE = re.compile(rf"^([{re.escape(OPTION_LABELS)}])\. (.+)$")
_PROPOSED = re.compile(r"^Proposed action: (.*)$", re.MULTILINE)


class BotRefusal(Exception):
    """A call ``bot`` cannot answer (no seat feed): every such call would fail the same way.

    A provider failure, classified fatal (:meth:`BotProvider.should_retry`), so the gateway
    returns it as a fatal error reply and the run stops with its words.
    """


@dataclass(frozen=True)
class BotOptions:
    """The bot's arguments, from its name (``bot?noise=0.1``)."""

    noise: float = 0.0
    """Probability of replacing the policy's action by another legal one at a decision."""

    @classmethod
    def from_name(cls, name: str) -> BotOptions:
        """Read ``bot`` or ``bot?noise=P``.

        Raises:
            ModelError: an unknown argument, or a noise outside [0, 1].

        >>> BotOptions.from_name("bot?noise=0.25").noise
        0.25
        """
        base, _, query = name.partition("?")
        if base != BOT:
            raise ModelError(f"bot_provider serves {BOT!r} and {BOT}?noise=P, not {name!r}")
        try:
            arguments = dict(parse_qsl(query, strict_parsing=True)) if query else {}
        except ValueError as exc:
            raise ModelError(
                f"model {name!r}: arguments must read like 'bot?noise=0.1' ({exc})"
            ) from exc
        unknown = sorted(set(arguments) - {"noise"})
        if unknown:
            raise ModelError(
                f"model {name!r}: unknown argument(s) {', '.join(unknown)}; bot takes only "
                "noise, e.g. bot?noise=0.1"
            )
        try:
            noise = float(arguments.get("noise", 0.0))
        except ValueError as exc:
            raise ModelError(f"model {name!r}: noise must be a number in [0, 1]") from exc
        if not 0.0 <= noise <= 1.0:
            raise ModelError(f"model {name!r}: noise must be in [0, 1], got {noise}")
        return cls(noise)


@dataclass(frozen=True)
class BotDecision:
    """The bot's decision at one of the seat's moves."""

    observation: Observation
    """What the seat was asked with."""
    policy: str
    """The strong policy's action."""
    intended: str
    """The action the bot answers with (the policy's, or the noise's draw)."""


@dataclass
class BotTally:
    """What the bot did, over every seat it played (for the benchmark and the tests)."""

    decisions: int = 0
    """Moves the seats were asked for (forced ones included: the policy saw them too)."""
    noisy: int = 0
    """Decisions whose action the noise replaced."""
    offered: int = 0
    """Action calls whose lettered options held the bot's action."""
    mapped: int = 0
    """Action calls whose options named the bot's action only by a matching text."""
    unmappable: int = 0
    """Action calls whose options did not hold the bot's action at all."""
    verdicts: Counter[str] = field(default_factory=Counter)
    """Verifier answers: ``okay`` / ``not_okay``."""
    calls: Counter[str] = field(default_factory=Counter)
    """Calls answered, by role."""


@dataclass
class _Seat:
    """The bot's own copy of the strong policy in one seat of one episode."""

    policy: Player
    seen: int = 0
    """Feed events already handed to the policy."""
    seed: int = 0
    player: int = 0
    decisions: list[BotDecision] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def now(self) -> BotDecision:
        if not self.decisions:
            raise BotRefusal("bot was called before its seat was asked to move")
        return self.decisions[-1]


class BotProvider(Provider):
    """The ``bot`` model (see the module docstring)."""

    cacheable = False
    runs_in_process = True
    answers_at_once = True
    reads_context = True
    reads_model_args = False  # it plays from the seat feed and the seed alone
    question_refusal = (
        "model 'bot' plays agentic episodes only: it answers from the seat feed an LLM agent "
        "passes with each call, and a CoordinationQA question has none. Use it with coordqa "
        "agentic run --agent llm|cac|hm --model bot"
    )

    def __init__(self, name: str, options: BotOptions) -> None:
        """Answer as ``name`` with ``options``."""
        super().__init__(name)
        self.options = options
        self.tally = BotTally()
        self._seats: weakref.WeakKeyDictionary[SeatFeed, _Seat] = weakref.WeakKeyDictionary()

    def connection_key(self) -> str:
        """An offline model: no endpoint, its key is its name."""
        return f"offline:{self.name}"

    async def complete(
        self, messages: Sequence[Message], config: GenerateConfig, *, trial: int, timeout_s: float
    ) -> Completion:
        """Refuse: without an agent's seat feed there is nothing to play from."""
        raise _no_feed(None)

    async def complete_in_context(
        self,
        messages: Sequence[Message],
        config: GenerateConfig,
        *,
        trial: int,
        timeout_s: float,
        role: str,
        context: object | None,
    ) -> Completion:
        """Catch the policy up with the seat's feed, then answer ``role`` from its decision."""
        if not isinstance(context, SeatFeed):
            raise _no_feed(context)
        seat = await self._follow(context, config)
        self.tally.calls[role] += 1
        text = self._answer(role, messages, seat)
        prompt = sum(len(m.content.split()) for m in messages)
        return Completion(text, Usage(prompt, len(text.split()), cost=0.0, calls=1), "stop")

    def should_retry(self, exc: Exception) -> RetryDecision:
        """A refusal is fatal: every later call would be refused the same way."""
        if isinstance(exc, BotRefusal):
            return RetryDecision("fatal", "every call would be refused the same way")
        return super().should_retry(exc)

    # ------------------------------------------------------------------ following the seat

    async def _follow(self, feed: SeatFeed, config: GenerateConfig) -> _Seat:
        seat = self._seats.get(feed)
        if seat is None:
            seat = self._seats[feed] = self._seat(feed)
        async with seat.lock:
            for event in feed.events[seat.seen :]:
                seat.seen += 1
                action = await event.hand_to(seat.policy)
                if isinstance(event, ActEvent) and action is not None:
                    seat.decisions.append(self._decide(seat, event.observation, action, config))
        return seat

    @staticmethod
    def _seat(feed: SeatFeed) -> _Seat:
        start = feed.events[0] if feed.events else None
        if not isinstance(start, ResetEvent):
            raise BotRefusal("bot got a seat feed that does not start with the episode's reset")
        view = start.view
        strong = game_profile(view.name).strong_policy
        if strong is None:
            raise BotRefusal(f"bot cannot play {view.name}: its GameProfile names no strong_policy")
        policy = make_player(strong, view.name, view.layout)
        return _Seat(policy, seed=start.seed, player=start.player)

    def _decide(
        self, seat: _Seat, observation: Observation, action: str, config: GenerateConfig
    ) -> BotDecision:
        self.tally.decisions += 1
        number = len(seat.decisions)
        others = [a for a in observation.legal_actions if a != action]
        intended = action
        if others and self.options.noise > 0:
            key = content_hash([config.seed or 0, seat.seed, seat.player, number])
            draw = random.Random(int(key[:16], 16))
            if draw.random() < self.options.noise:
                intended = draw.choice(others)
                self.tally.noisy += 1
        return BotDecision(observation, action, intended)

    # ------------------------------------------------------------------ answering

    def _answer(self, role: str, messages: Sequence[Message], seat: _Seat) -> str:
        """The reply: the verifier's verdict, or each line of the asked format filled in."""
        decision = seat.now
        if role == "verifier":
            verdict = self._verdict(messages, decision)
            return f"{self._policy_note(decision)}\nVerification: {verdict}"
        system = "\n".join(m.content for m in messages if m.role == "system")
        labels = format_labels(system)
        if not labels:
            return self._sentence(decision)
        options = lettered_options(messages)
        picks = {label.lower() for label in labels} & {"action", "answer"}
        facts = self._facts(decision) if role == "belief" else {}
        lines = []
        for label in labels:
            key = label.lower()
            if key in picks:
                value = self._pick(role, options, decision)
            elif key == "subgoals":
                value = f"\n1. {decision.intended}"
            elif key in facts:
                value = facts[key]
            elif picks:  # the reason given with a pick must not name an option itself
                value = self._policy_note(decision)
            else:
                value = self._sentence(decision)
            lines.append(f"{label}: {value}")
        return "\n".join(lines)

    def _pick(self, role: str, options: list[str], decision: BotDecision) -> str:
        """The letter to answer with among the call's options."""
        if not options:
            return decision.intended
        if role in PARTNER_ROLES:
            return option_letter(0)
        if decision.intended in options:
            self.tally.offered += 1
            return option_letter(options.index(decision.intended))
        choice = choose(decision.intended, options)
        if choice.index is not None and choice.matched_text:
            self.tally.mapped += 1
            return option_letter(choice.index)
        self.tally.unmappable += 1
        return "none (the strong policy's move is not among these)"

    def _verdict(self, messages: Sequence[Message], decision: BotDecision) -> str:
        proposed = _PROPOSED.findall(_last_user(messages))
        verdict = "okay" if proposed and proposed[-1].strip() == decision.intended else "not_okay"
        self.tally.verdicts[verdict] += 1
        return "Okay" if verdict == "okay" else "Not Okay"

    @staticmethod
    def _facts(decision: BotDecision) -> dict[str, str]:
        """The belief facts as the engine reads them from the seat's view, by lower-case label."""
        from coordqa.agentic.agents.features import belief_facts

        view = decision.observation.view
        facts = belief_facts(view.name)(view, view.seat)
        return {fact.label.lower(): fact.truth or "unknown" for fact in facts}

    def _policy_note(self, decision: BotDecision) -> str:
        """Why the bot answers as it does, naming no option."""
        strong = game_profile(decision.observation.view.name).strong_policy
        return f"this is the move of the game's strong policy ({strong}) from my seat."

    def _sentence(self, decision: BotDecision) -> str:
        view = decision.observation.view
        partner = 1 - view.seat
        last = view.last_actions(partner)
        seen = (
            f"{PLAYER_NAMES[partner]}'s last action was {last[-1]!r}"
            if last
            else (f"{PLAYER_NAMES[partner]} has not acted yet")
        )
        return f"{seen}; I play {decision.intended!r} now, as the game's strong policy would."


def lettered_options(messages: Sequence[Message]) -> list[str]:
    r"""The lettered options (``A. text`` lines) of the latest user message that has them.

    >>> lettered_options([Message("user", "State.\nAvailable Actions:\nA. wait\nB. move away")])
    ['wait', 'move away']
    """
    for message in reversed(messages):
        if message.role != "user":
            continue
        found: dict[str, str] = {}
        for line in message.content.splitlines():
            match = _OPTION_LINE.match(line)
            if match is not None:
                found[match.group(1)] = match.group(2)
        letters = [option_letter(i) for i in range(len(found))]
        if found and list(found) == letters:
            return [found[letter] for letter in letters]
    return []


def _last_user(messages: Sequence[Message]) -> str:
    return next((m.content for m in reversed(messages) if m.role == "user"), "")


def _no_feed(context: object | None) -> BotRefusal:
    given = "none" if context is None else type(context).__name__
    return BotRefusal(
        f"model 'bot' plays agentic episodes only: it answers from the seat feed an LLM agent "
        f"passes with each call (got {given}). Use it with coordqa agentic run --agent "
        "llm|cac|hm, not for CoordinationQA questions."
    )


def bot_provider(name: str, api_base: str | None, api_key: str | None) -> Provider:
    """The ``bot`` model (entry points ``bot`` and ``bot?`` of ``coordqa.models``).

    It runs in this process: the registry refuses an ``api_base`` or key given for it.
    """
    return BotProvider(name, BotOptions.from_name(name))
