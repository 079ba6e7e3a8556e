"""Built-in offline models: ``random`` (the paper's random baseline) and ``scripted``.

They run behind the same interface as real models (same gateway, limits and usage accounting),
never import litellm and need no network, so demos, CI and agent smoke tests run anywhere.

``random``
    Picks uniformly among the lettered options (lines such as ``C. pick up onion``, letters A-Z)
    of the last user message and replies ``Answer: C``. The choice is a pure function of
    (``GenerateConfig.seed`` or 0, the messages, the trial index): re-runs agree, trials differ.
    With no options it replies :data:`NO_OPTIONS_REPLY`, which names no option, so a scorer
    records ``no_answer`` rather than a guess.

``scripted``
    A deterministic policy for the CLI and smoke tests (:func:`default_policy`): it accepts any
    verification request (``... Verification: Okay``), picks the first lettered option (as
    ``Answer: A``, or ``Action: A`` when asked for an ``Action:``), fills in each line of the
    reply format a prompt without options asks for (``Hypothesis: scripted hypothesis``: agents'
    free-text calls are read only by their labels), and otherwise replies
    :data:`NO_OPTIONS_SCRIPTED_REPLY`. In Python, ``ScriptedModel(script)`` replays a list of
    replies or calls a function instead.

Offline replies report whitespace word counts as token counts and a cost of 0.0 (known: free).
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Sequence

from coordqa.directives import format_labels
from coordqa.errors import ConfigError, ModelError
from coordqa.jsonvalues import content_hash
from coordqa.llm.cache import messages_payload
from coordqa.llm.providers import Completion, Provider
from coordqa.llm.types import GenerateConfig, Message, Usage

NO_OPTIONS_REPLY = "no lettered options were found in the question, so there is no answer."
"""What ``random`` says when there is nothing to choose from (lower case: it names no option)."""

NO_OPTIONS_SCRIPTED_REPLY = "Scripted policy: there are no lettered options to choose from."
"""What ``scripted`` says to a message with no options and no verification request."""

_OPTION_LINE = re.compile(r"^[ \t]*([A-Z])[.)][ \t]+\S", re.MULTILINE)

ScriptStep = str | Exception
"""One scripted reply, or an exception to raise as a provider failure."""

Script = Sequence[ScriptStep] | Callable[[Sequence[Message]], str]
"""Replies consumed in order, or a function of the messages."""


def option_letters(text: str) -> list[str]:
    r"""The distinct option letters of lines like ``A. text`` or ``B) text``, in order.

    >>> option_letters("Pick one:\nA. wait\nB) move\n  C. stay\nDone.")
    ['A', 'B', 'C']
    >>> option_letters("no options here")
    []
    """
    return list(dict.fromkeys(_OPTION_LINE.findall(text)))


def last_user_text(messages: Sequence[Message]) -> str:
    """The content of the last user message ('' when there is none)."""
    return next((m.content for m in reversed(messages) if m.role == "user"), "")


def _word_usage(messages: Sequence[Message], text: str) -> Usage:
    prompt = sum(len(m.content.split()) for m in messages)
    return Usage(prompt, len(text.split()), cost=0.0, calls=1)


def random_reply(messages: Sequence[Message], config: GenerateConfig, trial: int) -> str:
    """The ``random`` model's reply: a uniform, deterministic choice among the options."""
    letters = option_letters(last_user_text(messages))
    if not letters:
        return NO_OPTIONS_REPLY
    seed = content_hash([config.seed or 0, messages_payload(messages), trial])
    return f"Answer: {random.Random(int(seed[:16], 16)).choice(letters)}"


def default_policy(messages: Sequence[Message]) -> str:
    """The named ``scripted`` model's reply (see the module docstring)."""
    system = "\n".join(m.content for m in messages if m.role == "system")
    last_user = last_user_text(messages)
    directive = f"{system}\n{last_user}"
    if "Verification" in directive:
        return "Explanation: scripted policy accepts the proposal.\nVerification: Okay"
    letters = option_letters(last_user)
    if letters:
        label = "Action" if "Action:" in directive else "Answer"
        return f"Explanation: scripted policy picks the first option.\n{label}: {letters[0]}"
    labels = format_labels(system)
    if labels:
        return "\n".join(f"{label}: scripted {label.lower()}" for label in labels)
    return NO_OPTIONS_SCRIPTED_REPLY


class _OfflineProvider(Provider):
    """Shared by the offline models: local, never cached, no key needed."""

    cacheable = False
    runs_in_process = True
    answers_at_once = True
    reads_model_args = False  # replies read the messages, and random the seed, alone

    def connection_key(self) -> str:
        """Offline models have no endpoint; their key is their name."""
        return f"offline:{self.name}"


class RandomProvider(_OfflineProvider):
    """The paper's random baseline (see :func:`random_reply`)."""

    async def complete(
        self, messages: Sequence[Message], config: GenerateConfig, *, trial: int, timeout_s: float
    ) -> Completion:
        """Pick an option; instant and deterministic."""
        text = random_reply(messages, config, trial)
        return Completion(text, _word_usage(messages, text))


class ScriptedProvider(_OfflineProvider):
    """Replays a list of replies in order, or calls a function of the messages."""

    def __init__(self, script: Script, name: str = "scripted") -> None:
        """Use ``script``: a list of replies (or exceptions to raise), or a callable."""
        super().__init__(name)
        if callable(script):
            self._policy: Callable[[Sequence[Message]], str] | None = script
            self._steps: list[ScriptStep] = []
        elif isinstance(script, str) or not isinstance(script, Sequence):
            raise ConfigError(
                f"script must be a list of replies or a callable (messages) -> str, "
                f"got {type(script).__name__}"
            )
        else:
            self._policy = None
            self._steps = list(script)
        self._used = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        """Scripted replies not yet used (0 for a callable script)."""
        with self._lock:
            return len(self._steps) - self._used

    def _next_step(self, messages: Sequence[Message]) -> ScriptStep:
        if self._policy is not None:
            return self._policy(messages)
        with self._lock:
            if self._used >= len(self._steps):
                raise ModelError(
                    f"ScriptedModel ran out of replies: all {len(self._steps)} were used and "
                    "another call was made. Add replies to the script or pass a callable."
                )
            step = self._steps[self._used]
            self._used += 1
        return step

    async def complete(
        self, messages: Sequence[Message], config: GenerateConfig, *, trial: int, timeout_s: float
    ) -> Completion:
        """The next scripted reply; a scripted exception is raised as a provider failure."""
        step = self._next_step(messages)
        if isinstance(step, Exception):
            raise step
        if not isinstance(step, str):
            raise ConfigError(f"a script must produce str replies, got {type(step).__name__}")
        return Completion(step, _word_usage(messages, step))


def random_provider(name: str, api_base: str | None, api_key: str | None) -> Provider:
    """The ``random`` model (registered in :mod:`coordqa.llm.registry`)."""
    return RandomProvider(name)


def scripted_provider(name: str, api_base: str | None, api_key: str | None) -> Provider:
    """The ``scripted`` model (registered in :mod:`coordqa.llm.registry`)."""
    return ScriptedProvider(default_policy, name)
