"""HTML rendering with Jinja2, shared by the live viewer and the static export.

Templates are autoescaped: every string a model wrote (replies, hypotheses, plans) and every
string of a run (question texts, ids, paths) is shown as text, never as markup. :class:`Links` is
the only difference between the two uses: the server links to routes, the export to files.
The stylesheet and table sorter of :mod:`coordqa.web` are shared with the leaderboard; the
viewer adds its own and one script file (no
inline script, so the pages run under a strict Content-Security-Policy).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from coordqa.analysis.accuracy import ERROR_POLICY, INCOMPLETE_MARK, INCOMPLETE_NOTE
from coordqa.analysis.groups import NOT_COMPARABLE
from coordqa.analysis.labels import run_labels
from coordqa.analysis.report import (
    CORRELATION_NOTE,
    PAIRED_NOTE,
    STATISTICS_NOTE,
    format_p,
)
from coordqa.dataset import version_words
from coordqa.records import STATUSES
from coordqa.store import open_run
from coordqa.viewer.qa import SAMPLE_OUTCOMES, SampleFilter, sort_rows
from coordqa.viewer.runs import RunCatalog
from coordqa.web.rendering import package_environment
from coordqa.words import capitalised

if TYPE_CHECKING:
    from coordqa.analysis import AccuracyTable

__all__ = [
    "Links",
    "agentic_run_page",
    "compare_page",
    "error_page",
    "episode_page",
    "index_page",
    "qa_run_page",
    "render",
    "run_page",
    "sample_page",
    "samples_page",
    "step_page",
]


@dataclass(frozen=True)
class Links:
    """How pages link to each other: server routes, or files of the export."""

    static: bool = False
    """True for the exported copy."""
    page: str = ""
    """Path of the current page from the site root, in the export (``runs/x/index.html``)."""

    def _to(self, route: str, file: str, query: dict[str, str] | None = None) -> str:
        search = {k: v for k, v in (query or {}).items() if v}
        suffix = f"?{urlencode(search)}" if search else ""
        if not self.static:
            return route + suffix
        return posixpath.relpath(file, posixpath.dirname(self.page) or ".") + suffix

    def home(self) -> str:
        """The list of runs."""
        return self._to("/", "index.html")

    def compare(self) -> str:
        """The comparison of the QA runs."""
        return self._to("/compare", "compare.html")

    def run(self, run_id: str) -> str:
        """A run's summary (QA) or episode list (agentic)."""
        return self._to(f"/runs/{run_id}/", f"runs/{run_id}/index.html")

    def samples(self, run_id: str, **query: str) -> str:
        """A QA run's sample table, with filters and sorting as query parameters."""
        return self._to(f"/runs/{run_id}/samples", f"runs/{run_id}/samples.html", query)

    def sample(self, run_id: str, number: int) -> str:
        """One sample's page."""
        return self._to(f"/runs/{run_id}/samples/{number}", f"runs/{run_id}/samples/{number}.html")

    def episode(self, run_id: str, number: int) -> str:
        """One episode's page."""
        return self._to(
            f"/runs/{run_id}/episodes/{number}", f"runs/{run_id}/episodes/{number}.html"
        )

    def step(self, run_id: str, episode: int, step: int) -> str:
        """One step of an episode."""
        return self._to(
            f"/runs/{run_id}/episodes/{episode}/steps/{step}",
            f"runs/{run_id}/episodes/{episode}/steps/{step}.html",
        )

    def asset(self, name: str) -> str:
        """A file of the stylesheets and scripts."""
        return self._to(f"/static/{name}", f"static/{name}")

    def at(self, page: str) -> Links:
        """The links of the exported page ``page`` (the live links do not depend on the page)."""
        return Links(self.static, page)


def plain(markdown: str) -> str:
    """A note written for Markdown as plain text (code and bold marks dropped).

    >>> plain("`± SE` is **the** trial SE")
    '± SE is the trial SE'
    """
    return markdown.replace("**", "").replace("`", "")


def seconds(value: float | None) -> str:
    """A duration with three significant digits, in ms below a second ("—" when absent).

    >>> seconds(0.0000877), seconds(2.5)
    ('0.0877 ms', '2.5 s')
    """
    if value is None:
        return "—"
    return f"{value * 1000:.3g} ms" if value < 1 else f"{value:.3g} s"


def render(template: str, links: Links, **context: Any) -> str:
    """Render ``template`` with ``links`` and ``context`` (:mod:`coordqa.web`'s Jinja2 settings)."""
    env = package_environment(
        "coordqa.viewer", seconds=seconds, p_value=format_p, version_words=version_words
    )
    return env.get_template(template).render(links=links, **context)


# -- the pages ---------------------------------------------------------------------------------


def error_page(status: int, title: str, message: str, links: Links) -> str:
    """A refusal (an unknown run, a bad parameter) as a page: its words and a link to the runs."""
    return render("error.html", links, status=status, title=title, message=message)


