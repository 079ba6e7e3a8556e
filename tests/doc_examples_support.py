"""Run the ``coordqa`` commands and Python blocks a documentation page shows, offline, as a reader
would type them.

Docs are code: every command and Python example README.md or the guide shows runs in a test, or
is marked as needing what a test cannot have, and then a command's words still go through the
real CLI's parser (a Python block is still compiled), so a renamed flag cannot leave a false
example behind. tests/test_doc_examples.py runs every page of the
checkout; ``python tests/doc_examples_support.py ROOT [PAGE...]`` runs the pages of another tree
(README.md and docs/**/*.md under ROOT) and prints what each command did, with its seconds.

The convention the pages follow:

- **Commands** are the lines of fenced blocks tagged ``bash``, ``sh``, ``shell`` or ``console``
  that start with ``coordqa `` (a trailing ``\\`` continues a line, a ``$ `` prompt is dropped; in
  a ``console`` block only prompted lines are read, the rest is output). ``NAME=value coordqa
  ...`` sets NAME for that command. ``export NAME=value`` lines set the page's environment from
  there on. Any other line (``pip install .``, ``cd``, ``bash scripts/test.sh``) is not run and is
  listed as "not a coordqa command"; whole-line comments and blank lines are skipped.
- **Files**: a fenced block (any tag) whose first line is a comment naming a file
  (``# models.yaml``, ``# grids/my-grid.yaml``) is that file: the rest of the block is written into
  the page's folder at the point where the page shows it.
- **Python blocks** are the fenced blocks tagged ``python`` or ``py`` that are not files (above).
  Each runs as a program in a fresh ``python -`` (this interpreter, so the installed coordqa),
  in the page's folder and environment, in document order with the commands, bounded by
  :data:`COMMAND_LIMIT_S`, and must exit 0; its tracebacks number lines as the page does. A
  block sees only what the page made before it: a file it reads (``local-models.yaml``) is
  shown on its page, since each page runs alone in its own folder. Comment lines (``# in a
  notebook: result = await ...``) are only comments. A block whose first line is a marker
  comment (``# needs an API key``, ...) is only compiled.
- **Markers**, in a command's trailing comment (its first words; an explanation may follow):
  ``# needs an API key``, ``# needs a GPU``, ``# needs the internet``, ``# needs your plugin``
  (a recipe's made-up game or agent, which exists once the reader has written it), ``# needs
  your code`` (a recipe's change to coordqa, a made-up option or column), ``# needs
  your board's token`` (the secret ``leaderboard token create`` printed, which a page cannot hand
  to a later command without a pipe or ``$(...)``): the command is only parsed (an unknown
  option or command, a missing argument, a bad choice or value fails; nothing runs).
  ``# exits N``: the command fails on purpose and must exit with status N. Every other command
  runs and must exit 0.
- **Offline world**: a page's commands run in document order in one fresh folder, with their own
  cache, data and user folders and no API key or ``COORDQA_*`` variable inherited: built-in models
  (``random``, ``scripted``, ``bot``), the local OpenAI-compatible stub the pages call
  ``http://127.0.0.1:8000/v1`` (a :class:`~coordqa.llm.testing.LocalOpenAIServer`, which answers
  ``Answer: A``), and servers the page starts itself. Serving commands (``leaderboard serve``,
  ``view`` without ``--export``, ``leaderboard worker`` without ``--once``) run as background
  processes, each on a free port, waited for until they answer; every later ``127.0.0.1:PORT``
  or ``localhost:PORT`` of the port the page gave one (or its default port), in commands and in
  files, is pointed at the newest server of that port, and they are stopped when the page ends.
  Other commands run in this process (:mod:`cli_support`), each bounded by
  :data:`COMMAND_LIMIT_S`.
- **Shell**: quotes, backslashes, ``$NAME`` / ``${NAME}``, globs (``runs/*``) and one ``> FILE``
  at the end (stdout into FILE) work as in a shell; pipes, ``&&``, ``;``, other redirections and
  command substitution are refused: a page shows one command per line.
"""

