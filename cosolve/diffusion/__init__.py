"""Discrete-diffusion core shared by the learned solvers (CAM, GLNS): energies on {0,1}^N,
their gradients and exact flip gains, and decoders from soft marginals to feasible solutions."""
