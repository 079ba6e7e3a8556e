"""Every ``coordqa`` command and Python block README.md and the guide (docs/) show runs as written,
offline, or is marked as needing a key, a GPU or the internet and then still parses with the real
CLI (a Python block: compiles).

The convention and what the harness does: tests/doc_examples_support.py. A failure names
``page:line``, the command, why it failed and the tail of its output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_examples_support import (
    Token,
    documentation_pages,
    page_steps,
    run_page,
    shell_split,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize(
    "page", documentation_pages(ROOT), ids=lambda page: page.relative_to(ROOT).as_posix()
)
def test_every_command_the_page_shows_runs_as_shown(page: Path) -> None:
    report = run_page(page, ROOT)
    print(report.summary())
    if report.failures:
        pytest.fail(f"{report.summary()}\n\n{report.failure_text()}", pytrace=False)


def test_the_readme_shows_commands_the_harness_finds() -> None:
    """A change of fence or convention that hid the README's commands would pass every page."""
    steps = page_steps((ROOT / "README.md").read_text(encoding="utf-8"))
    commands = [step for step in steps if getattr(step, "text", "").startswith("coordqa ")]
    assert len(commands) >= 10


def test_the_python_api_pages_local_models_yaml_is_the_eval_sets_one() -> None:
    """Each page runs alone, so python-api.md shows the eval-sets page's file it reads."""
    shown = _files_shown("local-models.yaml", "eval-sets.md", "python-api.md")
    assert len(shown) == 2 and shown[0] == shown[1], shown


def _files_shown(file: str, *pages: str) -> list[str]:
    """The contents of ``file`` as each of the guide's ``pages`` shows it (a file block)."""
    from doc_examples_support import FileStep

    return [
        step.content
        for name in pages
        for step in page_steps((ROOT / "docs" / name).read_text(encoding="utf-8"))
        if isinstance(step, FileStep) and step.name == file
    ]


def _page(tmp_path: Path, markdown: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(markdown, encoding="utf-8")
    return page


GOOD_PAGE = """\
# A page

```yaml
# notes/hello.yaml
greeting: hi
```

```bash
pip install .
export RELEASES=releases.txt
coordqa dataset list > $RELEASES
coordqa eval --model openai/gpt-4o \\
    --trials 3 --types JP              # needs an API key (OPENAI_API_KEY)
coordqa dataset stats no-such-release  # exits 2: not a bundled release
```

```console
$ coordqa games list
overcooked ...
```
"""


def test_a_good_page_passes_and_each_step_does_what_its_marker_says(tmp_path: Path) -> None:
    work = tmp_path / "run"
    report = run_page(_page(tmp_path, GOOD_PAGE), tmp_path, folder=work)
    assert report.failure_text() == ""
    assert [(outcome.line, outcome.kind) for outcome in report.outcomes] == [
        (4, "file"),
        (9, "not coordqa"),
        (10, "export"),
        (11, "ran"),
        (12, "parsed"),
        (14, "ran"),
        (18, "ran"),
    ]
    assert (work / "work" / "notes" / "hello.yaml").read_text() == "greeting: hi\n"
    assert "coordinationqa-v1.2" in (work / "work" / "releases.txt").read_text()
    assert not (work / "work" / "runs").exists()  # the parse-only eval did not run
    assert "4 commands, 3 run, 1 parse-only, 0 failed, 1 not coordqa commands" in report.summary()


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("coordqa eval --model openai/gpt-4o --trails 3  # needs an API key", "--trails"),
        ("coordqa agentic runn --model openai/gpt-4o  # needs a GPU", "No such command 'runn'"),
        ("coordqa view  # needs the internet", "Missing argument"),
        ("coordqa submit runs/r --tokn T  # needs your board's token", "--tokn"),
        ("coordqa eval --model openai/gpt-4o --limit 1", "exit status 2, the page expects 0"),
        ("coordqa dataset list  # exits 2", "exit status 0, the page expects 2"),
        ("coordqa dataset list | head", "shell operator '|'"),
        ("coordqa eval --model $(cat model.txt)", "command substitution"),
    ],
)
def test_a_bad_example_fails_and_says_why(tmp_path: Path, command: str, why: str) -> None:
    report = run_page(_page(tmp_path, f"Text.\n\n```bash\n{command}\n```\n"), tmp_path)
    assert [outcome.line for outcome in report.failures] == [4]
    assert why in report.failure_text()
    assert report.failure_text().startswith(f"page.md:4: {command}")


def test_an_unmarked_key_needing_command_shows_why_it_failed(tmp_path: Path) -> None:
    page = "```bash\ncoordqa eval --model openai/gpt-4o --limit 1\n```\n"
    report = run_page(_page(tmp_path, page), tmp_path)
    assert "OPENAI_API_KEY" in report.failure_text()  # the tail of the command's stderr


PYTHON_PAGE = """\
```yaml
# numbers.txt
3
```

```python
from pathlib import Path

print(int(Path("numbers.txt").read_text()) * 2)  # a file the page wrote before
```

```python
# needs an API key (OPENAI_API_KEY)
import coordqa

coordqa.evaluate(coordqa.EvalConfig(model="openai/gpt-4o"))
```
"""


def test_python_blocks_run_in_the_pages_folder_and_marked_ones_only_compile(
    tmp_path: Path,
) -> None:
    report = run_page(_page(tmp_path, PYTHON_PAGE), tmp_path)
    assert report.failure_text() == ""
    assert [(outcome.line, outcome.kind) for outcome in report.outcomes] == [
        (2, "file"),
        (7, "ran"),
        (13, "parsed"),
    ]
    assert "6" in report.outcomes[1].output


