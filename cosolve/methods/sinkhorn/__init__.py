"""Entropy-adaptive Gumbel–Sinkhorn permutation learners (sorting, jigsaw, routing)."""
