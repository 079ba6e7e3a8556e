"""coordqa view in headless Debian chromium: a QA run and an agentic run, live and exported.

Runs come from :mod:`viewer_support` (a local model server that replies by rule), so the
counts below follow from the rules and the example dataset. Screenshots are written to
``$COORDQA_ARTIFACTS`` (or the test's temporary folder); two of them are in the guide
(docs/looking-at-runs.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from leaderboard_support import launch_chromium
from viewer_support import (
    HOSTILE,
    LiveViewer,
    make_hm_run,
    make_hostile_agentic_run,
    make_hostile_qa_run,
)

from coordqa.dataset import load_rows
from coordqa.viewer import RunCatalog, export_site

TRIALS = 2
pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("viewer-browser")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COORDQA_CACHE_DIR", str(root / "cache"))
        return [
            make_hostile_qa_run(root / "qa", trials=TRIALS),
            make_hostile_agentic_run(root / "agent"),
            make_hm_run(root / "hm"),
        ]


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("COORDQA_ARTIFACTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    """A chromium page that fails the test on any script dialog (an escaped reply never runs)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = launch_chromium(pw, tmp_path / "profile")
        dialogs: list[str] = []
        tab = context.new_page()
        tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        try:
            yield tab
        finally:
            context.close()
        assert dialogs == [], "a model reply ran as script"


def samples_of(*types: str) -> int:
    """Stored replies to questions of ``types`` (the first question's first call failed)."""
    rows = load_rows("example")
    return sum(r["question_type"] in types for r in rows) * TRIALS - (
        rows[0]["question_type"] in types
    )


LINE_BREAKS = """element => {
  const breaks = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let top = null, previous = "";
  while (walker.nextNode()) {
    const node = walker.currentNode;
    for (let i = 0; i < node.textContent.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      const char = node.textContent[i];
      if (rects.length) {
        if (top !== null && rects[0].top > top + 1) breaks.push(previous + char);
        top = rects[0].top;
      }
      previous = char;
    }
  }
  return breaks;
}"""
"""Each place where ``element``'s text moves to a new line: the characters on both sides."""


def check_summary_wording(page: Any) -> None:
    """Walkthrough 3, rough 7: the explanation broke words in two ('co' / 'unted'), and the
    'correct' column (samples) stood beside 'questions' alone."""
    page.set_viewport_size({"width": 640, "height": 900})  # the note takes several lines
    note = page.locator("h3 + p.meta").first
    breaks = note.evaluate(LINE_BREAKS)
    assert len(breaks) >= 2, breaks
    assert all(pair[0] in " -/" or pair[1] == " " for pair in breaks), breaks
    headers = page.locator("table.accuracy").first.locator("th").all_inner_texts()
    assert headers[headers.index("questions") :][:3] == ["questions", "samples", "correct samples"]
    page.set_viewport_size({"width": 1200, "height": 900})


def check_qa_run(page: Any, shots: Path, prefix: str) -> None:
    """From a QA run's summary: filter the table, open an EC sample, check the reply."""
    check_summary_wording(page)
    page.get_by_role("link", name="ambiguous").click()  # ToM replies are "A or B"
    rows = page.locator("#samples tbody tr:not([hidden])")
    assert rows.count() == samples_of("ToM")
    assert page.locator("#shown").inner_text().startswith(f"{samples_of('ToM')} of")
    page.select_option("select[name=outcome]", "")
    page.fill("input[name=q]", "ALERT")  # the markup is in the EC and JP replies
    assert rows.count() == samples_of("EC", "JP")
    page.fill("input[name=q]", "")
    page.select_option("select[name=type]", "EC")
    page.locator('th[data-sort="outcome"]').click()
    shown = rows.evaluate_all("rows => rows.map(r => r.dataset.outcome)")
    order = ["correct", "wrong", "ambiguous", "no_answer", "error"]
    assert shown == sorted(shown, key=order.index)
    assert (
        len(shown) == len([r for r in load_rows("example") if r["question_type"] == "EC"]) * TRIALS
    )
    page.screenshot(path=str(shots / f"{prefix}-samples.png"), full_page=False)

    rows.filter(has_text="correct").first.locator("a").first.click()
    reply = page.locator("#reply")
    assert HOSTILE in reply.inner_text()  # shown as text
    assert page.locator("#reply script").count() == 0
    assert page.locator("#method").inner_text().startswith("marker_letter")
    decided = page.locator("#reply mark#decided").inner_text()
    assert decided in "Answer: A" and decided.endswith("A")  # the EC rule's answer line
    assert page.locator("section.message").count() >= 2
    page.screenshot(path=str(shots / f"{prefix}-sample.png"), full_page=True)


def check_agentic_run(page: Any, shots: Path, prefix: str) -> None:
    """From an agentic run's episode list: the flagged steps and the fallback step."""
    page.locator("#episodes tbody a").first.click()
    flagged = page.locator("table.steps tr.flagged")
    assert flagged.count() == 2
    assert "rejected:" in flagged.nth(0).inner_text()
    assert "fallback (unreadable)" in flagged.nth(1).inner_text()
    flagged.nth(1).locator("a").first.click()
    assert page.locator(".flag-box.fallback").count() == 1
    assert HOSTILE in page.locator("details.role-action pre.reply").first.inner_text()
    page.screenshot(path=str(shots / f"{prefix}-step.png"), full_page=True)


def test_live_viewer_in_chromium(
    runs: list[Path], artifacts: Path, page: Any, tmp_path: Path
) -> None:
    with LiveViewer(runs, tmp_path / "viewer.log") as viewer:
        page.goto(viewer.url + "/")
        page.get_by_role("link", name="qa", exact=True).click()
        check_qa_run(page, artifacts, "viewer")
        page.goto(viewer.url + "/")
        page.get_by_role("link", name="agent", exact=True).click()
        check_agentic_run(page, artifacts, "viewer")
        page.goto(viewer.url + "/")
        page.get_by_role("link", name="hm", exact=True).click()
        page.locator("#episodes tbody a").first.click()
        assert page.locator("figure.chart polyline").count() >= 1
        page.screenshot(path=str(artifacts / "viewer-episode.png"), full_page=False)


def test_exported_copy_in_chromium(
    runs: list[Path], artifacts: Path, page: Any, tmp_path: Path
) -> None:
    export_site(RunCatalog(runs), tmp_path / "site")
    index = (tmp_path / "site" / "index.html").as_uri()
    page.goto(index)
    page.get_by_role("link", name="qa", exact=True).click()
    check_qa_run(page, artifacts, "export")
    page.goto(index)
    page.get_by_role("link", name="agent", exact=True).click()
    check_agentic_run(page, artifacts, "export")
