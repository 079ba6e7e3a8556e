"""``coordqa submit`` and ``coordqa leaderboard ...``: submitting results and running the server.

FastAPI, uvicorn, SQLAlchemy and Jinja2 (the ``leaderboard`` extra) are imported inside the
commands, so ``coordqa --help`` never loads them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from coordqa.cli._errors import interrupted_as, nothing_written_to
from coordqa.cli._names import model_name, player_name
from coordqa.cli._option_groups import option_groups
from coordqa.cli._outputs import generated_folder, output_file, output_folder
from coordqa.errors import ConfigError, MissingDependencyError
from coordqa.leaderboard.settings import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_TRIALS,
    DEFAULT_POLL_S,
    STOPPED_IDLE,
    BoardRunSettings,
    SubmitterLimits,
    WorkerConfig,
)
from coordqa.outputs import BOARD_SITE, make_output_file, unused_file_beside
from coordqa.runfolder import is_run_file
from coordqa.words import agreeing, counted

if TYPE_CHECKING:
    from datetime import datetime

    from coordqa.leaderboard.catalog import Registration
    from coordqa.leaderboard.client import SubmitError, Submitted
    from coordqa.leaderboard.db import Database
    from coordqa.leaderboard.jobs import JobView

console = Console()

_MB = 1024 * 1024
_LIMITS = SubmitterLimits()
_JOBS = BoardRunSettings()
"""The defaults of ``serve``'s options (limits and board-run budgets): the settings' own."""
BUNDLE_EXAMPLE = "bundle.json"
"""The file ``submit --out`` offers inside a folder given instead of a file."""

DB_OPTION = typer.Option(
    "--db",
    envvar="COORDQA_LEADERBOARD_DB",
    help="Database URL (sqlite:///PATH or postgresql://USER@HOST:PORT/DB); "
    "default: a SQLite file in the user data directory.",
)
DbUrl = Annotated[str | None, DB_OPTION]
SubmissionId = Annotated[
    int, typer.Argument(help="Entry id: the board's Entry column, /submissions/ID.")
]
"""The entry an admin command acts on, as the board shows it."""

Token = Annotated[
    str | None,
    typer.Option("--token", envvar="COORDQA_TOKEN", help="Bearer token from the admin."),
]
"""The submitter's token, for the commands that send to a board (``--to``)."""

Org = Annotated[str | None, typer.Option("--org", help="Organisation.")]
Params = Annotated[str | None, typer.Option("--params", help="Parameter count: 7e9, 7B, 350M.")]
Link = Annotated[str | None, typer.Option("--link", help="An http(s) link about it.")]


@dataclass(frozen=True)
class ModelDetails:
    """What an entry shows about its model, uploaded (submit) or run by the board (endpoint).

    One parameter of each command (:mod:`coordqa.cli._option_groups`).
    """

    org: Org = None
    params: Params = None
    link: Link = None

    def checked(self, **named: str | None) -> dict[str, Any]:
        """The model fields given, with ``named`` ones (``display_name``), checked as a bundle's.

        Every field is checked before any run is read or request sent, by the rule the bundle
        and the board apply (:func:`coordqa.leaderboard.bundle.model_info_violations`); one
        error names each option refused. ``--params`` is read as ``report --sizes`` reads it.

        Raises:
            ConfigError: a value the board would refuse.
        """
        from coordqa.cli.runs import parameter_count
        from coordqa.leaderboard.bundle import model_info_violations, shown_violations

        texts = {**named, "organisation": self.org, "parameters": self.params, "link": self.link}
        given = {field: text for field, text in texts.items() if text is not None}
        values: dict[str, Any] = dict(given)
        if self.params is not None:
            values["parameters"] = parameter_count(self.params, "--params")
        violations = model_info_violations(values)
        if violations:
            shown = [
                {"loc": f"{_OPTION_OF[v['loc']]} {given[v['loc']]!r}", "msg": v["msg"]}
                for v in violations
            ]
            raise ConfigError(shown_violations(shown, len(shown)))
        return values


_OPTION_OF = {
    "display_name": "--name",
    "provider": "--provider",
    "organisation": "--org",
    "parameters": "--params",
    "link": "--link",
}
"""The option that gives each field of a bundle's model."""


def _require_token(token: str | None) -> str:
    """The token ``--to`` needs, or the error that says where to get one."""
    if not token:
        raise ConfigError("--to needs --token (or COORDQA_TOKEN); ask the leaderboard admin")
    return token


leaderboard_app = typer.Typer(
    name="leaderboard",
    help="Run the CoordinationQA leaderboard server and administer it.",
    no_args_is_help=True,
)
token_app = typer.Typer(name="token", help="Bearer tokens for submitters.", no_args_is_help=True)
dataset_app = typer.Typer(name="dataset", help="Datasets the server accepts.", no_args_is_help=True)
grid_app = typer.Typer(
    name="grid", help="Agentic grids the server ranks runs on.", no_args_is_help=True
)
job_app = typer.Typer(
    name="job", help="The board's jobs (board-run entries).", no_args_is_help=True
)
leaderboard_app.add_typer(token_app)
leaderboard_app.add_typer(job_app)
leaderboard_app.add_typer(dataset_app)
leaderboard_app.add_typer(grid_app)


def require_web_extra(
    modules: tuple[str, ...] = ("fastapi", "uvicorn", "sqlalchemy", "jinja2", "icu"),
    what: str = "the leaderboard",
) -> None:
    """Fail with the install command when modules of the ``leaderboard`` extra are missing.

    The leaderboard needs all of them; ``coordqa view`` the web stack without the database.
    """
    import importlib.util

    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingDependencyError(
            f"{what} needs {', '.join(missing)}; install them with "
            "pip install 'coordqa[leaderboard]'"
        )


