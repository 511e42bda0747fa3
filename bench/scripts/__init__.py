"""Benchmark scripts that record results outside the suite harness, and the helpers they share
(``python -m bench.scripts.NAME ...``)."""
