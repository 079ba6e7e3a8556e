"""``coordqa partners``: list the neural partners, train BC/HP models, register SAD/OBL weights."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from coordqa.cli._names import game_name
from coordqa.cli._tables import print_entry

partners_app = typer.Typer(
    help="Neural partners: BC/human-proxy (Overcooked) and SAD/OBL (Hanabi).",
    no_args_is_help=True,
)

STATUS_STYLE = {"ready": "green", "needs training": "yellow", "needs weights": "yellow"}


@partners_app.command("list")
def list_command(
    name: Annotated[str | None, typer.Argument(help="Show only this partner.")] = None,
    game: Annotated[
        str | None,
        typer.Option("--game", help="Only this game's partners.", callback=game_name),
    ] = None,
) -> None:
    """List partners: game, kind, status and where their weights come from (names whole)."""
    from coordqa.agentic.partners import list_partners, partner_info

    rows = [partner_info(name)] if name else list_partners()
    if game:
        rows = [row for row in rows if row.game == game]
    console = Console()
    shared: dict[str, list[str]] = {}  # advice -> the rows it is for, said once at the end
    for row in rows:
        title = Text(row.name, style="bold")
        title.append(f"  {row.game} · {row.kind} · ")
        title.append(row.status, style=STATUS_STYLE.get(row.status, "red"))
        details = [Text(row.source)] + ([Text(row.hint, style="dim")] if row.hint else [])
        print_entry(console, title, details)
        if row.advice:
            shared.setdefault(row.advice, []).append(row.name)
    for advice, names in shared.items():
        console.print()
        print_entry(console, Text(f"{', '.join(names)}:", style="bold"), [Text(advice)])


@partners_app.command("train-bc")
def train_bc_command(
    layout: Annotated[str | None, typer.Option("--layout", help="Overcooked layout.")] = None,
    split: Annotated[
        str, typer.Option("--split", help="train -> bc-<layout>, test -> hp-<layout>.")
    ] = "train",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the split and training.")] = 0,
    all_models: Annotated[
        bool, typer.Option("--all", help="Train BC and HP on all five layouts.")
    ] = False,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace", help="Train over checkpoints of yours (runs may have played them)."
        ),
    ] = False,
) -> None:
    """Train behaviour-cloned partners from the human data shipped with overcooked-ai."""
    from coordqa.agentic.partners.bc import TrainConfig, partner_name, refuse_replacing
    from coordqa.agentic.partners.overcooked_data import LAYOUT_DATA_NAMES, SPLIT_FILES
    from coordqa.errors import ConfigError

    if all_models == (layout is not None):
        raise ConfigError("give either --layout LAYOUT (with --split) or --all")
    # After the check above, no layout means --all.
    configs = (
        [TrainConfig(lay, spl, seed) for lay in LAYOUT_DATA_NAMES for spl in SPLIT_FILES]
        if layout is None
        else [TrainConfig(layout, split, seed)]
    )
    if not replace:  # before the first of ten trainings
        refuse_replacing([partner_name(config.layout, config.split) for config in configs])
    summary = Table("partner", "samples", "epochs", "val. accuracy", "seconds")
    for config in configs:
        meta, path = _train_with_progress(config, replace)
        summary.add_row(
            meta["name"],
            str(meta["samples"]),
            f"{meta['epochs']} (best {meta['best_epoch']})",
            f"{meta['val_accuracy']:.3f}",
            f"{meta['featurise_seconds'] + meta['train_seconds']:.0f}",
        )
    Console().print(summary)
    Console().print(f"checkpoints in {path.parent}", soft_wrap=True)


def _train_with_progress(config: Any, replace: bool) -> tuple[dict[str, Any], Path]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from coordqa.agentic.partners.bc import EpochReport, partner_name, train_bc

    label = partner_name(config.layout, config.split)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
    )
    with Progress(*columns) as progress:
        task = progress.add_task(label, total=config.max_epochs, note="featurising human data")

        def report(epoch: EpochReport) -> None:
            progress.update(
                task,
                completed=epoch.epoch,
                note=f"val. loss {epoch.val_loss:.3f}, acc. {epoch.val_accuracy:.3f}",
            )

        path, meta = train_bc(config, progress=report, replace=replace)
        epochs = meta["epochs"]
        total = float(epochs) if isinstance(epochs, int | float) else None
        progress.update(task, total=total, note=f"early stop, best {meta['best_epoch']}")
    return meta, path


@partners_app.command("add-hanabi")
def add_hanabi_command(
    path: Annotated[Path, typer.Argument(help="A SAD/OBL .pthw file, or a folder of them.")],
    name: Annotated[str | None, typer.Option("--name", help="Name for a single file.")] = None,
    kind: Annotated[
        str | None, typer.Option("--kind", help="sad or obl (read from the file if omitted).")
    ] = None,
    skip_connect: Annotated[
        bool | None,
        typer.Option(
            "--skip-connect/--no-skip-connect",
            help="SAD variant with a skip connection (default: read from the path, as the "
            "authors' load_op_model does for op/<method>/M3-M5 and M9-M11).",
        ),
    ] = None,
) -> None:
    """Register the authors' SAD/OBL weights (checked by loading) so partners can use them."""
    from coordqa.agentic.partners import add_hanabi

    added = add_hanabi(path, name=name, kind=kind, skip_connect=skip_connect)
    table = Table("name", "kind", "file")
    for entry in added:
        table.add_row(entry.name, entry.kind, str(entry.path))
    Console().print(table)


@partners_app.command("remove")
def remove_command(
    name: Annotated[
        str, typer.Argument(help="A registered file's partner name, or a registered folder.")
    ],
) -> None:
    """Remove a SAD/OBL registration made by add-hanabi (the weight files stay where they are)."""
    from coordqa.agentic.partners import remove_hanabi

    removed = remove_hanabi(name)
    console = Console()
    console.print(f"removed {name}", soft_wrap=True)
    if removed:
        table = Table("name", "kind", "file", title="no longer registered")
        for entry in removed:
            table.add_row(entry.name, entry.kind, str(entry.path))
        console.print(table)


def register(app: typer.Typer) -> None:
    """Add the ``partners`` sub-app to the root app."""
    app.add_typer(partners_app, name="partners")
