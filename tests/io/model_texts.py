"""A small MIP as MPS and LP text, shared by the MPS/LP reader tests and their fuzzing."""

MPS = """NAME small
ROWS
 N obj
 G c1
 L c2
COLUMNS
    MARKER 'MARKER' 'INTORG'
    x obj 1 c1 1
    x c2 2
    MARKER 'MARKER' 'INTEND'
    y obj -2 c1 1
RHS
    rhs c1 1 c2 4
BOUNDS
 UP bnd x 3
 UP bnd y 2.5
ENDATA
"""
LP = """\\ a comment
Minimize
 Obj: +1 x -2 y
Subject to
 c1: +1 x +1 y >= +1
 c2: +2 x <= +4
Bounds
 0 <= x <= 3
 0 <= y <= 2.5
Generals
 x
End
"""
