"""Generative large neighbourhood search for set cover (``glns``) and its ablations."""