def _open(db: str | None, *, create: bool = True) -> Database:
    """Open the leaderboard database (migrated; created unless ``create`` is False).

    Commands that only read or change an existing board pass ``create=False``: a ``--db`` that
    names no board (a typo, or the default when the server runs on another) is an error, not a
    new empty board.
    """
    require_web_extra()
    from coordqa.leaderboard.db import open_database

    return open_database(db, create=create)


@option_groups
def submit_command(
    run_dir: Annotated[
        Path,
        typer.Argument(
            help="A finished `coordqa eval` or `coordqa agentic` run directory, or a bundle "
            "file saved with --out (sent with --to as it is)."
        ),
    ],
    to: Annotated[
        str | None, typer.Option("--to", help="Leaderboard URL, e.g. https://lb.example.org")
    ] = None,
    token: Token = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write the bundle to this file instead.",
            callback=output_file(BUNDLE_EXAMPLE),
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Display name (default: the run's model).")
    ] = None,
    provider: Annotated[
        str | None, typer.Option("--provider", help="Provider (default: from the model name).")
    ] = None,
    details: ModelDetails = ModelDetails(),
    grid: Annotated[
        str | None,
        typer.Option(
            "--grid", help="Agentic runs: the leaderboard grid covered (default: the grid's name)."
        ),
    ] = None,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure",
            help="Send the token over plain http to another machine (refused otherwise; "
            "localhost is always allowed).",
        ),
    ] = False,
) -> None:
    """Bundle a run for the leaderboard and send it (--to) or save it (--out).

    QA runs go to the CoordinationQA track with every raw reply; agentic runs go to the agentic
    track with every episode's trajectory. A bundle saved with --out is sent later by giving
    its file instead of the run.
    """
    shown = details.checked(display_name=name, provider=provider)
    if (to is None) == (out is None):
        raise ConfigError("give exactly one of --to URL (send the bundle) and --out FILE (save it)")
    if to is not None:
        _require_token(token)
    from coordqa.leaderboard.client import (
        SUBMIT_TAKES,
        SubmitError,
        check_transport,
        read_saved_bundle,
        submit_bundle,
    )
    from coordqa.store import check_run_path

    if to is not None:
        check_transport(to, insecure)  # before the run is read: refuse at once
    saved_bundle = run_dir.is_file() and not is_run_file(run_dir)
    if saved_bundle:
        _refuse_changes_to_a_saved_bundle(
            run_dir, out, name=name, provider=provider, details=details, grid=grid
        )
        bundle = read_saved_bundle(run_dir)
    else:
        from coordqa.leaderboard.bundle import build_bundle

        check_run_path(run_dir, SUBMIT_TAKES)  # a missing path: either is taken here
        bundle = build_bundle(
            run_dir, grid=grid, destination="file" if to is None else "board", **shown
        )
    what = (
        counted(len(bundle["replies"]), "reply", "replies")
        if "replies" in bundle
        else counted(len(bundle["episodes"]), "episode")
    )
    if out is not None:
        make_output_file(out, "--out", BUNDLE_EXAMPLE)
        out.write_text(json.dumps(bundle, ensure_ascii=False), encoding="utf-8")
        console.print(f"wrote {out} ({what}, digest {bundle['digest'][:12]})", soft_wrap=True)
        return
    try:
        answer = submit_bundle(bundle, str(to), str(token), insecure=insecure)
    except SubmitError as exc:
        import shlex

        if saved_bundle:
            raise _name_taken(exc, saved=run_dir) from exc
        given_grid = "" if grid is None else f" --grid {shlex.quote(grid)}"
        command = f"coordqa submit {shlex.quote(str(run_dir))}{given_grid}"
        raise _name_taken(exc, command=command, named=name is not None) from exc
    verb = "submitted" if answer.created else "already on the leaderboard"
    # a URL is never folded onto a line of its own (80 columns in a pipe: walkthrough 9 #106)
    console.print(f"{verb}: entry {answer.id} ({what}): {answer.url}", markup=False, soft_wrap=True)
    if answer.hidden:
        why = "" if answer.hidden_reason is None else f" ({answer.hidden_reason})"
        console.print(
            f"entry {answer.id} is hidden{why}: stored, but not ranked on the board; the board's "
            f"admin shows it again with `coordqa leaderboard unhide {answer.id} --db DB_URL`",
            markup=False,
            style="yellow",
        )
    if answer.created:
        for note in _entries_beside_notes(answer, "episodes" in bundle):
            console.print(note, markup=False, style="yellow")
    for mismatch in answer.mismatches:
        console.print(
            f"reported number differs from the server's: {mismatch}", markup=False, style="yellow"
        )


def _entries_beside_notes(answer: Submitted, agentic: bool) -> list[str]:
    """What ``submit`` says of the token's other ranked uploads of the same model and test.

    The board ranks each run as its own entry, so they stay ranked beside the new one. Only an
    entry with fewer trials (episodes) than the new one may be the same run, now resumed with
    more, that the new one replaces: only those are offered for hiding (walkthrough 13 #252
    offered one with more trials). Which one a new entry replaces is the submitter's to know:
    with several, none is named for hiding (walkthrough 11 #240 named an unrelated one).
    """
    test, unit = ("grid", "episode") if agentic else ("dataset", "trial")
    new = answer.trials
    fewer = [(i, n) for i, n in answer.beside if new is not None and n < new]
    others = [entry for entry in answer.beside if entry not in fewer]

    def which(entries: list[tuple[int, int]]) -> tuple[str, str]:
        listed = ", ".join(f"{i} ({counted(n, unit)})" for i, n in entries)
        if len(entries) == 1:
            return f"entry {listed}", "stays"
        return f"entries {listed}", "stay"

    notes = []
    if fewer:
        (named, stays), one = which(fewer), len(fewer) == 1
        hide, replaced = (str(fewer[0][0]), "it") if one else ("N", "one of them")
        notes.append(
            f"{named} of the same model and {test} from this token {stays} ranked beside entry "
            f"{answer.id}: the board ranks each run as its own entry. If entry {answer.id} "
            f"replaces {replaced} (the same run with more {unit}s), ask the board's admin to "
            f"hide {'it' if one else 'that one, N'}: `coordqa leaderboard hide {hide} --db DB_URL`"
        )
    if others:
        named, stays = which(others)
        size = "" if new is None else f" ({counted(new, unit)})"
        notes.append(
            f"{named} of the same model and {test} from this token {stays} ranked beside entry "
            f"{answer.id}{size}: the board ranks each run as its own entry"
        )
    return notes


