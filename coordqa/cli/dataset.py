"""``coordqa dataset ...``: commands that make and inspect CoordinationQA dataset folders.

Commands live on the :data:`dataset_app` sub-app; each calls one library function and renders
the written folder with :func:`print_dataset_summary`, so every command that writes a dataset
reports it the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from coordqa.errors import ConfigError

console = Console()

dataset_app = typer.Typer(
    name="dataset",
    help="Import, build and inspect CoordinationQA datasets.",
    no_args_is_help=True,
)


def print_dataset_summary(folder: Path, title: str) -> None:
    """Print where a dataset folder is, its questions per game and type, and its fingerprint."""
    from coordqa.dataset import QUESTION_TYPES, dataset_fingerprint, load_rows, question_counts

    rows = load_rows(folder)
    table = Table(title=title)
    table.add_column("game")
    for kind in QUESTION_TYPES:
        table.add_column(kind, justify="right")
    table.add_column("total", justify="right")
    for game, by_type in question_counts(rows).items():
        table.add_row(game, *map(str, by_type.values()), str(sum(by_type.values())))
    console.print(table)
    console.print(f"{len(rows)} questions written to {folder}")
    console.print(f"fingerprint {dataset_fingerprint(rows)}")


def _refuse_overwrite(out: Path, overwrite: bool) -> None:
    from coordqa.dataset import DATA_FILE

    if (out / DATA_FILE).exists() and not overwrite:
        raise ConfigError(
            f"{out / DATA_FILE} already exists; pass --overwrite to replace it or choose another "
            f"--out folder"
        )


@dataset_app.command("import-upstream")
def import_upstream_command(
    source: Annotated[
        str,
        typer.Argument(help="Path or http(s) URL of the LLM-Coordination CoordinationQA CSV."),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder to write (data.parquet and README.md).")
    ],
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace a dataset already in --out.")
    ] = False,
) -> None:
    """Convert the original LLM-Coordination CSV into a coordqa dataset folder.

    Each CSV row (one scenario) gives three questions, EC, ToM and JP; the folder can then be
    passed to coordqa eval --dataset.
    """
    from coordqa.upstream import import_upstream

    _refuse_overwrite(out, overwrite)
    folder = import_upstream(source, out)
    print_dataset_summary(folder, "Imported from LLM-Coordination")


def register(app: typer.Typer) -> None:
    """Add the ``dataset`` command group to the root app."""
    app.add_typer(dataset_app, name="dataset")
