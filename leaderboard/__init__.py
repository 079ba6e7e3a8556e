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

from coordqa._lazy import lazy_exports

if TYPE_CHECKING:
    from coordqa.leaderboard.bundle import (
        BundleError as BundleError,
        build_agentic_bundle as build_agentic_bundle,
        build_bundle as build_bundle,
        build_qa_bundle as build_qa_bundle,
    )
    from coordqa.leaderboard.catalog import (
        register_dataset as register_dataset,
        register_grid as register_grid,
    )
    from coordqa.leaderboard.client import (
        SubmitError as SubmitError,
        submit_bundle as submit_bundle,
    )
    from coordqa.leaderboard.db import (
        open_database as open_database,
    )
    from coordqa.leaderboard.server import (
        create_app as create_app,
    )
    from coordqa.leaderboard.site import (
        export_site as export_site,
    )
    from coordqa.leaderboard.tokens import (
        create_token as create_token,
    )

__getattr__, __all__ = lazy_exports(__name__, __file__)
