"""Experiments: setcover_glns (see README.md here)."""
