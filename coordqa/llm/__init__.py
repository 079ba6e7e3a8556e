"""The gateway to language models: every model call in coordqa goes through here.

``get_model(name)`` returns a :class:`Model` for a built-in offline model (``random``,
``scripted``) or any litellm model string (``openai/...``, ``anthropic/...``, ``gemini/...``,
``ollama/...``, ``hosted_vllm/...``). ``await model.generate(messages, config, trial=, role=)``
returns a :class:`Reply`: cached, rate- and concurrency-limited, retried within bounds, held to
the bounds of :mod:`coordqa.llm.bounds`, and accounted per role in ``model.usage``. A model at an
OpenAI-compatible ``api_base`` is asked directly (:mod:`coordqa.llm.direct_provider`), any other
through litellm (``transport=`` forces one). Importing this package does not import litellm.
"""

from coordqa.llm.cache import ResponseCache, cache_key, default_cache_dir
from coordqa.llm.gateway import (
    DEFAULT_CONFIG,
    DEFAULT_POLICY,
    CacheOption,
    Model,
    ScriptedModel,
    get_model,
)
from coordqa.llm.ledger import UsageLedger, UsageTotals
from coordqa.llm.limits import Limiter, LimiterRegistry, Limits, LocalLimiter, limit, limiters
from coordqa.llm.offline import NO_OPTIONS_REPLY, default_policy, option_letters
from coordqa.llm.providers import BrokenReply, Completion, Provider, ProviderFactory
from coordqa.llm.registry import PROVIDERS, create_provider
from coordqa.llm.types import (
    PAPER_SAMPLING,
    CallPolicy,
    GenerateConfig,
    Message,
    Reply,
    RetryDecision,
    Role,
    Usage,
)
from coordqa.paths import CACHE_DIR_ENV

__all__ = [
    "CACHE_DIR_ENV",
    "DEFAULT_CONFIG",
    "DEFAULT_POLICY",
    "NO_OPTIONS_REPLY",
    "PROVIDERS",
    "BrokenReply",
    "CacheOption",
    "CallPolicy",
    "PAPER_SAMPLING",
    "Completion",
    "GenerateConfig",
    "Limiter",
    "LimiterRegistry",
    "Limits",
    "LocalLimiter",
    "Message",
    "Model",
    "Provider",
    "ProviderFactory",
    "Reply",
    "ResponseCache",
    "RetryDecision",
    "Role",
    "ScriptedModel",
    "Usage",
    "UsageLedger",
    "UsageTotals",
    "cache_key",
    "create_provider",
    "default_cache_dir",
    "default_policy",
    "get_model",
    "limit",
    "limiters",
    "option_letters",
]
