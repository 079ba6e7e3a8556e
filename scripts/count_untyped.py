"""Count ``dict[str, Any]`` in the function signatures of the package (issue 24's measure).

Counts every occurrence of the text ``dict[str, Any]`` in the parameter and return annotations
of every function and method (nested ones included) under the distribution's package folders,
read with :mod:`ast`, so comments, docstrings and variable annotations do not count.

Run from the repository root: ``python scripts/count_untyped.py [--by-file]``.
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path

FOLDERS = ("coordqa", "agentic", "scenarios", "leaderboard")
"""The package code measured (tests, benchmarks and scripts are not)."""

PATTERN = "dict[str, Any]"


def signature_counts(root: Path) -> Counter[str]:
    """Occurrences of :data:`PATTERN` in signatures, per file (relative to ``root``)."""
    counts: Counter[str] = Counter()
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    arguments = node.args
                    every = [
                        *arguments.posonlyargs,
                        *arguments.args,
                        *arguments.kwonlyargs,
                        arguments.vararg,
                        arguments.kwarg,
                    ]
                    annotations = [a.annotation for a in every if a is not None]
                    for annotation in [*annotations, node.returns]:
                        if annotation is not None:
                            counts[str(path.relative_to(root))] += ast.unparse(annotation).count(
                                PATTERN
                            )
    return counts


def main() -> None:
    """Print the total (and with ``--by-file`` each file's count, largest first)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--by-file", action="store_true", help="also print each file's count")
    args = parser.parse_args()
    counts = signature_counts(Path.cwd())
    if args.by_file:
        for path, count in counts.most_common():
            if count:
                print(f"{count:4d} {path}")
    print(f"{sum(counts.values())} {PATTERN} in signatures")


if __name__ == "__main__":
    main()
