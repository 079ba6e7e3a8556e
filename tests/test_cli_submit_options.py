"""``coordqa submit`` and ``submit-endpoint``: what they say of the model is checked as the
command line is parsed, one ``error:`` line and exit 2, before any run is read or request sent.

From the fourth blind walkthrough (issue 38).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from cli_support import closed_port, coordqa

from coordqa.cli.runs import parameter_count, parse_sizes
from coordqa.errors import ConfigError


def one_error_line(*args: str | Path) -> str:
    """The single stderr line of a command refused with exit 2."""
    done = coordqa(*args)
    assert done.returncode == 2, (done.returncode, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize("command", ["submit", "submit-endpoint"])
@pytest.mark.parametrize("value", ["lots", "1.2.3", ".", "0", "0.0B"])
def test_params_that_is_no_count_is_named_as_params(
    command: str, value: str, tmp_path: Path
) -> None:
    """#276: ``submit --params lots`` said "--sizes entry 'm=lots' is not MODEL=SIZE"; and
    walk13 R7: ``--params 0`` got other words, the bundle validator's "Input should be greater
    than 0". A count is positive, and every count refused is refused in the same words."""
    target = ["nowhere", "--out", tmp_path / "b.json"] if command == "submit" else ["random"]
    to = [] if command == "submit" else ["--to", "http://127.0.0.1:9", "--token", "t"]
    line = one_error_line(command, *target, *to, "--params", value)
    assert line == (
        f"error: --params {value!r} is not a parameter count; write e.g. --params 7B or 7e9 "
        "(a positive number; suffixes K, M, B, T allowed)"
    ), line


def test_a_count_is_read_alike_by_params_and_sizes() -> None:
    assert parameter_count("7B") == 7e9 and parameter_count(" 350m ") == 350e6
    assert parameter_count("1.5e3K") == 1.5e6
    assert parse_sizes("a=7e9,b/c=70B,d=1.5t") == {"a": 7e9, "b/c": 70e9, "d": 1.5e12}
    for entry in ("llama=1.2.3", "llama=0"):
        with pytest.raises(ConfigError, match=rf"^--sizes entry '{entry}' is not MODEL=SIZE"):
            parse_sizes(entry)


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--link", "ftp://x", "is not an http(s) address: write e.g. https://"),
        ("--org", "  ", "model.organisation is empty or only whitespace"),
        ("--name", "n" * 201, "at most 200 characters"),
        ("--provider", "a\u200bb", "control or invisible characters (U+200B)"),
    ],
)
def test_every_model_detail_of_submit_is_checked_before_the_run_is_read(
    option: str, value: str, said: str, tmp_path: Path
) -> None:
    """#279: ``submit RUN --link ftp://x`` read the run and ended in a pydantic traceback
    (exit 1). Each detail is checked by the bundle's own rule as the command line is parsed:
    the run named here does not exist, and it is the detail that is refused."""
    line = one_error_line(
        "submit", tmp_path / "nowhere", "--out", tmp_path / "b.json", option, value
    )
    assert line.startswith(f"error: {option} {value!r}: "), line
    assert said in line, line


def test_submit_endpoint_checks_its_model_details_before_sending() -> None:
    line = one_error_line(
        "submit-endpoint", "random", "--to", "http://127.0.0.1:9", "--token", "t",
        "--link", "ftp://x", "--name", " ",
    )  # fmt: skip
    assert line.startswith("error: --name ' ': "), line
    assert "; --link 'ftp://x': " in line, line


