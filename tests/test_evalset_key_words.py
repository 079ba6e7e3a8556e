"""An eval set's unset key variable is named where it was given: the spec file's entry, or
``--api-key-env`` on the command line.

A spec model's ``api_key_env`` was refused as ``--api-key-env W9_UNSET_KEY: ...``, naming a
flag the user never typed (walkthrough 9); other spec problems say ``SPEC's models[i]...``.
"""

from __future__ import annotations

from pathlib import Path

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
