"""The progress bar and the interrupted message count the same thing: episodes finished.

An interrupted grid showed its bar at 5/13 and then said "6 finished episode(s)": an episode
whose record was queued when Ctrl-C came was written (the writer writes what is queued) but never
counted on the bar, which counted it only once the write was waited for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coordqa.agentic import load_agentic_run
from coordqa.agentic.episodes import EPISODES
from coordqa.agentic.grid import parse_grid
from coordqa.agentic.runner import GridProgress, RecordWriter, run_grid
from coordqa.errors import RunInterrupted
from coordqa.jsonvalues import JSONObject


def test_an_episode_written_as_ctrl_c_comes_is_counted_on_the_bar_and_in_the_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def interrupted_while_written(
        self: RecordWriter, stream: str, record: JSONObject
    ) -> None:
        self.put(stream, record)  # queued: RecordWriter.close writes it
        if stream == EPISODES:
            raise KeyboardInterrupt  # Ctrl-C while the episode record is being written

    monkeypatch.setattr(RecordWriter, "write", interrupted_while_written)
    grid = parse_grid(
        {"agents": ["capture-planner"], "games": [{"game": "collab_capture", "seeds": [0, 1]}]}
    )
    states: list[int] = []

    def progress(state: GridProgress) -> None:
        states.append(state.done)

    out = tmp_path / "run"
    with pytest.raises(RunInterrupted) as stop:
        run_grid(grid.model_copy(), out, progress=progress)
    stored = len(load_agentic_run(out, with_exchanges=False))
    assert stored == 1
    assert states[-1] == stored  # the bar's last count is what is stored
    assert f"{stored} of 2 episodes finished" in str(stop.value)


def test_a_run_stopped_after_its_last_episode_says_it_is_complete_not_to_resume(
    tmp_path: Path,
) -> None:
    """Walkthrough 7, #73: Ctrl-C after every episode had finished said "3 of 3 episodes
    finished ... Run the same command again to resume", and the rerun played 0."""
    from coordqa.agentic.runner import interrupted_message

    grid = parse_grid(
        {"agents": ["capture-planner"], "games": [{"game": "collab_capture", "seeds": [0, 1]}]}
    )
    out = tmp_path / "run"
    run_grid(grid, out)
    said = interrupted_message(out)
    assert "2 of 2 episodes finished" in said and "complete" in said, said
    assert "resume" not in said and "again" not in said, said


def test_the_interrupted_message_says_its_exchanges_are_the_whole_run_s(tmp_path: Path) -> None:
    """#77: "8691 model exchange(s) stored" sat under the bar's "2,718 model calls" of this
    session without saying which counts what."""
    from coordqa.agentic.runner import interrupted_message

    grid = parse_grid(
        {"agents": ["capture-planner"], "games": [{"game": "collab_capture", "seeds": [0]}]}
    )
    out = tmp_path / "run"
    run_grid(grid, out)
    said = interrupted_message(out)
    assert "0 model exchanges in the run (every session)" in said, said


def _last_plain_count(stderr: str) -> str:
    """The count of the last plain progress line (``episodes finished N/M | ...``)."""
    shown = [line for line in stderr.splitlines() if line.startswith("episodes finished")]
    assert shown, stderr
    return shown[-1].removeprefix("episodes finished").split("|")[0].strip()


def test_the_last_plain_line_counts_what_the_interrupted_message_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 18 R7: off a terminal the last progress line said ``5/62`` and the message
    under it ``8 of 62 episodes finished (as the bar counts them)``: plain lines come every
    tenth of the run, and the episodes finished since the last one were never shown."""
    from cli_support import coordqa

    written: list[str] = []

    async def interrupted_at_the_fourth(
        self: RecordWriter, stream: str, record: JSONObject
    ) -> None:
        self.put(stream, record)
        if stream == EPISODES:
            written.append(stream)
            if len(written) == 4:  # plain lines every 2 of 20: the last one said 3/20
                raise KeyboardInterrupt

    monkeypatch.setattr(RecordWriter, "write", interrupted_at_the_fourth)
    out = tmp_path / "run"
    result = coordqa(
        "agentic", "run", "--agent", "capture-planner", "--game", "collab_capture",
        "--self-play", "--episodes", "20", "--parallel-episodes", "1", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 130, result.stderr
    stored = len(load_agentic_run(out, with_exchanges=False))
    assert stored == 4
    assert _last_plain_count(result.stderr) == f"{stored}/20", result.stderr
    assert f"{stored} of 20 episodes finished (as the bar counts them)" in " ".join(
        result.stderr.split()
    )


def test_plain_lines_show_the_session_counters_only_when_they_changed(tmp_path: Path) -> None:
    """Walkthrough 18 R7: ``1/3 | this session: 11 moves ..., 51 model calls`` then ``2/3`` and
    ``3/3`` with the same counters (the parallel episodes had made every move already), and
    ``0/3 | this session: 0 moves (both seats), 0 model calls`` before any was played."""
    from cli_support import coordqa

    out = tmp_path / "run"
    result = coordqa(
        "agentic", "run", "--agent", "capture-planner", "--game", "collab_capture",
        "--self-play", "--episodes", "3", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    shown = [line for line in result.stderr.splitlines() if line.startswith("episodes finished")]
    assert shown and shown[-1].startswith("episodes finished 3/3"), result.stderr
    counters = [line.split("|", 1)[1] for line in shown if "|" in line]
    assert counters, result.stderr  # the session's moves are said once
    assert len(counters) == len(set(counters)), result.stderr
    assert not any(" 0 moves (both seats), 0 model calls" in c for c in counters), result.stderr
