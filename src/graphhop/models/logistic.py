"""L2-regularized logistic regression by Newton's method: the one fit behind the small learned judges
(the KGQA confidence, :mod:`graphhop.kgqa.abstain`; the walk reader's ranker, :mod:`graphhop.read.walk_ranker`)."""

from __future__ import annotations

import numpy as np

__all__ = ["fit_logistic"]


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 50, sample_weight: np.ndarray | None = None,
                 jitter: float = 1e-9) -> tuple[np.ndarray, float]:
    """``(coef, intercept)`` of labels ``y`` (0/1) on standardized ``x``: L2 ``l2`` on the coefficients (not the
    intercept), each row weighed by ``sample_weight`` (default 1), ``jitter`` added to the Hessian's diagonal;
    at most ``iters`` Newton steps, stopping when no weight moves by 1e-8."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    sw = np.ones(len(x)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    pen = np.full(xb.shape[1], float(l2))
    pen[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (sw * (p - y)) + pen * w
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + np.diag(pen + jitter)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])
