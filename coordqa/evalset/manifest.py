"""``eval-set.json``: what a set is and how each member stands, rewritten as members end."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from coordqa._version import __version__
from coordqa.bounded_reads import read_at_most
from coordqa.dataset.identity import told_apart_by_content
from coordqa.errors import ConfigError
from coordqa.evalset.members import MemberState, member_state, run_fingerprint
from coordqa.evalset.spec import EvalSetSpec, SetMember
from coordqa.files import atomic_write_text
from coordqa.jsonvalues import JSONObject, load_json
from coordqa.llm.endpoints import stored_endpoints
from coordqa.outputs import make_output_folder
from coordqa.runfolder import SET_MANIFEST, holds_run, holds_set as is_set
from coordqa.runs.counts import fewer_than_stored
from coordqa.schema_problems import schema_problems
from coordqa.store import MANIFEST, no_runs_under, run_folder_words

__all__ = [
    "SET_MANIFEST",
    "SetLedger",
    "SetManifest",
    "expand_sets",
    "is_set",
    "read_set",
    "recorded_runs",
    "refuse_run_folder",
]

SET_SCHEMA_VERSION = 4
"""Version of the set manifest format (2: each member records its key, ``member``; 3: a member
that stopped before its run began records no run folder, ``run: null``; 4: each member records
its dataset's ``fingerprint``)."""


class SetManifest(BaseModel):
    """``eval-set.json``: what the set is and how each member stands."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SET_SCHEMA_VERSION
    """Format version."""
    kind: Literal["eval-set"] = "eval-set"
    """Marks the folder as an eval set."""
    coordqa_version: str = __version__
    """coordqa that wrote it last."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    """When the set was first run (UTC)."""
    updated_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    """When a member's state last changed."""
    sessions: int = 0
    """How many times the set was run."""
    shared: dict[str, Any]
    """The shared settings that change results (:meth:`EvalSetSpec.shared_identity`)."""
    spec: dict[str, Any]
    """The spec of the latest session, its endpoints without credentials."""
    members: list[MemberState]
    """Every member of the latest session, in spec order (models, then datasets)."""

    @property
    def ok(self) -> bool:
        """Whether every member is complete."""
        return all(m.status == "complete" for m in self.members)

    def label(self, state: MemberState) -> str:
        """``model · dataset``, with the content's fingerprint when another member differs in it.

        A dataset file regenerated in place keeps its name, and the set then holds a member of
        each content: ``random · fresh/ (e936c6d5)`` and ``random · fresh/ (3b0c11aa)``.
        """
        others = [other.fingerprint for other in self._other_content(state)]
        return f"{state.model} · {told_apart_by_content(state.dataset, state.fingerprint, others)}"

    def content_changed(self, state: MemberState) -> bool:
        """Whether ``state`` is of an earlier session and its dataset now has other content.

        This session named the dataset and ran its new content, so naming it again runs that,
        not ``state``.
        """
        return state.earlier and any(not other.earlier for other in self._other_content(state))

    def _other_content(self, state: MemberState) -> list[MemberState]:
        """The members of ``state``'s model and dataset name whose content differs."""
        return [
            other
            for other in self.members
            if (other.model, other.api_base, other.dataset)
            == (state.model, state.api_base, state.dataset)
            and other.fingerprint is not None
            and other.fingerprint != state.fingerprint
        ]


def _damaged_advice(folder: str | Path) -> str:
    """What to do about a set whose manifest is damaged: its members are ordinary runs.

    Restoring the manifest (or a new set) is what resumes the set; the members' results are
    intact meanwhile, and ``coordqa report`` reads them as runs (walkthrough 23: a read-only
    ``report SET/`` was given only the set's advice).
    """
    return (
        "restore it from where the set was copied, or run the set into a new --out; its "
        f"members are ordinary run directories, which `coordqa report {Path(folder)}/*/` "
        "reports without it"
    )


def read_set(folder: str | Path) -> SetManifest:
    """The manifest of the eval set in ``folder``.

    Raises:
        ConfigError: ``folder`` holds no eval set, or its manifest is damaged.
    """
    path = Path(folder) / SET_MANIFEST
    if not path.is_file():
        raise ConfigError(
            f"{folder} is not an eval set (no {SET_MANIFEST}); run `coordqa eval-set` into it "
            "first, or pass run directories"
        )
    try:
        data = load_json(read_at_most(path))
    except (OSError, ValueError) as exc:  # ValueError: too large, not JSON or UTF-8, too deep
        raise ConfigError(f"{path} is corrupt ({exc}); {_damaged_advice(folder)}") from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > SET_SCHEMA_VERSION:
        raise ConfigError(
            f"{folder} was written with eval-set format {version}, newer than this coordqa "
            f"understands ({SET_SCHEMA_VERSION}); upgrade coordqa (pip install -U coordqa)"
        )
    try:
        return SetManifest.model_validate(data)
    except ValidationError as exc:
        problems = schema_problems(exc, "eval set", shown=3)
        raise ConfigError(
            f"{path} is not a valid eval-set manifest ({problems}); {_damaged_advice(folder)}"
        ) from exc


def recorded_runs(out: Path) -> dict[str, str]:
    """Each member's run folder as the set at ``out`` recorded it, by member key (none: no set).

    Sets written before members were named as ``coordqa eval`` names them named them by their
    key, and recorded no key: their folders are their keys, and stay.
    """
    if not is_set(out):
        return {}
    return {
        member.member or member.run: member.run
        for member in read_set(out).members
        if member.run is not None  # it stopped before its run began: named afresh
    }


def refuse_run_folder(out: Path) -> None:
    """Refuse to make a set in a run's folder.

    Checked as the command line is read and again as the set starts (a spec names its own
    ``out``). The set's members would sit beside the run, and listings would show the run and
    hide them.

    Raises:
        ConfigError: what the folder is, and to give the set another --out.
    """
    if holds_run(out):
        raise ConfigError(
            f"{out} is {run_folder_words(out)}, not an eval set: give the set another --out"
        )


def expand_sets(paths: Sequence[str | Path]) -> list[Path]:
    """``paths`` with each eval set's folder replaced by its members' run directories.

    A set's members come in spec order; those that never created a run directory (a model
    refused before anything was stored) are left out. Other paths are kept as given.

    Raises:
        StoreError: a set's members stored no run at all (each failed before it began).
    """
    expanded: list[Path] = []
    for path in map(Path, paths):
        if not is_set(path):
            expanded.append(path)
            continue
        runs = [path / member.run for member in read_set(path).members if member.run is not None]
        stored = [run for run in runs if (run / MANIFEST).is_file()]
        if not stored:
            raise no_runs_under(
                path,
                f"no member of the eval set stored a run ({SET_MANIFEST} there says why each "
                "failed; fix that and run the set again)",
            )
        expanded += stored
    return expanded


def _unnamed(previous: SetManifest | None, members: Sequence[SetMember]) -> list[MemberState]:
    """The members of ``previous`` this session does not name, as they stood."""
    if previous is None:
        return []
    named = {key for member in members for key in (member.key, member.former_key) if key}
    return [state for state in previous.members if (state.member or state.run) not in named]


def _stored(state: MemberState, out: Path) -> bool:
    """Whether the member's run directory holds a run (anything at all was stored)."""
    return state.run is not None and (out / state.run / MANIFEST).is_file()


def _earlier(unnamed: Sequence[MemberState], out: Path) -> list[MemberState]:
    """The members an earlier session named that stored a run, marked ``earlier``.

    A set only grows (the guide: models and datasets may be added later): a session naming fewer
    models leaves the others in the manifest, so the set's report and view still hold them. A
    member that stored no run (refused or failed before its run began) holds nothing to keep:
    it is dropped (:attr:`SetLedger.dropped`) rather than reported failed by every later session.
    """
    return [
        state.model_copy(
            update={
                "earlier": True,
                "skipped": False,
                "fingerprint": state.fingerprint or run_fingerprint(out / str(state.run)),
            }
        )
        for state in unnamed
        if _stored(state, out)
    ]


class SetLedger:
    """The set manifest of one session: updated and rewritten as members change state."""

    def __init__(self, spec: EvalSetSpec, out: Path, members: Sequence[SetMember]) -> None:
        shared = spec.shared_identity()
        previous = read_set(out) if is_set(out) else None
        if previous is not None:
            _check_same_set(previous, shared, out, spec.setting_from)
        self.out = out
        unnamed = _unnamed(previous, members)
        self.dropped = [state for state in unnamed if not _stored(state, out)]
        """Members of an earlier session that stored no run, left out of the manifest."""
        self.manifest = SetManifest(
            created_at=previous.created_at if previous else datetime.now(timezone.utc),
            sessions=(previous.sessions if previous else 0) + 1,
            shared=shared,
            spec=stored_endpoints(spec.model_dump(mode="json")),
            members=[member_state(m, out) for m in members] + _earlier(unnamed, out),
        )
        self.index = {m.run: i for i, m in enumerate(members)}
        make_output_folder(out)
        self.write()

    def state(self, member: SetMember) -> MemberState:
        """The member's state as the manifest holds it now."""
        return self.manifest.members[self.index[member.run]]

    def update(self, member: SetMember, state: MemberState) -> None:
        """Record the member's new state and rewrite the manifest."""
        self.manifest.members[self.index[member.run]] = state
        self.manifest.updated_at = datetime.now(timezone.utc)
        self.write()

    def write(self) -> None:
        """Rewrite ``eval-set.json`` atomically."""
        atomic_write_text(self.out / SET_MANIFEST, self.manifest.model_dump_json(indent=2) + "\n")


def _check_same_set(
    previous: SetManifest, shared: JSONObject, out: Path, setting_from: Callable[[str], str]
) -> None:
    """Refuse to resume the set at ``out`` with ``shared`` settings unless it is the same set.

    Its identity is said first, trials and all, then the advice on its count only when all else
    matches: the order ``coordqa eval`` keeps for a run (``coordqa.evaluation._as_stored``), so
    following the advice is never met by another refusal. Each value asked is said with where
    it came from (``setting_from``: ``--limit``, ``models.yaml's trials``): a spec's value the
    user did not touch on this command differs too, and would be refused next (walkthrough 18
    R9a). Trials are the one shared setting a set may raise, as ``coordqa eval --trials`` raises
    a run's (:mod:`coordqa.runs.counts`): each member resumes and runs only its missing trials.

    Raises:
        ConfigError: other shared settings, or fewer trials than the set holds.
    """
    had, asked = previous.shared.get("trials"), shared.get("trials")
    counts = (had, asked) if isinstance(had, int) and isinstance(asked, int) else None
    if {**previous.shared, **({"trials": asked} if counts else {})} != shared:
        differences = _differences(previous.shared, shared, setting_from)
        raise ConfigError(
            f"{out} holds an eval set with other shared settings ({differences}); run it with the "
            "same settings (models and datasets may be added), or choose another --out"
        )
    if counts is not None and counts[1] < counts[0]:
        raise ConfigError(
            fewer_than_stored(
                out,
                *counts,
                flag="--trials",
                units="trials",
                started=any(member.answered for member in previous.members),
                nothing="no sample answered yet",
            )
        )


def _differences(before: JSONObject, now: JSONObject, setting_from: Callable[[str], str]) -> str:
    """``trials: 3 before, 1 now from --trials; ...``: every key whose value differs.

    A key that only one side records is named too (``not recorded``), so a set written before
    a setting existed is not refused with an empty list. A value asked now is said with where it
    came from (``setting_from``), so a change the user did not make on this command is told
    from one they did.
    """
    missing = "not recorded"
    return "; ".join(
        f"{key}: {before.get(key, missing)} before, "
        + (f"{now[key]} now from {setting_from(key)}" if key in now else f"{missing} now")
        for key in sorted(set(before) | set(now))
        if key not in before or key not in now or before[key] != now[key]
    )