from __future__ import annotations

import glob
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx
import typer
from cli_support import USER_DIR_VARIABLES, coordqa, parse_command
from typer._click.exceptions import ClickException

from coordqa.llm.testing import LocalOpenAIServer

SHELL_TAGS = frozenset({"bash", "sh", "shell", "console"})
"""Info strings of the fenced blocks whose lines are shell commands."""

PYTHON_TAGS = frozenset({"python", "py"})
"""Info strings of the fenced blocks that are Python programs."""

STUB_PORT = 8000
"""The port of ``http://127.0.0.1:8000/v1``, the pages' local OpenAI-compatible server."""

COMMAND_LIMIT_S = 180.0
"""Longest a command run in this process may take (a hung command fails instead of hanging)."""

SERVE_WAIT_S = 90.0
"""Longest a serving command may take to answer its first request (imports under load)."""

PORTLESS_GRACE_S = 8.0
"""How long a serving command without a port (a waiting worker) is watched for an early failure
(a bad ``--db``) before the page goes on: it has no request to answer to say it is up."""

STOP_WAIT_S = 15.0
"""How long a stopped background command is given to end before it is killed."""

OUTPUT_TAIL = 1500
"""Characters of a failing command's output shown in its report."""

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\s`]*)")
_FILE_LABEL = re.compile(r"^#[ \t]*(?P<name>(?:[\w-][\w.-]*/)*[\w-][\w.-]*\.[A-Za-z0-9]+)[ \t]*$")
_PARSE_ONLY = re.compile(
    r"^needs (an API key|a GPU|the internet|your plugin|your code|your board's token)\b",
    re.IGNORECASE,
)
_EXITS = re.compile(r"^exits (\d+)\b", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_COMMAND_LINE = re.compile(r"^(?:[A-Za-z_]\w*=\S*[ \t]+)*coordqa(?:[ \t]|$)")
_EXPORT_LINE = re.compile(r"^export[ \t]")
_LOOPBACK_PORT = re.compile(r"(?<=127\.0\.0\.1:|localhost:)(\d+)")
_SECRET = re.compile(r"(_API_KEY|_TOKEN|_SECRET)$")
_SERVING = {("leaderboard", "serve"), ("view",), ("leaderboard", "worker")}
_ENTRY = "import sys; sys.argv[0] = 'coordqa'; from coordqa.cli import main; main()"


# ----------------------------------------------------------------------------- reading a page


@dataclass(frozen=True)
class FileStep:
    """A block that is a file: written into the page's folder as ``name``."""

    line: int
    name: str
    content: str


@dataclass(frozen=True)
class ShellStep:
    """One shell line of a page, continuations joined, prompt dropped."""

    line: int
    text: str


@dataclass(frozen=True)
class PythonStep:
    """A Python block (not a file): run with ``python -`` in the page's folder."""

    line: int
    code: str

    @property
    def text(self) -> str:
        """How a report names the block: its first line."""
        first = self.code.split("\n", 1)[0].strip()
        return f"python block: {first}"


Step = FileStep | ShellStep | PythonStep


@dataclass(frozen=True)
class _Block:
    line: int
    """Line number (1-based) of the block's first content line."""
    info: str
    lines: list[str]


def _fenced_blocks(markdown: str) -> Iterator[_Block]:
    """Every fenced code block, indented ones (in a list) included, with the fence's indent off."""
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        index += 1
        if opening is None:
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        start, content = index + 1, []
        while index < len(lines):
            stripped = lines[index].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            line = lines[index]
            content.append(line[min(indent, len(line) - len(line.lstrip())) :])
            index += 1
        index += 1
        yield _Block(start, opening["info"].lower(), content)


def page_steps(markdown: str) -> list[Step]:
    """The files, shell lines and Python blocks of a page, in document order."""
    steps: list[Step] = []
    for block in _fenced_blocks(markdown):
        label = _FILE_LABEL.match(block.lines[0].strip()) if block.lines else None
        if label is not None:
            content = "\n".join(block.lines[1:]) + "\n"
            steps.append(FileStep(block.line, label["name"], content))
        elif block.info in SHELL_TAGS:
            steps += _shell_lines(block)
        elif block.info in PYTHON_TAGS:
            steps.append(PythonStep(block.line, "\n".join(block.lines) + "\n"))
    return steps


def _shell_lines(block: _Block) -> Iterator[ShellStep]:
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(block.lines, start=block.line):
        text = raw.strip()
        if pending is None:
            if block.info == "console":
                if not text.startswith("$ "):
                    continue  # a console block's output
                text = text[2:].strip()
            elif text.startswith("$ "):
                text = text[2:].strip()
            if not text or text.startswith("#"):
                continue
            pending = (number, "")
        start, joined = pending
        if text.endswith("\\"):
            pending = (start, joined + text[:-1])
            continue
        pending = None
        yield ShellStep(start, joined + text)
    if pending is not None:
        yield ShellStep(pending[0], pending[1].rstrip())


# ----------------------------------------------------------------------------- shell words


class ShellSyntaxError(ValueError):
    """A line uses shell syntax the harness does not run (a pipe, ``&&``, ``$(...)``)."""


@dataclass(frozen=True)
class Token:
    """A word of a shell line after quoting and ``$NAME``, or an operator (``|``, ``>``)."""

    text: str
    operator: bool = False
    pattern: bool = False
    """Whether the word has an unquoted ``*``, ``?`` or ``[``: a glob the shell would expand."""


def shell_split(text: str, environment: Mapping[str, str]) -> tuple[list[Token], str]:
    """The tokens of a shell line and its trailing comment (without ``#``), as POSIX sh reads
    them: quotes, backslashes, ``$NAME`` and ``${NAME}`` from ``environment`` (unset: empty)."""
    tokens: list[Token] = []
    word: list[str] | None = None
    pattern = False
    index = 0

    def end_word() -> None:
        nonlocal word, pattern
        if word is not None:
            tokens.append(Token("".join(word), pattern=pattern))
        word, pattern = None, False

    while index < len(text):
        char = text[index]
        if char in " \t":
            end_word()
            index += 1
        elif char == "#" and word is None:
            return tokens, text[index + 1 :].strip()
        elif char in "|&;<>()":
            end_word()
            end = index + 1
            while end < len(text) and end - index < 2 and text[end] in "|&;<>":
                end += 1
            tokens.append(Token(text[index:end], operator=True))
            index = end
        else:
            word = [] if word is None else word
            if char == "\\":
                word.append(text[index + 1 : index + 2])
                index += 2
            elif char == "'":
                end = text.find("'", index + 1)
                if end < 0:
                    raise ShellSyntaxError("an unclosed ' quote")
                word.append(text[index + 1 : end])
                index = end + 1
            elif char == '"':
                index = _double_quoted(text, index + 1, environment, word)
            elif char in "$`":
                value, index = _expansion(text, index, environment)
                word.append(value)
            else:
                pattern = pattern or char in "*?["
                word.append(char)
                index += 1
    end_word()
    return tokens, ""


