"""Methods from papers, one folder each (the baselines are in :mod:`cosolve.baselines`)."""
