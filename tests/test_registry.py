"""Registration without import side effects: every name resolves from any entry point.

Built-in games, players, builders and models are lazy ``"module:attr"`` entries or catalogs;
coordqa's own agents and partners, and any other package's games, players and models, come from
package entry points. Nothing has to be imported first.
"""

from __future__ import annotations

import doctest
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import coordqa
from coordqa import registry
from coordqa.errors import ConfigError, ModelError, UnknownNameError
from coordqa.registry import Catalog, Registry


def _python(code: str, **env: str) -> str:
    """Run ``code`` in a fresh interpreter (nothing imported yet) and return its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**_base_env(), **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _base_env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_doctests() -> None:
    assert doctest.testmod(registry).failed == 0


def test_every_kind_of_name_resolves_in_a_fresh_process() -> None:
    out = _python(
        """
        import sys
        import coordqa
        agent = coordqa.make_player("cac", "hanabi", model=coordqa.get_model("scripted"))
        game = coordqa.make_game("collab_escape")
        # a single lazy entry imports its own module only: no partner, no other game
        print("coordqa.agentic.partners" in sys.modules, "coordqa.games.overcooked" in sys.modules)
        partner = coordqa.make_player("hanabi-iggi", "hanabi")
        from coordqa.scenarios import BUILDERS
        print(type(agent).__name__, type(partner).__name__, type(game).__name__,
              type(BUILDERS.get("hanabi")).__name__)
        """
    )
    assert out.split("\n")[:2] == ["False False", "CACAgent RulePlayer CollabEscape HanabiBuilder"]


def test_partners_resolve_without_importing_the_partners_package() -> None:
    out = _python(
        """
        from coordqa.games import PLAYERS
        print(PLAYERS.get("obl1").kind, PLAYERS.get("bc-cramped_room").games)
        """
    )
    assert out.strip() == "obl ('overcooked',)"


def test_unknown_names_still_get_suggestions() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown player 'cak'\. Did you mean [^?]*'cac'"):
        coordqa.make_player("cak", "hanabi")
    with pytest.raises(UnknownNameError, match=r"Did you mean 'hanabi'"):
        coordqa.make_game("hanabbi")
    with pytest.raises(ModelError, match=r"unknown model scriptd\. Did you mean 'scripted'"):
        coordqa.get_model("scriptd")


def test_the_library_reads_names_in_any_case_as_the_cli_does() -> None:
    """walk13 R9: ``--game Hanabi --agent CAC`` ran, while ``coordqa.make_game("Hanabi")``
    raised "unknown game 'Hanabi'. Did you mean 'hanabi'?". A name is looked up as typed, then
    in any case (:meth:`Registry.get`, the one rule)."""
    game = coordqa.make_game("Hanabi")
    assert type(game) is type(coordqa.make_game("hanabi"))
    agent = coordqa.make_player("CAC", "Hanabi", model=coordqa.get_model("scripted"))
    assert type(agent).__name__ == "CACAgent"
    assert type(coordqa.make_player("HANABI-IGGI", "HANABI")).__name__ == "RulePlayer"
    # an exact name wins over one that differs only in case
    names: Registry[str] = Registry("thing")
    names.add("a", "lower")
    names.add("A", "upper")
    assert (names.get("a"), names.get("A"), "A" in names) == ("lower", "upper", True)
    with pytest.raises(UnknownNameError, match=r"unknown thing 'B'"):
        names.get("B")


def test_listing_names_does_not_import_lazy_entries() -> None:
    names: Registry[object] = Registry("thing")
    names.add_lazy("ghost", "no_such_module_anywhere:THING")
    assert names.names() == ["ghost"]
    with pytest.raises(ConfigError, match="cannot load registry reference"):
        names.get("ghost")


def test_an_entry_must_be_registered_under_its_own_name() -> None:
    games: Registry[type[coordqa.games.Game]] = Registry("game", name_of=lambda cls: cls.name)
    games.add_lazy("capture", "coordqa.games.collab_capture:CollabCapture")
    with pytest.raises(ConfigError, match="calls itself 'collab_capture'"):
        games.get("capture")


def test_a_name_registered_twice_is_an_error() -> None:
    names: Registry[str] = Registry("thing")
    names.add_lazy("a", "m:A")
    with pytest.raises(ConfigError, match="registered twice"):
        names.add("a", "x")
    names.add_catalog(f"{__name__}:DUPLICATE")
    names.add("dup", "y")
    with pytest.raises(ConfigError, match="'dup' is registered twice"):
        names.names()


DUPLICATE: Catalog[str] = Catalog({"dup": "z"})


def test_plugins_come_from_entry_points_one_entry_or_a_catalog(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    def dynamic() -> dict[str, str]:
        calls.append(1)
        return {f"made-{len(calls)}": "dynamic"}

    monkeypatch.setattr(sys.modules[__name__], "DYNAMIC", Catalog(dynamic), raising=False)
    points = [
        metadata.EntryPoint("alpha", "coordqa.registry:suggest", "test.group"),
        metadata.EntryPoint("label", f"{__name__}:DYNAMIC", "test.group"),
    ]
    monkeypatch.setattr(
        metadata, "entry_points", lambda group=None: [p for p in points if p.group == group]
    )
    plugins: Registry[object] = Registry("thing", "test.group")
    assert plugins.get("alpha") is registry.suggest
    # the catalog is asked again each time, so what it offers may change at run time
    assert plugins.names() == ["alpha", "made-1"]
    assert plugins.names() == ["alpha", "made-2"]
    assert "label" not in plugins


def test_a_broken_plugin_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    points = [metadata.EntryPoint("bad", "no_such_plugin_module:X", "test.group")]
    monkeypatch.setattr(metadata, "entry_points", lambda group=None: points)
    plugins: Registry[object] = Registry("thing", "test.group")
    with pytest.raises(ConfigError, match=r"plugin 'bad' = 'no_such_plugin_module:X'.*does not"):
        plugins.get("bad")


FAKE_PLUGIN = """
from coordqa.games import PlayerSpec, ScriptedPlayer


