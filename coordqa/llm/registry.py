"""Which provider serves a model name: registered models by name, litellm for the rest.

The built-in offline models (``random``, ``scripted``) are lazy entries of :data:`PROVIDERS`, and
so is the family of local GGUF files run in this process (``llamacpp/<path>``: an entry whose
name ends in ``/`` serves every model name that starts with it; one ending in ``?`` serves the
model's name with arguments, ``bot?noise=0.1``, and its factory reads them from the name);
other packages add theirs with a ``coordqa.models`` entry point naming a
:data:`~coordqa.llm.providers.ProviderFactory` (coordqa's agentic track adds ``bot`` so). Any
other name of the form ``<provider>/<model>`` is reached over HTTP: directly
(:mod:`coordqa.llm.direct_provider`) when it is an OpenAI-compatible prefix with an ``api_base``,
through litellm otherwise, whose own provider list is checked by ``Model.check()``; ``transport``
forces one of the two. One registry, one source of truth.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import AfterValidator

from coordqa.errors import ConfigError, ModelError, SettingError, UnknownModelError
from coordqa.llm.addresses import active_guard
from coordqa.llm.endpoints import shown_endpoint
from coordqa.llm.providers import Provider, ProviderFactory
from coordqa.llm.types import TRANSPORTS, CallPolicy, Transport
from coordqa.registry import Registry, not_one_of, offer, spelled_as, suggest

__all__ = [
    "PROVIDERS",
    "ModelName",
    "cached_reply_words",
    "create_provider",
    "member_transport",
    "member_timeout",
    "question_models",
    "refuse_a_policy_timeout",
    "refuse_a_question_model",
    "refuse_a_timeout",
    "refuse_a_transport",
    "refuse_an_endpoint",
    "refuse_unread_model_args",
    "runs_in_process",
    "spelled_model",
]

PROVIDERS: Registry[ProviderFactory] = Registry("model", "coordqa.models")
"""Registered models by name. Names with a ``/`` that are not here go to litellm."""
PROVIDERS.add_lazy("random", "coordqa.llm.offline:random_provider")
PROVIDERS.add_lazy("scripted", "coordqa.llm.offline:scripted_provider")
PROVIDERS.add_lazy("llamacpp/", "coordqa.llm.llamacpp_provider:llamacpp_provider")

_FAMILY = re.compile(r"^[^/?]+[/?]")
"""The family part of a model name: up to its first ``/`` (``llamacpp/``) or ``?`` (``bot?``)."""


def create_provider(
    name: str, api_base: str | None, api_key: str | None, transport: Transport = "auto"
) -> Provider:
    """The provider for model ``name``: a registered one (or family), or one reached over HTTP.

    ``transport`` chooses how a model behind an endpoint is reached (:data:`Transport`); models
    run in this process take none and ignore it. Under the board's address guard
    (:func:`coordqa.llm.addresses.guarded_endpoints`) a model with an ``api_base`` is reached
    directly, or not at all.

    Raises:
        UnknownModelError: a name that is neither registered (nor in a registered family) nor
            of the form ``prefix/model`` (a ConfigError and a ModelError).
        ModelError: ``transport="direct"`` for a model it does not serve.
    """
    if transport not in TRANSPORTS:
        raise ModelError(not_one_of("--transport", transport, TRANSPORTS))
    registered = _registered(name)
    if registered:
        refuse_an_endpoint(name, api_base, key_given=api_key is not None)
        return PROVIDERS.get(registered)(spelled_model(name), api_base, api_key)
    if _over_http_name(name):
        return _over_http(name, api_base, api_key, transport)
    raise _unknown_model(name, PROVIDERS.names())


def _over_http_name(name: str) -> bool:
    """Whether ``name`` (no registered entry's) has the ``prefix/model`` form of a served model."""
    return "/" in name and not name.startswith("/")


def _unknown_model(name: str, built_in: list[str], named: str | None = None) -> UnknownModelError:
    """The refusal of model ``name``, which no entry serves.

    It offers the close names of ``built_in`` (the entries the command takes) or the litellm
    prefix ``name`` lacks, and says how to name any other model; ``named`` says where the
    caller's user named it (an eval-set spec's ``models[2]``). The endpoint is named as the
    caller's setting (``api_base``; a command's ``--api-base``: :class:`SettingError`).
    """
    from coordqa.llm.litellm_provider import provider_prefix_of  # litellm itself is not imported

    prefix = provider_prefix_of(name)
    hint = offer([f"{prefix}/{name}"] if prefix else suggest(name, built_in))
    shown = {"/": "PATH", "?": "KEY=VALUE"}
    listed = ", ".join(entry + shown.get(entry[-1], "") for entry in built_in)
    unknown = (
        f"unknown model {name}.{hint} Built in: {listed}. For any other model give its "
        "litellm provider prefix: openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
        "ollama/llama3, hosted_vllm/NAME (with {api_base})."
    )
    return UnknownModelError(
        "model", f"{named}: {unknown}" if named else unknown, also=("api_base",)
    )


def _registered(name: str) -> str:
    """The entry of :data:`PROVIDERS` that serves ``name`` (itself or its family), or ''."""
    return _entry_of(name)[0]


def _entry_of(name: str) -> tuple[str, str]:
    """The entry of :data:`PROVIDERS` serving ``name`` and the part of ``name`` naming it.

    In any case (``Random``: ``random``; ``Bot?noise=0.1``: ``bot?``), as games and agents are
    read; ``('', '')`` for a model no entry serves.
    """
    family = _FAMILY.match(name)
    for head in (name, family.group() if family is not None else ""):
        entry = spelled_as(head, PROVIDERS.names()) if head else ""
        if entry in PROVIDERS:
            return entry, head
    return "", ""


def spelled_model(name: str) -> str:
    """``name`` with a built-in model's name as registered: ``Random`` is ``random``.

    The one rule for the case of model names. The models coordqa serves itself (:data:`PROVIDERS`:
    ``random``, ``scripted``, ``bot``, the ``llamacpp/`` and ``bot?`` families' prefixes) are
    read in any case, as games and agents are, and every run, cache key and set is made under
    their registered name, so ``--model Random`` resumes ``random``'s run. Any other name is
    returned as given: it goes to a provider (``openai/gpt-4o``, a served model's id), whose
    names are case-sensitive; a family's path or arguments are kept as given too.
    """
    entry, head = _entry_of(name)
    return entry + name[len(head) :] if entry else name


ModelName = Annotated[str, AfterValidator(spelled_model)]
"""A model name in a spec or grid file: a built-in model's in any case (:func:`spelled_model`)."""


def runs_in_process(name: str) -> bool:
    """Whether model ``name`` runs inside coordqa (``random``, ``llamacpp/PATH``).

    Such a model is behind no server, so it takes no endpoint or key (:func:`refuse_an_endpoint`).
    """
    return _provider_says(name, "runs_in_process")


def answers_at_once(name: str) -> bool:
    """Whether model ``name`` replies at once from coordqa's code (``random``, ``bot``).

    Such a model cannot outlast a timeout (:func:`refuse_a_timeout`); ``llamacpp/PATH`` runs in
    process too but generates for as long as it takes.
    """
    return _provider_says(name, "answers_at_once")


def cached_reply_words(name: str) -> str:
    """What model ``name``'s replies from the reply cache were asked of, and when they are stale.

    :attr:`~coordqa.llm.providers.Provider.cached_as` of its provider; a model no entry serves
    is behind a server.
    """
    registered = _registered(name)
    if not registered:
        return Provider.cached_as
    return PROVIDERS.get(registered)(name, None, None).cached_as


def _provider_says(name: str, fact: str) -> bool:
    """Whether the registered provider of ``name`` has ``fact`` (a :class:`Provider` flag).

    False for a model no entry serves: it is reached over HTTP, behind a server.
    """
    registered = _registered(name)
    return bool(registered) and bool(getattr(PROVIDERS.get(registered)(name, None, None), fact))


def refuse_unread_model_args(
    name: str,
    model_args: Mapping[str, object],
    named: str = "--model-arg",
    instead: str | None = None,
    *,
    setting: str | None = None,
) -> None:
    """Refuse model arguments for a model run in this process that reads none.

    They would be ignored without a word (``--model-arg`` for ``random`` ran, changed nothing).

    The sibling of the endpoint rule (:func:`refuse_an_endpoint`): a model behind a server is
    sent every argument, and an in-process model says whether it reads them
    (:attr:`~coordqa.llm.providers.Provider.reads_model_args`). ``named`` is how the caller's
    user wrote them (``--model-arg``, or a spec's ``models[0].model_args``); only the names
    are said, never a value (an argument may carry a header or a key). ``instead`` replaces
    the advice to leave them out, for a caller where they also reach other models
    (``eval-set``'s ``--model-arg`` is every ``--model`` model's). ``setting``: a library
    parameter instead of ``named`` (``model_args``), refused as a :class:`SettingError` a
    command shows with its own option.

    Raises:
        ConfigError: ``model_args`` is not empty and ``name``'s model reads none.
    """
    registered = _registered(name)
    if not model_args or not registered:
        return
    if PROVIDERS.get(registered)(name, None, None).reads_model_args:
        return
    text = f"model {name!r} runs inside coordqa and reads no model argument: " + (
        instead
        or f"leave {named if setting is None else '{setting}'} {', '.join(model_args)} out "
        "(model arguments are for a model behind a server, prefix/NAME, and for llamacpp/PATH)"
    )
    raise ConfigError(text) if setting is None else SettingError(setting, text)


def refuse_a_question_model(name: str, named: str | None = None) -> None:
    """Refuse a model that cannot answer a CoordinationQA question on its own (``bot``).

    The one rule ``coordqa eval`` and ``coordqa eval-set`` both apply before anything runs, in
    the model's own words (:attr:`~coordqa.llm.providers.Provider.question_refusal`). A name
    no entry serves is refused here too, offering the built-in models that answer questions
    (:func:`question_models`): the full list offered ``bot``, which is then refused (walkthrough
    16, R9). ``named`` says where the caller's user named it (an eval-set spec's
    ``models[2]``); None when the name itself says it (``--model bot``).

    Raises:
        ConfigError: ``name``'s model answers no question on its own.
        UnknownModelError: no entry serves ``name`` and it is no ``prefix/model`` name.
    """
    registered = _registered(name)
    if not registered and not _over_http_name(name):
        raise _unknown_model(name, question_models(), named)
    refusal = PROVIDERS.get(registered)(name, None, None).question_refusal if registered else None
    if refusal is not None:
        raise ConfigError(f"{named}: {refusal}" if named else refusal)


def question_models() -> list[str]:
    """The registered entries whose models answer a CoordinationQA question, sorted."""
    return [entry for entry in PROVIDERS.names() if _answers_questions(entry)]


def _answers_questions(entry: str) -> bool:
    """Whether ``entry``'s models answer questions, asked of the entry's own name.

    A family whose bare prefix names no model (``llamacpp/`` needs its file) raises for it:
    its members are judged when one is named (:func:`refuse_a_question_model`), so it is
    offered.
    """
    try:
        provider = PROVIDERS.get(entry)(entry, None, None)
    except (ConfigError, ModelError):  # a family's prefix alone, such as llamacpp/
        return True
    return provider.question_refusal is None


def refuse_an_endpoint(
    name: str,
    api_base: str | None,
    *,
    key_given: bool,
    instead: str | None = None,
    settings: tuple[str, str] | None = None,
) -> None:
    """Refuse an endpoint or key given for a model that runs inside coordqa: it would be ignored.

    ``instead`` replaces the advice to leave them out, for a caller where they also reach
    other models (``eval-set``'s ``--api-base`` is every ``--model`` model's, so leaving it
    out would break the model behind a server). Never shows a key. ``settings``: the library
    parameters of the endpoint and of the key (``api_base``, ``api_key_env``) instead of the
    options; the first one given is refused as a :class:`SettingError` naming it, which a
    command shows with its own option (walkthrough 17, R4: ``EvalConfig(api_base=...)`` was
    told to leave ``--api-base`` out).

    Raises:
        ConfigError: ``api_base`` is given or ``key_given``, and ``name`` runs in process.
    """
    if not runs_in_process(name):
        return
    endpoint, key = ("--api-base", "--api-key-env") if settings is None else ("{setting}",) * 2
    given = ([f"{endpoint} {shown_endpoint(api_base)}"] if api_base is not None else []) + (
        [f"the API key ({key})"] if key_given else []
    )
    if not given:
        return
    if settings is not None:  # one setting per error: the endpoint's, else the key's
        given = given[:1]
    served_as = "with its --api-base" if settings is None else "at its own endpoint"
    text = f"model {name!r} runs inside coordqa and calls no server: " + (
        instead
        or f"leave {' and '.join(given)} out (a model behind a server is named "
        f"prefix/NAME, e.g. openai/NAME {served_as})"
    )
    if settings is None:
        raise ConfigError(text)
    raise SettingError(settings[0] if api_base is not None else settings[1], text)


def refuse_a_transport(
    names: Sequence[str], transport: str, named: str = "--transport", *, setting: str | None = None
) -> None:
    """Refuse a transport chosen for a command whose models all run inside coordqa.

    It would be ignored: ``--model random --transport direct`` ran in process and its manifest
    said so, without a word. A transport is how a model behind a server is reached, so where one
    of the command's models calls a server (an eval-set or grid of several) it is that one's.
    ``named`` is how the caller's user wrote it (``--transport``, or a file's key); ``setting``:
    a library parameter instead (``transport``), as :func:`refuse_a_timeout` names one.

    Raises:
        ConfigError: ``transport`` is not ``auto`` and no model of ``names`` calls a server.
    """
    if transport != "auto":
        option = "--transport" if setting is None else "{setting}"
        _refuse_for_all(
            names,
            "runs_in_process",
            f"{option} {transport} reaches a model behind a server",
            "run inside coordqa and call none",
            f"leave {named if setting is None else option} out (a model behind a server is "
            "named prefix/NAME, e.g. openai/NAME with its --api-base)",
            setting,
        )


def refuse_a_timeout(
    names: Sequence[str], given: bool, named: str = "--timeout", *, setting: str | None = None
) -> None:
    """Refuse a timeout given for a command whose models all answer at once.

    It would be ignored: ``--model random --timeout 5`` ran as without it. A timeout bounds a
    call to a model behind a server or a ``llamacpp/`` generation, so where one of the command's
    models is such (an eval-set or grid of several) it is that one's. ``named`` is how the
    caller's user wrote it (``--timeout``, or a file's key). ``setting``: a library parameter
    instead (``policy.timeout_s``), named alone, in a :class:`SettingError` a command shows
    with its own option.

    Raises:
        ConfigError: ``given`` and every model of ``names`` answers at once.
    """
    if given:
        option = "--timeout" if setting is None else "{setting}"
        _refuse_for_all(
            names,
            "answers_at_once",
            f"{option} bounds how long a model takes to answer",
            "answer at once inside coordqa",
            f"leave {named if setting is None else option} out (it is for a model behind a "
            "server, prefix/NAME, and for llamacpp/PATH)",
            setting,
        )


def refuse_a_policy_timeout(name: str, policy: CallPolicy) -> None:
    """Refuse a call policy's own timeout for model ``name`` when it answers at once.

    The rule of one run (``coordqa.evaluate``, so ``coordqa eval`` and the library alike): a
    policy whose ``timeout_s`` is not :class:`CallPolicy`'s default was given one, and for
    ``random`` it would be ignored (:func:`refuse_a_timeout`). A set of several models gives
    each member its own (:func:`member_timeout`).

    Raises:
        ConfigError: ``policy`` sets a timeout and ``name`` answers at once.
    """
    given = policy.timeout_s != CallPolicy.timeout_s
    refuse_a_timeout([name], given, setting="policy.timeout_s")


def member_timeout(name: str, timeout_s: float) -> float:
    """The timeout model ``name`` of a set takes of the set's ``timeout_s``.

    :class:`CallPolicy`'s default for a model that answers at once: the set's timeout is that
    of its other models (:func:`refuse_a_timeout`), and each member is then held to the rule on
    its own (:func:`refuse_a_policy_timeout`), as ``coordqa.evaluate`` holds every run.
    """
    return CallPolicy.timeout_s if answers_at_once(name) else timeout_s


def _refuse_for_all(
    names: Sequence[str],
    fact: str,
    option: str,
    they: str,
    fix: str,
    setting: str | None = None,
) -> None:
    """Refuse an option that no model of ``names`` uses, as each has provider ``fact``.

    The one wording: ``OPTION, and this run's models (NAMES) THEY: FIX``; a library
    ``setting`` is refused as a :class:`SettingError` whose text says ``{setting}`` for it.

    Raises:
        ConfigError: every model of ``names`` has ``fact`` (:func:`_provider_says`).
    """
    if all(_provider_says(name, fact) for name in names):
        models = ", ".join(repr(name) for name in names) or "none"
        text = f"{option}, and this run's models ({models}) {they}: {fix}"
        raise ConfigError(text) if setting is None else SettingError(setting, text)


def member_transport(name: str, transport: Transport) -> Transport:
    """The transport model ``name`` of a set takes of the set's ``transport``.

    ``auto`` for a model that runs inside coordqa: the set's transport is that of its models
    behind a server (:func:`refuse_a_transport`), and each member is then held to the rule on
    its own, as ``coordqa.evaluate`` holds every run.
    """
    return "auto" if runs_in_process(name) else transport


def _over_http(
    name: str, api_base: str | None, api_key: str | None, transport: Transport
) -> Provider:
    """The direct or the litellm provider of a model at an endpoint (:func:`create_provider`)."""
    from coordqa.llm.direct_provider import (
        DIRECT_PREFIXES,
        DirectProvider,
        direct_applies,
        direct_serves,
    )

    guard = active_guard()
    serves = direct_serves(name, api_base)
    if guard is not None and api_base and (transport == "litellm" or not serves):
        raise ModelError(
            f"this board calls a registered endpoint only as an OpenAI-compatible server: "
            f"register the model as {' or '.join(p + '/NAME' for p in DIRECT_PREFIXES)}"
        )
    if transport == "direct" and not serves:
        raise ModelError(
            f"--transport direct serves {', '.join(p + '/NAME' for p in DIRECT_PREFIXES)} "
            f"with an --api-base; {name}"
            + (" has no --api-base" if not api_base else " goes through litellm")
            + ": leave --transport out, or give --transport litellm"
        )
    if serves and api_base is not None and transport != "litellm":
        if transport == "direct" or guard is not None or direct_applies(name, api_base):
            return DirectProvider(name, api_base, api_key, guard)
    from coordqa.llm.litellm_provider import LiteLLMProvider

    return LiteLLMProvider(name, api_base, api_key)
