"""List options: ``--games hanabi,overcooked`` and ``--games hanabi --games overcooked`` alike.

A list option is declared ``list[str] | None`` (Typer's repeatable option), so each repeat
adds to the list instead of replacing the value before it, and :func:`split_list` splits
every value at its commas. The values keep their order, repeats included, so a command line's
comma form gives the same stored settings as before repeats were taken (a run folder resumes).
An option whose value is one thing written with commas (``--players A,B``) takes it once:
:func:`given_once`.
"""

from __future__ import annotations

from collections.abc import Sequence

from coordqa.errors import ConfigError
from coordqa.given_lists import split_list

__all__ = ["given_once", "split_list"]


def given_once(values: str | Sequence[str] | None, flag: str, example: str) -> str | None:
    """The one value of ``flag``, an option that takes one comma-written value, or a refusal."""
    if isinstance(values, str):
        return values
    if not values:
        return None
    if len(values) > 1:
        raise ConfigError(f"{flag} was given {len(values)} times; give it once, e.g. {example}")
    return values[0]
