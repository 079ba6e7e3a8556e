"""The options of every command that calls models, declared once.

``coordqa eval``, ``eval-set``, ``agentic run`` and ``agentic grid`` all take the endpoint
(``--api-base``, ``--api-key-env``), the call policy (``--concurrency``, ``--rpm``, ``--tpm``,
``--timeout``, ``--max-attempts``, ``--max-connection-failures``) and provider settings
(``--model-arg``). Each is declared here alone, with its one help text, and parsed and checked
by the library's one rule: :class:`~coordqa.llm.CallPolicy` for the policy,
:class:`~coordqa.llm.GenerateConfig` for ``--model-arg``; their errors name the parameter
(``timeout_s``), said here as its flag (:data:`POLICY_FLAGS`, :data:`MODEL_ARG_FLAGS`). So
``--timeout 5`` means the same thing, and is refused for the same reason, wherever it is typed.

Every option defaults to None, "not given": a command keeps what its file says (a grid's
``runtime``, an eval-set spec) and falls back to :class:`CallPolicy`'s defaults, which the help
states.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Annotated, Any

import typer

from coordqa.cli._errors import settings_as_options
from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject
from coordqa.llm.types import CallPolicy, GenerateConfig

__all__ = [
    "ApiBase",
    "ApiKeyEnv",
    "CallOptions",
    "Concurrency",
    "EndpointOptions",
    "MaxAttempts",
    "MaxConnectionFailures",
    "ModelArg",
    "Rpm",
    "Timeout",
    "Tpm",
    "Transport",
    "parse_model_args",
]

SAMPLING_FLAGS = {
    "temperature": "--temperature",
    "top_p": "--top-p",
    "max_tokens": "--max-tokens",
    "seed": "--seed",
}
"""The flag of each sampling parameter of :class:`GenerateConfig`, for its refusals
(:class:`~coordqa.errors.SettingError`) to name the option the user typed."""

MODEL_ARG_FLAGS = {"model_args": "--model-arg", **SAMPLING_FLAGS}
"""How ``--model-arg``'s refusals name the settings: a sampling parameter given as a model
argument is pointed to its own flag."""

_POLICY = CallPolicy()
"""Where the help's defaults come from (the library's, not typed again here)."""

ApiBase = Annotated[
    str | None,
    typer.Option(
        "--api-base",
        metavar="URL",
        help="Base URL of the model server, e.g. http://127.0.0.1:8000/v1 "
        "(default: the provider's).",
    ),
]
ApiKeyEnv = Annotated[
    str | None,
    typer.Option(
        "--api-key-env",
        metavar="NAME",
        help="Environment variable holding the API key (default: the provider's usual); "
        "only the name is recorded.",
    ),
]
Concurrency = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        help=f"Model calls in flight at once per endpoint (default {_POLICY.concurrency}).",
    ),
]
Rpm = Annotated[
    float | None,
    typer.Option("--rpm", help="Requests per minute to the endpoint, at most (default: no cap)."),
]
Tpm = Annotated[
    float | None,
    typer.Option("--tpm", help="Tokens per minute to the endpoint, at most (default: no cap)."),
]
Timeout = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help=f"Seconds one attempt of a call may take (default {_POLICY.timeout_s:g}).",
    ),
]
MaxAttempts = Annotated[
    int | None,
    typer.Option(
        "--max-attempts",
        help=f"Attempts per call, retries included (default {_POLICY.max_attempts}).",
    ),
]
MaxConnectionFailures = Annotated[
    int | None,
    typer.Option(
        "--max-connection-failures",
        help="Stop when this many attempts in a row get no answer from the server "
        f"(default {_POLICY.max_connection_failures}).",
    ),
]
Transport = Annotated[
    str | None,
    typer.Option(
        "--transport",
        metavar="auto|direct|litellm",
        help="How a model at --api-base is reached: auto (direct for openai/ and hosted_vllm/ "
        "models, litellm for the rest), direct or litellm (default auto).",
    ),
]
ModelArg = Annotated[
    list[str] | None,
    typer.Option(
        "--model-arg",
        metavar="KEY=VALUE",
        help="Provider setting passed to every call (repeatable; VALUE may be JSON), e.g. "
        "reasoning_effort=high, or chat_format=gemma for a llamacpp/ model. Recorded in the "
        "run.",
    ),
]


@dataclass(frozen=True)
class EndpointOptions:
    """Where the models a command line names are reached (None: not given).

    ``--api-base``, ``--api-key-env`` and ``--model-arg``, taken by a command as one parameter
    (:mod:`coordqa.cli._option_groups`).
    """

    api_base: ApiBase = None
    """``--api-base``."""
    api_key_env: ApiKeyEnv = None
    """``--api-key-env``."""
    model_arg: ModelArg = None
    """``--model-arg``, as typed: :meth:`model_args` parses it."""

    def model_args(self) -> JSONObject:
        """``--model-arg`` parsed by :func:`parse_model_args` (its errors, named)."""
        return parse_model_args(self.model_arg)


@dataclass(frozen=True)
class CallOptions:
    """The call-policy options one command line gave (None: not given).

    One parameter of a command (:mod:`coordqa.cli._option_groups`), its fields the flags in the
    order commands show them; ``coordqa eval``, whose flags stand in another order, builds it
    from its own parameters. :meth:`given` names them as :class:`CallPolicy` does, so what was
    given overrides a policy, a grid's ``runtime`` or an eval-set spec key for key.
    """

    concurrency: Concurrency = None
    """``--concurrency``."""
    rpm: Rpm = None
    """``--rpm``."""
    tpm: Tpm = None
    """``--tpm``."""
    timeout: Timeout = None
    """``--timeout``."""
    max_attempts: MaxAttempts = None
    """``--max-attempts``."""
    max_connection_failures: MaxConnectionFailures = None
    """``--max-connection-failures``."""

    def __post_init__(self) -> None:
        with settings_as_options(POLICY_FLAGS):
            self.policy()  # checked now, by CallPolicy's rules (said with the flags)

    def given(self) -> dict[str, Any]:
        """The options that were given, by :class:`CallPolicy` field name."""
        values = ((f.name, getattr(self, f.name)) for f in fields(self))
        return {POLICY_FIELDS.get(name, name): value for name, value in values if value is not None}

    def policy(self) -> CallPolicy:
        """The call policy: the given options over :class:`CallPolicy`'s defaults.

        Raises:
            ConfigError: an option out of range (``--timeout 0``), naming its flag.
        """
        return CallPolicy(**self.given())


POLICY_FIELDS = {"rpm": "requests_per_minute", "tpm": "tokens_per_minute", "timeout": "timeout_s"}
""":class:`CallPolicy`'s names of the options it names otherwise than their flags."""

