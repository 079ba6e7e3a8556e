"""Names people read on the board: normalised, bounded, visible, and kept apart from each other.

Every name a submitter or an admin gives (display names, providers, organisations, model and
agent names, token and dataset names, reasons) goes through :func:`clean_name`: Unicode NFKC
normalisation (so full-width or ligature forms become their plain letters), trimmed, at least
one visible character, no control or invisible formatting characters (a right-to-left override
could make a name display as another), and a length limit that the database columns hold.

A display name may still *look* like another submitter's while being a different string: an
Armenian ``օ`` or a small capital ``ᴏ`` in ``GPT-4o``, a Unicode hyphen, another case. Names are
compared by their confusable skeleton (Unicode Technical Standard #39, computed by ICU's spoof
checker through PyICU, so the table is the Unicode Consortium's, kept current with ICU) with
case and spaces folded (:func:`lookalike_keys`); :func:`imitated_name` finds the existing name a
new one reads as, and the board refuses it, naming that name (:func:`imitation_refusal`).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from coordqa.errors import ConfigError, MissingDependencyError

__all__ = [
    "DISPLAY_NAME_FIELD",
    "admin_text",
    "alike_names",
    "clean_name",
    "imitated_name",
    "imitation_refusal",
    "lookalike_keys",
    "skeleton",
]

DISPLAY_NAME_FIELD = "model.display_name"
"""Where a bundle (and a registration) holds its display name: the ``field`` of the board's
refusal of a look-alike name, by which a client knows to advise ``--name``."""

FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a name may not hold: controls, invisible formatting (bidi overrides,
zero-width characters), surrogates, private use, unassigned, line and paragraph separators."""


def clean_name(value: str, *, what: str, max_length: int = 200) -> str:
    """``value`` NFKC-normalised and trimmed, or a ValueError saying what is wrong.

    >>> clean_name("  ＧＰＴ－４o ", what="name")
    'GPT-4o'
    """
    text = unicodedata.normalize("NFKC", value).strip()
    if not text:
        raise ValueError(f"{what} is empty or only whitespace")
    hidden = [c for c in text if unicodedata.category(c) in FORBIDDEN_CATEGORIES]
    if hidden:
        codes = ", ".join(f"U+{ord(c):04X}" for c in hidden[:5])
        raise ValueError(
            f"{what} holds control or invisible characters ({codes}); use visible text only"
        )
    if len(text) > max_length:
        raise ValueError(f"{what} is {len(text)} characters long; at most {max_length} allowed")
    return text


def admin_text(value: str, *, what: str, max_length: int = 200) -> str:
    """:func:`clean_name` for text an admin gives (token names, reasons, notes).

    Raises:
        ConfigError: the text is blank, too long or holds control characters.
    """
    try:
        return clean_name(value, what=what, max_length=max_length)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc


@functools.cache
def _spoof_checker() -> Any:
    """ICU's UTS #39 spoof checker (PyICU, in the ``leaderboard`` extra), made once."""
    try:
        import icu
    except ImportError as exc:
        raise MissingDependencyError(
            "comparing display names needs PyICU (ICU's Unicode confusables); install it with "
            "pip install 'coordqa[leaderboard]'"
        ) from exc
    return icu.SpoofChecker()


def skeleton(name: str) -> str:
    """The UTS #39 confusable skeleton of ``name`` (after NFKC): what it is drawn as.

    >>> skeleton("GPT-4\u0585"), skeleton("G\u0420T\u20104o"), skeleton("\u13e2")
    ('GPT-4o', 'GPT-4o', 'P')
    """
    return str(_spoof_checker().getSkeleton(0, unicodedata.normalize("NFKC", name)))


def _folded(text: str) -> str:
    """``text`` case-folded with every space removed."""
    return "".join(text.casefold().split())


def lookalike_keys(name: str) -> frozenset[str]:
    """What ``name`` reads as, ignoring case and spaces: two names that share a key look alike.

    The skeleton of the name, case-folded, and the skeleton of the case-folded name: the first
    keeps ``Il`` beside ``ll`` (a capital I is drawn as an l), the second ``Il`` beside ``il``.

    >>> sorted(lookalike_keys("GPT - 4\u1d0f"))
    ['gpt-4o']
    >>> lookalike_keys("Il") & lookalike_keys("ll"), lookalike_keys("Il") & lookalike_keys("il")
    (frozenset({'ll'}), frozenset({'il'}))
    """
    return frozenset({_folded(skeleton(name)), _folded(skeleton(_folded(name)))})


def alike_names(name: str, existing: Iterable[str]) -> Iterator[str]:
    """Those of ``existing`` that ``name`` looks like (:func:`lookalike_keys`): one to a reader.

    >>> list(alike_names("Bob", ["alice", "bob", "B O B", "bobby"]))
    ['bob', 'B O B']
    """
    keys = lookalike_keys(name)
    return (other for other in existing if keys & lookalike_keys(other))


def imitated_name(name: str, existing: Iterable[str]) -> str | None:
    """The first of ``existing`` that ``name`` looks like (:func:`lookalike_keys`), if any.

    >>> imitated_name("gpt-4\u0585", ["Claude", "GPT-4o"]), imitated_name("GPT-4.1", ["GPT-4o"])
    ('GPT-4o', None)
    >>> imitated_name("GPT-40", ["GPT-4o"])  # UTS #39 draws the digit 0 as the letter O
    'GPT-4o'
    """
    return next(alike_names(name, existing), None)


def imitation_refusal(name: str, imitated: str) -> str:
    """Why ``name`` is refused beside another submitter's ``imitated``, and what to do."""
    return (
        f"the display name {name!r} looks like the existing name {imitated!r} of another "
        "submitter (names are compared by their Unicode look-alike skeleton, ignoring case and "
        "spaces); choose a name that reads differently"
    )
