"""The one way coordqa reads a YAML file it is handed (an eval-set spec, an agentic grid): bounded.

Such a file may come from anyone (a shared config, a repository, a paper's appendix), so two
bounds hold before any reader sees its contents. Its bytes: it is read up to
:data:`MAX_YAML_BYTES` and no further, so a huge file (or a device given as one) is refused
without being read whole. Its values: YAML's aliases let a few hundred bytes name lists of
lists of the same list (``&a1 [*a0, *a0, ...]``, the "billion laughs"); the loader keeps them
shared, but every reader after it (validation, a run's identity, its manifest) walks them
expanded, so a 500-byte eval-set spec kept ``coordqa eval-set`` busy past 60 s and 690 MB.
The loaded document is walked as its readers will walk it, and refused past
:data:`MAX_YAML_VALUES`. An anchor used a few times, YAML's own way to say a thing once,
stays well within it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coordqa.bounded_reads import FileTooLarge, read_at_most
from coordqa.errors import ConfigError

__all__ = ["MAX_YAML_BYTES", "MAX_YAML_VALUES", "load_yaml_file"]

MAX_YAML_BYTES = 1_000_000
"""The largest spec or grid file read: the paper's full grid is under 3 kB."""
MAX_YAML_VALUES = 100_000
"""The most values a file may expand to, aliases followed; the paper's full grid has ~200."""


def load_yaml_file(path: Path, what: str) -> Any:
    """The document of the YAML file ``path``, read within both bounds.

    ``what`` names the file in errors (``"the eval-set spec"``, ``"grid file"``).

    Raises:
        OSError: the file cannot be opened or read (the caller says which file it expected).
        ConfigError: the file is larger than :data:`MAX_YAML_BYTES`, is not UTF-8 text, is not
            YAML, or expands to more than :data:`MAX_YAML_VALUES` values.
    """
    import yaml

    try:
        data = read_at_most(path, MAX_YAML_BYTES)
    except FileTooLarge as exc:
        raise ConfigError(f"{what} {path} is {exc}; give the file you meant") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{what} {path} is not UTF-8 text ({exc.reason}); save it as UTF-8"
        ) from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path} is not valid YAML: {exc}") from exc
    if _expands_past(document, MAX_YAML_VALUES):
        raise ConfigError(
            f"{what} {path} expands to more than {MAX_YAML_VALUES:,} values: its YAML aliases "
            "(*name) repeat what they name inside one another; write the values out instead"
        )
    return document


def _expands_past(document: Any, limit: int) -> bool:
    """Whether ``document``, walked as its readers walk it (aliases expanded), passes ``limit``.

    The walk stops at the limit, so a runaway or self-containing document costs at most that.
    """
    pending = [document]
    seen = 0
    while pending:
        value = pending.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False
