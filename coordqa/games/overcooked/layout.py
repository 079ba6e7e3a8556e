"""Layout geometry: named objects, walkable cells and cached shortest-path distances.

This module is pure Python (no overcooked-ai import): it reads a terrain matrix (rows of
characters, ``' '`` floor, ``X`` counter, ``O`` onions, ``D`` dishes, ``P`` pot, ``S`` serving).

Naming (row-major order of the grid): ``o`` onion dispensers, ``p`` plate (dish) dispensers,
``d`` serving (delivery) locations, ``c`` cookers (pots), ``s`` shared counters, ``k`` kitchen
counters. **Shared counters (ours):** a counter with floor on two opposite sides (north and
south, or east and west), i.e. one that items can be passed across: the middle column of Forced
Coordination, the island of Counter Circuit, the centre of Coordination Ring. Counters no player
can stand next to get no name.

Distances: the distance from a cell to an object is the length of the shortest path (grid steps
over floor cells) to any floor cell next to the object; standing next to it is 0. A ``blocker``
cell (the partner) is removed from the grid, both as a cell to walk through and as a cell to
stand on. Distance maps are computed once per (target, blocker) and cached on the geometry.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from coordqa.errors import GameError

Pos = tuple[int, int]

STEPS: tuple[tuple[str, Pos], ...] = (
    ("north", (0, -1)),
    ("south", (0, 1)),
    ("east", (1, 0)),
    ("west", (-1, 0)),
)
"""The four moves with their offsets, in the fixed order every tie is broken by."""

KIND_OF_TERRAIN = {"O": "o", "D": "p", "S": "d", "P": "c"}
"""Terrain character -> object name prefix (counters are split into ``s`` and ``k`` later)."""

KIND_ORDER = ("o", "p", "d", "c", "s", "k")
"""Order of object kinds in descriptions."""


@dataclass(frozen=True)
class Feature:
    """A named object of the layout."""

    name: str
    """Text name, e.g. ``"o0"`` or ``"k3"``."""
    kind: str
    """Prefix: o, p, d, c, s or k."""
    pos: Pos
    """Grid cell (x, y)."""


@dataclass(frozen=True)
class Reach:
    """How far a player is from an object, seen with and without the partner in the way."""

    distance: int | None
    """Steps with the partner's cell as an obstacle; None when no such path exists."""
    free_distance: int | None
    """Steps if the partner were not there; None when the object is inaccessible."""

    @property
    def accessible(self) -> bool:
        """Whether some path exists at all (perhaps only through the partner's cell)."""
        return self.free_distance is not None

    @property
    def blocked(self) -> bool:
        """Reachable only through the partner's cell."""
        return self.distance is None and self.free_distance is not None


@dataclass
class Geometry:
    """The static part of a layout, with cached BFS distance maps."""

    layout: str
    """Layout name."""
    terrain: tuple[str, ...]
    """Rows of terrain characters (players' start cells already replaced by floor)."""
    floor: frozenset[Pos] = field(init=False)
    """Cells a player can stand on."""
    features: tuple[Feature, ...] = field(init=False)
    """Named objects, grouped by kind (``KIND_ORDER``), row-major within a kind."""
    by_name: dict[str, Feature] = field(init=False)
    """Name -> feature."""
    by_pos: dict[Pos, Feature] = field(init=False)
    """Cell -> feature."""
    _to_target: dict[tuple[Pos, Pos | None], dict[Pos, int]] = field(
        init=False, default_factory=dict
    )
    _from_cell: dict[Pos, dict[Pos, int]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        cells = [(x, y) for y, row in enumerate(self.terrain) for x, _ in enumerate(row)]
        self.floor = frozenset(p for p in cells if self.char(p) == " ")
        kinds: dict[str, list[Pos]] = {kind: [] for kind in KIND_ORDER}
        for pos in cells:
            char = self.char(pos)
            if char in KIND_OF_TERRAIN:
                kinds[KIND_OF_TERRAIN[char]].append(pos)
            elif char == "X" and self.stand_cells(pos):
                kinds["s" if self._is_pass_through(pos) else "k"].append(pos)
        self.features = tuple(
            Feature(f"{kind}{i}", kind, pos)
            for kind in KIND_ORDER
            for i, pos in enumerate(kinds[kind])
        )
        self.by_name = {f.name: f for f in self.features}
        self.by_pos = {f.pos: f for f in self.features}

    def char(self, pos: Pos) -> str:
        """Terrain character at ``pos`` (``"#"`` outside the grid)."""
        x, y = pos
        if 0 <= y < len(self.terrain) and 0 <= x < len(self.terrain[y]):
            return self.terrain[y][x]
        return "#"

    def of_kind(self, kind: str) -> list[Feature]:
        """The features of one kind, in name order."""
        return [f for f in self.features if f.kind == kind]

    def feature(self, name: str) -> Feature:
        """Look a feature up by name."""
        try:
            return self.by_name[name]
        except KeyError:
            raise GameError(
                f"{self.layout} has no object {name!r}; it has {', '.join(self.by_name)}"
            ) from None

    def neighbours(self, pos: Pos) -> list[tuple[str, Pos]]:
        """Floor cells next to ``pos`` with the move that reaches them, in ``STEPS`` order."""
        result = []
        for move, (dx, dy) in STEPS:
            cell = (pos[0] + dx, pos[1] + dy)
            if cell in self.floor:
                result.append((move, cell))
        return result

    def stand_cells(self, pos: Pos) -> list[Pos]:
        """Floor cells from which a player can face ``pos``."""
        return [cell for _, cell in self.neighbours(pos)]

    def _is_pass_through(self, pos: Pos) -> bool:
        x, y = pos
        floor = {(x + dx, y + dy) for _, (dx, dy) in STEPS} & set(self.stand_cells(pos))
        return {(x, y - 1), (x, y + 1)} <= floor or {(x - 1, y), (x + 1, y)} <= floor

    def distances_to(self, target: Pos, blocker: Pos | None = None) -> dict[Pos, int]:
        """Cell -> steps to stand next to ``target``, avoiding ``blocker`` (cached)."""
        key = (target, blocker)
        cached = self._to_target.get(key)
        if cached is None:
            starts = [c for c in self.stand_cells(target) if c != blocker]
            cached = self._bfs(starts, blocker)
            self._to_target[key] = cached
        return cached

    def distances_from(self, source: Pos) -> dict[Pos, int]:
        """Cell -> steps from ``source`` over floor cells (no blocker; cached)."""
        cached = self._from_cell.get(source)
        if cached is None:
            cached = self._bfs([source], None)
            self._from_cell[source] = cached
        return cached

    def reach(self, player: Pos, target: Pos, partner: Pos) -> Reach:
        """Distances from ``player`` to ``target`` with and without ``partner`` in the way."""
        return Reach(
            self.distances_to(target, partner).get(player),
            self.distances_to(target, None).get(player),
        )

    def _bfs(self, starts: Iterable[Pos], blocker: Pos | None) -> dict[Pos, int]:
        dist: dict[Pos, int] = {}
        queue: deque[Pos] = deque()
        for start in starts:
            if start not in dist:
                dist[start] = 0
                queue.append(start)
        while queue:
            cell = queue.popleft()
            for _, nxt in self.neighbours(cell):
                if nxt != blocker and nxt not in dist:
                    dist[nxt] = dist[cell] + 1
                    queue.append(nxt)
        return dist


def terrain_rows(matrix: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """Normalise overcooked-ai's ``terrain_mtx`` (lists of characters) to a tuple of strings."""
    return tuple("".join(row) for row in matrix)
