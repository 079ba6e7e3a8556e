"""Test and benchmark helpers: synthetic bundles, a live server, a throwaway PostgreSQL.

Used by the leaderboard tests and ``benchmarks/bench_leaderboard.py``; nothing here is needed to
run a leaderboard. Servers bind to 127.0.0.1 only, and every wait is bounded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from coordqa.errors import CoordqaError, MissingDependencyError
from coordqa.games import GAME_NAMES
from coordqa.leaderboard.bundle import FORMAT, FORMAT_VERSION, bundle_digest
from coordqa.local_servers import CommandServer, free_port, kill_process
from coordqa.records import QUESTION_TYPES

__all__ = [
    "BoardClient",
    "LiveServer",
    "PostgresCluster",
    "synthetic_bundle",
    "synthetic_rows",
]


def synthetic_rows(
    scenarios: int = 66, options: int = 4, prefix: str = "syn"
) -> list[dict[str, Any]]:
    """A valid dataset of ``scenarios`` x 3 questions (EC, ToM, JP), games in turn.

    66 scenarios make the 198 questions of CoordinationQA v1. Option ``i`` of question ``k`` is
    ``"option i of k"``; the correct one is ``k % options``.
    """
    rows: list[dict[str, Any]] = []
    for number in range(scenarios):
        game = GAME_NAMES[number % len(GAME_NAMES)]
        scenario = f"{prefix}-{game}-{number:03d}"
        for kind in QUESTION_TYPES:
            qid = f"{scenario}-{kind}"
            rows.append(
                {
                    "question_id": qid,
                    "scenario_id": scenario,
                    "game": game,
                    "layout": "synthetic",
                    "question_type": kind,
                    "game_description": "A synthetic game.",
                    "state_description": f"State {number}.",
                    "question": f"Which option is right for {qid}?",
                    "options": [f"option {i} of {qid}" for i in range(options)],
                    "correct": [len(rows) % options],
                    "rationale": "",
                    "concept": "",
                    "tags": [],
                    "source": "synthetic",
                    "version": "1",
                    "snapshot": "",
                }
            )
    return rows


Answer = Callable[[dict[str, Any], int], "str | None"]
"""Reply text for (row, trial); None makes the reply an error."""


def right_answer(row: dict[str, Any], trial: int) -> str | None:
    """Always the correct letter."""
    return f"Answer: {chr(ord('A') + row['correct'][0])}"


def synthetic_bundle(
    rows: list[dict[str, Any]],
    *,
    trials: int = 3,
    answer: Answer = right_answer,
    display_name: str = "synthetic model",
    model: str = "synthetic/model",
    reported: dict[str, Any] | None = None,
    run: str | None = None,
) -> dict[str, Any]:
    """A complete, digest-sealed QA bundle answering every row of ``rows`` ``trials`` times.

    ``run`` labels the run: a line ``[run LABEL]`` ends every reply, so bundles that answer
    alike are still distinct runs (the server ranks the same results once).
    """
    from coordqa import __version__
    from coordqa.dataset import dataset_fingerprint
    from coordqa.jsonvalues import content_hash
    from coordqa.store import DatasetInfo, RunManifest

    fingerprint = dataset_fingerprint(rows)
    manifest = RunManifest(
        kind="qa",
        config={"model": model, "trials": trials, "games": None, "types": None, "limit": None},
        dataset=DatasetInfo(name="synthetic", fingerprint=fingerprint, num_questions=len(rows)),
        fingerprint=content_hash([fingerprint, model, trials]),
        command=["synthetic"],
    )
    replies = []
    for row in rows:
        for trial in range(trials):
            text = answer(row, trial)
            error = "synthetic failure" if text is None else None
            if text is not None and run is not None:
                text += f"\n[run {run}]"
            replies.append(
                {"question_id": row["question_id"], "trial": trial, "text": text, "error": error}
            )
    data: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "track": "qa",
        "model": {"display_name": display_name, "provider": "synthetic"},
        "coordqa_version": __version__,
        "manifest": manifest.model_dump(mode="json"),
        "dataset_fingerprint": fingerprint,
        "replies": replies,
        "reported": reported,
    }
    return seal(data)


def seal(data: dict[str, Any]) -> dict[str, Any]:
    """Set ``data['digest']`` to the digest of its content (after editing a bundle)."""
    data["digest"] = bundle_digest(data)
    return data


class BoardClient:
    """A FastAPI test client on a fresh app, with a token and a registered synthetic dataset.

    ``rows`` (4 scenarios: 12 questions) is registered as ``synthetic`` and is the dataset the
    client reads by default; :meth:`submit` posts a bundle with the client's token.
    """

    def __init__(
        self, db_url: str, folder: Path, *, token: str | None = None, **app_options: Any
    ) -> None:
        """Create the app on ``db_url``; ``folder`` receives the dataset file.

        ``token`` reuses a token of the database (a server restarted on it) instead of
        creating one; registering the dataset again keeps the first registration.
        """
        import warnings

        from coordqa.leaderboard.catalog import register_dataset
        from coordqa.leaderboard.server import create_app
        from coordqa.leaderboard.tokens import create_token

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from fastapi.testclient import TestClient

        self.app = create_app(db_url, **app_options)
        self.db = self.app.state.db
        self.client = TestClient(self.app)
        self.client.params = {"dataset": "synthetic"}  # the bundled dataset is the default
        self.token = token or create_token(self.db, "tester")
        self.rows = synthetic_rows(scenarios=4)
        path = folder / "synthetic.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in self.rows), encoding="utf-8")
        register_dataset(self.db, path, "synthetic")

    def submit(self, bundle: Any, token: str | None = "default", **headers: str) -> Any:
        """POST ``bundle`` (a dict, or raw bytes) with this client's token (or ``token``)."""
        body = bundle if isinstance(bundle, bytes) else json.dumps(bundle).encode()
        if token == "default":
            token = self.token
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.client.post("/api/submissions", content=body, headers=headers)

    def count(self, table: type) -> int:
        """Rows in ``table`` (a model class of :mod:`coordqa.leaderboard.db`)."""
        from sqlalchemy import func, select

        with self.db.session() as session:
            return int(session.execute(select(func.count()).select_from(table)).scalar_one())

    def close(self) -> None:
        """Close the client and the database's connections."""
        self.client.close()
        self.db.dispose()


