"""The audit at leaderboard scale (issue 57), on small designs: the vectorised leave-one-rater-out leaderboards
against the loop over panels they replace, and the pairwise statistics sampled, and said to be, above the limit.
How fast these run is measured by ``make bench`` (section ``scale``), never here."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.audit import core as audit
from compendium.audit import wording
from compendium.simulate.crossed import simulate_crossed
from compendium.stats import pairs, panels


def _loop_leave_one_out(data, *, system="system", rater="annotator", rating="rating", higher_is_better=True):
    """The former implementation: one pandas groupby per panel."""
    raters = np.sort(data[rater].unique())
    frames = []
    for name, sub in [("all", data)] + [(f"without {r}", data[data[rater] != r]) for r in raters]:
        means = sub[rating].groupby(sub[system].to_numpy(), sort=True).mean().dropna()
        board = pd.DataFrame({system: means.index, "mean": means.to_numpy()})
        board["rank"] = board["mean"].rank(ascending=not higher_is_better, method="min").astype(int)
        board = board.sort_values(["rank", system], kind="stable")
        board.insert(0, "panel", name)
        board["winner"] = " / ".join(str(s) for s in board.loc[board["rank"] == 1, system])
        frames.append(board)
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("higher_is_better", [True, False])
@pytest.mark.parametrize("kind", ["whole numbers", "MQM-like weights", "ties and gaps"])
def test_leave_one_out_leaderboards_are_the_loops(kind, higher_is_better):
    rng = np.random.default_rng(len(kind))
    data = simulate_crossed(6, 4, 7, seed=2, scale=(1, 5))
    if kind == "MQM-like weights":
        data["rating"] = rng.choice([0.0, 0.1, 1.0, 5.0, 25.0], len(data)) + rng.choice([0.0, 0.1], len(data))
    elif kind == "ties and gaps":
        data["rating"] = data["rating"].astype(float)
        data.loc[data["system"] == "S2", "rating"] = data.loc[data["system"] == "S1", "rating"].to_numpy()  # tied
        data.loc[rng.random(len(data)) < 0.2, "rating"] = np.nan
        data.loc[(data["system"] == "S4") & (data["annotator"] != "A3"), "rating"] = np.nan  # S4: A3 alone
    ours = panels.leave_one_annotator_out(data, higher_is_better=higher_is_better)
    theirs = _loop_leave_one_out(data, higher_is_better=higher_is_better)
    assert (
        ours[["panel", "system", "rank", "winner"]]
        .astype(str)
        .equals(theirs[["panel", "system", "rank", "winner"]].astype(str))
    )
    # The means by subtraction and by direct (pandas) sums differ at most in their last bit.
    np.testing.assert_allclose(ours["mean"].to_numpy(), theirs["mean"].to_numpy(), rtol=4e-16, atol=0)


def test_above_the_limit_the_audit_samples_rater_pairs_and_says_so(monkeypatch):
    data = simulate_crossed(4, 3, 30, seed=1, scale=(1, 5))  # 435 pairs of raters
    full = audit.audit(data, None, seed=0, n_boot=50)
    assert full["rater_pairs"]["sampled"] is False and len(full["pearson"]) == 435
    assert "all 435 pairs" in full["rater_pairs"]["note"]
    monkeypatch.setattr(pairs, "MAX_PAIRS", 100)
    sampled = audit.audit(data, None, seed=7, n_boot=50)
    facts = sampled["rater_pairs"]
    assert (facts["pairs"], facts["computed"], facts["sampled"], facts["seed"], facts["max_pairs"]) == (
        435,
        100,
        True,
        7,
        100,
    )
    assert "uniform sample of 100 of the 435 pairs of the 30 raters (seed 7)" in facts["note"]
    assert len(sampled["pearson"]) == 100 and len(sampled["loao"]["kendall"]) == 100
    # The sample is a subset of the full table, with the same values.
    full_r = {(p["rater1"], p["rater2"]): p["r"] for p in full["pearson"]}
    for p in sampled["pearson"]:
        assert p["r"] == full_r[(p["rater1"], p["rater2"])]
    again = audit.audit(data, None, seed=7, n_boot=50)
    assert again["pearson"] == sampled["pearson"]


# --- pairwise preferences: every bootstrap's fits at once ------------------------------------------------------

from compendium.stats import preference  # noqa: E402


def _stack(rng, n, k):
    """Win matrices: most estimable, some not (a system that never loses, a system never compared)."""
    wins = rng.poisson(3.0, (n, k, k)).astype(float) / 2
    wins[:, np.arange(k), np.arange(k)] = 0
    wins[: n // 5, :, 0] = 0.0  # system 0 never loses: no maximum
    wins[n // 5: n // 4, 1, :] = wins[n // 5: n // 4, :, 1] = 0.0  # system 1 never compared
    return wins


@pytest.mark.parametrize("k", [2, 3, 8, 17])
def test_bradley_terry_on_a_stack_is_each_matrix_fitted_alone(k):
    wins = _stack(np.random.default_rng(k), 60, k)
    alone = np.array([preference._fit(w) for w in wins])
    together = preference._fit_many(wins)
    np.testing.assert_allclose(together, alone, rtol=0, atol=1e-12)
    expected = np.array([preference.estimable(w) for w in wins])
    np.testing.assert_array_equal(preference._estimable_many(wins), expected)
    assert expected.any() and not expected.all()
    assert np.isnan(together[~expected]).all() and not np.isnan(together[expected]).any()


def _votes(n_items=40, k=4, n_raters=6, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(i, a, b, r, rng.choice(["a", "b", "tie"], p=[0.45, 0.4, 0.15]))
            for i in range(n_items) for r in range(n_raters) for a, b in [tuple(rng.choice(k, 2, replace=False))]]
    frame = pd.DataFrame(rows, columns=["item", "system_a", "system_b", "rater", "winner"])
    return frame.assign(system_a="S" + frame["system_a"].astype(str), system_b="S" + frame["system_b"].astype(str),
                        rater="R" + frame["rater"].astype(str))


def test_each_raters_panels_are_the_masked_fits():
    """Leave-one-rater-out and per-rater fits from the full panel's wins minus each rater's, against each panel's
    wins counted from its own judgements (the former loop)."""
    c = preference.comparisons(_votes())
    full = preference._fit(c.matrix())
    loro, alone = preference.leave_one_rater_out(c), preference.per_rater(c)
    for code, name in enumerate(c.raters):
        without = preference._fit(c.matrix((c.rater != code).astype(float)))
        own = preference._fit(c.matrix((c.rater == code).astype(float)))
        row = loro.iloc[code]
        assert row["left_out"] == name and row["judgements"] == int((c.rater != code).sum())
        assert row["order"] == [c.systems[i] for i in np.argsort(-without, kind="stable")]
        assert row["kendall_tau"] == pytest.approx(float(stats.kendalltau(without, full).statistic))
        assert alone.iloc[code]["order"] == ([c.systems[i] for i in np.argsort(-own, kind="stable")]
                                             if not np.isnan(own).any() else None)


def test_rater_by_system_spread_is_the_two_way_table_of_each_raters_fit():
    c = preference.comparisons(_votes(n_items=80, n_raters=5, seed=3))
    k, n = c.n_systems, len(c.raters)
    table = np.array([preference._fit(c.matrix((c.rater == r).astype(float))) for r in range(n)])
    means = table.mean(axis=0)
    ms_system = n * np.sum((means - means.mean()) ** 2) / (k - 1)
    resid = table - table.mean(axis=1, keepdims=True) - means + table.mean()
    ms_resid = np.sum(resid ** 2) / ((n - 1) * (k - 1))
    spread = preference.rater_system_spread(c, n_boot=50, seed=1)
    assert spread["system_var"] == pytest.approx((ms_system - ms_resid) / n, rel=1e-10)
    assert spread["rater_x_system_var"] == pytest.approx(ms_resid, rel=1e-10)
    assert spread["F"] == pytest.approx(ms_system / ms_resid, rel=1e-10)
    assert spread["n_valid"] > 0 and spread["system_var_ci"][0] <= spread["system_var_ci"][1]


# --- beyond one machine: the G bootstrap and the leave-one-rater-out panels on dask.distributed -----------------

def test_the_g_bootstrap_and_the_panels_on_a_local_cluster_equal_the_ones_in_process(tmp_path):
    import os
    from unittest import mock

    from compendium import cli
    from compendium.simulate.crossed import simulate_incomplete
    from compendium.stats import gstudy, rater_variance

    distributed = pytest.importorskip("distributed")
    study = gstudy.fit_gstudy(simulate_incomplete(30, 3, 6, raters_per_item=3, seed=5))
    here = (gstudy.g_bootstrap_ci(study, n_boot=24, seed=4), rater_variance.log_ratio_ci(study, n_boot=10, seed=4),
            gstudy.leave_one_rater_out(study))
    # distributed's nanny leaves its workers' variables in this process's environment: they are put back.
    with mock.patch.dict(os.environ):
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            with distributed.Client(cluster) as client:
                executor = client.get_executor()
                there = (gstudy.g_bootstrap_ci(study, n_boot=24, seed=4, executor=executor),
                         rater_variance.log_ratio_ci(study, n_boot=10, seed=4, executor=executor),
                         gstudy.leave_one_rater_out(study, executor=executor))
                workers = len(client.scheduler_info()["workers"])
                # The command: `compendium audit --scheduler ADDRESS` writes the summary it writes without one.
                study.data.rename(columns={"item": "sentence_id", "rater": "annotator"}).to_csv(
                    tmp_path / "r.csv", index=False
                )
                common = [str(tmp_path / "r.csv"), "--format", "json", "--g-interval", "bootstrap", "--n-boot-g", "12",
                          "--n-boot", "50"]
                assert cli.main(["audit", *common, "--out", str(tmp_path / "here")]) == 0
                assert cli.main(["audit", *common, "--out", str(tmp_path / "there"),
                                 "--scheduler", cluster.scheduler_address]) == 0
    assert workers == 2
    same = lambda a, b: json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)  # NaN equal to NaN
    assert same(there[0], here[0]) and here[0]["n_boot"] == 24 and here[0]["ci_low"] < here[0]["ci_high"]
    assert same(there[1], here[1])
    pd.testing.assert_frame_equal(there[2], here[2])
    assert set(here[2]["panel"]) == {"all", *(f"without {r}" for r in study.data["rater"].unique())}
    written = [json.loads((tmp_path / where / "audit.json").read_text()) for where in ("here", "there")]
    assert written[0] == written[1] and written[0]["interval_n_boot_G"] == 12 and not written[0]["design_complete"]


def test_a_long_table_is_cut_in_the_report_and_the_cut_is_said():
    frame = pd.DataFrame({"rater": [f"R{i}" for i in range(120)], "mean": np.arange(120.0)})
    assert wording.shown(frame).equals(frame.head(wording.MAX_SHOWN))
    note = wording.cut_note(frame, "raters", "rater_summary")
    assert note.data == "*The first 50 of 120 raters are shown; all of them are in the JSON summary (`rater_summary`).*"
    assert wording.cut_note(frame.head(50), "raters", "rater_summary") is None
    wide = pd.DataFrame(np.ones((2, 60)), columns=["all", *(f"without R{i}" for i in range(59))])
    assert list(wording.shown(wide, axis=1).columns) == list(wide.columns[:50])
    assert "The first 50 of 60 panels" in wording.cut_note(wide, "panels", "loao.panels", axis=1).data
