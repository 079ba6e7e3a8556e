"""The ranking page in headless Debian chromium under the server's CSP: rows, order, sorting by a
click, a detail page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from leaderboard_support import (
    LiveServer,
    add_demo_entries,
    launch_chromium,
    synthetic_rows,
)

from coordqa.leaderboard.catalog import register_dataset
from coordqa.leaderboard.db import open_database

NAMES = ["Alpha <b>7B</b>", "Bravo", "Charlie"]


@pytest.mark.browser
@pytest.mark.slow
def test_ranking_page_in_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    rows = synthetic_rows(scenarios=4)
    path = tmp_path / "synthetic.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    register_dataset(db, path, "synthetic")
    ids = add_demo_entries(db, rows, NAMES)
    db.dispose()
    artifacts = Path(os.environ.get("COORDQA_ARTIFACTS") or tmp_path)
    artifacts.mkdir(parents=True, exist_ok=True)

    with LiveServer(url, log=tmp_path / "server.log") as server, sync_playwright() as pw:
        context = launch_chromium(pw, tmp_path / "profile")
        try:
            page = context.new_page()
            console: list[str] = []
            page.on("console", lambda message: console.append(message.text))
            response = page.goto(server.url + "/?dataset=synthetic")
            assert response is not None
            assert "script-src 'self'" in response.headers["content-security-policy"]
            names = page.locator("tbody.entries tr td:nth-child(3) a")
            assert names.all_inner_texts() == NAMES  # markup in a name is shown as text
            assert (
                page.locator("tbody.entries tr").evaluate_all(
                    "rows => rows.map(r => Number(r.dataset.id))"
                )
                == ids
            )
            assert "random baseline" in page.locator("tbody.baseline").inner_text()
            shot = artifacts / "leaderboard-ranking.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"screenshot: {shot}")

            page.locator('th[data-sort="display_name"]').click()
            assert names.all_inner_texts() == sorted(NAMES, reverse=True)
            page.locator('th[data-sort="display_name"]').click()
            assert names.all_inner_texts() == sorted(NAMES)
            assert (
                page.locator('th[data-sort="display_name"]').get_attribute("aria-sort")
                == "ascending"
            )

            page.get_by_role("link", name="Bravo").click()
            page.wait_for_url(f"**/submissions/{ids[1]}")
            assert page.locator("h2").inner_text() == f"Bravo entry {ids[1]}"
            assert page.locator("table.scenarios tbody tr").count() == 4
            blocked = [m for m in console if "Content Security Policy" in m]
            assert blocked == []  # the sorting script and the styles run under the policy
            detail = artifacts / "leaderboard-submission.png"
            page.screenshot(path=str(detail), full_page=True)
            print(f"screenshot: {detail}")
        finally:
            context.close()
    assert shot.stat().st_size > 10_000 and detail.stat().st_size > 10_000


SMOKE_ENTRIES = [("cac", "scripted"), ("hm", "scripted"), ("llm", "random")]
"""Agent and model of each agentic entry on the smoke grid (the walkthrough's board)."""


@pytest.mark.browser
@pytest.mark.slow
def test_agentic_board_states_its_ranking_and_fits_1280_px(tmp_path: Path) -> None:
    """Walkthrough 3, rough 6: the board ranked by whichever column came first (an entry with
    1.00 and 10.00 ranked behind one with 0.00 and 0.00) and overflowed at 1,280 px."""
    from playwright.sync_api import sync_playwright

    from coordqa.agentic import registered_grids
    from coordqa.agentic.runner import run_grid
    from coordqa.leaderboard.bundle import build_bundle
    from coordqa.leaderboard.catalog import BoardCatalog
    from coordqa.leaderboard.intake import accept
    from coordqa.leaderboard.views import overall_scores

    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    db = open_database(url)
    smoke = registered_grids()["smoke"].config
    for agent, model in SMOKE_ENTRIES:
        run = tmp_path / f"{agent}-{model}"
        played = run_grid(smoke.model_copy(update={"agents": [agent], "models": [model]}), run)
        assert played.complete, played.failures
        bundle = build_bundle(run, grid="smoke", display_name=f"{agent} {model}")
        accept(db, BoardCatalog(db), json.dumps(bundle).encode(), None)
    db.dispose()

    with LiveServer(url, log=tmp_path / "server.log") as server, sync_playwright() as pw:
        import httpx

        board = httpx.get(server.url + "/api/agentic/entries", params={"grid": "smoke"}).json()
        context = launch_chromium(pw, tmp_path / "profile")
        try:
            page = context.new_page()
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(server.url + "/agentic?grid=smoke")
            assert page.locator("#ranking-rule").inner_text() == board["ranking"]
            assert "share of the best" in board["ranking"]
            shot = Path(os.environ.get("COORDQA_ARTIFACTS") or tmp_path) / "agentic-board.png"
            page.screenshot(path=str(shot), full_page=True)
            widths = page.evaluate(
                "() => { const body = document.body, style = getComputedStyle(body);"
                " return [document.documentElement.scrollWidth, window.innerWidth,"
                " document.querySelector('#ranking').getBoundingClientRect().right,"
                " body.getBoundingClientRect().right - parseFloat(style.paddingRight)]; }"
            )
            page_width, screen, table_right, text_right = widths
            assert page_width <= screen and table_right <= text_right + 0.5, widths
            rows = page.locator("#ranking tbody.entries tr")
            shown = rows.evaluate_all(
                "rows => rows.map(r => [r.children[0].innerText, Number(r.dataset.id)])"
            )
            page.locator('th[data-sort="collab_escape/self"]').click()  # another order...
            resorted = rows.evaluate_all(
                "rows => rows.map(r => [r.children[0].innerText, Number(r.dataset.id)])"
            )
            assert sorted(resorted) == sorted(shown)  # ...the same rank for each entry
        finally:
            context.close()
    entries = board["entries"]
    keys = [column["key"] for column in board["columns"]]
    expected = overall_scores(entries, keys)  # the rule, on the API's own cells
    assert [e["overall"] for e in entries] == pytest.approx(expected)
    by_overall = sorted(entries, key=lambda e: -e["overall"])
    assert [e["rank"] for e in by_overall] == [
        1 + sum(other["overall"] > e["overall"] + 1e-9 for other in entries) for e in by_overall
    ]
    assert [[str(e["rank"]), e["id"]] for e in by_overall] == shown  # the default order
