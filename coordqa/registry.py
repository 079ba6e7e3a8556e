"""A small typed registry: one source of truth per name, and help for unknown names.

Models, games, players and partners register with a decorator. Looking up a name that is not
registered raises :class:`~coordqa.errors.UnknownNameError` listing what exists and the closest
matches, so a typo never turns into a silent default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from rapidfuzz import process

from coordqa.errors import ConfigError, UnknownNameError

T = TypeVar("T")


def suggest(name: str, candidates: list[str], limit: int = 3) -> list[str]:
    """Return the registered names closest to ``name`` (best first).

    >>> suggest("hanabbi", ["hanabi", "overcooked"])
    ['hanabi']
    """
    matches = process.extract(name, candidates, limit=limit, score_cutoff=60)
    return [match for match, _score, _index in matches]


class Registry(Generic[T]):
    """Names mapped to objects of one kind (factories, classes, configs)."""

    def __init__(self, kind: str) -> None:
        """Create an empty registry; ``kind`` names its entries in error messages."""
        self.kind = kind
        self._entries: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator that registers its target under ``name`` (which must be new)."""

        def decorate(target: T) -> T:
            self.add(name, target)
            return target

        return decorate

    def add(self, name: str, target: T) -> None:
        """Register ``target`` under ``name``; a second entry with the same name is an error."""
        if name in self._entries and self._entries[name] is not target:
            raise ConfigError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = target

    def get(self, name: str) -> T:
        """Return the entry for ``name``, or raise with the available names and suggestions."""
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownNameError(self.unknown_message(name)) from None

    def unknown_message(self, name: str) -> str:
        """The error text for an unknown ``name``: what exists and what was probably meant."""
        names = sorted(self._entries)
        close = suggest(name, names)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return f"unknown {self.kind} {name!r}.{hint} Available: {', '.join(names) or '(none)'}."

    def names(self) -> list[str]:
        """All registered names, sorted."""
        return sorted(self._entries)

    def items(self) -> Iterator[tuple[str, T]]:
        """(name, entry) pairs, sorted by name."""
        for name in self.names():
            yield name, self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries
