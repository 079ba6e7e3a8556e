"""The yardstick of ``bench_eval.py``'s end-to-end section: a bare aiohttp client, nothing else.

    python benchmarks/bare_client.py BASE_URL REQUESTS.json CONCURRENCY REPLIES.jsonl

Sends each chat request body of ``REQUESTS.json`` (a JSON list) to ``BASE_URL/chat/completions``
with at most ``CONCURRENCY`` in flight on one connection pool, reads each reply's text, and writes
the texts to ``REPLIES.jsonl`` at the end: what any client must do to get the answers, with no
retries, cache, limits, accounting, scoring or fsync. Exits 1 if a request fails.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import aiohttp


async def send_all(base_url: str, bodies: list[dict], concurrency: int) -> list[str]:
    """The reply text of each body, in order."""
    replies: list[str] = [""] * len(bodies)
    pending = iter(enumerate(bodies))
    headers = {"Authorization": "Bearer sk-bench"}
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:

        async def worker() -> None:
            for index, body in pending:
                async with session.post(f"{base_url}/chat/completions", json=body) as response:
                    response.raise_for_status()
                    payload = await response.json()
                replies[index] = payload["choices"][0]["message"]["content"]

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return replies


def main() -> None:
    base_url, requests, concurrency, out = sys.argv[1:5]
    bodies = json.loads(Path(requests).read_text())
    replies = asyncio.run(send_all(base_url, bodies, int(concurrency)))
    Path(out).write_text("".join(json.dumps({"text": text}) + "\n" for text in replies))


if __name__ == "__main__":
    main()
