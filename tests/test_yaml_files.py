"""A YAML file a user hands coordqa (an eval-set spec, a grid) is read within bounds.

The attacks: a 500-byte spec whose aliases name aliases (``&a1 [*a0, *a0, ...]``, the "billion
laughs") loads as a few shared lists, but every reader after the load (validation, the run's
identity, the manifest) walks it whole: ten levels of ten are 10**8 values. Before this rule
``coordqa eval-set`` of such a file ran past 60 s and 690 MB and was still growing. A file of
gigabytes (or a device such as /dev/zero given as the file) was read whole before any check.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.errors import ConfigError
from coordqa.yaml_files import MAX_YAML_BYTES, MAX_YAML_VALUES, load_yaml_file


def laughs(levels: int, indent: str) -> list[str]:
    """Lines of a mapping whose keys name lists of ten of the previous key's list."""
    lines = [f"{indent}a0: &a0 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"]
    for level in range(1, levels):
        lines.append(f"{indent}a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 10)}]")
    return lines


def test_an_eval_set_spec_whose_aliases_expand_without_end_is_refused_at_once(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "spec.yaml"
    lines = ["models:", "  - model: openai/m", "    api_base: http://127.0.0.1:9/v1"]
    spec.write_text("\n".join([*lines, "    model_args:", *laughs(8, "      ")]) + "\n")
    assert spec.stat().st_size < 1000
    started = time.monotonic()
    result = coordqa("eval-set", spec, "--out", tmp_path / "out")
    assert time.monotonic() - started < 20
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert f"more than {MAX_YAML_VALUES:,} values" in line and "alias" in line, line
    assert str(spec) in line
    assert not (tmp_path / "out").exists()


def test_a_grid_whose_aliases_expand_without_end_is_refused_at_once(tmp_path: Path) -> None:
    """A grid's fields are typed, so before this rule this one was refused in about 1 s by
    validation; the bound now holds for every field, typed or free, as for a spec."""
    grid = tmp_path / "grid.yaml"
    head = ["name: g", "agents: [cac]", "models: [scripted]", "games:", "  - game: collab_escape"]
    grid.write_text("\n".join([*head, "agent_options:", "  cac:", *laughs(8, "    ")]) + "\n")
    started = time.monotonic()
    result = coordqa("agentic", "grid", grid, "--out", tmp_path / "out")
    assert time.monotonic() - started < 20
    assert result.returncode == 2, result.stderr
    assert f"more than {MAX_YAML_VALUES:,} values" in result.stderr, result.stderr


def test_an_anchor_used_a_few_times_still_reads(tmp_path: Path) -> None:
    """Aliases are YAML's own way to say a thing once; only their runaway expansion is refused."""
    file = tmp_path / "ok.yaml"
    file.write_text("base: &b {temperature: 0.6}\nmodels: [{model: random, args: *b}, *b]\n")
    data = load_yaml_file(file, "the eval-set spec")
    assert data["models"][1] == {"temperature": 0.6}


def test_a_file_larger_than_the_bound_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * MAX_YAML_BYTES + "\nmodels: [random]\n")
    with pytest.raises(ConfigError, match=f"larger than {MAX_YAML_BYTES:,} bytes"):
        load_yaml_file(big, "the eval-set spec")


def test_a_device_given_as_the_file_is_read_only_up_to_the_bound() -> None:
    zero = Path("/dev/zero")
    if not zero.exists():
        pytest.skip("no /dev/zero here")
    started = time.monotonic()
    with pytest.raises(ConfigError, match="larger than"):
        load_yaml_file(zero, "grid file")
    assert time.monotonic() - started < 5


def test_text_that_is_not_utf8_is_said_plainly(tmp_path: Path) -> None:
    file = tmp_path / "latin1.yaml"
    file.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"grid file .*latin1\.yaml is not UTF-8 text"):
        load_yaml_file(file, "grid file")
