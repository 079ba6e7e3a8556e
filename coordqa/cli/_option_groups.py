"""Options that several commands share, taken as one dataclass parameter.

Typer reads a command's options from its signature, one parameter each, so ``coordqa eval-set``,
``agentic run`` and ``agentic grid`` would each list the same call, endpoint, sampling and
execution options, and each hand them on one by one. :func:`option_groups` lets a command take
such a group as one parameter annotated with a frozen dataclass whose fields are Typer-annotated
options (:class:`~coordqa.cli._call_options.CallOptions`): Typer is shown the fields in that
parameter's place, in field order, under their own names (so the flags and their help are the
same as when they were written out), and the command receives the dataclass built from them.
Annotations are resolved in the command's module, as Typer resolves them: a group class is
imported at the top of it.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

__all__ = ["option_groups"]

R = TypeVar("R")


def _fields_as_parameters(group: type) -> list[inspect.Parameter]:
    """The group's fields as keyword parameters, with their Typer annotations and defaults."""
    hints = typing.get_type_hints(group, include_extras=True)
    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return [
        inspect.Parameter(field.name, keyword, default=field.default, annotation=hints[field.name])
        for field in fields(group)
    ]


def option_groups(command: Callable[..., R]) -> Callable[..., R]:
    """``command`` with each dataclass-annotated parameter spread into its fields for Typer.

    Raises:
        TypeError: a field's name is taken by another parameter (the flag would be ambiguous),
            or ``command`` takes no group (the decorator is on the wrong function: a group
            parameter of an undecorated command becomes one option Typer cannot parse).
    """
    signature = inspect.signature(command, eval_str=True)
    groups: dict[str, type] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        group = parameter.annotation
        if isinstance(group, type) and is_dataclass(group):
            groups[parameter.name] = group
            parameters += _fields_as_parameters(group)
        else:
            parameters.append(parameter)
    if not groups:
        raise TypeError(f"{command.__name__}: takes no option group (a dataclass parameter)")
    names = [parameter.name for parameter in parameters]
    if len(set(names)) != len(names):
        clash = sorted({name for name in names if names.count(name) > 1})
        raise TypeError(f"{command.__name__}: option groups repeat the parameters {clash}")

    @functools.wraps(command)
    def spread(*args: Any, **values: Any) -> R:
        for name, group in groups.items():
            values[name] = group(**{field.name: values.pop(field.name) for field in fields(group)})
        return command(*args, **values)

    spread.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return spread