class LiveServer(CommandServer):
    """``coordqa leaderboard serve`` in a subprocess on 127.0.0.1 and a free port."""

    def __init__(
        self,
        db_url: str,
        *,
        max_body_mb: float = 20.0,
        log: Path | None = None,
        options: Sequence[str] = (),
    ) -> None:
        """Prepare (not start) a server on ``db_url``; ``log`` receives its output.

        ``options`` are more ``coordqa leaderboard serve`` options (``--rate-limit 0``).
        """
        self.db_url = db_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.max_body_mb = max_body_mb
        self.log = log
        self.options = list(options)

    def start(self) -> LiveServer:
        """Start the server and wait (bounded) until it answers ``/healthz``."""
        import httpx

        args = [
            "leaderboard", "serve", "--db", self.db_url, "--port", str(self.port),
            "--max-body-mb", str(self.max_body_mb), *self.options,
        ]  # fmt: skip
        output = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        process = self._launch(args, output)

        def answers() -> bool:
            try:
                return httpx.get(f"{self.url}/healthz", timeout=1.0).status_code == 200
            except httpx.HTTPError:
                return False

        self._wait_until(
            process,
            answers,
            lambda: f"leaderboard server exited with {process.returncode}",
            "leaderboard server did not answer",
        )
        return self

    def kill(self) -> None:
        """SIGKILL the server: no shutdown handler runs, as in a crash."""
        if self.process is not None:
            kill_process(self.process)


def _pg_bin() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), reverse=True)
    if candidates:
        return candidates[0].parent
    raise MissingDependencyError(
        "PostgreSQL server binaries (initdb, pg_ctl) were not found; install Debian's "
        "'postgresql' package (apt-get install postgresql; scripts/test.sh does it)"
    )


