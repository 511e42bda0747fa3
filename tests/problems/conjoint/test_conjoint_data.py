"""Reading conjoint data: the bundled file's published counts, levels, subsets, one-line errors."""

import numpy as np
import pytest

from cosolve.errors import InputError, UsageError
from cosolve.io.conjoint_csv import BUNDLED_ATTRIBUTES, bundled_conjoint, bundled_datasets, read_conjoint


@pytest.fixture(scope="module")
def ono():
    return read_conjoint("ono_burden")


def test_bundled_file_counts(ono):
    assert bundled_conjoint().name == "ono_burden_2019_president_tidy.csv"
    assert bundled_datasets()["ono_burden"] == bundled_conjoint()
    assert len(ono) == 15830 and ono.n_pairs == 7915 and ono.n_respondents == 1583
    assert ono.design.factors == BUNDLED_ATTRIBUTES and ono.design.n_factors == 13
    assert ono.X.shape == (15830, 13) and ono.X.dtype == np.int64 and ono.y.dtype == np.float64
    assert ono.design.n_main == 36 and ono.design.n_features(True) == 619
    assert np.bincount(np.bincount(ono.respondent)).tolist()[-1] == 1583  # 10 profiles = 5 tasks each
    assert sorted(np.unique(ono.profile).tolist()) == [0, 1]
    a, b = ono.pair_rows()
    assert np.all(ono.y[a] + ono.y[b] == 1) and np.all(ono.respondent[a] == ono.respondent[b])
    assert set(ono.covariates) == {"taskno", "office", "resp_party", "candpar_match"}


def test_levels_natural_order_and_baselines(ono):
    experience = ono.design.levels[ono.design.factors.index("experience")]
    assert experience == ("4 years", "8 years", "12 years", "No experience")
    age = ono.design.levels[ono.design.factors.index("age")]
    assert age[0] == "36 years old" and age[-1] == "76 years old"
    for p, lv in zip(ono.design.p0, ono.design.levels, strict=True):
        assert p.shape == (len(lv),) and abs(p.sum() - 1) < 1e-12 and np.all(np.abs(p - 1 / len(lv)) < 0.02)
    chosen = read_conjoint("ono_burden", baselines={"experience": "No experience"}, p0="uniform", keep=["resp_party"])
    assert chosen.design.levels[5] == ("No experience", "4 years", "8 years", "12 years")
    assert np.all(chosen.design.p0[5] == 0.25) and set(chosen.covariates) == {"resp_party"}
    assert np.mean(chosen.X[:, 5] == 0) == np.mean(ono.X[:, 5] == 3)


def test_published_party_choice_rates(ono):
    a, b = ono.pair_rows()
    party = ono.design.factors.index("party")
    mixed = ono.X[a, party] != ono.X[b, party]
    dem_row = np.where(ono.X[a, party] == 0, a, b)  # "Dem" is party's baseline
    respondent_party = ono.covariates["resp_party"][a]
    for group, rate in [("Dem", 0.647), ("Rep", 0.360), ("Ind", 0.505)]:
        assert ono.y[dem_row[mixed & (respondent_party == group)]].mean() == pytest.approx(rate, abs=5e-4)
    assert np.all(ono.covariates["candpar_match"][a][mixed] == "Different")


def test_subsets(ono):
    dem = ono.subset(ono.covariates["resp_party"] == "Dem")
    assert len(dem) == 6140 and dem.n_pairs == 3070 and dem.n_respondents == 614 and dem.design is ono.design
    assert dem.respondent.max() == 613 and dem.pair.max() == 3069
    dem_profiles = ono.subset(ono.X[:, 0] == 0)  # splits pairs: no pairs left
    assert dem_profiles.pair is None and dem_profiles.profile is None and len(dem_profiles) == 7931
    with pytest.raises(InputError, match="keeps no rows"):
        ono.subset(np.zeros(len(ono), dtype=bool))


GOOD = """id,pair,pos,a,b,Y,grp
1,p1,1,x,None,1,u
1,p1,2,y,q,0,u
1,p2,1,y,None,0,u
1,p2,2,x,q,1,u
2,p3,2,x,q,1,v
2,p3,1,y,None,0,v
"""


