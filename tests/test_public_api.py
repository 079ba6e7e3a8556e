"""The public names of every package stay what they say, whatever was imported before."""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest
from source_tree import source_packages

import coordqa


@pytest.mark.parametrize("name", source_packages())
def test_no_public_name_is_also_a_submodule(name: str) -> None:
    """``import pkg.x`` rebinds ``pkg.x`` to the submodule, hiding a (lazy) export named x."""
    package = importlib.import_module(name)
    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    clashes = {
        export
        for export in set(getattr(package, "__all__", ())) & submodules
        if not isinstance(getattr(package, export), ModuleType)
    }
    assert clashes == set(), f"{name} exports {sorted(clashes)}, also submodule names"


def test_evaluate_stays_a_function_after_its_module_is_imported(tmp_path: Path) -> None:
    importlib.import_module("coordqa.evaluation")
    config = coordqa.EvalConfig(
        model="random", dataset="example", trials=1, limit=2, out=tmp_path / "run"
    )
    first = coordqa.evaluate(config)
    second = coordqa.evaluate(config)
    assert first.new_samples == 2 and second.resumed_samples == 2


def test_evaluate_async_runs_inside_a_running_event_loop(tmp_path: Path) -> None:
    config = coordqa.EvalConfig(
        model="random", dataset="example", trials=1, limit=3, out=tmp_path / "run"
    )

    async def notebook_cell() -> int:
        result = await coordqa.evaluate_async(config)
        return result.new_samples

    assert asyncio.run(notebook_cell()) == 3


@pytest.mark.parametrize(
    "module",
    [
        "coordqa.runs.watch",
        "coordqa.runs.endpoint",
        "coordqa.given_paths",
        "coordqa.llm.retry",
        "coordqa.llm.gateway",
        "coordqa.llm.call_names",
        "coordqa.llm.chat_formats",
        "coordqa.cli._call_options",
        "coordqa.cli._progress",
    ],
)
def test_doctests(module: str) -> None:
    import doctest

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


LAZY_PACKAGES = [
    "coordqa",
    "coordqa.agentic",
    "coordqa.analysis",
    "coordqa.leaderboard",
    "coordqa.viewer",
]


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_each_lazy_export_is_listed_once_and_resolves(name: str) -> None:
    """The TYPE_CHECKING imports are the one table: __all__ and __getattr__ follow them."""
    from coordqa._lazy import type_checking_imports

    package = importlib.import_module(name)
    assert package.__file__ is not None
    table = type_checking_imports(package.__file__)
    assert set(table) <= set(package.__all__) and len(table) >= 3
    for export, module in table.items():
        assert getattr(package, export) is getattr(importlib.import_module(module), export)
    with pytest.raises(AttributeError, match="has no attribute 'not_exported'"):
        package.not_exported  # noqa: B018


def test_an_import_that_is_not_a_re_export_is_refused(tmp_path: Path) -> None:
    from coordqa._lazy import type_checking_imports
    from coordqa.errors import CoordqaError

    source = tmp_path / "__init__.py"
    source.write_text("if TYPE_CHECKING:\n    from coordqa.games import make_game\n")
    with pytest.raises(CoordqaError, match="import make_game as make_game"):
        type_checking_imports(str(source))
