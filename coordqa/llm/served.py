"""What an OpenAI-compatible server says it serves: ``GET {api_base}/models``.

vLLM, llama.cpp, Ollama, LM Studio and OpenAI itself answer it with ``{"data": [{"id": ...}]}``.
A model name the server refuses (404) is then reported with the names it does serve, so the fix
is in the message. Asked with the client of :mod:`coordqa.llm.http` (no redirect, a bounded
body, the board's address guard).
"""

from __future__ import annotations

import json

__all__ = ["served_hint", "served_models"]

LIST_TIMEOUT_S = 5.0
"""How long the listing may take; it is asked once, after a refusal, so it never slows a run."""

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
            client.stream("GET", f"{api_base.rstrip('/')}/models", headers=headers) as response,
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
    shown = ", ".join(served[:SHOWN_MODELS]) + (", ..." if len(served) > SHOWN_MODELS else "")
    return f"; the server at {api_base} serves {shown}: use --model {prefix}/{served[0]}"