def test_a_run_of_agentic_run_is_refused_at_bundle_time(tmp_path: Path) -> None:
    """Walkthrough 5 #386/#389: ``submit runs/cac-escape --out x.json`` wrote a bundle of an
    ``agentic run`` run, which no board ranks (it plays no registered grid); only the board
    said so, after the upload. The bundle builder says it first, and writes nothing."""
    run = tmp_path / "cac-escape"
    played = coordqa(
        "agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_escape",
        "--self-play", "--seeds", "0", "--out", run,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    line = one_error_line("submit", run, "--out", tmp_path / "x.json")
    assert "was played by agentic run, on no registered grid" in line, line
    assert "coordqa agentic grid smoke" in line, line
    assert not (tmp_path / "x.json").exists()


@pytest.fixture(scope="module")
def hm_hanabi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-episode ``agentic run`` run (HM, scripted model, Hanabi seed 0), as README shows."""
    run = tmp_path_factory.mktemp("hm") / "hm-hanabi"
    played = coordqa(
        "agentic", "run", "--agent", "hm", "--model", "scripted", "--game", "hanabi",
        "--seeds", "0", "--out", run,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    return run


def test_a_run_that_does_not_cover_its_grid_is_refused_before_writing(
    hm_hanabi: Path, tmp_path: Path
) -> None:
    """Walkthrough 9: ``submit runs/hm-hanabi --grid smoke --out hm.json`` wrote the bundle
    (exit 0); only the board said, after the upload, that none of smoke's 13 tasks is played.
    submit says so first, in the board's words, with the command that plays the grid."""
    from coordqa.agentic import get_grid

    tasks = len(get_grid("smoke").tasks())
    line = one_error_line("submit", hm_hanabi, "--grid", "smoke", "--out", tmp_path / "hm.json")
    assert line.startswith(
        f"error: grid 'smoke' version 1: {tasks} of its {tasks} tasks are not played ("
    ), line
    assert "1 episode plays tasks it does not hold (hanabi/default/self/s0#" in line, line
    assert line.endswith(
        "play the whole grid and submit that run: "
        "`coordqa agentic grid smoke --agent hm --model scripted --out DIR`"
    ), line
    assert not (tmp_path / "hm.json").exists()


def test_a_run_short_of_its_own_grid_is_told_to_finish_in_its_folder(tmp_path: Path) -> None:
    """Walkthrough 23 #108: ``submit runs/paper-cac --grid paper`` of an interrupted run was told
    to play the whole grid into a new folder (every episode again), not to finish the run it
    has; the command given plays the missing tasks into the run's own folder, and then the run
    is saved."""
    grid_file = tmp_path / "two.yaml"
    grid_file.write_text(
        json.dumps(
            {"name": "two", "agents": ["hm"], "games": [{"game": "hanabi", "seeds": [0, 1]}]}
        )
    )
    run = tmp_path / "runs" / "two"
    played = coordqa(
        "agentic", "grid", grid_file, "--model", "scripted", "--episodes", "1", "--out", run
    )
    assert played.returncode == 0, played.stderr
    line = one_error_line("submit", run, "--grid", grid_file, "--out", tmp_path / "b.json")
    assert "1 of its 2 tasks is not played" in line, line
    finish = re.search(r"`(coordqa agentic grid [^`]+)`", line)
    assert finish and finish.group(1).endswith(f"--out {run}"), line
    assert "keeps the 1 episode it played" in line, line
    again = coordqa(*shlex.split(finish.group(1))[1:])
    assert again.returncode == 0, again.stderr
    saved = coordqa("submit", run, "--grid", grid_file, "--out", tmp_path / "b.json")
    assert saved.returncode == 0, saved.stderr


def test_a_saved_bundle_given_a_board_only_grid_is_told_only_what_works(
    hm_hanabi: Path, tmp_path: Path
) -> None:
    """Walkthrough 25 B1: ``submit g3.json --grid my-grid-v2 --to URL`` (a grid only the board
    registered) was told first to save the run again with ``--grid my-grid-v2 --out FILE``,
    which is refused (a board-only name is not saved unchecked); only sending the run works,
    and the advice no longer repeats "(an agentic run: with --grid GRID)" beside --grid."""
    grid_file = tmp_path / "hanabi-one.yaml"
    grid_file.write_text(
        json.dumps({"name": "one", "agents": ["hm"], "games": [{"game": "hanabi", "seeds": [0]}]})
    )
    saved = tmp_path / "hm.json"
    made = coordqa("submit", hm_hanabi, "--grid", grid_file, "--out", saved)
    assert made.returncode == 0, made.stderr
    line = one_error_line(
        "submit", saved, "--grid", "board-only", "--to", "http://127.0.0.1:9", "--token", "T"
    )
    assert "cannot change a saved bundle" in line, line
    assert "--grid board-only --out" not in line, line  # no command that would be refused
    assert "`coordqa submit RUN_DIR --grid board-only --to URL --token T`" in line, line
    assert "with --grid GRID" not in line, line
    shipped = one_error_line(
        "submit", saved, "--grid", "smoke", "--to", "http://127.0.0.1:9", "--token", "T"
    )
    assert "--grid smoke --out" in shipped and "with --grid GRID" not in shipped, shipped


def test_a_typo_in_the_grid_of_a_saved_bundle_gets_one_suggestion(
    hm_hanabi: Path, tmp_path: Path
) -> None:
    """Walkthrough 9: ``submit ... --grid smok --out hm2.json`` wrote a bundle for a grid no
    board ranks; nothing would check the name before the upload, so it is refused here."""
    line = one_error_line("submit", hm_hanabi, "--grid", "smok", "--out", tmp_path / "hm2.json")
    assert line.startswith("error: unknown grid 'smok': coordqa ships no grid of that name"), line
    assert line.count("Did you mean") == 1 and "Did you mean 'smoke'?" in line, line
    assert "--grid FILE.yaml" in line and "--to URL" in line, line
    assert not (tmp_path / "hm2.json").exists()


def test_a_grid_file_is_checked_here_and_a_board_only_grid_is_left_to_the_board(
    hm_hanabi: Path, tmp_path: Path
) -> None:
    """A grid a board registered from a file: given as that file, the run is checked against it
    and saved under the file's name; given by name only, it can be sent (the board knows its
    grids) but not saved unchecked."""
    from coordqa.leaderboard.bundle import BundleError, build_bundle

    grid_file = tmp_path / "hanabi-one.yaml"
    grid_file.write_text(
        json.dumps(
            {"name": "hanabi-one", "agents": ["hm"], "games": [{"game": "hanabi", "seeds": [0]}]}
        )
    )
    done = coordqa("submit", hm_hanabi, "--grid", grid_file, "--out", tmp_path / "one.json")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "one.json").read_text())["grid"] == "hanabi-one"
    two_seeds = tmp_path / "hanabi-two.yaml"
    two_seeds.write_text(
        json.dumps(
            {"name": "hanabi-two", "agents": ["hm"], "games": [{"game": "hanabi", "seeds": [0, 1]}]}
        )
    )
    line = one_error_line("submit", hm_hanabi, "--grid", two_seeds, "--out", tmp_path / "2.json")
    assert "grid 'hanabi-two': 1 of its 2 tasks is not played (hanabi/default/self/s1#" in line
    assert f"`coordqa agentic grid {two_seeds} --agent hm --model scripted" in line, line
    sent = build_bundle(hm_hanabi, grid="board-only", destination="board")
    assert sent["grid"] == "board-only"
    with pytest.raises(BundleError, match="^unknown grid 'board-only'") as refused:
        build_bundle(hm_hanabi, grid="board-only", destination="file")
    said = str(refused.value)  # a library caller is told its parameter, as the CLI its option
    assert "send the bundle to that board now" in said and 'destination="board"' in said, said


