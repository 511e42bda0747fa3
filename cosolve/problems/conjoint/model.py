"""A fitted outcome model of a conjoint experiment: its parameters and their covariance.

``params`` (P + 1,) is ``(alpha, theta)``: ``theta`` (P,) multiplies the features ``phi``
(:class:`~cosolve.problems.conjoint.design.Design`, main effects and, with ``interactions``, two-way
interactions); ``cov`` (P + 1, P + 1) is their respondent-clustered covariance.

- ``link = "identity"``: the stacked linear probability model ``E[Y | x] = alpha + phi(x) . theta``
  fit on one row per profile (the standard AMCE estimator when ``interactions`` is False). Against an
  opponent drawn from the randomisation ``p0``, a profile ``x`` is chosen with that probability, so
  the value of a policy is ``Q(pi) = offset + E_pi[phi] . theta`` (:meth:`OutcomeModel.value_offset`):

  - ratings (``forced_choice`` False): ``offset = alpha``;
  - forced choice: one profile of each pair is chosen, so ``alpha = 1/2 - E_p0[phi] . theta`` holds
    in the population, and ``offset`` is that, making ``Q(pi) = 1/2 + (E_pi - E_p0)[phi] . theta``, the
    chance that a profile from ``pi`` beats one from ``p0``, and ``Q(p0) = 1/2`` exactly. The fitted
    ``alpha`` is not used: it equals ``1/2 - (sample mean of phi) . theta`` and carries the sampling
    noise of the randomisation, whose variance the clustered covariance overstates about twofold in
    that direction (``bench/scripts/conjoint_coverage.py``).
- ``link = "logit"``: the forced-choice difference logit ``P(A chosen | A, B) = sigmoid(alpha +
  (phi(A) - phi(B)) . theta)`` fit on one row per pair (``alpha``: the first-listed profile's edge),
  so ``Q(pi) = E_{x ~ pi, x' ~ p0} sigmoid((phi(x) - phi(x')) . theta)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cosolve.problems.conjoint.design import Design

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
    forced_choice: bool = False

    @property
    def alpha(self) -> float:
        return float(self.params[0])

    @property
    def theta(self) -> np.ndarray:
        return self.params[1:]

    def offset_weights(self) -> np.ndarray:
        """``w`` (P + 1,) with ``value_offset = c + w . params`` (``c`` 1/2 for forced choice, else 0)."""
        if not self.forced_choice:
            return np.eye(self.params.size)[0]
        return np.concatenate([[0.0], -self.design.expected_features(list(self.design.p0), self.interactions)])

    def value_offset(self) -> float:
        """The constant of ``Q(pi) = offset + E_pi[phi] . theta`` (module docstring)."""
        return (0.5 if self.forced_choice else 0.0) + float(self.offset_weights() @ self.params)

    def with_params(self, params: np.ndarray) -> OutcomeModel:
        """The same model with other parameter values (for the delta method's Jacobians)."""
        return OutcomeModel(self.design, self.link, self.interactions, np.asarray(params, dtype=np.float64), self.cov,
                            self.names, self.n_obs, self.n_clusters, self.forced_choice)  # fmt: skip


def interaction_blocks(model: OutcomeModel) -> dict[tuple[int, int], np.ndarray]:
    """``G_de`` ((L_d - 1), (L_e - 1)) per factor pair of an interaction model (empty without)."""
    design = model.design
    if not model.interactions:
        return {}
    theta, o = model.theta, design.pair_offsets
    return {
        (d, e): theta[o[k] : o[k + 1]].reshape(design.sizes[d] - 1, design.sizes[e] - 1) for k, (d, e) in enumerate(design.pairs)
    }
