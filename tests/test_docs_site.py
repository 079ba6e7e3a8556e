"""The user guide builds, and every relative link of README.md and docs/ lands somewhere real.

README.md is read on GitHub, so its anchors follow GitHub's heading ids; the guide's pages are
read on the MkDocs site, so theirs follow MkDocs' (Python-Markdown's ``toc`` slugify). The two
rules differ (``## HE + HR`` is ``#he--hr`` on GitHub, ``#he-hr`` on the site), so each link is
checked with the rule of the place it is read.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def _prose_lines(path: Path, text: str | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of the lines outside fenced code blocks (of ``text``, else the file)."""
    fenced = False
    text = path.read_text(encoding="utf-8") if text is None else text
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def _heading_texts(path: Path) -> list[str]:
    """Each heading's text as a reader sees it (code and emphasis marks dropped)."""
    texts = []
    for _, line in _prose_lines(path):
        found = HEADING.match(line)
        if found:
            texts.append(re.sub(r"[`*]", "", found.group(2)))
    return texts


def github_slug(text: str) -> str:
    """GitHub's heading id: lower case, punctuation but ``-`` and ``_`` dropped, spaces ``-``."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def mkdocs_slug(text: str) -> str:
    """MkDocs' heading id: Python-Markdown's ``toc`` slugify, the one the site uses."""
    from markdown.extensions.toc import slugify

    return str(slugify(text, "-"))


def _anchors(path: Path, slug: Callable[[str], str], repeat: str) -> set[str]:
    """The ids of a file's headings, repeated ones numbered as the renderer numbers them."""
    seen: dict[str, int] = {}
    anchors = set()
    for text in _heading_texts(path):
        base = slug(text)
        count = seen.get(base, 0)
        anchors.add(base if count == 0 else f"{base}{repeat}{count}")
        seen[base] = count + 1
    return anchors


def _github_anchors(path: Path) -> set[str]:
    return _anchors(path, github_slug, "-")


def _mkdocs_anchors(path: Path) -> set[str]:
    return _anchors(path, mkdocs_slug, "_")


def test_the_slug_rules_give_the_ids_each_renderer_gives() -> None:
    """Written by hand from GitHub's and Python-Markdown's rules before the code was run."""
    pytest.importorskip("markdown", reason="the docs extra: pip install '.[docs]'")
    expected = {
        "A model that plays well: bot": ("a-model-that-plays-well-bot",) * 2,
        "HM's baselines": ("hms-baselines",) * 2,
        "6.1 Add a game": ("61-add-a-game",) * 2,
        "HE + HR": ("he--hr", "he-hr"),
        "Each agent in gemma's own chat format, per role (issue 37)": (
            "each-agent-in-gemmas-own-chat-format-per-role-issue-37",
        )
        * 2,
    }
    assert {text: (github_slug(text), mkdocs_slug(text)) for text in expected} == expected


def _documents() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _site_files() -> dict[str, Path]:
    """Files the build adds to the site from outside docs/ (scripts/mkdocs_hooks.py)."""
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "scripts/mkdocs_hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return {f"{hooks.SITE_FOLDER}/{name}": hooks.ARTIFACTS / name for name in hooks.FIGURES}


def _broken_links(path: Path, site_files: dict[str, Path], text: str | None = None) -> list[str]:
    """Each link of ``path`` (or of ``text`` as if it stood at ``path``) that leads nowhere."""
    in_docs = path.is_relative_to(DOCS)
    anchors_of = _mkdocs_anchors if in_docs else _github_anchors
    broken = []
    for number, line in _prose_lines(path, text):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            where = f"{path.relative_to(ROOT)}:{number}: {target}"
            file_part, _, anchor = target.partition("#")
            if not file_part:
                resolved = path
            elif in_docs and file_part in site_files:
                resolved = site_files[file_part]
            else:
                resolved = (path.parent / file_part).resolve()
            if not resolved.exists():
                broken.append(f"{where} (no such file)")
            elif in_docs and not resolved.is_relative_to(DOCS) and file_part not in site_files:
                broken.append(f"{where} (outside docs/: the site cannot link it)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors_of(resolved):
                broken.append(f"{where} (no such heading)")
    return broken


def test_every_relative_link_of_the_readme_and_the_guide_resolves() -> None:
    pytest.importorskip("markdown", reason="the docs extra: pip install '.[docs]'")
    site_files = _site_files()
    documents = _documents()
    assert len(documents) >= 14
    linked = sum(
        len(LINK.findall(CODE_SPAN.sub("", line))) for line in README.read_text().splitlines()
    )
    assert linked >= 20  # the front page links into the guide
    assert [broken for path in documents for broken in _broken_links(path, site_files)] == []


def test_a_broken_link_or_anchor_is_found() -> None:
    """The checker itself finds a missing heading, a missing file, a link out of docs/."""
    pytest.importorskip("markdown", reason="the docs extra: pip install '.[docs]'")
    links = "[a](index.md#no-such-heading) [b](nowhere.md) [c](#coordqa) [d](../CHANGELOG.md)"
    page = f"# Title\n\n{links}\n"  # read as if it were index.md, whose title is coordqa
    found = _broken_links(DOCS / "index.md", _site_files(), text=page)
    reasons = [entry[entry.rindex(" (") + 1 :] for entry in found]
    assert reasons == [
        "(no such heading)",
        "(no such file)",
        "(outside docs/: the site cannot link it)",
    ]


def test_the_guide_builds_in_strict_mode(tmp_path: Path) -> None:
    """``mkdocs build --strict``: a broken link, anchor or nav entry is an error, not a warning."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install '.[docs]'")
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    pages = {path.relative_to(site).as_posix() for path in site.rglob("index.html")}
    assert {"index.html", "evaluating/index.html", "agentic/index.html"} <= pages
    assert (site / "assets" / "bot-noise.png").is_file()
