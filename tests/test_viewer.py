"""coordqa view on real runs written by the library: pages, filters, escaping, export, CLI.

The runs come from :mod:`viewer_support`, whose local model server replies by rule
(see its docstring), so every expectation below is derived from those rules and the example
dataset, not read back from the viewer.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import assert_export_progress, coordqa as coordqa_cli
from fastapi.testclient import TestClient
from viewer_support import (
    HOSTILE,
    QA_REPLIES,
    LiveViewer,
    make_hm_run,
    make_hostile_agentic_run,
    make_hostile_qa_run,
)

import coordqa
from coordqa.choices import Choice
from coordqa.dataset import load_rows
from coordqa.errors import StoreError
from coordqa.viewer import RunCatalog, create_app, export_site
from coordqa.viewer.qa import ReplyParts, deciding_span
from coordqa.viewer.server import SECURITY_HEADERS

TRIALS = 2
ESCAPED = html.escape(HOSTILE.split("(")[0])
"""How the hostile markup must appear in a page's source: as text."""


def expected_outcomes() -> list[tuple[str, int, str]]:
    """(question_id, trial, outcome) of the hostile QA run, from the server's rules."""
    out = []
    for number, row in enumerate(load_rows("example")):
        for trial in range(TRIALS):
            if number == 0 and trial == 0:
                outcome = "error"  # the server's first reply is an HTTP 500
            elif row["question_type"] == "EC":
                outcome = "correct" if 0 in row["correct"] else "wrong"  # "Answer: A"
            else:
                outcome = {"ToM": "ambiguous", "JP": "no_answer"}[row["question_type"]]
            out.append((row["question_id"], trial, outcome))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("viewer-runs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COORDQA_CACHE_DIR", str(root / "cache"))
        scripted = coordqa.evaluate(
            coordqa.EvalConfig(
                model="scripted", dataset="example", trials=TRIALS, out=root / "scripted"
            )
        ).run_dir
        return {
            "hostile": make_hostile_qa_run(root / "hostile", trials=TRIALS),
            "scripted": scripted,
            "agent": make_hostile_agentic_run(root / "agent"),
            "hm": make_hm_run(root / "hm"),
        }


@pytest.fixture(scope="module")
def client(runs: dict[str, Path]) -> Iterator[TestClient]:
    catalog = RunCatalog([runs["hostile"], runs["scripted"], runs["agent"], runs["hm"]])
    with TestClient(create_app(catalog), base_url="http://127.0.0.1:8010") as test_client:
        yield test_client


def get(client: TestClient, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.text[:300])
    return response.text


def visible_rows(page: str) -> list[str]:
    """The sample table's rows that are not hidden, as their opening tags."""
    return [tag for tag in re.findall(r"<tr data-game[^>]*>", page) if " hidden" not in tag]


def test_run_list_links_every_run_and_the_comparison(client: TestClient) -> None:
    page = get(client, "/")
    for run_id in ("hostile", "scripted", "agent", "hm"):
        assert f'href="/runs/{run_id}/"' in page
    assert 'href="/compare"' in page and "Compare the 2 QA runs" in page


def test_qa_summary_shows_outcomes_and_accuracy_from_the_rules(client: TestClient) -> None:
    expected = expected_outcomes()
    counts = Counter(outcome for _, _, outcome in expected)
    page = get(client, "/runs/hostile/")
    for outcome in ("correct", "wrong", "ambiguous", "no_answer", "error"):
        shown = re.search(rf'outcome-{outcome}"><a [^>]*>{outcome}</a>: (\d+)', page)
        assert shown is not None and int(shown.group(1)) == counts[outcome], outcome
    # accuracy: mean over trials of correct / scored (errors left out of the denominator)
    per_trial = [
        sum(o == "correct" for _, t, o in expected if t == trial)
        / sum(o != "error" for _, t, o in expected if t == trial)
        for trial in range(TRIALS)
    ]
    overall = sum(per_trial) / TRIALS
    total_row = re.search(r'<tr class="total">.*?</tr>', page, re.S)
    assert total_row is not None and f"{overall:.3f}" in total_row.group(0)
    incomplete = re.search(r'<p class="warn" id="incomplete">(.*?)</p>', page, re.S)
    assert incomplete is not None and "1 error" in incomplete.group(1)
    assert total_row.group(0).count('<span class="warn">*</span>') == 1  # accuracy marked
    assert "95% CI" in page and '<span class="ci">[' in total_row.group(0)
    assert "openai/viewer-test" in page and "example" in page  # manifest: model, dataset


def test_sample_table_filters_by_outcome_game_type_and_text(client: TestClient) -> None:
    expected = expected_outcomes()
    assert len(visible_rows(get(client, "/runs/hostile/samples"))) == len(expected)
    page = get(client, "/runs/hostile/samples?outcome=ambiguous")
    rows = visible_rows(page)
    assert len(rows) == sum(o == "ambiguous" for _, _, o in expected)
    assert all('data-outcome="ambiguous"' in r for r in rows)
    assert len(re.findall(r"<tr data-game", page)) == len(expected)  # the rest stay, hidden

    page = get(client, "/runs/hostile/samples?game=hanabi&type=EC")
    assert len(visible_rows(page)) == TRIALS
    # the hostile markup is in the EC and JP replies (not in the failed call)
    with_markup = sum(qid.endswith(("-EC", "-JP")) and o != "error" for qid, _, o in expected)
    assert len(visible_rows(get(client, "/runs/hostile/samples?q=ALERT"))) == with_markup


