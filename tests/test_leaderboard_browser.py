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
