"""The run store: manifests, durable append-only streams, truncated lines, resume checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from coordqa.errors import StoreError
from coordqa.files import atomic_write_bytes
from coordqa.jsonvalues import content_hash
from coordqa.store import (
    SCHEMA_VERSION,
    DatasetInfo,
    RunManifest,
    RunStore,
    open_run,
)


def manifest(**config: object) -> RunManifest:
    cfg = {"model": "random", "trials": 3, **config}
    dataset = DatasetInfo(name="example", fingerprint="abc", version="1", num_questions=2)
    return RunManifest(kind="qa", config=cfg, dataset=dataset, fingerprint=content_hash(cfg))


def test_create_append_and_reopen(tmp_path: Path) -> None:
    with RunStore.create(tmp_path / "run", manifest()) as store:
        store.append("samples", {"key": 1, "text": "é"})
        store.append("samples", {"key": 2})
    reopened = open_run(tmp_path / "run")
    assert [r["key"] for r in reopened.records("samples")] == [1, 2]
    assert reopened.records("samples")[0]["text"] == "é"
    assert reopened.records("calls") == []
    assert reopened.manifest.config == {"model": "random", "trials": 3}
    assert reopened.manifest.schema_version == SCHEMA_VERSION == 4
    assert reopened.manifest.dataset is not None and reopened.manifest.dataset.fingerprint == "abc"


def test_create_refuses_existing_run(tmp_path: Path) -> None:
    RunStore.create(tmp_path, manifest()).close()
    with pytest.raises(StoreError, match="already holds a run"):
        RunStore.create(tmp_path, manifest())


def test_truncated_last_line_is_ignored_then_cut_before_next_append(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path, manifest())
    store.append("samples", {"key": 1})
    store.close()
    with open(tmp_path / "samples.jsonl", "ab") as handle:
        handle.write(b'{"key": 2, "te')  # a write cut by SIGKILL
    reader = open_run(tmp_path)
    assert reader.records("samples") == [{"key": 1}]
    assert len(reader.warnings) == 1 and "incomplete last line" in reader.warnings[0]

    writer = open_run(tmp_path)
    writer.append("samples", {"key": 3})
    writer.close()
    assert (tmp_path / "samples.jsonl").read_text() == '{"key": 1}\n{"key": 3}\n'
    assert open_run(tmp_path).warnings == []


@pytest.mark.parametrize("endless", [True, False], ids=["dev-zero", "one-huge-line"])
def test_a_stream_line_past_the_bound_is_damage_found_without_reading_on(
    tmp_path: Path, endless: bool
) -> None:
    """A handed run folder whose samples.jsonl is a link to /dev/zero (or holds one line of
    gigabytes): the stream was read whole, and ``report`` of such a folder grew without end.
    Expected: a line is read up to MAX_RECORD_BYTES, and a longer one is damage, named."""
    from coordqa.store.directory import MAX_RECORD_BYTES, DamagedRecordsError

    store = RunStore.create(tmp_path, manifest())
    store.append("calls", {"key": 1})
    store.close()
    stream = tmp_path / "samples.jsonl"
    if endless:
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero here")
        stream.symlink_to("/dev/zero")
    else:
        with stream.open("wb") as sparse:
            sparse.truncate(MAX_RECORD_BYTES + 1)
            sparse.seek(MAX_RECORD_BYTES + 1)
            sparse.write(b"\n")
    started = time.monotonic()
    with pytest.raises(DamagedRecordsError, match=f"line 1 is longer than {MAX_RECORD_BYTES:,}"):
        open_run(tmp_path).records("samples")
    assert time.monotonic() - started < 10
    assert open_run(tmp_path).records("calls") == [{"key": 1}]


def test_complete_json_without_newline_counts_as_unwritten(tmp_path: Path) -> None:
    RunStore.create(tmp_path, manifest()).close()
    (tmp_path / "calls.jsonl").write_bytes(b'{"a": 1}')
    store = open_run(tmp_path)
    assert store.records("calls") == []
    store.append("calls", {"b": 2})
    assert store.records("calls") == [{"b": 2}]


def test_damaged_middle_line_is_an_error(tmp_path: Path) -> None:
    RunStore.create(tmp_path, manifest()).close()
    (tmp_path / "samples.jsonl").write_bytes(b'{"a": 1}\nnot json\n{"b": 2}\n')
    with pytest.raises(StoreError, match="line 2 is not valid JSON"):
        open_run(tmp_path).records("samples")


def test_chosen_lines_are_read_by_offset_as_the_whole_stream_reads_them(tmp_path: Path) -> None:
    """The viewer's index of a stream (walkthrough 27, R7): lines found once, parsed when asked."""
    RunStore.create(tmp_path, manifest()).close()
    stream = tmp_path / "samples.jsonl"
    stream.write_bytes(b'{"a": 1}\n\n{"b": "\xc3\xa9"}\n{"c": 3}\n{"d": ')  # a torn last line
    store = open_run(tmp_path)
    lines = list(store.record_lines("samples"))
    assert [(offset, number) for offset, number, _ in lines] == [(0, 1), (10, 3), (22, 4)]
    assert store.records("samples") == [json.loads(line) for _, _, line in lines]
    assert store.read_lines("samples", [(22, 4), (0, 1)], lambda data, _: data) == [
        {"c": 3},
        {"a": 1},
    ]
    assert store.read_lines("calls", [], lambda data, _: data) == []  # never written: not opened
    stream.write_bytes(b'{"a": 1}\nnot json\n')  # replaced since the lines were found
    with pytest.raises(StoreError, match="line 3 is not valid JSON"):
        store.read_lines("samples", [(9, 3)], lambda data, _: data)
    with pytest.raises(StoreError, match="line 4 is no longer where it was"):
        store.read_lines("samples", [(22, 4)], lambda data, _: data)


