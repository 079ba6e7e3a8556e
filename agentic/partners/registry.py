"""Every neural partner by name: what it plays, whether it is ready, and where its weights are.

BC and human-proxy partners exist for the five classic Overcooked layouts; they are ready once a
checkpoint exists (trained by the user, or shipped with coordqa). SAD and OBL partners exist once
their published weight files are registered: one file at a time with ``coordqa partners
add-hanabi`` (kept in ``hanabi.json`` in the partners data folder), or a whole folder of them,
registered once or given in ``COORDQA_HANABI_WEIGHTS``. The aliases ``sad`` and ``obl`` always
exist, so a grid can name them before any file is registered and get a clear "needs weights" error
instead of an unknown name: ``sad`` plays the lowest-numbered ``sad_2p_<n>`` file (with none it
refuses, even beside other SAD-type files, since Other-Play models are SAD-type too), ``obl`` the
first OBL net by name (``obl1-a`` in the authors' folder).

Other-Play models (``op/<method>/M<k>.pthw``) M3-M5 and M9-M11 have a skip connection around the
LSTM that the weights cannot show; it is read from the path exactly as the authors'
``load_op_model`` does (:func:`skip_connect_from_path`).

Every partner is registered as a player even when torch is missing; building one is what fails.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coordqa.agentic.partners.bc import (
    KIND_OF_SPLIT,
    PACKAGED_DIR,
    BCCheckpoint,
    find_checkpoint,
    partner_name,
)
from coordqa.agentic.partners.overcooked_data import LAYOUT_DATA_NAMES, SPLIT_FILES
from coordqa.agentic.partners.paths import HANABI_WEIGHTS_SOURCE, data_dir
from coordqa.errors import ConfigError
from coordqa.files import atomic_write_text
from coordqa.games.base import PLAYERS, Player, PlayerSpec
from coordqa.registry import Catalog

HANABI_WEIGHTS_ENV = "COORDQA_HANABI_WEIGHTS"
"""A folder searched for ``*.pthw`` files (in addition to registered ones)."""
REGISTRATIONS_VERSION = 2
"""Format of ``hanabi.json``. Version 2 stores ``skip_connect`` only when the user set it; in
version 1 files ``false`` meant "not given", so it is read from the path there."""
ALIASES = {"sad": "sad", "obl": "obl", **{f"obl{level}": "obl" for level in range(1, 6)}}
"""Alias name -> the kind of net it plays; ``obl1``-``obl5`` play the first seed (by name) of
that OBL level (``obl1-a`` in the authors' folder), as the paper's "OBL-1" and "OBL-4"."""
SAD_2P = re.compile(r"sad_2p_(\d+)\.pthw$")
"""The authors' two-player SAD files (what the ``sad`` alias plays)."""
OTHER_PLAY = re.compile(r"(?:^|/)op/([^/]+)/M(\d+)\.pthw$")
"""The authors' Other-Play files, ``op/<method>/M<k>.pthw``."""
SKIP_CONNECTED_OP_MODELS = frozenset({3, 4, 5, 9, 10, 11})
"""Other-Play model numbers with a skip connection (hanabi_SAD's ``load_op_model``)."""


class PartnerNotReadyError(ConfigError):
    """A partner exists but cannot play yet (not trained, weights not registered or missing)."""


class AmbiguousAliasError(PartnerNotReadyError):
    """Nets of an alias's kind are registered but its naming rule picks none of them."""


@dataclass(frozen=True)
class PartnerInfo:
    """One row of ``coordqa partners list``."""

    name: str
    """Player name, usable in ``coordqa play`` and grids."""
    game: str
    """``overcooked`` or ``hanabi``."""
    kind: str
    """``bc``, ``hp``, ``sad`` or ``obl``."""
    status: str
    """``ready``, ``needs training``, ``needs weights`` or ``needs torch``."""
    source: str
    """Where the weights come from (a file, or how to obtain them)."""
    hint: str = ""
    """What to do to make a partner that is not ready playable."""
    advice: str = ""
    """Advice shared by several rows (where to get the files): said once after the listing."""
    layout: str | None = None
    """The Overcooked layout a BC/HP partner was trained for."""


@dataclass(frozen=True)
class HanabiEntry:
    """A registered SAD/OBL weights file."""

    name: str
    """Partner name."""
    path: Path
    """The ``.pthw`` file."""
    kind: str
    """``sad`` or ``obl`` (detected from the file's keys when it was registered)."""
    skip_connect: bool = False
    """SAD variant with a skip connection around the LSTM (invisible in the weights)."""


def skip_connect_from_path(path: Path) -> bool:
    """Whether the file is an Other-Play model with a skip connection, read from its path.

    The authors' ``load_op_model`` sets ``skip_connect`` for models M3-M5 and M9-M11 (and two
    feed-forward layers for M6-M11, which coordqa reads from the tensor shapes instead).

    >>> skip_connect_from_path(Path("models/op/sad_aux_op/M4.pthw"))
    True
    >>> skip_connect_from_path(Path("models/op/sad_aux_op/M7.pthw"))
    False
    >>> skip_connect_from_path(Path("models/sad_2p_4.pthw"))
    False
    """
    match = OTHER_PLAY.search(path.as_posix())
    return match is not None and int(match.group(2)) in SKIP_CONNECTED_OP_MODELS


# --- Hanabi registrations --------------------------------------------------------------------


def registrations_file() -> Path:
    """``hanabi.json`` in the partners data folder."""
    return data_dir() / "hanabi.json"


def _read_registrations() -> dict[str, Any]:
    path = registrations_file()
    if not path.is_file():
        return {"version": REGISTRATIONS_VERSION, "nets": {}, "directories": []}
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); fix or delete it and register the files again"
        ) from exc
    data.setdefault("nets", {})
    data.setdefault("directories", [])
    if data.get("version", 1) < 2:
        for item in data["nets"].values():
            if item.get("skip_connect") is False:
                del item["skip_connect"]
    data["version"] = REGISTRATIONS_VERSION
    return data


def _write_registrations(data: dict[str, Any]) -> None:
    path = registrations_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def name_from_path(relative: Path) -> tuple[str, str]:
    """A partner name and a kind guess for a file found in a weights folder.

    The authors' layouts get short names: ``sad_2p_3.pthw`` -> ``sad-2p-3``,
    ``icml_OBL1/..._BELIEF_a/model0.pthw`` -> ``obl1-a``, ``op/<method>/M4.pthw`` ->
    ``op-<method>-m4``; anything else is its lower-cased path with ``-`` separators.

    >>> name_from_path(Path("icml_OBL4/OFF_BELIEF1_SHUFFLE_COLOR0_LOAD1_BZA0_BELIEF_c/model0.pthw"))
    ('obl4-c', 'obl')
    >>> name_from_path(Path("sad_models/sad_2p_10.pthw"))
    ('sad-2p-10', 'sad')
    """
    text = relative.as_posix()
    if match := SAD_2P.search(text):
        return f"sad-2p-{match.group(1)}", "sad"
    if (level := re.search(r"OBL(\d)", text)) and (seed := re.search(r"BELIEF_([a-e])/", text)):
        return f"obl{level.group(1)}-{seed.group(1)}", "obl"
    if match := OTHER_PLAY.search(text):
        return f"op-{match.group(1).lower()}-m{match.group(2)}", "sad"
    slug = re.sub(r"[^a-z0-9]+", "-", str(relative.with_suffix("")).lower()).strip("-")
    return slug, "obl" if "obl" in slug else "sad"


def _directory_entries(directory: Path) -> dict[str, HanabiEntry]:
    if not directory.is_dir():
        raise ConfigError(
            f"Hanabi weights folder {directory} does not exist: fix {HANABI_WEIGHTS_ENV} or the "
            f"'directories' list in {registrations_file()}"
        )
    entries: dict[str, HanabiEntry] = {}
    for path in sorted(directory.rglob("*.pthw")):
        name, kind = name_from_path(path.relative_to(directory))
        if name in entries:
            raise ConfigError(
                f"two weight files in {directory} map to the partner name {name!r}: "
                f"{entries[name].path} and {path}; register one of them by hand with --name"
            )
        entries[name] = HanabiEntry(name, path, kind, skip_connect_from_path(path))
    return entries


def hanabi_entries() -> dict[str, HanabiEntry]:
    """Every registered SAD/OBL net by name (explicit registrations win over folder scans).

    A weights folder that no longer exists offers none (:func:`gone_folders` says it).
    """
    data = _read_registrations()
    folders = [Path(d) for d in data["directories"]]
    if os.environ.get(HANABI_WEIGHTS_ENV):
        folders.append(Path(os.environ[HANABI_WEIGHTS_ENV]))
    entries: dict[str, HanabiEntry] = {}
    for folder in folders:
        if folder.is_dir():
            entries.update(_directory_entries(folder))
    for name, item in data["nets"].items():
        path = Path(item["path"])
        skip = item.get("skip_connect")
        skip = skip_connect_from_path(path) if skip is None else bool(skip)
        entries[name] = HanabiEntry(name, path, item["kind"], skip)
    return entries


def gone_folders() -> dict[str, str]:
    """Each weights folder named that offers no partner, with what to do, by folder.

    A registered folder, or ``COORDQA_HANABI_WEIGHTS``'s, that no longer exists: its partners
    went with it, and listings show it as missing (a registered folder deleted made every
    listing fail). ``COORDQA_HANABI_WEIGHTS``'s folder that holds no weight file is listed as
    empty (walkthrough 27: every partner was told to set the variable it was set to).
    """
    gone = {
        folder: f"Hanabi weights folder {folder} is gone: coordqa partners remove {folder}"
        for folder in _read_registrations()["directories"]
        if not Path(folder).is_dir()
    }
    env = os.environ.get(HANABI_WEIGHTS_ENV)
    if env and not Path(env).is_dir():
        gone[env] = (
            f"Hanabi weights folder {env} ({HANABI_WEIGHTS_ENV}) is gone: set "
            f"{HANABI_WEIGHTS_ENV} to a folder of weights, or unset it"
        )
    elif env and not _directory_entries(Path(env)):
        gone[env] = (
            f"Hanabi weights folder {env} ({HANABI_WEIGHTS_ENV}) holds no weight files "
            f"(*.pthw): set {HANABI_WEIGHTS_ENV} to the authors' unzipped folder, or unset it"
        )
    return gone


def add_hanabi(
    path: Path, name: str | None = None, kind: str | None = None, skip_connect: bool | None = None
) -> list[HanabiEntry]:
    """Register a weights file (checked by loading it) or a folder of them; persist it.

    ``skip_connect`` None reads it from the path (:func:`skip_connect_from_path`); True or False
    overrides that for a single file. Returns the entries the registration added; they are
    players at once (:data:`PARTNERS` reads the registrations on each lookup).

    Raises:
        ConfigError: a folder holds no ``*.pthw`` file (nothing is registered), or a file is
            given no name or a taken one.
        WeightsError: the file, or any file of the folder, cannot be played (nothing is
            registered).
    """
    from coordqa.agentic.partners.hanabi_nets import WeightsError

    path = path.expanduser().resolve()
    data = _read_registrations()
    if path.is_dir():
        if name is not None or kind is not None or skip_connect is not None:
            raise ConfigError(
                "--name, --kind and --skip-connect apply to one file; a folder's files are named "
                "after their paths and Other-Play skip connections are read from them (see "
                "`coordqa partners list`)"
            )
        found = list(_directory_entries(path).values())
        if not found:  # a folder with nothing to play is not registered (walkthrough 10 #331)
            raise ConfigError(
                f"no Hanabi weight files (*.pthw, in any subfolder) in {path}: nothing was "
                f"registered; get the authors' SAD and OBL files from {HANABI_WEIGHTS_SOURCE}, "
                "then give their folder (or one file with --name NAME)"
            )
        added, failures = [], []
        for entry in found:  # every file is checked as one file is; any failure refuses them all
            try:
                added.append(_checked(entry.path, entry.name, entry.kind, entry.skip_connect))
            except WeightsError as exc:
                failures.append(str(exc))
        if failures:
            also = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            raise WeightsError(
                f"{path} was not registered: {len(failures)} of its {len(found)} weight files "
                f"cannot be played; {failures[0]}{also}"
            )
        if str(path) not in data["directories"]:
            data["directories"].append(str(path))
    else:
        if name is None:
            raise ConfigError(
                f"give the partner a name: coordqa partners add-hanabi {path} --name NAME"
            )
        _check_new_name(name, data)
        skip = skip_connect_from_path(path) if skip_connect is None else skip_connect
        entry = _checked(path, name, kind, skip)
        data["nets"][name] = {"path": str(path), "kind": entry.kind}
        if skip_connect is not None:
            data["nets"][name]["skip_connect"] = skip_connect
        added = [entry]
    _write_registrations(data)
    return added


def remove_hanabi(name: str) -> list[HanabiEntry]:
    """Remove the registration of a file by partner name, or of a folder by its path; persist it.

    Returns the entries the registration played (none for a folder that is gone). A name that a
    registered folder gives its file is refused with the command that removes the folder.

    Raises:
        ConfigError: ``name`` is a file of a registered folder or of ``COORDQA_HANABI_WEIGHTS``.
        UnknownNameError: nothing is registered by that name or path (the closest are offered).
    """
    from coordqa.errors import UnknownNameError
    from coordqa.registry import suggest

    data = _read_registrations()
    if name in data["nets"]:
        item = data["nets"].pop(name)
        _write_registrations(data)
        path = Path(item["path"])
        skip = item.get("skip_connect")
        skip = skip_connect_from_path(path) if skip is None else bool(skip)
        return [HanabiEntry(name, path, item["kind"], skip)]
    folder = Path(name).expanduser().resolve()
    if str(folder) in data["directories"]:
        removed = list(_directory_entries(folder).values()) if folder.is_dir() else []
        data["directories"].remove(str(folder))
        _write_registrations(data)
        return removed
    env = os.environ.get(HANABI_WEIGHTS_ENV)
    for directory in [*data["directories"], *([env] if env else [])]:
        if Path(directory).is_dir() and name in _directory_entries(Path(directory)):
            fix = (
                f"unset {HANABI_WEIGHTS_ENV}"
                if directory == env
                else f"remove the folder: coordqa partners remove {directory}"
            )
            raise ConfigError(f"{name!r} is a file of the weights folder {directory}; {fix}")
    known = [*data["nets"], *data["directories"]]
    close = suggest(name, known)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    registered = f"Registered: {', '.join(known)}." if known else "Nothing is registered."
    raise UnknownNameError(
        f"no Hanabi registration {name!r} (a file's name or a folder's path).{hint} {registered}"
    )


def _checked(path: Path, name: str, kind: str | None, skip_connect: bool) -> HanabiEntry:
    """The entry of a weights file, checked by loading it as a partner would be built.

    Raises:
        WeightsError: the file cannot be read or does not fit the SAD/OBL architecture (or not
            the kind given).
    """
    from coordqa.agentic.partners.hanabi_nets import load_hanabi_net

    loaded = load_hanabi_net(path, kind, skip_connect)
    return HanabiEntry(name, path, loaded.shape.kind, skip_connect)


