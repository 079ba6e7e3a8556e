"""``coordqa dataset ...``: commands that make and inspect CoordinationQA dataset folders.

Commands live on the :data:`dataset_app` sub-app; each calls one library function and renders
the written folder with :func:`print_dataset_summary`, so every command that writes a dataset
reports it the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from coordqa.cli._errors import INTERRUPTED_EXIT, messages
from coordqa.cli._names import game_name
from coordqa.cli._outputs import output_folder
from coordqa.cli._tables import new_table, number_column
from coordqa.errors import ConfigError
from coordqa.words import counted

console = Console()

DatasetPath = Annotated[
    str | None,
    typer.Argument(
        help="A bundled dataset's name (`coordqa dataset list` shows them), or a folder or file "
        "(default: the newest bundled CoordinationQA)."
    ),
]
"""The optional dataset argument that ``validate``, ``stats`` and ``push`` share."""

DatasetOption = Annotated[
    str | None,
    typer.Option(
        "--dataset",
        help="The same as the DATASET argument, spelled as `coordqa eval --dataset` takes it.",
    ),
]
"""``--dataset NAME``: what users type by analogy with eval and report."""

OverwriteOption = Annotated[
    bool, typer.Option("--overwrite", help="Replace a dataset already in --out.")
]
"""``--overwrite``: every command that writes a dataset folder replaces one only with it
(:func:`_refuse_overwrite`)."""


def chosen_dataset(path: str | None, dataset: str | None) -> str | None:
    """The dataset named by the argument or by ``--dataset`` (the same one when both are given).

    Raises:
        ConfigError: two different datasets.
    """
    if path is not None and dataset is not None and path != dataset:
        raise ConfigError(
            f"two datasets given: {path!r} and --dataset {dataset}; name one of them, "
            "either as the argument or with --dataset"
        )
    return dataset if path is None else path


dataset_app = typer.Typer(
    name="dataset",
    help="List, import, build and inspect CoordinationQA datasets.",
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
    console.print(f"{counted(len(rows), 'question')} written to {folder}", soft_wrap=True)
    console.print(f"fingerprint {dataset_fingerprint(rows)}")


def _refuse_overwrite(out: Path, overwrite: bool) -> None:
    """Refuse, before any work, a --out that holds other files, or a dataset without --overwrite."""
    from coordqa.dataset import DATA_FILE, check_dataset_folder

    check_dataset_folder(out, "--out")
    if (out / DATA_FILE).exists() and not overwrite:
        raise ConfigError(
            f"{out / DATA_FILE} already exists; pass --overwrite to replace it or choose another "
            f"--out folder"
        )


def _folder_state(folder: Path) -> dict[str, tuple[int, int]] | None:
    """Each file under ``folder`` with its size and change time; None when there is no folder."""
    if not folder.is_dir():
        return None
    state = {}
    for path in folder.rglob("*"):
        if path.is_file():
            stat = path.stat()
            state[str(path.relative_to(folder))] = (stat.st_size, stat.st_mtime_ns)
    return state


@contextmanager
def _interruptible(out: Path) -> Iterator[None]:
    """Ctrl-C ends a dataset writer with one line saying whether ``out`` was touched.

    The writers make and check every question before writing any file, so an interruption
    usually leaves ``out`` as it was; said only after comparing, since one between two files
    leaves it partly written (walkthrough 20, R5: it ended silently, exit 130).
    """
    before = _folder_state(out)
    try:
        yield
    except KeyboardInterrupt:
        if _folder_state(out) == before:
            said = f"interrupted: nothing was written to {out}"
        else:
            said = (
                f"interrupted while writing {out}: it may be incomplete; run the command again "
                "with --overwrite"
            )
        messages.print(Text(said, style="yellow"), highlight=False)
        raise typer.Exit(INTERRUPTED_EXIT) from None


@dataset_app.command("list")
def list_command() -> None:
    """List the bundled datasets: --dataset names, versions, question counts, fingerprints."""
    from coordqa.dataset import (
        ALIASES,
        DEFAULT_DATASET,
        QUESTION_TYPES,
        RELEASES,
        dataset_identity,
        load_rows,
        question_counts,
    )

    table = new_table("bundled datasets (--dataset NAME)")
    table.add_column("name", no_wrap=True)
    for header in ("version", "qs", *QUESTION_TYPES, "games"):
        number_column(table, header)
    table.add_column("fingerprint", no_wrap=True)
    for release in RELEASES:
        rows = load_rows(release.name)
        by_game = question_counts(rows)
        per_type = [sum(counts[kind] for counts in by_game.values()) for kind in QUESTION_TYPES]
        identity = dataset_identity(release.name, rows)  # the version runs and the board show
        table.add_row(
            release.name,
            identity.version or "-",
            str(identity.num_questions),
            *map(str, per_type),
            str(len(by_game)),
            identity.fingerprint[:12],
        )
    aliases = "".join(f", also called {a}" for a, to in ALIASES.items() if to == DEFAULT_DATASET)
    table.caption = (
        f"default: {DEFAULT_DATASET}{aliases}. A dataset folder, .parquet or .jsonl file works "
        "too; `coordqa dataset stats NAME` counts per game."
    )
    console.print(table)


@dataset_app.command("import-upstream")
def import_upstream_command(
    source: Annotated[
        str,
        typer.Argument(help="Path or http(s) URL of the LLM-Coordination CoordinationQA CSV."),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Folder to write (data.parquet and README.md).",
            callback=output_folder,
        ),
    ],
    overwrite: OverwriteOption = False,
) -> None:
    """Convert the original LLM-Coordination CSV into a coordqa dataset folder.

    Each CSV row (one scenario) gives three questions, EC, ToM and JP; the folder can then be
    passed to coordqa eval --dataset. Options are imported by position; questions with irregular
    letters are flagged in their tags, and each question whose gold letter cannot be mapped to one
    option is kept without an answer key and printed as a warning (also listed in the card).
    """
    from coordqa.scenarios.upstream import FLAGS, import_upstream

    _refuse_overwrite(out, overwrite)
    with _interruptible(out):
        result = import_upstream(source, out)
    print_dataset_summary(result.folder, "Imported from LLM-Coordination")
    flagged = result.conversion.flagged
    for tag in FLAGS:
        ids = [qid for qid, tags in flagged.items() if tag in tags]
        if ids:
            console.print(f"{tag}: {len(ids)} question(s): {', '.join(ids)}", highlight=False)
    for finding in result.conversion.notes:
        console.print(f"note: {finding}", highlight=False, markup=False)
    for finding in result.conversion.warnings:
        console.print(f"[yellow]warning[/]: {escape(str(finding))}", highlight=False)
    warnings = len(result.conversion.warnings)
    console.print(
        f"{warnings} warning(s); they are also listed in {result.folder / 'README.md'}",
        soft_wrap=True,
    )


@dataset_app.command("build")
def build_command(
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder to write.", callback=output_folder),
    ] = None,
    in_place: Annotated[
        bool,
        typer.Option(
            "--in-place",
            help="For maintainers: rewrite the release bundled in the package (a source tree).",
        ),
    ] = False,
    overwrite: OverwriteOption = False,
) -> None:
    """Rebuild the current CoordinationQA release from the curated scenarios (byte-identical).

    Writes to --out; only --in-place writes into the package's own data folder.
    """
    from coordqa.dataset import release
    from coordqa.scenarios import build_dataset

    if (out is None) == (not in_place):
        raise ConfigError(
            "coordqa dataset build writes to --out FOLDER; --in-place (for maintainers, in a "
            "source checkout) rewrites the dataset bundled in the package instead. Give one of "
            "the two."
        )
    if out is None:
        folder = build_dataset(None)
    else:
        _refuse_overwrite(out, overwrite)
        with _interruptible(out):
            folder = build_dataset(out)
    print_dataset_summary(folder, release().title)


@dataset_app.command("validate")
def validate_command(
    path: DatasetPath = None,
    dataset: DatasetOption = None,
) -> None:
    """Re-render every question from its snapshot and re-run every solver; fail on any mismatch.

    Then checks that the texts say what the keys assume (directive, Hanabi card knowledge,
    history against the stated partner model, Overcooked ties, undefined names). A frozen
    release (coordinationqa-v1, -v1.1) must match its pinned fingerprint, and each question must
    re-solve or be listed as changed or removed in a later release's changelog.
    """
    from coordqa.scenarios import validate_dataset

    report = validate_dataset(chosen_dataset(path, dataset))
    if report.frozen is None:
        console.print(
            f"[green]ok[/]: {counted(report.resolved, 'question')} re-rendered and re-solved, "
            "no mismatch"
        )
        if report.checks:
            console.print(
                f"their texts say what the keys assume: {', '.join(report.checks)} checked "
                "(coordqa.scenarios.consistency)",
                highlight=False,
            )
        if report.skipped:
            console.print(
                f"{len(report.skipped)} of the {report.checked} questions are hand-written, "
                "without a game snapshot: there is no state to re-render or re-solve, so only "
                "their structure (ids, options, answer keys) was checked"
            )
        return
    console.print(
        f"[green]ok[/]: {report.frozen.name} is the frozen release as shipped (fingerprint "
        f"{report.frozen.frozen_fingerprint}); {report.resolved} of {report.checked} questions "
        f"re-rendered and re-solved with no mismatch; the other {len(report.superseded)} are "
        f"listed as changed or removed in {report.changelogs_named}"
    )


@dataset_app.command("stats")
def stats_command(
    path: DatasetPath = None,
    dataset: DatasetOption = None,
) -> None:
    """Counts per game and type, option counts, answer positions and the random baseline."""
    from coordqa.dataset import dataset_identity, load_rows
    from coordqa.scenarios import dataset_stats

    chosen = chosen_dataset(path, dataset)
    rows = load_rows(chosen)
    identity = dataset_identity(chosen, rows)  # named as runs name it (walkthrough 23)
    console.print(
        f"{identity.label}: {counted(identity.num_questions, 'question')}",
        highlight=False,
        soft_wrap=True,
    )
    stats = dataset_stats(rows)
    for title, frame in (
        ("questions per game and type", stats.counts),
        ("questions per number of options", stats.option_counts),
        ("correct answers per option position", stats.correct_positions),
        ("random-baseline accuracy per type", stats.random_baseline.to_frame("accuracy")),
        ("EC answers printed verbatim in the state, per kind", stats.ec_verbatim),
    ):
        table = Table(title=title)
        table.add_column(str(frame.index.name or ""))
        for column in frame.columns:
            table.add_column(str(column), justify="right")
        for index, values in frame.iterrows():
            label = " / ".join(map(str, index)) if isinstance(index, tuple) else str(index)
            table.add_row(label, *(_cell(value) for value in values))
        console.print(table)


def _cell(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


@dataset_app.command("generate")
def generate_command(
    game: Annotated[str, typer.Option(help="Game to generate scenarios for.", callback=game_name)],
    count: Annotated[int, typer.Option(help="Number of scenarios (3 questions each).")],
    seed: Annotated[int, typer.Option(help="First seed of the search.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder to write.", callback=output_folder)
    ],
    overwrite: OverwriteOption = False,
) -> None:
    """Fresh verified scenarios from new seeds, for contamination-free re-testing."""
    from coordqa.scenarios import generate_dataset

    _refuse_overwrite(out, overwrite)
    with _interruptible(out):
        folder = generate_dataset(game, count, seed, out)
    print_dataset_summary(folder, f"Fresh {game} scenarios (seed {seed})")


@dataset_app.command("push")
def push_command(
    repo: Annotated[str, typer.Option(help="Hugging Face dataset repository, ORG/NAME.")],
    path: DatasetPath = None,
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset",
            "--path",
            help="The same as the DATASET argument, as `validate` and `stats` take it "
            "(--path: its earlier name).",
        ),
    ] = None,
    private: Annotated[bool, typer.Option(help="Create the repository as private.")] = False,
) -> None:
    """Publish a dataset to the Hugging Face Hub (needs HF_TOKEN or a saved login).

    The dataset is named as `validate` and `stats` name it: the argument (`coordqa dataset push
    fresh/ --repo ORG/NAME`) or --dataset.
    """
    from coordqa.hub import push_dataset

    url = push_dataset(chosen_dataset(path, dataset), repo, private=private)
    console.print(f"published to {url}", soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add the ``dataset`` command group to the root app."""
    app.add_typer(dataset_app, name="dataset")