def test_derived_jsonl_files_are_read_whole_and_damage_is_named(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path, manifest())
    store.write_jsonl("scores.jsonl", [{"a": 1}, {"b": 2}])
    assert open_run(tmp_path).read_jsonl("scores.jsonl") == [{"a": 1}, {"b": 2}]
    (tmp_path / "scores.jsonl").write_bytes(b'{"a": 1}\n[1, 2]\n')
    with pytest.raises(StoreError, match=r"scores.jsonl: line 2 is not a JSON object.*rebuilt"):
        open_run(tmp_path).read_jsonl("scores.jsonl")
    with pytest.raises(StoreError, match="summary.jsonl does not exist"):
        open_run(tmp_path).read_jsonl("summary.jsonl")


def test_non_json_record_and_bad_stream_name_are_rejected(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path, manifest())
    with pytest.raises(StoreError, match="JSON data"):
        store.append("samples", {"x": float("nan")})
    with pytest.raises(StoreError, match="invalid stream name"):
        store.append("../evil", {"x": 1})
    assert store.records("samples") == []


def test_open_or_create_resumes_same_config_and_refuses_another(tmp_path: Path) -> None:
    first = RunStore.open_or_create(tmp_path, manifest())
    first.append("samples", {"k": 1})
    first.close()
    resumed = RunStore.open_or_create(tmp_path, manifest())
    assert resumed.records("samples") == [{"k": 1}]
    resumed.close()
    with pytest.raises(StoreError) as info:
        RunStore.open_or_create(tmp_path, manifest(trials=5))
    message = str(info.value)
    assert "trials: stored 3, requested 5" in message
    assert "another --out" in message


