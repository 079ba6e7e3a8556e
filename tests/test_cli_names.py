"""The names a user types: unknown agents, partners and options get the suggestions meant."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import coordqa


def test_an_unknown_agent_is_named_an_agent_with_its_game_s_agents_first(tmp_path: Path) -> None:
    args = ("--model", "scripted", "--game", "collab_escape", "--self-play", "--episodes", "1")
    result = coordqa("agentic", "run", "--agent", "cak", *args, "--out", tmp_path / "x")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: unknown agent 'cak'. Did you mean 'cac'?"), line
    assert "player" not in line.split("Did you mean")[0]
    assert "hanabi-" not in line and "bc-" not in line and "capture-" not in line, line
    assert "escape-planner" in line  # any player of the game may be the agent: listed after


def test_options_of_an_unknown_agent_lists_the_players_that_take_options_only() -> None:
    """Served-rule walkthrough: ``agentic options cak`` listed every player of every game after
    its "Did you mean" (37 names, partners included), none of which but six take options.
    Expected: the players whose options the command shows (its own default list), agents
    first; not a partner without options, not an agent without options (llm)."""
    result = coordqa("agentic", "options", "cak")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        "error: unknown agent 'cak'. Did you mean 'cac'? Agents that take options: cac, hm, "
        "planreact, react, reflexion; other players that take options: greedy_human."
    ), line
    everything = coordqa("agentic", "options")
    shown = re.findall(r"^(\S+): ", everything.stdout, flags=re.MULTILINE)
    assert sorted(shown) == ["cac", "greedy_human", "hm", "planreact", "react", "reflexion"]


def test_an_unknown_partner_lists_only_that_game_s_partners(tmp_path: Path) -> None:
    args = ("--agent", "cac", "--model", "scripted", "--game", "collab_escape", "--episodes", "1")
    result = coordqa("agentic", "run", *args, "--partner", "escape-planer", "--out", tmp_path / "x")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "error: unknown partner 'escape-planer'. Did you mean 'escape-planner'"
    ), line
    listed = line.split("Partners for collab_escape: ")[1]
    assert listed.rstrip(".").split(", ") == ["escape-greedy", "escape-planner"], line


def test_a_grid_s_unknown_partner_names_its_file_offers_self_and_lists_it(tmp_path: Path) -> None:
    """Walkthrough 23 (h23i item 3): ``partners: [selff]`` said ``unknown partner 'selff'.
    Partners for collab_escape: escape-greedy, escape-planner.``: no suggestion, ``self`` (which
    a grid takes) not listed, and the file unnamed, unlike an unknown agent of the same file."""
    grid = tmp_path / "t1.yaml"
    grid.write_text(
        "agents: [cac]\nmodels: [scripted]\npartners: [selff]\n"
        "games:\n  - game: collab_escape\n    seeds: [0]\n"
    )
    result = coordqa("agentic", "grid", grid, "--out", tmp_path / "x")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        f"error: {grid}: unknown partner 'selff'. Did you mean 'self'? Partners for "
        "collab_escape: self, escape-greedy, escape-planner."
    ), line
    assert not (tmp_path / "x").exists()


def test_dataset_stats_and_validate_take_dataset_as_eval_does() -> None:
    """``--dataset NAME`` means the positional NAME; two different ones are refused."""
    positional = coordqa("dataset", "stats", "example")
    assert positional.returncode == 0, positional.stderr
    option = coordqa("dataset", "stats", "--dataset", "example")
    assert option.returncode == 0, option.stderr
    assert option.stdout == positional.stdout
    both = coordqa("dataset", "stats", "example", "--dataset", "example")
    assert both.returncode == 0 and both.stdout == positional.stdout
    differ = coordqa("dataset", "validate", "example", "--dataset", "coordinationqa-v1.1")
    assert differ.returncode == 2, differ.stderr
    (line,) = differ.stderr.strip().splitlines()
    assert "'example'" in line and "--dataset coordinationqa-v1.1" in line, line


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("eval", "--modle", "random"), ["--model"]),
        (("eval", "--trails", "2"), ["--trials"]),
        (("submit", "RUN", "--seed", "3"), []),  # not --insecure
        (("leaderboard", "serve", "--seed", "1"), []),  # not --db, --hosted
        (("report", "RUN", "--seed", "1"), []),  # not --sizes
        (("agentic", "run", "--no-use-tom"), ["--no-tom"]),  # a generated agent flag
    ],
)
def test_an_unknown_option_is_suggested_only_a_close_one(
    args: tuple[str, ...], meant: list[str]
) -> None:
    """Click's cutoff compares the names with their dashes, which every option shares; the
    one rule compares them without, in the one wording (``Did you mean '--trials'?``)."""
    result = coordqa(*args)
    assert result.returncode == 2
    unknown = next(arg for arg in args if arg.startswith("--"))
    assert f"No such option: {unknown}" in result.stderr
    suggested = re.findall(r"Did you mean ([^?]*)\?", result.stderr)
    offered = [name.strip("'") for line in suggested for name in line.split(", ")]
    assert offered == meant, result.stderr


def test_submit_endpoint_says_why_it_takes_no_seed() -> None:
    args = ("submit-endpoint", "random", "--to", "http://127.0.0.1:9", "--seed", "3")
    result = coordqa(*args)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: --seed: the board draws the seeds itself"), line
    assert "--insecure" not in line


def test_a_bare_model_name_is_told_its_provider_prefix(tmp_path: Path) -> None:
    """``gpt-4o`` is in litellm's model map as an openai model: the error says openai/gpt-4o."""
    result = coordqa("eval", "--model", "gpt-4o", "--limit", "1", "--out", tmp_path / "r")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "unknown model gpt-4o. Did you mean 'openai/gpt-4o'?" in line, line
    unknown = coordqa("eval", "--model", "no-such-model-x", "--limit", "1")
    assert "Did you mean" not in unknown.stderr and "provider prefix" in unknown.stderr


