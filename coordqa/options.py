"""A player's options, declared once as a dataclass: parsed, validated, described and flagged.

A player that takes options (the LLM agents' switches, ``greedy_human``'s model settings) names
a frozen dataclass in :attr:`coordqa.games.PlayerSpec.options`. That class is the only list of
its options: a grid's ``agent_options``, ``coordqa agentic run --agent-option KEY=VALUE`` and the
papers' ablation flags are all parsed by :func:`parse_options` into an instance of it, and the
command line's flags and help (:func:`option_docs`) are generated from its fields, whose
docstrings are the help texts. A field that the papers gave a flag of its own (``--no-tom``)
says so with :func:`flag` in its metadata.

Options are parsed once, where a grid (or ``coordqa agentic run``'s options) is read, after the
preset's, the grid's and the game's have been merged: the result, a :class:`PlayerOptions`,
travels typed through the episode spec, the runner and the match to the player's factory.

Parsing checks names before types (:func:`check_names`), so a misspelt option is named with its
nearest valid one (``use_tomm`` -> ``use_tom``) instead of surfacing later as a factory's
``TypeError``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, Union

from pydantic import ConfigDict, GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import core_schema

from coordqa.errors import ConfigError
from coordqa.registry import did_you_mean

__all__ = [
    "OPTIONS_CONFIG",
    "Flag",
    "OptionDoc",
    "OptionValue",
    "PlayerOptions",
    "check_names",
    "flag",
    "option_defaults",
    "option_docs",
    "parse_assignment",
    "parse_options",
]

OptionValue = bool | int | float | str | None
"""What one option holds in a grid file or an episode spec (JSON scalars)."""

OPTIONS_CONFIG = ConfigDict(extra="forbid", use_attribute_docstrings=True)
"""The pydantic settings of every options dataclass (``__pydantic_config__``): unknown fields
are errors, and each field's docstring is its description."""

_T = TypeVar("_T")
_UNSET: Any = object()


@dataclass(frozen=True)
class Flag:
    """A command-line flag of its own for one option (a paper's ablation switch)."""

    name: str
    """The flag, e.g. ``--no-tom``."""
    sets: OptionValue = _UNSET
    """The value a switch sets (``--no-tom`` sets ``False``); unset: the flag takes a value."""

    @property
    def is_switch(self) -> bool:
        """Whether the flag takes no value."""
        return self.sets is not _UNSET


def flag(name: str, sets: OptionValue = _UNSET) -> dict[str, Flag]:
    """Field metadata giving an option the flag ``name`` (a switch when ``sets`` is given).

    >>> flag("--no-tom", sets=False)["flag"].is_switch
    True
    """
    return {"flag": Flag(name, sets)}


@dataclass(frozen=True)
class OptionDoc:
    """One option of a player, as help texts show it."""

    name: str
    """The field name (the key in ``agent_options`` and ``--agent-option``)."""
    kind: str
    """Its type in words: ``true|false``, ``integer``, ``integer|none``, ``number``, ``text``."""
    default: OptionValue
    """Its default value."""
    description: str
    """The field's docstring, on one line."""
    flag: Flag | None
    """Its own flag, when it has one."""


@functools.cache
def _adapter(cls: type[_T]) -> TypeAdapter[_T]:
    """The validator of an options dataclass.

    The class sets ``__pydantic_config__`` to :data:`OPTIONS_CONFIG`, so its field docstrings
    are its descriptions.
    """
    return TypeAdapter(cls)


@dataclass(frozen=True, eq=False)
class PlayerOptions(Mapping[str, OptionValue]):
    """A player's options, parsed once where a command or grid file was read.

    As a mapping it is what was *given* (a preset's, a grid's, the command line's options, before
    the defaults): what an episode spec stores and is keyed on, and what reports show.
    :attr:`value` is the player's options dataclass built from it (None for a player that takes
    none): what the player's factory is handed. A spec read back from a stored run holds what
    was given only (:attr:`parsed` False); :meth:`coordqa.games.PlayerSpec.resolve_options`
    parses it if such a spec is played again.
    """

    given: Mapping[str, OptionValue] = field(default_factory=dict)
    """The options as given, by name."""
    value: Any = None
    """The instance of the player's options dataclass (None: it takes none, or not parsed)."""
    parsed: bool = False
    """Whether :attr:`value` was built from :attr:`given`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "given", dict(self.given))

    def __getitem__(self, name: str) -> OptionValue:
        return self.given[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.given)

    def __len__(self) -> int:
        return len(self.given)

    def __repr__(self) -> str:
        state = "parsed" if self.parsed else "as stored"
        return f"PlayerOptions({dict(self.given)!r}, {state})"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Pydantic takes one as it is, or a stored mapping of JSON scalars (not parsed).

        It is written as what was given.
        """
        return core_schema.no_info_plain_validator_function(
            cls._of,
            serialization=core_schema.plain_serializer_function_ser_schema(dict),
        )

    @classmethod
    def _of(cls, data: object) -> PlayerOptions:
        if isinstance(data, PlayerOptions):
            return data
        return cls(_STORED.validate_python(data))


_STORED: TypeAdapter[dict[str, OptionValue]] = TypeAdapter(dict[str, OptionValue])
"""Options as a stored spec holds them: names and JSON scalars."""