def _check_new_name(name: str, data: dict[str, Any]) -> None:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise ConfigError(f"partner name {name!r} must be letters, digits, '-', '_' or '.'")
    if name in data["nets"]:
        return
    if name in ALIASES:
        raise ConfigError(f"{name!r} is an alias, not a name to register: {_alias_rule(name)}")
    if name in PLAYERS:
        raise ConfigError(f"{name!r} is already a player name; pick another --name")


# --- Building players ------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _cached_net(path: Path, mtime: float, kind: str, skip_connect: bool) -> Any:
    """Load a net once per file version: ``mtime`` is only part of the cache key."""
    from coordqa.agentic.partners.hanabi_nets import load_hanabi_net

    return load_hanabi_net(path, kind, skip_connect)


def alias_target(alias: str, entries: dict[str, HanabiEntry]) -> HanabiEntry:
    """The registered net an alias plays (see the module docstring for the rule).

    Raises:
        PartnerNotReadyError: no net of the alias's kind is registered, or (``sad``) several
            SAD-type nets and none of them a ``sad_2p`` file, so the choice would be arbitrary.
    """
    kind = ALIASES[alias]
    of_kind = sorted((e for e in entries.values() if e.kind == kind), key=lambda e: e.name)
    if alias != kind:  # a level alias: only that level's nets
        of_kind = [e for e in of_kind if e.name.startswith(f"{alias}-")]
    if not of_kind:
        gone = "".join(f". {note}" for note in gone_folders().values())  # its weights, perhaps
        raise PartnerNotReadyError(
            f"partner {alias!r} needs weights: {_needs_weights_hint(alias)}{gone}"
        )
    if kind != "sad":
        return of_kind[0]
    two_player = [(int(m.group(1)), e) for e in of_kind if (m := SAD_2P.search(e.path.name))]
    if two_player:
        return min(two_player, key=lambda pair: pair[0])[1]
    raise AmbiguousAliasError(
        f"partner 'sad' plays the lowest-numbered sad_2p_<n>.pthw file and none is registered "
        f"(SAD-type nets registered: {', '.join(repr(e.name) for e in of_kind)}); name one of "
        "them instead, or register the authors' sad_2p_<n>.pthw files"
    )


def _resolve_hanabi(name: str) -> HanabiEntry:
    entries = hanabi_entries()
    if name in ALIASES:
        return alias_target(name, entries)
    if name not in entries:
        raise PartnerNotReadyError(
            f"Hanabi partner {name!r} is no longer registered; see `coordqa partners list`"
        )
    return entries[name]


def build_hanabi_partner(name: str) -> Player:
    """A SAD/OBL player for registered net (or alias) ``name``."""
    from coordqa.agentic.partners.hanabi_players import HanabiNetPlayer

    entry = _resolve_hanabi(name)
    if not entry.path.is_file():
        raise PartnerNotReadyError(
            f"weights of Hanabi partner {name!r} are missing: {entry.path} does not exist "
            "(re-register with `coordqa partners add-hanabi PATH --name NAME`)"
        )
    net = _cached_net(entry.path, entry.path.stat().st_mtime, entry.kind, entry.skip_connect)
    return HanabiNetPlayer(net, name)


def build_bc_partner(name: str) -> Player:
    """A BC/HP player from the user's checkpoint or the packaged one."""
    from coordqa.agentic.partners.bc_player import BCPlayer

    path = find_checkpoint(name)
    if path is None:
        raise PartnerNotReadyError(f"partner {name!r} needs training: {_needs_training_hint(name)}")
    return BCPlayer(BCCheckpoint.load(path))


def _needs_training_hint(name: str) -> str:
    kind, layout = name.split("-", 1)
    split = "train" if kind == "bc" else "test"
    return f"train it (about a minute): coordqa partners train-bc --layout {layout} --split {split}"


def _needs_weights_hint(alias: str) -> str:
    return _get_weights_advice(ALIASES[alias].upper(), _alias_rule(alias))


