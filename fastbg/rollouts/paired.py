"""The statistics of candidate plays rolled out with common random numbers.

A block of :func:`fastbg.rollouts.plays.rollout_plays` returns, for the ``m`` candidates it
played, the sums of their per-game results ``s`` (m, 6), of their squares ``ss`` (m, 6) and the
cross products of their per-game equities ``cross`` (m, m), flattened in that order. From
them come each play's estimates, the standard error of each paired difference and the
probability that a play is best; with pruning, over the stages (runs of blocks with the same
candidates) each play took part in.
"""
from __future__ import annotations

import numpy as np

from .cubeless import vr_statistics

__all__ = ["paired_statistics", "stage_parts", "paired_difference", "survivors",
           "staged_statistics"]


def paired_statistics(cands, sums, n, C) -> list[dict]:
    """The rows of ``C`` candidates that played the same ``n`` games, best first.

    Parameters
    ----------
    cands : list of RankedPlay
        The candidates, in the order of the sums.
    sums : array_like of float, shape (12 C + C**2,)
        ``s``, ``ss`` and ``cross`` of the games, flattened (the module's docstring).
    n : int
        Games.
    C : int
        Candidates.

    Returns
    -------
    list of dict
        Per play: ``move``, ``position_id``, the five probabilities and ``equity``,
        ``stderr`` (same keys), ``diff`` and ``diff_stderr`` (from the best play, paired),
        ``p_best`` (the share of 20,000 draws, with a fixed seed, from the estimates' joint
        normal distribution in which the play is highest) and ``eval_equity``.
    """
    f = np.asarray(sums, dtype=np.float64)
    s = f[:C * 6].reshape(C, 6)
    ss = f[C * 6:2 * C * 6].reshape(C, 6)
    cross = f[2 * C * 6:].reshape(C, C)
    eq = s[:, 5] / n
    if n > 1:
        cov = (cross - np.outer(s[:, 5], s[:, 5]) / n) / (n - 1) / n   # of the mean equities
    else:
        cov = np.full((C, C), np.nan)
    best = int(np.argmax(eq))
    if C == 1:
        p_best = np.ones(1)
    elif n > 1:
        cov = (cov + cov.T) / 2
        draws = np.random.default_rng(0).multivariate_normal(eq, cov, size=20000, method="eigh")
        p_best = np.bincount(np.argmax(draws, axis=1), minlength=C) / len(draws)
    else:
        p_best = np.full(C, np.nan)
    rows = []
    for c, cand in enumerate(cands):
        if c == best:
            dvar = 0.0
        elif n > 1:
            dvar = max(0.0, cov[c, c] + cov[best, best] - 2 * cov[c, best])
        else:
            dvar = float("nan")
        est, se = vr_statistics(np.array([s[c], ss[c]]), n)   # probabilities kept in [0, 1]
        rows.append({"move": cand.move, "position_id": cand.position_id, **est,
                     "stderr": se,
                     "diff": float(eq[c] - eq[best]), "diff_stderr": float(np.sqrt(dvar)),
                     "p_best": float(p_best[c]), "eval_equity": cand.equity})
    rows.sort(key=lambda r: -r["equity"])
    return rows


def stage_parts(stage):
    """A stage's candidates and its sums split.

    Parameters
    ----------
    stage : tuple
        ``(candidates, games, counts, sums)`` of a stage.

    Returns
    -------
    tuple
        ``(candidates, games, s (m, 6), ss (m, 6), cross (m, m))``.
    """
    sel, n, _, sums = stage
    m = len(sel)
    f = np.asarray(sums, dtype=np.float64)
    return sel, n, f[:m * 6].reshape(m, 6), f[m * 6:2 * m * 6].reshape(m, 6), \
        f[2 * m * 6:].reshape(m, m)


def paired_difference(stages, a: int, b: int) -> tuple[int, float, float]:
    """Games, mean and standard error of the per-game equity difference a - b over the
    stages in which both were played."""
    n = 0
    d = dd = 0.0
    for st in stages:
        sel, ns, s, ss, cross = stage_parts(st)
        if a in sel and b in sel:
            i, j = sel.index(a), sel.index(b)
            n += ns
            d += s[i, 5] - s[j, 5]
            dd += ss[i, 5] + ss[j, 5] - 2 * cross[i, j]
    mean = d / n if n else float("nan")
    se = float(np.sqrt(max(0.0, (dd - n * mean * mean) / (n - 1)) / n)) if n > 1 else float("nan")
    return n, float(mean), se


def survivors(stages, k: float) -> list[int]:
    """The candidates of the last stage not more than ``k`` paired standard errors behind
    the best of them (by their equity over all the stages they played)."""
    sel = stages[-1][0]
    tot = {c: [0.0, 0] for c in sel}
    for st in stages:
        s_sel, ns, s, _, _ = stage_parts(st)
        for i, c in enumerate(s_sel):
            if c in tot:
                tot[c][0] += s[i, 5]
                tot[c][1] += ns
    eq = {c: v[0] / v[1] for c, v in tot.items()}
    best = max(sel, key=lambda c: (eq[c], -sel.index(c)))
    keep = []
    for c in sel:
        if c == best:
            keep.append(c)
            continue
        _, diff, se = paired_difference(stages, best, c)
        if not diff > k * se:
            keep.append(c)
    return keep


def staged_statistics(cands, stages, C: int) -> list[dict]:
    """:func:`paired_statistics` of the plays that played every stage, and for the plays pruned
    on the way their own estimates and their paired difference from the best over the
    games they played (``p_best`` None)."""
    surv = stages[-1][0]
    n = sum(st[1] for st in stages)
    m = len(surv)
    s = np.zeros((m, 6))
    ss = np.zeros((m, 6))
    cross = np.zeros((m, m))
    own = {c: [np.zeros(6), np.zeros(6), 0] for c in range(C)}
    for st in stages:
        sel, ns, s_st, ss_st, cr = stage_parts(st)
        for i, c in enumerate(sel):
            own[c][0] += s_st[i]
            own[c][1] += ss_st[i]
            own[c][2] += ns
        idx = [sel.index(c) for c in surv]
        s += s_st[idx]
        ss += ss_st[idx]
        cross += cr[np.ix_(idx, idx)]
    rows = paired_statistics([cands[c] for c in surv], np.concatenate([s.ravel(), ss.ravel(),
                                                                  cross.ravel()]), n, m)
    for r in rows:
        r.update(games=n, pruned=False)
    best = surv[int(np.argmax(s[:, 5]))]
    for c in range(C):
        if c in surv or own[c][2] == 0:
            continue
        nc = own[c][2]
        est, se = vr_statistics(np.array([own[c][0], own[c][1]]), nc)
        _, diff, dse = paired_difference(stages, c, best)
        rows.append({"move": cands[c].move, "position_id": cands[c].position_id, **est,
                     "stderr": se, "diff": diff, "diff_stderr": dse, "p_best": None,
                     "eval_equity": cands[c].equity, "games": nc, "pruned": True})
    rows.sort(key=lambda r: -r["equity"])
    return rows
