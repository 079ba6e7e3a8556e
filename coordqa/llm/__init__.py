"""The gateway to language models (in progress): value types and the local test server."""

from coordqa.llm.types import CallPolicy, GenerateConfig, Message, Reply, Usage

__all__ = ["CallPolicy", "GenerateConfig", "Message", "Reply", "Usage"]
