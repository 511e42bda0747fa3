"""Table makers: tables and reference files from recorded results (``python -m bench.tables.NAME ...``)."""