def test_a_mismatch_names_only_the_fields_that_differ_in_the_user_s_terms() -> None:
    # The fifth walkthrough's #119: two whole grid and game tables, dicts and 64-hex hashes.
    fingerprint = "3e8f20d04e6bdecab77a65c794bbcc7396c6e7a7140de7c9c2bc98d95a72d1a0"
    game = {"game": "collab_capture", "layouts": None, "horizon": None}
    stored = manifest(
        games=[{**game, "seeds": [0, 1, 2, 3, 4]}],
        grid={"name": "my-grid", "version": 1, "fingerprint": fingerprint},
        note="x" * 200,
    )
    asked = manifest(
        games=[{**game, "seeds": list(range(10)), "episodes": 1}],
        grid={"name": "my-grid", "version": 1, "fingerprint": "b39260a10388" + "0" * 52},
        note="y" * 200,
    )
    assert stored.mismatches(asked) == [
        "games[0].episodes: stored none, requested 1",
        "games[0].seeds: stored 0-4, requested 0-9",
        "grid.fingerprint: stored 3e8f20d04e6b, requested b39260a10388",
        f"note: stored '{'x' * 56}..., requested '{'y' * 56}...",
    ]


def test_runtime_settings_may_change_on_resume(tmp_path: Path) -> None:
    RunStore.open_or_create(tmp_path, manifest()).close()
    changed = manifest()
    changed.runtime["concurrency"] = 64
    store = RunStore.open_or_create(tmp_path, changed)
    assert open_run(tmp_path).manifest.runtime == {"concurrency": 64}
    store.close()


def test_open_run_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        open_run(tmp_path / "missing")
    with pytest.raises(StoreError, match="no manifest.json"):
        open_run(tmp_path)
    (tmp_path / "manifest.json").write_text("{broken")
    with pytest.raises(StoreError, match="corrupt"):
        open_run(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(StoreError, match="newer"):
        open_run(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "qa"}))
    with pytest.raises(StoreError, match="not a valid run manifest"):
        open_run(tmp_path)


def test_manifest_lifecycle_and_atomic_json(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path, manifest())
    store.mark_started()
    assert open_run(tmp_path).manifest.status == "running"
    store.mark_finished()
    final = open_run(tmp_path).manifest
    assert final.status == "finished" and final.sessions == 1 and final.finished_at is not None
    store.write_json("summary.json", {"accuracy": 0.5})
    assert store.read_json("summary.json") == {"accuracy": 0.5}
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    with pytest.raises(StoreError, match="does not exist"):
        store.read_json("absent.json")
    with pytest.raises(StoreError, match="stay inside"):
        store.file("../outside.json")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_whole_files_are_as_readable_as_streamed_ones(tmp_path: Path) -> None:
    # mkstemp makes owner-only files; a shared run folder must not have unreadable manifests.
    with RunStore.create(tmp_path / "run", manifest()) as store:
        store.append("samples", {"key": 1})
        written = store.write_json("summary.json", {"accuracy": 0.5})
    for path in (tmp_path / "run" / "manifest.json", written):
        assert path.stat().st_mode & 0o777 == 0o644


def test_atomic_write_leaves_the_old_file_and_no_temporary_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "file.bin"
    atomic_write_bytes(target, b"old")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["file.bin"]


