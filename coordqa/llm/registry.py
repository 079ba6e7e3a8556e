"""Which provider serves a model name: registered models by name, litellm for the rest.

The built-in offline models (``random``, ``scripted``) are lazy entries of :data:`PROVIDERS`, and
so is the family of local GGUF files run in this process (``llamacpp/<path>``: an entry whose
name ends in ``/`` serves every model name that starts with it; one ending in ``?`` serves the
model's name with arguments, ``bot?noise=0.1``, and its factory reads them from the name);
other packages add theirs with a ``coordqa.models`` entry point naming a
:data:`~coordqa.llm.providers.ProviderFactory` (coordqa's agentic track adds ``bot`` so). Any
other name of the form ``<litellm provider>/<model>`` goes to litellm, whose own provider list
is checked by ``Model.check()``. One registry, one source of truth.
"""

from __future__ import annotations

import re

from coordqa.errors import ModelError
from coordqa.llm.providers import Provider, ProviderFactory
from coordqa.registry import Registry, suggest

__all__ = ["PROVIDERS", "create_provider"]

PROVIDERS: Registry[ProviderFactory] = Registry("model", "coordqa.models")
"""Registered models by name. Names with a ``/`` that are not here go to litellm."""
PROVIDERS.add_lazy("random", "coordqa.llm.offline:random_provider")
PROVIDERS.add_lazy("scripted", "coordqa.llm.offline:scripted_provider")
PROVIDERS.add_lazy("llamacpp/", "coordqa.llm.llamacpp_provider:llamacpp_provider")

_FAMILY = re.compile(r"^[^/?]+[/?]")
"""The family part of a model name: up to its first ``/`` (``llamacpp/``) or ``?`` (``bot?``)."""


def create_provider(name: str, api_base: str | None, api_key: str | None) -> Provider:
    """The provider for model ``name``: a registered one (or family), or litellm for the rest.

    Raises:
        ModelError: a name that is neither registered (nor in a registered family) nor of the
            form ``prefix/model``.
    """
    if name in PROVIDERS:
        return PROVIDERS.get(name)(name, api_base, api_key)
    family = _FAMILY.match(name)
    if family is not None and family.group() in PROVIDERS:
        return PROVIDERS.get(family.group())(name, api_base, api_key)
    if "/" in name and not name.startswith("/"):
        from coordqa.llm.litellm_provider import LiteLLMProvider

        return LiteLLMProvider(name, api_base, api_key)
    close = suggest(name, PROVIDERS.names())
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    shown = {"/": "PATH", "?": "KEY=VALUE"}
    built_in = ", ".join(n + shown.get(n[-1], "") for n in PROVIDERS.names())
    raise ModelError(
        f"unknown model {name}.{hint} Built in: {built_in}. For any other model give its "
        "litellm provider prefix: openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
        "ollama/llama3, hosted_vllm/NAME (with --api-base)."
    )
