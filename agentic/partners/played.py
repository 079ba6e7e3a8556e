"""Which partner checkpoint an episode played, against the one a board replays it with.

A BC/HP partner plays the user's own checkpoint once ``coordqa partners train-bc`` wrote one,
and the shipped checkpoint otherwise; a board replays every episode with its own (the shipped
one), so a run against a retrained partner cannot replay there. Each episode records the
fingerprint its partner played (``agent_stats``, :attr:`BCCheckpoint.fingerprint`): ``submit``
refuses such a run before sending it, and a board whose replay fails names the checkpoint as
the cause (walkthrough 15 R7: "replay mismatch at step 5", and nothing else).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
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
    for seat, wanted in expected.items():
        played = episode.agent_stats.get(seat, {}).get("checkpoint")
        if wanted is None or not isinstance(played, str) or played == wanted:
            continue
        shown = played if FINGERPRINT.fullmatch(played) else "an unreadable fingerprint"
        found.append(
            f"{episode.spec.seats[seat]} in seat {seat} played checkpoint {shown}, "
            f"{where} checkpoint {wanted}"
        )
    return found


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
    from coordqa.agentic.partners.bc import user_checkpoint

    differing: dict[str, str] = {}
    partners: set[str] = set()
    for episode in episodes:
        shipped = shipped_checkpoints(episode)
        found = checkpoint_differences(episode, shipped, "coordqa ships")
        if found:
            differing[episode.key] = found[0]
            partners |= {episode.spec.seats[seat] for seat in shipped}
    if not differing:
        return None
    first = next(iter(differing.values()))
    own = format_list([str(user_checkpoint(name)) for name in sorted(partners)])
    return (
        f"{counted(len(differing), 'episode')} of this run played a partner checkpoint other "
        f"than the one coordqa ships ({format_list(list(differing))}): {first}. A board "
        "replays every episode with the shipped checkpoint, so "
        f"{agreeing(len(differing), 'it', 'they')} would fail its replay. A checkpoint trained "
        "with `coordqa partners train-bc` is played instead of "
        f"the shipped one from then on (`coordqa partners list` shows which plays; yours: "
        f"{own}): move it aside (or set COORDQA_DATA_DIR to another folder), play the grid "
        "again into a new folder (`coordqa agentic grid GRID ... --out NEW_DIR`) and submit "
        "that run"
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
