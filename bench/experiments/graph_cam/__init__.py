"""Experiments: graph_cam (see README.md here)."""
