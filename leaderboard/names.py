"""Names people read on the board: normalised, bounded, visible, and checked for look-alikes.

Every name a submitter or an admin gives (display names, providers, organisations, model and
agent names, token and dataset names, reasons) goes through :func:`clean_name`: Unicode NFKC
normalisation (so full-width or ligature forms become their plain letters), trimmed, at least
one visible character, no control or invisible formatting characters (a right-to-left override
could make a name display as another), and a length limit that the database columns hold.

A name may still *look* like another entry's while being a different string, by mixing
alphabets (a Cyrillic ``а`` in ``GPT-4o``). :func:`lookalike_of` finds such a name among the
existing ones; the server accepts the submission and flags it on the board.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from coordqa.errors import ConfigError

__all__ = ["admin_text", "clean_name", "lookalike_of", "scripts", "skeleton"]

FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a name may not hold: controls, invisible formatting (bidi overrides,
zero-width characters), surrogates, private use, unassigned, line and paragraph separators."""

_CONFUSABLE_FROM = "аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХІЈЅԚԜαονρικτΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
_CONFUSABLE_TO = "aeopcyxijsdqwhlABEKMHOPCTXIJSQWaovpiktABEZHIKMNOPTYX"
CONFUSABLES = str.maketrans(_CONFUSABLE_FROM, _CONFUSABLE_TO)
"""Cyrillic and Greek letters drawn like Latin ones, mapped to the Latin letter."""


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


def scripts(name: str) -> set[str]:
    """The alphabets of the letters in ``name`` (``LATIN``, ``CYRILLIC``, ``GREEK``...).

    >>> sorted(scripts("GPT-4о"))  # the last letter is Cyrillic
    ['CYRILLIC', 'LATIN']
    """
    return {
        unicodedata.name(c, "UNKNOWN").split()[0]
        for c in name
        if unicodedata.category(c).startswith("L")
    }


def skeleton(name: str) -> str:
    """What ``name`` looks like: look-alike letters mapped to Latin, case and spaces folded.

    >>> skeleton("GPT-4о") == skeleton("gpt-4o")
    True
    """
    return "".join(unicodedata.normalize("NFKC", name).translate(CONFUSABLES).casefold().split())


def lookalike_of(name: str, existing: Iterable[str]) -> str | None:
    """An existing name that ``name`` imitates by mixing alphabets, if any.

    Only a name that mixes alphabets is suspect: ``Gpt-4o`` next to ``GPT-4o`` is a casing
    choice, not a disguise.
    """
    if len(scripts(name)) < 2:
        return None
    target = skeleton(name)
    for other in existing:
        if other != name and skeleton(other) == target:
            return other
    return None
