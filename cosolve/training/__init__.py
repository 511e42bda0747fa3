"""Training learned methods: what they train on (:mod:`~cosolve.training.training_data`), the one training
loop (:mod:`~cosolve.training.loop`) with its tasks (adjoint matching for CAM on graphs and GLNS on
set cover, :mod:`~cosolve.training.adjoint`; the Gumbel–Sinkhorn TSP edge network), checkpoints
(:mod:`~cosolve.training.checkpoint`) and progress (:mod:`~cosolve.training.progress`).
Methods reach all of it through ``Method.fit``; users through ``Solver.fit`` and ``cosolve train``.
"""