def check_names(owner: str, cls: type | None, given: Mapping[str, object], where: str = "") -> None:
    """Refuse an option ``cls`` does not declare, naming the valid ones and the nearest.

    Raises:
        ConfigError: an unknown option (``where`` starts the message).
    """
    names = [] if cls is None else [f.name for f in dataclasses.fields(cls)]
    for name in given:
        if name not in names:
            place = f"{where}: " if where else ""
            raise ConfigError(f"{place}{_unknown(owner, name, names)}")


def parse_options(
    owner: str, cls: type[_T] | None, given: Mapping[str, object], where: str = ""
) -> _T | None:
    """``given`` as an instance of ``owner``'s options dataclass ``cls`` (None: it takes none).

    Each value must have its field's type already (pydantic's strict mode: ``true`` is no
    integer and ``"1"`` no number; an integer is a number), as grid files and
    :func:`parse_assignment` give them; then the dataclass's own checks run.

    Raises:
        ConfigError: an option ``cls`` does not have (naming the valid ones and the nearest),
            a value of the wrong type, or one the dataclass rejects; ``where`` starts the message.
    """
    place = f"{where}: " if where else ""
    check_names(owner, cls, given, where)
    if cls is None:
        return None
    hints = typing.get_type_hints(cls)
    values = {}
    for name, value in given.items():
        try:
            values[name] = _value_adapter(hints[name]).validate_python(value, strict=True)
        except ValidationError as exc:
            wanted = _kind(hints[name])
            raise ConfigError(
                f"{place}option {name} of {owner!r} takes {wanted}, got {value!r}"
            ) from exc
    try:
        return cls(**values)
    except ConfigError as exc:
        raise ConfigError(f"{place}{exc}") from exc


@functools.cache
def _value_adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def _unknown(owner: str, name: str, names: list[str]) -> str:
    if not names:
        return f"{owner!r} takes no options, got {name!r}"
    listed = f"{owner!r} has no option {name!r}; its options: {', '.join(names)}"
    hint = did_you_mean(name, names)
    return f"{listed}.{hint}" if hint else listed


def parse_assignment(text: str, what: str = "--agent-option") -> tuple[str, OptionValue]:
    """``KEY=VALUE`` as a key and a value: JSON scalars are read as such, ``none`` is None.

    >>> parse_assignment("tom_level=1"), parse_assignment("variant=vmp")
    (('tom_level', 1), ('variant', 'vmp'))
    >>> parse_assignment("max_verifier_retries=none")
    ('max_verifier_retries', None)

    Raises:
        ConfigError: no ``=`` or no key.
    """
    key, equals, raw = text.partition("=")
    if not equals or not key.strip():
        raise ConfigError(f"{what} takes KEY=VALUE (e.g. use_tom=false), got {text!r}")
    return key.strip(), parse_value(raw.strip())


def parse_value(raw: str) -> OptionValue:
    """A command-line value: JSON scalars as JSON reads them, ``none`` as None, else text.

    >>> [parse_value(v) for v in ("false", "2", "0.5", "none", "mmp")]
    [False, 2, 0.5, None, 'mmp']
    """
    if raw.lower() == "none":
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, bool | int | float | str) or value is None else raw


def option_defaults(cls: type | None) -> dict[str, OptionValue]:
    """Every option of the dataclass ``cls`` with its default (none for ``None``: no options).

    The defaults a player plays with where nothing was given, as its options class declares
    them: help texts and reports (``episodes.csv``) read them here. Every option has one (a
    player is built from no options given), a JSON scalar (:data:`OptionValue`).
    """
    if cls is None:
        return {}
    fields = dataclasses.fields(cls)
    return {declared.name: declared.default for declared in fields}  # type: ignore[misc]


def option_docs(cls: type | None) -> list[OptionDoc]:
    """Every option of the dataclass ``cls`` with its type, default, docstring and flag."""
    if cls is None:
        return []
    descriptions: dict[str, str] = {}
    for base in reversed(cls.__mro__):  # pydantic reads docstrings from each class's own source
        if dataclasses.is_dataclass(base):
            schema = _adapter(base).json_schema()["properties"]
            descriptions.update(
                {k: v["description"] for k, v in schema.items() if "description" in v}
            )
    hints = typing.get_type_hints(cls)
    defaults = option_defaults(cls)
    docs = []
    for declared in dataclasses.fields(cls):
        description = " ".join(descriptions.get(declared.name, "").split())
        docs.append(
            OptionDoc(
                name=declared.name,
                kind=_kind(hints[declared.name]),
                default=defaults[declared.name],
                description=description,
                flag=declared.metadata.get("flag"),
            )
        )
    return docs


_KINDS = {bool: "true|false", int: "integer", float: "number", str: "text", type(None): "none"}


def _kind(annotation: Any) -> str:
    """``int | None`` -> ``integer|none``; a Literal lists its values."""
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return "|".join(_kind(arg) for arg in typing.get_args(annotation))
    if origin is typing.Literal:
        return "|".join(str(arg) for arg in typing.get_args(annotation))
    return _KINDS.get(annotation, getattr(annotation, "__name__", str(annotation)))
