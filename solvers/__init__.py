"""Trained checkpoints shipped with cosolve (package data, reached as ``cosolve.checkpoints``)."""