NOTES = {
    "statistics_note": plain(STATISTICS_NOTE),
    "paired_note": plain(PAIRED_NOTE),
    "correlation_note": plain(CORRELATION_NOTE),
    "not_comparable": NOT_COMPARABLE.capitalize(),
    "incomplete_note": plain(INCOMPLETE_NOTE),
    "error_policy": ERROR_POLICY.capitalize(),
}
"""How :mod:`coordqa.analysis` explains its numbers, in the words ``coordqa report`` uses."""


def _with_samples(table: AccuracyTable) -> list[dict[str, Any]]:
    """An accuracy table's rows with ``samples``: the (question, trial) pairs stored.

    Whatever their outcome; ``correct`` counts samples too, so it is shown beside them.
    """
    return [{**row, "samples": sum(row[status] for status in STATUSES)} for row in table]


def index_page(catalog: RunCatalog, links: Links) -> str:
    """The list of runs."""
    runs = [{"entry": e, "manifest": open_run(e.path).manifest} for e in catalog.entries]
    qa_runs = len(catalog.qa_entries)
    empty = catalog.empty_note()
    return render(
        "index.html",
        links,
        runs=runs,
        empty=f"{capitalised(empty)}." if empty else None,
        unreadable=catalog.unreadable,
        not_shown=catalog.not_shown_note(),
        compare=qa_runs if qa_runs > 1 else 0,
    )


def qa_run_page(catalog: RunCatalog, run_id: str, links: Links) -> str:
    """A QA run's summary: accuracy tables, outcome counts and the manifest."""
    view = catalog.qa(run_id)
    analysis = view.analysis
    mark = "" if analysis.complete else INCOMPLETE_MARK
    by_game_type = {(row["game"], row["question_type"]): row for row in analysis.by_game_type}
    return render(
        "qa_run.html",
        links,
        entry=catalog.get(run_id),
        manifest=view.manifest,
        warnings=analysis.warnings,
        status_note=analysis.status_note,
        mark=mark,
        **NOTES,
        by_type=_with_samples(analysis.by_type),
        overall=_with_samples(analysis.overall)[0],
        by_game_type=by_game_type,
        games=view.games,
        types=view.types,
        counts=view.outcome_counts(),
        total=len(view.rows),
    )


def samples_page(
    catalog: RunCatalog,
    run_id: str,
    links: Links,
    where: SampleFilter = SampleFilter(),  # noqa: B008 - frozen, never mutated
    sort: str = "number",
    descending: bool = False,
) -> str:
    """A QA run's sample table: every row, those failing ``where`` hidden."""
    view = catalog.qa(run_id)
    rows = sort_rows(view.rows, sort, descending)
    return render(
        "qa_samples.html",
        links,
        entry=catalog.get(run_id),
        rows=rows,
        where=where,
        shown=sum(where.matches(r) for r in rows),
        games=view.games,
        types=view.types,
        outcomes=SAMPLE_OUTCOMES,
    )


def sample_page(catalog: RunCatalog, run_id: str, number: int, links: Links) -> str:
    """One sample: prompt, reply with its deciding span, options, rationale, usage."""
    detail = catalog.qa(run_id).detail(number, catalog.rationales(run_id))
    return render("qa_sample.html", links, entry=catalog.get(run_id), d=detail)


def compare_page(catalog: RunCatalog, links: Links) -> str:
    """The QA runs side by side, one section per question set (runs compared within theirs)."""
    entries = catalog.qa_entries
    views = [catalog.qa(e.id) for e in entries]
    marks = ["" if v.analysis.complete else INCOMPLETE_MARK for v in views]
    sections = []
    for item in catalog.comparison():
        members = [entries[i] for i in item.group.members]
        labels = run_labels([(views[i].manifest, entries[i].path) for i in item.group.members])
        sections.append(
            {
                "group": item.group,
                "c": item.comparison,
                # named within the dataset, as coordqa report names them ("m", not "m (dataset=d)")
                "entries": [replace(e, label=lbl) for e, lbl in zip(members, labels, strict=True)],
                "marks": [marks[i] for i in item.group.members],
            }
        )
    return render("compare.html", links, entries=entries, sections=sections, **NOTES)


def run_page(catalog: RunCatalog, run_id: str, links: Links) -> str:
    """A run's first page: a QA run's summary or an agentic run's episode list."""
    if catalog.get(run_id).kind == "qa":
        return qa_run_page(catalog, run_id, links)
    return agentic_run_page(catalog, run_id, links)


def agentic_run_page(catalog: RunCatalog, run_id: str, links: Links) -> str:
    """An agentic run's episode list and manifest."""
    view = catalog.agentic(run_id)
    return render(
        "agentic_run.html",
        links,
        entry=catalog.get(run_id),
        rows=view.rows,
        manifest=view.manifest,
    )


def episode_page(catalog: RunCatalog, run_id: str, number: int, links: Links) -> str:
    """One episode: its numbers, HM's hypothesis values and the list of steps."""
    episode = catalog.agentic(run_id).episode(number)
    return render("episode.html", links, entry=catalog.get(run_id), e=episode)


def step_page(catalog: RunCatalog, run_id: str, episode: int, step: int, links: Links) -> str:
    """One step of an episode, seat by seat."""
    view = catalog.agentic(run_id).episode(episode)
    return render("step.html", links, entry=catalog.get(run_id), e=view, s=view.detail(step))
