"""The datasets bundled with the package: their names, versions and folders."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from coordqa.registry import Registry

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
"""Where the bundled datasets live inside the package."""

EXAMPLE_SOURCE = DATA_DIR / "example" / "questions.jsonl"
"""Hand-written source of the example dataset; its parquet is built by
:func:`build_example_dataset`."""
EXAMPLE_CARD_BODY = DATA_DIR / "example" / "card_body.md"


@dataclass(frozen=True)
class Release:
    """A dataset bundled with the package: its name and folder under :data:`DATA_DIR`.

    Its version is its rows' ``version`` column, read by
    :func:`coordqa.dataset.identity.dataset_identity` (the one home runs, reports, ``dataset
    list`` and the board take it from), never restated here.
    """

    name: str
    """What ``load_dataset`` and ``--dataset`` accept (``"coordinationqa-v1.1"``)."""
    title: str
    """Human-readable name, as cards, reports and the leaderboard print it."""
    frozen_fingerprint: str | None = None
    """Set for a release shipped exactly as an earlier coordqa built it: its content fingerprint.
    The current builders no longer rebuild it (later releases fixed its keys), so validation checks
    its content against this pin, and re-solves only the questions its successor did not change."""

    @property
    def folder(self) -> Path:
        """Where its ``data.parquet`` and card live."""
        return DATA_DIR / self.name

    @property
    def frozen(self) -> bool:
        """Shipped as built by an earlier coordqa (see :attr:`frozen_fingerprint`)."""
        return self.frozen_fingerprint is not None


RELEASES: tuple[Release, ...] = (
    Release(
        "coordinationqa-v1",
        "CoordinationQA v1",
        frozen_fingerprint="cb50f8c6c520d7001991528a90e1fcbfaaf645b2d5ee143e35640303cd4f1b55",
    ),
    Release(
        "coordinationqa-v1.1",
        "CoordinationQA v1.1",
        frozen_fingerprint="835ae5d925ec69d4a1a7f623b570429ec2cdad954d2c013c482f73f806bae6b1",
    ),
    Release("coordinationqa-v1.2", "CoordinationQA v1.2"),
    Release("example", "CoordinationQA format example"),
)
"""Every bundled dataset, oldest CoordinationQA release first."""

DEFAULT_DATASET = "coordinationqa-v1.2"
"""The release ``load_dataset()`` and ``--dataset`` give when no name is passed."""

ALIASES: Mapping[str, str] = {"coordinationqa": DEFAULT_DATASET}
"""Names that stand for a release: ``coordinationqa`` is always the newest CoordinationQA."""

LOCAL = "(local)"
"""A run's ``dataset`` setting for a dataset given by path: the dataset is its content (the
manifest's ``dataset.fingerprint``), the path it was read from is only information
(``dataset.name``), so ``fresh``, ``./fresh/`` and ``/abs/fresh`` are one run from any folder."""

BUNDLED: Registry[Release] = Registry("bundled dataset")
for _release in RELEASES:
    BUNDLED.add(_release.name, _release)
for _alias, _target in ALIASES.items():
    BUNDLED.add(_alias, BUNDLED.get(_target))


def canonical_dataset(name: str) -> str:
    """The release a bundled name stands for, as it spells itself.

    An alias is its release (``coordinationqa`` -> ``coordinationqa-v1.2``), and a bundled name
    is read in any case (``Example`` -> ``example``), as models, games and agents are
    (:meth:`~coordqa.registry.Registry.spelled`: walkthrough 18 R8). Any other name or path is
    returned as given. Runs record and hash the canonical name, so ``--dataset coordinationqa``,
    ``--dataset CoordinationQA-v1.2`` and ``--dataset coordinationqa-v1.2`` are one run.
    """
    spelled = BUNDLED.spelled(name)
    return ALIASES.get(spelled, spelled)


def release(name: str = DEFAULT_DATASET) -> Release:
    """The bundled release called ``name`` (aliases resolved).

    Raises:
        UnknownNameError: no bundled dataset has that name (with suggestions).
    """
    return BUNDLED.get(name)


def is_bundled(name: str) -> bool:
    """Whether ``name`` is a bundled dataset or an alias of one, in any case."""
    return canonical_dataset(name) in BUNDLED


def bundled_dataset_dir(name: str = DEFAULT_DATASET) -> Path:
    """The package folder of a bundled dataset (``coordinationqa`` is the default release)."""
    return release(name).folder