def write(tmp_path, text, name="c.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def small(path, **kw):
    return read_conjoint(path, **{"pair": "pair", "profile": "pos", "attributes": ["a", "b"], **kw})


def test_small_file_and_level_named_none(tmp_path):
    data = small(write(tmp_path, GOOD))
    assert data.design.levels == (("x", "y"), ("None", "q"))
    assert data.profile.tolist() == [0, 1, 0, 1, 1, 0] and data.pair.tolist() == [0, 0, 1, 1, 2, 2]
    assert data.covariates["grp"].tolist() == list("uuuuvv")
    np.testing.assert_allclose(data.design.p0[0], [0.5, 0.5])
    single = read_conjoint(write(tmp_path, GOOD, "d.csv"), pair=None, attributes=["a"], levels={"a": ["y", "x"]})
    assert single.pair is None and single.design.levels == (("y", "x"),) and single.X[:, 0].tolist() == [1, 0, 0, 1, 1, 0]
    with pytest.raises(UsageError, match="give attributes="):
        read_conjoint(write(tmp_path, GOOD, "e.csv"), pair="pair", profile="pos")


BAD = [
    (None, {}, "no such file"),
    ("", {}, "empty file"),
    ("id,pair,pos,a,b,Y,grp\n", {}, "no data rows"),
    (GOOD, {"attributes": ["a", "zz"]}, r"missing column\(s\) zz \(the file has: id, pair, pos, a, b, Y, grp\)"),
    (GOOD, {"outcome": "nope", "respondent": "who"}, r"missing column\(s\) nope, who"),
    (GOOD.replace("1,p1,1,x,None,1,u", "1,p1,1,x,None,yes,u"), {}, r"c\.csv:2: outcome column Y: 'yes' is not a finite number"),
    (GOOD.replace("1,p2,2,x,q,1,u", "1,p2,2,x,q,,u"), {}, r"c\.csv:5: outcome column Y: missing"),
    (GOOD, {"levels": {"a": ["x", "y", "w"]}}, r"attribute a: level\(s\) 'w' never randomised in the data"),
    (GOOD, {"levels": {"a": ["x"]}}, r"attribute a: level\(s\) 'y' not among the listed levels"),
    (GOOD, {"baselines": {"b": "w"}}, r"attribute b: baseline 'w' never randomised in the data \(levels: None, q\)"),
    (GOOD.replace(",y,", ",x,"), {}, "attribute a has a single level 'x'"),
    (GOOD.replace("\n2,", "\n1,"), {}, r"a single respondent \(id = 1\)"),
    (GOOD.replace("2,p3,1", "2,p4,1"), {}, r"c\.csv:6: pair pair = 'p3' has 1 profile\(s\), expected 2 \(2 such pair"),
    (GOOD.replace("p2", "p1"), {}, r"c\.csv:2: pair pair = 'p1' has 4 profile\(s\), expected 2"),
    (GOOD.replace("2,p3,1", "2,p3,2"), {}, r"c\.csv:6: pair pair = 'p3': both profiles have pos = 2"),
    (GOOD.replace("2,p3,2", "1,p3,2"), {}, r"pair pair = 'p3' spans two respondents"),
    (GOOD.replace(",x,q,1,v", ",,q,1,v"), {}, r"c\.csv:6: column a: empty cell"),
    (GOOD.replace("1,p2,1,y,None,0,u", "1,p2,1,y"), {}, r"c\.csv:4: 4 fields where the header has 7"),
]
IDS = [
    "missing-file",
    "empty",
    "header-only",
    "missing-attribute",
    "missing-outcome-respondent",
    "non-numeric-outcome",
    "missing-outcome",
    "listed-level-absent",
    "unlisted-level",
    "baseline-absent",
    "single-level",
    "single-respondent",
    "pair-of-one",
    "pair-of-four",
    "same-position",
    "pair-two-respondents",
    "empty-cell",
    "short-row",
]


@pytest.mark.parametrize(("text", "kw", "message"), BAD, ids=IDS)
def test_read_errors_are_one_line_naming_the_file(tmp_path, text, kw, message):
    path = tmp_path / "c.csv" if text is None else write(tmp_path, text)
    with pytest.raises(InputError, match=message) as err:
        small(path, **kw)
    assert "c.csv" in str(err.value) and "\n" not in str(err.value)
