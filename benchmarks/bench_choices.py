"""Time coordqa.choices.choose on 10,000 realistic replies (4-19 options, mixed formats).

Run: python benchmarks/bench_choices.py [--replies N] [--seed S]
Prints replies/second and the outcome mix, so a change that makes scoring slow (or silently
turns answers into no_answer) shows up.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter

from coordqa.choices import choose, option_letter

OVERCOOKED_ACTIONS = [
    *(f"pick up {item} from {src}" for item in ("onion", "plate") for src in ("o0", "o1", "p0")),
    *(f"place onion in c{i}" for i in range(3)),
    *(f"place onion on k{i}" for i in range(6)),
    "load soup on plate from c0",
    "place soup for delivery in d0",
    "wait",
    "move away",
]
HANABI_ACTIONS = [
    *(f"{verb} my Card {i}" for verb in ("Play", "Discard") for i in range(5)),
    *(f"Reveal Bob's {c} color cards" for c in ("Red", "Yellow", "Green", "White", "Blue")),
    *(f"Reveal Bob's rank {r} cards" for r in range(1, 6)),
]
ROOM_ACTIONS = [
    *(f"Move to Room {n}" for n in range(1, 11)),
    *(f"Fix generator in Room {n}" for n in (1, 6)),
    "Press the button in Room 9",
    "Wait",
]
COT = (
    "Bob is holding an onion and c0 already has 2 onions. Option A would waste time, "
    "and (B) is bad because the pot is full. OK. Let me compare the remaining actions. "
)


def option_lists(rng: random.Random, count: int) -> list[list[str]]:
    pools = [OVERCOOKED_ACTIONS, HANABI_ACTIONS, ROOM_ACTIONS]
    return [
        rng.sample(pools[i % 3], rng.randint(4, min(19, len(pools[i % 3])))) for i in range(count)
    ]


def reply_for(rng: random.Random, options: list[str]) -> tuple[str, str]:
    """Return a reply and what it means: ``chosen <index>``, ``ambiguous`` or ``no_answer``."""
    index = rng.randrange(len(options))
    letter, text = option_letter(index), options[index]
    typo = text[:3] + text[4:] if len(text) > 8 else text
    other = option_letter((index + 1) % len(options))
    means_index = [
        f"Explanation: {COT}\nAnswer: {letter}",
        f"Explanation: {COT * 3}\nAction: {text}",
        f"{COT}\n\n**Answer:** ({letter})",
        f"{letter}.",
        f"Answer: {letter}. {text}",
        text,
        f"Action: {typo}",
        f"{COT}\nThe answer is {letter}, because it is fastest.",
        f"{COT}\n{letter}",
    ]
    kind = rng.randrange(len(means_index) + 2)
    if kind == len(means_index):
        return f"Answer: {letter} or {other}", "ambiguous"
    if kind > len(means_index):
        return f"{COT}\nI am not sure.", "no_answer"
    return means_index[kind], f"chosen {index}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replies", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lists = option_lists(rng, 300)
    work = [(*reply_for(rng, options), options) for options in rng.choices(lists, k=args.replies)]

    start, cpu = time.perf_counter(), time.process_time()
    choices = [choose(reply, options) for reply, _meaning, options in work]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu

    chars = sum(len(reply) for reply, _meaning, _options in work) / len(work)
    print(f"{len(work)} replies (mean {chars:.0f} chars, 4-19 options, {len(lists)} option lists)")
    print(
        f"wall {elapsed:.3f} s ({len(work) / elapsed:,.0f} replies/s), "
        f"cpu {cpu:.3f} s ({len(work) / cpu:,.0f} replies/s), "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    read = [f"chosen {c.index}" if c.chosen else c.outcome for c in choices]
    print("outcomes:", dict(Counter(c.outcome for c in choices)))
    agree = sum(got == meant for got, (_reply, meant, _options) in zip(read, work, strict=True))
    print(f"read as meant: {agree}/{len(work)}")


if __name__ == "__main__":
    main()
