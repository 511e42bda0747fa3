"""Training learned methods: what they train on (:mod:`~cosolve.training.data`), the one adjoint
matching trainer that serves CAM on graphs and GLNS on set cover (:mod:`~cosolve.training.adjoint`),
checkpoints (:mod:`~cosolve.training.checkpoint`) and progress (:mod:`~cosolve.training.progress`).
Methods reach all of it through ``Method.fit``; users through ``Solver.fit`` and ``cosolve train``.
"""
