"""``coordqa report``, ``results``, ``compare`` and ``runs list``, run as a user runs them.

Runs are written with chosen outcomes (:mod:`qa_run_support`), so every expected cell is
decided from the outcomes written, not from what the commands print.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from cli_support import CliResult, coordqa as run_coordqa
from qa_run_support import SIX_QUESTIONS, outcome_rows as rows, write_qa_run

from coordqa.store import RunManifest, RunStore, read_qa_run

LONG_MODEL = "hosted_vllm/meta-llama/Llama-3.1-70B-Instruct-with-a-very-long-suffix"


def coordqa(*args: str | Path, cwd: Path | None = None) -> CliResult:
    """Run the CLI in an 80-column terminal, without colours."""
    return run_coordqa(*args, cwd=cwd, env={"NO_COLOR": "1"}, columns=80)


A_OUTCOMES = SIX_QUESTIONS
B_OUTCOMES = {**A_OUTCOMES, "s0-tom": ["right", "right"], "s1-jp": ["no_answer", "wrong"]}


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    made = {
        "a": write_qa_run(tmp_path / "runs" / "a", LONG_MODEL, rows(A_OUTCOMES), trials=2),
        "b": write_qa_run(tmp_path / "runs" / "b", "openai/gpt-4o", rows(B_OUTCOMES), trials=2),
    }
    part = {k: v for k, v in A_OUTCOMES.items() if k.startswith("s0")}
    made["part"] = write_qa_run(
        tmp_path / "runs" / "part", "openai/gpt-4o", rows(part), trials=2, limit=3
    )
    broken = {**A_OUTCOMES, "s1-jp": ["error", "right"]}
    made["broken"] = write_qa_run(tmp_path / "runs" / "broken", "m", rows(broken), trials=2)
    return made


def fits(text: str) -> bool:
    """Prose fits 80 columns; a line naming a path is printed whole, however long the path
    (pytest's temporary folders grow with the number of sessions run before)."""
    return all(len(line) <= 80 or "/" in line.strip() for line in text.splitlines())


def test_report_fits_80_columns_and_labels_both_uncertainties(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    result = coordqa("report", runs["a"], runs["b"], "--out", tmp_path / "rep")
    assert result.returncode == 0, result.stderr
    assert fits(result.stdout), result.stdout
    out = result.stdout
    assert "Llama-3.1-70B" in out and "trial SE" in out and "question-level" in out
    # A: EC right 3 of 4 trials counted (ambiguous counts as wrong): per-trial 1.0 and 0.5
    assert "0.750 ± 0.250" in out
    assert "paired comparisons" in out and "e+" not in out
    # each pair is named whole, broken between words only (a 28-column cell folded names)
    assert re.search(rf"{re.escape(LONG_MODEL)} vs\s+openai/gpt-4o", out), out
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert "## Paired comparisons" in markdown and "Mixed question sets" not in markdown
    comparisons = pd.read_csv(tmp_path / "rep" / "comparisons.csv")
    tom = comparisons.set_index("scope").loc["ToM"]
    # ToM: A right on s0 once of two and on s1 twice; B right on all: A - B = (0.5 - 1) / 2
    assert tom["difference"] == pytest.approx(-0.25) and tom["n_questions"] == 2
    correlations = pd.read_csv(tmp_path / "rep" / "correlations.csv")
    assert {"n", "pearson_p", "spearman_p"} <= set(correlations.columns)


def test_score_of_a_run_with_no_answered_sample_says_so_without_tables(tmp_path: Path) -> None:
    """Walkthrough 23b #166: ``score`` of a run interrupted before its first answer printed
    "no accuracy, no sample is answered (...)" and then an IndexError traceback (the tables of
    no rows); it says the headline and what the run lacks, and exits 0 as for any run."""
    run = write_qa_run(tmp_path / "empty", "m", [], trials=1, questions=2, scored=False)
    result = coordqa("score", run)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert "no sample is answered" in result.stdout, result.stdout
    assert "per game x type" not in result.stdout, result.stdout


def test_score_tables_fit_80_columns_and_mark_an_incomplete_run(runs: dict[str, Path]) -> None:
    result = coordqa("score", runs["broken"])
    assert result.returncode == 0, result.stderr
    assert fits(result.stdout), result.stdout
    assert "0.750 ± 0.250 *" in result.stdout  # EC of the broken run, marked incomplete
    assert "trial SE" in result.stdout and "incomplete run" in " ".join(result.stdout.split())


def test_report_refuses_different_question_sets_unless_allowed(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    refused = coordqa("report", runs["a"], runs["part"], "--out", tmp_path / "rep")
    assert refused.returncode == 2
    message = refused.stderr
    assert "different question sets" in message and "--allow-mixed" in message
    assert "6 questions" in message and "3 questions" in message and "--limit 3" in message
    assert not (tmp_path / "rep").exists()
    for n in range(4):  # a folder of many runs: one line per question set, not one per run
        write_qa_run(tmp_path / "runs" / f"more-{n}", f"m{n}", rows(A_OUTCOMES), trials=2)
    folder = coordqa("report", tmp_path / "runs", "--out", tmp_path / "rep")
    sets = [line for line in folder.stderr.splitlines() if line.startswith("    question set")]
    assert len(sets) == 2, folder.stderr  # runs a, b, broken, more-*; and part (--limit 3)
    assert "6 questions, filters none: 7 runs (" in sets[0] and "and 5 more)" in sets[0]
    assert f"3 questions, filters --limit 3: 1 run ({runs['part']})" in sets[1]

    allowed = coordqa("report", runs["a"], runs["part"], "--out", tmp_path / "rep", "--allow-mixed")
    assert allowed.returncode == 0, allowed.stderr
    assert "different questions" in allowed.stderr
    assert "Mixed question sets" in (tmp_path / "rep" / "report.md").read_text()
    paired = pd.read_csv(tmp_path / "rep" / "comparisons.csv").set_index("scope")
    assert paired.at["overall", "n_questions"] == 3  # only the shared questions


def test_report_marks_an_incomplete_run_everywhere_it_shows_its_accuracy(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    result = coordqa("report", runs["a"], runs["broken"], "--out", tmp_path / "rep")
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if re.search(r"\d ± ", line)]
    marked = [bool(re.search(r"± \S+ \*", line)) for line in lines]
    assert marked == [False] * 4 + [True] * 4  # the complete run's rows first
    words = " ".join(result.stdout.split())  # cells and captions may wrap at 80 columns
    assert "incomplete run" in words and "incomplete: 1 error of 12 samples" in words
    models = pd.read_csv(tmp_path / "rep" / "models.csv").set_index("model")
    assert not models.at["m", "complete"] and models.at["m", "error"] == 1
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert markdown.count("*") >= 4 and "incomplete run" in markdown


def test_report_sizes_must_name_runs_and_agentic_runs_are_pointed_elsewhere(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    unknown = coordqa("report", runs["a"], "--sizes", "gpt-5=1T", "--out", tmp_path / "r")
    assert unknown.returncode == 2 and "gpt-5" in unknown.stderr
    assert "match no run" in unknown.stderr
    cased = write_qa_run(tmp_path / "cased", "random-A", rows(A_OUTCOMES), trials=2)
    miscased = coordqa("report", cased, "--sizes", "random-a=7B", "--out", tmp_path / "r")
    assert miscased.returncode == 2 and "Did you mean 'random-A'?" in miscased.stderr
    agentic = tmp_path / "agentic"
    RunStore.create(agentic, RunManifest(kind="agentic", config={}, fingerprint="x")).close()
    pointed = coordqa("report", agentic, "--out", tmp_path / "r")
    assert pointed.returncode == 2 and "coordqa agentic report" in pointed.stderr
    assert "Traceback" not in pointed.stderr


def test_report_sizes_with_two_unknown_names_says_which_suggestion_is_for_which(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough 23 #285: ``--sizes random-a=1e9,rnd=2`` said "Did you mean 'random-A1',
    'random', 'random-b'? Did you mean 'random'?", two suggestions run together."""
    cased = write_qa_run(tmp_path / "cased", "random-A", rows(A_OUTCOMES), trials=2)
    result = coordqa("report", cased, "--sizes", "random-a=7B,randm=2", "--out", tmp_path / "r")
    assert result.returncode == 2, result.stderr
    said = " ".join(result.stderr.split())
    assert "For 'random-a': did you mean 'random-A'?" in said, said
    assert "For 'randm': did you mean" in said, said
    assert "? Did you mean" not in said, said


def test_results_table_in_every_format(runs: dict[str, Path], tmp_path: Path) -> None:
    csv = coordqa("results", runs["a"], "--format", "csv")
    assert csv.returncode == 0, csv.stderr
    table = pd.read_csv(pd.io.common.StringIO(csv.stdout)).set_index("question_id")
    assert list(table.index) == list(A_OUTCOMES)
    assert table.at["s0-ec", "answer"] == "A" and table.at["s0-ec", "trial_0"] == "A"
    assert table.at["s0-tom", "trial_0"] == "B" and not table.at["s0-tom", "trial_0_correct"]
    assert table.at["s1-ec", "trial_1"] == "ambiguous"
    assert table.at["s1-jp", "trial_0"] == "no_answer"
    assert table.at["s1-jp", "correct_trials"] == "1/2"
    # walk13 R1: the docs said yes/no, which only Markdown writes; CSV keeps booleans for
    # machines, as the report's CSVs do, and the docs now say so
    correct = [c for c in table.columns if c.endswith("_correct")]
    cells = {cell for line in csv.stdout.splitlines()[1:] for cell in line.split(",")}
    assert correct and table[correct].dtypes.eq(bool).all() and {"True", "False"} <= cells
    from source_tree import ROOT

    guide = " ".join((ROOT / "docs" / "looking-at-runs.md").read_text().split())
    assert "`True`/`False` in CSV" in guide

    refused = coordqa("results", runs["a"], "--format", "parquet")
    assert refused.returncode == 2 and "--out" in refused.stderr
    written = coordqa("results", runs["a"], "--format", "parquet", "--out", tmp_path / "r.pq")
    assert written.returncode == 0, written.stderr
    assert len(pd.read_parquet(tmp_path / "r.pq")) == len(A_OUTCOMES)
    markdown = coordqa("results", runs["broken"])
    assert markdown.returncode == 0 and markdown.stdout.startswith("| question_id |")
    # walkthrough 9 #311: a trial with nothing scored showed Python's None; yes/no otherwise
    assert "| error | - |" in markdown.stdout and "None" not in markdown.stdout


def test_results_filters_accept_any_case_as_eval_does(runs: dict[str, Path]) -> None:
    """``--game Hanabi --type jp`` is ``--game hanabi --type JP``, as ``coordqa eval`` reads it."""
    result = coordqa("results", runs["a"], "--game", "Hanabi", "--type", "jp,tom", "-f", "csv")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(pd.io.common.StringIO(result.stdout))
    assert sorted(table["question_id"]) == ["s0-jp", "s0-tom", "s1-jp", "s1-tom"]
    unknown = coordqa("results", runs["a"], "--game", "Overcooked")
    assert unknown.returncode == 2 and "Its games are hanabi" in unknown.stderr
    # walkthrough 9 #152: a typo got the list of games but no suggestion
    typo = coordqa("results", runs["a"], "--game", "hanabii", "--type", "jp,tomm")
    assert typo.stderr == (
        "error: --game hanabii: the run has no question of that kind. Did you mean 'hanabi'? "
        "Its games are hanabi\n"
    ), typo.stderr
    types = coordqa("results", runs["a"], "--type", "jp,tomm")
    assert "--type tomm: the run has no question of that kind. Did you mean 'ToM'?" in types.stderr


def test_compare_of_one_run_named_twice_says_so(runs: dict[str, Path]) -> None:
    # The fifth walkthrough: "1 found" although two runs were named.
    result = coordqa("compare", runs["a"], runs["a"])
    assert result.returncode == 2
    assert result.stderr == (
        "error: the same run was named twice: compare needs two different runs\n"
    )


def test_compare_says_in_one_line_that_no_pair_differs(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough 20, R11: two runs that agree on every pair printed "0 of 12" and then an
    empty table, headers and all."""
    same = write_qa_run(tmp_path / "runs" / "same", "m", rows(A_OUTCOMES), trials=2)
    result = coordqa("compare", runs["a"], same)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "A right, B wrong or A wrong, B right: none of the 12 (question, trial) pairs" in text, (
        text
    )
    assert "question trial type answer" not in text  # no empty table
    assert "--only a-right,b-right,both-right,both-wrong,disagree chooses" in text


def test_compare_lists_exactly_the_differing_samples(runs: dict[str, Path]) -> None:
    result = coordqa("compare", runs["a"], runs["b"], "--only", "disagree")
    assert result.returncode == 0, result.stderr
    assert fits(result.stdout), result.stdout
    # A and B differ on s0-tom trial 0 (B vs A) and s1-jp trial 1 (A vs B): 2 of 12 samples
    assert "different choices: 2 of 12 (question, trial) pairs" in " ".join(result.stdout.split())
    lines = result.stdout.splitlines()
    differing = [line.split()[0] for line in lines if "s0-" in line or "s1-" in line]
    assert sorted(differing) == ["s0-tom", "s1-jp"]
    mixed = coordqa("compare", runs["a"], runs["part"])
    assert mixed.returncode == 2 and "--allow-mixed" in mixed.stderr


def test_runs_list_shows_every_run_with_its_status(runs: dict[str, Path], tmp_path: Path) -> None:
    result = coordqa("runs", "list", "runs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert fits(result.stdout), result.stdout
    lines = result.stdout.splitlines()
    # Each run: its path (and model) on one line, its numbers on the next.
    listed = {line.split()[0]: f"{line} {lines[i + 1]}" for i, line in enumerate(lines[:-1])}
    assert {"runs/a", "runs/b", "runs/part", "runs/broken"} <= set(listed)
    assert "incomplete" in listed["runs/broken"] and "*" in listed["runs/broken"]
    assert "finished" in listed["runs/b"] and "openai/gpt-4o" in listed["runs/b"]
    empty = coordqa("runs", "list", tmp_path / "runs" / "nothing")
    assert empty.returncode == 2 and "nothing does not exist" in empty.stderr


def test_runs_list_takes_several_folders_as_report_does(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """walk13 R3: ``runs list A B`` failed with click's "Got unexpected extra argument(s)".
    Walkthrough 22 R8: it then printed a heading and column names per folder given; several
    folders are one table, as ``ls A B`` lists files, newest first across them all, each run
    once (``runs/a`` is in ``runs`` too)."""
    result = coordqa("runs", "list", "runs/a", "runs/b", "runs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    heads = [line for line in lines if line.startswith("runs in ")]
    assert heads == ["runs in runs/a, runs/b, runs (4, newest first)"], result.stdout
    assert sum(line.split()[:2] == ["accuracy", "answered"] for line in lines) == 1
    paths = [line.split()[0] for line in lines if line.startswith("runs/")]
    assert sorted(paths) == ["runs/a", "runs/b", "runs/broken", "runs/part"], paths
    dates = re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d", result.stdout)
    assert len(dates) == 4 and dates == sorted(dates, reverse=True), result.stdout
    alone = coordqa("runs", "list", "runs/a", cwd=tmp_path)
    assert alone.stdout.splitlines()[0] == "runs in runs/a (1, newest first)"
    # a folder that is not there is refused before anything is listed
    typo = coordqa("runs", "list", "runs/a", "runs/nothing", cwd=tmp_path)
    assert typo.returncode == 2 and "nothing does not exist" in typo.stderr
    assert "runs/a" not in typo.stdout


def test_report_of_one_trial_runs_says_there_is_no_trial_se(tmp_path: Path) -> None:
    """As coordqa eval's headline says it: a spread over trials needs two, so no '± NaN'."""
    one = {qid: outcomes[:1] for qid, outcomes in A_OUTCOMES.items()}
    a = write_qa_run(tmp_path / "a", "m1", rows(one), trials=1)
    b = write_qa_run(tmp_path / "b", "m2", rows(one), trials=1)
    result = coordqa("report", a, b, "--out", tmp_path / "rep")
    assert result.returncode == 0, result.stderr
    assert "± NaN" not in result.stdout and "NaN" not in result.stdout.split("paired")[0]
    assert result.stdout.count("one trial: no trial SE") == 2  # under each model's name
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert "± NaN" not in markdown and "one trial: no trial SE" in markdown
    scored = coordqa("score", a)
    assert scored.returncode == 0 and "± NaN" not in scored.stdout, scored.stdout


def test_runs_of_one_model_are_labelled_by_their_seeds_as_the_guide_says(tmp_path: Path) -> None:
    """Walkthrough 3, rough 22: the default run and a --seed 1 run read 'random (seed=none)' and
    'random (seed=1)' where README showed 'random (seed=0)'. Without --seed no seed is sent, and
    the random model's trials then differ from --seed 0's, so 'none' is the truth: the guide
    (docs/looking-at-runs.md) says what a run without --seed is called."""
    from source_tree import ROOT

    base = ("eval", "--model", "random", "--limit", "6", "--quiet")
    for name, extra in (("default", ()), ("zero", ("--seed", "0")), ("one", ("--seed", "1"))):
        assert coordqa(*base, *extra, "--out", tmp_path / name).returncode == 0
    compared = coordqa("compare", tmp_path / "default", tmp_path / "one")
    assert "A = random (seed=none), B = random (seed=1)" in compared.stdout, compared.stdout
    zero = read_qa_run(tmp_path / "zero").last_calls()
    none = read_qa_run(tmp_path / "default").last_calls()
    assert {k: c.text for k, c in zero.items()} != {k: c.text for k, c in none.items()}
    guide = " ".join((ROOT / "docs" / "looking-at-runs.md").read_text().split())
    assert "`random (seed=none)`" in guide and "`random (seed=1)`" in guide


# -- a run folder is its manifest's (issue 35; walkthrough broken 1, rough 1 and 14) --------


def test_eval_refuses_a_folder_of_another_runs_calls_without_its_manifest(tmp_path: Path) -> None:
    """Walkthrough f28: random's calls, manifest deleted; ``--model scripted`` reported them."""
    import shutil

    ask = ("--limit", "5", "--trials", "1")
    first = coordqa("eval", "--model", "random", *ask, "--out", "r", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "r", copy)
    (copy / "manifest.json").unlink()
    calls = (copy / "calls.jsonl").read_bytes()
    adopted = coordqa("eval", "--model", "scripted", *ask, "--out", "copy", cwd=tmp_path)
    assert adopted.returncode == 2, adopted.stdout
    said = " ".join(adopted.stderr.split())
    assert "it holds calls.jsonl (5 records)" in said and "but no manifest.json" in said
    assert "another --out" in said and "scripted" not in adopted.stdout
    assert (copy / "calls.jsonl").read_bytes() == calls and not (copy / "manifest.json").exists()
    # the same model is not let in either (f27: it was adopted silently)
    same = coordqa("eval", "--model", "random", *ask, "--out", "copy", cwd=tmp_path)
    assert same.returncode == 2 and "no manifest.json" in same.stderr


def test_runs_list_and_view_show_the_readable_runs_beside_a_damaged_one(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough f30-f32: one cut manifest made ``runs list`` and ``view`` exit 2 for all."""
    manifest = runs["part"] / "manifest.json"
    manifest.write_text(manifest.read_text()[: len(manifest.read_text()) // 2])
    (runs["broken"] / "manifest.json").unlink()
    listed = coordqa("runs", "list", "runs", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert fits(listed.stdout), listed.stdout
    assert "runs/a" in listed.stdout and "runs/b" in listed.stdout
    text = " ".join(listed.stdout.split())
    assert "runs/part unreadable: manifest.json is corrupt" in text
    assert "runs/broken unreadable: it holds calls.jsonl" in text
    assert text.count("restore manifest.json from where the run was copied") == 2
    assert "resume" not in text
    exported = coordqa("view", "runs", "--export", "site", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "manifest.json is corrupt" in index and "runs/broken" in index
    assert "unreadable" in index and ">a<" in index and ">b<" in index


def test_a_folder_of_questions_alone_is_not_listed_as_a_broken_run(tmp_path: Path) -> None:
    """A board worker's --work-dir: each job keeps its private questions (a dataset's
    ``questions.jsonl``, no manifest) beside its runs; ``runs list`` marked that folder as an
    unreadable run. It holds no model's answers: it is not a run, broken or not."""
    job = tmp_path / "board-jobs" / "job-1"
    write_qa_run(job / "public", "m", rows(SIX_QUESTIONS), trials=2)
    data = job / "secret-a1" / "private-data"
    data.mkdir(parents=True)
    (data / "questions.jsonl").write_text('{"question_id": "q1"}\n{"question_id": "q2"}\n')
    listed = coordqa("runs", "list", "board-jobs", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    text = " ".join(listed.stdout.split())
    assert "board-jobs/job-1/public" in text
    assert "private-data" not in text and "unreadable" not in text, text


def test_json_nested_too_deep_is_an_unreadable_run_in_every_command(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Probe NEW-B: a manifest.json nested 2,000 deep (4 kB), or one such line in calls.jsonl,
    made ``runs list``, ``view``, ``score``, ``eval --out`` and ``submit`` exit 1 with a
    RecursionError traceback, and hid every other run of the folder."""
    nested = "[" * 2_000 + "]" * 2_000
    (runs["part"] / "manifest.json").write_text(nested)
    with open(runs["broken"] / "calls.jsonl", "a") as calls:
        calls.write(f'{{"question_id": "s0-tom", "reply": {nested}}}\n')
    listed = coordqa("runs", "list", "runs", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    text = " ".join(listed.stdout.split())
    assert "runs/a" in text and "runs/b" in text
    assert "runs/part unreadable: manifest.json is corrupt (it nests deeper than 64" in text
    assert "runs/broken unreadable: its records cannot be read" in text
    exported = coordqa("view", "runs", "--export", "site", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    index = " ".join((tmp_path / "site" / "index.html").read_text().split())
    assert "runs/part" in index and "runs/broken" in index and "nests deeper than 64" in index
    for deep in ("part", "broken"):
        for command in (
            ("score", f"runs/{deep}"),
            ("eval", "--model", "random", "--limit", "3", "--trials", "2", "--out", f"runs/{deep}"),
            ("submit", f"runs/{deep}", "--out", "bundle.json"),
        ):
            refused = coordqa(*command, cwd=tmp_path)
            assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
            said = " ".join(refused.stderr.split())
            assert "Traceback" not in said, said
            if command[0] == "eval" and deep == "broken":
                # its manifest opens and names another run (dataset 't'): that is said first
                # (walkthrough 4 B2), before its records are read
                assert "holds a run on another dataset: 't'" in said, said
                continue
            assert "nests deeper than 64 levels" in said, said


def _listed_after(tmp_path: Path, *commands: list[str | Path]) -> str:
    """``coordqa runs list runs`` (words joined by one space) after each command succeeded."""
    for command in commands:
        done = coordqa(*command)
        assert done.returncode == 0, done.stderr
    listed = coordqa("runs", "list", "runs", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    return " ".join(listed.stdout.split())


def test_runs_list_names_an_agentic_runs_agent_and_partner(tmp_path: Path) -> None:
    """Walkthrough 3: agentic runs were listed as ``scripted · smoke``, model and grid without
    the agent; each now reads ``cac with itself · scripted · ...`` (the partner when it has one)."""
    game = ["agentic", "run", "--model", "scripted", "--game", "collab_escape", "--seeds", "0"]
    runs = tmp_path / "runs"
    text = _listed_after(
        tmp_path,
        [*game, "--agent", "cac", "--self-play", "--out", runs / "sp"],
        [*game, "--agent", "hm", "--partner", "escape-greedy", "--out", runs / "xp"],
    )
    assert "runs/sp cac with itself · scripted · cac-scripted-collab_escape" in text, text
    assert "runs/xp hm with escape-greedy · scripted · hm-scripted-collab_escape" in text, text


def test_runs_list_names_a_play_runs_players(tmp_path: Path) -> None:
    """Walkthrough 5 #144: a play run was listed as ``runs/hanabi-convention  - · hanabi``,
    with no players; it reads as an agentic run does (``A with itself``, ``A with B``)."""
    runs = tmp_path / "runs"
    given = ("--players", "escape-greedy,escape-planner", "--episodes", "1")
    text = _listed_after(
        tmp_path,
        ["play", "collab_escape", *given, "--out", runs / "pair"],
        ["play", "collab_escape", "--episodes", "1", "--out", runs / "default"],
    )
    assert "runs/pair escape-greedy with escape-planner · - · collab_escape" in text, text
    assert "runs/default escape-planner with itself · - · collab_escape" in text, text


def test_runs_list_of_unreadable_runs_alone_lists_them_as_beside_a_readable_one(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough 4 #127, #133: a folder holding only unreadable runs (a corrupt manifest,
    records without one), or the unreadable run folder itself, crashed ``runs list`` with
    ``TypeError: 'int' object is not iterable``; beside a readable run it listed them (exit 0)."""
    only = tmp_path / "only"
    only.mkdir()
    for name in ("part", "broken"):
        runs[name].rename(only / name)
    (only / "part" / "manifest.json").write_text("{'model': 'cut here")
    (only / "broken" / "manifest.json").unlink()
    for folder, unreadable in (
        ("only", ("only/broken", "only/part")),
        ("only/part", ("only/part",)),
    ):
        listed = coordqa("runs", "list", folder, cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        assert "Traceback" not in listed.stderr
        text = " ".join(listed.stdout.split())
        assert f"no readable runs in {folder}" in text, text
        assert "accuracy" not in text, text  # no table without a row
        for path in unreadable:
            assert f"{path} unreadable: " in text, text
        assert text.count("restore manifest.json from where the run was copied") == len(unreadable)


def test_compare_refuses_different_question_sets_in_its_own_words(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough 15 R8 (#139): ``compare`` of two runs over different question sets gave
    ``report``'s advice (set directories, "the report then says so"). Compare takes two runs:
    its advice is to run one on the other's question set, or ``--allow-mixed``, which works."""
    refused = coordqa("compare", runs["a"], runs["part"])
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert "different question sets" in said and "--limit 3" in said, said
    assert "Compare two runs of one question set: run B on A's dataset with A's filters" in said
    assert "directories alone" not in said and "report" not in said, said
    mixed = coordqa("compare", runs["a"], runs["part"], "--allow-mixed")
    assert mixed.returncode == 0, mixed.stderr
    assert "different question sets (--allow-mixed)" in " ".join(mixed.stderr.split())


def test_a_folder_of_runs_of_several_question_sets_is_reported_as_the_guide_says(
    tmp_path: Path,
) -> None:
    """Walkthrough 6 R4: the guide's ``coordqa report runs/`` refused (rc 2) the folder its own
    commands make, and did not say how to report part of it. The refusal says which runs to
    give, and the ways the guide shows (run directories, a glob, --allow-mixed) work."""
    from source_tree import ROOT

    folder = tmp_path / "runs"
    for name, trials, extra in (
        ("random-a", 2, {}),
        ("random-b", 1, {}),
        ("part", 2, {"limit": 3}),
    ):
        kept = {k: v[:trials] for k, v in A_OUTCOMES.items() if "limit" not in extra or "s0" in k}
        write_qa_run(folder / name, "m", rows(kept), trials=trials, **extra)
    refused = coordqa("report", folder, "--out", tmp_path / "rep")
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert f"filters none: 2 runs ({folder / 'random-a'}, {folder / 'random-b'})" in said, said
    assert f"--limit 3: 1 run ({folder / 'part'})" in said, said
    assert "give its runs' directories alone" in said and "--allow-mixed" in said, said
    assert not (tmp_path / "rep").exists()
    chosen = coordqa("report", *sorted(folder.glob("random-*")), "--out", tmp_path / "rep")
    assert chosen.returncode == 0, chosen.stderr
    mixed = coordqa("report", folder, "--allow-mixed", "--out", tmp_path / "mixed")
    assert mixed.returncode == 0, mixed.stderr
    guide = " ".join((ROOT / "docs" / "looking-at-runs.md").read_text().split())
    assert "coordqa report runs/random-*" in guide and "runs of one question set" in guide


def test_a_folder_of_two_datasets_with_mixed_question_sets_is_refused_once_for_both(
    tmp_path: Path,
) -> None:
    """Walkthrough 22 R4: ``coordqa report runs/`` over runs of two datasets, each with a
    ``--limit`` run beside a full one, refused with the first dataset's question sets only, its
    runs named ``random (limit=none)``. One refusal says both datasets, each run by the
    directory the advice asks for; giving one set's directories of each dataset works."""
    folder = tmp_path / "runs"
    part = {k: v for k, v in A_OUTCOMES.items() if k.startswith("s0")}
    for name, dataset, outcomes, extra in (
        ("a", "t", A_OUTCOMES, {}),
        ("b", "t", part, {"limit": 3}),
        ("c", "fresh", A_OUTCOMES, {}),
        ("d", "fresh", part, {"limit": 3}),
    ):
        write_qa_run(
            folder / name, "m", rows(outcomes), trials=2, dataset=dataset,
            fingerprint=dataset[0] * 64, **extra,
        )  # fmt: skip
    refused = coordqa("report", folder, "--out", tmp_path / "rep")
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert "dataset t (tttttttt), 2 question sets:" in said, said
    assert "dataset fresh (ffffffff), 2 question sets:" in said, said
    for name in "abcd":
        assert f"1 run ({folder / name})" in said, said
    assert "limit=none" not in said and "m (" not in said, said
    assert "one question set of each dataset: give its runs' directories alone" in said, said
    chosen = coordqa("report", folder / "a", folder / "c", "--out", tmp_path / "rep")
    assert chosen.returncode == 0, chosen.stderr


def _unshared_run(tmp_path: Path) -> Path:
    """A run that asked none of A's questions (as a run of another release: other texts)."""
    other = {qid.replace("s0", "s2").replace("s1", "s3"): v for qid, v in A_OUTCOMES.items()}
    return write_qa_run(tmp_path / "runs" / "other", "openai/gpt-4o", rows(other), trials=2)


def test_compare_of_runs_that_share_no_question_refuses(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough 7 R4: ``compare --allow-mixed`` of runs of two releases printed all-NaN tables,
    a 0 x 0 table and an empty list, exit 0: a paired comparison of nothing is no result."""
    other = _unshared_run(tmp_path)
    result = coordqa("compare", runs["a"], other, "--allow-mixed")
    assert result.returncode == 2, result.stdout
    said = " ".join(result.stderr.split())
    assert "share no question" in said and "runs of one dataset" in said, said
    assert result.stderr.count("error:") == 1 and "NaN" not in result.stdout + result.stderr


def test_report_of_runs_that_share_no_question_says_so_instead_of_nan(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Each run's own accuracy stays (it means something); the pair says no question is shared."""
    other = _unshared_run(tmp_path)
    result = coordqa("report", runs["a"], other, "--allow-mixed", "--out", tmp_path / "rep")
    assert result.returncode == 0, result.stderr
    assert fits(result.stdout), result.stdout
    words = " ".join(result.stdout.split())
    assert "0.750 ± 0.250" in words  # A's EC accuracy, as in the report of A and B
    paired = words.split("paired comparisons")[1].split("correlations")[0]
    assert "no question is shared" in paired and "NaN" not in paired, words
    markdown = " ".join((tmp_path / "rep" / "report.md").read_text().split())
    paired = markdown.split("## Paired comparisons")[1].split("## Correlations")[0]
    assert "no question is shared" in paired and "NaN" not in paired, paired


def test_compare_says_each_incomplete_run_is_one_what_it_lacks_and_how_to_finish_it(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Walkthrough 23, h23g item 1: ``compare`` of an interrupted run (554 of 594 samples) with a
    complete one paired what both stored and said nothing of the rest: its footnote "0 pairs with
    an error in A or B left out" read as if nothing was. Each incomplete run is now marked as
    ``coordqa report`` marks it, with what it lacks, that those pairs are left out, and how to
    finish it."""
    cut = {**A_OUTCOMES, "s1-tom": ["right"], "s1-jp": ["no_answer"]}  # trial 1 never stored
    unfinished = write_qa_run(tmp_path / "runs" / "inc", "random", rows(cut), trials=2)
    result = coordqa("compare", unfinished, runs["b"])
    assert result.returncode == 0, result.stderr
    assert fits(result.stdout), result.stdout
    words = " ".join(result.stdout.split())
    assert "A = random *, B = openai/gpt-4o" in words, words
    assert "of 10 (question, trial) pairs" in words, words  # 12 planned, 2 missing
    said = (
        "* A (random) is an incomplete run: 2 missing of 12 samples, left out of this "
        "comparison; run the command that wrote it again to finish it (`coordqa eval` with the "
        f"same options, --out {unfinished};"
    )
    assert said in words, words
    assert "B (openai/gpt-4o) is an incomplete run" not in words, words
    both = coordqa("compare", unfinished, runs["broken"])  # an error makes a run incomplete too
    words = " ".join(both.stdout.split())
    assert "A = random *, B = m *" in words, words
    assert "* B (m) is an incomplete run: 1 error of 12 samples, left out of this" in words, words
    assert "2 missing of 12 samples" in words, words
    complete = coordqa("compare", runs["a"], runs["b"])
    assert "incomplete" not in complete.stdout, complete.stdout


def test_compare_breaks_no_word_at_80_columns(runs: dict[str, Path]) -> None:
    """Walkthrough 7 #329: the titles and captions wrapped to the tables' ~40 columns and cut
    ``disagree`` in two."""
    result = coordqa("compare", runs["a"], runs["b"])
    assert result.returncode == 0, result.stderr
    assert fits(result.stdout), result.stdout
    assert "both-wrong,disagree" in result.stdout, result.stdout
    title = f"A = {LONG_MODEL}, B = openai/gpt-4o"
    assert title in " ".join(result.stdout.split()), result.stdout


def test_report_of_two_models_says_correlations_need_three_instead_of_nan(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Issue 38: two models gave a correlations table of ``nan (NaN)``. A correlation across
    models needs at least 3 (MIN_MODELS_FOR_CORRELATION); the report says so, and how many."""
    result = coordqa("report", runs["a"], runs["b"], "--out", tmp_path / "rep")
    assert result.returncode == 0, result.stderr
    words = " ".join(result.stdout.split())
    said = "need at least 3 models with both values; these runs give 2"
    assert said in words and "nan" not in words.lower(), words
    markdown = (tmp_path / "rep" / "report.md").read_text()
    section = " ".join(markdown.split("## Correlations")[1].split("## JP failures")[0].split())
    assert said in section and "nan" not in section.lower(), section


def test_runs_list_tells_apart_runs_of_a_dataset_name_by_content(tmp_path: Path) -> None:
    """Walkthrough 17, R8: after ``dataset generate --overwrite`` into ``fresh/`` a set's old and
    new members were both listed ``random · fresh/``; the set's summary says ``fresh/ (dfafcd5a)``.
    A name shared by one content only is listed as it is."""
    old, new = "dfafcd5a" + "0" * 56, "3b0c11aa" + "1" * 56
    for name, fingerprint, dataset in (("old", old, "fresh/"), ("new", new, "fresh/")):
        write_qa_run(
            tmp_path / "runs" / name, "random", rows(SIX_QUESTIONS), trials=1,
            dataset=dataset, fingerprint=fingerprint,
        )  # fmt: skip
    write_qa_run(tmp_path / "runs" / "other", "random", rows(SIX_QUESTIONS), trials=1, dataset="o")
    result = coordqa("runs", "list", "runs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "runs/old random · fresh/ (dfafcd5a)" in text, text
    assert "runs/new random · fresh/ (3b0c11aa)" in text, text
    assert "runs/other random · o " in text, text


def test_runs_list_tells_apart_by_content_across_every_folder_it_lists(tmp_path: Path) -> None:
    """Walkthrough 21, R1 (#56, #280): ``runs list A B`` with two run directories of ``fresh/``
    on different contents printed ``random · fresh/`` for both; the rule saw one folder at a
    time. It sees every run the command lists, so each is shown with its content's fingerprint."""
    old, new = "dfafcd5a" + "0" * 56, "3b0c11aa" + "1" * 56
    for name, fingerprint in (("old", old), ("new", new)):
        write_qa_run(
            tmp_path / "runs" / name, "random", rows(SIX_QUESTIONS), trials=1,
            dataset="fresh/", fingerprint=fingerprint,
        )  # fmt: skip
    result = coordqa("runs", "list", "runs/old", "runs/new", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "runs/old random · fresh/ (dfafcd5a)" in text, text
    assert "runs/new random · fresh/ (3b0c11aa)" in text, text


def test_an_agentic_run_with_model_args_is_listed_by_its_models_name(tmp_path: Path) -> None:
    """Walkthrough 24 R1: ``runs list`` showed a grid model played with ``--model-arg`` as a
    Python dict, ``{'name': 'llamacpp/...gguf', 'api_base': None, 'model_args': {...}}``."""
    config = {
        "name": "grid",
        "agents": ["cac"],
        "models": [{"name": "llamacpp/g.gguf", "api_base": None, "model_args": {"n": 1}}],
    }
    RunStore.create(tmp_path / "ag", RunManifest(kind="agentic", config=config, fingerprint="x"))
    listed = coordqa("runs", "list", tmp_path)
    assert listed.returncode == 0, listed.stderr
    said = " ".join(listed.stdout.split())
    assert "llamacpp/g.gguf" in said and "'name'" not in said and "model_args" not in said, said


def test_compare_lists_question_ids_whole_to_be_copied(tmp_path: Path) -> None:
    """Walkthrough 27 (#157): ``compare --only both-wrong`` folded ``overcooked-coordination_
    ring-05-ToM`` onto two lines in a table with room to spare: an id cannot be copied then."""
    for name, model in (("a", "random"), ("b", "scripted")):
        made = coordqa("eval", "--model", model, "--trials", "1", "--out", tmp_path / name)
        assert made.returncode == 0, made.stderr
    result = coordqa("compare", tmp_path / "a", tmp_path / "b", "--only", "both-wrong,disagree")
    assert result.returncode == 0, result.stderr
    listed = [line.split()[0] for line in result.stdout.splitlines() if "-ToM " in line]
    assert listed and all(question.endswith("-ToM") for question in listed), listed
    assert any(len(question) > 30 for question in listed), listed
    assert "…" not in result.stdout  # walkthrough 28 (#149): no other column cut for the ids


def test_compare_of_runs_sharing_no_question_does_not_advise_allow_mixed(tmp_path: Path) -> None:
    """Walkthrough 28 (B1): two runs of different releases sharing no question were refused as
    mixed question sets with "pass --allow-mixed to compare them anyway", which then failed on
    "share no question". The first refusal is that one."""
    for name, dataset in (("a", "coordinationqa-v1.2"), ("b", "coordinationqa-v1.1")):
        made = coordqa(
            "eval", "--model", "random", "--dataset", dataset, "--limit", "6", "--trials", "1",
            "--out", tmp_path / name,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
    refused = coordqa("compare", tmp_path / "a", tmp_path / "b")
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert "share no question" in said and "--allow-mixed to compare" not in said, said


def test_report_says_it_reads_the_runs_when_reading_takes_time(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blind walkthrough: a report over 85 runs read them for minutes with nothing on screen.
    Past :data:`~coordqa.cli._progress.READING_NOTE_S` it says so, once, on stderr; a report
    that reads fast says nothing more than before."""
    from coordqa.cli import _progress

    monkeypatch.setattr(_progress, "READING_NOTE_S", 600.0)  # read before the note is due
    quick = coordqa("report", runs["a"], runs["b"], "--out", tmp_path / "quick")
    assert quick.returncode == 0 and "reading" not in quick.stderr, quick.stderr
    monkeypatch.setattr(_progress, "READING_NOTE_S", 0.0)  # as if reading took time
    slow = coordqa("report", runs["a"], runs["b"], "--out", tmp_path / "slow")
    assert slow.returncode == 0, slow.stderr
    assert slow.stderr.splitlines()[0] == "reading 2 runs...", slow.stderr
    assert slow.stderr.count("reading") == 1 and "reading" not in slow.stdout
