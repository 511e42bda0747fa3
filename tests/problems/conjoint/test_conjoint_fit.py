"""Outcome-model fits: AMCEs and clustered SEs against a hand-computed CR1 sandwich and statsmodels,
identification errors, ridge."""

import numpy as np
import pytest
import statsmodels.api as sm

from cosolve.errors import InputError, UsageError
from cosolve.io.conjoint_csv import read_conjoint
from cosolve.problems.conjoint.data import ConjointData
from cosolve.problems.conjoint.fit import amce, fit_outcome_model
from cosolve.problems.conjoint.synthetic import random_truth, simulate


@pytest.fixture(scope="module")
def ono():
    return read_conjoint("ono_burden")


@pytest.fixture(scope="module")
def synthetic():
    truth = random_truth(4, [2, 3, 3, 4], seed=7, p0="random", max_contrast=0.3)
    return simulate(truth, 800, 5, seed=8, respondent_noise=0.025)


def hand_cr1(Z, y, groups):
    """OLS by least squares and its CR1 sandwich, one cluster at a time."""
    n, k = Z.shape
    beta = np.linalg.lstsq(Z, y, rcond=None)[0]
    e = y - Z @ beta
    bread = np.linalg.inv(Z.T @ Z)
    meat = np.zeros((k, k))
    order = np.argsort(groups, kind="stable")
    labels = np.unique(groups)
    for rows in np.split(order, np.flatnonzero(np.diff(groups[order])) + 1):
        s = Z[rows].T @ e[rows]
        meat += np.outer(s, s)
    g = len(labels)
    return beta, g / (g - 1) * (n - 1) / (n - k) * bread @ meat @ bread


def check_amce(data):
    rows = amce(data)
    design = data.design
    assert len(rows) == design.n_main
    assert [(r.factor, r.level) for r in rows] == [
        (f, design.levels[d][j]) for d, f in enumerate(design.factors) for j in range(1, design.sizes[d])
    ]
    Z = np.column_stack([np.ones(len(data)), design.features(data.X, False)])
    beta, cov = hand_cr1(Z, data.y, data.respondent)
    est = np.array([r.estimate for r in rows])
    se = np.array([r.se for r in rows])
    np.testing.assert_allclose(est, beta[1:], atol=1e-10)
    np.testing.assert_allclose(se, np.sqrt(np.diag(cov))[1:], rtol=1e-8)
    np.testing.assert_allclose([r.ci_high - r.estimate for r in rows], 1.959963984540054 * se, rtol=1e-9)
    np.testing.assert_allclose([r.estimate - r.ci_low for r in rows], 1.959963984540054 * se, rtol=1e-9)
    return rows


def test_amce_bundled_against_hand_sandwich(ono):
    rows = {(r.factor, r.level): r for r in check_amce(ono)}
    male = rows[("gender", "Male")]
    assert male.estimate == pytest.approx(0.0238, abs=5e-4) and male.se == pytest.approx(0.0080, abs=5e-4)


def test_amce_synthetic_against_hand_sandwich(synthetic):
    check_amce(synthetic)


def test_identity_with_interactions_against_hand_and_statsmodels(synthetic):
    model = fit_outcome_model(synthetic, link="identity", interactions=True)
    Z = np.column_stack([np.ones(len(synthetic)), synthetic.design.features(synthetic.X, True)])
    beta, cov = hand_cr1(Z, synthetic.y, synthetic.respondent)
    np.testing.assert_allclose(model.params, beta, atol=1e-10)
    np.testing.assert_allclose(model.cov, cov, atol=1e-12 * np.abs(cov).max())
    ref = sm.OLS(synthetic.y, Z).fit(cov_type="cluster", cov_kwds={"groups": synthetic.respondent})
    np.testing.assert_allclose(model.cov, ref.cov_params(), atol=1e-10 * np.abs(cov).max())
    assert model.names[0] == "(intercept)" and model.names[1:] == synthetic.design.feature_names(True)
    assert (model.n_obs, model.n_clusters, model.link, model.interactions) == (8000, 800, "identity", True)


def test_logit_against_statsmodels(synthetic):
    model = fit_outcome_model(synthetic, link="logit", interactions=True)
    a, b = synthetic.pair_rows()
    phi = synthetic.design.features(synthetic.X, True)
    Z = np.column_stack([np.ones(len(a)), phi[a] - phi[b]])
    ref = sm.Logit(synthetic.y[a], Z).fit(disp=0, cov_type="cluster", cov_kwds={"groups": synthetic.respondent[a]})
    np.testing.assert_allclose(model.params, ref.params, atol=1e-8)
    np.testing.assert_allclose(model.cov, ref.cov_params(), rtol=1e-6, atol=1e-10)
    assert model.n_obs == 4000 and model.n_clusters == 800


def test_bundled_interaction_model_is_identified(ono):
    rep = ono.subset(ono.covariates["resp_party"] == "Rep")
    model = fit_outcome_model(rep, link="identity", interactions=True)
    assert model.params.shape == (620,) and np.all(np.isfinite(model.cov))
    assert np.all(np.diag(model.cov) > 0) and model.n_clusters == 467
    same = ono.subset(ono.covariates["candpar_match"] == "Same")
    with pytest.raises(InputError, match=r"ono_burden.*csv: feature party=Rep never differs between the two profiles of any"):
        fit_outcome_model(same, link="logit", interactions=False)


