"""Pydantic's errors of a file the user wrote (an eval-set spec, a grid), said in its words.

Pydantic names a place as ``games.0.seed`` and a typo as "Extra inputs are not permitted"; a
user wrote ``games:`` with a ``seed:`` under its first entry and wants to know what was meant.
:func:`spec_problems` is the one place such errors become messages: ``games[0]: unknown field
'seed'. Did you mean 'seeds'? fields: ...`` (with :func:`~coordqa.registry.unknown_name_message`,
the wording of every unknown name), ``backend 'dask' is not one of local, ray``
(:func:`~coordqa.registry.not_one_of`), ``models[1]: missing field 'model'``, ``ids: must be a
list, e.g. ids: [hanabi-27-EC, hanabi-27-ToM]`` (a field's ``examples``); any other error
keeps pydantic's reason at its place. :class:`ConfigModel` says them so for a model built in
Python (``GridConfig(...)``), as a :class:`~coordqa.errors.ConfigError`.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from coordqa.errors import ConfigError
from coordqa.registry import not_one_of, unknown_name_message

__all__ = ["ConfigModel", "spec_problems"]


class ConfigModel(BaseModel):
    """A model a user builds in Python: a bad field is a ``ConfigError`` in a spec's words.

    ``GridConfig(agents=["cacc"], ...)`` raised pydantic's ``ValidationError`` with a pydantic
    URL, while ``except ConfigError`` is what the Python API promises for a bad setting
    (walkthrough 20, R3). Only the constructor is worded so, named by the class
    (``GridConfig: games[0].seeds: seed 0 is given twice``): ``model_validate``, pydantic's own
    (a stored record's reader, a file's parser that names the file), keeps ``ValidationError``,
    which is why pydantic is told this ``__init__`` is its own base one (it would otherwise call
    it inside every validation and wrap its error in another ``ValidationError``).
    """

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(spec_problems(exc, type(self), where=type(self).__name__)) from None

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]


def spec_problems(
    exc: ValidationError,
    model: type[BaseModel],
    options: Mapping[str, str] | None = None,
    where: str = "",
) -> str:
    """Every error of ``exc`` (raised validating ``model``) in the file's words, ``; ``-joined.

    ``options`` names a place by the command-line option that filled it (``games[0].seeds``:
    ``--seeds``, ``runtime.backend``: ``--backend``), as every refused choice names its flag;
    any other problem is ``where``'s (``grid.yaml: runtime.backend 'rey' ...``), since a file
    with options over it holds both kinds (walkthrough 17, R6).
    """
    problems = (_problem(error, model) for error in exc.errors())
    return "; ".join(
        dict.fromkeys(_in_words(problem, options or {}, where) for problem in problems)
    )


def _in_words(problem: str, options: Mapping[str, str], where: str) -> str:
    """``games[0].seeds: ...`` as ``--seeds: ...`` where ``options`` names that place.

    Any other is ``where``'s (``g.yaml: games[0].seeds: ...``; "": said as it is).
    """
    for place, option in options.items():
        if problem.startswith(f"{place}: ") or problem.startswith(f"{place} "):
            return option + problem.removeprefix(place)
    return f"{where}: {problem}" if where else problem


def _problem(error: ErrorDetails, model: type[BaseModel]) -> str:
    location = tuple(error["loc"])
    parent, name = location[:-1], location[-1] if location else ""
    at = f"{_place(parent)}: " if parent else ""
    if error["type"] == "extra_forbidden":
        owner = _model_at(model, parent)
        if owner is None:
            return f"{at}unknown field {name!r}"
        fields = [("fields", list(owner.model_fields))]
        return at + unknown_name_message("field", str(name), fields)
    if error["type"] == "missing":
        return f"{at}missing field {name!r}"
    choices = _choices(model, location, error)
    if choices is not None:
        return not_one_of(_place(location), str(error.get("input")), choices)
    example = _list_example(model, location, error)
    if example is not None:
        return f"{_place(location)}: must be a list, e.g. {example}"
    reason = _reason(error)
    return f"{_place(location)}: {reason}" if location else reason


def _place(location: Sequence[int | str]) -> str:
    """``games[0].seeds`` for pydantic's ``('games', 0, 'seeds')``."""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _model_at(model: type[BaseModel], location: Sequence[int | str]) -> type[BaseModel] | None:
    """The model whose fields are valid at ``location`` (None: no model, e.g. a mapping's keys)."""
    current: type[BaseModel] | None = model
    for part in location:
        if isinstance(part, int):
            continue  # an item of a list: the list's model
        field = current.model_fields.get(part) if current else None
        current = _inner_model(field.annotation) if field else None
    return current


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    """The model inside ``annotation`` (``list[GameEntry] | None``: GameEntry), if any."""
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return annotation
    return next(filter(None, map(_inner_model, typing.get_args(annotation))), None)


def _choices(
    model: type[BaseModel], location: Sequence[int | str], error: ErrorDetails
) -> list[str] | None:
    """The values a field of fixed choices takes, for an error that a value is none of them."""
    if error["type"] not in ("literal_error", "enum") or not location:
        return None
    owner = _model_at(model, location[:-1])
    field = owner.model_fields.get(str(location[-1])) if owner else None
    values = _literal_values(field.annotation) if field else []
    return [str(value) for value in values] or None


def _list_example(
    model: type[BaseModel], location: Sequence[int | str], error: ErrorDetails
) -> str | None:
    """``ids: [a, b]``, the field's example, for an error that its value is no list (None: none).

    Pydantic said "ids: Input should be a valid tuple" to ``ids: 3``, which does not say what
    the key takes (walkthrough 23); a field with ``examples`` says it in the file's words.
    """
    if error["type"] not in ("tuple_type", "list_type") or not location:
        return None
    owner = _model_at(model, location[:-1])
    field = owner.model_fields.get(str(location[-1])) if owner else None
    if field is None or not field.examples:
        return None
    return f"{location[-1]}: [{', '.join(map(str, field.examples[0]))}]"


def _literal_values(annotation: Any) -> list[Any]:
    """The values of the ``Literal`` inside ``annotation`` (``Literal['local', 'ray'] | None``)."""
    if typing.get_origin(annotation) is typing.Literal:
        return list(typing.get_args(annotation))
    return next(filter(None, map(_literal_values, typing.get_args(annotation))), [])


def _reason(error: ErrorDetails) -> str:
    """Pydantic's reason, with its bounds said as a rule (``must be >= 1``)."""
    bounds = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<="}
    bound = bounds.get(error["type"])
    context = error.get("ctx") or {}
    if bound is not None and context:
        return f"must be {bound} {next(iter(context.values()))}"
    return error["msg"].removeprefix("Value error, ")
