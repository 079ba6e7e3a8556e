"""Lazy public names for packages whose implementations import heavy libraries (PEP 562).

A package lists its public names once, as the imports of its ``if TYPE_CHECKING:`` block, each
written ``from module import name as name`` (the explicit re-export form, so type checkers see
the names as exported). At run time that block does not run: :func:`lazy_exports` reads it
from the package's source and returns the module ``__getattr__`` that imports each name on
first use, and ``__all__``. One table, read by the type checker and by the import system alike.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from coordqa.errors import CoordqaError


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` (a module path) on first use.

    Keeps ``import coordqa`` and ``coordqa --help`` free of litellm, datasets, FastAPI or Ray
    until a name that needs them is actually touched.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__


def type_checking_imports(source_file: str) -> dict[str, str]:
    """Name -> module of the ``from module import name`` lines under ``if TYPE_CHECKING:``.

    Raises:
        CoordqaError: the block imports a name without re-exporting it (``as`` the same name),
            or relatively: the table would not say what the package exports.
    """
    tree = ast.parse(Path(source_file).read_text(encoding="utf-8"))
    exports: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or statement.module is None:
                raise CoordqaError(f"{source_file}: only 'from module import name as name' here")
            for alias in statement.names:
                if alias.asname != alias.name or statement.level:
                    raise CoordqaError(
                        f"{source_file}: write 'from {statement.module} import {alias.name} as "
                        f"{alias.name}' (absolute, re-exported)"
                    )
                exports[alias.name] = statement.module
    return exports


def lazy_exports(package: str, source_file: str) -> tuple[Callable[[str], Any], list[str]]:
    """The lazy ``__getattr__`` and the ``__all__`` of ``package`` (see the module docstring)."""
    exports = type_checking_imports(source_file)
    return lazy_getattr(package, exports), sorted(exports)
