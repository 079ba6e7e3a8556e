"""Agents and matches: LLM agents, non-LLM partners, and the runners that pit them together."""