def test_the_provider_of_a_bare_name_is_read_without_importing_litellm() -> None:
    """litellm takes seconds to import; a refused name must not pay for it."""
    code = (
        "import sys; from coordqa.llm.litellm_provider import provider_prefix_of;"
        "print(provider_prefix_of('gpt-4o'), provider_prefix_of('nope'), 'litellm' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["openai", "None", "False"], done.stderr


def test_an_agentic_run_of_a_game_in_another_case_is_named_by_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ("--agent", "cac", "--model", "scripted", "--game", "Collab_Escape", "--self-play")
    result = coordqa("agentic", "run", *args, "--episodes", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (run,) = (tmp_path / "runs" / "agentic").iterdir()
    assert run.name.startswith("cac-scripted-collab_escape"), run.name


@pytest.mark.parametrize(
    ("option", "key"),
    [
        ("--temperature", "temperature"),
        ("--types", "types"),
        ("--games", "games"),
        ("--max-tokens", "max_tokens"),
        ("--top-p", "top_p"),
    ],
)
def test_an_eval_option_eval_set_reads_from_its_spec_names_the_spec_key(
    option: str, key: str
) -> None:
    """``coordqa eval-set ... --temperature 0.1`` said only "No such option: --temperature"
    (walkthrough 10, #235, #241): `eval` takes it, so the user is told the spec key to use."""
    result = coordqa("eval-set", "--model", "random", option, "1")
    assert result.returncode == 2
    text = " ".join(result.stderr.split())
    assert f"No such option: {option}; eval-set takes it as a spec key: `{key}:`" in text, text
    assert "docs/eval-sets.md" in text and "Did you mean" not in text


def test_an_eval_option_that_is_no_spec_key_is_refused_as_any_unknown_option() -> None:
    result = coordqa("eval-set", "--model", "random", "--label", "x")
    assert result.returncode == 2
    assert "No such option: --label" in result.stderr and "spec key" not in result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("results", "RUN", "--format", "cvs"), "--format 'cvs' is not one of md, csv, parquet"),
        (("eval", "-m", "random", "--transport", "drect"), "--transport 'drect' is not one of"),
        (("eval", "-m", "random", "--prompt-layout", "nosystem"), "--prompt-layout 'nosystem'"),
    ],
)
def test_a_choice_checked_by_hand_offers_the_close_one(args: tuple[str, ...], said: str) -> None:
    """``compare --only both_wrong`` listed the choices but not the one meant (walkthrough 10,
    #54); every choice an option checks by hand says it in the one wording, with the rule's
    suggestion (``coordqa.registry.not_one_of``)."""
    result = coordqa(*args)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    meant = {"cvs": "csv", "drect": "direct", "nosystem": "no-system"}[args[-1]]
    assert said in line and f". Did you mean {meant!r}" in line, line  # the closest first


@pytest.mark.parametrize(
    ("given", "spelled"),
    [
        ("Random", "random"),
        ("SCRIPTED", "scripted"),
        ("Bot", "bot"),
        ("Bot?noise=0.1", "bot?noise=0.1"),
        ("LlamaCpp/Models/X.gguf", "llamacpp/Models/X.gguf"),
        ("openai/GPT-4o", "openai/GPT-4o"),
        ("OpenAI/gpt-4o", "OpenAI/gpt-4o"),
        ("hosted_vllm/Qwen/Qwen2.5-7B", "hosted_vllm/Qwen/Qwen2.5-7B"),
        ("Random/x", "Random/x"),
    ],
)
def test_only_built_in_model_names_are_read_in_any_case(given: str, spelled: str) -> None:
    """The models coordqa serves are read in any case as games and agents are; a provider's
    model string (case-sensitive at the provider), and a family's path, are kept as given."""
    from coordqa.llm.registry import spelled_model

    assert spelled_model(given) == spelled


