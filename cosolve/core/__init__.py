"""The contracts, the foundation every other layer builds on: the Problem base (problem), Method with its
options and contexts (method, options), Deadline, Trace and Result (deadline, result), the generic
Registry with the method registry and plugin loading (registry), thread limits, numba's njit with its
compile clock (numba_compile), and the warm-up solve (warmup). The Solver facade is :mod:`cosolve.solver`."""