def _double_quoted(text: str, index: int, environment: Mapping[str, str], word: list[str]) -> int:
    """Read a ``"..."`` from after its opening quote into ``word``; the index after its end."""
    while index < len(text):
        char = text[index]
        if char == '"':
            return index + 1
        if char == "\\" and text[index + 1 : index + 2] in ('"', "\\", "$", "`"):
            word.append(text[index + 1])
            index += 2
        elif char in "$`":
            value, index = _expansion(text, index, environment)
            word.append(value)
        else:
            word.append(char)
            index += 1
    raise ShellSyntaxError('an unclosed " quote')


def _expansion(text: str, index: int, environment: Mapping[str, str]) -> tuple[str, int]:
    """``$NAME`` or ``${NAME}`` at ``index``: its value and the index after it (a command
    substitution, ``$(...)`` or a backquote, is refused)."""
    rest = text[index + 1 :]
    if text[index] == "`":
        raise ShellSyntaxError("command substitution (`...`)")
    if rest.startswith("("):
        raise ShellSyntaxError("command substitution ($(...))")
    braced = re.match(r"\{([A-Za-z_]\w*)\}", rest)
    plain = re.match(r"[A-Za-z_]\w*", rest)
    if braced is not None:
        return environment.get(braced[1], ""), index + 1 + braced.end()
    if plain is not None:
        return environment.get(plain[0], ""), index + 1 + plain.end()
    return "$", index + 1


