"""An option that takes one value, given twice, is refused: click would keep the last one silently.

The fifth newcomer walkthrough ran ``eval --model random --model scripted`` and got scripted
alone, with no word that random was dropped. List options add their repeats up
(:mod:`coordqa.cli._lists`); every other value-taking option of every command refuses a repeat.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from cli_support import command_at, command_paths, coordqa, parse_command

from coordqa.errors import ConfigError


def one_value_options() -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command's options that store one value (not a list, a flag or a count)."""
    for path in command_paths():
        command = command_at(path)
        for param in command.params:
            takes_one = not (param.multiple or getattr(param, "is_flag", False))
            if param.param_type_name == "option" and takes_one and not param.count:
                yield path, param


OPTIONS = list(one_value_options())


def test_the_walk_finds_the_options_of_the_walkthrough() -> None:
    found = {(" ".join(path), max(param.opts, key=len)) for path, param in OPTIONS}
    assert {
        ("eval", "--model"),
        ("eval", "--limit"),
        ("agentic run", "--agent"),
        ("agentic run", "--game"),
    } <= found


@pytest.mark.parametrize(
    ("path", "option"),
    OPTIONS,
    ids=[f"{' '.join(path)} {max(param.opts, key=len)}" for path, param in OPTIONS],
)
def test_every_one_value_option_refuses_a_repeat(path: tuple[str, ...], option: Any) -> None:
    flag = option.opts[0]
    values = [["1"] * option.nargs, ["2"] * option.nargs]
    with pytest.raises(ConfigError, match=" given twice"):
        parse_command(*path, flag, *values[0], option.opts[-1], *values[1])


def test_a_repeated_model_is_one_line_naming_both_and_eval_set() -> None:
    result = coordqa("eval", "--model", "random", "--model", "scripted", "--limit", "1")
    assert result.returncode == 2
    assert result.stderr == (
        "error: --model given twice (random, scripted): give it once; "
        "to evaluate several models use coordqa eval-set\n"
    )
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ("agentic", "run", "--agent", "cac", "--agent", "hm"),
        ("agentic", "run", "--game", "collab_escape", "--game", "hanabi"),
        ("eval", "--limit", "5", "--limit", "3"),
    ],
)
def test_the_walkthrough_repeats_are_refused(args: tuple[str, ...]) -> None:
    result = coordqa(*args)
    assert result.returncode == 2
    flag, first, second = args[-4], args[-3], args[-1]
    assert result.stderr == f"error: {flag} given twice ({first}, {second}): give it once\n"


def test_a_repeated_database_url_does_not_show_its_password() -> None:
    url = "postgresql://board:hunter22@db.example/board"
    result = coordqa("leaderboard", "token", "list", "--db", url, "--db", "sqlite:///b.db")
    assert result.returncode == 2
    assert "hunter22" not in result.stderr
    assert "(postgresql://board:[redacted]@" in result.stderr


def test_a_repeated_token_is_refused_without_its_values() -> None:
    result = coordqa("submit", "--token", "tok-one-secret", "--token", "tok-two-secret", "x.json")
    assert result.returncode == 2
    assert result.stderr == "error: --token given twice: give it once\n"


def test_list_options_and_flags_may_still_be_repeated() -> None:
    path, params = parse_command(
        "eval", "--model", "random", "--games", "hanabi", "--games", "collab_escape", "-q", "-q"
    )
    assert path == ("eval",)
    assert params["model"] == "random"
    assert params["games"] == ["hanabi", "collab_escape"]