def _get_weights_advice(kinds: str, rule: str = "") -> str:
    """Where to get the authors' files of ``kinds`` (then ``rule``, what to register)."""
    middle = f"; {rule}" if rule else ""
    variable = (
        ""
        if os.environ.get(HANABI_WEIGHTS_ENV)
        else f" (or set {HANABI_WEIGHTS_ENV} to their folder)"
    )
    return f"get the authors' {kinds} files from {HANABI_WEIGHTS_SOURCE}{middle}{variable}"


def _alias_rule(alias: str) -> str:
    """What an alias plays and what registration makes it ready, in words.

    One home for these words (the skip advice and the refusal of ``--name ALIAS``);
    :func:`alias_target` is the rule itself.
    """
    if alias == "sad":
        return (
            "'sad' plays the lowest-numbered sad_2p_<n>.pthw file registered; register the "
            "authors' folder (coordqa partners add-hanabi FOLDER) or one such file (coordqa "
            "partners add-hanabi sad_2p_1.pthw --name sad-2p-1)"
        )
    if alias == "obl":
        return (
            "'obl' plays the first registered OBL net by name; register the authors' folder "
            "(coordqa partners add-hanabi FOLDER) or one file (coordqa partners add-hanabi PATH "
            "--name NAME --kind obl)"
        )
    level = alias[3:]
    return (
        f"'{alias}' plays the first registered OBL-{level} net named {alias}-<seed>; register "
        f"the authors' folder (coordqa partners add-hanabi FOLDER: its icml_OBL{level}/"
        f"..._BELIEF_a/model0.pthw becomes {alias}-a) or one OBL-{level} file (coordqa partners "
        f"add-hanabi PATH --name {alias}-a --kind obl)"
    )


def _alias_description(alias: str) -> str:
    if alias == "sad":
        return "lowest sad_2p_<n> net"
    if alias == "obl":
        return "first registered OBL net"
    return f"first seed of OBL level {alias[3:]}"


def _factory(build: Callable[[str], Player], name: str, layout: str | None = None) -> Any:
    def factory(game: str, game_layout: str | None = None) -> Player:
        if layout is not None and game_layout not in (None, layout):
            raise ConfigError(
                f"partner {name!r} plays Overcooked layout {layout}, not {game_layout}: play "
                f"{layout} alone with it (--layout {layout}; layouts: [{layout}] in a grid), or "
                f"use {name.split('-', 1)[0]}-{game_layout} there ({name.split('-', 1)[0]}-"
                "{layout} in a grid's partners plays each layout with its own)"
            )
        return build(name)

    return factory


def partner_layout(name: str) -> str | None:
    """The one Overcooked layout a BC/HP partner (``hp-cramped_room``) plays; None: any."""
    kind, _, layout = name.partition("-")
    return layout if kind in KIND_OF_SPLIT.values() and layout in LAYOUT_DATA_NAMES else None


def partner_players() -> dict[str, PlayerSpec]:
    """Every BC/HP partner, the ``sad``/``obl`` aliases and all registered nets, by name."""
    pending: list[tuple[str, str, str, str, Any]] = []
    for layout in LAYOUT_DATA_NAMES:
        for split in SPLIT_FILES:
            name = partner_name(layout, split)
            who = "behaviour-cloned human" if split == "train" else "human proxy (test split)"
            pending.append(
                (
                    name,
                    "overcooked",
                    name.split("-")[0],
                    f"{who} on {layout}",
                    _factory(build_bc_partner, name, layout),
                )
            )
    for alias, kind in ALIASES.items():
        pending.append(
            (
                alias,
                "hanabi",
                kind,
                _alias_description(alias),
                _factory(build_hanabi_partner, alias),
            )
        )
    for name, entry in hanabi_entries().items():
        pending.append(
            (
                name,
                "hanabi",
                entry.kind,
                f"{entry.kind.upper()} net {entry.path.name}",
                _factory(build_hanabi_partner, name),
            )
        )
    return {
        name: PlayerSpec(name, (game,), factory, description, kind)
        for name, game, kind, description, factory in pending
    }


