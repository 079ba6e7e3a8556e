"""Look at runs in a browser: QA runs sample by sample, agentic runs episode by episode.

Public API (FastAPI and Jinja2 load only when a name that needs them is used):

- :class:`RunCatalog`: the runs to show, each read once and again when its files change;
- :func:`create_app`: the FastAPI app serving a catalog (``coordqa view RUN ...``);
- :func:`export_site`: the same pages as static files (``coordqa view --export DIR``), with
  an optional progress callback (:class:`ExportProgress`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_exports

if TYPE_CHECKING:
    from coordqa.viewer.export import (
        ExportProgress as ExportProgress,
        export_site as export_site,
    )
    from coordqa.viewer.runs import (
        RunCatalog as RunCatalog,
    )
    from coordqa.viewer.server import (
        create_app as create_app,
    )

__getattr__, __all__ = lazy_exports(__name__, __file__)
