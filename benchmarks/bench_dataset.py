"""Time loading, saving and fingerprinting datasets: the bundled example and synthetic sets.

Run by hand: ``python benchmarks/bench_dataset.py``. Prints seconds per operation (best of 5).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coordqa.dataset import dataset_fingerprint, load_dataset, load_rows, save_dataset


def best_of(function: Callable[[], Any], repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def synthetic(count: int) -> list[dict[str, Any]]:
    template = load_rows("example")
    return [
        {**template[i % len(template)], "question_id": f"q{i:05d}", "scenario_id": f"s{i // 3}"}
        for i in range(count)
    ]


def main() -> None:
    start = time.perf_counter()
    import datasets  # noqa: F401

    print(f"import datasets (first, includes pyarrow): {time.perf_counter() - start:.3f}s")
    start = time.perf_counter()
    load_dataset("example")
    print(f"first load_dataset('example') after import: {time.perf_counter() - start:.4f}s")
    print(f"load_rows('example'):    {best_of(lambda: load_rows('example')):.4f}s")
    print(f"load_dataset('example'): {best_of(lambda: load_dataset('example')):.4f}s")
    with tempfile.TemporaryDirectory() as tmp:
        for count in (198, 2000):
            rows = synthetic(count)
            folder = Path(tmp) / str(count)
            save = best_of(lambda: save_dataset(rows, folder))  # noqa: B023
            load = best_of(lambda: load_dataset(folder))  # noqa: B023
            fingerprint = best_of(lambda: dataset_fingerprint(rows))  # noqa: B023
            print(
                f"{count} questions: save {save:.4f}s, load {load:.4f}s, "
                f"fingerprint {fingerprint:.4f}s, file {(folder / 'data.parquet').stat().st_size} B"
            )


if __name__ == "__main__":
    main()
