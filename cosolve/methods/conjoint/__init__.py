"""Conjoint policy optimisers (issue 8).

- The average case (:mod:`.average`, its entry point :func:`~.average.average_case`): the exact QP on the
  product of simplices (:mod:`.policy`), gradient ascent on softmax logits (:mod:`.gradient`), and the
  delta method of both (:mod:`.delta`);
- the two-party game (:mod:`.game`, its entry points :func:`~.game.solve_game` and
  :func:`~.game.solve_presidential_game`);
- :mod:`.tensors` (torch, imported only when used), :mod:`.policy_plot` (policies against ``p0``).

``minimax``, ``minimax_response``, ``minimax_primaries`` and ``presidential`` are deprecated paths of the
game's modules, kept for old imports.
"""
