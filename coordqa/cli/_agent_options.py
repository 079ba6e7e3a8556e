"""Agent options on the command line, generated from the players' options dataclasses.

``coordqa agentic run`` takes any option as ``--agent-option KEY=VALUE``; an option whose field
declares a flag of its own (the papers' ablation switches: ``--no-tom``, ``--variant``...,
:func:`coordqa.options.flag`) also gets that flag, with the field's docstring as its help. The
flags are built from the registered players the first time the command's parameters are asked
for (its help, or parsing its arguments), so ``coordqa --help`` never imports an agent, and a
plugin agent's flags appear without a line of CLI code.

The values a user gave are collected in ``ctx.meta`` and merged by :func:`given_options` into
the one mapping the grid parses with the agent's options class (once, with the preset's: here
only the names are checked, so a misspelt one is named as ``--agent-option``'s).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import typer
import typer.main
from typer.core import TyperCommand

from coordqa.errors import ConfigError
from coordqa.options import (
    Flag,
    OptionDoc,
    OptionValue,
    check_names,
    parse_assignment,
    parse_value,
)

__all__ = ["AgentOptionsCommand", "given_options"]

_GIVEN = "coordqa.agent_flags"
"""``ctx.meta`` key: flag name -> the value given for it."""

PANEL = "Agent options"
"""The help panel of the generated flags."""


@dataclass(frozen=True)
class FlagTarget:
    """What one generated flag sets: an option name, shared by the agents that declare it."""

    flag: Flag
    """The flag."""
    option: str
    """The option it sets."""
    owners: tuple[str, ...]
    """The players whose options class declares it."""
    doc: OptionDoc
    """The option's description (the first owner's)."""


def flag_targets() -> dict[str, FlagTarget]:
    """Every flag the registered players' options declare, by flag name.

    Raises:
        ConfigError: two players give one flag to options of different names (the flag
            would mean two things).
    """
    from coordqa.games.base import PLAYERS
    from coordqa.options import option_docs

    targets: dict[str, FlagTarget] = {}
    for name, spec in PLAYERS.items():
        for doc in option_docs(spec.options):
            if doc.flag is None:
                continue
            known = targets.get(doc.flag.name)
            if known is None:
                targets[doc.flag.name] = FlagTarget(doc.flag, doc.name, (name,), doc)
            elif known.option == doc.name and known.flag == doc.flag:
                targets[doc.flag.name] = FlagTarget(
                    known.flag, known.option, (*known.owners, name), known.doc
                )
            else:
                raise ConfigError(
                    f"flag {doc.flag.name} is declared for {known.owners[0]}'s {known.option} "
                    f"and for {name}'s {doc.name}; give one of them another flag"
                )
    return targets


def _help(target: FlagTarget) -> str:
    value = "VALUE" if not target.flag.is_switch else str(target.flag.sets).lower()
    return f"{', '.join(target.owners)}: {target.option}={value}. {target.doc.description}"


def _remember(ctx: Any, param: Any, value: object) -> None:
    if value is None or value is False:
        return
    ctx.meta.setdefault(_GIVEN, {})[param.opts[0]] = value


def _parameter(target: FlagTarget) -> inspect.Parameter:
    """The flag as a Typer-annotated keyword parameter."""
    name = target.flag.name.lstrip("-").replace("-", "_")
    info = typer.Option(
        target.flag.name,
        help=_help(target),
        metavar=None if target.flag.is_switch else target.doc.kind.upper(),
        rich_help_panel=PANEL,
        show_default=False,
    )
    kind, default = (bool, False) if target.flag.is_switch else (str | None, None)
    annotation = Annotated[kind, info]  # type: ignore[valid-type]
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(name, keyword, default=default, annotation=annotation)


def generated_flags() -> list[Any]:
    """Typer's parameters for the flags of :func:`flag_targets`, each recorded in ``ctx.meta``.

    Built by Typer itself from a signature, as it builds every declared option, so they look
    and parse like the others; they are not passed to the command (``expose_value`` off).
    """
    parameters = [_parameter(target) for target in flag_targets().values()]

    def flags(**values: object) -> None:
        """Carries the generated signature."""

    flags.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    flags.__annotations__ = {p.name: p.annotation for p in parameters}
    holder = typer.Typer()
    holder.command()(flags)
    params = list(typer.main.get_command(holder).params)
    for param in params:
        param.expose_value = False
        param.callback = _remember
    return params


class AgentOptionsCommand(TyperCommand):
    """A Typer command that adds a flag for each flagged option of the registered players."""

    _flags: list[Any] | None = None

    def get_params(self, ctx: Any) -> list[Any]:
        """The declared parameters, the generated flags, then ``--help``."""
        if self._flags is None:
            self._flags = generated_flags()
        *declared, help_option = super().get_params(ctx)
        return [*declared, *self._flags, help_option]


def given_options(
    ctx: typer.Context, agent: str, assignments: Sequence[str], game: str
) -> dict[str, OptionValue]:
    """The options given for ``agent`` of ``game``: ``--agent-option`` pairs and the flags.

    Their values are checked when the grid is read, which parses them with the preset's.

    Raises:
        ConfigError: a flag of an option ``agent`` does not have (naming the agents that do),
            one option given twice, or an option ``agent`` does not have.
    """
    targets = flag_targets()
    options: dict[str, OptionValue] = {}
    given: list[tuple[str, str, OptionValue]] = []
    for flag_name, value in ctx.meta.get(_GIVEN, {}).items():
        target = targets[flag_name]
        if agent not in target.owners:
            raise ConfigError(
                f"{flag_name} sets {target.option}, an option of {', '.join(target.owners)}; "
                f"agent {agent!r} does not take it. Use --agent {target.owners[0]}, or drop "
                f"{flag_name}."
            )
        shown = target.flag.sets if target.flag.is_switch else parse_value(str(value))
        given.append((flag_name, target.option, shown))
    for text in assignments:
        key, value = parse_assignment(text)
        given.append((f"--agent-option {text}", key, value))
    for source, key, value in given:
        if key in options:
            raise ConfigError(f"option {key} is given twice (again by {source}); give it once")
        options[key] = value
    from coordqa.games.base import role_player

    spec = role_player(agent, "agent", [game])
    check_names(spec.name, spec.options, options, "--agent-option")  # said here, not as a grid's
    return options
