"""Admin commands (tokens, datasets, hiding, export), schema migration, and lazy imports."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import coordqa
from leaderboard_support import add_demo_entries, synthetic_rows
from sqlalchemy import select, text
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.errors import ConfigError
from coordqa.leaderboard.db import (
    SCHEMA_VERSION,
    Database,
    LeaderboardError,
    Submission,
    Token,
    migrate,
    open_database,
)
from coordqa.leaderboard.tokens import list_tokens

runner = CliRunner()


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


@pytest.fixture
def populated(tmp_path: Path) -> tuple[str, list[int]]:
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    rows = synthetic_rows(scenarios=4)
    path = tmp_path / "syn.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert "12 questions" in _cli(
        "leaderboard", "dataset", "add", str(path), "--name", "syn", "--db", url
    )
    db = open_database(url)
    ids = add_demo_entries(db, rows, ["First", "Second <i>x</i>", "Third"])
    db.dispose()
    return url, ids


def test_token_create_prints_a_token_and_stores_only_its_hash(tmp_path: Path) -> None:
    db_file = tmp_path / "lb.sqlite3"
    token = _cli("leaderboard", "token", "create", "alice", "--db", f"sqlite:///{db_file}").strip()
    assert re.fullmatch(r"cqa_[A-Za-z0-9_-]{40,}", token)
    db = open_database(f"sqlite:///{db_file}")
    with db.session() as session:
        stored = session.scalars(select(Token)).one()
    db.dispose()
    assert stored.name == "alice" and stored.token_hash != token and len(stored.token_hash) == 64
    assert token.encode() not in db_file.read_bytes()


def test_grid_add_registers_once_and_refuses_a_changed_grid_under_the_same_name(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    grid = {"name": "g", "agents": ["cac"], "games": [{"game": "collab_capture", "seeds": [0]}]}
    path = tmp_path / "g.yaml"
    path.write_text(json.dumps(grid))
    first = _cli("leaderboard", "grid", "add", str(path), "--db", url).splitlines()[0]
    assert first.startswith("grid 'g': ")
    assert _cli("leaderboard", "grid", "add", str(path), "--db", url).splitlines()[0] == first
    path.write_text(json.dumps({**grid, "games": [{"game": "collab_capture", "seeds": [0, 1]}]}))
    result = runner.invoke(app, ["leaderboard", "grid", "add", str(path), "--db", url])
    assert result.exit_code != 0
    assert "already registered as 'g'" in str(result.exception) and "g-v2" in str(result.exception)
    assert "grid 'g2'" in _cli("leaderboard", "grid", "add", str(path), "--name", "g2", "--db", url)
    taken = runner.invoke(app, ["leaderboard", "grid", "add", str(path), "--name", "smoke"])
    assert "'smoke' is a grid installed with coordqa" in str(taken.exception)
    from coordqa.agentic import get_grid

    smoke = get_grid("smoke")
    again = _cli("leaderboard", "grid", "add", str(smoke.path), "--db", url)
    assert f"grid 'smoke': {smoke.fingerprint}" in again  # the installed grid, unchanged


def test_content_registered_under_another_name_is_refused_with_the_name_it_has(
    tmp_path: Path,
    db_url: str,
) -> None:
    """Blind walkthrough 10: the same grid under a second --name printed a SQLAlchemy traceback
    (UNIQUE constraint failed: grids.fingerprint, #174), and the same dataset under a second
    --name printed the first name, exit 0, ignoring --name in silence (#304)."""
    url = db_url
    grid = {"name": "g", "agents": ["cac"], "games": [{"game": "collab_capture", "seeds": [0]}]}
    path = tmp_path / "g.yaml"
    path.write_text(json.dumps(grid))
    _cli("leaderboard", "grid", "add", str(path), "--db", url)
    rows = synthetic_rows(scenarios=1)
    data = tmp_path / "fresh.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _cli("leaderboard", "dataset", "add", str(data), "--db", url)
    assert "dataset 'fresh'" in _cli("leaderboard", "dataset", "add", str(data), "--db", url)
    for what, given, kept, hint in (
        ("grid", str(path), "g", "submit runs of it with --grid g"),
        ("dataset", str(data), "fresh", "submissions on it rank on the board of 'fresh'"),
        ("grid", str(_smoke_path()), "smoke", "submit runs of it with --grid smoke"),
    ):
        refused = coordqa("leaderboard", what, "add", given, "--name", "other", "--db", url)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert line.startswith(
            f"error: this {what}'s content is already registered as '{kept}' ("
        ), line
        assert "not registered again as 'other'" in line and hint in line, line
        assert f"`coordqa leaderboard {what} list --db {url}` shows" in line, line
    db = open_database(url)
    from coordqa.leaderboard.catalog import known_grids

    assert "other" not in known_grids(db)
    db.dispose()


def test_a_name_names_one_dataset_and_one_grid_on_a_board(tmp_path: Path, db_url: str) -> None:
    """Walkthrough 12: two datasets of other content were both registered as 'syn' (the
    database had no rule against it), and a board listed 'syn' twice. The refusal names the
    registration the name has; the database holds the rule too (a unique name)."""
    from sqlalchemy.exc import IntegrityError

    from coordqa.leaderboard.db import DatasetRow, GridRow

    url = db_url
    for scenarios, file in ((1, "a.jsonl"), (2, "b.jsonl")):
        rows = synthetic_rows(scenarios=scenarios)
        (tmp_path / file).write_text("".join(json.dumps(r) + "\n" for r in rows))
    _cli("leaderboard", "dataset", "add", str(tmp_path / "a.jsonl"), "--name", "syn", "--db", url)
    refused = coordqa(
        "leaderboard", "dataset", "add", str(tmp_path / "b.jsonl"), "--name", "syn", "--db", url
    )
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith("error: a different dataset is already registered as 'syn' ("), line
    assert "register this one under a new name (e.g. with a version: --name syn-v2)" in line
    db = open_database(url)
    with db.session() as session:
        assert list(session.scalars(select(DatasetRow.name))) == ["syn"]
    for table in (DatasetRow, GridRow):  # the database's own rule, for a race past the check
        with pytest.raises(IntegrityError), db.session() as session:
            fields = {"config": {}} if table is GridRow else {"rows": []}
            session.add_all([table(name="same", fingerprint=f"{n}" * 64, **fields) for n in (1, 2)])
    db.dispose()


def test_a_board_holding_a_name_twice_is_upgraded_to_one_registration_a_name(
    db_url: str,
) -> None:
    """Boards written before names were unique may hold a name twice: the later registration
    is renamed NAME-FINGERPRINT (entries refer to it by fingerprint), then the name is unique."""
    from sqlalchemy.exc import IntegrityError

    from coordqa.leaderboard.db import DatasetRow, GridRow

    db = open_database(db_url)
    with db.engine.begin() as connection:  # as a version 6 board was: no unique name
        for table in ("datasets", "grids"):
            connection.execute(text(f"DROP INDEX ix_{table}_name"))
        connection.execute(text("UPDATE meta SET value = '6' WHERE key = 'schema_version'"))
    with db.session() as session:
        for fingerprint in ("a" * 64, "b" * 64):
            session.add(DatasetRow(name="syn", fingerprint=fingerprint, rows=[]))
            session.add(GridRow(name="g", fingerprint=fingerprint, config={}))
    db.dispose()
    db = open_database(db_url)
    with db.session() as session:
        assert list(session.scalars(select(DatasetRow.name).order_by(DatasetRow.id))) == [
            "syn",
            f"syn-{'b' * 12}",
        ]
        assert list(session.scalars(select(GridRow.name).order_by(GridRow.id))) == [
            "g",
            f"g-{'b' * 12}",
        ]
    with pytest.raises(IntegrityError), db.session() as session:
        session.add(DatasetRow(name="syn", fingerprint="c" * 64, rows=[]))
    db.dispose()


def _smoke_path() -> Path:
    from coordqa.agentic import get_grid

    return Path(get_grid("smoke").path)


def test_hide_and_unhide(populated: tuple[str, list[int]]) -> None:
    url, ids = populated
    assert "now hidden" in _cli("leaderboard", "hide", str(ids[0]), "--reason", "test", "--db", url)
    db = open_database(url)
    with db.session() as session:
        assert session.get(Submission, ids[0]).hidden is True  # type: ignore[union-attr]
    assert "now visible" in _cli("leaderboard", "unhide", str(ids[0]), "--db", url)
    with pytest.raises(LeaderboardError, match="no submission with id 999"):
        db.set_hidden(999, True)
    db.dispose()


def test_an_unknown_entry_id_says_where_entry_ids_are_shown(
    populated: tuple[str, list[int]],
) -> None:
    """Blind walkthrough: ``hide 99`` said "list them with GET /api/entries": no host, and no
    word of the board's Entry column that the argument's help names."""
    url, _ = populated
    for command in ("hide", "unhide"):
        refused = coordqa("leaderboard", command, "99", "--db", url)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert line.startswith("error: no submission with id 99: an entry's id is"), line
        assert "Entry column" in line and "http://HOST:PORT/api/entries" in line
        assert "/submissions/ID" in line


def _entries_of(db: Database, folder: Path, token_id: int, names: tuple[str, ...]) -> None:
    """One entry of token ``token_id`` per name, on a synthetic dataset 'syn' registered here."""
    from leaderboard_support import synthetic_bundle

    from coordqa.leaderboard.catalog import BoardCatalog, register_dataset
    from coordqa.leaderboard.intake import accept

    rows = synthetic_rows(scenarios=1)
    (folder / "syn.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    register_dataset(db, folder / "syn.jsonl", "syn")
    for name in names:
        body = json.dumps(synthetic_bundle(rows, display_name=name, run=name)).encode()
        accept(db, BoardCatalog(db), body, token_id=token_id)


def test_token_list_revoke_and_hiding_a_submitters_entries(tmp_path: Path) -> None:

    from coordqa.leaderboard.tokens import authenticate

    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    secret = _cli("leaderboard", "token", "create", "alice", "--db", url).strip()
    _cli("leaderboard", "token", "create", "bob", "--db", url)
    db = open_database(url)
    _entries_of(db, tmp_path, token_id=1, names=("a1", "a2"))
    listing = _cli("leaderboard", "token", "list", "--db", url)
    assert re.search(r"1 +│ alice +│ \S+ \S+ +│ +│ 2 +│ 0", listing), listing
    assert secret not in listing
    revoked = _cli("leaderboard", "token", "revoke", "1", "--hide-entries", "--db", url)
    assert "token 1 (alice) is revoked" in revoked and "2 entries of token 1" in revoked
    assert authenticate(db, f"Bearer {secret}") is None
    assert re.search(r"1 +│ alice .*│ 2 +│ 2", _cli("leaderboard", "token", "list", "--db", url))
    assert "token 2 (bob) has no visible entries: nothing changed" in _cli(
        "leaderboard", "hide", "--token", "2", "--db", url
    )
    bad = runner.invoke(app, ["leaderboard", "token", "create", "eve\x07", "--db", url])
    assert "U+0007" in str(bad.exception)
    db.dispose()


def test_unhide_token_shows_again_exactly_the_hidden_entries_of_that_token(
    tmp_path: Path,
) -> None:
    """Blind walkthrough: ``hide --token 1`` hid 7 entries in one command, but ``unhide --token
    1`` said "No such option: --token" and every id had to be shown again by hand."""
    from leaderboard_support import synthetic_bundle

    from coordqa.leaderboard.catalog import BoardCatalog, register_dataset
    from coordqa.leaderboard.intake import accept

    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    _cli("leaderboard", "token", "create", "alice", "--db", url)
    _cli("leaderboard", "token", "create", "bob", "--db", url)
    db = open_database(url)
    rows = synthetic_rows(scenarios=1)
    (tmp_path / "syn.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    register_dataset(db, tmp_path / "syn.jsonl", "syn")
    ids = {
        (token, name): accept(
            db,
            BoardCatalog(db),
            json.dumps(synthetic_bundle(rows, display_name=name, run=name)).encode(),
            token_id=token,
        ).id
        for token, name in ((1, "a1"), (1, "a2"), (1, "a3"), (2, "b1"))
    }
    assert "3 entries of token 1" in _cli("leaderboard", "hide", "--token", "1", "--db", url)
    _cli("leaderboard", "hide", "--token", "2", "--db", url)  # hidden with its token's entries
    _cli("leaderboard", "unhide", str(ids[1, "a3"]), "--db", url)  # 2 of alice's stay hidden
    shown = _cli("leaderboard", "unhide", "--token", "1", "--db", url)
    assert "2 entries of token 1 are now visible" in shown, shown
    with db.session() as session:
        hidden = {row.id: row.hidden for row in session.scalars(select(Submission))}
    assert hidden == {
        ids[1, "a1"]: False,
        ids[1, "a2"]: False,
        ids[1, "a3"]: False,
        ids[2, "b1"]: True,
    }
    assert "token 1 (alice) has no hidden entries: nothing changed" in _cli(
        "leaderboard", "unhide", "--token", "1", "--db", url
    )
    # blind walkthrough 15 R2: one entry read "1 entries of token 2 are now visible"
    one = _cli("leaderboard", "unhide", "--token", "2", "--db", url)
    assert "1 entry of token 2 is now visible" in one, one
    both = runner.invoke(app, ["leaderboard", "unhide", "1", "--token", "1", "--db", url])
    assert "not both" in str(both.exception)
    unknown = runner.invoke(app, ["leaderboard", "unhide", "--token", "9", "--db", url])
    assert "no token with id 9" in str(unknown.exception)
    db.dispose()


def test_unhide_token_undoes_the_token_wide_hide_and_keeps_an_entry_hidden_on_its_own(
    tmp_path: Path,
) -> None:
    """Walkthrough 18 #193-#194: ``hide --token bob`` hid 4 entries, and ``unhide --token bob``
    showed 5: an entry hidden on its own (superseded by a newer run) was ranked again without a
    word, and so were a revoked token's. ``unhide --token`` undoes ``hide --token`` (and
    ``token revoke --hide-entries``): an entry hidden on its own stays hidden, and is named with
    the command that shows it; a revoked token's entries shown again are said to be."""
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    _cli("leaderboard", "token", "create", "alice", "--db", url)
    _cli("leaderboard", "token", "create", "bob", "--db", url)
    db = open_database(url)
    _entries_of(db, tmp_path, token_id=2, names=("b1", "b2", "b3", "b4"))
    assert "entry 1 (b1) is now hidden" in _cli(
        "leaderboard", "hide", "1", "--reason", "superseded by entry 4", "--db", url
    )
    assert "3 entries of token 2 are now hidden" in _cli(
        "leaderboard", "hide", "--token", "bob", "--db", url
    )
    kept = (
        "entry 1 stays hidden: it was hidden on its own ('superseded by entry 4'), not by hide "
        f"--token; `coordqa leaderboard unhide 1 --db {url}` shows it"
    )
    shown = " ".join(_cli("leaderboard", "unhide", "--token", "bob", "--db", url).split())
    assert shown == f"3 entries of token 2 are now visible; {kept}", shown
    with db.session() as session:
        hidden = {row.id: row.hidden for row in session.scalars(select(Submission))}
    assert hidden == {1: True, 2: False, 3: False, 4: False}
    again = " ".join(_cli("leaderboard", "unhide", "--token", "bob", "--db", url).split())
    assert again == (
        f"token 2 (bob) has no entries hidden by hide --token: nothing changed; {kept}"
    ), again
    revoked = _cli("leaderboard", "token", "revoke", "bob", "--hide-entries", "--db", url)
    assert "3 entries of token 2 are now hidden" in revoked, revoked
    shown = " ".join(_cli("leaderboard", "unhide", "--token", "bob", "--db", url).split())
    assert shown == (
        f"3 entries of token 2 are now visible; {kept}; token 2 (bob) is revoked: its entries "
        "are ranked again, though it can send no more"
    ), shown
    assert "entry 1 (b1) is now visible" in _cli("leaderboard", "unhide", "1", "--db", url)
    db.dispose()


def test_unhide_that_takes_a_token_past_its_quota_says_so(tmp_path: Path) -> None:
    """Walkthrough 18 #77-#81: ``unhide 1`` took a token to 6 visible entries past its quota of
    5 without a word; its next upload was refused. The admin may (the quota is the board's rule
    for submitters, "ask the leaderboard admin ... to raise the quota"), so unhide still shows
    the entry, and says the token is past the quota the board was last served with."""
    from coordqa.leaderboard.server import create_app
    from coordqa.leaderboard.settings import SubmitterLimits

    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    _cli("leaderboard", "token", "create", "alice", "--db", url)
    db = open_database(url)
    _entries_of(db, tmp_path, token_id=1, names=("a1", "a2", "a3"))
    assert "now hidden" in _cli("leaderboard", "hide", "1", "--db", url)
    assert "now hidden" in _cli("leaderboard", "hide", "2", "--db", url)
    create_app(url, limits=SubmitterLimits(quota=2)).state.db.dispose()  # as `serve --quota 2`
    within = _cli("leaderboard", "unhide", "1", "--db", url)
    assert within.strip() == "entry 1 (a1) is now visible", within
    past = " ".join(_cli("leaderboard", "unhide", "2", "--db", url).split())
    assert past == (
        "entry 2 (a2) is now visible; token 1 (alice) now has 3 visible entries, past the quota "
        "of 2 per token this board was last served with (serve --quota): its uploads and "
        "registrations are refused until 2 entries are hidden or the quota is raised"
    ), past
    _cli("leaderboard", "hide", "--token", "alice", "--db", url)
    shown = " ".join(_cli("leaderboard", "unhide", "--token", "alice", "--db", url).split())
    assert shown == (
        "3 entries of token 1 are now visible; token 1 (alice) now has 3 visible entries, past "
        "the quota of 2 per token this board was last served with (serve --quota): its uploads "
        "and registrations are refused until 2 entries are hidden or the quota is raised"
    ), shown
    db.dispose()


def test_provenance_mark(populated: tuple[str, list[int]]) -> None:
    url, ids = populated
    note = "replies match the provider's request logs"
    marked = _cli("leaderboard", "provenance", str(ids[0]), "--note", note, "--db", url)
    assert "marked as provenance checked" in marked
    db = open_database(url)
    with db.session() as session:
        row = session.get(Submission, ids[0])
        assert row is not None and row.provenance_note == note and row.provenance_at is not None
    _cli("leaderboard", "provenance", str(ids[0]), "--clear", "--db", url)
    with db.session() as session:
        assert session.get(Submission, ids[0]).provenance_at is None  # type: ignore[union-attr]
    db.dispose()
    refused = runner.invoke(app, ["leaderboard", "provenance", str(ids[0]), "--db", url])
    assert "--note TEXT" in str(refused.exception)


def test_provenance_says_not_both_and_nothing_changed_as_hide_does(
    populated: tuple[str, list[int]],
) -> None:
    """Walkthrough 19 R3 (#147, #149): ``provenance 6 --clear --note x`` said "give --note TEXT
    or --clear" though both were given (``hide 9 --token carol`` says "not both"), and clearing a
    cleared mark said "cleared" again where hide, job cancel and token revoke say "... already:
    nothing changed" (exit 0)."""
    url, ids = populated
    entry = str(ids[0])
    both = coordqa("leaderboard", "provenance", entry, "--clear", "--note", "x", "--db", url)
    assert both.returncode == 2, both.stderr
    assert both.stderr.strip() == "error: give --note TEXT (what you checked) or --clear, not both"
    _cli("leaderboard", "provenance", entry, "--note", "checked the logs", "--db", url)
    cleared = " ".join(_cli("leaderboard", "provenance", entry, "--clear", "--db", url).split())
    assert cleared.endswith(": cleared") and "nothing changed" not in cleared, cleared
    name = cleared.removesuffix(": cleared")
    again = coordqa("leaderboard", "provenance", entry, "--clear", "--db", url)
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stdout.split())
    assert said == f"{name} was unmarked already: nothing changed", said
    never = " ".join(_cli("leaderboard", "provenance", str(ids[1]), "--clear", "--db", url).split())
    assert never.endswith("was unmarked already: nothing changed"), never  # never marked


def test_export_writes_a_static_site_with_working_links(
    populated: tuple[str, list[int]], tmp_path: Path
) -> None:
    url, ids = populated
    _cli("leaderboard", "hide", str(ids[2]), "--db", url)
    out = tmp_path / "site"
    assert "files" in _cli("leaderboard", "export", "--out", str(out), "--db", url)
    assert "coordinationqa" in (out / "index.html").read_text()  # the default board
    index = (out / "boards" / "syn-all.html").read_text()
    assert "First" in index and "Second &lt;i&gt;x&lt;/i&gt;" in index and "Third" not in index
    assert (out / "submissions" / f"{ids[0]}.html").exists()
    assert not (out / "submissions" / f"{ids[2]}.html").exists()
    assert (out / "boards" / "syn-hanabi.html").exists() and (out / "static" / "sort.js").exists()
    entries = json.loads((out / "boards" / "syn-all.json").read_text())["entries"]
    assert [e["display_name"] for e in entries] == ["First", "Second <i>x</i>"]
    for page in [
        out / "index.html",
        out / "boards" / "syn-hanabi.html",
        out / "submissions" / f"{ids[1]}.html",
    ]:
        for href in re.findall(r'(?:href|src)="([^"#]+)"', page.read_text()):
            if not href.startswith("http"):
                assert (page.parent / href).resolve().exists(), (page, href)


def test_schema_is_versioned_and_a_newer_database_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    assert migrate(db.engine) == SCHEMA_VERSION  # already current: nothing to do
    with db.engine.begin() as connection:
        connection.execute(text("UPDATE meta SET value = '99' WHERE key = 'schema_version'"))
    db.dispose()
    with pytest.raises(LeaderboardError, match="schema version 99, newer"):
        open_database(url)


GOLDEN = Path(__file__).parent / "golden" / "leaderboard"


def test_a_version_1_database_is_upgraded_in_place(db_url: str) -> None:
    from sqlalchemy import create_engine, inspect

    dialect = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    schema = (GOLDEN / f"schema_v1.{dialect}.sql").read_text()
    engine = create_engine(db_url)
    with engine.begin() as connection:
        for statement in schema.split(";"):
            if statement.strip(" \n-").strip() and "CREATE" in statement:
                connection.execute(text(statement))
        connection.execute(text("INSERT INTO meta VALUES ('schema_version', '1')"))
        connection.execute(
            text("INSERT INTO tokens (id, name, token_hash, created_at) VALUES (1, 'old', :h, :t)"),
            {"h": "0" * 64, "t": "2024-01-01 00:00:00"},
        )
        connection.execute(
            text(
                "INSERT INTO submissions (id, digest, track, display_name, provider, model_name, "
                "coordqa_version, trials, metrics, mismatches, bundle, token_id, created_at, "
                "hidden) VALUES (1, :d, 'qa', 'Old entry', 'p', 'm', '0.1', 1, '{}', '[]', '{}', "
                "1, :t, true)"
            ),
            {"d": "a" * 64, "t": "2024-01-01 00:00:00"},
        )
        connection.execute(
            text(
                "INSERT INTO samples (submission_id, question_id, trial, scenario_id, game, "
                "question_type, status, correct, text) VALUES (1, 'q', 0, 's', 'g', 'EC', "
                "'answered', true, 'Answer: A')"
            )
        )
    assert migrate(engine) == 1
    found = inspect(engine)
    assert "grids" in found.get_table_names()
    assert {"text", "error"}.isdisjoint(c["name"] for c in found.get_columns("samples"))
    assert {"provenance_at", "provenance_note", "flags", "grid_fingerprint", "hidden_by_token"} <= {
        c["name"] for c in found.get_columns("submissions")
    }
    assert "revoked_at" in {c["name"] for c in found.get_columns("tokens")}
    engine.dispose()
    db = open_database(db_url)
    with db.session() as session:
        old = session.get(Submission, 1)
        assert old is not None and old.display_name == "Old entry" and old.flags == []
        # hidden before the board kept how: taken as hidden on its own, kept by unhide --token
        assert old.hidden is True and old.hidden_by_token is False
        assert session.get(Token, 1).revoked_at is None  # type: ignore[union-attr]
        version = session.execute(text("SELECT value FROM meta")).scalar()
    assert version == str(SCHEMA_VERSION)
    assert db.set_hidden_of(1, False) == 0 and db.hidden_on_their_own(1) == [(1, None)]
    db.dispose()


def test_unsupported_database_url() -> None:
    with pytest.raises(Exception, match="unsupported database URL"):
        open_database("mysql://x")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("postgresql://...", "cannot connect"),  # the README's placeholder: a host idna refuses
        ("postgresql://u@h:notaport/db", "not a database URL"),
        ("postgresql://u:secretpw@127.0.0.1:1/db", "cannot connect"),  # nothing listens on port 1
    ],
)
def test_a_database_that_cannot_be_reached_is_one_error_line_without_its_password(
    url: str, why: str
) -> None:
    """Each was a traceback (UnicodeError, ValueError, OperationalError) from every command."""
    from cli_support import coordqa

    result = coordqa("leaderboard", "job", "list", "--db", url)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    assert why in result.stderr and "--db" in result.stderr
    assert "secretpw" not in result.stderr


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["job", "list"], ["export"]])
def test_a_sqlite_file_in_a_missing_folder_is_said_so(command: list[str], tmp_path: Path) -> None:
    """Walkthrough 9 #320: SQLite's "unable to open database file" came with "check that the
    database server is running"; the cause was the folder of the file, which did not exist."""
    from cli_support import coordqa

    url = f"sqlite:///{tmp_path / 'nodir' / 'board.db'}"
    result = coordqa(
        "leaderboard",
        *command,
        "--db",
        url,
        *(["--out", tmp_path / "site"] if command == ["export"] else []),
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"error: cannot open the leaderboard database at {url}: its folder {tmp_path / 'nodir'} "
        f"does not exist; create it (mkdir -p {tmp_path / 'nodir'}) or give --db (or "
        "COORDQA_LEADERBOARD_DB) a file in an existing folder\n"
    ), result.stderr
    assert not (tmp_path / "nodir").exists()


