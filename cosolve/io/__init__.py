"""Instance readers and writers: one :func:`read` for every format, plus solution files.

problem = read("instances/setcover/scp41.txt")   # format and family detected
graph = read("g.col", problem="mis")             # graph files need the problem
write_solution(problem, x, "scp41.sol")
"""

from cosolve.io.detect import read
from cosolve.io.formats import FORMATS
from cosolve.io.solution import read_solution, write_mps, write_solution

__all__ = ["FORMATS", "read", "read_solution", "write_mps", "write_solution"]
