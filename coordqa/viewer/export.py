"""Static export: every page of the viewer as an HTML file, to share without a server.

Layout of the export (links between pages are relative, so the folder can be moved, zipped or
opened from disk)::

    index.html                              the runs
    compare.html                            the QA runs side by side (two or more)
    runs/<run>/index.html                   a run's summary or episode list
    runs/<run>/samples.html                 the sample table (filters work in the page)
    runs/<run>/samples/<n>.html             one sample
    runs/<run>/episodes/<n>.html            one episode
    runs/<run>/episodes/<n>/steps/<s>.html  one step
    static/                                 the stylesheets and the script

The pages come from the same templates and page functions as the live viewer.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

from coordqa.errors import ExportFailed
from coordqa.outputs import RUN_PAGES, generated_output, in_output
from coordqa.viewer import pages
from coordqa.viewer.runs import RunCatalog
from coordqa.web.rendering import STATIC_PACKAGE, ExportProgress, write_static

__all__ = ["ExportProgress", "export_site"]

STATIC_PACKAGES = ("coordqa.viewer", STATIC_PACKAGE)
"""Packages whose ``static/`` folder the pages use (the viewer's own, and the shared stylesheet
and table sorter of :mod:`coordqa.web`)."""

Page = tuple[str, Callable[[pages.Links], str]]
"""A page of the export: its path from the root and how to render it with its links."""


def _qa_pages(catalog: RunCatalog, run_id: str) -> Iterator[Page]:
    yield f"runs/{run_id}/samples.html", partial(pages.samples_page, catalog, run_id)
    for n in range(len(catalog.qa(run_id).rows)):
        yield f"runs/{run_id}/samples/{n}.html", partial(pages.sample_page, catalog, run_id, n)


def _agentic_pages(catalog: RunCatalog, run_id: str) -> Iterator[Page]:
    view = catalog.agentic(run_id)
    for e in range(len(view.rows)):
        yield f"runs/{run_id}/episodes/{e}.html", partial(pages.episode_page, catalog, run_id, e)
        for s in range(view.episode(e).steps):
            yield (
                f"runs/{run_id}/episodes/{e}/steps/{s}.html",
                partial(pages.step_page, catalog, run_id, e, s),
            )


def _site_pages(catalog: RunCatalog) -> Iterator[Page]:
    yield "index.html", partial(pages.index_page, catalog)
    if len(catalog.qa_entries) > 1:
        yield "compare.html", partial(pages.compare_page, catalog)


def _run_pages(catalog: RunCatalog, run_id: str, kind: str) -> Iterator[Page]:
    yield f"runs/{run_id}/index.html", partial(pages.run_page, catalog, run_id)
    if kind == "qa":
        yield from _qa_pages(catalog, run_id)
    else:
        yield from _agentic_pages(catalog, run_id)


def export_site(
    catalog: RunCatalog,
    out: str | os.PathLike[str],
    progress: Callable[[ExportProgress], None] | None = None,
) -> list[Path]:
    """Write every page of ``catalog``'s runs into ``out`` (created if needed).

    ``out`` is a generated output folder (:func:`~coordqa.outputs.generated_output`): missing,
    empty or holding an earlier export, which is removed first. ``progress``, if given, is
    called after each page is written, and once more when every run's pages are
    (``coordqa view --export`` shows it on stderr: thousands of pages take minutes).

    Returns:
        The files written.

    Raises:
        ExportFailed: a page did not render; the files written before it are removed.
    """
    total = len(catalog.entries)
    with generated_output(out, RUN_PAGES) as root:
        written: list[Path] = []

        def write(site_pages: Iterable[Page], runs_done: int) -> None:
            for page, render in site_pages:
                text = _rendered(page, render)
                path = root / page
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                written.append(path)
                if progress is not None:
                    progress(ExportProgress(runs_done, total, len(written)))

        write(_site_pages(catalog), 0)
        for done, entry in enumerate(catalog.entries):
            write(_run_pages(catalog, entry.id, entry.kind), done)
        if progress is not None:
            progress(ExportProgress(total, total, len(written)))
        return in_output(written + write_static(root, STATIC_PACKAGES), root, out)


def _rendered(page: str, render: Callable[[pages.Links], str]) -> str:
    """The HTML of ``page``; a page that fails to render is one line naming it and its cause."""
    try:
        return render(pages.Links(static=True, page=page))
    except Exception as exc:
        cause = " ".join(str(exc).split()) or "no message"
        raise ExportFailed(
            f"page {page} could not be rendered ({type(exc).__name__}: {cause}), so nothing was "
            "exported: a bug in coordqa, please report it; coordqa view without --export shows "
            "the other pages"
        ) from exc