@pytest.mark.parametrize(
    "command",
    [["export", "--out", "site"], ["token", "list"], ["grid", "list"], ["job", "list"],
     ["hide", "1"]],
)  # fmt: skip
def test_a_mistyped_sqlite_file_of_a_board_is_offered_the_file_beside_it(
    command: list[str], tmp_path: Path
) -> None:
    """Walkthrough 20 R2: ``leaderboard export --db sqlite:///bord.db`` beside board.db said
    no board was there and nothing more, while every other missing file of a command is offered
    its closest name (:func:`coordqa.given_paths.missing_path`). A command that reads a board
    offers it, and still creates no file; one that makes a board (``serve``, ``token create``,
    ``grid add``, ``dataset add``) creates it as before."""
    made = coordqa("leaderboard", "token", "create", "alice", "--db", "sqlite:///board.db",
                   cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    result = coordqa("leaderboard", *command, "--db", "sqlite:///bord.db", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "error: no leaderboard database at sqlite:///bord.db: the SQLite file bord.db does not "
        "exist. Did you mean 'board.db'? `coordqa leaderboard serve --db sqlite:///bord.db` "
        "creates one there; give --db (or COORDQA_LEADERBOARD_DB) with the URL the server uses\n"
    ), result.stderr
    assert not (tmp_path / "bord.db").exists() and not (tmp_path / "site").exists()


def test_cli_help_does_not_import_the_server_stack() -> None:
    code = (
        "import sys\nfrom coordqa.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "print([m for m in ('fastapi', 'sqlalchemy', 'jinja2', 'uvicorn') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert "submit" in done.stdout and "leaderboard" in done.stdout


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--ray-workers", "-1"], "--ray-workers must be 0 (no Ray) or more, got -1"),
        (["--ray-address", "auto"], "--ray-address needs --ray-workers N"),
    ],
)
def test_worker_ray_options_are_checked(
    populated: tuple[str, list[int]], tmp_path: Path, options: list[str], message: str
) -> None:
    from cli_support import coordqa

    url, _ = populated
    result = coordqa("leaderboard", "worker", "--db", url, "--once", *options, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr, result


def test_admin_hints_run_as_printed_act_on_the_database_given(tmp_path: Path) -> None:
    """The fifth walkthrough ran the hints of a refusal made with --db as printed: they named
    no --db and went to the default database. Each hint carries the --db given."""
    import shlex

    url = f"sqlite:///{tmp_path / 'my board.sqlite3'}"
    _cli("leaderboard", "token", "create", "alice", "--db", url)
    refused = coordqa("leaderboard", "token", "create", "ALICE", "--db", url)
    hints = re.findall(r"`([^`]+)`", refused.stderr)
    assert [shlex.split(hint)[:4] for hint in hints] == [
        ["coordqa", "leaderboard", "token", "list"],
        ["coordqa", "leaderboard", "token", "revoke"],
    ]
    listed, revoked = (coordqa(*shlex.split(hint)[1:]) for hint in hints)
    assert listed.returncode == 0 and "alice" in listed.stdout, listed.stderr
    assert revoked.returncode == 0, revoked.stderr
    unknown = coordqa("leaderboard", "job", "cancel", "9", "--db", url)
    assert f"see `coordqa leaderboard job list --db '{url}'`" in unknown.stderr, unknown.stderr
    missing = f"sqlite:///{tmp_path / 'none.sqlite3'}"
    absent = coordqa("leaderboard", "token", "list", "--db", missing)
    assert f"`coordqa leaderboard serve --db {missing}` creates one" in absent.stderr


def test_a_second_token_for_a_name_is_refused_until_the_first_is_revoked(tmp_path: Path) -> None:
    """Two live tokens named alice would make two submitters the list cannot tell apart."""
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    _cli("leaderboard", "token", "create", "alice", "--db", url)
    for again in ("alice", "ALICE", "al ice", "\u0430lice"):  # case, spaces, Cyrillic a
        refused = coordqa("leaderboard", "token", "create", again, "--db", url)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert "token 1 is already for 'alice'" in line, line
        assert "coordqa leaderboard token list" in line and "token revoke 1" in line, line
    _cli("leaderboard", "token", "revoke", "1", "--db", url)
    assert _cli("leaderboard", "token", "create", "alice", "--db", url).startswith("cqa_")
    db = open_database(url)
    assert [(info.name, info.revoked_at is None) for info in list_tokens(db)] == [
        ("alice", False),
        ("alice", True),
    ]
    db.dispose()


def test_token_revoke_takes_the_name_given_at_create(tmp_path: Path, db_url: str) -> None:
    """Blind walkthrough 10 #269: ``token revoke bob`` (the name ``token create`` took) said
    "Invalid value for 'TOKEN_ID': Input should be a valid integer"."""
    url = db_url
    for name in ("alice", "bob"):
        _cli("leaderboard", "token", "create", name, "--db", url)
    _cli("leaderboard", "token", "revoke", "1", "--db", url)
    _cli("leaderboard", "token", "create", "alice", "--db", url)  # token 3, alice's live one
    assert "token 3 (alice) is revoked" in _cli(
        "leaderboard", "token", "revoke", "alice", "--db", url
    )
    revoked = _cli("leaderboard", "token", "revoke", "bob", "--hide-entries", "--db", url)
    assert "token 2 (bob) is revoked" in revoked, revoked
    assert "token 2 (bob) has no visible entries: nothing changed" in revoked, revoked
    for name, why in (
        ("alice", "its tokens (1, 3) are revoked already"),
        ("carol", "no token has"),
    ):
        refused = coordqa("leaderboard", "token", "revoke", name, "--db", url)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert line.startswith(f"error: no live token named '{name}': {why}"), line
        assert "coordqa leaderboard token list" in line, line
    db = open_database(url)
    assert all(info.revoked_at is not None for info in list_tokens(db))
    db.dispose()


def test_revoking_a_revoked_token_is_a_no_op_that_says_so(tmp_path: Path) -> None:
    """Walkthrough 12: ``token revoke bob`` again exited 2 ("no live token named 'bob'") while
    ``token revoke 2`` again said "is revoked" as if it had just revoked it. The token is revoked
    either way: both say nothing changed, exit 0."""
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    _cli("leaderboard", "token", "create", "bob", "--db", url)
    assert "token 1 (bob) is revoked" in _cli("leaderboard", "token", "revoke", "bob", "--db", url)
    for given in ("bob", "1"):
        again = coordqa("leaderboard", "token", "revoke", given, "--db", url)
        assert again.returncode == 0, again.stderr
        said = " ".join(again.stdout.split())
        assert said.startswith("token 1 (bob) was revoked already on "), said
        assert said.endswith("nothing changed"), said
    db = open_database(url)
    [info] = list_tokens(db)
    db.dispose()
    assert info.revoked_at is not None
    again = " ".join(_cli("leaderboard", "token", "revoke", "1", "--db", url).split())
    assert f"on {info.revoked_at:%Y-%m-%d %H:%M} UTC" in again  # the first revocation's time


def test_hide_and_unhide_take_a_token_by_id_or_name_as_revoke_does(tmp_path: Path) -> None:
    """Walkthrough 12: ``hide --token bob`` was "not a valid integer" while ``token revoke
    bob`` took the name; one rule reads a token for every admin command."""
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    for name in ("alice", "bob"):
        _cli("leaderboard", "token", "create", name, "--db", url)
    db = open_database(url)
    _entries_of(db, tmp_path, token_id=2, names=("b1", "b2"))
    db.dispose()
    hidden = _cli("leaderboard", "hide", "--token", "bob", "--db", url)
    assert "2 entries of token 2 are now hidden" in hidden, hidden
    _cli("leaderboard", "token", "revoke", "bob", "--db", url)
    shown = _cli("leaderboard", "unhide", "--token", "bob", "--db", url)  # revoked: its only token
    assert "2 entries of token 2 are now visible" in shown, shown
    # walkthrough 16 #141: "0 entries of token 2 are now visible" read as "it has none visible"
    said = " ".join(_cli("leaderboard", "hide", "--token", "1", "--db", url).split())
    assert said == "token 1 (alice) has no visible entries: nothing changed", said
    said = " ".join(_cli("leaderboard", "unhide", "--token", "bob", "--db", url).split())
    assert said == "token 2 (bob) has no hidden entries: nothing changed", said
    # a new reason given to entries hidden already is a change, and says so; none keeps theirs
    _cli("leaderboard", "hide", "--token", "bob", "--reason", "spam", "--db", url)
    said = " ".join(_cli("leaderboard", "hide", "--token", "bob", "--db", url).split())
    assert said == "token 2 (bob) has no visible entries: nothing changed", said
    db = open_database(url)
    with db.session() as session:
        assert set(session.scalars(select(Submission.hidden_reason))) == {"spam"}
    db.dispose()
    said = " ".join(
        _cli("leaderboard", "hide", "--token", "bob", "--reason", "copied", "--db", url).split()
    )
    new_reason = "the reason of its 2 hidden entries is now 'copied'"
    assert said == f"token 2 (bob) has no visible entries; {new_reason}", said
    db = open_database(url)
    with db.session() as session:
        assert set(session.scalars(select(Submission.hidden_reason))) == {"copied"}
    db.dispose()
    _cli("leaderboard", "unhide", "--token", "bob", "--db", url)
    refused = coordqa("leaderboard", "hide", "--token", "carol", "--db", url)
    assert refused.returncode == 2, refused.stderr
    assert "no live token named 'carol': no token has that name" in refused.stderr
    missing = coordqa("leaderboard", "unhide", "--token", "9", "--db", url)
    assert missing.returncode == 2 and "no token with id 9" in missing.stderr, missing.stderr


def test_a_token_is_found_by_any_name_token_create_would_call_the_same(tmp_path: Path) -> None:
    """Walkthrough 16 #140: ``hide --token Bob`` failed "no live token named 'Bob'" while
    ``token create`` calls ``Bob`` and ``bob`` one name (ignoring case, spaces and look-alike
    letters). The lookup uses the same equality, and refuses only a name that matches several
    tokens, naming them."""
    from coordqa.leaderboard.db import LeaderboardError, Token
    from coordqa.leaderboard.tokens import create_token, token_id_of

    db = open_database(f"sqlite:///{tmp_path / 'lb.sqlite3'}")
    create_token(db, "alice")
    create_token(db, "bob")
    for given in ("Bob", " B O B ", "\uff42\uff4f\uff42", "b\u043eb"):  # fullwidth; Cyrillic o
        assert token_id_of(db, given) == 2, given
    assert token_id_of(db, "ALICE") == 1
    with pytest.raises(LeaderboardError, match="no token has that name"):
        token_id_of(db, "bobby")
    # two live tokens named alike (stored before token create refused it): which one is meant?
    with db.session() as session:
        session.add(Token(name="Alice", token_hash="0" * 64))
    with pytest.raises(LeaderboardError) as several:
        token_id_of(db, "alice")
    said = str(several.value)
    assert "'alice' names 2 live tokens: 1 (alice), 3 (Alice)" in said, said
    assert "give one of their ids" in said, said
    db.dispose()
    hidden = _cli(
        "leaderboard", "hide", "--token", "Bob", "--db", f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    )
    assert "token 2 (bob)" in hidden or "of token 2" in hidden, hidden


def test_grid_list_and_dataset_list_show_what_the_board_ranks(tmp_path: Path, db_url: str) -> None:
    """Blind walkthrough 10 #177: ``leaderboard grid`` had only ``add``: no way to see which
    grids a board ranks (the names ``--grid`` takes) short of reading its database."""
    from coordqa.agentic import get_grid, load_grid

    url = db_url
    grid = {"name": "g", "agents": ["cac"], "games": [{"game": "collab_capture", "seeds": [0, 1]}]}
    path = tmp_path / "g.yaml"
    path.write_text(json.dumps(grid))
    _cli("leaderboard", "grid", "add", str(path), "--name", "mine", "--db", url)
    rows = synthetic_rows(scenarios=2)
    data = tmp_path / "syn.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _cli("leaderboard", "dataset", "add", str(data), "--name", "syn", "--db", url)
    tasks = len(load_grid(path).tasks())
    listed = coordqa("leaderboard", "grid", "list", "--db", url)
    assert listed.returncode == 0, listed.stderr
    smoke = get_grid("smoke")
    assert re.search(
        rf"│ smoke +│ {smoke.version} +│ {smoke.fingerprint[:12]} │ "
        rf"{len(smoke.config.tasks())} +│ shipped +│",
        listed.stdout,
    ), listed.stdout
    fingerprint = load_grid(path).fingerprint()[:12]
    assert re.search(
        rf"│ mine +│ \S* *│ {fingerprint} │ {tasks} +│ \d{{4}}-\d\d-\d\d \d\d:\d\d │", listed.stdout
    ), listed.stdout
    datasets = coordqa("leaderboard", "dataset", "list", "--db", url)
    assert datasets.returncode == 0, datasets.stderr
    assert re.search(r"│ syn +│ \S* *│ [0-9a-f]{12} │ 6 +│ \d{4}-", datasets.stdout), (
        datasets.stdout
    )
    assert re.search(r"│ example +│ \S+ +│ [0-9a-f]{12} │ 12 +│ shipped", datasets.stdout)


@pytest.mark.parametrize("what", ["grid", "dataset"])
def test_a_registration_that_races_another_is_answered_not_a_traceback(
    tmp_path: Path, db_url: str, what: str
) -> None:
    """Two admins adding the same content at once: the second insert collides with the first's
    committed row (the unique fingerprint); it is checked again and answered as any content the
    board holds, never with the database's IntegrityError."""
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    from coordqa.leaderboard.catalog import register_dataset, register_grid

    if what == "grid":
        path = tmp_path / "g.yaml"
        path.write_text(
            json.dumps({"name": "g", "agents": ["cac"], "games": [{"game": "collab_capture"}]})
        )
        register = register_grid
    else:
        path = tmp_path / "g.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in synthetic_rows(scenarios=1)))
        register = register_dataset  # type: ignore[assignment]
    other = open_database(db_url)
    collided = []

    def the_other_admin_commits_first(session: Session, *_: object) -> None:
        collided.append(register(other, path, "g").fingerprint)

    db = open_database(db_url)
    event.listen(Session, "before_flush", the_other_admin_commits_first, once=True)
    try:
        with pytest.raises(ConfigError, match="already registered as 'g'"):
            register(db, path, "mine")
    finally:
        event.remove(Session, "before_flush", the_other_admin_commits_first)
        other.dispose()
    assert len(collided) == 1  # the race happened: the other's row came between check and insert
    assert register(db, path, "g").fingerprint == collided[0]  # the same name: a no-op
    db.dispose()


def test_hiding_a_hidden_entry_or_showing_a_visible_one_says_nothing_changed(
    populated: tuple[str, list[int]],
) -> None:
    """Walkthrough 13 #112: ``unhide 1`` of a visible entry said "entry 1 (Random) is now
    visible", as if it had changed it. Like ``token revoke`` of a revoked token, a command that
    finds the entry in the state asked for says so and exits 0; a hidden entry keeps its reason
    unless a new one is given."""
    url, ids = populated
    entry = ids[0]
    shown = " ".join(_cli("leaderboard", "unhide", str(entry), "--db", url).split())
    assert shown == f"entry {entry} (First) was visible already: nothing changed", shown
    hidden = " ".join(
        _cli("leaderboard", "hide", str(entry), "--reason", "dup", "--db", url).split()
    )
    assert hidden == f"entry {entry} (First) is now hidden", hidden
    again = " ".join(_cli("leaderboard", "hide", str(entry), "--db", url).split())
    assert again == f"entry {entry} (First) was hidden already: nothing changed", again
    db = open_database(url)
    with db.session() as session:
        kept = session.get(Submission, entry)
        assert kept is not None and kept.hidden_reason == "dup"  # a bare hide cleared it
    db.dispose()
    reason = " ".join(
        _cli("leaderboard", "hide", str(entry), "--reason", "withdrawn", "--db", url).split()
    )
    assert reason == f"entry {entry} (First) was hidden already; its reason is now 'withdrawn'"
    assert f"entry {entry} (First) is now visible" in _cli(
        "leaderboard", "unhide", str(entry), "--db", url
    )


def test_entries_beside_a_new_one_are_the_submitters_own_uploads(tmp_path: Path) -> None:
    """Walkthrough 13 #252: submit's note named a board-run entry (the board's own measurement
    of the token's endpoint, which no upload replaces) among the entries a new upload might
    replace. Only the token's uploaded entries of the same model and test are beside it."""
    from leaderboard_support import synthetic_bundle

    from coordqa.leaderboard.catalog import BoardCatalog, register_dataset
    from coordqa.leaderboard.intake import admit, parse_bundle
    from coordqa.leaderboard.tokens import create_token

    db = open_database(f"sqlite:///{tmp_path / 'lb.sqlite3'}")
    rows = synthetic_rows(scenarios=2)
    path = tmp_path / "syn.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    register_dataset(db, path, name="syn")
    create_token(db, "alice")
    [alice] = list_tokens(db)
    catalog = BoardCatalog(db)

    def store(run: str, trials: int, origin: str) -> int:
        body = json.dumps(synthetic_bundle(rows, trials=trials, run=run)).encode()
        bundle, data = parse_bundle(body)
        return admit(db, catalog, bundle, data, alice.id, origin=origin).id

    uploaded = store("first", 2, "uploaded")
    store("board", 3, "board-run")
    new = store("second", 3, "uploaded")
    assert db.entries_beside(new) == [(uploaded, 2)]
    db.dispose()


@pytest.mark.parametrize(
    "command", [("hide", "--token"), ("unhide", "--token"), ("token", "revoke")]
)
def test_an_unknown_token_name_suggests_the_closest_names(
    tmp_path: Path, command: tuple[str, str]
) -> None:
    """Walkthrough 19 R2 (#98, #233): ``hide --token alic`` and ``token revoke`` of a mistyped
    name answered "no token has that name" without the "did you mean" almost every other name
    gets. Every admin command reads a token through one lookup, so each suggests the closest
    token names (revoked ones too: their entries can still be hidden); a far name gets none."""
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    for name in ("alice", "bob", "carol"):
        _cli("leaderboard", "token", "create", name, "--db", url)
    _cli("leaderboard", "token", "revoke", "carol", "--db", url)
    for given, offered in (("alic", "'alice'"), ("carl", "'carol'"), ("zed", None)):
        refused = coordqa("leaderboard", *command, given, "--db", url)
        assert refused.returncode == 2, refused.stderr
        said = " ".join(refused.stderr.split())
        assert f"no live token named '{given}': no token has that name" in said, said
        assert "coordqa leaderboard token list" in said, said
        if offered is None:
            assert "Did you mean" not in said, said
        else:
            assert f"Did you mean {offered}?" in said, said


def test_a_grid_registered_with_a_seat_for_self_play_alone_still_reads(tmp_path: Path) -> None:
    """A grid file whose only partner is ``self`` and that names ``positions`` is refused today
    (the seat was never used, walkthrough 19 R8); one registered before must not break the
    board, which reads every registered grid to check any agentic submission."""
    from coordqa.leaderboard.catalog import known_grids
    from coordqa.leaderboard.db import GridRow

    db = open_database(f"sqlite:///{tmp_path / 'board.db'}")
    config = {
        "name": "old",
        "agents": ["cac"],
        "models": ["scripted"],
        "partners": ["self"],
        "positions": 0,
        "games": [{"game": "collab_capture", "seeds": [0]}],
    }
    with db.session() as session:
        session.add(GridRow(name="old", fingerprint="f" * 64, config=config))
    assert known_grids(db)["old"].config.positions is None
    db.dispose()
