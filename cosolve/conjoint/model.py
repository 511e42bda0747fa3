"""A fitted outcome model of a conjoint experiment: its parameters and their covariance.

``params`` (P + 1,) is ``(alpha, theta)``: ``theta`` (P,) multiplies the features ``phi``
(:class:`~cosolve.conjoint.design.Design`, main effects and, with ``interactions``, two-way
interactions); ``cov`` (P + 1, P + 1) is their respondent-clustered covariance.

- ``link = "identity"``: the stacked linear probability model ``E[Y | x] = alpha + phi(x) . theta``
  fit on one row per profile (the standard AMCE estimator when ``interactions`` is False). Against an
  opponent drawn from the randomisation ``p0``, a profile ``x`` is chosen with that probability, so
  the value of a policy is ``Q(pi) = alpha + E_pi[phi] . theta``.
- ``link = "logit"``: the forced-choice difference logit ``P(A chosen | A, B) = sigmoid(alpha +
  (phi(A) - phi(B)) . theta)`` fit on one row per pair (``alpha``: the first-listed profile's edge),
  so ``Q(pi) = E_{x ~ pi, x' ~ p0} sigmoid((phi(x) - phi(x')) . theta)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cosolve.conjoint.design import Design

LINKS = ("identity", "logit")


@dataclass
class OutcomeModel:
    """A fitted outcome model (module docstring). ``names`` (P + 1,) label ``params``;
    ``n_obs`` rows and ``n_clusters`` respondents were used."""

    design: Design
    link: str
    interactions: bool
    params: np.ndarray
    cov: np.ndarray
    names: list[str] = field(default_factory=list)
    n_obs: int = 0
    n_clusters: int = 0

    @property
    def alpha(self) -> float:
        return float(self.params[0])

    @property
    def theta(self) -> np.ndarray:
        return self.params[1:]

    def with_params(self, params: np.ndarray) -> OutcomeModel:
        """The same model with other parameter values (for the delta method's Jacobians)."""
        return OutcomeModel(self.design, self.link, self.interactions, np.asarray(params, dtype=np.float64), self.cov,
                            self.names, self.n_obs, self.n_clusters)  # fmt: skip
