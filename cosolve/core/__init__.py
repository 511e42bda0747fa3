"""The solver contract: deadline, trace, result, method registry and the Solver facade."""