def test_second_writer_process_is_refused(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path, manifest())
    store.append("samples", {"k": 1})
    script = textwrap.dedent(
        f"""
        from coordqa.store import open_run
        from coordqa.errors import StoreError
        try:
            open_run({str(tmp_path)!r}).append("samples", {{"k": 2}})
        except StoreError as e:
            print("refused:", e)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "refused" in out.stdout and "another process" in out.stdout
    store.close()
    assert open_run(tmp_path).records("samples") == [{"k": 1}]


def test_killed_writer_loses_at_most_the_line_being_written(tmp_path: Path) -> None:
    """A writer SIGKILLed in a loop leaves only whole records (plus maybe one cut line)."""
    RunStore.create(tmp_path, manifest()).close()
    script = textwrap.dedent(
        f"""
        import sys
        from coordqa.store import open_run
        store = open_run({str(tmp_path)!r})
        for i in range(100000):
            store.append("samples", {{"i": i, "pad": "x" * 500}})
            if i == 50:
                print("ready", flush=True)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    proc.kill()
    proc.wait()
    records = open_run(tmp_path).records("samples")
    assert len(records) > 50
    assert [r["i"] for r in records] == list(range(len(records)))


def test_resuming_a_run_that_is_being_written_is_refused(tmp_path: Path) -> None:
    writer = RunStore.open_or_create(tmp_path, manifest())
    with pytest.raises(StoreError, match="being written by another process"):
        RunStore.open_or_create(tmp_path, manifest())
    writer.close()
    RunStore.open_or_create(tmp_path, manifest()).close()


def test_concurrent_appends_share_fsyncs_and_each_returns_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Group commit: an append returns only after an fsync that began once its line was written.

    The fsync is slow (5 ms) so that appends pile up behind it, as calls of a run do.
    """
    import asyncio
    import time

    real_fsync = os.fsync
    finished: list[int] = []  # for each finished fsync: the lines on disk when it began
    path = tmp_path / "run" / "calls.jsonl"

    def slow_fsync(fd: int) -> None:
        lines = path.read_bytes().count(b"\n") if path.exists() else 0
        time.sleep(0.005)
        real_fsync(fd)
        finished.append(lines)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    late: list[int] = []

    async def append(store: RunStore, number: int) -> None:
        await asyncio.sleep(0.001 * (number % 7))
        await store.append_async("calls", {"number": number})
        line = [r["number"] for r in store.records("calls")].index(number) + 1
        if not finished or max(finished) < line:
            late.append(number)

    async def main(store: RunStore) -> None:
        await asyncio.gather(*(append(store, number) for number in range(60)))

    with RunStore.create(tmp_path / "run", manifest()) as store:
        finished.clear()  # the manifest's own fsyncs
        asyncio.run(main(store))
        store.append_many("calls", [{"number": 60}, {"number": 61}])
    assert late == [], "an append returned before its line was fsynced"
    assert 1 <= len(finished) - 1 < 30, f"{len(finished) - 1} fsyncs for 60 concurrent appends"
    assert finished[-1] == 62  # the batch: one fsync after both lines
    numbers = [r["number"] for r in open_run(tmp_path / "run").records("calls")]
    assert sorted(numbers) == list(range(62))


# -- a run folder is its manifest's (issue 35; walkthrough broken 1, rough 1 and 14) --------


def test_a_folder_of_run_records_without_a_manifest_is_never_adopted(tmp_path: Path) -> None:
    """A partial copy or a careless clean-up left the calls of a run but not its manifest."""
    folder = tmp_path / "run"
    with RunStore.create(folder, manifest()) as store:
        store.append("calls", {"question_id": "q", "trial": 0})
        store.append("calls", {"question_id": "q", "trial": 1})
    (folder / "manifest.json").unlink()
    for opening in (RunStore.create, RunStore.open_or_create):
        with pytest.raises(StoreError) as refused:
            opening(folder, manifest(model="scripted"))
        said = str(refused.value)
        assert "calls.jsonl (2 records)" in said and "no manifest.json" in said
        assert "another --out" in said and "restore manifest.json" in said.lower()
    assert not (folder / "manifest.json").exists()  # nothing was written for the new run
    with pytest.raises(StoreError, match="calls.jsonl .2 records. but no manifest.json"):
        open_run(folder)


def test_a_folder_of_other_files_is_not_made_a_run(tmp_path: Path) -> None:
    """The user's folder gets no run's files among theirs (walk7 #338); a hidden one is kept."""
    from coordqa.errors import OutputPathError

    (tmp_path / "notes.txt").write_text("my notes")
    with pytest.raises(OutputPathError, match=r"holds files coordqa did not write \(e.g. notes"):
        RunStore.create(tmp_path, manifest())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    (tmp_path / "notes.txt").unlink()
    (tmp_path / ".gitkeep").write_text("")
    RunStore.create(tmp_path, manifest()).close()
    assert open_run(tmp_path).manifest.config["model"] == "random"


def test_survey_lists_readable_runs_and_says_what_is_wrong_with_the_others(tmp_path: Path) -> None:
    from coordqa.store import survey_runs

    for name in ("good", "corrupt", "orphan", "future"):
        with RunStore.create(tmp_path / name, manifest()) as store:
            store.append("calls", {"question_id": "q", "trial": 0})
    (tmp_path / "corrupt" / "manifest.json").write_text('{"kind": "qa", "con')
    (tmp_path / "orphan" / "manifest.json").unlink()
    (tmp_path / "future" / "manifest.json").write_text(json.dumps({"schema_version": 99}))
    (tmp_path / "empty").mkdir()
    survey = survey_runs(tmp_path)
    assert survey.runs == [tmp_path / "good"]
    problems = {u.path.name: u for u in survey.unreadable}
    assert sorted(problems) == ["corrupt", "future", "orphan"]
    assert "is corrupt" in problems["corrupt"].problem
    assert "restore manifest.json" in problems["corrupt"].fix
    assert "no manifest.json" in problems["orphan"].problem
    assert "upgrade coordqa" in problems["future"].fix
    for unreadable in survey.unreadable:
        assert "resume" not in unreadable.problem + unreadable.fix  # words for any command


@pytest.mark.parametrize("depth", [2_000, 100_000])
def test_json_nested_too_deep_is_an_unreadable_run_not_a_crash(tmp_path: Path, depth: int) -> None:
    """Probe NEW-B: a manifest or a record nested 2,000 (4 kB) or 100,000 deep raised
    RecursionError out of every command that read the folder."""
    from coordqa.jsonvalues import MAX_DEPTH
    from coordqa.store import UnreadableRunError, survey_runs

    nested = "[" * depth + "]" * depth
    for name in ("good", "deep-manifest", "deep-calls"):
        with RunStore.create(tmp_path / name, manifest()) as store:
            store.append("calls", {"question_id": "q", "trial": 0})
    (tmp_path / "deep-manifest" / "manifest.json").write_text(nested)
    with pytest.raises(UnreadableRunError, match=f"nests deeper than {MAX_DEPTH} levels"):
        open_run(tmp_path / "deep-manifest")
    survey = survey_runs(tmp_path)
    assert survey.runs == [tmp_path / "deep-calls", tmp_path / "good"]
    [unreadable] = survey.unreadable
    assert "restore manifest.json" in unreadable.fix
    with open(tmp_path / "deep-calls" / "calls.jsonl", "a") as calls:
        calls.write(f'{{"question_id": "q", "reply": {nested}}}\n')
    deep = open_run(tmp_path / "deep-calls")
    with pytest.raises(StoreError, match=r"calls.jsonl: line 2 is not valid JSON \(it nests deep"):
        deep.records("calls")
    (tmp_path / "good" / "scores.jsonl").write_text(nested + "\n")
    with pytest.raises(StoreError, match=r"scores.jsonl: line 1 is not valid JSON \(it nests"):
        open_run(tmp_path / "good").read_jsonl("scores.jsonl")
    (tmp_path / "good" / "summary.json").write_text(nested)
    with pytest.raises(StoreError, match="summary.json cannot be read as JSON: it nests deeper"):
        open_run(tmp_path / "good").read_json("summary.json")


def test_nesting_up_to_the_limit_still_reads(tmp_path: Path) -> None:
    from coordqa.jsonvalues import MAX_DEPTH

    RunStore.create(tmp_path, manifest()).close()
    deepest: object = 1
    for _ in range(MAX_DEPTH - 1):  # the record itself is the first level
        deepest = [deepest]
    (tmp_path / "calls.jsonl").write_text(json.dumps({"reply": deepest}) + "\n")
    assert open_run(tmp_path).records("calls") == [{"reply": deepest}]
    (tmp_path / "calls.jsonl").write_text(json.dumps({"reply": [deepest]}) + "\n")
    with pytest.raises(StoreError, match="nests deeper"):
        open_run(tmp_path).records("calls")