def test_sample_api_filters_and_sorts(client: TestClient) -> None:
    rows = client.get("/api/runs/hostile/samples", params={"outcome": "no_answer"}).json()
    assert {r["question_id"] for r in rows} == {
        qid for qid, _, o in expected_outcomes() if o == "no_answer"
    }
    ordered = client.get("/api/runs/hostile/samples", params={"sort": "outcome"}).json()
    order = ["correct", "wrong", "ambiguous", "no_answer", "error"]
    ranks = [order.index(r["outcome"]) for r in ordered]
    assert ranks == sorted(ranks)
    newest_first = client.get(
        "/api/runs/hostile/samples", params={"sort": "number", "order": "desc"}
    ).json()
    assert [r["number"] for r in newest_first] == list(range(len(ordered)))[::-1]
    for bad in ({"order": "up"}, {"sort": "colour"}, {"outcome": "maybe"}):
        assert client.get("/api/runs/hostile/samples", params=bad).status_code == 400


def test_sample_page_shows_prompt_reply_choice_and_rationale(client: TestClient) -> None:
    rows = load_rows("example")
    ec_number = 1  # first question (EC), trial 1: "Answer: A"
    page = get(client, f"/runs/hostile/samples/{ec_number}")
    assert "<script>alert" not in page and ESCAPED in page
    assert "marker_letter" in page
    reply = re.search(r'<pre class="reply" id="reply">(.*?)</pre>', page, re.S)
    decided = re.search(r'<mark id="decided">(.*?)</mark>', page, re.S)
    assert reply is not None and decided is not None
    text = html.unescape(re.sub(r"</?mark[^>]*>", "", reply.group(1)))
    assert text == QA_REPLIES["EC"]  # the whole reply, the span only marked
    assert decided.group(1) in "Answer: A" and decided.group(1).endswith("A")
    ambiguous = get(client, "/runs/hostile/samples/2")  # second question (ToM): "A or B"
    marked = re.search(r'<mark id="decided">(.*?)</mark>', ambiguous)
    assert marked is not None and {"A", "B"} <= set(marked.group(1).split())
    first = rows[0]
    assert f">{'correct' if 0 in first['correct'] else 'wrong'}</p>" in page
    assert first["rationale"] in html.unescape(page)
    for role in ("system", "user", "assistant"):
        assert f'<section class="message role-{role}">' in page
    assert first["options"][0] in html.unescape(page)
    assert 'rel="prev" href="/runs/hostile/samples/0"' in page
    assert 'rel="next" href="/runs/hostile/samples/2"' in page

    failed = get(client, "/runs/hostile/samples/0")
    assert 'id="error"' in failed and "500" in failed and 'rel="prev"' not in failed
    last = get(client, f"/runs/hostile/samples/{len(rows) * TRIALS - 1}")
    assert 'rel="next"' not in last


def test_a_choice_stored_without_span_is_read_again_only_if_it_agrees() -> None:
    options = ["wait", "move away", "pick up onion"]
    text = "I will move.\nAnswer: B"
    stored = Choice("chosen", 1, (1,), "marker_letter")  # as stored before spans existed
    span = deciding_span(stored, text, options)
    assert span is not None and text[span[0] : span[1]].endswith("B")
    other = Choice("chosen", 0, (0,), "marker_letter")  # a reading today's rules do not make
    assert deciding_span(other, text, options) is None
    assert ReplyParts.cut(text, span) == ReplyParts(
        text[: span[0]], text[span[0] : span[1]], text[span[1] :]
    )
    assert ReplyParts.cut(text, (0, len(text) + 1)) is None


def test_comparison_pairs_the_runs_and_lists_where_they_differ(client: TestClient) -> None:
    page = get(client, "/compare")
    # scripted answers A everywhere; the hostile run differs on every ToM (ambiguous) and JP
    # (no answer) trial, and on the first question's failed first trial
    rows = load_rows("example")
    differing = {
        (r["question_id"], t) for r in rows if r["question_type"] != "EC" for t in range(TRIALS)
    }
    differing.add((rows[0]["question_id"], 0))
    listed = {
        (qid, int(trial))
        for qid, trial in re.findall(
            r'<tr><td>(example-[^<]+)</td><td class="num">(\d+)</td>', page
        )
    }
    assert listed == differing
    assert f"{len(differing)} of {len(rows) * TRIALS} (question, trial) pairs" in page
    paired = re.search(r'<table class="paired">.*?</table>', page, re.S)
    assert paired is not None
    questions = dict(
        re.findall(r'<tr[^>]*><td>(\w+)</td><td class="num">(\d+)</td>', paired.group(0))
    )
    per_type = Counter(r["question_type"] for r in rows)
    assert questions == {**{k: str(v) for k, v in per_type.items()}, "overall": str(len(rows))}
    # the reference's cell links to its sample page, the other run's to its own
    assert 'href="/runs/hostile/samples/0">error</a>' in page
    assert 'href="/runs/scripted/samples/0">A</a>' in page


def test_agentic_pages_flag_the_rejection_and_the_fallback(client: TestClient) -> None:
    episodes = client.get("/api/runs/agent/episodes").json()
    assert len(episodes) == 1
    assert (episodes[0]["fallbacks"], episodes[0]["rejections"]) == (1, 1)
    page = get(client, "/runs/agent/episodes/0")
    from coordqa.agentic.agents.cac import CACAgent

    assert f"0: cac (under test, {CACAgent.version}, openai/viewer-test)" in page
    flagged = re.findall(r'<tr class="flagged">.*?</tr>', page, re.S)
    assert len(flagged) == 2
    rejection, fallback = flagged
    assert "rejected:" in rejection and "fallback (unreadable)" in fallback  # in step order
    step = int(re.search(r"steps/(\d+)", fallback).group(1))  # type: ignore[union-attr]
    detail = get(client, f"/runs/agent/episodes/0/steps/{step}")
    assert 'class="flag-box fallback"' in detail
    assert detail.count('<span class="flag fallback">unreadable</span>') == 2  # asked twice
    first = int(re.search(r"steps/(\d+)", rejection).group(1))  # type: ignore[union-attr]
    assert (
        get(client, f"/runs/agent/episodes/0/steps/{first}").count(
            '<span class="flag rejection">rejected</span>'
        )
        == 1
    )
    assert "<script>alert" not in detail and ESCAPED in detail
    assert "<b>nothing</b>" not in detail and "&lt;b&gt;nothing&lt;/b&gt;" in detail
    for role in ("tom", "action", "reprompt"):
        assert f"exchange role-{role}" in detail
    # the description shown is what the agent was given: it opens the action prompt's last turn
    description = re.search(r"to this seat</summary><pre>(.*?)</pre>", detail, re.S)
    action_block = detail.split("exchange role-action")[1].split("exchange role-")[0]
    asked = re.findall(r'role-user">\s*<h4>user</h4>\s*<pre>(.*?)</pre>', action_block, re.S)
    assert description is not None and description.group(1).strip() and asked
    assert asked[-1].startswith(description.group(1).strip())