def test_a_built_in_model_in_another_case_is_the_same_run(tmp_path: Path) -> None:
    """Walkthrough 15: ``eval --model Random`` was refused ("Did you mean 'random'") while
    ``--agent CAC`` and ``--game Hanabi`` were read; now it is ``random``'s run, resumed."""
    args = ("--dataset", "example", "--trials", "1", "--limit", "2")
    first = coordqa("eval", "--model", "Random", *args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("random_"), run.name
    again = coordqa("eval", "--model", "random", *args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert [path.name for path in (tmp_path / "runs").iterdir()] == [run.name]
    assert '"model": "random"' in (run / "manifest.json").read_text()
    assert "all 2 samples already answered; nothing to ask" in again.stderr, again.stderr


def test_spec_grid_and_report_names_of_built_in_models_are_read_in_any_case(
    tmp_path: Path,
) -> None:
    """The same rule where a file or a report names a model: an eval set's ``models:``, a
    grid's ``models:`` (so both name one run), ``report --reference`` and ``--sizes``."""
    import coordqa
    from coordqa.agentic.grid import GridConfig
    from coordqa.analysis.report import compare_runs
    from coordqa.evalset.spec import EvalSetSpec

    spec = EvalSetSpec.model_validate({"models": ["Random", {"model": "Scripted"}]})
    assert [m.model for m in spec.models] == ["random", "scripted"]
    grid = GridConfig.model_validate(
        {
            "agents": ["cac"],
            "models": ["Scripted", {"name": "RANDOM"}],
            "games": [{"game": "collab_escape", "seeds": [0]}],
        }
    )
    assert grid.model_names() == ["scripted", "random"]
    assert coordqa.EvalConfig(model="Random").identity() == (
        coordqa.EvalConfig(model="random").identity()
    )
    runs = []
    for model in ("random", "scripted"):
        config = coordqa.EvalConfig(
            model=model, dataset="example", trials=1, limit=2, out=tmp_path / model
        )
        coordqa.evaluate(config)
        runs.append(tmp_path / model)
    report = compare_runs(runs, {"Random": 1e9, "scripted": 2e9}, reference="Random")
    assert list(report.models["size"]) == [1e9, 2e9]
    pairs = report.comparisons[["model_a", "model_b"]].drop_duplicates()
    assert pairs.values.tolist() == [["scripted", "random"]]


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("Example", "example"),
        ("CoordinationQA-v1.2", "coordinationqa-v1.2"),
        ("COORDINATIONQA", "coordinationqa-v1.2"),
        ("example", "example"),
    ],
)
def test_a_bundled_dataset_name_is_read_in_any_case(given: str, canonical: str) -> None:
    """Walkthrough 18 R8: ``--dataset Example`` got a did-you-mean while models, games, agents
    and question types are read in any case; the name stored is the release's own."""
    import coordqa
    from coordqa.dataset import dataset_name, dataset_path, is_bundled

    assert is_bundled(given)
    assert coordqa.EvalConfig(model="random", dataset=given).dataset == canonical
    assert dataset_name(given) == canonical
    assert dataset_path(given) == dataset_path(canonical)


def test_a_dataset_in_another_case_is_the_same_run_and_is_counted(tmp_path: Path) -> None:
    args = ("--model", "random", "--trials", "1", "--limit", "2")
    first = coordqa("eval", *args, "--dataset", "Example", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("random_example_"), run.name
    assert '"dataset": "example"' in (run / "manifest.json").read_text()
    again = coordqa("eval", *args, "--dataset", "example", cwd=tmp_path)
    assert again.returncode == 0 and "all 2 samples already answered" in again.stderr, again.stderr
    stats = coordqa("dataset", "stats", "CoordinationQA-v1.2")
    assert stats.returncode == 0, stats.stderr


def test_a_registered_grid_name_is_read_in_any_case() -> None:
    """Walkthrough 18 R8: ``agentic grid Smoke`` and ``submit --grid Smoke`` got a
    did-you-mean; the grid read is the registered one, under its own name."""
    from coordqa.agentic import get_grid, registered_grid
    from coordqa.agentic.grid_registry import grid_document

    assert get_grid("Smoke").name == "smoke"
    found = registered_grid("PAPER")  # what submit --grid looks a shipped grid up by
    assert found is not None and found.name == "paper"
    assert registered_grid("papr") is None
    assert grid_document("SMOKE")["name"] == "smoke"
    with pytest.raises(Exception, match="Did you mean 'smoke'"):
        get_grid("smok")