class FirstLegal(ScriptedPlayer):
    name = "fake-first"

    def choose(self, observation):
        return observation.legal_actions[0]


PLAYER = PlayerSpec("fake-first", ("collab_capture",), lambda game, layout, **o: FirstLegal(),
                    "always the first legal action")
"""


def _fake_distribution(root: Path) -> Path:
    """A tiny installed distribution whose entry point adds the player ``fake-first``."""
    (root / "fakeplug.py").write_text(FAKE_PLUGIN)
    info = root / "fakeplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[coordqa.players]\nfake-first = fakeplug:PLAYER\n")
    return root


def test_a_third_party_distribution_adds_a_player(tmp_path: Path) -> None:
    root = _fake_distribution(tmp_path)
    out = _python(
        """
        import asyncio
        import coordqa
        players = [coordqa.make_player("fake-first", "collab_capture") for _ in range(2)]
        game = coordqa.make_game("collab_capture")
        trajectory = asyncio.run(coordqa.play_episode(game, players, seed=0))
        print(len(trajectory.steps) > 0)
        """,
        PYTHONPATH=str(root),
    )
    assert out.strip() == "True"
    listing = subprocess.run(
        [sys.executable, "-c", "from coordqa.cli import main; main()", "games", "list"],
        capture_output=True,
        text=True,
        env={**_base_env(), "PYTHONPATH": str(root), "COLUMNS": "300"},
    )
    assert listing.returncode == 0, listing.stderr
    assert "fake-first" in listing.stdout


def test_threads_looking_up_names_at_once_load_each_plugin_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server verifies submissions in a thread pool: first lookups race (a KeyError before)."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    for number in range(8):
        catalog = Catalog({f"from-catalog-{number}": "x"})
        monkeypatch.setattr(sys.modules[__name__], f"SLOW{number}", catalog, raising=False)
    load = metadata.EntryPoint.load

    def slow_load(point: metadata.EntryPoint) -> Any:
        time.sleep(0.01)  # a plugin import takes time: the other threads arrive meanwhile
        return load(point)

    monkeypatch.setattr(metadata.EntryPoint, "load", slow_load)
    points = [metadata.EntryPoint(f"p{i}", f"{__name__}:SLOW{i}", "test.group") for i in range(8)]
    monkeypatch.setattr(
        metadata, "entry_points", lambda group=None: [p for p in points if p.group == group]
    )
    for _ in range(5):
        plugins: Registry[object] = Registry("thing", "test.group")
        start = threading.Barrier(8)

        def look(
            _: int, plugins: Registry[object] = plugins, start: threading.Barrier = start
        ) -> bool:
            start.wait()
            return "unknown-name" in plugins

        with ThreadPoolExecutor(8) as pool:
            assert list(pool.map(look, range(8))) == [False] * 8
