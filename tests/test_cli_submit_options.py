"""``coordqa submit`` and ``submit-endpoint``: what they say of the model is checked as the
command line is parsed, one ``error:`` line and exit 2, before any run is read or request sent.

From the fourth blind walkthrough (issue 38).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.cli.runs import parameter_count, parse_sizes
from coordqa.errors import ConfigError


def one_error_line(*args: str | Path) -> str:
    """The single stderr line of a command refused with exit 2."""
    done = coordqa(*args)
    assert done.returncode == 2, (done.returncode, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize("command", ["submit", "submit-endpoint"])
@pytest.mark.parametrize("value", ["lots", "1.2.3", "."])
def test_params_that_is_no_count_is_named_as_params(
    command: str, value: str, tmp_path: Path
) -> None:
    """#276: ``submit --params lots`` said "--sizes entry 'm=lots' is not MODEL=SIZE"."""
    target = ["nowhere", "--out", tmp_path / "b.json"] if command == "submit" else ["random"]
    to = [] if command == "submit" else ["--to", "http://127.0.0.1:9", "--token", "t"]
    line = one_error_line(command, *target, *to, "--params", value)
    assert line == (
        f"error: --params {value!r} is not a parameter count; write e.g. --params 7B or 7e9 "
        "(suffixes K, M, B, T allowed)"
    ), line


def test_a_count_is_read_alike_by_params_and_sizes() -> None:
    assert parameter_count("7B") == 7e9 and parameter_count(" 350m ") == 350e6
    assert parameter_count("1.5e3K") == 1.5e6
    assert parse_sizes("a=7e9,b/c=70B,d=1.5t") == {"a": 7e9, "b/c": 70e9, "d": 1.5e12}
    with pytest.raises(ConfigError, match=r"^--sizes entry 'llama=1\.2\.3' is not MODEL=SIZE"):
        parse_sizes("llama=1.2.3")
