"""EvalConfig is the one home of a QA run's options: each field sorted, each default typed once."""

from __future__ import annotations

import inspect
from dataclasses import MISSING, fields
from pathlib import Path

from cli_support import coordqa

from coordqa.cli.qa import eval_command
from coordqa.eval_config import EvalConfig
from coordqa.evalset import EvalSetSpec


def _every_selection_used() -> EvalConfig:
    """A config whose optional parts (ids, sample, model_args) all appear in its identity.

    A field that ``identity()`` records only when set must be set here too, or the tests below
    cannot see it there.
    """
    return EvalConfig(model="random", ids=("q1",), sample=2, model_args={"reasoning_effort": "low"})


def test_every_field_is_in_identity_runtime_or_recorded_elsewhere() -> None:
    config = _every_selection_used()
    identity, runtime = set(config.identity()), set(config.runtime())
    elsewhere = set(EvalConfig.RECORDED_ELSEWHERE)
    assert identity.isdisjoint(runtime) and identity.isdisjoint(elsewhere)
    assert runtime.isdisjoint(elsewhere)
    unsorted = {f.name for f in fields(EvalConfig)} - identity - runtime - elsewhere
    assert unsorted == set(), (
        f"EvalConfig fields {sorted(unsorted)} are in neither identity(), runtime() nor "
        "RECORDED_ELSEWHERE of the config that _every_selection_used() builds: decide whether "
        "they change results; a field identity() records only when set must be set there too"
    )
    assert identity | runtime | elsewhere == {f.name for f in fields(EvalConfig)}


def test_identity_names_the_settings_that_change_results() -> None:
    """Labelled from the paper's protocol: what is asked, of which model, how it is sampled."""
    config = _every_selection_used()
    assert set(config.identity()) >= {"model", "dataset", "trials", "temperature", "top_p", "seed"}
    assert {"cache", "policy", "max_error_rate"} <= set(config.runtime())


def _plain_defaults() -> dict[str, object]:
    return {f.name: f.default for f in fields(EvalConfig) if f.default is not MISSING}


def test_the_eval_command_offers_the_config_defaults() -> None:
    """A default typed again in the command (trials, prompt layout...) drifts from the library's.

    ``--sample-seed`` defaults to None: it follows ``--seed``, and the config's 0 without; so
    does ``--transport``, one of the call options every command declares alike
    (:mod:`coordqa.cli._call_options`), where None is "not given" and the config's default
    applies.
    """
    parameters = inspect.signature(eval_command).parameters
    shared = _plain_defaults().keys() & parameters.keys() - {"sample_seed", "transport"}
    assert parameters["transport"].default is None
    assert {"trials", "temperature", "top_p", "prompt_layout", "max_error_rate"} <= shared
    for name in shared:
        offered = parameters[name].default
        if name == "prompt_layout":
            offered = offered.replace("-", "_")
        assert offered == _plain_defaults()[name], name


def test_eval_sets_offer_the_config_defaults() -> None:
    spec_fields = EvalSetSpec.model_fields
    shared = _plain_defaults().keys() & spec_fields.keys()
    assert {"trials", "sample_seed", "prompt_layout", "max_error_rate", "cache"} <= shared
    for name in shared - {"out"}:
        assert spec_fields[name].default == _plain_defaults()[name], name


def test_eval_sets_share_every_setting_that_changes_results_but_the_members_own() -> None:
    """A set resumes only with the same shared settings: one left out could silently differ."""
    config = _every_selection_used()
    spec_fields = EvalSetSpec.model_fields
    shared = {name: getattr(config, name) for name in config.identity() if name in spec_fields}
    spec = EvalSetSpec(models=("random",), **shared)
    member_own = set(EvalSetSpec.MEMBER_SETTINGS)
    assert member_own == {"model", "api_base", "model_args", "dataset"}
    assert set(spec.shared_identity()).isdisjoint(member_own)
    left_out = set(config.identity()) - set(spec.shared_identity()) - member_own
    assert left_out == set(), (
        f"EvalConfig.identity() fields {sorted(left_out)} are missing from "
        "EvalSetSpec.shared_identity() (coordqa/evalset/spec.py) and from its MEMBER_SETTINGS: "
        "add each to EvalSetSpec and shared_identity() (only when set), or say why a member "
        "holds it"
    )


def test_question_types_take_their_canonical_spelling_so_case_is_not_another_run() -> None:
    """Blind walkthrough: ``--types JP,TOM`` was accepted but made a run ``JP+TOM``, another
    identity than ``JP,ToM``'s; the spellings are those of the dataset (EC, ToM, JP)."""
    from coordqa.evaluation import run_name

    shouted = EvalConfig(model="random", types=("jp", "TOM"))
    canonical = EvalConfig(model="random", types=("ToM", "JP"))
    assert shouted.types == ("JP", "ToM")
    assert shouted.identity() == canonical.identity()
    assert canonical.identity()["types"] == ["JP", "ToM"]  # an existing run's identity, unchanged
    name = run_name(shouted, "example", "0123abcd")
    assert name == run_name(canonical, "example", "0123abcd") and "_JP+ToM_" in name
    assert EvalConfig(model="random", types=("XX",)).types == ("XX",)  # the filter names it


def test_game_names_take_their_registered_spelling_so_case_is_not_another_run() -> None:
    """Walkthrough 16 (#25, #52): ``--games Hanabi`` made a run ``..._Hanabi_...`` beside
    ``--games hanabi``'s, same questions, and refused to resume the other's folder."""
    from coordqa.evaluation import run_name

    shouted = EvalConfig(model="random", games=("Hanabi", "OVERCOOKED"))
    canonical = EvalConfig(model="random", games=("overcooked", "hanabi"))
    assert shouted.games == ("hanabi", "overcooked")
    assert shouted.identity() == canonical.identity()
    assert canonical.identity()["games"] == ["hanabi", "overcooked"]  # existing runs, unchanged
    name = run_name(shouted, "example", "0123abcd")
    assert name == run_name(canonical, "example", "0123abcd") and "_hanabi+overcooked_" in name
    assert EvalConfig(model="random", games=("nosuch",)).games == ("nosuch",)  # filter refuses


def test_eval_with_a_game_in_another_case_continues_the_same_run(tmp_path: Path) -> None:
    for spelling in ("Hanabi", "hanabi"):
        done = coordqa(
            "eval", "-m", "random", "--dataset", "example", "--games", spelling, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
    runs = [p.name for p in (tmp_path / "runs").iterdir()]
    assert len(runs) == 1 and "_hanabi_" in runs[0], runs


def test_eval_with_types_in_another_case_continues_the_same_run(tmp_path: Path) -> None:
    first = coordqa(
        "eval", "-m", "random", "--dataset", "example", "--types", "JP,TOM", cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    again = coordqa(
        "eval", "-m", "random", "--dataset", "example", "--types", "ToM,JP", cwd=tmp_path
    )
    assert again.returncode == 0, again.stderr
    runs = [p.name for p in (tmp_path / "runs").iterdir()]
    assert len(runs) == 1 and "_JP+ToM_" in runs[0], runs
