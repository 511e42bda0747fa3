"""Probes, one-off runs and results behind no published table, by topic (each topic's README.md says what they found)."""
