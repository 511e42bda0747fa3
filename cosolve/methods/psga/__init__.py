"""PSGA for K-sparse transaction-cost portfolio selection (issue 7)."""
