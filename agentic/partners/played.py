"""Which partner checkpoint an episode played, against the one a board replays it with.

A BC/HP partner plays the user's own checkpoint once ``coordqa partners train-bc`` wrote one,
and the shipped checkpoint otherwise; a board replays every episode with its own (the shipped
one), so a run against a retrained partner cannot replay there. Each episode records the
fingerprint its partner played (``agent_stats``, :attr:`BCCheckpoint.fingerprint`): ``submit``
refuses such a run before sending it, a board whose replay fails names the checkpoint as
the cause (walkthrough 15 R7: "replay mismatch at step 5", and nothing else), and a report
refuses to pool plays of one partner from two checkpoints (walkthrough 27 R8).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from coordqa.words import agreeing, counted, format_list

if TYPE_CHECKING:
    from coordqa.agentic.episodes import AgenticEpisode

FINGERPRINT = re.compile(r"[0-9a-f]{16}")
"""A checkpoint fingerprint as recorded; anything else in a record is not repeated back."""

REPLAY_CAUSES = (
    "likely causes: a partner played from another checkpoint than this board's (one retrained "
    "with `coordqa partners train-bc` is played instead of the shipped one), or another coordqa "
    "version than this board's; play the grid again with the shipped partner checkpoints and "
    "this board's coordqa version, then submit that run"
)
"""What a failed replay says when no recorded checkpoint explains it."""


def checkpoint_differences(
    episode: AgenticEpisode, expected: Mapping[int, str | None], where: str
) -> list[str]:
    """The seats of ``episode`` whose recorded checkpoint is not ``expected``'s, in words.

    ``expected``: seat -> the fingerprint that seat's partner plays elsewhere (None: not a
    checkpoint partner), said as ``where`` ("this board plays"). A seat that recorded none (a
    run of an earlier coordqa) is not one.
    """
    found = []
    for seat, played in _differing_seats(episode, expected):
        found.append(
            f"{episode.spec.seats[seat]} in seat {seat} played checkpoint {_shown(played)}, "
            f"{where} checkpoint {expected[seat]}"
        )
    return found


def _differing_seats(
    episode: AgenticEpisode, expected: Mapping[int, str | None]
) -> Iterator[tuple[int, str]]:
    """(seat, recorded fingerprint) of each seat whose recorded checkpoint is not expected."""
    played = played_checkpoints(episode)
    for seat, wanted in expected.items():
        if wanted is not None and seat in played and played[seat] != wanted:
            yield seat, played[seat]


def played_checkpoints(episode: AgenticEpisode) -> dict[int, str]:
    """Each seat of ``episode`` that recorded a checkpoint -> the fingerprint it recorded.

    A seat that recorded none (not a checkpoint partner, or a run of an earlier coordqa) is
    not in it.
    """
    return {
        seat: played
        for seat, stats in episode.agent_stats.items()
        if isinstance(played := stats.get("checkpoint"), str)
    }


def _shown(fingerprint: str) -> str:
    """A recorded fingerprint as it may be repeated back."""
    return fingerprint if FINGERPRINT.fullmatch(fingerprint) else "an unreadable fingerprint"


def shipped_checkpoints(episode: AgenticEpisode) -> dict[int, str | None]:
    """Each partner seat of ``episode`` -> the fingerprint of the checkpoint coordqa ships."""
    from coordqa.agentic.partners.bc import shipped_fingerprint

    spec = episode.spec
    return {
        seat: shipped_fingerprint(name)
        for seat, name in enumerate(spec.seats)
        if seat not in spec.agent_seats
    }


def unshipped_checkpoint_problem(episodes: Iterable[AgenticEpisode]) -> str | None:
    """Why these episodes cannot be submitted, if a partner played an unshipped checkpoint.

    A board replays each episode with the checkpoint coordqa ships; one played against another
    (retrained) checkpoint fails that replay. None when every recorded checkpoint is shipped.
    """
    differing: dict[str, str] = {}
    played: set[tuple[str, str]] = set()
    for episode in episodes:
        shipped = shipped_checkpoints(episode)
        found = checkpoint_differences(episode, shipped, "coordqa ships")
        if found:
            differing[episode.key] = found[0]
            seats = _differing_seats(episode, shipped)
            played |= {(episode.spec.seats[seat], fingerprint) for seat, fingerprint in seats}
    if not differing:
        return None
    first = next(iter(differing.values()))
    return (
        f"{counted(len(differing), 'episode')} of this run played a partner checkpoint other "
        f"than the one coordqa ships ({format_list(list(differing))}): {first}. A board "
        "replays every episode with the shipped checkpoint, so "
        f"{agreeing(len(differing), 'it', 'they')} would fail its replay. A checkpoint trained "
        "with `coordqa partners train-bc` is played instead of the shipped one from then on"
        f"{_where_played_checkpoints_are(played)}play the grid again into a new folder "
        "(`coordqa agentic grid GRID ... --out NEW_DIR`) and submit that run"
    )


def mixed_checkpoints_problem(
    runs: Sequence[tuple[str, Iterable[AgenticEpisode]]],
) -> str | None:
    """Why these runs' episodes cannot be pooled in one report: a partner played two checkpoints.

    ``runs``: (the run as the user named it, its episodes). A report's cell pools the plays of
    one partner; a BC/HP partner that played other weights in some episodes (one retrained with
    ``coordqa partners train-bc``) is another partner under the same name, and pooling it would
    mix two partners in one cell (walkthrough 27 R8). None when each partner played one
    checkpoint.
    """
    from coordqa.agentic.partners.bc import shipped_fingerprint

    where: dict[str, dict[str, list[str]]] = {}  # partner -> fingerprint -> runs
    for run, episodes in runs:
        for episode in episodes:
            for seat, fingerprint in played_checkpoints(episode).items():
                played_in = where.setdefault(episode.spec.seats[seat], {})
                runs_of = played_in.setdefault(fingerprint, [])
                runs_of += [run] * (run not in runs_of)
    mixed = {name: by for name, by in sorted(where.items()) if len(by) > 1}
    if not mixed:
        return None
    name, by = next(iter(mixed.items()))
    shipped = shipped_fingerprint(name)
    played = "; ".join(
        f"{_shown(fingerprint)}{' (the one coordqa ships)' * (fingerprint == shipped)} in "
        f"{format_list(runs_of)}"
        for fingerprint, runs_of in by.items()
    )
    others = f" (and so did {format_list(list(mixed)[1:])})" * (len(mixed) > 1)
    listed = [run for runs_of in by.values() for run in runs_of]
    todo = (
        "report each run on its own (`coordqa agentic report RUN_DIR`)"
        if len(listed) == len(set(listed))
        else "play the grid again into a new folder against one checkpoint (`coordqa partners "
        "list` shows which plays) and report that run"
    )
    return (
        f"partner {name} played different checkpoints: {played}{others}. A report pools the "
        "plays of one partner in each cell, and these are two partners under one name (a "
        "checkpoint trained with `coordqa partners train-bc` is played instead of the shipped "
        f"one): {todo}"
    )


def _where_played_checkpoints_are(played: set[tuple[str, str]]) -> str:
    """The user's files these (partner, fingerprint) pairs were played from, or where to look.

    A file is named "yours" only when it is there now with the weights played; the data folder
    of this shell may be another than the one the run played from (walkthrough 20 B2), so
    otherwise the folder train-bc writes into is said, and no file is claimed.
    """
    from coordqa.agentic.partners.bc import user_checkpoint_played
    from coordqa.agentic.partners.paths import data_dir
    from coordqa.paths import DATA_DIR_ENV, default_data_root

    own = [
        str(path)
        for name, fingerprint in sorted(played)
        if (path := user_checkpoint_played(name, fingerprint)) is not None
    ]
    if own and len(own) == len(played):
        return (
            f" (`coordqa partners list` shows which plays; yours: {format_list(own)}): move "
            f"{agreeing(len(own), 'it', 'them')} aside (or set {DATA_DIR_ENV} to another "
            "folder), "
        )
    return (
        f"; train-bc writes checkpoints into {data_dir()} (the partners "
        f"folder of {DATA_DIR_ENV}, "
        f"else of {default_data_root()}); the checkpoint played is not there now (was "
        f"{DATA_DIR_ENV} another folder when the grid was played?). Once `coordqa partners "
        "list` says the partner is shipped with coordqa, "
    )


def replay_failure_cause(episode: AgenticEpisode, played_here: Mapping[int, str | None]) -> str:
    """Why ``episode`` likely failed this board's replay, and what to do.

    ``played_here``: seat -> the fingerprint of the checkpoint this board's player of that seat
    plays (None: not a checkpoint partner).
    """
    found = checkpoint_differences(episode, played_here, "this board plays")
    if not found:
        return REPLAY_CAUSES
    return (
        "; ".join(found)
        + " (e.g. one retrained with `coordqa partners train-bc`, which is played instead of "
        "the shipped one): play the grid again with the checkpoint coordqa ships (`coordqa "
        "partners list` shows which plays) and submit that run"
    )
