"""Lamps: a toy fifth game, written as a third-party package would write one.

Everything coordqa needs to know about the game lives in this folder: the engine
(:mod:`toygame.game`), its strong policy (:mod:`toygame.players`), its question builder
(:mod:`toygame.questions`) and its profile (:mod:`toygame.profile`). The package registers
itself only through the ``coordqa.games`` and ``coordqa.players`` entry points of its
distribution; coordqa's files are not touched (``tests/test_plugin_game.py``).
"""