POLICY_FLAGS = {
    POLICY_FIELDS.get(field.name, field.name): f"--{field.name.replace('_', '-')}"
    for field in fields(CallOptions)
}
"""The flag of each :class:`CallPolicy` parameter a command takes (``timeout_s``:
``--timeout``), for its refusals to name the option the user typed."""


def parse_model_args(items: list[str] | None) -> JSONObject:
    """Parse ``--model-arg KEY=VALUE`` options; a VALUE that is JSON is decoded, else a string.

    Checked as every call's settings are (:class:`GenerateConfig`): a sampling parameter that
    has a flag of its own is refused, naming the flag.

    >>> parse_model_args(["reasoning_effort=high", 'extra_body={"top_k": 20}', "n_probs=3"])
    {'reasoning_effort': 'high', 'extra_body': {'top_k': 20}, 'n_probs': 3}

    Raises:
        ConfigError: an item is not KEY=VALUE, a VALUE that opens as JSON (``{``, ``[``) is
            not valid JSON, or an item names a setting coordqa sets itself.
    """
    args: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--model-arg {item!r} is not KEY=VALUE; write e.g. --model-arg "
                """reasoning_effort=high or --model-arg 'extra_body={"top_k": 20}'"""
            )
        try:
            args[key.strip()] = json.loads(value)
        except ValueError as exc:
            if value.lstrip()[:1] in ("{", "["):  # meant as JSON: never sent as a string
                raise ConfigError(
                    f"--model-arg {key.strip()}: {value!r} is not valid JSON ({exc}); quote "
                    """it for the shell, e.g. --model-arg 'extra_body={"top_k": 20}'"""
                ) from exc
            args[key.strip()] = value
    with settings_as_options(MODEL_ARG_FLAGS):
        GenerateConfig(extra=args)
    return args
