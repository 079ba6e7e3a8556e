"""Which dataset and which question: content fingerprints, hashes and a dataset's identity."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from coordqa.dataset.folder import DATA_FILE
from coordqa.dataset.load import load_rows
from coordqa.dataset.releases import (
    DEFAULT_DATASET,
    RELEASES,
    Release,
    bundled_dataset_dir,
    is_bundled,
    release,
)
from coordqa.dataset.schema import COLUMNS, Row, plain_row
from coordqa.jsonvalues import content_hash

HASH_EXCLUDED = ("question_id", "source", "version")
"""Labels left out of :func:`question_hash`: renaming or re-versioning a dataset does not change
what a question asks, so stored results stay comparable."""


def dataset_fingerprint(dataset: Iterable[Row]) -> str:
    """SHA-256 of every row's content, independent of file format and row order.

    Rows are sorted by question id and hashed as canonical JSON, so a parquet file, its JSONL
    source and a reordered copy share a fingerprint, while any change to any field changes it.
    """
    rows = sorted((plain_row(row) for row in dataset), key=lambda row: row["question_id"])
    return content_hash(rows)


@dataclass(frozen=True)
class DatasetIdentity:
    """Which dataset a run, report or leaderboard entry used: name, version and content."""

    name: str
    """The release name (aliases resolved, ``coordinationqa-v1.1``) or the path as given."""
    version: str | None
    """The rows' ``version`` column (several joined by commas); None when it is empty."""
    fingerprint: str
    """:func:`dataset_fingerprint` of every row."""
    num_questions: int
    """Rows in the dataset."""

    @property
    def label(self) -> str:
        """``"coordinationqa-v1.1 (version 1.1.0, fingerprint 0123abcd)"``, for one-line output."""
        return identity_line(self.name, self.version, self.fingerprint)


def identity_line(name: str, version: str | None, fingerprint: str) -> str:
    """``NAME (VERSION WORDS, fingerprint 0123abcd)``: the one line that says which dataset.

    The version is said as :func:`version_words` says it, so a generated set does not read as
    the release whose version its rows carry.
    """
    said = version_words(version, fingerprint)
    return f"{name} ({said + ', ' if said else ''}fingerprint {fingerprint[:8]})"


def told_apart_by_content(
    name: str, fingerprint: str | None, fingerprints: Iterable[str | None]
) -> str:
    """``fresh/ (dfafcd5a)`` where another of ``fingerprints`` differs from ``fingerprint``.

    ``fingerprints``: those of the runs or set members that name dataset ``name`` too; when
    none differs, ``name`` as it is. A dataset file regenerated in place keeps its name: the
    eval-set summary and ``runs list`` tell its runs apart by their content's fingerprint, in
    these words (walkthrough 17, R8).

    >>> told_apart_by_content("fresh/", "dfafcd5a90", ["3b0c11aa12"])
    'fresh/ (dfafcd5a)'
    >>> told_apart_by_content("t", "ab", ["ab", None])
    't'
    """
    differs = any(other is not None and other != fingerprint for other in fingerprints)
    return f"{name} ({fingerprint[:8]})" if fingerprint is not None and differs else name


def version_words(version: str | None, fingerprint: str) -> str:
    """A dataset's version for people: ``version 1.2.0``, or what it is when it is no release.

    Rows built by coordqa carry the release version of the builder that made them, so a set from
    ``coordqa dataset generate`` (or an edited copy of a release) says ``1.2.0`` like the
    release. A release is known by its content: a release's version on content that is no
    bundled release's (``fingerprint``, of the whole dataset) is said as ``version 1.2.0 rows,
    not a release``. "" when the rows carry no version.
    """
    if not version:
        return ""
    if version in _release_versions() and release_with_fingerprint(fingerprint) is None:
        return f"version {version} rows, not a release"
    return f"version {version}"


def dataset_identity(
    name_or_path: str | os.PathLike[str] | None = None, rows: Iterable[Row] | None = None
) -> DatasetIdentity:
    """Name, version and fingerprint of a dataset: the one place runs and reports take them from.

    ``rows`` (already loaded) are used instead of reading ``name_or_path`` again; the name is
    still taken from ``name_or_path`` (a bundled name is resolved to its release).
    """
    loaded = [dict(row) for row in rows] if rows is not None else load_rows(name_or_path)
    versions = sorted({str(row["version"]) for row in loaded if row["version"]})
    return DatasetIdentity(
        dataset_name(name_or_path),
        ",".join(versions) or None,
        dataset_fingerprint(loaded),
        len(loaded),
    )


def dataset_name(name_or_path: str | os.PathLike[str] | None = None) -> str:
    """The name runs record: a bundled name resolved to its release, else the path as given.

    A path's trailing slashes are dropped: ``fresh`` and ``fresh/`` are one folder, and runs
    recording both spellings read as two datasets (walkthrough 20, R1). They are kept where
    dropping them would spell a bundled name (``example/`` is a local folder, not the release).
    """
    if name_or_path is None:
        return DEFAULT_DATASET
    if isinstance(name_or_path, str) and is_bundled(name_or_path):
        return release(name_or_path).name
    given = os.fspath(name_or_path)
    bare = given.rstrip("/" + os.sep)
    return bare if bare and not is_bundled(bare) else given


def release_with_fingerprint(fingerprint: str) -> Release | None:
    """The bundled CoordinationQA release whose content has this fingerprint, if any."""
    for candidate in RELEASES:
        if candidate.frozen_fingerprint == fingerprint:
            return candidate
        if not candidate.frozen and _bundled_fingerprint(candidate.name) == fingerprint:
            return candidate
    return None


@cache
def _release_versions() -> frozenset[str]:
    """The versions the bundled releases' rows carry (those whose data is installed)."""
    return frozenset(
        str(row["version"])
        for candidate in RELEASES
        if (bundled_dataset_dir(candidate.name) / DATA_FILE).is_file()
        for row in load_rows(bundled_dataset_dir(candidate.name))
        if row["version"]
    )


@cache
def _bundled_fingerprint(name: str) -> str | None:
    folder = bundled_dataset_dir(name)
    return dataset_fingerprint(load_rows(folder)) if (folder / DATA_FILE).is_file() else None


def question_hash(row: Row) -> str:
    """Hash of everything a question says (all columns but :data:`HASH_EXCLUDED`)."""
    plain = plain_row(row)
    return content_hash({name: plain[name] for name in COLUMNS if name not in HASH_EXCLUDED})


def target_hash(row: Row) -> str:
    """Hash of the answer key: the options and the correct indices."""
    plain = plain_row(row)
    return content_hash({"options": plain["options"], "correct": sorted(plain["correct"])})
