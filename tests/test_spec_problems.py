"""A typo in an eval-set spec or a grid file is said in the file's words, with a "Did you mean".

Blind walkthroughs: ``trial: 2`` was "trial: Extra inputs are not permitted", a grid's
``seed: [0]`` "games.0.seed: Extra inputs are not permitted", ``--backend dask`` "Input should
be 'local' or 'ray'" followed by every field of the spec.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cli_support import coordqa
from pydantic import ValidationError

from coordqa.agentic.grid import parse_grid
from coordqa.errors import ConfigError
from coordqa.evalset.spec import parse_spec

SET_FIELDS = "models, datasets, out, trials, temperature"
ENTRY_FIELDS = "model, api_base, api_key_env, model_args, rpm, tpm, concurrency"


def refusal(parse: object, data: dict[str, object], **where: str) -> str:
    with pytest.raises(ConfigError) as raised:
        parse(data, **where)  # type: ignore[operator]
    return str(raised.value)


def test_an_unknown_field_of_a_set_is_suggested_its_nearest_and_the_fields_listed() -> None:
    said = refusal(parse_spec, {"models": ["random"], "trial": 2}, source="bad.yaml")
    assert said.startswith("bad.yaml: unknown field 'trial'. Did you mean 'trials'"), said
    assert SET_FIELDS in said and "Extra inputs" not in said


def test_an_unknown_field_of_a_models_entry_lists_the_entrys_fields_only() -> None:
    data = {"models": ["random", {"modle": "scripted"}]}
    said = refusal(parse_spec, data, source="bad.yaml")
    assert "models[1]: unknown field 'modle'. Did you mean 'model'" in said
    assert f"fields: {ENTRY_FIELDS}." in said
    assert "models[1]: missing field 'model'" in said
    assert "datasets" not in said and "Field required" not in said


def test_a_value_outside_its_choices_names_the_choices_not_every_field() -> None:
    said = refusal(parse_spec, {"models": ["random"], "backend": "dask"}, source="the line")
    assert said == "the line: backend 'dask' is not one of local, ray", said


def test_a_grid_game_entry_typo_is_suggested_the_entrys_field() -> None:
    grid = {"agents": ["cac"], "models": ["scripted"], "games": [{"game": "hanabi", "seed": [0]}]}
    said = refusal(parse_grid, grid, where="g2.yaml")
    assert said.startswith("g2.yaml: games[0]: unknown field 'seed'. Did you mean 'seeds'?"), said
    assert "fields: game, layouts, seeds, episodes, horizon, agent_options." in said
    assert "invalid grid" not in said and "Extra inputs" not in said


def test_the_command_line_says_it_in_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(yaml.safe_dump({"models": [{"model": "random"}], "trial": 2, "limit": 3}))
    result = coordqa("eval-set", spec, "--out", tmp_path / "out")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {spec}: unknown field 'trial'. Did you mean 'trials'"), line
    dask = coordqa("eval-set", "--model", "random", "--backend", "dask", "--out", tmp_path / "d")
    assert dask.returncode == 2
    assert dask.stderr.strip() == "error: --backend 'dask' is not one of local, ray"


def test_a_choice_given_as_an_option_names_its_flag_and_a_files_names_the_file() -> None:
    """Walkthrough 17, R6: ``eval-set --backend rey`` said "the command line: backend 'rey'"
    where every other refused choice names its flag (``--only 'bothwrong' is not one of``)."""
    data = {"models": ["random"], "backend": "rey", "transport": "sdk"}
    said = refusal(parse_spec, data, source="set.yaml", options=["backend"])
    in_file, by_flag = said.split("; ")  # in the spec's field order
    assert by_flag == "--backend 'rey' is not one of local, ray. Did you mean 'ray'?", said
    assert in_file.startswith("set.yaml: transport 'sdk' is not one of auto, direct, litellm")


def test_a_grids_runtime_option_names_its_flag_and_the_files_choice_the_file() -> None:
    grid = {"agents": ["cac"], "models": ["scripted"], "games": [{"game": "hanabi"}]}
    data = {**grid, "runtime": {"backend": "rey"}}
    by_flag = refusal(parse_grid, data, where="g.yaml", options={"runtime.backend": "--backend"})
    assert by_flag == "--backend 'rey' is not one of local, ray. Did you mean 'ray'?", by_flag
    in_file = refusal(parse_grid, data, where="g.yaml")
    assert in_file.startswith("g.yaml: runtime.backend 'rey' is not one of local, ray"), in_file


@pytest.mark.parametrize(
    "command",
    [
        ("eval-set", "--model", "random", "--limit", "3"),
        ("agentic", "grid", "smoke"),
        ("agentic", "run", "--agent", "capture-greedy", "--game", "collab_capture"),
    ],
)
def test_every_backend_option_is_refused_by_its_flag(tmp_path: Path, command: tuple[str]) -> None:
    result = coordqa(*command, "--backend", "rey", "--out", tmp_path / "out")
    assert result.returncode == 2
    expected = "error: --backend 'rey' is not one of local, ray. Did you mean 'ray'?"
    assert result.stderr.strip() == expected, result.stderr


def test_a_grid_or_episode_built_in_python_is_refused_with_a_config_error_in_words() -> None:
    """Walkthrough 20 R3: ``GridConfig(agents=["cacc"], ...)`` raised pydantic's
    ``ValidationError`` (with a pydantic URL), so ``except ConfigError``, which the Python API
    page promises for bad settings, caught ``run_grid``'s ``generate.top_p`` and not these.
    Built in Python, each is a ``ConfigError`` in a grid file's words, named by its class;
    ``parse_grid`` still names the file (its own test above)."""
    from coordqa.agentic import EpisodeSpec, GridConfig

    escape = {"agents": ["cac"], "models": ["scripted"]}
    cases = [
        (GridConfig, {**escape, "agents": ["cacc"], "games": [{"game": "collab_escape"}]},
         "GridConfig: unknown agent 'cacc'. Did you mean 'cac'?"),
        (GridConfig, {**escape, "games": [{"game": "collab-escape"}]},
         "GridConfig: games[0].game: unknown game 'collab-escape'. Did you mean 'collab_escape'"),
        (GridConfig, {**escape, "games": [{"game": "collab_escape", "seeds": [0, 0]}]},
         "GridConfig: games[0].seeds: seed 0 is given twice"),
        (GridConfig, {**escape, "games": [{"game": "collab_escape", "seed": [0]}]},
         "GridConfig: games[0]: unknown field 'seed'. Did you mean 'seeds'?"),
        (GridConfig, {"agents": ["cac"]}, "GridConfig: missing field 'games'"),
        (EpisodeSpec, {"game": "collab_escape", "layout": "default", "seed": 0, "agent": "cac",
                       "position": 1}, "EpisodeSpec: position 1 given for self-play"),
        (EpisodeSpec, {"game": "collab_escape", "layout": "default", "seed": 0, "agent": "cac",
                       "partner": "escape-greedy", "position": 2},
         "EpisodeSpec: position: must be <= 1"),
        (EpisodeSpec, {"game": "collab_escape", "layout": "default", "seed": 0, "agnet": "cac"},
         "EpisodeSpec: missing field 'agent'; EpisodeSpec: unknown field 'agnet'. Did you mean "
         "'agent'"),
    ]  # fmt: skip
    for model, fields, expected in cases:
        with pytest.raises(ConfigError) as raised:
            model(**fields)
        said = str(raised.value)
        assert said.startswith(expected), said
        assert "pydantic" not in said and "Extra inputs" not in said, said
    # pydantic's own validation of a stored record keeps pydantic's error, for its readers
    with pytest.raises(ValidationError):
        EpisodeSpec.model_validate({"game": "collab_escape"})


def test_an_episode_built_in_python_refuses_an_unknown_game_agent_or_partner() -> None:
    """Walkthrough 26 R6: ``EpisodeSpec(game="collab_escape", agent="cacc", ...)`` and
    ``game="colab_escape"`` were built without complaint, and ``run_match`` then offered every
    game's players. Built in Python, a spec checks its names as a grid does, in its words."""
    from coordqa.agentic import EpisodeSpec

    escape = {"game": "collab_escape", "layout": "default", "seed": 0, "model": "scripted"}
    cases = [
        ({**escape, "agent": "cacc"},
         "EpisodeSpec: unknown agent 'cacc'. Did you mean 'cac'? Agents for collab_escape: cac, "),
        ({**escape, "agent": "cac", "partner": "escape-gredy"},
         "EpisodeSpec: unknown partner 'escape-gredy'. Did you mean 'escape-greedy'"),
        ({**escape, "game": "colab_escape", "agent": "cac"},
         "EpisodeSpec: game: unknown game 'colab_escape'. Did you mean 'collab_escape'"),
    ]  # fmt: skip
    for fields, expected in cases:
        with pytest.raises(ConfigError) as raised:
            EpisodeSpec(**fields)
        said = str(raised.value)
        assert said.startswith(expected), said
        if "unknown game" not in said:  # a player is offered among its game's names only
            assert "hanabi" not in said and "capture" not in said, said
    # a game is read in any case, as a grid's is
    assert EpisodeSpec(**{**escape, "game": "Collab_Escape", "agent": "cac"}).game == (
        "collab_escape"
    )


