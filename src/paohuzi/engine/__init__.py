"""The engine: the rules of Paohuzi as pure standard-library Python, with no I/O (STYLE.md).

Cards and their notation (:mod:`~paohuzi.engine.cards`), groups (:mod:`~.groups`), decisions
(:mod:`~.actions`, :mod:`~.action_ids`, :mod:`~.chi`), the rule set (:mod:`~.rules`,
:mod:`~.mingtang`, :mod:`~.scoring`), the hand evaluator (:mod:`~.evaluator`), positions
(:mod:`~.position`), the core protocol and the Python core (:mod:`~.core`,
:mod:`~.python_core`), the one game class (:mod:`~.game`), what a seat may know
(:mod:`~.observation`), records (:mod:`~.record`), matches (:mod:`~.match`), fair deals
(:mod:`~.fairdeal`), hand analysis (:mod:`~.analysis`) and random holdings near a win
(:mod:`~.holdings`). Nothing here imports from the layers above it (bots, tools, environments,
server, CLI); the optional compiled core (:mod:`paohuzi.native`) is imported only where a game
or the evaluator asks for it (``tests/test_layering.py``).
"""