@pytest.mark.parametrize("given", ["my-grdi.yaml", "grids/my-grid", "../my-grid.yml"])
def test_a_missing_grid_file_is_refused_here_in_the_same_words_whether_sent_or_saved(
    hm_hanabi: Path, tmp_path: Path, given: str
) -> None:
    """Walkthrough 12 #109, #115: ``submit RUN --grid my-grdi.yaml --to URL`` (a mistyped grid
    file) was sent to the board as a grid's name and got its "unknown grid 'my-grdi.yaml'";
    with --out the same was refused here. A --grid that reads as a path (ends in .yaml or .yml,
    or holds a '/') and names no file is refused here in both cases, before anything is sent:
    nothing listens at the URL, so an attempt to send would say so instead."""
    saved = one_error_line("submit", hm_hanabi, "--grid", given, "--out", tmp_path / "b.json")
    sent = one_error_line(
        "submit", hm_hanabi, "--grid", given, "--to", "http://127.0.0.1:9", "--token", "t"
    )
    assert saved == sent, (saved, sent)
    assert saved.startswith(f"error: grid file {given} does not exist."), saved
    assert not (tmp_path / "b.json").exists()


def test_a_folder_given_as_the_grid_file_is_said_to_be_one(hm_hanabi: Path, tmp_path: Path) -> None:
    """Walkthrough 18 R1: a folder where a grid file is read is said as such (not ``does not
    exist``, as it was for ``--grid grids/``)."""
    (tmp_path / "grids").mkdir()
    given = f"{tmp_path / 'grids'}/"
    line = one_error_line("submit", hm_hanabi, "--grid", given, "--out", tmp_path / "b.json")
    assert line.startswith(f"error: grid file {given} is a folder, not a file. A --grid"), line


def test_a_missing_grid_file_is_offered_the_closest_grid_file_beside_it(
    hm_hanabi: Path, tmp_path: Path
) -> None:
    (tmp_path / "my-grid.yaml").write_text("agents: [hm]\n")
    given = tmp_path / "my-grdi.yaml"
    line = one_error_line("submit", hm_hanabi, "--grid", given, "--out", tmp_path / "b.json")
    assert f"Did you mean '{tmp_path / 'my-grid.yaml'}'?" in line, line


def test_submit_endpoint_checks_the_served_model_before_sending_when_it_can() -> None:
    """Walkthrough 13 #315-#316: ``submit-endpoint openai/my-modl`` was queued, and failed only
    when a worker ran it, where ``coordqa eval`` says at once which name to use. The client
    asks the endpoint's listing (from the submitter's machine; the board's handler never calls
    an endpoint); an endpoint it cannot reach is left to the board, which may reach it."""
    from coordqa.llm.testing import LocalOpenAIServer

    nowhere = "http://127.0.0.1:9"  # no board listens: a request sent would fail to connect
    with LocalOpenAIServer(models=["zephyr-7b", "my-model"]) as server:
        line = one_error_line(
            "submit-endpoint", "openai/my-modl", "--api-base", server.base_url,
            "--to", nowhere, "--token", "t",
        )  # fmt: skip
    assert line == (
        f"error: the server at {server.base_url} serves zephyr-7b, my-model, not my-modl: "
        "register it as openai/my-model"
    ), line
    with closed_port() as port:
        unreachable = coordqa(
            "submit-endpoint", "openai/my-modl", "--api-base", f"http://127.0.0.1:{port}/v1",
            "--to", nowhere, "--token", "t",
        )  # fmt: skip
    assert unreachable.returncode == 2 and "127.0.0.1:9" in unreachable.stderr, unreachable.stderr
    assert str(port) not in unreachable.stderr, unreachable.stderr
