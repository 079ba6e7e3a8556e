"""Rich tables of the commands, shaped to fit an 80-column terminal.

Numbers never wrap (``no_wrap``); long names fold onto several lines; tables have no vertical
borders (:data:`BOX`), so an accuracy table of the four games stays within 80 columns. A table
of cells too wide for that (the agentic report's ``mean ± SE [95% CI] n=N`` cells, several to a
row) is shown long instead (:func:`long_if_wide`): one row per key and measure.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    import pandas as pd

    from coordqa.analysis import AccuracyTable

BOX = box.SIMPLE_HEAD
"""The box of every QA table: a rule under the header, no vertical borders."""

STATISTICS_CAPTION = "± SE: trial SE (the paper's); 95% CI: question-level bootstrap"
"""Says which uncertainty is which, under every accuracy table."""

_HEADERS = {"question_type": "type", "game": "game", "scope": "type"}
_COUNTS = {"ambiguous": "amb", "no_answer": "none", "error": "err"}


def new_table(title: str, caption: str = "") -> Table:
    """An empty table in the QA commands' style."""
    return Table(title=title, caption=caption or None, box=BOX, caption_justify="left")


def number_column(table: Table, header: str) -> None:
    """Add a right-aligned column whose cells never wrap."""
    table.add_column(header, justify="right", no_wrap=True)


def name_column(table: Table, header: str, max_width: int | None = None) -> None:
    """Add a column for names that may fold onto several lines."""
    table.add_column(header, overflow="fold", max_width=max_width)


WIDTH = 80
"""The terminal width tables are shaped for."""


def rendered_width(frame: pd.DataFrame) -> int:
    """How wide ``frame`` prints as a :data:`BOX` table, unfolded: its widest cells, padding."""
    widths = [
        max([len(str(column)), *(len(str(value)) for value in frame[column])])
        for column in frame.columns
    ]
    return sum(widths) + 3 * len(widths) + 2


def long_if_wide(frame: pd.DataFrame, keys: Sequence[str], width: int = WIDTH) -> pd.DataFrame:
    """``frame`` as it is when it fits ``width`` columns, else one row per key and measure.

    ``keys`` are the columns that name a row (label, partner, game...); every other column is a
    measure. The long form has the keys, ``measure`` (the column's header) and ``value``, rows
    in the frame's order with measures in column order, and leaves out blank cells (a measure
    that does not apply).
    """
    import pandas as pd

    if rendered_width(frame) <= width:
        return frame
    named = [key for key in keys if key in frame.columns]
    measures = [column for column in frame.columns if column not in named]
    rows = [
        {**{key: row[key] for key in named}, "measure": str(measure), "value": row[measure]}
        for _, row in frame.iterrows()
        for measure in measures
        if str(row[measure]) != ""
    ]
    return pd.DataFrame(rows, columns=[*named, "measure", "value"])


def frame_table(title: str, frame: pd.DataFrame, keys: Sequence[str], caption: str = "") -> Table:
    """A report table: its ``keys`` fold, every other cell never wraps.

    The long form of :func:`long_if_wide` is one column, laid out here within :data:`WIDTH`:
    each row's keys once, in bold on lines of their own at the table's whole width (``label /
    game`` heads it, ``value`` on the right), then its measures indented, one a line, with
    their values on the right (:func:`_measure_lines`).
    """
    out = new_table(title, caption)
    out.min_width = min(WIDTH, len(title))
    named = [column for column in frame.columns if column in keys]
    if "measure" not in frame.columns:
        for column in frame.columns:
            (name_column if column in named else number_column)(out, str(column))
        for row in frame.itertuples(index=False):
            out.add_row(*(Text(str(value)) for value in row))
        return out
    header = " / ".join(named)
    labels = [" / ".join(str(row[key]) for key in named) for _, row in frame.iterrows()]
    widest = max((len(str(measure)) for measure in frame["measure"]), default=0)
    needed = [
        len(header) + 2 + len("value"),
        *(len(names) for names in labels),
        *(len(_INDENT) + widest + 2 + len(str(value)) for value in frame["value"]),
    ]
    width = min(WIDTH - 4, max(needed))  # one column's padding and edges
    out.add_column(Text(header + "value".rjust(width - len(header))), overflow="fold")
    previous = None
    for names, (_, row) in zip(labels, frame.iterrows(), strict=True):
        if names != previous:
            out.add_row(Text(names, style="bold"))
        out.add_row(
            Text("\n".join(_measure_lines(str(row["measure"]), str(row["value"]), widest, width)))
        )
        previous = names
    return out


