"""Random instances (set cover, graphs, TSP, portfolio periods), the named distributions that training
and benchmarks draw from (distributions), and the generator registry (registry)."""