def test_hm_episode_has_a_hypothesis_chart_and_cac_has_none(client: TestClient) -> None:
    hm = get(client, "/runs/hm/episodes/0")
    assert "<svg" in hm and "<polyline" in hm and "hypothesis 0" in hm
    assert "<svg" not in get(client, "/runs/agent/episodes/0")


def test_unknown_things_are_404_and_headers_are_strict(client: TestClient) -> None:
    for url in (
        "/runs/nope/",
        "/runs/hostile/samples/999",
        "/runs/agent/episodes/5",
        "/runs/agent/episodes/0/steps/9999",
        "/runs/agent/samples",
        "/runs/hostile/episodes/0",
        "/api/docs",  # Swagger UI needs an inline script and a CDN: not served
    ):
        assert client.get(url).status_code == 404, url
    response = client.get("/runs/hostile/samples/1")
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"]
    for url in (
        "/",
        "/compare",
        "/runs/hostile/",
        "/runs/hostile/samples",
        "/runs/agent/episodes/0",
    ):
        assert re.findall(r"<script(?![^>]*\bsrc=)", get(client, url)) == [], url


def test_catalog_rereads_a_run_only_when_its_files_change(runs: dict[str, Path]) -> None:
    catalog = RunCatalog([runs["scripted"]])
    first = catalog.qa("scripted")
    assert catalog.qa("scripted") is first
    scores = runs["scripted"] / "scores.jsonl"
    stat = scores.stat()
    os.utime(scores, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert catalog.qa("scripted") is not first


def links_in(page: Path) -> list[str]:
    return [h for h in re.findall(r'(?:href|src)="([^"#?]+)', page.read_text()) if "://" not in h]


def test_export_writes_linked_pages_with_escaped_output(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    catalog = RunCatalog([runs["hostile"], runs["scripted"], runs["agent"]])
    written = export_site(catalog, tmp_path / "site")
    samples = len(load_rows("example")) * TRIALS
    assert len(list((tmp_path / "site/runs/hostile/samples").glob("*.html"))) == samples
    assert (tmp_path / "site/compare.html").exists()
    pages = [p for p in written if p.suffix == ".html"]
    for page in pages:
        text = page.read_text()
        assert "<script>alert" not in text, page
        for link in links_in(page):
            assert (page.parent / link).resolve().exists(), (page, link)
    assert ESCAPED in (tmp_path / "site/runs/hostile/samples/1.html").read_text()


def test_cli_exports_and_refuses_a_missing_run(runs: dict[str, Path], tmp_path: Path) -> None:
    done = coordqa_cli("view", str(runs["scripted"]), "--export", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out/runs/scripted/samples.html").exists()
    missing = coordqa_cli("view", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "does not exist" in " ".join(missing.stderr.split())


def test_cli_export_says_its_progress_off_a_terminal(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 26, R4: ``view --export`` of 85 runs wrote 13,989 files in 3.5 minutes and
    said nothing between its first line and ``wrote N files``, so it looked hung. Off a
    terminal it says plain lines on stderr, naming the runs done and the pages written."""
    from coordqa.cli import _progress

    monkeypatch.setattr(_progress, "EXPORT_EVERY_S", 0.0)  # a line at each page, not on time
    folders = [str(runs[name]) for name in ("scripted", "agent", "hm")]
    done = coordqa_cli("view", *folders, "--export", str(tmp_path / "site"))
    assert_export_progress(done, "3 runs")


def test_cli_export_says_it_reads_the_runs_when_reading_takes_time(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blind walkthrough: ``view --export`` of 85 runs read them for minutes with nothing on
    screen before its progress began. A read that takes longer than
    :data:`~coordqa.cli._progress.READING_NOTE_S` says so, once, on stderr, before the export's
    progress; a quick one says nothing."""
    import time

    from coordqa.cli import _progress

    folders = [str(runs[name]) for name in ("scripted", "agent", "hm")]
    monkeypatch.setattr(_progress, "READING_NOTE_S", 600.0)  # read before the note is due
    quick = coordqa_cli("view", *folders, "--export", str(tmp_path / "quick"))
    assert quick.returncode == 0 and "reading" not in quick.stderr, quick.stderr
    monkeypatch.setattr(_progress, "READING_NOTE_S", 0.05)
    monkeypatch.setattr(_progress, "EXPORT_EVERY_S", 0.0)
    read_all = RunCatalog.read_all

    def slow_read_all(catalog: RunCatalog) -> None:
        time.sleep(1.0)  # well past the note's delay
        read_all(catalog)

    monkeypatch.setattr(RunCatalog, "read_all", slow_read_all)
    slow = coordqa_cli("view", *folders, "--export", str(tmp_path / "slow"))
    assert slow.returncode == 0, slow.stderr
    lines = slow.stderr.splitlines()
    assert lines[0] == "reading 3 runs...", slow.stderr
    assert lines.count("reading 3 runs...") == 1 and lines[1].startswith("exporting: ")
    assert "reading" not in slow.stdout


def test_comparison_of_three_runs_gives_exact_correlations(tmp_path: Path) -> None:
    """EC 1, 0.5, 0 against JP 0, 0.5, 1: rho = -1, reached by 2 of the 3! pairings."""
    from qa_run_support import outcome_rows, write_qa_run

    runs = []
    for name, ec, jp in (("r1", 2, 0), ("r2", 1, 1), ("r3", 0, 2)):
        spec = {
            "s0-ec": ["right" if ec > 0 else "wrong"],
            "s1-ec": ["right" if ec > 1 else "wrong"],
            "s0-jp": ["right" if jp > 0 else "wrong"],
            "s1-jp": ["right" if jp > 1 else "wrong"],
        }
        runs.append(write_qa_run(tmp_path / name, name, outcome_rows(spec), trials=1))
    with TestClient(create_app(RunCatalog(runs)), base_url="http://127.0.0.1") as three:
        page = get(three, "/compare")
    table = re.search(r'<table class="correlations".*?</table>', page, re.S)
    assert table is not None
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table.group(0))
    assert cells[:7] == ["EC vs JP", "3", "-1.00", "0.333", "-1.00", "0.333", "exact"]
    assert "no correlation can be significant" in cells[7]
    assert "only r1 right: 2" in " ".join(page.split())  # r1 against r3, EC: 2 samples


# -- issue 26: the viewer reads only the runs given, and answers only its own host ------------


def _aimed_at(run: Path, folder: Path, dataset: str) -> Path:
    """A copy of ``run`` in ``folder`` whose manifest names ``dataset`` (its author's choice)."""
    import json
    import shutil

    copy = folder / "aimed"
    shutil.copytree(run, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["dataset"]["name"] = dataset
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return copy


def _write_rows(path: Path) -> list[dict[str, object]]:
    """The example dataset's rows written as a .jsonl file at ``path``."""
    import json

    rows = load_rows("example")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return rows


@pytest.mark.parametrize("target", ["/", "/etc/passwd", "../../../../etc/hostname", "outside"])
def test_a_manifest_cannot_make_the_viewer_read_other_files(
    runs: dict[str, Path], tmp_path: Path, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import coordqa.dataset

    outside = tmp_path / "private" / "rows.jsonl"  # a readable dataset, but not the run's
    rows = _write_rows(outside)
    aimed = _aimed_at(runs["scripted"], tmp_path, str(outside) if target == "outside" else target)
    opened: list[str] = []
    real = coordqa.dataset.load_rows
    monkeypatch.setattr(
        coordqa.dataset, "load_rows", lambda name=None: opened.append(str(name)) or real(name)
    )
    with TestClient(create_app(RunCatalog([aimed])), base_url="http://127.0.0.1") as viewer:
        page = html.unescape(get(viewer, f"/runs/{aimed.name}/samples/0"))
    assert opened == []
    assert "is neither a bundled dataset nor a file inside the run" in page
    assert rows[0]["rationale"] not in page


def test_a_dataset_bundled_or_inside_the_run_is_still_read(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    inside = _aimed_at(runs["scripted"], tmp_path, "data/example.jsonl")
    rows = _write_rows(inside / "data" / "example.jsonl")
    for run in (runs["scripted"], inside):  # the bundled name, then a file inside the run
        with TestClient(create_app(RunCatalog([run])), base_url="http://127.0.0.1") as viewer:
            page = html.unescape(get(viewer, f"/runs/{run.name}/samples/0"))
        assert str(rows[0]["rationale"]) in page


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("127.0.0.1:8010", 200),
        ("localhost:8010", 200),
        ("[::1]:8010", 200),
        ("attacker.example:8010", 400),
        ("127.0.0.1.nip.io", 400),
        ("", 400),
    ],
)
def test_requests_for_another_host_are_refused(client: TestClient, host: str, status: int) -> None:
    answer = client.get("/api/runs", headers={"host": host})
    assert answer.status_code == status, answer.text
    if status == 400:
        assert "restart it with --allow-host" in answer.text
        assert answer.headers["x-frame-options"] == "DENY"


def test_allowed_hosts_follow_the_command_line() -> None:
    from coordqa.cli.view import allowed_hosts

    assert allowed_hosts("127.0.0.1", []) == ["localhost", "127.0.0.1", "::1", "127.0.0.1"]
    assert "box.lan" in allowed_hosts("0.0.0.0", ["box.lan"])
    assert "0.0.0.0" not in allowed_hosts("0.0.0.0", [])


def test_comparison_of_a_set_of_two_datasets_compares_within_each(tmp_path: Path) -> None:
    """Three models on two datasets (an eval set's shape): as coordqa report, one section per
    dataset, pairs and correlations within it (n = 3 models), never a run of the other."""
    from qa_run_support import SIX_QUESTIONS, outcome_rows, write_qa_run

    runs = {
        (model, dataset): write_qa_run(
            tmp_path / f"{model}-{dataset}",
            model,
            outcome_rows(SIX_QUESTIONS),
            trials=2,
            dataset=dataset,
            fingerprint=dataset[-1] * 64,
        )
        for dataset in ("set-a", "set-b")
        for model in ("m1", "m2", "m3")
    }
    with TestClient(create_app(RunCatalog(list(runs.values()))), base_url="http://127.0.0.1") as c:
        page = get(c, "/compare")
    pattern = r'<article class="dataset" id="dataset-([^"]+)">(.*?)</article>'
    sections = re.findall(pattern, page, re.S)
    assert [name for name, _ in sections] == ["set-a", "set-b"]
    for dataset, body in sections:
        named = set(re.findall(r'href="/runs/([^/"]+)/"', body))
        assert named == {f"{model}-{dataset}" for model in ("m1", "m2", "m3")}
        cells = re.findall(r'<table class="correlations".*?</table>', body, re.S)
        assert len(cells) == 1 and re.findall(r'<td class="num">(\d+)</td>', cells[0]) == ["3", "3"]
        assert len(re.findall(r'<section class="pair"', body)) == 2
        assert "(dataset=" not in body  # runs are named within their dataset, as in report


def test_comparison_keeps_each_question_set_apart_as_report_does(tmp_path: Path) -> None:
    """Walkthrough 19, R4: runs of one dataset over different questions (``--limit`` 3 beside
    the full set, and two disjoint ``--ids``) were put side by side under a banner naming
    ``--allow-mixed`` (the viewer takes no such option), correlated across the sets, and a pair
    sharing no question got an empty '0 of 0 pairs' table. ``coordqa report`` refuses to mix
    question sets, so the page compares each run only with the runs of its own question set."""
    from qa_run_support import SIX_QUESTIONS, outcome_rows, write_qa_run

    first_three = dict(list(SIX_QUESTIONS.items())[:3])
    last_three = dict(list(SIX_QUESTIONS.items())[3:])
    shapes = {
        "full-a": (SIX_QUESTIONS, {}),
        "full-b": (SIX_QUESTIONS, {}),
        "full-c": (SIX_QUESTIONS, {}),
        "first": (first_three, {"limit": 3}),
        "last": (last_three, {"ids": list(last_three)}),
    }
    runs = [
        write_qa_run(tmp_path / name, name, outcome_rows(outcomes), trials=2, **filters)
        for name, (outcomes, filters) in shapes.items()
    ]
    with TestClient(create_app(RunCatalog(runs)), base_url="http://127.0.0.1") as c:
        page = get(c, "/compare")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert "--allow-mixed" not in text and "Mixed question sets" not in text
    assert "0 of 0" not in text
    assert (
        "answered different question sets, so their accuracies and correlations are not "
        "comparable" in text
    )
    pattern = r'<article class="dataset" id="dataset-([^"]+)">(.*?)</article>'
    sections = re.findall(pattern, page, re.S)
    members = [set(re.findall(r'href="/runs/([^/"]+)/"', body)) for _, body in sections]
    assert members == [{"full-a", "full-b", "full-c"}, {"first"}, {"last"}]
    full, first, last = (body for _, body in sections)
    assert len(re.findall(r'<section class="pair"', full)) == 2
    assert not re.findall(r'<section class="pair"', first + last)
    correlations = re.findall(r'<table class="correlations".*?</table>', full, re.S)
    assert len(correlations) == 1  # n = 3 runs, all of one question set
    assert re.findall(r'<td class="num">(\d+)</td>', correlations[0]) == ["3", "3"]
    assert "--limit 3" in first and "--ids s1-ec,s1-tom,s1-jp" in last  # each set told apart


def test_the_run_page_counts_correct_samples_beside_samples(client: TestClient) -> None:
    """Walkthrough 3, rough 7: 'correct' (59, a count of samples) stood beside 'questions' (66),
    and read as 59 of 66."""
    expected = expected_outcomes()
    page = get(client, "/runs/hostile/")
    header = re.search(r"<thead><tr><th>scope</th>(.*?)</tr></thead>", page, re.S)
    assert header is not None
    columns = re.findall(r"<th[^>]*>([^<]*)</th>", header.group(1))
    assert columns[columns.index("questions") :][:3] == ["questions", "samples", "correct samples"]
    total = re.search(r'<tr class="total">(.*?)</tr>', page, re.S)
    assert total is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", total.group(1), re.S)
    at = 1 + columns.index("questions")  # the first cell is the scope's
    questions, samples, correct = (int(cells[at + i]) for i in range(3))
    assert questions == len({qid for qid, _, _ in expected})
    assert samples == len(expected)  # every (question, trial) stored, the error included
    assert correct == sum(outcome == "correct" for _, _, outcome in expected)


def test_an_hm_hanabi_episode_shows_its_score_once_and_marks_single_points(
    tmp_path: Path,
) -> None:
    """Walkthrough 3, rough 11: 'score 0.0' then 'score 0.00', and an empty chart whose series
    (one per hypothesis) each had one point, which a polyline does not draw."""
    from coordqa.agentic import GridConfig, run_grid

    config = {
        "name": "hm-hanabi",
        "agents": ["hm"],
        "models": ["scripted"],
        "games": [{"game": "hanabi", "seeds": [0]}],
    }
    run_grid(GridConfig.model_validate(config), tmp_path / "hm")
    catalog = RunCatalog([tmp_path / "hm"])
    chart = catalog.agentic("hm").episode(0).hypothesis_chart
    assert chart is not None
    single = [line for line in chart.lines if line.marker is not None]
    with TestClient(create_app(catalog), base_url="http://127.0.0.1") as viewer:
        page = get(viewer, "/runs/hm/episodes/0")
    assert page.count("<dt>score</dt>") == 1
    assert page.count('<circle class="marker') == len(single)
    polylines = re.findall(r'<polyline[^>]*points="([^"]*)"', page)
    assert all(" " in points for points in polylines)  # a polyline only for 2 points or more
    assert len(polylines) + len(single) == len(chart.lines)
    assert single == chart.lines and len(single) == 2  # as in the walkthrough: one value each
    assert "each series has one value" in page


def test_a_path_number_of_the_wrong_type_is_one_sentence(client: TestClient) -> None:
    """Walkthrough 4 #283: the viewer answers a mistyped parameter as the board does."""
    answer = client.get("/api/runs")
    run_id = answer.json()[0]["id"]
    wrong = client.get(f"/runs/{run_id}/samples/abc")
    assert wrong.status_code == 422
    assert wrong.json() == {
        "detail": "number (path parameter) must be a valid integer, unable to parse string as "
        "an integer, got 'abc'"
    }


def test_the_viewer_shows_accuracy_in_the_unit_the_cli_prints(
    client: TestClient, runs: dict[str, Path]
) -> None:
    """Issue 38: ``coordqa report`` printed ``0.250 ± 0.000`` and the viewer ``25.0 ± 0.0`` for the
    same run. One unit, a fraction of 1, from one formatting home."""
    report = coordqa_cli("report", runs["scripted"], columns=200)
    assert report.returncode == 0, report.stderr
    printed = re.search(r"overall\s+(\d\.\d{3} ± \d\.\d{3})\s+(\[\S+ \S+\])", report.stdout)
    assert printed is not None, report.stdout
    total_row = re.search(r'<tr class="total">.*?</tr>', get(client, "/runs/scripted/"), re.S)
    assert total_row is not None
    shown = re.sub(r"<[^>]+>", "", total_row.group(0))
    assert printed.group(1) in shown and printed.group(2) in shown, (printed.groups(), shown)


def test_a_run_written_after_the_viewer_started_is_found_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))

    def scripted_run(name: str) -> None:
        config = coordqa.EvalConfig(
            model="scripted", dataset="example", trials=1, out=tmp_path / "runs" / name
        )
        coordqa.evaluate(config)

    scripted_run("first")
    catalog = RunCatalog([tmp_path / "runs"])
    catalog.read_all()
    scripted_run("second")
    (tmp_path / "runs" / "broken").mkdir()
    (tmp_path / "runs" / "broken" / "manifest.json").write_text("{not json")
    with TestClient(create_app(catalog), base_url="http://127.0.0.1") as viewer:
        catalog.LOOK_AGAIN_EVERY_S = 3600.0  # within the bound: no search, the run is unknown
        missing = viewer.get("/runs/second/")
        assert missing.status_code == 404 and "found when asked for" in missing.text
        catalog.LOOK_AGAIN_EVERY_S = 0.0
        assert "Accuracy" in get(viewer, "/runs/second/")
        index = get(viewer, "/")
        assert 'href="/runs/first/"' in index and 'href="/runs/second/"' in index
        assert "broken" in index  # a damaged run folder made since is listed as unreadable
        assert [run["id"] for run in viewer.get("/api/runs").json()] == ["first", "second"]


def test_a_member_added_to_an_eval_set_after_the_viewer_started_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``coordqa view SET/`` showed the members the set held when it started, never one added
    since (``eval-set -m another --out SET/``), while ``view runs/`` finds new runs."""
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    add = ("eval-set", "--dataset", "example", "--trials", "1", "--out", tmp_path / "set")
    assert coordqa_cli(*add, "-m", "random").returncode == 0
    with LiveViewer([tmp_path / "set"], tmp_path / "viewer.log") as viewer:
        assert coordqa_cli(*add, "-m", "scripted").returncode == 0
        deadline = time.monotonic() + 30  # the viewer looks again at most every 2 s
        labels: list[str] = []
        while time.monotonic() < deadline and len(labels) < 2:
            with urllib.request.urlopen(f"{viewer.url}/api/runs", timeout=10) as answer:
                labels = sorted(run["label"] for run in json.load(answer))
            time.sleep(0.5)
    assert labels == ["random", "scripted"], (viewer.log.read_text(), labels)


def test_an_unknown_run_s_404_offers_the_closest_and_lists_a_few(tmp_path: Path) -> None:
    """Walkthrough 12: the 404 listed every run id of the folder, however many."""
    folder = tmp_path / "runs"
    make_hostile_qa_run(folder / "model-00", trials=1)
    for n in range(1, 12):
        shutil.copytree(folder / "model-00", folder / f"model-{n:02d}")
    catalog = RunCatalog([folder])
    catalog.LOOK_AGAIN_EVERY_S = 3600.0
    with pytest.raises(LookupError) as unknown:
        catalog.get("model-1O")
    said = str(unknown.value)
    offered = said.partition("Did you mean ")[2].partition("?")[0]
    assert "'model-10'" in offered, said
    assert "model-00" in said and "model-04 and 7 more" in said, said
    assert "12 runs" in said, said


def test_a_run_relabelled_since_the_viewer_started_shows_its_new_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 15: after ``coordqa eval ... --label NEW`` the viewer kept the old label
    until restarted. Its run page shows the new one when the run's files changed (as its new
    samples are), the index and ``/api/runs`` when the folders are looked at again."""
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "runs" / "one"

    def scripted_run(label: str) -> None:
        config = coordqa.EvalConfig(
            model="scripted", dataset="example", trials=1, out=out, label=label
        )
        coordqa.evaluate(config)

    scripted_run("old-name")
    catalog = RunCatalog([tmp_path / "runs"])
    catalog.read_all()
    with TestClient(create_app(catalog), base_url="http://127.0.0.1") as viewer:
        assert "<h2>old-name " in get(viewer, "/runs/one/")
        scripted_run("new-name")
        catalog.LOOK_AGAIN_EVERY_S = 3600.0  # the run page alone reads the changed run
        assert "<h2>new-name " in get(viewer, "/runs/one/")
        # walkthrough 21, R6: the browser tab kept the folder's name
        assert "<title>new-name · coordqa view</title>" in get(viewer, "/runs/one/")
        assert "<title>samples · new-name · coordqa view</title>" in get(
            viewer, "/runs/one/samples"
        )
        assert [run["label"] for run in viewer.get("/api/runs").json()] == ["new-name"]
        scripted_run("third-name")
        assert "<td>new-name</td>" in get(viewer, "/")  # within the bound: not looked at again
        catalog.LOOK_AGAIN_EVERY_S = 0.0
        assert "<td>third-name</td>" in get(viewer, "/")
        assert [run["label"] for run in viewer.get("/api/runs").json()] == ["third-name"]
        assert "<h2>third-name " in get(viewer, "/runs/one/")


def test_a_folder_s_runs_of_other_kinds_are_counted_with_why_not_shown(tmp_path: Path) -> None:
    """Walkthrough 17, R1: ``coordqa view runs/`` left out ``coordqa play`` runs without a word,
    while ``view runs/<play run>`` said why; the index and the start-up line say it too."""
    from qa_run_support import SIX_QUESTIONS, outcome_rows, write_qa_run

    write_qa_run(tmp_path / "runs" / "qa", "m", outcome_rows(SIX_QUESTIONS), trials=1)
    for name in ("p1", "p2"):
        played = coordqa_cli(
            "play", "collab_escape", "--episodes", "1", "--out", f"runs/{name}", cwd=tmp_path
        )
        assert played.returncode == 0, played.stderr
    why = "the viewer shows QA runs (coordqa eval) and agentic runs (coordqa agentic run / grid)"
    alone = coordqa_cli("view", "runs/p1", "--export", "one", cwd=tmp_path)
    assert alone.returncode == 2 and f"is a 'play' run; {why}" in alone.stderr, alone.stderr
    shown = coordqa_cli("view", "runs", "--export", "site", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    note = f"2 play runs not shown: {why}"
    assert note in " ".join(shown.stdout.split()), shown.stdout
    assert note in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert RunCatalog([tmp_path / "runs" / "qa"]).not_shown_note() is None


def _play(tmp_path: Path, out: str, *args: str) -> None:
    played = coordqa_cli(
        "agentic", "run", "--game", "overcooked", "--seeds", "0", "--horizon", "6",
        "--out", out, "-q", *args, cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr


def test_episodes_with_a_bc_hp_partner_or_agent_render_in_export_and_live(tmp_path: Path) -> None:
    """Walkthrough 23: an episode beside ``hp-cramped_room`` (whose seat reports its checkpoint,
    not model calls) was ``UndefinedError: 'dict object' has no attribute 'llm_calls'``: a
    traceback from ``view --export`` and an HTTP 500 from the live viewer. Each seat's line
    says what its player reported: the agent's calls, the BC/HP partner's checkpoint."""
    from coordqa.agentic.partners.bc import shipped_fingerprint

    _play(tmp_path, "runs/cac-hp", "--agent", "cac", "--model", "scripted", "--partner",
          "hp-cramped_room")  # fmt: skip
    _play(tmp_path, "runs/hp-bc", "--agent", "hp-cramped_room", "--partner", "bc-cramped_room")
    hp, bc = shipped_fingerprint("hp-cramped_room"), shipped_fingerprint("bc-cramped_room")
    exported = coordqa_cli("view", "runs", "--export", "site", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    catalog = RunCatalog([tmp_path / "runs"])
    with TestClient(create_app(catalog), base_url="http://127.0.0.1") as viewer:
        for run, seats in (("cac-hp", 2), ("hp-bc", 2)):
            for n in range(seats):  # --position both: the agent in seat 0, then in seat 1
                live = get(viewer, f"/runs/{run}/episodes/{n}")
                static = (tmp_path / f"site/runs/{run}/episodes/{n}.html").read_text()
                seat = catalog.agentic(run).episodes[n].spec.position
                for page in (live, static):
                    facts = dict(re.findall(r"<dt>(seat \d \w+)</dt><dd>(.*?)</dd>", page))
                    if run == "cac-hp":
                        assert re.fullmatch(
                            r"\d+ model calls, \d+ decisions, 0 fallbacks, 0 verifier rejections",
                            facts.pop(f"seat {seat} agent"),
                        ), facts
                        assert facts == {f"seat {1 - seat} partner": f"checkpoint {hp}"}
                    else:
                        assert facts == {
                            f"seat {seat} agent": f"checkpoint {hp}",
                            f"seat {1 - seat} partner": f"checkpoint {bc}",
                        }
        assert get(viewer, "/runs/hp-bc/episodes/0/steps/0")


def test_an_export_whose_page_does_not_render_is_one_line_and_leaves_no_site(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 23: a page that failed to render ended ``view --export`` with a traceback
    and a half-written site (an index linking to pages never written)."""
    from coordqa.outputs import OUTPUT_MARKER
    from coordqa.viewer import pages

    def broken(*args: object, **kwargs: object) -> str:
        raise KeyError("llm_calls")

    monkeypatch.setattr(pages, "episode_page", broken)
    done = coordqa_cli("view", str(runs["agent"]), "--export", str(tmp_path / "site"))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    said = done.stderr.strip()
    assert "\n" not in said, said
    assert "runs/agent/episodes/0.html" in said and "KeyError" in said, said
    assert "nothing was exported" in said, said
    left = [p for p in (tmp_path / "site").rglob("*") if p.name != OUTPUT_MARKER]
    assert left == [], left


def test_a_page_s_refusal_is_a_page_and_the_api_s_stays_json(client: TestClient) -> None:
    """Walkthrough 23, h23l item 2: a browser asking ``/runs/nosuch/`` got the raw JSON
    ``{"detail": "no run 'nosuch'..."}``. A page route answers its 404 (and any other refusal)
    as a small page with the same words and a link to the runs; the API keeps JSON."""
    import html

    page = client.get("/runs/nosuch/")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html"), page.text
    api = client.get("/api/runs/nosuch/samples")
    assert api.status_code == 404 and api.headers["content-type"] == "application/json"
    said = api.json()["detail"]
    assert "nosuch" in said and said in html.unescape(page.text), page.text
    assert 'href="/"' in page.text
    for name, value in SECURITY_HEADERS.items():
        assert page.headers[name] == value
    bad = client.get("/runs/hostile/samples", params={"order": "sideways"})
    assert bad.status_code == 400 and bad.headers["content-type"].startswith("text/html")
    assert "order must be" in bad.text
    nowhere = client.get("/no/such/page")
    assert nowhere.status_code == 404 and nowhere.headers["content-type"].startswith("text/html")
    assert client.get("/api/nothing").headers["content-type"] == "application/json"


def test_the_live_viewer_starts_on_an_empty_folder_and_shows_runs_written_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 25, R3: ``coordqa view live/runs`` on a folder with no run yet was refused,
    while the docs say a run written into a folder given is found with no restart."""
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "live" / "runs"
    folder.mkdir(parents=True)
    with LiveViewer([folder], tmp_path / "viewer.log") as viewer:
        said = " ".join(viewer.log.read_text().split())
        assert f"no runs yet under {folder}; runs written there appear on reload" in said, said
        with urllib.request.urlopen(f"{viewer.url}/", timeout=10) as answer:
            index = " ".join(html.unescape(answer.read().decode()).split())
        assert "No runs yet under" in index and "appear on reload" in index, index
        with urllib.request.urlopen(f"{viewer.url}/compare", timeout=10) as answer:
            assert answer.status == 200
        config = coordqa.EvalConfig(model="scripted", dataset="example", trials=1, out=folder / "a")
        coordqa.evaluate(config)
        deadline = time.monotonic() + 30  # the viewer looks again at most every 2 s
        ids: list[str] = []
        while time.monotonic() < deadline and not ids:
            with urllib.request.urlopen(f"{viewer.url}/api/runs", timeout=10) as answer:
                ids = [run["id"] for run in json.load(answer)]
            time.sleep(0.5)
        assert ids == ["a"], (viewer.log.read_text(), ids)
        with urllib.request.urlopen(f"{viewer.url}/runs/a/", timeout=10) as answer:
            assert "Accuracy" in answer.read().decode()
        with urllib.request.urlopen(f"{viewer.url}/", timeout=10) as answer:
            assert "No runs yet" not in answer.read().decode()


def test_only_the_live_viewer_takes_an_empty_folder(tmp_path: Path) -> None:
    """An export of nothing, a folder that is not there, and the other commands still refuse."""
    empty = tmp_path / "runs"
    empty.mkdir()
    refused = f"no runs under {empty}: no folder there holds a manifest.json"
    for args in (
        ("view", str(empty), "--export", str(tmp_path / "site")),
        ("runs", "list", str(empty)),
        ("report", str(empty)),
    ):
        done = coordqa_cli(*args)
        assert done.returncode == 2 and refused in " ".join(done.stderr.split()), (args, done)
    assert not (tmp_path / "site").exists()
    missing = coordqa_cli("view", str(tmp_path / "nowhere"), "--port", "0")
    assert missing.returncode == 2 and "does not exist" in " ".join(missing.stderr.split())
    assert not (tmp_path / "nowhere").exists()
    with pytest.raises(StoreError, match="no runs under"):
        RunCatalog([empty])
    catalog = RunCatalog([empty], live=True)
    assert catalog.entries == [] and catalog.empty_note() == (
        f"no runs yet under {empty}; runs written there appear on reload"
    )


def test_an_episode_page_parses_only_that_episode_s_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 27, R7: each episode's first page read and validated the whole
    ``exchanges.jsonl`` (62 episodes, 128 MB: 3 to 7 s per episode); now only its own records
    are parsed, found through an index of the file's lines built once per version of the run."""
    from coordqa.agentic import GridConfig, run_grid
    from coordqa.agentic.episodes import EXCHANGES
    from coordqa.agentic.records import parse_record
    from coordqa.store import open_run
    from coordqa.store.directory import DamagedRecordsError
    from coordqa.viewer import agentic as viewer_agentic

    config = {
        "name": "three",
        "agents": ["cac"],
        "models": ["scripted"],
        "games": [{"game": "collab_capture", "seeds": [0, 1, 2]}],
    }
    run = tmp_path / "three"
    run_grid(GridConfig.model_validate(config), run)
    every = open_run(run).read(EXCHANGES, parse_record)
    parsed: list[str] = []

    def counted(data: Any, where: str) -> Any:
        parsed.append(str(data.get("attempt")))
        return parse_record(data, where)

    monkeypatch.setattr(viewer_agentic, "parse_record", counted)
    view = RunCatalog([run]).agentic("three")
    assert len(view.episodes) == 3
    for number in (1, 0, 2):
        attempt = view.episodes[number].attempt
        parsed.clear()
        records = view.episode(number).records
        assert records == [r for r in every if r.attempt == attempt] and records
        assert set(parsed) == {attempt} and len(parsed) == len(records)
    # a record written otherwise (no "attempt": "..." to find) is parsed for each episode
    exchanges = run / "exchanges.jsonl"
    lines = exchanges.read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].replace(b'"attempt"', b'"\\u0061ttempt"')
    assert json.loads(lines[-1])["attempt"]
    exchanges.write_bytes(b"".join(lines))
    view = RunCatalog([run]).agentic("three")
    assert [view.episode(n).records for n in range(3)] == [
        [r for r in every if r.attempt == episode.attempt] for episode in view.episodes
    ]
    # a line whose text names one episode but whose record is another's (a duplicate key, the
    # last one escaped) is refused as damaged on the page that reads it, not dropped unseen
    first, second = (episode.attempt for episode in view.episodes[:2])
    lines = exchanges.read_bytes().splitlines(keepends=True)
    number, line = next(
        (n, line) for n, line in enumerate(lines, 1) if f'"attempt": "{second}"'.encode() in line
    )
    posing = line.replace(b'"attempt"', b'"\\u0061ttempt"').replace(
        b"{", f'{{"attempt": "{first}", '.encode(), 1
    )
    assert json.loads(posing)["attempt"] == second
    lines[number - 1] = posing
    exchanges.write_bytes(b"".join(lines))
    view = RunCatalog([run]).agentic("three")
    with pytest.raises(DamagedRecordsError, match=f"line {number} "):
        view.episode(0)
