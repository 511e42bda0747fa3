"""Experiments: harness (see README.md here)."""