def _refuse_changes_to_a_saved_bundle(
    path: Path, out: Path | None, *, details: ModelDetails, **given: str | None
) -> None:
    """Refuse options a saved bundle cannot take, with the commands that take them.

    Its digest covers what it says of the model, so it is sent as saved: an option given would
    otherwise be ignored in silence. The name goes in where the bundle is made, so the refusal
    shows that command with the options given (walkthrough 15 R1: "give them to coordqa submit
    RUN" left the user to work out which command and where the name goes). The token and the
    board's address stay placeholders: they are not repeated back.
    """
    if out is not None:
        raise ConfigError(f"{path} is a saved bundle already; send it with --to URL")
    named = {**given, "org": details.org, "params": details.params, "link": details.link}
    changed = {f"--{option}": value for option, value in named.items() if value is not None}
    if changed:
        raise ConfigError(
            f"{' and '.join(changed)} cannot change a saved bundle ({path}): its digest covers "
            f"what it says of the model. {_save_again(path, changed, quote=True, first=True)}"
        )


def _save_again(path: Path, changed: Mapping[str, str], *, quote: bool, first: bool = False) -> str:
    """How a saved bundle (``path``) gets other model details: the one wording of it.

    ``changed``: each option with its value (quoted for the shell when ``quote``; a
    placeholder such as ``NAME`` is not). Said where ``--name`` is given with a saved bundle,
    and where the board refuses the name a saved bundle holds (walkthrough 18 R2); ``first``:
    it begins a sentence.
    """
    import shlex

    def shown(value: str) -> str:
        return shlex.quote(value) if quote else value

    options = " ".join(f"{flag} {shown(str(value))}" for flag, value in changed.items())
    send = f"`coordqa submit RUN_DIR {options} --to URL --token T`"
    grid = changed.get("--grid")
    if grid is not None and not _grid_known_here(grid):  # saved unchecked it would be refused
        return (
            f"{'S' if first else 's'}end the run directly, as a grid only a board knows is "
            f"checked by that board (it is not saved with --out): {send}"
        )
    flags = " and ".join(changed)
    fresh = unused_file_beside(path, [str(value) for value in changed.values()])
    new_file = "NEW_FILE" if fresh is None else shlex.quote(str(fresh))
    agentic = "" if grid is not None else " (an agentic run: with --grid GRID)"
    return (
        f"{'S' if first else 's'}ave it again from its run directory with {flags}, into a new "
        f"file: `coordqa submit RUN_DIR {options} --out {new_file}`{agentic}, then send that "
        f"file; or send the run directly: {send}"
    )


def _grid_known_here(grid: str) -> bool:
    """Whether ``submit --grid GRID --out FILE`` can check ``grid`` here: shipped, or a file.

    A name only a board registered is checked by that board when the run is sent, and a bundle
    is not saved with it (walkthrough 25: the advice to save one was refused when followed).
    """
    from coordqa.agentic import registered_grids

    shipped = {name.casefold() for name in registered_grids()}
    return grid.casefold() in shipped or Path(grid).is_file()


def _name_taken(
    exc: SubmitError, *, command: str | None = None, saved: Path | None = None, named: bool = False
) -> SubmitError:
    """``exc`` with what to do, where the board refused the display name (walkthrough 18 R2).

    The board says the name looks like another submitter's; the command that gives another
    is this side's to say: for a bundle ``saved`` with its name, saving it again
    (:func:`_save_again`), else ``command`` with ``--name NAME`` added, or another given
    where ``named`` (the name refused was the one given: walkthrough 25 said to add --name to a
    command that had one). Any other refusal is ``exc`` as is.
    """
    from coordqa.leaderboard.client import SubmitError
    from coordqa.leaderboard.names import DISPLAY_NAME_FIELD

    if exc.field != DISPLAY_NAME_FIELD:
        return exc
    if saved is not None:
        again = _save_again(saved, {"--name": "NAME"}, quote=False)
        return SubmitError(
            f"{exc}. {saved} holds that name (its digest covers what it says of the model): "
            f"{again}",
            exc.field,
        )
    change = "give another --name" if named else "add --name NAME to the command"
    return SubmitError(
        f"{exc}: {change}: `{command} --name NAME --to URL --token T`",
        exc.field,
    )


JobTrials = Annotated[int, typer.Option(help="Board-run jobs: trials per question.")]
JobPrivatePerGame = Annotated[
    int, typer.Option(help="Board-run jobs: fresh scenarios per game in the private split.")
]
JobMaxCalls = Annotated[int, typer.Option(help="Board-run jobs: model calls each.")]
JobMaxTokens = Annotated[int, typer.Option(help="Board-run jobs: tokens each.")]
JobMaxSeconds = Annotated[float, typer.Option(help="Board-run jobs: seconds of evaluation each.")]
JobMaxDiskMb = Annotated[
    float, typer.Option(help="Board-run jobs: megabytes each job's folder may hold.")
]


