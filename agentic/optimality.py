"""Plan optimality: an episode's steps to its goal against the strong policy's, same team.

Hypothetical Minds compared the actions an agent took with an optimal agent's; coordqa does the
same where the engines come with planners. A game takes part when its profile names a goal
(``GameProfile.goal``). The reference is the episode's own team with the agent replaced by the
game's strong policy (``GameProfile.strong_policy``): in self-play the policy in both seats, in
cross-play the policy in the agent's seat with the *same partner*, from the same game, layout,
seed and game options. So a team is compared with what its partner could reach with a strong
teammate, not with two planners (a scripted partner is slower than a planner, and the agent is
not to blame for that). Both step counts are read from the trajectories:

- Collab Capture: turns until the thief is caught; ``capture-planner`` plans the joint capture
  exactly, with the thief modelled exactly (the game is deterministic); with itself no pair of
  players can be faster, with another partner it re-plans each turn around what it sees;
- Collab Escape: turns until both players are out; ``escape-planner`` maximises the chance to
  escape. The killer moves at random, so the reference is one sample from the same seed, not a
  bound: a lucky team can beat it;
- Overcooked: timesteps until the first soup is delivered; the reference is the ``planner``
  (partner-aware task allocation over medium-level actions), the engines' best planner, not a
  proven optimum.

An episode that never reached its goal has no step count (its row says so with blanks and
``reached_goal`` 0); Hanabi has no goal state here and gets blanks throughout. A partner that
calls a model, or is not ready to play here (no weights), gives no reference (blank).

Each reference episode is played once per (start, partner, seat) and remembered.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from coordqa.agentic.episodes import AgenticEpisode, EpisodeSpec
from coordqa.games.base import game_profile
from coordqa.games.episode import Trajectory
from coordqa.jsonvalues import JSONObject


def steps_to_goal(game: str, trajectory: Trajectory, metrics: dict[str, float]) -> int | None:
    """Steps until the game profile's goal; None when never reached or the game has none.

    ``win``: the episode ends when won, so its steps are the trajectory's length when the win
    metric is 1; ``first_reward``: the first step that earned a reward (Overcooked's first
    delivery).
    """
    profile = game_profile(game)
    if profile.goal == "win" and profile.win is not None:
        return len(trajectory.steps) if metrics.get(profile.win.metric) == 1.0 else None
    if profile.goal == "first_reward":
        rewarded = (i for i, step in enumerate(trajectory.steps, 1) if step.reward > 0)
        return next(rewarded, None)
    return None


@functools.lru_cache(maxsize=256)
def reference_steps(
    game: str,
    layout: str,
    seed: int,
    game_options: str,
    player: str,
    partner: str | None = None,
    position: int = 0,
) -> int | None:
    """Steps to the goal of ``player`` with ``partner`` (None: itself) from this start.

    ``player`` sits in seat ``position``; None when the team never got there.
    """
    from coordqa.agentic.match import run_match

    spec = EpisodeSpec(
        game=game,
        layout=layout,
        seed=seed,
        agent=player,
        partner=partner,
        position=position if partner is not None else 0,
        game_options=json.loads(game_options),
    )
    episode = run_match(spec)
    return steps_to_goal(game, episode.trajectory, episode.metrics)


def _reference(spec: EpisodeSpec, policy: str) -> int | None:
    """The reference steps of ``spec``'s team (None: none can be played here, or no goal)."""
    from coordqa.agentic.match import is_llm_player
    from coordqa.agentic.partners import PartnerNotReadyError

    if spec.partner is not None and is_llm_player(spec.partner):
        return None
    options = json.dumps(spec.game_options, sort_keys=True)
    try:
        return reference_steps(
            spec.game, spec.layout, spec.seed, options, policy, spec.partner, spec.position
        )
    except PartnerNotReadyError:
        return None


def optimality(episode: AgenticEpisode) -> JSONObject:
    """The episode's steps to its goal, its reference team's, and their ratio (blanks: none)."""
    spec = episode.spec
    blank: dict[str, Any] = {
        "reached_goal": None,
        "steps_to_goal": None,
        "reference_steps": None,
        "steps_over_reference": None,
    }
    profile = game_profile(spec.game)
    if profile.goal is None or profile.strong_policy is None:
        return blank
    steps = steps_to_goal(spec.game, episode.trajectory, episode.metrics)
    reference = _reference(spec, profile.strong_policy)
    ratio = None if steps is None or not reference else steps / reference
    return {
        "reached_goal": float(steps is not None),
        "steps_to_goal": steps,
        "reference_steps": reference,
        "steps_over_reference": ratio,
    }
