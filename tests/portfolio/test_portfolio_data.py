"""Reading price relatives: good files, bundled names, and one-line errors naming file and line."""

import numpy as np
import pytest

from cosolve.errors import InputError
from cosolve.portfolio import bundled_datasets, read_relatives, resolve_data


def write(tmp_path, text, name="m.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_reads_with_or_without_a_header(tmp_path):
    with_header = read_relatives(write(tmp_path, "s0,s1\n1.0,1.1\n0.9, 1.2\n\n"))
    without = read_relatives(write(tmp_path, "1.0,1.1\n0.9,1.2\n", "n.csv"))
    assert with_header.dtype == np.float64 and with_header.shape == (2, 2)
    assert np.array_equal(with_header, without)


def test_bundled_data_sets_by_name_or_path():
    assert set(bundled_datasets()) == {"djia", "nyse_o", "sp500", "tse"}
    path = resolve_data("nyse_o")
    assert path.name == "nyse_o.csv" and read_relatives(path).shape == (5651, 36)
    assert resolve_data(str(path)) == path
    with pytest.raises(InputError, match=r"nope\.csv: no such file, and no bundled .*data set .*djia, nyse_o, sp500, tse"):
        resolve_data("nope.csv")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("\n \n", "empty file"),
        ("s0,s1\n1.0,1.1\n1.0,x\n", r"m\.csv:3: column 2: 'x' is not a number"),
        ("s0,s1\n1.0,1.1\n1.0,,\n", r"m\.csv:3: 3 columns where the first line has 2"),
        ("1.0,1.1\n1.0\n", r"m\.csv:2: 1 columns where the first line has 2"),
        ("s0,s1\n1.0,1.1\n0.0,1.0\n", r"m\.csv:3: column 1: price relative 0\.0 is not a positive finite number"),
        ("s0,s1\n1.0,-1\n1.0,1.0\n", r"m\.csv:2: column 2: price relative -1"),
        ("s0,s1\n1.0,1.1\n1.0,nan\n", r"m\.csv:3: column 2: price relative nan"),
        ("s0,s1\n1.0,inf\n1.0,1.0\n", r"m\.csv:2: column 2: price relative inf"),
        ("s0,s1\n1.0,1.1\n1e300,1.0\n", r"m\.csv:3: column 1: price relative 1e300 is a change by more than a factor of 1000"),
        ("s0,s1\n1.0,1.1\n1.0,1e-4\n", r"m\.csv:3: column 2: price relative 1e-4 is a change by more than a factor"),
        ("s0,s1\n1.0,1.1\n", "1 day.* at least 2"),
        ("s0,s1\n", "0 day.* at least 2"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message) as info:
        read_relatives(write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_relatives(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="is a directory"):
        read_relatives(tmp_path)


def test_bundled_name_is_enough_for_read_relatives():
    assert read_relatives("djia").shape == (507, 30)


@pytest.mark.parametrize("scale", [100.0, 0.01])
def test_prices_are_told_apart_from_relatives(tmp_path, scale):
    rng = np.random.default_rng(0)
    prices = scale * np.cumprod(rng.uniform(0.98, 1.02, (50, 3)), axis=0)
    path = write(tmp_path, "\n".join(",".join(f"{v:.6f}" for v in row) for row in prices))
    with pytest.raises(InputError, match="values look like prices, not price relatives") as info:
        read_relatives(path)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)
    relatives = prices[1:] / prices[:-1]
    back = read_relatives(write(tmp_path, "\n".join(",".join(repr(float(v)) for v in row) for row in relatives), "r.csv"))
    np.testing.assert_array_equal(back, relatives)
