"""HTML rendering with Jinja2, shared by the live server and the static export.

Templates are autoescaped (the environment of :mod:`coordqa.web.rendering`, shared with
``coordqa view``), so every user-supplied string (model names, organisations, links, dataset
names) is shown as text. :class:`Links` is the only difference between the two uses:
the server links with query strings (``/?game=hanabi&sort=EC``), the static site with files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from coordqa.web.rendering import package_environment

if TYPE_CHECKING:
    import jinja2

    from coordqa.leaderboard.views import AgenticBoard, Board, Detail

__all__ = ["Links", "render_agentic", "render_index", "render_submission"]


def slug(text: str) -> str:
    """A file-name-safe form of ``text``."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


@dataclass(frozen=True)
class Links:
    """How pages link to each other: live server (query strings) or static files."""

    static: bool = False
    """True for the exported site."""
    prefix: str = "/"
    """Path from the current page to the site root ("/" live; "" or "../" static)."""

    def home(self, dataset: str | None = None, game: str | None = None, **sort: str) -> str:
        """The ranking page of ``dataset`` and ``game`` (sorted, on the live server)."""
        if self.static:
            if dataset is None and game is None:
                return f"{self.prefix}index.html"
            return f"{self.prefix}boards/{slug(dataset or 'default')}-{slug(game or 'all')}.html"
        query = {k: v for k, v in {"dataset": dataset, "game": game, **sort}.items() if v}
        return "/" + (f"?{urlencode(query)}" if query else "")

    def agentic(self, grid: str | None = None, **sort: str) -> str:
        """The agentic ranking page of ``grid`` (sorted, on the live server)."""
        if self.static:
            if grid is None:
                return f"{self.prefix}agentic.html"
            return f"{self.prefix}grids/{slug(grid)}.html"
        query = {k: v for k, v in {"grid": grid, **sort}.items() if v}
        return "/agentic" + (f"?{urlencode(query)}" if query else "")

    def submission(self, submission_id: int) -> str:
        """A submission's page."""
        if self.static:
            return f"{self.prefix}submissions/{submission_id}.html"
        return f"/submissions/{submission_id}"

    def asset(self, name: str) -> str:
        """A file under ``static/``."""
        return f"{self.prefix}static/{name}"


def environment() -> jinja2.Environment:
    """The leaderboard's Jinja2 environment."""
    return package_environment("coordqa.leaderboard")


def render_index(board: Board, links: Links) -> str:
    """The ranking page."""
    return environment().get_template("index.html").render(board=board, links=links)


def render_agentic(board: AgenticBoard, links: Links) -> str:
    """The agentic ranking page."""
    return environment().get_template("agentic.html").render(board=board, links=links)


def render_error(status: int, title: str, message: str, links: Links) -> str:
    """A refused page (an unknown submission) for a browser: its words and a way back."""
    return (
        environment()
        .get_template("error.html")
        .render(status=status, title=title, message=message, links=links)
    )


def render_submission(detail: Detail, links: Links) -> str:
    """One submission's page (its track's template)."""
    name = "agentic_submission.html" if detail["track"] == "agentic" else "submission.html"
    return environment().get_template(name).render(d=detail, links=links)
