"""The CoordinationQA leaderboard: submission bundles, verification by re-scoring, storage, web.

Public API (heavy dependencies such as FastAPI and SQLAlchemy load only when a name that needs
them is used):

- :func:`build_bundle`: a finished run directory -> a submission bundle (JSON-ready dict): QA
  runs for the ``qa`` track (:func:`build_qa_bundle`), agentic runs for the ``agentic`` track
  (:func:`build_agentic_bundle`);
- :func:`submit_bundle`: send a bundle to a leaderboard server;
- :func:`create_app`: the FastAPI app on a database URL;
- :func:`open_database`, :func:`create_token`, :func:`register_dataset`,
  :func:`register_grid`, :func:`export_site`:
  the admin operations behind ``coordqa leaderboard ...``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_getattr

_EXPORTS = {
    "BundleError": "coordqa.leaderboard.bundle",
    "build_qa_bundle": "coordqa.leaderboard.bundle",
    "build_agentic_bundle": "coordqa.leaderboard.bundle",
    "build_bundle": "coordqa.leaderboard.bundle",
    "submit_bundle": "coordqa.leaderboard.client",
    "SubmitError": "coordqa.leaderboard.client",
    "create_app": "coordqa.leaderboard.server",
    "open_database": "coordqa.leaderboard.db",
    "create_token": "coordqa.leaderboard.tokens",
    "register_dataset": "coordqa.leaderboard.catalog",
    "register_grid": "coordqa.leaderboard.catalog",
    "export_site": "coordqa.leaderboard.site",
}

__all__ = [
    "BundleError",
    "SubmitError",
    "build_agentic_bundle",
    "build_bundle",
    "build_qa_bundle",
    "create_app",
    "create_token",
    "export_site",
    "open_database",
    "register_dataset",
    "register_grid",
    "submit_bundle",
]

if TYPE_CHECKING:
    from coordqa.leaderboard.bundle import (
        BundleError,
        build_agentic_bundle,
        build_bundle,
        build_qa_bundle,
    )
    from coordqa.leaderboard.catalog import register_dataset, register_grid
    from coordqa.leaderboard.client import SubmitError, submit_bundle
    from coordqa.leaderboard.db import open_database
    from coordqa.leaderboard.server import create_app
    from coordqa.leaderboard.site import export_site
    from coordqa.leaderboard.tokens import create_token


__getattr__ = lazy_getattr(__name__, _EXPORTS)
