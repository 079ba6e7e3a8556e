"""The Jinja environment, number filters and static files of the leaderboard and the viewer.

Templates are autoescaped and strict: every string a submitter or a model wrote is shown as
text, and a misspelt variable is an error, not an empty cell. Each server's templates extend the
shared skeleton as ``web/page.html`` and import the accuracy macros from ``web/accuracy.html``.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from coordqa.records import QUESTION_TYPES
from coordqa.words import parameter_words

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "STATIC_PACKAGE",
    "ExportProgress",
    "package_environment",
    "static_packages",
    "write_static",
]

STATIC_PACKAGE = "coordqa.web"
"""The package whose ``static/`` holds the shared stylesheet and table sorter."""


@dataclass(frozen=True)
class ExportProgress:
    """Where a static export stands, given to its ``progress`` callback after each page.

    One shape for both exports, so the CLI shows them alike: the viewer's
    (:func:`coordqa.viewer.export_site`, whose items are runs) and the leaderboard's
    (:func:`coordqa.leaderboard.site.export_site`, whose items are submissions).
    """

    runs_done: int
    """Items (runs, or submissions) whose pages are all written."""
    runs_total: int
    """Items in the export."""
    pages_written: int
    """HTML pages written so far (the static files come after the last)."""
    unit: str = "run"
    """What an item is, singular: ``run`` (the viewer) or ``submission`` (the leaderboard)."""


def fraction(value: float | None, signed: bool = False) -> str:
    """An accuracy as the CLI prints it, a fraction of 1 ("—" when absent).

    One unit and one home (:func:`coordqa.analysis.stats.format_fraction`) wherever shown.

    >>> fraction(0.2534), fraction(0.012, signed=True), fraction(None), fraction(float("nan"))
    ('0.253', '+0.012', '—', '—')
    """
    from coordqa.analysis.stats import format_fraction

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return format_fraction(value, signed=signed)


def num(value: float | None, digits: int = 2) -> str:
    """A number with ``digits`` decimals ("—" when absent)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.{digits}f}"


def params(value: float | None) -> str:
    """A parameter count as 7B / 350M ("—" when unknown; :func:`coordqa.words.parameter_words`).

    >>> params(7e9), params(None)
    ('7B', '—')
    """
    return "—" if value is None else parameter_words(value)


@cache
def package_environment(package: str, **filters: Callable[..., str]) -> jinja2.Environment:
    """A Jinja2 environment on ``package``'s ``templates/``, autoescape on for every template.

    The shared templates are reachable as ``web/NAME``; the number filters (``fraction``, ``num``,
    ``params``) and ``QUESTION_TYPES`` are there for every template, plus ``filters``.
    """
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.PackageLoader(package, "templates"),
                jinja2.PrefixLoader({"web": jinja2.PackageLoader(STATIC_PACKAGE, "templates")}),
            ]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(fraction=fraction, num=num, params=params, **filters)
    env.globals["QUESTION_TYPES"] = QUESTION_TYPES
    return env


def static_packages(own: str | None = None) -> list[str | tuple[str, str]]:
    """A server's ``StaticFiles(packages=...)``: its own ``static/`` (if any), then the shared."""
    return [*([(own, "static")] if own else []), (STATIC_PACKAGE, "static")]


def write_static(root: Path, packages: Iterable[str] = (STATIC_PACKAGE,)) -> list[Path]:
    """Copy the ``static/`` files of ``packages`` into ``root/static`` (for an exported site)."""
    target_dir = root / "static"
    target_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for package in packages:
        for asset in sorted(resources.files(package).joinpath("static").iterdir(), key=str):
            target = target_dir / asset.name
            with resources.as_file(asset) as source:
                shutil.copyfile(source, target)
            written.append(target)
    return written
