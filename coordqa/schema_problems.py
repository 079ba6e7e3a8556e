"""Pydantic's errors of a file a program wrote (a record, a run manifest, a bundle) as ``loc: msg``.

Such a file was not typed by the person reading the error: it was written by another program, a
newer coordqa or a submitter's tool, and the fix is to write it again, so pydantic's own place
(``replies.3.text``) and reason are what helps. :func:`schema_problems` is the one place these
errors become ``replies.3.text: String should have at most 4000 characters; ...`` lines, with
how many more there are; :func:`problem_list` keeps them as ``{"loc", "msg"}`` objects for an
answer that lists them (the leaderboard's 422). A file the user wrote (an eval-set spec, a grid)
is said in its own words by :func:`coordqa.spec_problems.spec_problems` instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import ValidationError

__all__ = ["problem_list", "problems_text", "schema_problems"]


def problem_list(exc: ValidationError, root: str, limit: int) -> tuple[list[dict[str, str]], int]:
    """The first ``limit`` errors of ``exc`` as ``{"loc", "msg"}``, and how many there are.

    ``loc`` is pydantic's place dotted (``replies.3.text``), ``root`` where the error is the
    whole object's. An error ``more_errors`` stands for ``ctx["count"]`` errors a validator
    counted without keeping them (a bundle's long lists), so the total stays honest.
    """
    problems: list[dict[str, str]] = []
    total = 0
    for error in exc.errors(include_url=False):
        if error["type"] == "more_errors":
            total += int((error.get("ctx") or {})["count"])
            continue
        total += 1
        if len(problems) < limit:
            place = ".".join(str(part) for part in error["loc"]) or root
            problems.append({"loc": place, "msg": error["msg"].removeprefix("Value error, ")})
    return problems, total


def problems_text(problems: Sequence[Mapping[str, str]], total: int, shown: int) -> str:
    """The first ``shown`` problems, ``loc: msg; ...``, and how many more of ``total`` there are."""
    text = "; ".join(f"{p['loc']}: {p['msg']}" for p in problems[:shown])
    more = total - min(len(problems), shown)
    return text + (f" (and {more} more: {total} in all)" if more > 0 else "")


def schema_problems(exc: ValidationError, root: str, shown: int) -> str:
    """The first ``shown`` errors of ``exc`` as one ``loc: msg; ...`` line, and how many more."""
    problems, total = problem_list(exc, root, shown)
    return problems_text(problems, total, shown)
