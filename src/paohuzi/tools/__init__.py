"""Tools on top of the engine and the bots: simulation (:mod:`~paohuzi.tools.simulation`),
duplicate-deal tournaments (:mod:`~.tournament`) and the ladder (:mod:`~.ladder`), running jobs
in processes or on Ray (:mod:`~.distributed`, :mod:`~.workers`), the expert's review of a hand
(:mod:`~.review`), and the learned bot's Deep Monte-Carlo trainer (:mod:`~.dmc`, its settings
in :mod:`~.dmc_settings`)."""
