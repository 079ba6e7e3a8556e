"""How ``coordqa eval-set`` shows its members while they run, on stderr.

Every member's start, end and first error of each kind is a line of its own. On a terminal each
running member also has a live bar (samples stored of those it needs, errors, time elapsed);
elsewhere (a log, a pipe) one line sums the running members' samples at every tenth of them.
Progress snapshots come only from the local backend: Ray's tasks report when they end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console

from coordqa.cli._progress import already_answered, say_first_error
from coordqa.words import counted

if TYPE_CHECKING:
    from coordqa.evalset import SetEvent
    from coordqa.evaluation import EvalProgress


class SetDisplay:
    """Receives a set's events and prints a line for each member's start and end."""

    def __init__(self, console: Console, *, quiet: bool = False) -> None:
        """Print on ``console`` (a stderr console); ``quiet``: only errors (``--quiet``)."""
        self.console = console
        self.quiet = quiet
        self.latest: dict[str, EvalProgress] = {}
        """Each running member's last snapshot, by its label."""
        self.needed: dict[str, int] = {}
        """The samples each started member's run needs, by its label, known as it starts
        (every member starts before any reports progress)."""

    def __call__(self, event: SetEvent) -> None:
        """Show one event."""
        label = event.member.label
        state = event.state
        if event.kind == "failed" and state is not None and state.run is None:
            # stopped before its run began (a dead endpoint, a refused key): none of its
            # samples will be answered, so they leave the total (walkthrough 28, R6)
            self.needed.pop(label, None)
            self.latest.pop(label, None)
        if event.kind == "progress" and event.progress is not None:
            snapshot = event.progress
            if label not in self.latest and snapshot.resumed and not self.quiet:
                # as eval says it (walkthrough 31: a resumed member only said `start`)
                self.console.print(
                    f"resuming {label}: {already_answered(snapshot.resumed)}", highlight=False
                )
            if snapshot.new_error is not None:
                say_first_error(self.console, snapshot.new_error, where=f" in {label}")
            self.latest[label] = snapshot
            self.update(label, snapshot)
        elif event.kind == "started":
            self.needed[label] = event.member.samples
            if not self.quiet:
                self.console.print(f"start {label}", highlight=False)
        elif self.quiet and event.kind != "failed":
            return
        elif event.kind == "skipped":
            self.console.print(
                f"skip {label}: complete ({event.member.run})", highlight=False, soft_wrap=True
            )
        elif event.kind == "finished" and state is not None:
            self.console.print(
                f"[green]done[/] {label}: {state.answered}/{state.expected} samples",
                highlight=False,
            )
            self.ended()
        elif event.kind == "failed" and state is not None:
            self.console.print(f"[bold red]FAILED[/] {label}: {state.message}", highlight=False)
            self.ended()

    def update(self, label: str, snapshot: EvalProgress) -> None:
        """Show a member's progress."""

    def ended(self) -> None:
        """A member ended: show what the members have done, if not shown yet."""

    def stop(self) -> None:
        """Stop showing progress (idempotent)."""


class SetLines(SetDisplay):
    """A line summing the members' samples at every tenth of them, for logs.

    Its total is every started member's samples from its first line (walkthrough 22, R6: summed
    as each member reported, it grew, and the percentage jumped back).
    """

    def __init__(self, console: Console) -> None:
        """Print on ``console``."""
        super().__init__(console)
        self._printed = -1

    def update(self, label: str, snapshot: EvalProgress) -> None:
        """Print the sum when a tenth of the total has passed since the last line."""
        self._say()

    def ended(self) -> None:
        """Print the sum if it moved since the last line: the lines end counting every sample."""
        self._say(moved=True)

    def _say(self, *, moved: bool = False) -> None:
        """The sum, when a tenth of the total has passed (``moved``: any sample) since the last."""
        done = sum(s.done for s in self.latest.values())
        sizes = {label: s.total for label, s in self.latest.items()} | {
            label: samples for label, samples in self.needed.items() if samples
        }
        total = sum(sizes.values())
        if not total or done == self._printed:
            return
        if (moved and done > 0) or done - self._printed >= max(1, total // 10) or done == total:
            errors = sum(s.errors for s in self.latest.values())
            self.console.print(
                f"eval-set {done}/{total} samples ({done / total:.0%}) of "
                f"{counted(len(sizes), 'member')} started, {counted(errors, 'error')}",
                highlight=False,
            )
            self._printed = done


class SetBars(SetDisplay):
    """A live bar per running member, for a terminal."""

    def __init__(self, console: Console) -> None:
        """Draw on ``console``."""
        super().__init__(console)
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.table import Column

        self.progress = Progress(
            TextColumn(
                "{task.description}",
                table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis"),
            ),
            BarColumn(bar_width=12),
            MofNCompleteColumn(),
            TextColumn("{task.fields[errors]} err"),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            console=console,
            expand=True,
        )
        self.tasks: dict[str, Any] = {}

    def update(self, label: str, snapshot: EvalProgress) -> None:
        """Move the member's bar (drawn at its first snapshot, when its size is known)."""
        if label not in self.tasks:
            if not self.tasks:
                self.progress.start()
            self.tasks[label] = self.progress.add_task(label, total=snapshot.total, errors=0)
        self.progress.update(
            self.tasks[label], completed=snapshot.done, total=snapshot.total, errors=snapshot.errors
        )

    def stop(self) -> None:
        """Leave the bars as they ended and stop redrawing."""
        self.progress.stop()


def set_display(console: Console, *, quiet: bool = False) -> SetDisplay:
    """Bars on a terminal, summed lines elsewhere; with ``quiet``, errors only."""
    if quiet:
        return SetDisplay(console, quiet=True)
    return SetBars(console) if console.is_terminal else SetLines(console)
