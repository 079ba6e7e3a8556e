"""What an OpenAI-compatible server says it serves: ``GET {api_base}/models``.

vLLM, llama.cpp, Ollama, LM Studio and OpenAI itself answer it with ``{"data": [{"id": ...}]}``.
A model name the server refuses (404) is then reported with the names it does serve, so the fix
is in the message. Asked with the client of :mod:`coordqa.llm.http` (no redirect, a bounded
body, the board's address guard).
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase

from coordqa.errors import ModelNotServed
from coordqa.llm.endpoints import endpoint_route, shown_endpoint
from coordqa.registry import suggest

__all__ = ["LISTING_PREFIXES", "not_served", "served_hint", "served_models"]

LIST_TIMEOUT_S = 5.0
"""How long the listing may take; it is asked once before a run and after a refusal."""

LISTING_PREFIXES = frozenset(
    {"openai", "hosted_vllm", "openai_like", "custom_openai", "lm_studio", "llamafile"}
)
"""Model prefixes whose ``api_base`` is an OpenAI-compatible server, which lists at ``/models``
the ids it is sent (``openai/NAME`` is sent as ``NAME``)."""

SHOWN_MODELS = 20
"""At most this many served names are repeated in a message (each at most 200 characters)."""


def served_models(
    api_base: str, api_key: str | None = None, timeout_s: float = LIST_TIMEOUT_S
) -> list[str] | None:
    """The model ids the server at ``api_base`` lists, or None when it gives no such list."""
    import httpx

    from coordqa.llm.addresses import AddressRefused
    from coordqa.llm.http import BodyRefused, read_body_sync, sync_client

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with (
            sync_client(httpx.Timeout(timeout_s)) as client,
            client.stream("GET", endpoint_route(api_base, "models"), headers=headers) as response,
        ):
            if response.status_code != 200:
                return None
            listed = json.loads(read_body_sync(response, timeout_s)).get("data")
    except (httpx.HTTPError, ValueError, AttributeError, AddressRefused, BodyRefused):
        return None
    if not isinstance(listed, list):
        return None
    return [str(entry["id"])[:200] for entry in listed if isinstance(entry, dict) and "id" in entry]


def served_hint(api_base: str | None, prefix: str, api_key: str | None) -> str:
    """What the server at ``api_base`` serves instead, for a model it does not know ('' if unsaid).

    Worded to follow the refusal: ``; the server at URL serves a, b: use --model prefix/a``.
    """
    if not api_base:
        return ""
    served = served_models(api_base, api_key)
    if not served:
        return ""
    return (
        f"; the server at {shown_endpoint(api_base)} serves {_shown(served)}: "
        f"use --model {prefix}/{served[0]}"
    )


def _shown(served: list[str]) -> str:
    """The served names as a message repeats them: at most :data:`SHOWN_MODELS`."""
    return ", ".join(served[:SHOWN_MODELS]) + (", ..." if len(served) > SHOWN_MODELS else "")


def _routes(listed: str, model_id: str) -> bool:
    """Whether a server that lists ``listed`` answers ``model_id`` with that model.

    Besides the same id: Ollama lists ``llama3.1:latest`` and answers ``llama3.1``; OpenRouter
    lists ``x`` and routes ``x:nitro``; a LiteLLM proxy lists a wildcard route (``openai/*``).
    """
    if "*" in listed:
        return fnmatchcase(model_id, listed) or fnmatchcase(model_id, listed.split("/", 1)[-1])
    return listed in (model_id, model_id.split(":", 1)[0]) or listed == f"{model_id}:latest"


def not_served(
    api_base: str | None, model: str, api_key: str | None, fix: str = "use --model"
) -> ModelNotServed | None:
    """Why ``model`` is not the model the server at ``api_base`` serves (to raise), or None.

    llama.cpp's server (and coordqa's stand-in) answer whatever name they are sent with the one
    model they hold, so a mistyped name would run and be recorded under that name. A server
    that lists models and none of them is ``model`` (nor routes it) is therefore refused before
    the first call. A server that lists none, or cannot be asked, or a prefix whose endpoint is
    not OpenAI-compatible, is left to the calls (a server that knows names refuses a wrong one
    with a 404, said with :func:`served_hint`). The refusal suggests the listed name closest to
    ``model`` (a typo's fix), else the first, after ``fix`` (how the caller's command takes a
    model), and keeps the closest names for a caller that words it otherwise (a job error).
    """
    prefix, _, model_id = model.partition("/")
    if not api_base or prefix not in LISTING_PREFIXES or not model_id:
        return None
    served = served_models(api_base, api_key)
    if not served or any(_routes(listed, model_id) for listed in served):
        return None
    closest = suggest(model_id, served)
    return ModelNotServed(
        f"the server at {shown_endpoint(api_base)} serves {_shown(served)}, not {model_id}",
        closest,
        fix=fix,
        offered=[f"{prefix}/{name}" for name in dict.fromkeys([*closest, *served])],
    )
