"""MkDocs hooks of the user guide (``mkdocs.yml``): the benchmark figures, published from home.

The figures the guide shows are written by the benchmarks and browser tests into
``benchmarks/artifacts/`` (``benchmarks/bench_bot.py --artifacts``,
``tests/test_viewer_browser.py``), outside ``docs/``. Copying them into ``docs/`` would leave two
files that drift apart; a link out of ``docs/`` fails ``mkdocs build --strict``. So the
build adds each figure to the site as ``assets/<name>``, where the pages link it, read from
the one place it lives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parents[1] / "benchmarks" / "artifacts"
FIGURES = ("bot-noise.png", "viewer-sample.png", "viewer-episode.png")
"""The figures the guide's pages show, each published as ``assets/<name>``."""
SITE_FOLDER = "assets"


def on_files(files: Any, config: Any) -> Any:
    """Add every figure of :data:`FIGURES` to the site; a missing one is an error, not a gap."""
    from mkdocs.structure.files import File

    for name in FIGURES:
        source = ARTIFACTS / name
        if not source.is_file():
            raise FileNotFoundError(f"the guide shows {source}, which does not exist")
        files.append(File.generated(config, f"{SITE_FOLDER}/{name}", abs_src_path=str(source)))
    return files