# ----------------------------------------------------------------------------- outcomes


Kind = Literal["ran", "served", "parsed", "file", "export", "not coordqa"]
"""What the harness did with a step: ran it in this process, served it in the background,
parsed it only (a marker), wrote a file, set the environment, or left alone a line that is not a
coordqa command."""

COMMAND_KINDS: frozenset[Kind] = frozenset({"ran", "served", "parsed"})


@dataclass(frozen=True)
class Outcome:
    """What became of one step of a page."""

    line: int
    text: str
    kind: Kind
    seconds: float = 0.0
    failure: str = ""
    """Why the step failed; empty when it did what the page says."""
    output: str = ""
    """The tail of the command's output (stdout then stderr), kept for failures."""

    @property
    def failed(self) -> bool:
        return bool(self.failure)


@dataclass(frozen=True)
class PageReport:
    """Every step of one page and how long the page took."""

    page: str
    outcomes: list[Outcome]
    seconds: float

    @property
    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.failed]

    def count(self, *kinds: Kind) -> int:
        return sum(outcome.kind in kinds for outcome in self.outcomes)

    def summary(self) -> str:
        """One line: commands found, run, parse-only, failed, seconds."""
        return (
            f"{self.page}: {self.count(*COMMAND_KINDS)} commands, "
            f"{self.count('ran', 'served')} run, {self.count('parsed')} parse-only, "
            f"{len(self.failures)} failed, {self.count('not coordqa')} not coordqa commands, "
            f"{self.count('file')} files; {self.seconds:.1f} s"
        )

    def describe(self, outcome: Outcome) -> str:
        """``page:line`` and the command, then why it failed and the tail of its output."""
        head = f"{self.page}:{outcome.line}: {outcome.text}\n    {outcome.failure}"
        if not outcome.output.strip():
            return head
        tail = "\n".join(f"    | {line}" for line in outcome.output.strip().splitlines())
        return f"{head}\n{tail}"

    def failure_text(self) -> str:
        return "\n\n".join(self.describe(outcome) for outcome in self.failures)


# ----------------------------------------------------------------------------- running a page


def documentation_pages(root: Path) -> list[Path]:
    """The pages whose commands are checked: README.md and every docs/**/*.md under ``root``."""
    pages = [root / "README.md"] if (root / "README.md").is_file() else []
    return pages + sorted((root / "docs").rglob("*.md"))


def run_page(page: Path, root: Path, folder: Path | None = None) -> PageReport:
    """Run every step of ``page`` (named relative to ``root``) in a fresh folder.

    ``folder``: where to run (kept afterwards, for a test that looks at what the page wrote);
    by default a temporary folder removed at the end.
    """
    name = page.relative_to(root).as_posix()
    started = time.monotonic()
    with ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="coordqa-doc-")))
        runner = stack.enter_context(_PageRunner(folder))
        outcomes = [runner.run(step) for step in page_steps(page.read_text(encoding="utf-8"))]
    ended = {outcome.line: outcome for outcome in runner.stopped}
    outcomes = [ended.get(outcome.line, outcome) for outcome in outcomes]
    return PageReport(name, outcomes, time.monotonic() - started)


@dataclass
class _Background:
    """A serving command running in its own process."""

    step: ShellStep
    process: subprocess.Popen[bytes]
    log: Path


