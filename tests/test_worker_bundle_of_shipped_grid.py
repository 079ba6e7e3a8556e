"""The board's worker bundles its own run of a shipped grid, played on secret seeds.

Walkthrough 11 (#252-#256): every board-run job on the shipped ``smoke`` grid failed after
playing it (994 model calls, and again after a requeue) with "played grid 'smoke' (version 1),
not 'smoke'": the local check of ``submit --grid`` compared the run's grid fingerprint with the
shipped grid's, and the worker's run, on the seeds it drew, has another fingerprint by design.
The board verifies its own runs against the seeds it drew, so the worker's bundle is not
compared here; an upload still is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coordqa.agentic import get_grid, run_grid
from coordqa.leaderboard.bundle import BundleError, build_agentic_bundle
from coordqa.leaderboard.worker import secret_grid


@pytest.fixture(scope="module")
def secret_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One game of the shipped ``smoke`` grid, on a seed drawn as the worker draws them."""
    shipped = get_grid("smoke")
    assert shipped is not None
    drawn = secret_grid(shipped.config, seed=1234).model_dump(mode="json", exclude={"runtime"})
    drawn["games"] = [game for game in drawn["games"] if game["game"] == "collab_capture"]
    drawn["games"][0]["seeds"] = drawn["games"][0]["seeds"][:1]
    drawn.update(agents=["cac"], models=["scripted"], partners=["self"])
    from coordqa.agentic import parse_grid

    out = tmp_path_factory.mktemp("worker") / "grid"
    result = run_grid(parse_grid(drawn), out)
    assert result.complete, result.failures
    return out


def test_the_workers_bundle_of_a_shipped_grid_on_secret_seeds_is_built(secret_run: Path) -> None:
    bundle = build_agentic_bundle(secret_run, grid="smoke", destination="own-board")
    assert bundle["grid"] == "smoke" and len(bundle["episodes"]) == 1


@pytest.mark.parametrize("destination", ["file", "board"])
def test_an_upload_of_other_seeds_under_a_shipped_name_is_still_refused_here(
    secret_run: Path, destination: str
) -> None:
    with pytest.raises(BundleError, match="whose tasks are not those of the grid 'smoke'"):
        build_agentic_bundle(secret_run, grid="smoke", destination=destination)  # type: ignore[arg-type]