@leaderboard_app.command("serve")
def serve_command(
    db: DbUrl = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    max_body_mb: Annotated[
        float, typer.Option(help="Largest accepted submission (MB).")
    ] = DEFAULT_MAX_BODY_BYTES / _MB,
    rate_limit: Annotated[
        int, typer.Option(help="Submission attempts per token per hour (0: no limit).")
    ] = _LIMITS.per_hour or 0,
    quota: Annotated[
        int, typer.Option(help="Stored entries per token (0: no quota).")
    ] = _LIMITS.quota or 0,
    max_trials: Annotated[
        int, typer.Option(help="Most trials per question a QA submission may hold.")
    ] = DEFAULT_MAX_TRIALS,
    ranking: Annotated[
        str,
        typer.Option(
            help="Entries ranked by default: all, board-run (those the board ran) or uploaded."
        ),
    ] = "all",
    job_trials: JobTrials = _JOBS.trials,
    job_private_per_game: JobPrivatePerGame = _JOBS.private_per_game,
    job_max_calls: JobMaxCalls = _JOBS.max_calls,
    job_max_tokens: JobMaxTokens = _JOBS.max_tokens,
    job_max_seconds: JobMaxSeconds = _JOBS.max_seconds,
    job_max_disk_mb: JobMaxDiskMb = _JOBS.max_disk_mb,
    hosted: Annotated[
        list[str] | None,
        typer.Option(
            "--hosted",
            help="A model the board runs with its own key (no api_base), or a pattern such as "
            "'openai/gpt-4o*'; repeatable. 'random' always.",
        ),
    ] = None,
    allow_private_endpoints: Annotated[
        bool,
        typer.Option(
            "--allow-private-endpoints",
            help="Let registrations name loopback or private addresses (a local board).",
        ),
    ] = False,
) -> None:
    """Run the leaderboard web server (creates or migrates the database).

    Submitters upload runs (`coordqa submit`) or register endpoints the board runs itself
    (`coordqa submit-endpoint`); `coordqa leaderboard worker` runs the queued jobs.
    """
    require_web_extra()
    from coordqa.leaderboard.server import create_app
    from coordqa.web.serving import listen, serve, shown_url

    if max_body_mb <= 0:
        raise ConfigError(f"--max-body-mb must be positive, got {max_body_mb}")
    if rate_limit < 0 or quota < 0:
        raise ConfigError("--rate-limit and --quota are counts (0 turns one off)")
    limits = SubmitterLimits(per_hour=rate_limit or None, quota=quota or None)
    board_run = BoardRunSettings(
        trials=job_trials,
        private_per_game=job_private_per_game,
        max_calls=job_max_calls,
        max_tokens=job_max_tokens,
        max_seconds=job_max_seconds,
        max_disk_mb=job_max_disk_mb,
        hosted=("random", *(hosted or ())),
        allow_private_endpoints=allow_private_endpoints,
    )
    sock = listen(host, port)
    app = create_app(
        db,
        max_body_bytes=int(max_body_mb * _MB),
        limits=limits,
        max_trials=max_trials,
        board_run=board_run,
        ranking=ranking,
    )
    console.print(
        f"leaderboard: {shown_url(sock, host)} (Ctrl-C to stop)", highlight=False, soft_wrap=True
    )
    serve(app, sock)


@token_app.command("create")
def token_create_command(
    name: Annotated[str, typer.Argument(help="Who the token is for.")],
    db: DbUrl = None,
) -> None:
    """Create a submitter token and print it (only its hash is stored: keep it)."""
    from coordqa.leaderboard.tokens import create_token

    typer.echo(create_token(_open(db), name))


@token_app.command("list")
def token_list_command(db: DbUrl = None) -> None:
    """List the tokens (never their secrets) with their entries."""
    from rich.table import Table

    from coordqa.leaderboard.tokens import list_tokens

    table = Table("id", "name", "created", "revoked", "entries", "hidden")
    for info in list_tokens(_open(db, create=False)):
        revoked = f"{info.revoked_at:%Y-%m-%d %H:%M}" if info.revoked_at else ""
        table.add_row(
            str(info.id),
            info.name,
            f"{info.created_at:%Y-%m-%d %H:%M}",
            revoked,
            str(info.entries),
            str(info.hidden),
        )
    console.print(table)


@token_app.command("revoke")
def token_revoke_command(
    token: Annotated[
        str,
        typer.Argument(
            metavar="TOKEN", help="The token's id or name (its live token), as `token list` shows."
        ),
    ],
    hide: Annotated[
        bool, typer.Option("--hide-entries", help="Also hide every entry made with it.")
    ] = False,
    reason: Annotated[str | None, typer.Option(help="Shown on hidden entries' pages.")] = None,
    db: DbUrl = None,
) -> None:
    """Revoke a token: it no longer submits (its entries stay unless --hide-entries)."""
    from coordqa.leaderboard.tokens import revoke_token, token_id_of

    database = _open(db, create=False)
    info, revoked_now = revoke_token(database, token_id_of(database, token))
    if revoked_now:
        console.print(f"token {info.id} ({info.name}) is revoked")
    else:
        console.print(_unchanged(f"token {info.id} ({info.name})", "revoked", info.revoked_at))
    if hide:
        console.print(
            _hide_entries_of(database, info.id, True, reason), markup=False, soft_wrap=True
        )


def _hide_entries_of(database: Database, token_id: int, hidden: bool, reason: str | None) -> str:
    """Hide or show a token's entries, and say what changed, in one wording.

    ``hide``/``unhide --token`` and ``token revoke --hide-entries`` answer so. When no entry
    changed state it says so (walkthrough 16 #141: "0 entries of token 2 are now visible" read
    as "token 2 has no visible entries"), and names a new reason given to the entries hidden
    already, the one change there is then. ``unhide --token`` shows again only what a
    token-wide hide hid: it names the entries hidden on their own that stay hidden, and says
    when the token is revoked (walkthrough 18 #194 showed both again without a word).
    """
    from coordqa.leaderboard.tokens import list_tokens

    count = database.set_hidden_of(token_id, hidden, reason)
    state = "hidden" if hidden else "visible"
    info = next(token for token in list_tokens(database) if token.id == token_id)
    kept = [] if hidden else database.hidden_on_their_own(token_id)
    if count:
        entries = counted(count, "entry", "entries")
        said = f"{entries} of token {token_id} {agreeing(count, 'is', 'are')} now {state}"
    elif kept:
        said = f"token {info.id} ({info.name}) has no entries hidden by hide --token"
        said += NOTHING_CHANGED
    else:
        none = f"token {info.id} ({info.name}) has no {'visible' if hidden else 'hidden'} entries"
        if hidden and reason is not None and info.hidden:
            held = counted(info.hidden, "hidden entry", "hidden entries")
            return f"{none}; the reason of its {held} is now {reason!r}"
        return f"{none}{NOTHING_CHANGED}"
    if kept:
        said += f"; {_kept_hidden(database, kept)}"
    if count and not hidden and info.revoked_at is not None:
        said += (
            f"; token {info.id} ({info.name}) is revoked: its entries are ranked again, though "
            "it can send no more"
        )
    if count and not hidden:
        said += _past_quota(database, token_id)
    return said


