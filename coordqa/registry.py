"""A small typed registry: one source of truth per name, lazy entries, and help for unknown names.

Every name resolves from any entry point, whatever was imported before: a registry holds

- **entries** added in code (:meth:`Registry.add`, :meth:`Registry.register`);
- **lazy entries**, ``"module:attr"`` references imported on first use (:meth:`Registry.add_lazy`),
  so listing the built-in games imports no game;
- **catalogs**, ``"module:attr"`` references to a :class:`Catalog`: the entries one module offers
  together, computed when asked (the partners of the weight files a user registered);
- **plugins**: the package entry points of the registry's group (``coordqa.games``,
  ``coordqa.players``, ``coordqa.models``). Any installed distribution adds names with::

      [project.entry-points."coordqa.players"]
      my-agent = "my_package.agents:MY_AGENT"   # a coordqa.games.PlayerSpec

  A plugin names one entry (registered under the entry point's name, which must be the entry's
  own name) or a :class:`Catalog` (the entry point's name is then only a label). coordqa's own
  tracks are added this way (``pyproject.toml``), since the core never imports them.

Looking up a name that is not registered raises :class:`~coordqa.errors.UnknownNameError` listing
what exists and the closest matches, so a typo never turns into a silent default.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import metadata
from typing import Any, Generic, TypeVar

from rapidfuzz import fuzz, process

from coordqa.errors import ConfigError, UnknownNameError

__all__ = [
    "Catalog",
    "Registry",
    "did_you_mean",
    "offer",
    "resolve_reference",
    "spelled_as",
    "suggest",
    "unknown_name_message",
]

T = TypeVar("T")


def spelled_as(name: str, spellings: Iterable[str]) -> str:
    """``name`` as ``spellings`` spell it, ignoring case (``Overcooked``: ``overcooked``).

    The one rule for the names a user types of games and question types: every command
    accepts any case. A name none of ``spellings`` matches is returned as given, for the
    caller to refuse with its own list of what exists.
    """
    return next((known for known in spellings if known.casefold() == name.casefold()), name)


SUGGEST_CUTOFF = 66
"""How close (0-100) a name must be to be suggested (:func:`closeness`): one wrong letter of
three (``cak``/``cac`` 67) is close; ``foo``/``oobabooga`` (33) is not."""

PARTIAL_FROM = 5
"""The length from which a typed name may be matched within a longer name: a part of five
letters is rarely there by chance (``plannr`` in ``escape-planner``, ``hp-forced`` in
``hp-forced_coordination``), two or three shared letters often are (``foo`` in ``oobabooga``)."""


def closeness(name: str, candidate: str, **_: object) -> float:
    """How close ``candidate`` is to the typed ``name``, 0-100 (rapidfuzz's scorer signature).

    The whole-name similarity (``fuzz.ratio``, difflib's ratio), or from :data:`PARTIAL_FROM`
    letters the best match of ``name`` within a longer ``candidate`` at 0.9 of its score, so a
    typo of the whole name ranks first (``opneai``: ``openai`` 83 before ``custom_openai`` 75).
    rapidfuzz's default scorer (WRatio) rated partial matches of any length, so ``foo/bar`` was
    offered ``oobabooga``, ``black_forest_labs`` and ``darkbloom``.
    """
    whole = fuzz.ratio(name, candidate)
    if len(name) < PARTIAL_FROM or len(candidate) <= len(name):
        return whole  # a shorter name within the typed one is chance: log.txt in missing.txt
    return max(whole, 0.9 * fuzz.partial_ratio(name, candidate))


def suggest(name: str, candidates: list[str], limit: int = 3) -> list[str]:
    """Return the registered names closest to ``name`` (best first): the one "did you mean" rule.

    >>> suggest("hanabbi", ["hanabi", "overcooked"])
    ['hanabi']
    >>> suggest("foo", ["oobabooga", "black_forest_labs"])
    []

    Case is no difference (``CAK``: ``cac``): names are read in any case
    (:func:`spelled_as`), so a typo in capitals is one letter off, not three.

    >>> suggest("CAK", ["cac", "hm"])
    ['cac']

    A name listed twice among ``candidates`` is offered once.
    """
    matches = process.extract(
        name,
        list(dict.fromkeys(candidates)),
        scorer=closeness,
        processor=str.casefold,
        limit=limit,
        score_cutoff=SUGGEST_CUTOFF,
    )
    return [match for match, _score, _index in matches]


def did_you_mean(name: str, candidates: Sequence[str]) -> str:
    """`` Did you mean 'a', 'b'?``: the names of ``candidates`` closest to ``name``, or "".

    The one wording of a suggestion, for a message that goes on to say what exists (or, where
    a name may exist elsewhere, what to do): ``unknown_name_message`` builds on it.

    >>> did_you_mean("smok", ["paper", "smoke"])
    " Did you mean 'smoke'?"
    """
    return offer(suggest(name, list(candidates)))


def offer(close: Sequence[str]) -> str:
    """`` Did you mean 'a', 'b'?`` for names already chosen, or "" for none: the one wording.

    For a caller that knows the name meant by another rule than closeness (a bare model name's
    litellm prefix); every other caller picks with :func:`did_you_mean`. Each name is quoted,
    so it reads apart from the question mark (``'openai/gpt-4o'?``, not ``openai/gpt-4o?``).

    >>> offer(["openai/gpt-4o"]), offer([])
    (" Did you mean 'openai/gpt-4o'?", '')
    """
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""


def not_one_of(what: str, given: str, choices: Sequence[str]) -> str:
    """``WHAT 'GIVEN' is not one of a, b, c. Did you mean 'b'?``: a refused choice's wording.

    For a value checked by hand against a fixed list (an option's, a spec key's).

    The suggestion is :func:`did_you_mean`'s: ``compare --only both_wrong`` listed the choices
    but not the one meant (walkthrough 10, #54).

    >>> not_one_of("--format", "cvs", ["md", "csv"])
    "--format 'cvs' is not one of md, csv. Did you mean 'csv'?"
    """
    listed = f"{what} {given!r} is not one of {', '.join(choices)}"
    hint = did_you_mean(given, choices)
    return f"{listed}.{hint}" if hint else listed


def unknown_name_message(kind: str, name: str, groups: Sequence[tuple[str, Sequence[str]]]) -> str:
    """``unknown KIND 'NAME'. Did you mean ...? LABEL: NAMES; ...``: the one wording.

    ``groups`` are (label, names) of the names valid where ``name`` was given, most likely
    first (a caller narrows them to a role or a game): the suggestions are the closest names
    of the first group that has any close, so a likelier name is not crowded out.
    """
    hint = next((found for _, names in groups if (found := did_you_mean(name, names))), "")
    listed = "; ".join(f"{label}: {', '.join(names) or '(none)'}" for label, names in groups)
    return f"unknown {kind} {name!r}.{hint} {listed}."


def resolve_reference(reference: str) -> Any:
    """Import ``"package.module:attr"`` and return the attribute.

    Raises:
        ConfigError: a malformed reference, or one whose module or attribute does not exist.

    >>> resolve_reference("coordqa.registry:suggest") is suggest
    True
    """
    module_name, _, attr = reference.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"registry reference {reference!r} is not of the form 'module:attr'")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot load registry reference {reference!r}: {exc}") from exc
    return target


class Catalog(Generic[T]):
    """Entries offered together by one module, named only when asked.

    ``source`` is a mapping (a fixed set) or a function returning one, called each time the
    registry needs the names: entries that depend on files (registered weights) stay current.
    """

    def __init__(
        self,
        source: Mapping[str, T] | Callable[[], Mapping[str, T]],
        missing: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        """Wrap a mapping of entries, or a function computing one.

        ``missing`` says what it cannot offer now, and what to do (a registered weights folder
        since deleted): said when a name is not found.
        """
        self._source = source
        self._missing = missing

    def missing(self) -> list[str]:
        """What it cannot offer now, each with what to do (none: all is there)."""
        return list(self._missing()) if self._missing is not None else []

    def entries(self) -> Mapping[str, T]:
        """The entries now, by name."""
        return self._source() if callable(self._source) else self._source


class Registry(Generic[T]):
    """Names mapped to objects of one kind (factories, classes, configs)."""

    def __init__(
        self,
        kind: str,
        entry_points: str | None = None,
        name_of: Callable[[T], str] | None = None,
    ) -> None:
        """Create an empty registry.

        Args:
            kind: names its entries in error messages (``"game"``, ``"player"``).
            entry_points: the package entry-point group whose plugins add names.
            name_of: an entry's own name (a game class's ``name``), checked against the name
                it is registered under when a lazy entry or plugin is loaded.
        """
        self.kind = kind
        self.group = entry_points
        self._name_of = name_of
        self._entries: dict[str, T] = {}
        self._lazy: dict[str, str] = {}
        self._catalog_refs: list[str] = []
        self._catalogs: list[Catalog[T]] = []
        self._plugins: dict[str, metadata.EntryPoint] | None = None
        self._loading = threading.RLock()
        """Held while lazy entries, plugins and catalogs load: threads that look up names at
        once (a server verifying submissions in its thread pool) load each one once."""

    # -- adding ---------------------------------------------------------------------------

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator that registers its target under ``name`` (which must be new)."""

        def decorate(target: T) -> T:
            self.add(name, target)
            return target

        return decorate

    def add(self, name: str, target: T) -> None:
        """Register ``target`` under ``name``; a second entry with the same name is an error."""
        if name in self._lazy or (name in self._entries and self._entries[name] is not target):
            raise ConfigError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = target

    def add_lazy(self, name: str, reference: str) -> None:
        """Register ``"module:attr"`` under ``name``; it is imported the first time it is used."""
        if name in self._entries or self._lazy.get(name, reference) != reference:
            raise ConfigError(f"{self.kind} {name!r} is registered twice")
        self._lazy[name] = reference

    def add_catalog(self, reference: str) -> None:
        """Register ``"module:attr"`` naming a :class:`Catalog`, loaded when names are needed."""
        if reference not in self._catalog_refs:
            self._catalog_refs.append(reference)

    # -- looking up -----------------------------------------------------------------------

    def get(self, name: str) -> T:
        """Return the entry for ``name``, or raise with the available names and suggestions.

        ``name`` is read as the command line reads it: as typed, else in any case
        (:meth:`spelled`: ``Hanabi`` is ``hanabi``), so the library and the CLI take the same
        names.

        Raises:
            UnknownNameError: no such name (lists the names and the closest ones).
            ConfigError: a lazy entry or plugin that does not load, or whose own name differs.
        """
        found = self._find(name)
        if found is None and (spelled := self.spelled(name)) != name:
            found = self._find(spelled)
        if found is None:
            raise UnknownNameError(self.unknown_message(name))
        return found

    def _find(self, name: str) -> T | None:
        if name in self._entries:
            return self._entries[name]
        with self._loading:
            if name in self._entries:  # loaded by another thread meanwhile
                return self._entries[name]
            if name in self._lazy:
                return self._load_lazy(name)
            plugins = self._discover()
            if name in plugins:
                self._load_plugin(name)
                if name in self._entries:
                    return self._entries[name]
            return self._catalog_entries().get(name)

    def _load_lazy(self, name: str) -> T:
        target: T = resolve_reference(self._lazy[name])
        self._check_name(name, target, self._lazy[name])
        del self._lazy[name]
        self._entries[name] = target
        return target

    def _discover(self) -> dict[str, metadata.EntryPoint]:
        """The plugins of the entry-point group not loaded yet (read once per process)."""
        if self._plugins is None:
            found = metadata.entry_points(group=self.group) if self.group else ()
            self._plugins = {}
            for point in found:
                if point.name in self._entries or point.name in self._lazy:
                    raise ConfigError(
                        f"{self.kind} {point.name!r} is registered twice: by coordqa and by the "
                        f"entry point {point.value!r} ({_distribution(point)}). Uninstall one."
                    )
                self._plugins[point.name] = point
        return self._plugins

    def _load_plugin(self, name: str) -> None:
        point = self._discover().pop(name)
        try:
            target = point.load()
        except Exception as exc:
            raise ConfigError(
                f"the {self.kind} plugin {name!r} = {point.value!r} ({_distribution(point)}) does "
                f"not load: {exc}. Fix or uninstall that package."
            ) from exc
        if isinstance(target, Catalog):
            self._catalogs.append(target)
        else:
            self._check_name(name, target, point.value)
            self._entries[name] = target

    def _check_name(self, name: str, target: T, reference: str) -> None:
        if isinstance(target, Catalog):
            raise ConfigError(f"{reference!r} is a Catalog; register it with add_catalog")
        if self._name_of is not None and self._name_of(target) != name:
            raise ConfigError(
                f"{reference!r} is registered as {self.kind} {name!r} but calls itself "
                f"{self._name_of(target)!r}; use one name."
            )

    def _catalog_entries(self) -> dict[str, T]:
        """Every catalog's entries (loading the remaining plugins, which may be catalogs)."""
        with self._loading:
            return self._load_catalogs()

    def _load_catalogs(self) -> dict[str, T]:
        for name in list(self._discover()):
            self._load_plugin(name)
        while self._catalog_refs:
            reference = self._catalog_refs.pop(0)
            catalog = resolve_reference(reference)
            if not isinstance(catalog, Catalog):
                raise ConfigError(f"{reference!r} is not a Catalog but {type(catalog).__name__}")
            self._catalogs.append(catalog)
        merged: dict[str, T] = {}
        for catalog in self._catalogs:
            for name, target in catalog.entries().items():
                if name in merged or name in self._entries or name in self._lazy:
                    raise ConfigError(f"{self.kind} {name!r} is registered twice")
                merged[name] = target
        return merged

    def unknown_message(self, name: str) -> str:
        """The error text for an unknown ``name``: what exists and what was probably meant."""
        return unknown_name_message(self.kind, name, [("Available", self.names())]) + self.missing()

    def missing(self) -> str:
        """`` NOTE. NOTE.``: what its catalogs cannot offer now and what to do; "" when none."""
        self._catalog_entries()
        return "".join(f" {note}." for catalog in self._catalogs for note in catalog.missing())

    def spelled(self, name: str) -> str:
        """``name`` as registered, in any case (``Overcooked``: ``overcooked``); else as given."""
        return spelled_as(name, self.names())

    def names(self) -> list[str]:
        """All registered names, sorted (lazy entries are not imported to list them)."""
        catalogs = self._catalog_entries()
        return sorted({*self._entries, *self._lazy, *catalogs})

    def items(self) -> Iterator[tuple[str, T]]:
        """(name, entry) pairs, sorted by name (every entry is loaded)."""
        for name in self.names():
            yield name, self.get(name)

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` is registered spelled exactly so.

        A dataset row must spell its game as registered; :meth:`get` also reads a name typed
        in another case.
        """
        return isinstance(name, str) and self._find(name) is not None


def _distribution(point: metadata.EntryPoint) -> str:
    """The distribution that declares an entry point, for error messages."""
    dist = getattr(point, "dist", None)
    return f"package {dist.name}" if dist is not None else "an installed package"