def test_drop_constant_fixes_features_that_never_differ_at_zero(ono):
    same = ono.subset((ono.covariates["candpar_match"] == "Same") & (ono.covariates["resp_party"] == "Dem"))
    model = fit_outcome_model(same, link="logit", interactions=False, drop_constant=True)
    k = model.names.index("party=Rep")
    assert model.params[k] == 0.0 and not model.cov[k].any() and not model.cov[:, k].any()
    # the other coefficients are the logit fit without that column
    a, b = same.pair_rows()
    phi = same.design.features(same.X, False)
    Z = np.delete(np.column_stack([np.ones(len(a)), phi[a] - phi[b]]), k, axis=1)
    ref = sm.Logit(same.y[a], Z).fit(disp=0, cov_type="cluster", cov_kwds={"groups": same.respondent[a]})
    np.testing.assert_allclose(np.delete(model.params, k), ref.params, atol=1e-8)
    np.testing.assert_allclose(np.delete(np.delete(model.cov, k, 0), k, 1), ref.cov_params(), rtol=1e-6, atol=1e-10)


def test_unidentified_fits_name_the_feature(synthetic):
    source = synthetic.source
    design = synthetic.design
    no_level = synthetic.subset(synthetic.X[:, 1] != 2)  # drops F1=L2: pairs split, no pairs left
    with pytest.raises(InputError, match=r"factor F1: level\(s\) 'L2' never randomised in the \d+ profiles fitted"):
        fit_outcome_model(no_level, interactions=False)
    with pytest.raises(InputError, match="needs pairs"):
        fit_outcome_model(no_level, link="logit")
    X = synthetic.X.copy()
    X[(X[:, 0] == 1) & (X[:, 1] == 1), 1] = 0  # the combination F0=L1, F1=L1 never shown
    unseen = ConjointData(design, X, synthetic.y, synthetic.respondent, synthetic.pair, synthetic.profile, {}, source)
    with pytest.raises(InputError, match=r"feature F0=L1:F1=L1 is zero in every one of the 8000 profiles fitted") as err:
        fit_outcome_model(unseen, interactions=True)
    assert source in str(err.value) and "\n" not in str(err.value)
    assert fit_outcome_model(unseen, interactions=False).params.shape == (design.n_main + 1,)
    ridged = fit_outcome_model(unseen, interactions=True, ridge=1.0)
    assert abs(ridged.theta[ridged.names.index("F0=L1:F1=L1") - 1]) < 1e-12 and np.all(np.isfinite(ridged.cov))
    X = synthetic.X.copy()
    X[:, 2] = np.minimum(X[:, 1], 2)  # F2 copies F1: collinear main effects
    twin = ConjointData(design, X, synthetic.y, synthetic.respondent, synthetic.pair, synthetic.profile, {}, source)
    with pytest.raises(InputError, match=r"collinear features \(.*F[12]=L[12].*\) in the 8000 profiles"):
        fit_outcome_model(twin, interactions=False)


def test_ridge_and_bad_requests(synthetic):
    plain = fit_outcome_model(synthetic, interactions=True)
    tiny = fit_outcome_model(synthetic, interactions=True, ridge=1e-9)
    np.testing.assert_allclose(tiny.params, plain.params, atol=1e-8)
    np.testing.assert_allclose(tiny.cov, plain.cov, atol=1e-8 * np.abs(plain.cov).max())
    shrunk = fit_outcome_model(synthetic, interactions=True, ridge=1e4)
    assert np.linalg.norm(shrunk.theta) < 0.5 * np.linalg.norm(plain.theta)
    with pytest.raises(UsageError, match="ridge is only supported with link='identity'"):
        fit_outcome_model(synthetic, link="logit", ridge=1.0)
    with pytest.raises(UsageError, match="unknown link"):
        fit_outcome_model(synthetic, link="probit")
    one = synthetic.subset(synthetic.respondent == 0)
    with pytest.raises(InputError, match="a single respondent"):
        fit_outcome_model(one, interactions=False, ridge=1.0)
    y = synthetic.y.copy()
    y[1] = 1.0  # pair 0: both chosen
    both = ConjointData(synthetic.design, synthetic.X, y, synthetic.respondent, synthetic.pair, synthetic.profile, {}, "b.csv")
    with pytest.raises(InputError, match=r"b\.csv: paired profiles must be forced choices, one chosen per pair .* pair 0 "):
        fit_outcome_model(both, link="logit")
    assert fit_outcome_model(synthetic, ridge=1.0).forced_choice
    assert not fit_outcome_model(both, ridge=1.0).forced_choice  # a pair with two chosen: the value is the mean outcome


def test_separated_choices_raise(synthetic):
    a, b = synthetic.pair_rows()
    X = synthetic.X
    first_wins = (X[a, 0] > X[b, 0]) | ((X[a, 0] == X[b, 0]) & (np.arange(len(a)) % 2 == 0))  # F0=L1 always wins
    y = np.empty(len(synthetic))
    y[a], y[b] = first_wins, 1.0 - first_wins
    separated = ConjointData(synthetic.design, X, y, synthetic.respondent, synthetic.pair, synthetic.profile, {}, "s.csv")
    with pytest.raises(InputError, match=r"s\.csv: the pair logit diverges \(F0=L1 heads past 25"):
        fit_outcome_model(separated, link="logit", interactions=False)
