"""Benchmark harness: suites under equal wall-clock budgets, a durable SQLite store, reports.

``cosolve bench SUITE.toml`` expands a suite into jobs, runs each job in its own process on a
Dask cluster (a ``LocalCluster`` by default), records every finished job at once in
``OUT/results.sqlite``, and writes the reports; ``cosolve report OUT`` rewrites them from the
database alone.
"""
