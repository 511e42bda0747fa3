"""CAM: the discrete-diffusion graph sampler whose flip policy is trained by Combinatorial Adjoint
Matching. The method (cam_method), its training task (cam_task) and hyperparameters (cam_config),
the flip policy in torch (flip_policy) and its numpy forward pass (flip_policy_numpy), and checkpoint
loading (cam_checkpoint). What it shares with rlsa and glns is in :mod:`cosolve.diffusion`."""