PARTNERS: Catalog[PlayerSpec] = Catalog(partner_players, lambda: list(gone_folders().values()))
"""The partners in the player registry (entry point ``partners``): computed on each lookup, so
a weight file registered by ``add_hanabi`` is playable at once."""


# --- Listing ---------------------------------------------------------------------------------


def list_partners() -> list[PartnerInfo]:
    """Every partner with its status and the origin of its weights."""
    rows: list[PartnerInfo] = []
    for layout in LAYOUT_DATA_NAMES:
        for split in SPLIT_FILES:
            rows.append(_bc_info(partner_name(layout, split), layout, split))
    entries = hanabi_entries()
    torch_ok = importlib.util.find_spec("torch") is not None
    for alias, kind in ALIASES.items():
        try:
            target = alias_target(alias, entries)
        except AmbiguousAliasError as exc:
            status, source = "needs weights", "no sad_2p net"
            rows.append(PartnerInfo(alias, "hanabi", kind, status, source, str(exc)))
        except PartnerNotReadyError:
            rows.append(
                PartnerInfo(
                    alias,
                    "hanabi",
                    kind,
                    "needs weights",
                    "not registered",
                    _alias_rule(alias),
                    advice=_get_weights_advice("SAD and OBL"),
                )
            )
        else:
            rows.append(_hanabi_info(alias, target, torch_ok, f"alias of {target.name}: "))
    for name in sorted(entries):
        rows.append(_hanabi_info(name, entries[name], torch_ok))
    for folder, fix in gone_folders().items():
        state, what = (
            ("empty", "it holds no weights")
            if Path(folder).is_dir()
            else ("missing", "its partners are gone")
        )
        rows.append(PartnerInfo(folder, "hanabi", "folder", state, what, fix))
    return rows


def _bc_info(name: str, layout: str, split: str) -> PartnerInfo:
    kind = name.split("-")[0]
    path = find_checkpoint(name)
    if path is None:
        return PartnerInfo(
            name,
            "overcooked",
            kind,
            "needs training",
            f"human data ({SPLIT_FILES[split]})",
            _needs_training_hint(name),
            layout,
        )
    meta = BCCheckpoint.read_meta(path)
    where = "shipped with coordqa" if path.parent == PACKAGED_DIR else str(path)
    accuracy = meta.get("val_accuracy")
    shown = f"{accuracy:.3f}" if isinstance(accuracy, int | float) else "unknown"
    source = (
        f"{where} (trained on {SPLIT_FILES[split]}, seed {meta.get('seed')}, val. accuracy {shown})"
    )
    return PartnerInfo(name, "overcooked", kind, "ready", source, layout=layout)


def _hanabi_info(name: str, entry: HanabiEntry, torch_ok: bool, prefix: str = "") -> PartnerInfo:
    status, hint = "ready", ""
    if not entry.path.is_file():
        status = "needs weights"
        hint = f"file gone; register it again: coordqa partners add-hanabi PATH --name {name}"
    elif not torch_ok:
        status, hint = "needs torch", "pip install 'coordqa[partners]'"
    return PartnerInfo(name, "hanabi", entry.kind, status, f"{prefix}{entry.path}", hint)


def partner_info(name: str) -> PartnerInfo:
    """The listing row of ``name``; an unknown name lists the partners and suggests the closest."""
    rows = {row.name: row for row in list_partners()}
    if name not in rows:
        from coordqa.errors import UnknownNameError
        from coordqa.registry import suggest

        close = suggest(name, list(rows))
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise UnknownNameError(f"unknown partner {name!r}.{hint} Available: {', '.join(rows)}.")
    return rows[name]