@dataclass
class _PageRunner:
    """The state of one page: its folder, environment, ports and background processes."""

    folder: Path
    environment: dict[str, str | None] = field(default_factory=dict)
    ports: dict[int, int] = field(default_factory=dict)
    """The pages' loopback ports (8000, 8080...) and where they are really served."""
    background: list[_Background] = field(default_factory=list)
    stopped: list[Outcome] = field(default_factory=list)
    """Background commands that ended by themselves with a failure before the page ended: they
    replace the outcome of their start in the report."""
    _stack: ExitStack = field(default_factory=ExitStack)

    def __enter__(self) -> _PageRunner:
        self.work = self.folder / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        inherited = [name for name in os.environ if _SECRET.search(name) or "COORDQA_" in name]
        self.environment = dict.fromkeys(inherited)
        home = self.folder / "home"
        self.environment |= {name: str(home / name.lower()) for name in USER_DIR_VARIABLES}
        return self

    def __exit__(self, *exc: object) -> None:
        for running in self.background:
            self._stop(running)
        self._stack.close()

    def run(self, step: Step) -> Outcome:
        if isinstance(step, FileStep):
            return self._write(step)
        if isinstance(step, ShellStep) and _EXPORT_LINE.match(step.text):
            return self._export(step)
        if isinstance(step, ShellStep) and not _COMMAND_LINE.match(step.text):
            return Outcome(step.line, step.text, "not coordqa")
        started = time.monotonic()
        outcome = self._python(step) if isinstance(step, PythonStep) else self._command(step)
        return Outcome(
            outcome.line,
            outcome.text,
            outcome.kind,
            time.monotonic() - started,
            outcome.failure,
            outcome.output[-OUTPUT_TAIL:],
        )

    def _write(self, step: FileStep) -> Outcome:
        target = (self.work / step.name).resolve()
        if not target.is_relative_to(self.work.resolve()):
            return Outcome(step.line, step.name, "file", failure="the file is outside the folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self._loopback(step.content), encoding="utf-8")
        return Outcome(step.line, f"# {step.name}", "file")

    def _export(self, step: ShellStep) -> Outcome:
        try:
            tokens, _ = shell_split(step.text, self._shell_environment())
        except ShellSyntaxError as error:
            why = f"not run by the harness: {error}"
            return Outcome(step.line, step.text, "export", failure=why)
        words = [token.text for token in tokens[1:] if not token.operator]
        if len(words) != len(tokens) - 1 or not all(_ASSIGNMENT.match(word) for word in words):
            return Outcome(step.line, step.text, "export", failure="not export NAME=value ...")
        self.environment |= dict(word.split("=", 1) for word in words)
        return Outcome(step.line, step.text, "export")

    def _python(self, step: PythonStep) -> Outcome:
        """Compile the block; unless its first line is a marker, run it in a fresh ``python -``
        (its lines numbered as on the page) and fail on a non-zero exit."""

        def failed(kind: Kind, why: str, output: str = "") -> Outcome:
            return Outcome(step.line, step.text, kind, failure=why, output=output)

        code = "\n" * (step.line - 1) + self._loopback(step.code)
        first = step.code.lstrip().split("\n", 1)[0]
        marked = first.startswith("#") and _PARSE_ONLY.match(first[1:].strip()) is not None
        kind: Kind = "parsed" if marked else "ran"
        try:
            compile(code, "<stdin>", "exec")
        except SyntaxError as error:
            return failed(kind, f"does not compile: {error.msg} (line {error.lineno})")
        if kind == "parsed":
            return Outcome(step.line, step.text, kind)
        try:
            result = subprocess.run(
                [sys.executable, "-"],
                input=code,
                cwd=self.work,
                env=self._shell_environment(),
                capture_output=True,
                text=True,
                timeout=COMMAND_LIMIT_S,
            )
        except subprocess.TimeoutExpired:
            return failed(kind, f"still running after {COMMAND_LIMIT_S:.0f} s (stopped)")
        output = result.stdout + result.stderr
        if result.returncode != 0:
            return failed(kind, f"exit status {result.returncode}, the page expects 0", output)
        return Outcome(step.line, step.text, kind, output=output)

    def _shell_environment(self) -> dict[str, str]:
        """What ``$NAME`` reads: this process's environment as the page's commands see it."""
        merged = {**os.environ, **self.environment}
        return {name: value for name, value in merged.items() if value is not None}

    def _command(self, step: ShellStep) -> Outcome:
        def failed(kind: Kind, why: str, output: str = "") -> Outcome:
            return Outcome(step.line, step.text, kind, failure=why, output=output)

        try:
            tokens, comment = shell_split(step.text, self._shell_environment())
        except ShellSyntaxError as error:
            return failed("ran", f"not run by the harness: {error}")
        parse_only = _PARSE_ONLY.match(comment) is not None
        exits = _EXITS.match(comment)
        expected = int(exits[1]) if exits else 0
        kind: Kind = "parsed" if parse_only else "ran"
        try:
            environment, args, stdout_file = self._words(tokens)
        except ShellSyntaxError as error:
            return failed(kind, f"not run by the harness: {error}")
        try:
            path, params = parse_command(*args, env=environment, cwd=self.work)
        except ClickException as error:
            return failed(kind, f"the CLI refuses it: {error.format_message().splitlines()[0]}")
        except typer.Exit:
            return Outcome(step.line, step.text, kind)  # --help
        if parse_only:
            return Outcome(step.line, step.text, "parsed")
        if _serves(path, params):
            return self._serve(step, path, args, params, environment)
        try:
            with _time_limit(COMMAND_LIMIT_S):
                result = coordqa(*args, env=environment, cwd=self.work, columns=100)
        except _TooSlow:
            return failed("ran", f"still running after {COMMAND_LIMIT_S:.0f} s (stopped)")
        output = result.stdout + result.stderr
        if result.returncode != expected:
            why = f"exit status {result.returncode}, the page expects {expected}"
            return failed("ran", why, output)
        if stdout_file is not None:
            (self.work / stdout_file).write_text(result.stdout, encoding="utf-8")
        return Outcome(step.line, step.text, "ran", output=output)

    def _words(self, tokens: list[Token]) -> tuple[dict[str, str | None], list[str], str | None]:
        """The command's environment, its words after ``coordqa`` (globs expanded, loopback
        ports pointed at this page's servers) and the file its stdout goes to, if any."""
        stdout_file = None
        if len(tokens) >= 2 and tokens[-2].text == ">" and not tokens[-1].operator:
            stdout_file, tokens = tokens[-1].text, tokens[:-2]
        operators = [token.text for token in tokens if token.operator]
        if operators:
            raise ShellSyntaxError(f"shell operator {operators[0]!r} (one command per line)")
        environment = dict(self.environment)
        while tokens and _ASSIGNMENT.match(tokens[0].text):
            name, value = tokens[0].text.split("=", 1)
            environment[name] = value
            tokens = tokens[1:]
        words: list[str] = []
        for token in tokens[1:]:  # tokens[0] is coordqa
            matches = sorted(glob.glob(token.text, root_dir=self.work)) if token.pattern else []
            words += matches or [token.text]
        return environment, [self._loopback(word) for word in words], stdout_file

    def _loopback(self, text: str) -> str:
        """``text`` (a command's word, a file) with the pages' loopback ports replaced by where
        they are served here; 8000 starts the stub when first seen. A port that no server of the
        page took is left as written (its error names it)."""

        def served(match: re.Match[str]) -> str:
            port = int(match[1])
            if port == STUB_PORT and port not in self.ports:
                self.ports[port] = self._stub_port()
            return str(self.ports.get(port, port))

        return _LOOPBACK_PORT.sub(served, text)

    def _stub_port(self) -> int:
        stub = self._stack.enter_context(LocalOpenAIServer())
        return int(httpx.URL(stub.base_url).port or 0)

    def _serve(
        self,
        step: ShellStep,
        path: tuple[str, ...],
        args: list[str],
        params: dict[str, object],
        environment: Mapping[str, str | None],
    ) -> Outcome:
        """Start a serving command in the background and wait until it answers."""
        port = None
        if "port" in params:
            port = _free_port()
            documented = params["port"]
            if isinstance(documented, int) and documented != 0:
                self.ports[documented] = port  # later commands reach this server, the newest
            args = _with_port(args, port)
        log = self.folder / f"background-{step.line}.log"
        process_environment = {**os.environ, **environment}
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [sys.executable, "-c", _ENTRY, *args],
                cwd=self.work,
                env={k: v for k, v in process_environment.items() if v is not None},
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        running = _Background(step, process, log)
        why = _wait_until_answers(process, port) if port is not None else _early_end(process)
        if why:
            _end(process)
            output = log.read_text(errors="replace")
            return Outcome(step.line, step.text, "served", failure=why, output=output)
        self.background.append(running)
        return Outcome(step.line, step.text, "served")

    def _stop(self, running: _Background) -> None:
        status = running.process.poll()
        if status is None:
            _end(running.process)
        elif status != 0:
            step = running.step
            self.stopped.append(
                Outcome(
                    step.line,
                    step.text,
                    "served",
                    failure=f"ended by itself with exit status {status} before the page ended",
                    output=running.log.read_text(errors="replace")[-OUTPUT_TAIL:],
                )
            )


def _end(process: subprocess.Popen[bytes]) -> None:
    """Stop a background command as Ctrl-C would (SIGTERM), killing it if it does not end."""
    process.terminate()
    try:
        process.wait(STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _serves(path: tuple[str, ...], params: Mapping[str, object]) -> bool:
    """Whether the command keeps running until stopped (a server, a waiting worker)."""
    if path not in _SERVING:
        return False
    return not params.get("export") and not params.get("once")


def _with_port(args: Sequence[str], port: int) -> list[str]:
    """``args`` with ``--port`` set to ``port`` (added when the page relies on the default)."""
    rewritten = list(args)
    for index, word in enumerate(rewritten):
        if word == "--port" and index + 1 < len(rewritten):
            rewritten[index + 1] = str(port)
            return rewritten
        if word.startswith("--port="):
            rewritten[index] = f"--port={port}"
            return rewritten
    return [*rewritten, "--port", str(port)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_answers(process: subprocess.Popen[bytes], port: int) -> str:
    """Empty once ``http://127.0.0.1:PORT/`` answers anything; else why it never did."""
    deadline = time.monotonic() + SERVE_WAIT_S
    while time.monotonic() < deadline:
        status = process.poll()
        if status is not None:
            return f"the server ended with exit status {status} before it answered"
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2.0)
            return ""
        except httpx.TransportError:
            time.sleep(0.2)
    return f"the server did not answer within {SERVE_WAIT_S:.0f} s"


def _early_end(process: subprocess.Popen[bytes]) -> str:
    """Empty if the process is still running after :data:`PORTLESS_GRACE_S`; else its status."""
    try:
        status = process.wait(PORTLESS_GRACE_S)
    except subprocess.TimeoutExpired:
        return ""
    return f"ended by itself with exit status {status} right after it started"


class _TooSlow(BaseException):
    """Raised in the main thread when a command runs past its limit (not an ``Exception``, so
    the command's own error handling does not take it for one of its errors)."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Stop the block with :class:`_TooSlow` after ``seconds`` (main thread only: elsewhere no
    limit, since signals reach only the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ----------------------------------------------------------------------------- the script


def main(argv: Sequence[str]) -> int:
    """``ROOT [PAGE...]``: run the pages under ROOT (default: all), print every step; 1 on
    any failure."""
    if not argv:
        print("usage: python tests/doc_examples_support.py ROOT [PAGE...]", file=sys.stderr)
        return 2
    root = Path(argv[0]).resolve()
    pages = [root / page for page in argv[1:]] or documentation_pages(root)
    failed = False
    for page in pages:
        report = run_page(page, root)
        for outcome in report.outcomes:
            status = "FAILED" if outcome.failed else "ok"
            kind = "not a coordqa command" if outcome.kind == "not coordqa" else outcome.kind
            where = f"{report.page}:{outcome.line}"
            print(f"{where}\t{kind}\t{status}\t{outcome.seconds:.1f}s\t{outcome.text}")
        if report.failures:
            print("\n" + report.failure_text() + "\n")
        print(report.summary() + "\n")
        failed = failed or bool(report.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
