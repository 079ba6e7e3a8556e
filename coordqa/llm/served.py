"""What an OpenAI-compatible server says it serves: ``GET {api_base}/models``.

vLLM, llama.cpp, Ollama, LM Studio and OpenAI itself answer it with ``{"data": [{"id": ...}]}``.
A model name the server refuses (404) is then reported with the names it does serve, so the fix
is in the message.
"""

from __future__ import annotations

__all__ = ["served_models"]

LIST_TIMEOUT_S = 5.0
"""How long the listing may take; it is asked once, after a refusal, so it never slows a run."""


def served_models(
    api_base: str, api_key: str | None = None, timeout_s: float = LIST_TIMEOUT_S
) -> list[str] | None:
    """The model ids the server at ``api_base`` lists, or None when it gives no such list."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(f"{api_base.rstrip('/')}/models", headers=headers, timeout=timeout_s)
        listed = response.json().get("data") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    if not isinstance(listed, list):
        return None
    return [str(entry["id"]) for entry in listed if isinstance(entry, dict) and "id" in entry]
