"""Synthetic conjoint truths and answers: the stacked-LPM identity, recovery by the fits, speed."""

import itertools

import numpy as np
import pytest

from cosolve.errors import UsageError
from cosolve.problems.conjoint.fit import fit_outcome_model
from cosolve.problems.conjoint.synthetic import SyntheticTruth, random_truth, simulate


def test_random_truth_tables_and_bound():
    truth = random_truth(4, [2, 3, 3, 4], seed=1, p0="random")
    design = truth.design
    assert design.sizes == (2, 3, 3, 4) and truth.theta.shape == (design.n_features(True),)
    assert truth.max_contrast() <= 0.4 + 1e-12
    X = np.array(list(itertools.product(*[range(s) for s in design.sizes])))
    main, inter = truth.tables()
    by_tables = sum(t[X[:, d]] for d, t in enumerate(main)) + sum(
        t[X[:, d], X[:, e]] for (d, e), t in zip(design.pairs, inter, strict=True)
    )
    utility = design.features(X, True) @ truth.theta
    np.testing.assert_allclose(by_tables, utility, atol=1e-12)
    assert np.ptp(utility) <= truth.max_contrast() + 1e-12
    assert np.all(random_truth(3, 3, sparsity=1.0).theta[6:] == 0) and np.all(random_truth(3, 3, sparsity=0.0).theta[6:] != 0)
    with pytest.raises(ValueError, match="one entry per feature"):
        SyntheticTruth(design, truth.theta[:3])


def test_stacked_lpm_identity_is_exact():
    """Against an opponent drawn from p0, profile x wins with probability alpha + phi(x) . theta."""
    truth = random_truth(3, [2, 3, 4], seed=5, p0="random", interaction_scale=0.05, sparsity=0.0)
    design = truth.design
    X = np.array(list(itertools.product(*[range(s) for s in design.sizes])))
    weight = np.prod([design.p0[d][X[:, d]] for d in range(design.n_factors)], axis=0)  # p0 of each profile
    assert weight.sum() == pytest.approx(1.0)
    utility = design.features(X, True) @ truth.theta
    win = 0.5 + utility[:, None] - utility[None, :]  # P(row profile beats column profile)
    assert win.min() >= 0 and win.max() <= 1
    np.testing.assert_allclose(win @ weight, truth.alpha + utility, atol=1e-12)
    np.testing.assert_allclose(truth.params("identity")[1:], truth.theta)
    assert truth.params("logit")[0] == 0.0


def test_simulate_shapes_and_pairs():
    truth = random_truth(13, [2, 2, 6, 4, 4, 4, 6, 6, 2, 2, 3, 3, 5], seed=0)
    data = simulate(truth, 10_000, 5, seed=2, respondent_noise=0.005)
    assert len(data) == 100_000 and data.n_pairs == 50_000 and data.n_respondents == 10_000
    a, b = data.pair_rows()
    assert np.array_equal(a, np.arange(0, 100_000, 2)) and np.array_equal(b, a + 1)
    assert np.all(data.y[a] + data.y[b] == 1) and np.all(np.isin(data.y, [0.0, 1.0]))
    prob = data.covariates["prob"]
    np.testing.assert_allclose(prob[a] + prob[b], 1.0)
    assert prob.min() > 0 and prob.max() < 1
    assert np.all(data.respondent[a] == data.respondent[b]) and data.covariates["task"].max() == 4
    assert abs(data.y[a].mean() - 0.5) < 0.01  # no edge for the first-listed profile
    for d, p in enumerate(truth.design.p0):
        np.testing.assert_allclose(np.bincount(data.X[:, d], minlength=len(p)) / len(data), p, atol=0.01)
    again = simulate(truth, 10_000, 5, seed=2, respondent_noise=0.005)
    assert np.array_equal(again.X, data.X) and np.array_equal(again.y, data.y)


def test_identity_fit_recovers_alpha_and_theta():
    truth = random_truth(4, [2, 3, 3, 4], seed=1, p0="random", max_contrast=0.3)
    data = simulate(truth, 10_000, 5, seed=3, respondent_noise=0.025)  # |delta| <= 0.3 + 2 * 4 * 0.025 = 0.5
    assert data.covariates["prob"].min() >= 0 and data.covariates["prob"].max() <= 1
    model = fit_outcome_model(data, link="identity", interactions=True)
    z = (model.params - truth.params("identity")) / np.sqrt(np.diag(model.cov))
    assert np.max(np.abs(z)) < 4.5 and np.mean(z**2) < 2.0
    assert model.n_obs == 100_000 and model.n_clusters == 10_000


def test_logit_fit_recovers_theta():
    truth = random_truth(4, 3, seed=3, main_scale=0.5, interaction_scale=0.2, max_contrast=None)
    data = simulate(truth, 5_000, 5, seed=4, link="logit")
    model = fit_outcome_model(data, link="logit", interactions=True)
    z = (model.params - truth.params("logit")) / np.sqrt(np.diag(model.cov))
    assert np.max(np.abs(z)) < 4.5 and np.mean(z**2) < 2.0
    assert model.n_obs == 25_000 and abs(model.alpha) < 0.1
    assert np.max(np.abs(model.theta - truth.theta)) < 0.2


def test_probabilities_leaving_the_unit_interval_raise():
    truth = random_truth(6, 4, seed=0, main_scale=0.3, max_contrast=None)
    with pytest.raises(UsageError, match=r"choice probabilities leave \[0, 1\] by up to"):
        simulate(truth, 100, 5, seed=0)
    simulate(truth, 100, 5, seed=0, link="logit")  # any effect size is fine for the logit
    with pytest.raises(UsageError, match="unknown link"):
        simulate(truth, 100, link="probit")
