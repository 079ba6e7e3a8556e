"""Issue 23's four broken-input cases, run as a user runs them: exit status, seconds, what is kept.

Each case runs ``coordqa`` in a subprocess (the Python given by ``--python``, so another checkout's
code can be measured in the same sitting: its venv's python, run from a temporary folder so that
the folder's own ``coordqa`` is not imported), then, where the model can come back, the same
command again with a local OpenAI-compatible server answering on the same port
(:class:`coordqa.llm.testing.LocalOpenAIServer`, replies as the offline ``scripted`` model):

- ``dead-port``: ``agentic run --agent llm --model openai/x --api-base http://127.0.0.1:<free>/v1
  --game collab_escape --self-play --episodes 1``;
- ``401``: the same against a server that refuses the key;
- ``missing-key``: ``agentic grid paper --model openai/gpt-4o-mini`` with OPENAI_API_KEY unset;
- ``unready``: ``agentic run --agent cac --model scripted --game hanabi --partner obl1 --seeds 0``
  with no OBL weights registered;
- ``hang-on-chat`` (issue 37, review row 3d): ``agentic run --agent llm --model openai/x --game
  collab_capture --partner capture-greedy --episodes 4`` against a server that answers
  ``GET /models`` but never a chat request, with ``--timeout SECONDS`` when ``--hang-timeout``
  is given (a checkout before issue 37 has no such option: leave it out to measure one, which
  waits out the 120 s default).

"stored" counts the records of ``episodes.jsonl`` (what a resume skips), and how many of them hold
failed model calls (agent stats ``errors`` > 0): before issue 23 such an episode counted as played.

Run by hand: ``python benchmarks/bench_fail_loud.py [--python PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from coordqa.llm import Message
from coordqa.llm.offline import default_policy
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.local_servers import free_port


def scripted(body: dict[str, Any], index: int) -> str:
    """Answer a chat request as the offline ``scripted`` model would."""
    return default_policy([Message(m["role"], m["content"]) for m in body["messages"]])


def stored(out: Path) -> tuple[int, int]:
    """Episode records in the run, and how many of them hold failed model calls."""
    path = out / "episodes.jsonl"
    if not path.exists():
        return 0, 0
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    failed = sum(
        any(int(seat.get("errors") or 0) for seat in r.get("agent_stats", {}).values())
        for r in records
    )
    return len(records), failed


def run(python: str, args: list[str], env: dict[str, str], folder: Path) -> dict[str, Any]:
    """One ``coordqa`` command: exit status, seconds, the last line of stderr."""
    started = time.monotonic()
    done = subprocess.run(
        [python, "-c", "from coordqa.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=900,
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return {
        "exit": done.returncode,
        "seconds": round(time.monotonic() - started, 1),
        "stderr": lines[-1][:160] if lines else "",
    }


def escape_run(out: Path, api_base: str) -> list[str]:
    """The issue's command: one self-play episode of the LLM agent on Collab Escape."""
    return [
        "agentic", "run", "--agent", "llm", "--model", "openai/x", "--api-base", api_base,
        "--game", "collab_escape", "--self-play", "--episodes", "1", "--out", str(out),
    ]  # fmt: skip


def fails_then_resumes(
    python: str, env: dict[str, str], root: Path, name: str, fault: Fault | None
) -> dict[str, Any]:
    """The issue's command against a broken endpoint, then again with the endpoint answering.

    ``fault``: what the server answers at first (None: nothing listens on the port).
    """
    out, port = root / name, free_port()
    command = escape_run(out, f"http://127.0.0.1:{port}/v1")
    if fault is None:
        first = run(python, command, env, root)
    else:
        with LocalOpenAIServer(scripted, always=fault, port=port):
            first = run(python, command, env, root)
    first["stored"] = stored(out)
    with LocalOpenAIServer(scripted, port=port):
        again = run(python, command, env, root)
    again["stored"] = stored(out)
    return {"first": first, "rerun": again}


def hang_on_chat(
    python: str, env: dict[str, str], root: Path, timeout_s: float | None
) -> dict[str, Any]:
    """4 episodes against a server that lists its models and never answers a chat request."""
    out = root / "hang-on-chat"
    with LocalOpenAIServer(scripted, always=Fault.slow(3600)) as server:
        command = [
            "agentic", "run", "--agent", "llm", "--model", "openai/x", "--api-base",
            server.base_url, "--game", "collab_capture", "--partner", "capture-greedy",
            "--episodes", "4", "--out", str(out),
        ]  # fmt: skip
        if timeout_s is not None:
            command += ["--timeout", f"{timeout_s:g}"]
        first = run(python, command, env, root)
    first["stored"] = stored(out)
    return {"first": first}


def cases(python: str, root: Path, hang_timeout_s: float | None) -> dict[str, dict[str, Any]]:
    """Every case, with its rerun where the model comes back."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-dummy", "COORDQA_CACHE_DIR": str(root / "cache")}
    results = {
        "dead-port": fails_then_resumes(python, env, root, "dead-port", None),
        "401": fails_then_resumes(python, env, root, "401", Fault.bad_key()),
    }

    out = root / "missing-key"
    keyless = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
    grid = ["agentic", "grid", "paper", "--model", "openai/gpt-4o-mini", "--out", str(out)]
    first = run(python, grid, keyless, root)
    first["stored"] = stored(out)
    results["missing-key"] = {"first": first}

    out = root / "unready"
    bare = {**env, "COORDQA_DATA_DIR": str(root / "no-weights")}
    bare.pop("COORDQA_HANABI_WEIGHTS", None)
    obl = [
        "agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "hanabi",
        "--partner", "obl1", "--seeds", "0", "--out", str(out),
    ]  # fmt: skip
    first = run(python, obl, bare, root)
    first["stored"] = stored(out)
    report = run(python, ["agentic", "report", str(out)], bare, root)
    results["unready"] = {"first": first, "report": report}
    results["hang-on-chat"] = hang_on_chat(python, env, root, hang_timeout_s)
    return results


def main() -> None:
    """Run every case with the chosen Python and print the results as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the Python that runs coordqa")
    parser.add_argument(
        "--hang-timeout", type=float, default=None, help="--timeout of the hang-on-chat case"
    )
    parser.add_argument("--only", default=None, help="run this case alone (hang-on-chat)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-fail-loud-") as folder:
        if options.only == "hang-on-chat":
            env = {**os.environ, "OPENAI_API_KEY": "sk-dummy"}
            hang = hang_on_chat(options.python, env, Path(folder), options.hang_timeout)
            results = {"hang-on-chat": hang}
        else:
            results = cases(options.python, Path(folder), options.hang_timeout)
    print(json.dumps({"python": options.python, "cases": results}, indent=2))


if __name__ == "__main__":
    main()
