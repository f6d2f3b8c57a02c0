# SPDX-License-Identifier: MIT
"""Reader.window's name column: the library makes it beside the rows (a
code per category id) when a file has 127 names or fewer, and Python maps
the ids when it has more.  Both must give every row its category's name,
on one thread and split over several, and NaN for the folded OTHER."""
import numpy as np
import pytest

import slog


def write_names(path, names, states=4000):
    """States on two timelines cycling through categories called @p names."""
    with slog.Writer(path) as w:
        tl = [w.timeline(f"t{i}") for i in range(2)]
        cats = [w.category(n) for n in names]
        for i in range(states):
            w.state(tl[i % 2], cats[(i * 7) % len(cats)], i * 10, i * 10 + 5)
    return cats


def expected_names(r, df):
    """Each row's category's name, from the categories table."""
    by_id = dict(zip(r.categories.id, r.categories.name))
    return [by_id[c] for c in df.category]


@pytest.mark.parametrize("names", [
    ["a", "b", "c"],                                # ids are the codes
    ["x", "y", "x", "z", "y", "w"],                 # shared names: ids differ from codes
    [f"n{i % 150}" for i in range(300)],            # 150 names: mapped in Python
])
@pytest.mark.parametrize("threads", [1, 3])
def test_names_match_categories(tmp_path, names, threads):
    path = tmp_path / "n.slog"
    write_names(path, names)
    r = slog.open(path)
    df = r.window(threads=threads)
    assert len(df) == 4000
    assert df.name.astype(str).tolist() == expected_names(r, df)
    assert sorted(df.name.cat.categories) == sorted(set(names))
    sub = r.window("20%:60%", threads=threads, columns=["start", "name"])
    assert list(sub.columns) == ["start", "name"]
    full = r.window("20%:60%", threads=threads)
    assert sub.name.astype(str).tolist() == full.name.astype(str).tolist()


def test_ids_past_the_table_take_its_last_code(tmp_path):
    """The library's rule for ids the table does not hold (OTHER, folded in
    previews, is 2**32 - 1): they take the table's last entry, which the
    Reader makes -1 (NaN)."""
    path = tmp_path / "t.slog"
    write_names(path, ["a", "b", "c"])
    r = slog.open(path)
    q = r._query(None, None, None, None, None, None)
    for threads in (1, 2):
        raw = r._r.window_columns(**q, threads=threads,
                                  name_codes=np.array([5, -1], dtype=np.int8))
        cat, code = raw["category"], raw["name_code"]
        assert len(code) == 4000 and set(np.unique(cat)) == {0, 1, 2}
        assert np.all(code[cat == 0] == 5) and np.all(code[cat > 0] == -1)
    with pytest.raises(ValueError, match="name_codes"):
        r._r.window_columns(**q, name_codes=b"")
