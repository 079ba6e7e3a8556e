"""The episodes of several agentic runs as one set, each episode counted once.

Two runs can hold the same episode: the guide's 3-episode Collab Escape run and the ``smoke``
grid both play CAC's self-play on seeds 0 and 1, under the same key (same spec, same seed). A
report that pooled their records counted each such episode twice: more n, a narrower interval,
nothing new learned. The rule here:

- records of one key that played the same :func:`moves` are one episode, counted once; the
  record of the run given first is kept (its costs and latency are the ones reported);
- records of one key that played differently (a model that samples, a changed agent) are two
  plays of that spec, and each distinct play is counted: dropping one would throw a real sample
  away, and a deterministic replay cannot differ;
- a key that failed in one run and was played in another is played: it is not left out.

Runs whose partner played different checkpoints are not pooled at all: the report refuses them
first (:func:`~coordqa.agentic.partners.played.mixed_checkpoints_problem`), so a differing play
here is never a retrained partner's.

Either case is said (:meth:`PooledEpisodes.notes`), on stderr and in report.md, so n never
changes without a word. Within one run a key is unique (:class:`~coordqa.agentic.AgenticRun`
refuses a run that stores one twice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from coordqa.agentic.episodes import AgenticEpisode
from coordqa.agentic.records import Failure
from coordqa.games.episode import played_hash


def moves(episode: AgenticEpisode) -> str:
    """What the episode played, as a hash (:func:`~coordqa.games.episode.played_hash`)."""
    return played_hash(episode.trajectory, episode.spec.seed)


@dataclass
class PooledEpisodes:
    """The played episodes and the failures of several runs, pooled by :func:`pool_episodes`."""

    episodes: list[AgenticEpisode] = field(default_factory=list)
    """Each episode once (each distinct play of a key), in the runs' order."""
    failures: dict[str, Failure] = field(default_factory=dict)
    """Keys played in no run, with their last failure."""
    repeated: int = 0
    """Episodes found in more than one run (same key, same moves), counted once."""
    replayed: int = 0
    """Keys played differently in more than one run: each distinct play is in ``episodes``."""

    def notes(self) -> list[str]:
        """What pooling did to n, one line per case that applied (none: an empty list)."""
        notes = []
        if self.repeated:
            some = "1 episode appears" if self.repeated == 1 else f"{self.repeated} episodes appear"
            notes.append(f"{some} in more than one run: counted once (the first run's record)")
        if self.replayed:
            some = "1 episode was" if self.replayed == 1 else f"{self.replayed} episodes were"
            notes.append(
                f"{some} played differently in more than one run (a model that samples): each "
                "distinct play counted"
            )
        return notes


def pool_episodes(
    runs: Sequence[Sequence[AgenticEpisode]], failures: Sequence[Mapping[str, Failure]]
) -> PooledEpisodes:
    """The played episodes of ``runs`` (each a run's episodes, in the order given), each once.

    ``failures`` holds each run's failed episodes by key. See the module's rule.
    """
    pooled = PooledEpisodes()
    copies: dict[str, dict[str, int]] = {}
    for episodes in runs:
        for episode in episodes:
            seen = copies.setdefault(episode.key, {})
            played = moves(episode)
            if played not in seen:
                pooled.episodes.append(episode)
            seen[played] = seen.get(played, 0) + 1
    plays = [count for seen in copies.values() for count in seen.values()]
    pooled.repeated = sum(count > 1 for count in plays)
    pooled.replayed = sum(len(seen) > 1 for seen in copies.values())
    pooled.failures = {
        key: failure for failed in failures for key, failure in failed.items() if key not in copies
    }
    return pooled
