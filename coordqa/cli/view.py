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

from coordqa.errors import ConfigError

if TYPE_CHECKING:
    from coordqa.viewer import RunCatalog

console = Console()


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
    export: Annotated[
        Path | None,
        typer.Option("--export", help="Write every page as static HTML into this folder instead."),
    ] = None,
) -> None:
    """Look at runs in a browser: QA samples one by one, agentic episodes step by step.

    Serves http://HOST:PORT until Ctrl-C; --export writes the pages as files instead.
    """
    from coordqa.cli.leaderboard import require_web_extra
    from coordqa.evalset import expand_sets
    from coordqa.viewer import RunCatalog

    require_web_extra(("fastapi", "uvicorn", "jinja2"), "coordqa view")
    catalog = RunCatalog(expand_sets(runs))
    if export is not None:
        from coordqa.viewer import export_site

        written = export_site(catalog, export)
        console.print(f"wrote {len(written)} files; open {export / 'index.html'}")
        return
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port must be in 0..65535, got {port}")
    sock = _listen(host, port)  # before reading: a busy port is said at once
    started = time.perf_counter()
    catalog.read_all()
    console.print(f"read {len(catalog.entries)} run(s) in {time.perf_counter() - started:.1f} s")
    _serve(catalog, sock, host)


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``; a port in use is a ConfigError that says so."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(_bind_failure(host, port, exc)) from None
    sock.listen(2048)  # connections wait in the backlog until uvicorn accepts them
    return sock


def _serve(catalog: RunCatalog, sock: socket.socket, host: str) -> None:
    """Run the app with uvicorn on ``sock``, printing the URL first."""
    import uvicorn

    from coordqa.viewer import create_app

    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    console.print(f"coordqa view: http://{shown}:{bound}/ (Ctrl-C to stop)", highlight=False)
    server = uvicorn.Server(uvicorn.Config(create_app(catalog), log_level="warning"))
    server.run(sockets=[sock])


def _bind_failure(host: str, port: int, exc: OSError) -> str:
    """Why ``coordqa view`` cannot listen on ``host:port``, and what to do instead."""
    import errno

    if exc.errno == errno.EADDRINUSE:
        return (
            f"--port {port}: another program (perhaps another coordqa view) already listens on "
            f"{host}:{port}; pass another --port, or --port 0 for any free one"
        )
    if exc.errno == errno.EACCES:
        return f"--port {port}: this user may not listen on it; pass a port above 1023"
    return f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc})"


def register(app: typer.Typer) -> None:
    """Add ``view`` to the top-level app."""
    app.command("view")(view_command)
