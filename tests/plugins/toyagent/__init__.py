"""Guesser: an LLM agent of another package, with a model-call role of its own (``guess``).

Written as a third party would write it, against coordqa's public faces only: the agent class
(``coordqa.agentic.agents``), the generic exchange record and payload base (``coordqa.records``).
It registers through entry points alone (``tests/test_plugin_agent.py``)::

    [coordqa.players]
    guesser = toyagent.agent:GUESSER

    [coordqa.agent_roles]
    guess = toyagent.agent:GuessExchange
"""
