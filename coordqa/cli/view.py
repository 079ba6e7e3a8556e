"""``coordqa view``: look at runs in a browser, or export them as static pages.

FastAPI, uvicorn and Jinja2 (the ``leaderboard`` extra) are imported inside the command.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from coordqa.cli._outputs import generated_folder
from coordqa.outputs import RUN_PAGES
from coordqa.words import counted

if TYPE_CHECKING:
    from coordqa.viewer import RunCatalog

console = Console()
messages = Console(stderr=True)
"""Progress of an export: stdout says only what was written."""


def view_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="Run directories of `coordqa eval` or `coordqa agentic run/grid`, "
            "`coordqa eval-set` folders (their members' runs), or folders holding runs."
        ),
    ],
    host: Annotated[
        str, typer.Option(help="Interface to listen on (the default is this machine only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port (0: any free port).")] = 8010,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            help="Another name the viewer may be opened by (its Host header); repeatable. "
            "This machine's loopback names and --host are always allowed.",
        ),
    ] = None,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            help="Write every page as static HTML into this folder instead (new, empty, or an "
            "earlier export).",
            callback=generated_folder(RUN_PAGES),
        ),
    ] = None,
) -> None:
    """Look at runs in a browser: QA samples one by one, agentic episodes step by step.

    Serves http://HOST:PORT until Ctrl-C; --export writes the pages as files instead. The viewer
    reads only the run directories given (and the bundled datasets, by name), and answers only
    requests addressed to this machine, --host or an --allow-host name.
    """
    from coordqa.cli._errors import nothing_written_to
    from coordqa.cli.leaderboard import require_web_extra

    require_web_extra(("fastapi", "uvicorn", "jinja2"), "coordqa view")
    with nothing_written_to(export):
        _view(runs, host, port, allow_host, export)


def _view(
    runs: list[Path], host: str, port: int, allow_host: list[str] | None, export: Path | None
) -> None:
    """Read the runs, then export them (``export``) or serve them at ``host``:``port``."""
    from coordqa.evalset import expand_sets
    from coordqa.viewer import RunCatalog
    from coordqa.web.serving import listen

    expand_sets(runs)  # refuses a set whose members stored no run, in the set's words
    # a set's folder, looked at again, shows members added since; served, an empty folder too
    catalog = RunCatalog(runs, live=export is None)
    sock = None if export is not None else listen(host, port)  # a taken port fails first
    started = time.perf_counter()
    from coordqa.cli._progress import reading_note

    with reading_note(messages, len(catalog.entries)):
        catalog.read_all()  # a run whose records do not read moves to catalog.unreadable
    for problem in catalog.unreadable:  # listed on the index page too
        console.print(f"unreadable: {problem}", highlight=False)
    if (not_shown := catalog.not_shown_note()) is not None:  # on the index page too
        console.print(not_shown, highlight=False, soft_wrap=True)
    if export is not None:
        from coordqa.cli._progress import ExportDisplay
        from coordqa.viewer import export_site

        display = ExportDisplay(messages)
        try:
            written = export_site(catalog, export, progress=display)
        finally:
            display.stop()
        console.print(f"wrote {len(written)} files; open {export / 'index.html'}", soft_wrap=True)
        return
    if (empty := catalog.empty_note()) is not None:  # on the index page too
        console.print(empty, highlight=False, soft_wrap=True)
    else:
        console.print(
            f"read {counted(len(catalog.entries), 'run')} in {time.perf_counter() - started:.1f} s"
        )
    assert sock is not None  # listening unless exporting
    _serve(catalog, sock, host, allowed_hosts(host, allow_host or []))


WILDCARDS = ("0.0.0.0", "::", "")
"""Hosts that listen on every interface (and so name none the viewer could be reached by)."""


def allowed_hosts(host: str, more: list[str]) -> list[str]:
    """The names the viewer answers to: loopback, ``--host`` (unless a wildcard), ``more``."""
    from coordqa.web.headers import LOOPBACK_HOSTS

    named = [] if host in WILDCARDS else [host]
    return [*LOOPBACK_HOSTS, *named, *more]


def _serve(catalog: RunCatalog, sock: socket.socket, host: str, hosts: list[str]) -> None:
    """Run the app on the bound ``sock``, printing the URL first."""
    from coordqa.viewer import create_app
    from coordqa.web.serving import serve, shown_url

    console.print(
        f"coordqa view: {shown_url(sock, host)} (Ctrl-C to stop)", highlight=False, soft_wrap=True
    )
    serve(create_app(catalog, hosts), sock, log_level="warning")


def register(app: typer.Typer) -> None:
    """Add ``view`` to the top-level app."""
    app.command("view")(view_command)