def _past_quota(database: Database, token_id: int) -> str:
    """What ``unhide`` says when it leaves a token past the quota, else nothing.

    Shown entries count again (walkthrough 18 R6: ``unhide 1`` took a token to 6 of its 5
    without a word, and its next upload was refused). The quota binds submitters, and the
    admin may raise it ("ask the leaderboard admin ... to raise the quota"), so the entry is
    shown and the admin told; the quota is the one the board was last served with.
    """
    from coordqa.leaderboard.db import quota_held_words
    from coordqa.leaderboard.tokens import list_tokens

    past = database.past_quota(token_id)
    if past is None:
        return ""
    entries, jobs, quota = past
    info = next(token for token in list_tokens(database) if token.id == token_id)
    over = entries + jobs + 1 - quota  # to hide before one more fits
    return (
        f"; token {info.id} ({info.name}) now has {quota_held_words(entries, jobs)}, past the "
        f"quota of {quota} per token this board was last served with (serve --quota): its "
        f"uploads and registrations are refused until {counted(over, 'entry', 'entries')} "
        f"{agreeing(over, 'is', 'are')} hidden or the quota is raised"
    )


MOST_NAMED = 10
"""Entries an admin command names one by one before it counts the rest."""


def _kept_hidden(database: Database, kept: list[tuple[int, str | None]]) -> str:
    """What ``unhide --token`` says of the entries hidden on their own that it leaves hidden."""
    if len(kept) == 1:
        ((entry, reason),) = kept
        why = "" if reason is None else f" ({reason!r})"
        return (
            f"entry {entry} stays hidden: it was hidden on its own{why}, not by hide --token; "
            f"`{database.command(f'unhide {entry}')}` shows it"
        )
    listed = ", ".join(
        str(entry) if reason is None else f"{entry} ({reason!r})"
        for entry, reason in kept[:MOST_NAMED]
    )
    more = "" if len(kept) <= MOST_NAMED else f" and {len(kept) - MOST_NAMED} more"
    return (
        f"entries {listed}{more} stay hidden: they were hidden on their own, not by hide "
        f"--token; `{database.command('unhide N')}` shows one"
    )


NOTHING_CHANGED = ": nothing changed"
"""How an admin command that found the state asked for ends its answer (exit 0)."""


def _unchanged(what: str, state: str, since: datetime | None = None) -> str:
    """The answer of an admin command that finds ``what`` in the state asked for: one wording.

    It is no error (the state is the one asked for, exit 0), but nothing was done, and saying
    "is now visible" or "is cancelled" claimed a change (blind walkthrough 13 #112, #310).
    ``since``: when it reached that state, where the board keeps it.
    """
    return f"{what} was {state} already{_on(since)}{NOTHING_CHANGED}"


def _on(when: datetime | None) -> str:
    """`` on 2026-11-30 02:11 UTC``, the time an admin command says a state began; or nothing."""
    return f" on {when:%Y-%m-%d %H:%M} UTC" if when is not None else ""


EntryOrToken = Annotated[
    int | None,
    typer.Argument(help="Entry id: the board's Entry column, /submissions/ID (or --token)."),
]
"""The entry ``hide``/``unhide`` act on, unless ``--token`` names a submitter instead."""
OfToken = Annotated[
    str | None,
    typer.Option(
        "--token",
        metavar="TOKEN",
        help="Every entry of this token instead: its id or name, as `token list` shows.",
    ),
]


def _set_hidden(
    db: str | None, submission_id: int | None, token: str | None, hidden: bool, reason: str | None
) -> None:
    """Hide or show one entry, or a submitter's entries (``--token``, read as ``token revoke``).

    The selection ``hide`` and ``unhide`` share, so undoing a ``hide --token`` takes one command.
    """
    from coordqa.leaderboard.tokens import token_id_of

    state = "hidden" if hidden else "visible"
    if submission_id is not None and token is not None:
        raise ConfigError("give a SUBMISSION_ID or --token TOKEN, not both")
    if token is not None:
        database = _open(db, create=False)
        said = _hide_entries_of(database, token_id_of(database, token), hidden, reason)
        console.print(said, markup=False, soft_wrap=True)  # a command is never folded mid-word
        return
    if submission_id is None:
        raise ConfigError("give a SUBMISSION_ID, or --token TOKEN for a submitter's entries")
    database = _open(db, create=False)
    row, changed = database.set_hidden(submission_id, hidden, reason)
    entry = f"entry {row.id} ({row.display_name})"
    if changed:
        past = "" if hidden or row.token_id is None else _past_quota(database, row.token_id)
        console.print(f"{entry} is now {state}{past}", markup=False, soft_wrap=True)
    elif hidden and reason is not None:
        console.print(f"{entry} was hidden already; its reason is now {row.hidden_reason!r}")
    else:
        console.print(_unchanged(entry, state))


@leaderboard_app.command("hide")
def hide_command(
    submission_id: EntryOrToken = None,
    token: OfToken = None,
    reason: Annotated[str | None, typer.Option(help="Shown on the submission's page.")] = None,
    db: DbUrl = None,
) -> None:
    """Hide a submission, or all of a submitter's (--token), from the ranking.

    Hidden entries stay stored and their pages say why.
    """
    _set_hidden(db, submission_id, token, True, reason)


