"""Choosing questions: filters by game, type and id, a limit, and a stratified sample."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from coordqa.dataset.schema import TYPE_NAMES, RowT
from coordqa.errors import ConfigError, UnknownNameError
from coordqa.games.base import GAMES
from coordqa.records import QUESTION_TYPES
from coordqa.registry import Registry, spelled_as

if TYPE_CHECKING:
    import datasets


def spelled_filter(
    kind: Literal["games", "types"], names: Iterable[str] | None
) -> tuple[str, ...] | None:
    """The ``games`` or ``types`` filter's ``names`` as the dataset spells them, in order.

    The one home of the rule that a QA filter's names are stored in their registered spelling
    (``Hanabi``: ``hanabi``, ``TOM``: ``ToM``) wherever a run's configuration is made
    (:class:`~coordqa.eval_config.EvalConfig`, an eval set's spec): a run's identity and folder
    name hold the names, so another case would be another run, and a lower-case run made
    before keeps its identity. A name that is no game or type is kept as given, for
    :func:`filter_rows` to refuse with suggestions.
    """
    if names is None:
        return None
    spellings = GAMES.names() if kind == "games" else QUESTION_TYPES
    return tuple(spelled_as(name, spellings) for name in names)


def _canonical_names(
    names: Iterable[str] | None, registry: Registry[Any], allowed: Sequence[str]
) -> set[str] | None:
    if names is None:
        return None
    if isinstance(names, str):
        names = [names]
    chosen = set()
    for name in names:
        canonical = spelled_as(name, allowed)
        if canonical not in allowed:
            raise UnknownNameError(registry.unknown_message(name))
        chosen.add(canonical)
    return chosen


def filter_dataset(
    ds: datasets.Dataset,
    games: Iterable[str] | None = None,
    types: Iterable[str] | None = None,
    limit: int | None = None,
    *,
    ids: Iterable[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    source: str = "the dataset",
) -> datasets.Dataset:
    """The questions of ``ds`` that pass every filter, in dataset order.

    Filters apply in this order: ``games`` and ``types`` (names matched case-insensitively:
    ``"tom"`` is ``ToM``); ``ids`` (only these questions); ``sample`` (that many questions drawn
    with ``seed``, stratified over game x type: see :func:`stratified_sample`); then ``limit``
    (the first ``limit`` of what is left, not a random subset). ``None`` keeps everything. The
    result may be empty: whether that is an error is the caller's decision.

    Raises:
        UnknownNameError: a game or type that does not exist (with suggestions).
        ConfigError: ``limit`` or ``sample`` below 1, ``sample`` larger than the questions
            left, or ``ids`` naming questions the dataset does not hold (the message names the
            dataset as ``source``: which release was searched).
    """
    columns = (list(ds["question_id"]), list(ds["game"]), list(ds["question_type"]))
    kept = _kept(columns, games, types, limit, ids=ids, sample=sample, seed=seed, source=source)
    return ds.select(kept)


def filter_rows(
    rows: Sequence[RowT],
    games: Iterable[str] | None = None,
    types: Iterable[str] | None = None,
    limit: int | None = None,
    *,
    ids: Iterable[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    source: str = "the dataset",
) -> list[RowT]:
    """:func:`filter_dataset` for plain rows (from :func:`load_rows`)."""
    columns = (
        [str(row["question_id"]) for row in rows],
        [str(row["game"]) for row in rows],
        [str(row["question_type"]) for row in rows],
    )
    kept = _kept(columns, games, types, limit, ids=ids, sample=sample, seed=seed, source=source)
    return [rows[index] for index in kept]


def _kept(
    columns: tuple[Sequence[str], Sequence[str], Sequence[str]],
    games: Iterable[str] | None,
    types: Iterable[str] | None,
    limit: int | None,
    *,
    ids: Iterable[str] | None,
    sample: int | None,
    seed: int,
    source: str,
) -> list[int]:
    """Indices of the rows that the filters of :func:`filter_dataset` keep.

    ``columns`` are the question ids, games and question types of the rows.
    """
    question_ids, games_column, types_column = columns
    wanted_games = _canonical_names(games, GAMES, GAMES.names())
    wanted_types = _canonical_names(types, TYPE_NAMES, QUESTION_TYPES)
    if limit is not None and limit < 1:
        raise ConfigError(f"limit must be at least 1, got {limit}; leave it out to keep all")
    cells = list(zip(games_column, types_column, strict=True))
    indices = [
        index
        for index, (game, kind) in enumerate(cells)
        if (wanted_games is None or game in wanted_games)
        and (wanted_types is None or kind in wanted_types)
    ]
    if ids is not None:
        indices = _only_ids(list(question_ids), indices, list(ids), source)
    if sample is not None:
        indices = stratified_sample([cells[i] for i in indices], indices, sample, seed)
    return indices[:limit]


def _only_ids(
    question_ids: list[str], indices: list[int], ids: list[str], source: str
) -> list[int]:
    """The ``indices`` whose question id is one of ``ids``, read in any case.

    As games and types are: ``hanabi-27-TOM`` is ``hanabi-27-ToM`` (walkthrough 26).

    Raises:
        ConfigError: ids that are not in ``source``, the closest to a single one offered.
    """
    from coordqa.registry import did_you_mean

    spelled = {question_id.casefold(): question_id for question_id in question_ids}
    unknown = sorted({given for given in ids if given.casefold() not in spelled})
    if unknown:
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        shown = ", ".join(unknown[:5]) + more
        offered = did_you_mean(unknown[0], question_ids) if len(unknown) == 1 else ""
        raise ConfigError(
            f"question ids not in {source}: {shown}.{offered} Ids look like "
            f"{question_ids[0]!r}. An id of another release may be missing from this one (v1.2 "
            "removed questions of v1.1; each release's README lists what changed): `coordqa "
            "dataset list` shows the releases, --dataset NAME searches another"
        )
    wanted = {spelled[given.casefold()] for given in ids}
    return [index for index in indices if question_ids[index] in wanted]


def stratified_sample(
    cells: Sequence[tuple[str, str]], indices: Sequence[int], size: int, seed: int
) -> list[int]:
    """``size`` of ``indices`` drawn with ``seed``, each (game, type) cell getting its share.

    A cell's share is ``size`` x its fraction of the questions, rounded down, and the questions
    left over go to the cells with the largest remainders (the first cell wins ties). Returns
    the chosen indices in their original order.

    >>> chosen = stratified_sample([("a", "EC")] * 6 + [("b", "EC")] * 2, range(8), 4, seed=0)
    >>> sum(i < 6 for i in chosen), sum(i >= 6 for i in chosen)  # 3 of cell a, 1 of cell b
    (3, 1)
    """
    if size < 1:
        raise ConfigError(f"sample must be at least 1, got {size}")
    if size > len(indices):
        raise ConfigError(
            f"sample {size} is more than the {len(indices)} questions left after the other "
            "filters; ask for fewer"
        )
    strata: dict[tuple[str, str], list[int]] = {}
    for cell, index in zip(cells, indices, strict=True):
        strata.setdefault(cell, []).append(index)
    exact = {cell: size * len(members) / len(indices) for cell, members in strata.items()}
    quota = {cell: int(share) for cell, share in exact.items()}
    by_remainder = sorted(strata, key=lambda cell: -(exact[cell] - quota[cell]))
    for cell in by_remainder[: size - sum(quota.values())]:
        quota[cell] += 1
    rng = random.Random(seed)
    chosen = [i for cell, members in strata.items() for i in rng.sample(members, quota[cell])]
    return sorted(chosen)
