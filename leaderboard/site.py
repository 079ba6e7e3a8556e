"""Static export: the whole leaderboard as plain files for a static host.

``index.html`` ranks the default dataset; ``boards/<dataset>-<game>.html`` every dataset and game;
``agentic.html`` the agentic track's default grid and ``grids/<grid>.html`` every grid;
``submissions/<id>.html`` each visible submission; ``.json`` and ``.csv`` files the data of each
board next to its page; ``static/`` the CSS and the sorting script. Hidden submissions are
left out. The pages come from the same templates and views as the live server.
"""

from __future__ import annotations

import json
from pathlib import Path

from coordqa.jsonvalues import JSONObject
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.db import Database
from coordqa.leaderboard.pages import Links, render_agentic, render_index, render_submission
from coordqa.leaderboard.ranking_routes import entries_csv
from coordqa.leaderboard.views import Board, load_agentic_board, load_board, load_detail
from coordqa.outputs import BOARD_SITE, generated_output, in_output
from coordqa.web.rendering import write_static

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


def export_site(db: Database, out: str | Path) -> list[Path]:
    """Write the static site into ``out`` (created if needed); returns the files written.

    ``out`` is a generated output folder (:func:`~coordqa.outputs.generated_output`): missing,
    empty or holding an earlier export of the board, which is removed first.
    """
    with generated_output(out, BOARD_SITE) as root:
        return in_output(_write_site(db, root), root, out)


def _write_site(db: Database, root: Path) -> list[Path]:
    """Every page and data file of the board into ``root`` (checked and created)."""
    catalog = BoardCatalog(db)
    written: list[Path] = []
    shown: set[int] = set()
    for dataset, game, board in _boards(db, catalog):
        top = dataset is None and game is None
        links = Links(static=True, prefix="" if top else "../")
        page = Path(links.home(dataset, game).removeprefix(links.prefix))
        written.append(_write(root / page, render_index(board, links)))
        stem = root / page.with_suffix("")
        written.append(
            _write(Path(f"{stem}.json"), json.dumps(board.to_json(), indent=1, allow_nan=False))
        )
        written.append(_write(Path(f"{stem}.csv"), entries_csv(board)))
        shown.update(_entry_id(entry) for entry in board.entries)
    for grid in [None, *catalog.grids]:
        agentic = load_agentic_board(db, catalog.grids, grid=grid)
        links = Links(static=True, prefix="" if grid is None else "../")
        page = root / links.agentic(grid).removeprefix(links.prefix)
        written.append(_write(page, render_agentic(agentic, links)))
        written.append(
            _write(
                page.with_suffix(".json"), json.dumps(agentic.to_json(), indent=1, allow_nan=False)
            )
        )
        shown.update(_entry_id(entry) for entry in agentic.entries)
    for submission_id in sorted(shown):
        links = Links(static=True, prefix="../")
        page = root / links.submission(submission_id).removeprefix(links.prefix)
        written.append(_write(page, render_submission(load_detail(db, submission_id), links)))
    return written + write_static(root)