_INDENT = "  "
"""How far a measure is indented under its row's keys in a long table."""


def _measure_lines(measure: str, value: str, widest: int, width: int) -> list[str]:
    """A measure and its value on lines of ``width``: the measure left, the value right.

    A value too long for the room beside the longest measure breaks between the cells it
    joins (``cell / cell``, the seats of a cross-play row), each line still on the right, so a
    ``mean ± SE [95% CI] n=N`` cell is never cut; a text (a hypothesis) wraps between words
    from the value's column, left-aligned.
    """
    offset = len(_INDENT) + widest + 2
    room = max(20, width - offset)
    head = f"{_INDENT}{measure}"
    if len(value) <= room:
        return [head + value.rjust(width - len(head))]
    cells = value.split(" / ")
    if len(cells) == 1 or any(len(cell) + 2 > room for cell in cells):
        wrapped = textwrap.wrap(value, room, break_long_words=False)
        return [f"{head if n == 0 else '':<{offset}}{line}" for n, line in enumerate(wrapped)]
    lines = [cells[0]]
    for cell in cells[1:]:
        if len(lines[-1]) + 3 + len(cell) + 2 <= room:
            lines[-1] += f" / {cell}"
        else:
            lines[-1] += " /"
            lines.append(cell)
    return [head + lines[0].rjust(width - len(head)), *(line.rjust(width) for line in lines[1:])]


def rich_accuracy_table(
    title: str,
    table: AccuracyTable,
    keys: list[str],
    *,
    complete: bool = True,
    overall: AccuracyTable | None = None,
) -> Table:
    """An analysis table: accuracy ± trial SE, question-level 95% CI, baseline and counts.

    ``amb``/``none``/``err`` count ambiguous, no-answer and error samples (the first two only
    in one-key tables, to stay within 80 columns); ``qs`` is the number of questions. An
    incomplete run's accuracies carry the incomplete mark, explained in the caption. ``overall``
    (the one-row table of all questions) closes the table as its ``overall`` row.
    """
    from coordqa.analysis.accuracy import (
        INCOMPLETE_NOTE,
        format_accuracy,
        format_interval,
        trials_note,
    )
    from coordqa.analysis.stats import format_fraction

    trials = sorted({int(row["n_trials"]) for row in table})
    scored = f"{trials[0]}" if len(trials) == 1 else f"{trials[0]} to {trials[-1]}"
    caption = f"{STATISTICS_CAPTION}; trials scored per row: {scored}"
    if note := trials_note(trials[0]):
        caption += f" ({note})"
    out = new_table(title, caption if complete else f"{caption}\n{INCOMPLETE_NOTE}")
    for key in keys:
        out.add_column(_HEADERS.get(key, key), no_wrap=True)
    for header in ("acc ± SE", "95% CI", "random", "qs"):
        number_column(out, header)
    counts = list(_COUNTS) if len(keys) == 1 else ["error"]
    for status in counts:
        number_column(out, _COUNTS[status])
    rows = list(table)
    totals = [] if overall is None else list(overall)
    for number, row in enumerate([*rows, *totals]):
        names = (
            [str(row[k]) for k in keys]
            if number < len(rows)
            else ["overall"] + [""] * (len(keys) - 1)
        )
        out.add_row(
            *names,
            format_accuracy(
                row["accuracy"], row["se"], complete=complete, trials=int(row["n_trials"])
            ),
            format_interval(row["ci_low"], row["ci_high"]),
            format_fraction(row["random_baseline"]),
            str(int(row["n_questions"])),
            *[str(int(row[s])) for s in counts],
            end_section=number == len(rows) - 1 and bool(totals),
        )
    return out


def print_entry(console: Console, title: Text, details: list[Text]) -> None:
    """One entry of a list of things to type (a game, a partner): its name, then indented lines.

    Lines wrap between words, never inside a name (nor at its hyphens), so every name in them
    can be copied whole from an 80-column terminal; a table cell would cut or fold them.
    """
    console.print(title, soft_wrap=True)
    for detail in details:
        wrapped = textwrap.wrap(
            detail.plain,
            width=max(20, console.width - 4),
            break_long_words=False,
            break_on_hyphens=False,
        )
        for line in wrapped:
            console.print(Text(f"    {line}", style=detail.style), soft_wrap=True)
