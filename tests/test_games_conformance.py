"""Every registered game and layout keeps the game protocol (style rule 10)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from coordqa.errors import ConfigError, GameError
from coordqa.games import GAMES, Game, make_game
from coordqa.games.collab_capture import CollabCapture
from coordqa.games.testing import ConformanceError, check_game

CASES = [(name, layout) for name, cls in GAMES.items() for layout in cls.layouts]


@pytest.mark.parametrize(("name", "layout"), CASES, ids=[f"{n}-{lay}" for n, lay in CASES])
def test_game_conforms(name: str, layout: str) -> None:
    try:
        make_game(name, layout)
    except ImportError as exc:  # MissingDependencyError is an ImportError too
        pytest.skip(f"{name} engine not importable: {exc}")
    report = check_game(lambda: make_game(name, layout), steps=25, seeds=(0, 1))
    assert report.game == name
    assert report.seeds == [0, 1]
    assert all(0 < n <= 25 for n in report.steps)
    assert all(length >= n for length, n in zip(report.lengths, report.steps, strict=True))


def test_collab_games_are_registered() -> None:
    assert {"collab_capture", "collab_escape"} <= set(GAMES.names())


class _ChattyCapture(CollabCapture):
    """A broken game: its description changes every time it is asked."""

    calls = 0

    def describe(self, player: int) -> str:
        type(self).calls += 1
        return f"{super().describe(player)}\n(call {self.calls})"


class _LenientCapture(CollabCapture):
    """A broken game: it accepts moves it did not offer, by treating them as waiting."""

    def step(self, moves: Mapping[int, str]) -> Any:
        legal = {p: m if m in self.legal_actions(p) else "Wait" for p, m in moves.items()}
        return super().step(legal)


class _TupleSnapshot(CollabCapture):
    """A broken game: its snapshot holds a tuple, which JSON turns into a list."""

    def snapshot(self) -> dict[str, Any]:
        return {**super().snapshot(), "extra": (1, 2)}


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (_ChattyCapture, "not deterministic"),
        (_LenientCapture, "illegal move"),
        (_TupleSnapshot, "JSON round trip"),
    ],
)
def test_kit_catches_broken_games(broken: type[Game], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(broken, steps=5, seeds=(0,))


def test_kit_rejects_an_empty_run() -> None:
    with pytest.raises(ConfigError, match="steps >= 1"):
        check_game(CollabCapture, steps=0)


@pytest.mark.parametrize("name", ["overcooked", "collab_capture", "collab_escape"])
def test_snapshot_of_another_version_is_refused(name: str) -> None:
    game = make_game(name)
    snapshot = game.snapshot()
    assert {k: snapshot[k] for k in ("game", "version", "layout", "seed")} == (
        game.snapshot_identity()
    )
    with pytest.raises(GameError, match=f"version 'old-v0'; this game is '{name}'"):
        make_game(name).restore({**snapshot, "version": "old-v0"})
    with pytest.raises(GameError, match="snapshot is for 'hanabi'"):
        make_game(name).restore({**snapshot, "game": "hanabi"})


class _TurnBasedCapture(CollabCapture):
    """A broken game: played in turns, but its JP directive times the partner "at the same
    time" (the default wording), which its agents would be asked with as it is."""

    turn_based = True


def test_a_game_whose_jp_wording_contradicts_its_timing_is_refused() -> None:
    with pytest.raises(ConformanceError, match="turn-based game's JP directive .*on their next"):
        check_game(_TurnBasedCapture, steps=1, seeds=(0,))
