"""Conjoint experiments: factorial designs, long-format data, outcome models (issue 8)."""