def test_an_episode_built_in_python_takes_self_play_and_says_the_layouts_to_give() -> None:
    """Walkthrough 29 R3: ``EpisodeSpec(..., partner="self")`` was refused as an unknown
    partner though a grid spells self-play so, and a missing layout was "missing field
    'layout'" with no word of the values (collab_escape has one, ``default``)."""
    from coordqa.agentic import EpisodeSpec

    escape = {"game": "collab_escape", "seed": 0, "agent": "cac", "model": "scripted"}
    spec = EpisodeSpec(**escape, layout="default", partner="self")
    assert spec.partner is None and spec.self_play
    assert spec == EpisodeSpec(**escape, layout="default")
    with pytest.raises(ConfigError) as raised:
        EpisodeSpec(**escape)
    said = str(raised.value)
    assert said.startswith("EpisodeSpec: ") and "layout" in said
    assert "collab_escape's layouts: default" in said, said


def test_a_stored_episode_naming_a_player_unknown_here_still_loads(tmp_path: Path) -> None:
    """A stored record (a submission whose agent is the submitter's plugin) is read as stored:
    the names a spec is checked for when built are not this installation's to refuse there."""
    from coordqa.agentic import EpisodeSpec, run_match
    from coordqa.agentic.episodes import AgenticEpisode

    spec = EpisodeSpec(game="collab_escape", layout="default", seed=0, agent="escape-greedy")
    record = run_match(spec).to_record()
    stored = {**record["spec"], "agent": "my-plugin-agent", "partner": "my-plugin-partner"}
    renamed = {"agent": "my-plugin-agent", "partner": "my-plugin-partner"}
    key = EpisodeSpec.model_validate(record["spec"]).model_copy(update=renamed).key
    loaded = AgenticEpisode.from_record({**record, "spec": stored, "key": key})
    assert (loaded.spec.agent, loaded.spec.partner) == ("my-plugin-agent", "my-plugin-partner")