class PostgresCluster:
    """A throwaway PostgreSQL cluster in a temporary folder, on 127.0.0.1 and a free port.

    initdb refuses to run as root, so as root the cluster belongs to the ``postgres`` user and
    the server commands run through ``runuser``. Authentication is ``trust`` (local tests only).
    """

    def __init__(self) -> None:
        """Find the binaries; :meth:`start` creates and starts the cluster."""
        self.bin = _pg_bin()
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="coordqa-pg-"))
        self.data = self.root / "data"
        self._as_root = os.geteuid() == 0
        self._count = 0

    def _run(self, *args: str, timeout: float = 60.0) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self._as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise CoordqaError(f"{' '.join(command)} failed: {done.stdout}{done.stderr}")

    def start(self) -> PostgresCluster:
        """Initdb and start the server (waits at most 60 s)."""
        if self._as_root:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        log = str(self.root / "server.log")
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "-t", "60", "start"
        )
        return self

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy URL of ``database`` on this cluster."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        self._count += 1
        name = f"coordqa_test_{self._count}"
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Stop the server (immediate mode) and remove the folder."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", "30", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


CHROMIUM = Path("/usr/bin/chromium")
"""Debian's chromium (``apt-get install chromium chromium-driver``); never a downloaded build."""
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def launch_chromium(playwright: Any, user_data_dir: Path) -> Any:
    """A headless Debian chromium context driven by Playwright, with a fresh profile.

    Raises:
        MissingDependencyError: /usr/bin/chromium is not installed.
    """
    if not CHROMIUM.exists():
        raise MissingDependencyError(
            f"{CHROMIUM} not found; install Debian's browser: apt-get install chromium "
            "chromium-driver (scripts/test.sh does it)"
        )
    return playwright.chromium.launch_persistent_context(
        str(user_data_dir),
        executable_path=str(CHROMIUM),
        headless=True,
        args=list(CHROMIUM_ARGS),
        viewport={"width": 1200, "height": 900},
    )


def add_demo_entries(db: Any, rows: list[dict[str, Any]], names: list[str]) -> list[int]:
    """Store one submission per name on ``rows`` (registered beforehand), best first.

    Entry ``i`` answers every question right except, from trial 1 on, ToM and JP questions
    wrong on ``i`` of 3 trials, so the ranking order is the order of ``names``.
    """
    import json

    from coordqa.leaderboard.catalog import BoardCatalog
    from coordqa.leaderboard.intake import accept

    catalog = BoardCatalog(db)
    ids = []
    for position, name in enumerate(names):

        def answer(row: dict[str, Any], trial: int, wrong: int = position) -> str:
            miss = trial >= 3 - wrong and row["question_type"] != "EC"
            index = (row["correct"][0] + int(miss) * (1 + trial % 2)) % len(row["options"])
            return f"Answer: {chr(ord('A') + index)}"

        bundle = synthetic_bundle(rows, answer=answer, display_name=name)
        ids.append(accept(db, catalog, json.dumps(bundle).encode(), None).id)
    return ids


def bc_grid(name: str, horizon: int, **fields: Any) -> dict[str, Any]:
    """A one-episode grid of an LLM agent beside ``bc-cramped_room`` (what a retrained BC
    partner changes); ``fields`` add to it or replace its keys (``models``)."""
    game = {"game": "overcooked", "layouts": ["cramped_room"], "seeds": [0], "horizon": horizon}
    return {
        "name": name,
        "agents": ["llm"],
        "partners": ["bc-cramped_room"],
        "games": [game],
        **fields,
    }


def shipped_and_retrained_bc() -> tuple[Any, Any]:
    """``bc-cramped_room`` as coordqa ships it, and a copy with other weights, as one retrained
    with ``coordqa partners train-bc`` would have (another fingerprint)."""
    from coordqa.agentic.partners.bc import PACKAGED_DIR, BCCheckpoint

    shipped = BCCheckpoint.load(PACKAGED_DIR / "bc-cramped_room.npz")
    weights = [w[::-1].copy() if w.ndim == 1 else w for w in shipped.weights]
    retrained = BCCheckpoint(weights, {**shipped.meta, "seed": 99})
    assert retrained.fingerprint != shipped.fingerprint
    return shipped, retrained
