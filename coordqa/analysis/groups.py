"""Which QA runs are compared with each other: the runs of one dataset.

An eval set runs every model on every dataset, so a folder of runs often holds several
datasets. Accuracies over different questions are not comparable, so ``coordqa report`` and the
viewer's comparison page compare the runs of each dataset among themselves, one table per
dataset, rather than refusing the folder or mixing the datasets. A dataset is known by its content
fingerprint (two paths to one folder are one dataset; a folder regenerated under the same name is
another), answers to every name its runs recorded, and is shown by the first of them, or by the
bundled release's name when the content is that release's (a ``dataset build`` copy beside the
release's own runs).

Within a dataset, runs over different questions (a ``--limit 3`` run beside a full one) are not
comparable either: ``coordqa report`` refuses them unless told ``--allow-mixed``. The viewer
takes no such option, so :func:`group_by_question_set` gives it one group per question set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from coordqa.dataset.identity import release_with_fingerprint, told_apart_by_content
from coordqa.errors import ConfigError
from coordqa.registry import did_you_mean
from coordqa.store import QARun, RunManifest
from coordqa.words import counted

__all__ = [
    "FILTER_KEYS",
    "NOT_COMPARABLE",
    "DatasetGroup",
    "describe_filters",
    "group_by_dataset",
    "group_by_question_set",
    "merge_groups",
    "pick_dataset",
]

NOT_COMPARABLE = (
    "these runs answered different question sets, so their accuracies and correlations are not "
    "comparable"
)
"""Why runs of different question sets are not compared: ``coordqa report`` and ``compare``
refuse with it, the viewer says it where it keeps the sets apart."""

FILTER_KEYS = ("games", "types", "ids", "sample", "sample_seed", "limit")
"""Manifest settings that select part of a dataset."""


def describe_filters(config: Mapping[str, Any]) -> str:
    """A run's dataset filters as the flags that chose them (``--types EC,JP --limit 5``)."""
    parts = []
    for key in FILTER_KEYS:
        value = config.get(key)
        if value is None:
            continue
        shown = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(f"--{key.replace('_', '-')} {shown}")
    return " ".join(parts) or "none"  # the whole dataset


@dataclass(frozen=True)
class DatasetGroup:
    """The runs (by index among those given) that answered one dataset."""

    name: str
    """The dataset's name: the bundled release's when the content is a release's and a run
    named it so, else the first name its runs recorded (a bundled release, or the path given)."""
    fingerprint: str
    """Its content fingerprint (empty for runs that recorded none, and for merged groups)."""
    members: tuple[int, ...]
    """Indices of its runs among the runs given, in the order given."""
    title: str
    """How pages and tables head it: the name, with the fingerprint when two groups share it."""
    names: tuple[str, ...] = ()
    """Every name its runs recorded, in the order read (one content may be read from a
    release and from a rebuilt copy): ``--dataset`` picks the group by any of them."""
    own_slug: str = ""
    """Its :attr:`slug` where the title's would be an earlier group's (:func:`_distinct`)."""

    @property
    def slug(self) -> str:
        """The title as a file or anchor name (letters, digits, ``_.-``; never a path)."""
        sanitised = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.title).strip("-.")
        return self.own_slug or sanitised or "dataset"


def _distinct(groups: list[DatasetGroup]) -> list[DatasetGroup]:
    """``groups``, each with a slug no earlier one has: its report's folder and page anchor.

    Two titles may come out alike (``../fresh`` and ``fresh``, one folder named from two
    working folders, with other contents): the second report overwrote the first (walkthrough
    22, B1). A later group whose slug is taken adds its fingerprint, then a number.
    """
    taken: set[str] = set()
    distinct = []
    for group in groups:
        slug = group.slug
        if slug in taken and group.fingerprint:
            slug = f"{slug}-{group.fingerprint[:8]}"
        base, number = slug, 2
        while slug in taken:
            slug, number = f"{base}-{number}", number + 1
        taken.add(slug)
        distinct.append(group if slug == group.slug else replace(group, own_slug=slug))
    return distinct


