"""Lists as a user gives them: names split at commas, question ids as a list or a file.

The one home of what a list option of a command takes (``--games hanabi,overcooked``, ``--ids
id1,id2`` or ``--ids chosen.txt``) and what the same key of an eval-set spec takes as a string
(``types: JP``, ``ids: chosen.txt``): one rule for one setting wherever it is given (walkthrough
23). The commands' repeatable options are :mod:`coordqa.cli._lists`'.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coordqa.errors import ConfigError

__all__ = ["parse_ids", "split_list"]


def split_list(values: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """The items of a list option, each value split at commas; None or no item: no filter."""
    if values is None:
        return None
    given = [values] if isinstance(values, str) else values
    items = tuple(item.strip() for value in given for item in value.split(",") if item.strip())
    return items or None


def parse_ids(values: str | Sequence[str] | None, flag: str = "--ids") -> tuple[str, ...] | None:
    """Parse question ids given as ``flag``, each value ``id1,id2`` or a file of one id per line.

    A repeated ``flag`` adds its ids to the ones before (:mod:`coordqa.cli._lists`). A file is
    read from the working folder, as every path coordqa is given.

    ``#`` starts a comment in the file. Errors name ``flag``, so another option may reuse this.
    A value that is a folder, or no file but reads as a path (see :func:`_names_a_file`), is
    said as such (:func:`~coordqa.given_paths.not_a_file`), not as an unknown question id: no
    release's id has a ``/`` or a ``.``.
    """
    if values is None:
        return None
    given = [values] if isinstance(values, str) else values
    ids = tuple(item for value in given for item in _ids_of(value, flag))
    return ids or None


def _ids_of(value: str, flag: str) -> tuple[str, ...]:
    """The ids one value of ``flag`` gives (see :func:`parse_ids`)."""
    if not value.strip():
        raise ConfigError(f"{flag} is empty; give question ids (id1,id2) or a file of them")
    path = Path(value)
    if path.is_file():
        lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
        ids = tuple(line for line in lines if line)
        if not ids:
            raise ConfigError(f"{flag} file {path} lists no question id; write one id per line")
        return ids
    if path.is_dir() or _names_a_file(value):
        from coordqa.given_paths import not_a_file

        raise ConfigError(
            f"{not_a_file(value, f'{flag} file')} {flag} takes question ids as a comma list "
            "(id1,id2) or a file of one id per line"
        )
    return split_list(value) or ()


def _names_a_file(value: str) -> bool:
    """Whether ``value`` of an id option reads as a path (``ids.txt``, ``lists/chosen``)."""
    return "," not in value and ("/" in value or bool(Path(value).suffix))
