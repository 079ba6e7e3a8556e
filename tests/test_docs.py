"""The documents stay true: what they name exists, the rules the code cites are there, and the
guide's pages (docs/) state what the code does."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
STYLE = ROOT / "docs" / "STYLE.md"
EVALUATING = ROOT / "docs" / "evaluating.md"
"""The guide's page on `coordqa eval`: its models, its headline."""
AGENTIC = ROOT / "docs" / "agentic.md"
CODE_FOLDERS = ("coordqa", "agentic", "scenarios", "leaderboard", "tests", "benchmarks", "scripts")
REPO_PATH = re.compile(
    r"`((?:coordqa|agentic|scenarios|leaderboard|tests|benchmarks|scripts|docs)/[^`\s]*)`"
)
DOTTED = re.compile(r"`(coordqa(?:\.\w+)+)`")
CITATION = re.compile(r"style rule (\d+)", re.IGNORECASE)
ENTRY_POINT_GROUPS = {
    "coordqa.games",
    "coordqa.players",
    "coordqa.models",
    "coordqa.scenario_builders",
    "coordqa.agent_roles",
}
"""Dotted names that are entry-point groups (``coordqa.games`` is also a package)."""


def _style_rules() -> set[int]:
    """The numbers of STYLE.md's rules (its first numbered list, before 'What NOT to copy')."""
    rules = STYLE.read_text(encoding="utf-8").split("## What NOT to copy")[0]
    return {int(number) for number in re.findall(r"^(\d+)\. \*\*", rules, re.MULTILINE)}


def test_style_rules_are_numbered_one_to_n() -> None:
    rules = _style_rules()
    assert rules == set(range(1, len(rules) + 1)) and len(rules) >= 15


