"""How a grid is executed (:class:`RuntimeSettings`): the one home of those defaults.

A module of its own, importing only pydantic and :mod:`coordqa.llm.types`, so that
``coordqa agentic``'s help reads the defaults from here without importing the grid's games.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from coordqa.llm.types import CallPolicy, Transport

__all__ = ["RuntimeSettings"]


_POLICY = CallPolicy()
"""Where the call settings of a grid take their defaults."""


class RuntimeSettings(BaseModel):
    """How the grid is executed; may change between sessions of the same run."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["local", "ray"] = "local"
    """``local``: asyncio in this process; ``ray``: Ray tasks (results written by the driver)."""
    address: str | None = None
    """Ray cluster address (None: start a local Ray instance)."""
    parallel_episodes: int = Field(default=8, ge=1)
    """Episodes in flight at once."""
    concurrency: int = Field(default=_POLICY.concurrency, ge=1)
    """Model calls in flight at once per model connection (shared by all episodes)."""
    requests_per_minute: float | None = Field(default=None, gt=0)
    """Optional request rate limit per model connection."""
    tokens_per_minute: float | None = Field(default=None, gt=0)
    """Optional token rate limit per model connection."""
    timeout_s: float = Field(default=_POLICY.timeout_s, gt=0)
    """Timeout of one model call attempt."""
    max_attempts: int = Field(default=_POLICY.max_attempts, ge=1)
    """Attempts per model call."""
    max_connection_failures: int = Field(default=_POLICY.max_connection_failures, ge=1)
    """Attempts in a row that get no answer from a model's server before it counts as
    unreachable (the run then stops)."""
    max_error_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Share of the grid's episodes that may fail (a model call failed after its retries, or
    the episode raised) without failing the run; 0: none."""
    max_fallback_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    """Share of the decisions with a choice that may end in the game's safe fallback action
    (an unreadable or empty reply) without failing the run; None: no limit (a run in which
    every decision fell back is still reported as such)."""
    cache: bool = False
    """Serve repeated identical prompts from the response cache (off: agents sample anew)."""
    transport: Transport = "auto"
    """How a model at an ``api_base`` is reached (``--transport``): ``auto`` (direct for
    ``openai/`` and ``hosted_vllm/`` models, litellm for the rest), ``direct`` or ``litellm``,
    as ``coordqa eval`` reaches them; the manifest's ``runtime["transports"]`` says which ran
    for each model."""

    @property
    def timeout_asked(self) -> bool:
        """Whether a call timeout other than the default was asked for (``timeout_s``).

        By value, not by the fields set: a grid written back whole (``model_dump``, a stored
        manifest's settings) names every field, the default timeout included, without asking
        for one.
        """
        return self.timeout_s != type(self).model_fields["timeout_s"].default

    def policy(self) -> CallPolicy:
        """The call policy of every model of the run."""
        return CallPolicy(
            concurrency=self.concurrency,
            requests_per_minute=self.requests_per_minute,
            tokens_per_minute=self.tokens_per_minute,
            timeout_s=self.timeout_s,
            max_attempts=self.max_attempts,
            max_connection_failures=self.max_connection_failures,
        )