def _dataset_of(manifest: RunManifest) -> tuple[str, str]:
    dataset = manifest.dataset
    return ("unknown dataset", "") if dataset is None else (dataset.name, dataset.fingerprint)


def _shown_name(names: Sequence[str], fingerprint: str) -> str:
    """The name a group is shown by, whichever of its runs was read first.

    The bundled release's name where a run recorded it and the content is that release's, else
    the first name read.
    """
    bundled = release_with_fingerprint(fingerprint) if fingerprint else None
    return bundled.name if bundled is not None and bundled.name in names else names[0]


def group_by_dataset(manifests: Sequence[RunManifest]) -> list[DatasetGroup]:
    """The runs of ``manifests`` by dataset, datasets in the order their first run was given."""
    members: dict[str, list[int]] = {}
    recorded: dict[str, dict[str, None]] = {}
    for index, manifest in enumerate(manifests):
        name, fingerprint = _dataset_of(manifest)
        members.setdefault(fingerprint, []).append(index)
        recorded.setdefault(fingerprint, {})[name] = None
    shown = {key: _shown_name(list(names), key) for key, names in recorded.items()}
    return _distinct(
        [
            DatasetGroup(
                shown[key],
                key,
                tuple(indices),
                told_apart_by_content(
                    shown[key], key, (other for other in members if shown[other] == shown[key])
                ),
                tuple(recorded[key]),
            )
            for key, indices in members.items()
        ]
    )


def group_by_question_set(runs: Sequence[QARun]) -> list[DatasetGroup]:
    """The runs by dataset (:func:`group_by_dataset`), each dataset split by question set.

    These are the runs ``coordqa report`` compares without ``--allow-mixed``. A dataset whose
    runs all answered one question set stays one group; otherwise each set is titled by its first
    run's filters, its question count and its key (``coordqa report`` names sets by that key).
    """
    groups = []
    for group in group_by_dataset([run.manifest for run in runs]):
        sets: dict[str, list[int]] = {}
        for index in group.members:
            sets.setdefault(runs[index].question_set()[:8], []).append(index)
        if len(sets) == 1:
            groups.append(group)
            continue
        for key, members in sets.items():
            first = runs[members[0]]
            filters = describe_filters(first.manifest.config)
            size = counted(len(first.questions()), "question")
            title = f"{group.title}, {filters} ({size}, question set {key})"
            groups.append(
                DatasetGroup(group.name, group.fingerprint, tuple(members), title, group.names)
            )
    return _distinct(groups)


def merge_groups(groups: Sequence[DatasetGroup]) -> DatasetGroup:
    """Every run of ``groups`` as one group (``--allow-mixed``: compare across datasets)."""
    if len(groups) == 1:
        return groups[0]
    indices = tuple(sorted(i for group in groups for i in group.members))
    names = ", ".join(group.title for group in groups)
    every_name = tuple(name for group in groups for name in group.names)
    return DatasetGroup(names, "", indices, f"{len(groups)} datasets mixed: {names}", every_name)


def pick_dataset(groups: Sequence[DatasetGroup], wanted: str) -> list[DatasetGroup]:
    """The groups of dataset ``wanted``.

    ``wanted`` is any name its runs recorded it by, a bundled release's alias
    (``coordinationqa``), or the first characters (at least 4) of its fingerprint.

    Raises:
        ConfigError: no run answered that dataset (the datasets there are, closest first).
    """
    from coordqa.dataset.releases import is_bundled, release

    name = release(wanted).name if is_bundled(wanted) else wanted
    found = [
        g
        for g in groups
        if name in (g.name, g.title, *g.names)
        or (len(wanted) >= 4 and g.fingerprint.startswith(wanted))
    ]
    if found:
        return found
    titles = [g.title for g in groups]
    names = [name for g in groups for name in (g.name, *g.names)]  # what --dataset takes
    raise ConfigError(
        f"--dataset {wanted!r}: no run answered it; the runs answered {', '.join(titles)}."
        f"{did_you_mean(wanted, names)}"
    )