def test_every_cited_style_rule_exists() -> None:
    rules = _style_rules()
    files = [path for folder in CODE_FOLDERS for path in (ROOT / folder).rglob("*.py")]
    files += [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    cited = {
        (path.relative_to(ROOT).as_posix(), int(number))
        for path in files
        for number in CITATION.findall(path.read_text(encoding="utf-8"))
    }
    assert len(cited) >= 3  # paths.py (6), test_games_conformance.py (10), episodes.py (11)
    assert {(where, number) for where, number in cited if number not in rules} == set()


def test_every_path_in_the_architecture_exists() -> None:
    """Placeholders (``<game>``) and the recipes' own new files (``mygame/``) are left out."""
    named = {path.rstrip("/") for path in REPO_PATH.findall(ARCHITECTURE.read_text("utf-8"))}
    concrete = {path for path in named if "<" not in path and "*" not in path}
    assert len(concrete) >= 60
    assert sorted(path for path in concrete if not (ROOT / path).exists()) == []


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        try:
            for name in parts[cut:]:
                target = getattr(target, name)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.parametrize("document", [ARCHITECTURE, STYLE], ids=lambda path: path.name)
def test_every_dotted_name_in_the_developer_documents_resolves(document: Path) -> None:
    names = set(DOTTED.findall(document.read_text(encoding="utf-8"))) - ENTRY_POINT_GROUPS
    assert sorted(name for name in names if not _resolves(name)) == []


def test_the_agent_versions_the_guide_names_are_the_current_ones() -> None:
    """docs/agentic.md lists each agent's version; a bumped agent must not leave the old one."""
    from coordqa.agentic.agents import LLMAgent

    agents = {cls.name: cls.version for cls in _subclasses(LLMAgent) if "version" in vars(cls)}
    assert {"cac", "hm", "llm"} <= agents.keys()
    pattern = re.compile(rf"`(({'|'.join(agents)})-v\d+)`")
    named = pattern.findall(AGENTIC.read_text(encoding="utf-8"))
    assert len(named) >= 3
    assert [version for version, agent in named if agents[agent] != version] == []


def test_every_registered_model_is_named_in_the_registry_and_the_guide() -> None:
    """A model name a user can pass to ``--model`` is found where they look for one."""
    from coordqa.llm import registry

    names = registry.PROVIDERS.names()
    assert {"random", "scripted", "llamacpp/", "bot"} <= set(names)
    guide = EVALUATING.read_text(encoding="utf-8") + AGENTIC.read_text(encoding="utf-8")
    docstring = registry.__doc__ or ""
    assert [name for name in names if f"``{name}" not in docstring] == []
    assert [
        name for name in names if f"--model {name}" not in guide and f"`{name}" not in guide
    ] == []


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_the_headline_is_what_the_default_run_prints(tmp_path: Path) -> None:
    """The headline example of the guide and README is `coordqa eval --model random` on the
    default release (it showed v1.1's numbers after v1.2 became the default); --trials 1 too."""
    from cli_support import coordqa

    guide = EVALUATING.read_text(encoding="utf-8")
    block = guide.split("first prints the headline:\n\n```\n", 1)[1].split("```", 1)[0]
    front = (ROOT / "README.md").read_text(encoding="utf-8")
    assert front.split("prints the headline", 1)[1].split("```text\n", 1)[1].startswith(block)
    env = {"COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    run = coordqa("eval", "--model", "random", "--out", tmp_path / "three", env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(block)
    one = coordqa("eval", "--model", "random", "--trials", "1", "--out", tmp_path / "one", env=env)
    first = one.stdout.splitlines()[0].removeprefix("random: ")
    command = "coordqa eval --model random --trials 1 --out runs/random-1-trial"
    assert f"with `{command}` the first line reads `{first}`" in " ".join(guide.split())


DATASET = ROOT / "docs" / "dataset.md"
LOOKUP_CLAIM = re.compile(
    r"occurs in the state \((\d+) of 66 in v1\.2, (\d+) in v1\.1, (\d+) in v1;.*?"
    r"singles out the answer \((\d+); (\d+) in v1\.1, (\d+) in v1\).*?"
    r"printed in the state \((\d+); (\d+) in v1\.1, (\d+) in v1\b",
    re.DOTALL,
)
"""docs/dataset.md's sentence on how many EC answers are lookups, per measure and release."""


def test_the_lookup_counts_the_dataset_page_gives_are_what_dataset_stats_counts() -> None:
    """The page said the kind's answer is printed in 11 (v1.1) and 25 (v1) EC questions while
    `coordqa dataset stats` counted 18 and 32 (walkthrough 10, #248-#249): each number the
    sentence gives is the `all` row of the tool's table for that release."""
    from coordqa.dataset import load_rows
    from scenarios.stats import LOOKUP_MEASURES, ec_verbatim

    claim = LOOKUP_CLAIM.search(" ".join(DATASET.read_text(encoding="utf-8").split()))
    assert claim is not None, "the lookup sentence of docs/dataset.md changed its shape"
    said = [int(n) for n in claim.groups()]
    releases = ("coordinationqa-v1.2", "coordinationqa-v1.1", "coordinationqa-v1")
    totals = {name: ec_verbatim(load_rows(name)).loc[("all", "")] for name in releases}
    counted = [int(totals[name][measure]) for measure in LOOKUP_MEASURES for name in releases]
    assert said == counted


@pytest.mark.parametrize("release", ["coordinationqa-v1.1", "coordinationqa-v1.2"])
def test_a_release_card_s_lookup_table_is_what_dataset_stats_counts(release: str) -> None:
    """The card of each release carries its lookup table as it was built; the tool counting the
    same rows today gives the same table (it counted v1.1's certain_play as printed, #249)."""
    from coordqa.dataset import bundled_dataset_dir, load_rows
    from scenarios.stats import verbatim_table

    card = (bundled_dataset_dir(release) / "README.md").read_text(encoding="utf-8")
    assert verbatim_table(load_rows(release)) in card


OUTCOMES = {"answered", "ambiguous", "no_answer"}
"""The outcome words the guide says a reply reads as (``Sample.status``'s readable ones)."""


def test_the_replies_the_guide_quotes_for_letters_off_the_list_read_as_it_says() -> None:
    """Walkthrough 18 R4: the guide said a letter not on the option list reads ``ambiguous``;
    ``Answer: C`` and ``I think (A)(B)(C)`` read ``no_answer``. Each clause (``;``) of the
    sentence on letters not on the list names one outcome and the replies that read it, for a
    question of two options; every reply it quotes is read here as QA scoring reads it."""
    from coordqa.scoring import reply_outcome

    text = " ".join(EVALUATING.read_text(encoding="utf-8").split())
    (sentence,) = re.findall(r"[^.;]*[^.]*not on the list[^.]*\.", text)
    quoted = 0
    for clause in sentence.split(";"):
        named = re.findall(r"`([^`]+)`", clause)
        said = [word for word in named if word in OUTCOMES]
        replies = [word for word in named if word not in OUTCOMES]
        if not replies:
            continue
        assert len(said) == 1, f"one outcome per clause with replies: {clause!r}"
        for reply in replies:
            read = reply_outcome(reply, ["Alice moves to room 1", "Alice stays"], [0])
            assert (reply, read.status) == (reply, said[0]), clause
            assert not read.correct  # neither scores
            quoted += 1
    assert quoted >= 3, sentence


def test_the_dataset_page_says_dataset_generate_needs_its_seed() -> None:
    """Walkthrough 23 (h23k item 4): `dataset generate ... --out cc/` without `--seed` said
    'Missing option --seed', and docs/dataset.md never said it is required (every example passed
    it). Expected: the page says so, while the command requires it."""
    import typer.main

    from coordqa.cli.dataset import dataset_app

    group = typer.main.get_command(dataset_app)
    generate = group.commands["generate"]  # type: ignore[attr-defined]
    seed = next(param for param in generate.params if param.name == "seed")
    assert seed.required
    page = (ROOT / "docs" / "dataset.md").read_text(encoding="utf-8")
    assert "`--seed` is required" in " ".join(page.split())
