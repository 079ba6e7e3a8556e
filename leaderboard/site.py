"""Static export: the whole leaderboard as plain files for a static host.

``index.html`` ranks the default dataset; ``boards/<dataset>-<game>.html`` every dataset and game;
``agentic.html`` the agentic track's default grid and ``grids/<grid>.html`` every grid;
``submissions/<id>.html`` each visible submission; ``.json`` and ``.csv`` files the data of each
board next to its page; ``static/`` the CSS and the sorting script. Hidden submissions are
left out. The pages come from the same templates and views as the live server.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from coordqa.jsonvalues import JSONObject
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.db import Database
from coordqa.leaderboard.pages import Links, render_agentic, render_index, render_submission
from coordqa.leaderboard.ranking_routes import entries_csv
from coordqa.leaderboard.views import Board, load_agentic_board, load_board, load_detail
from coordqa.outputs import BOARD_SITE, generated_output, in_output
from coordqa.web.rendering import ExportProgress, write_static

__all__ = ["export_site"]


def _entry_id(entry: JSONObject) -> int:
    """An entry row's submission id (the views write it as an integer)."""
    value = entry["id"]
    if not isinstance(value, int):
        raise TypeError(f"entry id {value!r} is not an integer")
    return value


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _boards(db: Database, catalog: BoardCatalog) -> list[tuple[str | None, str | None, Board]]:
    datasets = catalog.datasets
    default = load_board(db, datasets)
    boards: list[tuple[str | None, str | None, Board]] = [(None, None, default)]
    for dataset in datasets.values():
        whole = load_board(db, datasets, dataset=dataset.fingerprint)
        boards.append((dataset.name, None, whole))
        boards += [
            (dataset.name, game, load_board(db, datasets, dataset=dataset.fingerprint, game=game))
            for game in whole.games
        ]
    return boards


def export_site(
    db: Database,
    out: str | Path,
    progress: Callable[[ExportProgress], None] | None = None,
) -> list[Path]:
    """Write the static site into ``out`` (created if needed); returns the files written.

    ``out`` is a generated output folder (:func:`~coordqa.outputs.generated_output`): missing,
    empty or holding an earlier export of the board, which is removed first. ``progress``, if
    given, is called after each page is written, counting the submissions whose pages are
    written (``coordqa leaderboard export`` shows it on stderr, as
    ``coordqa view --export`` shows its runs).
    """
    with generated_output(out, BOARD_SITE) as root:
        return in_output(_write_site(db, root, progress), root, out)


def _write_site(
    db: Database, root: Path, progress: Callable[[ExportProgress], None] | None
) -> list[Path]:
    """Every page and data file of the board into ``root`` (checked and created).

    The boards are read first, so that the submissions they show are counted before a page is
    written.
    """
    catalog = BoardCatalog(db)
    boards = _boards(db, catalog)
    agentic_boards = [
        (grid, load_agentic_board(db, catalog.grids, grid=grid)) for grid in [None, *catalog.grids]
    ]
    shown = sorted(
        {_entry_id(entry) for *_, board in boards for entry in board.entries}
        | {_entry_id(entry) for _, agentic in agentic_boards for entry in agentic.entries}
    )
    written: list[Path] = []
    pages = 0

    def page_written(path: Path, submissions_done: int) -> None:
        nonlocal pages
        written.append(path)
        pages += 1
        if progress is not None:
            progress(ExportProgress(submissions_done, len(shown), pages, "submission"))

    for dataset, game, board in boards:
        top = dataset is None and game is None
        links = Links(static=True, prefix="" if top else "../")
        page = Path(links.home(dataset, game).removeprefix(links.prefix))
        page_written(_write(root / page, render_index(board, links)), 0)
        stem = root / page.with_suffix("")
        written.append(
            _write(Path(f"{stem}.json"), json.dumps(board.to_json(), indent=1, allow_nan=False))
        )
        written.append(_write(Path(f"{stem}.csv"), entries_csv(board)))
    for grid, agentic in agentic_boards:
        links = Links(static=True, prefix="" if grid is None else "../")
        page = root / links.agentic(grid).removeprefix(links.prefix)
        page_written(_write(page, render_agentic(agentic, links)), 0)
        written.append(
            _write(
                page.with_suffix(".json"), json.dumps(agentic.to_json(), indent=1, allow_nan=False)
            )
        )
    for done, submission_id in enumerate(shown, start=1):
        links = Links(static=True, prefix="../")
        page = root / links.submission(submission_id).removeprefix(links.prefix)
        page_written(_write(page, render_submission(load_detail(db, submission_id), links)), done)
    return written + write_static(root)