@leaderboard_app.command("unhide")
def unhide_command(
    submission_id: EntryOrToken = None,
    token: OfToken = None,
    db: DbUrl = None,
) -> None:
    """Show a hidden submission, or all of a submitter's (--token), in the ranking again."""
    _set_hidden(db, submission_id, token, False, None)


@leaderboard_app.command("provenance")
def provenance_command(
    submission_id: SubmissionId,
    note: Annotated[
        str | None,
        typer.Option(help="What was checked, e.g. 'replies match the provider's API logs'."),
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Remove the mark.")] = False,
    db: DbUrl = None,
) -> None:
    """Mark that you checked who produced a submission ("provenance checked" on the board).

    The server verifies the numbers (replies re-scored, episodes replayed), never which model
    produced them; this mark records an admin's check of that.
    """
    choose = "give --note TEXT (what you checked) or --clear"
    if clear and note is not None:  # as `hide ID --token T` says (walkthrough 19 R3)
        raise ConfigError(f"{choose}, not both")
    if not clear and note is None:
        raise ConfigError(choose)
    row, changed = _open(db, create=False).set_provenance(submission_id, note)
    entry = f"entry {row.id} ({row.display_name})"
    if not changed:
        console.print(_unchanged(entry, "unmarked"), markup=False, soft_wrap=True)
        return
    state = "cleared" if clear else "marked as provenance checked"
    console.print(f"{entry}: {state}", markup=False, soft_wrap=True)


@dataset_app.command("add")
def dataset_add_command(
    path: Annotated[Path, typer.Argument(help="Dataset folder, .parquet or .jsonl file.")],
    name: Annotated[str | None, typer.Option(help="Display name (default: file name).")] = None,
    db: DbUrl = None,
) -> None:
    """Accept submissions on another dataset (its rows are copied into the database)."""
    from coordqa.leaderboard.catalog import register_dataset

    known = register_dataset(_open(db), path, name)
    console.print(f"dataset {known.name!r}: {len(known.rows)} questions, {known.fingerprint}")


@dataset_app.command("list")
def dataset_list_command(db: DbUrl = None) -> None:
    """List the datasets the server accepts: shipped releases and registered ones."""
    from coordqa.leaderboard.catalog import list_datasets

    _print_registrations(list_datasets(_open(db, create=False)), "questions")


def _print_registrations(listing: list[Registration], size: str) -> None:
    """``dataset list`` and ``grid list``: one table, as ``token list`` shows tokens."""
    from rich.table import Column, Table

    # names and fingerprints are what an admin copies: never folded or cut (80 columns)
    table = Table(
        Column("name", no_wrap=True),
        "version",
        Column("fingerprint", no_wrap=True),
        size,
        "registered",
    )
    for known in listing:
        registered = (
            "shipped" if known.registered_at is None else f"{known.registered_at:%Y-%m-%d %H:%M}"
        )
        table.add_row(
            known.name, known.version or "", known.fingerprint[:12], str(known.size), registered
        )
    console.print(table)


@grid_app.command("add")
def grid_add_command(
    path: Annotated[Path, typer.Argument(help="A grid YAML file (as for coordqa agentic grid).")],
    name: Annotated[
        str | None, typer.Option(help="Name submissions give (default: the grid's name).")
    ] = None,
    db: DbUrl = None,
) -> None:
    """Rank agentic runs on a grid: its games, layouts, seeds, horizons, partners and seats.

    A submission names the grid and must hold every one of its episodes for one agent and model.
    """
    from coordqa.leaderboard.catalog import register_grid

    known = register_grid(_open(db), path, name)
    console.print(f"grid {known.name!r}: {known.fingerprint}")


@grid_app.command("list")
def grid_list_command(db: DbUrl = None) -> None:
    """List the grids the server ranks runs on: installed and registered ones (--grid NAME)."""
    from coordqa.leaderboard.catalog import list_grids

    _print_registrations(list_grids(_open(db, create=False)), "tasks")


@leaderboard_app.command("export")
def export_command(
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Folder to write the static site into (new, empty, or an earlier export).",
            callback=generated_folder(BOARD_SITE),
        ),
    ],
    db: DbUrl = None,
) -> None:
    """Write a static copy of the leaderboard (HTML, CSV, JSON) for a static host."""
    from coordqa.cli._progress import ExportDisplay
    from coordqa.leaderboard.site import export_site

    database = _open(db, create=False)
    display = ExportDisplay(Console(stderr=True))
    with nothing_written_to(out):
        try:
            files = export_site(database, out, progress=display)
        finally:
            display.stop()
    source = database.engine.url.render_as_string(hide_password=True)
    console.print(
        f"wrote {len(files)} files from {source} to {out}; open {out / 'index.html'}",
        highlight=False,
        soft_wrap=True,
    )


def _board_draws_seeds(value: str | None) -> None:
    """Refuse ``--seed``, which ``coordqa eval`` takes, saying why a board-run entry has none."""
    if value is not None:
        raise ConfigError(
            "--seed: the board draws the seeds itself and keeps the private split's secret until "
            "the job is done, so that no entry can pick a seed it was tuned on; leave --seed out"
        )