@pytest.mark.parametrize(
    ("block", "why"),
    [
        ("x = 1\nraise SystemExit(f'no such model {x}')", "no such model 1"),
        ("import coordqa\n\ncoordqa.no_such_function()", 'File "<stdin>", line 6'),
        ("# needs a GPU\nprint(", "does not compile"),
    ],
)
def test_a_failing_python_block_fails_the_page_and_says_why(
    tmp_path: Path, block: str, why: str
) -> None:
    report = run_page(_page(tmp_path, f"Text.\n\n```python\n{block}\n```\n"), tmp_path)
    assert [outcome.line for outcome in report.failures] == [4]
    assert report.failure_text().startswith("page.md:4: python block")
    assert why in report.failure_text()


@pytest.mark.slow  # a board's start: 10-25 s under load
def test_the_stub_and_a_board_the_page_serves_answer_at_the_addresses_the_page_names(
    tmp_path: Path,
) -> None:
    """``127.0.0.1:8000`` is the OpenAI-compatible stub, in a command or a file; a board served on
    8080 is reached at ``127.0.0.1:8080`` (its refusal of an unknown token proves the request got
    there)."""
    page = """\
```yaml
# models.yaml
datasets: [example]
trials: 1
models:
  - model: openai/local-model
    api_base: http://127.0.0.1:8000/v1
```

```bash
coordqa eval-set models.yaml --out runs/set
coordqa eval --model openai/local-model --api-base http://127.0.0.1:8000/v1 --dataset example \\
    --trials 1 --out runs/stub
coordqa leaderboard serve --db sqlite:///board.db --port 8080
coordqa submit runs/stub --to http://127.0.0.1:8080 --token nobody --name stub  # exits 2
```
"""
    work = tmp_path / "run"
    report = run_page(_page(tmp_path, page), tmp_path, folder=work)
    assert report.failure_text() == ""
    assert [outcome.kind for outcome in report.outcomes] == ["file", "ran", "ran", "served", "ran"]
    assert "HTTP 401" in report.outcomes[-1].output
    assert "done openai/local-model on example" in report.outcomes[1].output
    assert (work / "work" / "runs" / "stub").is_dir()


@pytest.mark.slow  # a worker's start: 3-8 s
def test_a_worker_that_ends_at_once_fails_once(tmp_path: Path) -> None:
    page = "```bash\ncoordqa leaderboard worker --db postgresql://u@127.0.0.1:1/db\n```\n"
    report = run_page(_page(tmp_path, page), tmp_path)
    assert [outcome.kind for outcome in report.outcomes] == ["served"]
    assert "ended by itself with exit status 2" in report.failure_text()
    assert "cannot connect to the leaderboard database" in report.failure_text()


def test_a_command_past_its_time_limit_is_stopped_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import doc_examples_support

    monkeypatch.setattr(doc_examples_support, "COMMAND_LIMIT_S", 1.0)
    page = "```bash\ncoordqa play hanabi --episodes 1000 --seed 0 --out runs/long\n```\n"
    report = run_page(_page(tmp_path, page), tmp_path)
    assert "still running after 1 s (stopped)" in report.failure_text()
    assert report.outcomes[0].seconds < 30
    python = run_page(_page(tmp_path, "```python\nimport time\n\ntime.sleep(60)\n```\n"), tmp_path)
    assert "still running after 1 s (stopped)" in python.failure_text()
    assert python.outcomes[0].seconds < 30


def test_shell_words_are_read_as_a_shell_reads_them() -> None:
    tokens, comment = shell_split(
        """coordqa x 'a b' "c $HOME ${NAME}" d\\ e runs/* '*' # note # more""",
        {"HOME": "/h", "NAME": "n"},
    )
    assert [token.text for token in tokens] == [
        "coordqa",
        "x",
        "a b",
        "c /h n",
        "d e",
        "runs/*",
        "*",
    ]
    assert [token.pattern for token in tokens][-2:] == [True, False]
    assert comment == "note # more"
    assert shell_split("coordqa x > out.txt", {})[0][-2:] == [
        Token(">", operator=True),
        Token("out.txt"),
    ]
    assert shell_split("coordqa --to http://h/#frag", {})[0][-1].text == "http://h/#frag"


def test_the_guides_own_grid_plays_as_many_distinct_episodes_as_it_has_seeds(
    tmp_path: Path,
) -> None:
    """Walkthrough 12 #76, #79: the guide's ``my-grid.yaml`` (Collab Capture, seeds 0 and 1)
    played one episode twice per pairing ("captured 2/2 (1 distinct episode)"): that game is
    deterministic, so its seeds change nothing. The grid shown (the same on both pages that
    show it) plays a distinct episode for each seed."""
    from cli_support import coordqa

    from coordqa.agentic import load_agentic_run
    from coordqa.games.episode import played_hash

    shown = _files_shown("my-grid.yaml", "agentic.md", "leaderboard.md")
    assert len(shown) == 2 and shown[0] == shown[1], shown
    (tmp_path / "my-grid.yaml").write_text(shown[0])
    played = coordqa("agentic", "grid", tmp_path / "my-grid.yaml", "--out", tmp_path / "run")
    assert played.returncode == 0, played.stderr
    pairings: dict[str, set[str]] = {}
    episodes = load_agentic_run(tmp_path / "run", with_exchanges=False)
    for episode in episodes:
        hashes = pairings.setdefault(str(episode.spec.task.partner), set())
        hashes.add(played_hash(episode.trajectory, episode.spec.seed))
    seeds = {episode.spec.seed for episode in episodes}
    assert len(pairings) == 2 and all(len(h) == len(seeds) >= 2 for h in pairings.values()), (
        pairings
    )