def test_a_set_s_filters_take_what_eval_s_options_take(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 23 (h23i item 1): ``ids: ids.txt`` (the file ``coordqa eval --ids`` takes),
    ``ids: 'a,b'`` and ``types: JP`` were "ids: Input should be a valid tuple"; a spec key
    takes what its option takes, and the set records the same settings as for a list."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ids.txt").write_text("hanabi-27-EC  # a comment\nhanabi-27-ToM\n")
    listed = {"ids": ["hanabi-27-EC", "hanabi-27-ToM"], "types": ["JP"], "games": ["hanabi"]}
    as_lists = parse_spec({"models": ["random"], **listed})
    for ids in ("ids.txt", "hanabi-27-EC,hanabi-27-ToM", "hanabi-27-EC, hanabi-27-ToM"):
        spec = parse_spec({"models": ["random"], "ids": ids, "types": "JP", "games": "Hanabi"})
        assert (spec.ids, spec.types, spec.games) == (as_lists.ids, as_lists.types, ("hanabi",))
        assert spec.shared_identity() == as_lists.shared_identity()
    both = parse_spec({"models": ["random"], "types": "EC,ToM"})
    assert both.types == ("EC", "ToM")


def test_a_set_s_missing_ids_file_is_said_as_the_spec_s_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    said = refusal(parse_spec, {"models": ["random"], "ids": "chosen.txt"}, source="models.yaml")
    assert said.startswith("models.yaml's ids file chosen.txt does not exist"), said
    assert said.endswith(
        "models.yaml's ids takes question ids as a comma list (id1,id2) or a file of one id "
        "per line"
    ), said


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("ids", 3, "ids: must be a list, e.g. ids: [hanabi-27-EC, hanabi-27-ToM]"),
        ("types", {"JP": 1}, "types: must be a list, e.g. types: [EC, ToM]"),
        ("games", 2, "games: must be a list, e.g. games: [hanabi, overcooked]"),
        ("datasets", 2, "datasets: must be a list, e.g. datasets: [coordinationqa-v1.2, example]"),
        ("models", 2, "models: must be a list, e.g. models: [random, openai/gpt-4o]"),
    ],
)
def test_a_set_s_key_that_is_no_list_says_what_it_takes(key: str, value: object, said: str) -> None:
    data = {"models": ["random"], key: value}
    assert refusal(parse_spec, data, source="models.yaml") == f"models.yaml: {said}"


@pytest.mark.parametrize(
    ("given", "seat"), [("[both]", "both"), ("[0, 1]", "both"), ("[1]", 1), ("both", "both")]
)
def test_a_grids_positions_may_be_written_as_a_list_of_its_seats(given: str, seat: object) -> None:
    """Walkthrough 27 (#265): ``positions: [both]`` (the key reads as a list) was refused as
    ``positions "['both']" is not one of 0, 1, both. Did you mean 'both'?``. A list of one seat
    is that seat, and both seats listed are ``both``."""
    from coordqa.agentic import GridConfig

    grid = GridConfig.model_validate(
        yaml.safe_load(
            "agents: [cac]\nmodels: [scripted]\npartners: [escape-greedy]\n"
            f"games: [{{game: collab_escape, seeds: [0]}}]\npositions: {given}\n"
        )
    )
    assert grid.positions == seat


def test_a_grids_positions_listing_seats_that_are_not_one_or_both_is_refused() -> None:
    from coordqa.agentic import GridConfig
    from coordqa.errors import ConfigError

    with pytest.raises((ConfigError, ValueError), match="one seat: 0, 1 or both"):
        GridConfig.model_validate(
            yaml.safe_load(
                "agents: [cac]\nmodels: [scripted]\npartners: [escape-greedy]\n"
                "games: [{game: collab_escape, seeds: [0]}]\npositions: [0, 0, 2]\n"
            )
        )
