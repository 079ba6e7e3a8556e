"""Plan optimality: an episode's steps to its goal against a planner's from the same start.

Hypothetical Minds compared the actions an agent took with an optimal agent's; coordqa does the
same where the engines come with planners. A game takes part when its profile names a goal
(``GameProfile.goal``); its strong policy (``GameProfile.strong_policy``) plays self-play from the
same game, layout, seed and game options as the episode, and both step counts are read from the
trajectories:

- Collab Capture: turns until the thief is caught; the optimum is ``capture-planner`` self-play,
  exact joint dynamic programming with the thief modelled exactly (the game is deterministic), so
  no pair of players can be faster;
- Collab Escape: turns until both players are out; the optimum is ``escape-planner`` self-play,
  which maximises the chance to escape. The killer moves at random, so the planner's count is
  one sample from the same seed, not a bound: a lucky agent can beat it;
- Overcooked: timesteps until the first soup is delivered; the reference is the ``planner``
  scripted pair (partner-aware task allocation over medium-level actions), the engines' best
  planner, not a proven optimum.

An episode that never reached its goal has no step count (its row says so with blanks and
``reached_goal`` 0); Hanabi has no goal state here and gets blanks throughout.

The planner episode is deterministic, so it is played once per start and remembered.
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
    game: str, layout: str, seed: int, game_options: str, player: str
) -> int | None:
    """Steps to the goal of ``player``'s self-play from this start (None: it never got there)."""
    from coordqa.agentic.match import run_match

    spec = EpisodeSpec(
        game=game,
        layout=layout,
        seed=seed,
        agent=player,
        game_options=json.loads(game_options),
    )
    episode = run_match(spec)
    return steps_to_goal(game, episode.trajectory, episode.metrics)


def optimality(episode: AgenticEpisode) -> JSONObject:
    """The episode's steps to its goal, the reference's, and their ratio (blanks: no goal)."""
    spec = episode.spec
    blank: dict[str, Any] = {
        "reached_goal": None,
        "steps_to_goal": None,
        "optimal_steps": None,
        "steps_over_optimal": None,
    }
    profile = game_profile(spec.game)
    if profile.goal is None or profile.strong_policy is None:
        return blank
    steps = steps_to_goal(spec.game, episode.trajectory, episode.metrics)
    options = json.dumps(spec.game_options, sort_keys=True)
    optimal = reference_steps(spec.game, spec.layout, spec.seed, options, profile.strong_policy)
    ratio = None if steps is None or not optimal else steps / optimal
    return {
        "reached_goal": float(steps is not None),
        "steps_to_goal": steps,
        "optimal_steps": optimal,
        "steps_over_optimal": ratio,
    }
