"""An eval set's unset key variable is named where it was given: the spec file's entry, or
``--api-key-env`` on the command line.

A spec model's ``api_key_env`` was refused as ``--api-key-env W9_UNSET_KEY: ...``, naming a
flag the user never typed (walkthrough 9); other spec problems say ``SPEC's models[i]...``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa

UNSET = {"W9_UNSET_KEY": None, "W9_OTHER_KEY": None, "OPENAI_API_KEY": None}
"""Key variables no test here sets."""


def _failure(stderr: str, model: str) -> str:
    """The ``failed: MODEL on example: ...`` line of ``stderr``, joined as one line."""
    said = " ".join(stderr.split())
    start = said.index(f"failed: {model} on example:")
    return said[start:]


def test_a_spec_models_unset_key_is_said_in_the_specs_words(tmp_path: Path) -> None:
    (tmp_path / "models.yaml").write_text(
        "models:\n  - {model: random}\n  - {model: openai/x, api_key_env: W9_UNSET_KEY}\n"
        "datasets: [example]\nlimit: 1\ntrials: 1\n"
    )
    done = coordqa("eval-set", "models.yaml", cwd=tmp_path, env=UNSET)
    assert done.returncode == 1, done.stderr
    said = _failure(done.stderr, "openai/x")
    expected = (
        "models.yaml's models[1].api_key_env: the environment variable W9_UNSET_KEY is not set"
    )
    assert expected in said, said
    assert "--api-key-env" not in said, said


def test_a_command_line_models_unset_key_names_the_flag_even_beside_a_spec(
    tmp_path: Path,
) -> None:
    (tmp_path / "models.yaml").write_text(
        "models:\n  - {model: openai/x, api_key_env: W9_UNSET_KEY}\n"
        "datasets: [example]\nlimit: 1\ntrials: 1\n"
    )
    args = ["--model", "openai/y", "--api-key-env", "W9_OTHER_KEY"]
    done = coordqa("eval-set", "models.yaml", *args, cwd=tmp_path, env=UNSET)
    assert done.returncode == 1, done.stderr
    assert "models.yaml's models[0].api_key_env: the environment variable W9_UNSET_KEY" in (
        _failure(done.stderr, "openai/x")
    )
    said = _failure(done.stderr, "openai/y")
    assert said.startswith(
        "failed: openai/y on example: --api-key-env W9_OTHER_KEY: the environment variable "
        "W9_OTHER_KEY is not set"
    ), said
    alone = coordqa("eval-set", *args, "--limit", "1", "--out", "set", cwd=tmp_path, env=UNSET)
    assert alone.returncode == 1 and "--api-key-env W9_OTHER_KEY: the environment" in alone.stderr


@pytest.mark.parametrize(
    ("entry", "key", "said"),
    [
        ("rpm: -1", "rpm", "rpm must be > 0, got -1"),
        ("timeout_s: 0", "timeout_s", "timeout_s must be > 0, got 0"),
        ("top_p: 2", "top_p", "top_p must be > 0 and <= 1, got 2"),
        # walkthrough 23 (h23i item 2): the run's own checks named no file
        ("trials: 0", "trials", "trials must be >= 1, got 0"),
        ("limit: 0", "limit", "limit must be >= 1 (leave it out for all questions), got 0"),
        ("sample: 0", "sample", "sample must be >= 1 (leave it out for no sample), got 0"),
        ("ids: []", "ids", "ids must name at least one question (leave it out for all)"),
        (
            "max_error_rate: 2",
            "max_error_rate",
            "max_error_rate must be a share between 0 and 1, got 2",
        ),
    ],
)
def test_a_spec_s_out_of_range_value_names_its_key(
    tmp_path: Path, entry: str, key: str, said: str
) -> None:
    """Walkthrough 18, O1: a spec's ``rpm: -1`` was told ``--rpm must be > 0`` (the library
    named flags), and with the library naming its parameters it would be
    ``requests_per_minute``: the spec's key is named, with the file, when the spec is read."""
    spec = tmp_path / "set.yaml"
    spec.write_text(f"models: [openai/x]\ndatasets: [example]\nlimit: 1\n{entry}\n")
    done = coordqa("eval-set", spec, "--out", tmp_path / "set")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line == f"error: {spec}'s {said}", line
    assert not (tmp_path / "set").exists()


def test_a_shared_value_given_as_an_option_names_the_option(tmp_path: Path) -> None:
    """Walkthrough 23 (h23i item 2): ``eval-set --trials 0`` said ``trials must be >= 1``."""
    spec = tmp_path / "set.yaml"
    spec.write_text("models: [random]\ndatasets: [example]\ntrials: 2\n")
    done = coordqa("eval-set", spec, "--trials", "0", "--out", tmp_path / "set")
    (line,) = done.stderr.strip().splitlines()
    assert line == "error: --trials must be >= 1, got 0", line


def test_a_member_s_own_limit_is_named_as_its_key(tmp_path: Path) -> None:
    spec = tmp_path / "set.yaml"
    spec.write_text("models: [{model: openai/x, rpm: -2}]\ndatasets: [example]\nlimit: 1\n")
    done = coordqa("eval-set", spec, "--out", tmp_path / "set")
    (line,) = done.stderr.strip().splitlines()
    assert line == f"error: {spec}'s models[0].rpm must be > 0, got -2", line