@option_groups
def submit_endpoint_command(
    model: Annotated[
        str,
        typer.Argument(
            help="Model as coordqa eval takes it, e.g. openai/my-model.", callback=model_name
        ),
    ],
    to: Annotated[str, typer.Option("--to", help="Leaderboard URL, e.g. https://lb.example.org")],
    token: Token = None,
    api_base: Annotated[
        str | None,
        typer.Option(help="Your OpenAI-compatible server (none: a model the board hosts)."),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(help="Environment variable holding your server's API key (stored encrypted)."),
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Display name.")] = None,
    details: ModelDetails = ModelDetails(),
    grid: Annotated[
        list[str] | None,
        typer.Option("--grid", help="Also play this agentic grid of the board; repeatable."),
    ] = None,
    agent: Annotated[
        str,
        typer.Option(
            help="The LLM agent that plays the --grid jobs with the model.", callback=player_name
        ),
    ] = "cac",
    insecure: Annotated[
        bool, typer.Option("--insecure", help="Allow plain http to another machine.")
    ] = False,
    seed: Annotated[
        str | None, typer.Option("--seed", hidden=True, callback=_board_draws_seeds)
    ] = None,
) -> None:
    """Ask the board to evaluate MODEL itself: a board-run entry.

    The board queues jobs that run CoordinationQA (the public release and a private split of
    fresh states) and any --grid against the endpoint, with private split and deal seeds it
    keeps secret until each job is done (the sampling seed is sent with every request). Your
    key is stored encrypted and never shown.
    """
    from coordqa.eval_config import api_key_from_env
    from coordqa.leaderboard.client import SubmitError, register_endpoint

    shown = details.checked(display_name=name)
    token = _require_token(token)
    key = None if api_key_env is None else api_key_from_env(api_key_env)
    request = {
        "model": model,
        "api_base": api_base,
        "api_key": key,
        **shown,
        "grids": list(grid or ()),
        "agent": agent,
    }
    try:
        answer = register_endpoint(request, to, token, insecure=insecure)
    except SubmitError as exc:
        import shlex

        command = f"coordqa submit-endpoint {shlex.quote(model)}"
        raise _name_taken(exc, command=command, named=name is not None) from exc
    for job in answer["jobs"]:
        what = "CoordinationQA" if job["kind"] == "qa" else f"grid {job['grid']}"
        console.print(
            f"queued job {job['id']} ({what}): {to.rstrip('/')}/api/jobs/{job['id']}",
            soft_wrap=True,
        )
    for note in _same_registration_notes(answer):
        console.print(note, markup=False, style="yellow", soft_wrap=True)


def _same_registration_notes(answer: Any) -> list[str]:
    """What ``submit-endpoint`` says of the token's earlier jobs of the same endpoint and test.

    Each job ranks its own entry, as each upload does; registering the same endpoint, model and
    name again ranks a second entry beside the first, which ``submit`` says of an upload
    (walkthrough 15: a second registration said nothing). Who may hide or cancel is the admin.
    """
    from coordqa.leaderboard.client import same_registrations

    new_jobs = {job.get("grid"): job.get("id") for job in answer.get("jobs", [])}
    notes = []
    for job, status, entry, grid in same_registrations(answer):
        test = "CoordinationQA" if grid is None else f"grid {grid}"
        if entry is not None:
            then = (
                f"made entry {entry}; the new job makes an entry of its own, ranked beside it. "
                f"If it replaces entry {entry}, ask the board's admin to hide that one "
                f"(`coordqa leaderboard hide {entry} --db DB_URL`)"
            )
        else:
            then = (
                f"is {status}; both jobs make an entry, ranked side by side. If this "
                "registration was a mistake, ask the board's admin to cancel the new job "
                f"(`coordqa leaderboard job cancel {new_jobs.get(grid, 'ID')} --db DB_URL`)"
            )
        notes.append(
            f"job {job} ({test}) of the same endpoint, model and name from this token {then}"
        )
    return notes


@leaderboard_app.command("worker")
def worker_command(
    db: DbUrl = None,
    work_dir: Annotated[
        Path,
        typer.Option(
            "--work-dir",
            help="Folder of the jobs' runs (kept for resuming).",
            callback=output_folder,
        ),
    ] = Path("board-jobs"),
    once: Annotated[
        bool, typer.Option("--once", help="Stop when the queue is empty instead of waiting.")
    ] = False,
    poll_s: Annotated[
        float, typer.Option(help="Seconds between looks at an empty queue.")
    ] = DEFAULT_POLL_S,
    ray_workers: Annotated[
        int,
        typer.Option(
            "--ray-workers",
            help="Run this many workers as Ray tasks (0: one worker in this process).",
        ),
    ] = 0,
    ray_address: Annotated[
        str | None,
        typer.Option("--ray-address", help="Ray cluster to run them on (default: a local Ray)."),
    ] = None,
) -> None:
    """Run the board's queued jobs one at a time (resuming any whose worker stopped)."""
    if ray_workers < 0:
        raise ConfigError(f"--ray-workers must be 0 (no Ray) or more, got {ray_workers}")
    if ray_address is not None and not ray_workers:
        raise ConfigError("--ray-address needs --ray-workers N (how many workers to run there)")
    # its imports, the database and the catalog take seconds (6 on a loaded machine) before it
    # says it waits: Ctrl-C then says it stopped too (walkthrough 21, R5), and so does a
    # SIGTERM, as during a job
    with interrupted_as(STOPPED_IDLE):
        from coordqa.leaderboard.catalog import BoardCatalog
        from coordqa.leaderboard.worker import work, work_on_ray

        database = _open(db, create=False)
        catalog = None if ray_workers else BoardCatalog(database)  # Ray's load their own
    config = WorkerConfig(work_dir=work_dir.resolve(), poll_s=poll_s)

    def said(outcome: Any) -> None:
        console.print(f"job {outcome.job_id}: {_outcome_words(outcome)}", highlight=False)

    def waiting() -> None:
        shown = database.engine.url.render_as_string(hide_password=True)
        line = f"worker {config.name}: waiting for jobs on {shown} (Ctrl-C to stop)"
        console.print(line, highlight=False, soft_wrap=True)  # the URL, whole

    if catalog is None:
        url = database.engine.url.render_as_string(hide_password=False)
        database.dispose()
        done = work_on_ray(url, config, ray_workers, address=ray_address, once=once)
        for outcome in done:
            said(outcome)
    else:
        from coordqa.stops import sigterm_as_ctrl_c

        with sigterm_as_ctrl_c():  # a SIGTERM puts the running job back, as Ctrl-C does
            done = work(database, catalog, config, once=once, on_outcome=said, on_wait=waiting)
    console.print(f"{len(done)} job(s) run; the queue is empty")


def _outcome_words(outcome: Any) -> str:
    """How a job ended, for the worker's log: the submitter's words and the admin's detail."""
    if outcome.status == "done":
        return "done " + (f"(entry {outcome.entry})" if outcome.entry else f"({outcome.note})")
    if outcome.status == "failed":
        return f"failed: {outcome.error} [detail: {outcome.detail}]"
    return "withdrawn while it ran (cancelled, requeued or taken over); left as it is"


@job_app.command("list")
def job_list_command(db: DbUrl = None) -> None:
    """List the board's jobs, newest first (secret seeds once a job is done)."""
    from rich.text import Text

    from coordqa.cli._tables import print_entry
    from coordqa.leaderboard.jobs import job_details, list_jobs

    database = _open(db, create=False)
    jobs = list_jobs(database)
    details_of = job_details(database)
    for job in jobs:
        what = (
            "QA"
            if job["grid"] is None
            else f"grid {job['grid']} (agent {job['settings']['agent']})"
        )
        entry = f", entry {job['entry']}" if job["entry"] is not None else ""
        usage = job["usage"]
        details = [
            f'model {job["model"]}, display name "{job["display_name"]}"',
            "used " + _usage_words(usage, job["settings"]),
            "seeds: " + _job_seeds(job),
        ]
        if job["error"]:
            details.append(f"error: {job['error']}")
        if job["id"] in details_of:
            details.append(f"detail (admin only): {details_of[job['id']]}")
        if job["note"]:
            details.append(f"note: {job['note']}")
        print_entry(
            console,
            Text(f"job {job['id']}: {what}, {job['status']}{entry}", style="bold"),
            [Text(detail) for detail in details],
        )
    if not jobs:
        console.print("no jobs")


def _usage_words(usage: dict[str, float], settings: Mapping[str, object]) -> str:
    """A job's spending, each beside its budget: ``100 of 100 calls, 71,034 of 5,000,000 tokens``.

    Calls as the calls budget counts them (those cut off in flight when the job stopped
    included), the count a budget failure names (walkthrough 16 #178); each beside its budget,
    which the listing did not name (walkthrough 17 #136).
    """
    calls, tokens = int(usage.get("calls", 0)), int(usage.get("tokens", 0))
    seconds = float(usage.get("seconds", 0.0))
    return (
        f"{calls:,}{_of(settings.get('max_calls'))} calls, "
        f"{tokens:,}{_of(settings.get('max_tokens'))} tokens, "
        f"{seconds:,.0f}{_of(settings.get('max_seconds'))} s of worker time"
    )


def _of(budget: object) -> str:
    """`` of 5,000`` for a budget, nothing where a job's settings hold none."""
    return f" of {budget:,.0f}" if isinstance(budget, int | float) else ""


def _job_seeds(job: JobView) -> str:
    """A job's seeds, named by what each draws; the secret ones once the job is done."""
    if job["grid"] is not None:
        return "deals secret until done" if job["seed"] is None else f"deals {job['seed']}"
    private = job["private_seed"]
    shown = "secret until done" if private is None else str(private)
    return f"sampling {job['seed']} (public), private split {shown}"


@job_app.command("cancel")
def job_cancel_command(
    job_id: Annotated[int, typer.Argument(help="Job id (from `job list`).")], db: DbUrl = None
) -> None:
    """Cancel a job: it is not run, and a running one stops at its next model call.

    Its secret seeds stay secret (its endpoint saw the questions they drew).
    """
    from coordqa.leaderboard.jobs import set_job_status

    database = _open(db, create=False)
    change = set_job_status(database, job_id, "cancelled", error="cancelled by the admin")
    if change.changed:
        console.print(f"job {job_id} is cancelled")
    elif change.status == "failed":
        console.print(
            f"job {job_id} had failed already{_on(change.finished)} ({change.error}): "
            "nothing changed; "
            f"`{database.command(f'job requeue {job_id}')}` runs it again",
            soft_wrap=True,
        )
    else:
        console.print(_unchanged(f"job {job_id}", "cancelled", change.finished))


@job_app.command("requeue")
def job_requeue_command(
    job_id: Annotated[int, typer.Argument(help="Job id (from `job list`).")],
    max_calls: Annotated[int | None, typer.Option(help="A new budget of calls.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="A new budget of tokens.")] = None,
    max_seconds: Annotated[float | None, typer.Option(help="A new budget of seconds.")] = None,
    max_disk_mb: Annotated[
        float | None, typer.Option(help="A new budget of megabytes on disk.")
    ] = None,
    db: DbUrl = None,
) -> None:
    """Queue a failed (a budget reached included) or cancelled job again; a done job is final.

    A worker resumes its public run where it stopped, with new secret seeds: a fresh private
    split (or fresh deals), never the questions the endpoint saw before.
    """
    from coordqa.leaderboard.jobs import raise_budget, set_job_status

    database = _open(db, create=False)
    raise_budget(
        database,
        job_id,
        max_calls=max_calls,
        max_tokens=max_tokens,
        max_seconds=max_seconds,
        max_disk_mb=max_disk_mb,
    )
    if set_job_status(database, job_id, "queued").changed:
        console.print(f"job {job_id} is queued again")
    elif any(b is not None for b in (max_calls, max_tokens, max_seconds, max_disk_mb)):
        console.print(f"job {job_id} was queued already; it runs with the new budgets")
    else:
        console.print(_unchanged(f"job {job_id}", "queued"))


def register(app: typer.Typer) -> None:
    """Add ``submit``, ``submit-endpoint`` and the ``leaderboard`` sub-app to the root app."""
    app.command("submit")(submit_command)
    app.command("submit-endpoint")(submit_endpoint_command)
    app.add_typer(leaderboard_app)
