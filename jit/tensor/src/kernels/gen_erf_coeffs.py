"""Generates the f32 coefficients of `erf.rs` (eager's vectorisable f32 erf).

Run with any Python that has numpy and mpmath (the project uses /tmp/pt/bin/python):
    python jit/tensor/src/kernels/gen_erf_coeffs.py
and paste the printed constants into erf.rs. The output is deterministic.

The pieces (a = |x|):
  a < T1:       erf(a) = a + a * S(a^2)        S fits erf(a)/a - 1 in u = a^2 on [0, T1^2]
  T1 <= a < M:  erf(a) = 1 - L1(a - C1)        L1 fits erfc on [T1, M]
  M <= a < BIG: erf(a) = 1 - L2(a - C2)        L2 fits erfc on [M, BIG]
  a >= BIG:     1 (erfc(a) < 2^-25, so erf rounds to 1 in f32)
Writing the small piece as a + a*S (S(0) = 2/sqrt(pi) - 1 = 0.128) and the large ones as 1 - erfc
keeps the rounding of the leading constant out of the result: the rounded parts are small next to
it.

Fitting: each polynomial is a near-minimax fit of the absolute error (Lawson's iteratively
reweighted least squares on Chebyshev nodes), its coefficients rounded to f32 from the constant
term up, refitting the remaining ones after each rounding (a greedy version of Sollya's fpminimax).
"""

import mpmath
import numpy as np

mpmath.mp.dps = 30
f32 = np.float32

T1, M = 0.875, 2.25
DEG_SMALL, DEG_LARGE = 6, 11


def big_threshold():
    """The smallest f32 a with erfc(a) < 2^-25, above which erf(a) rounds to 1."""
    root = mpmath.findroot(lambda t: mpmath.erfc(t) - mpmath.mpf(2) ** -25, 3.9)
    a = f32(float(root))
    while mpmath.erfc(mpmath.mpf(float(a))) >= mpmath.mpf(2) ** -25:
        a = np.nextafter(a, f32(np.inf))
    while mpmath.erfc(mpmath.mpf(float(np.nextafter(a, f32(0))))) < mpmath.mpf(2) ** -25:
        a = np.nextafter(a, f32(0))
    return float(a)


def fit_f32(f, lo, hi, deg, var, nodes=3000, rounds=40):
    """Coefficients c (f32 values) of sum c_k var(x)^k ~ f(x) on [lo, hi]."""
    k = np.arange(nodes)
    x = (hi + lo) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / nodes)
    v = var(x)
    y = np.array([float(f(mpmath.mpf(float(t)))) for t in x])
    cols = np.vander(v, deg + 1, increasing=True)
    fixed = []
    for j in range(deg + 1):
        rest = y - cols[:, :j] @ np.array(fixed) if j else y
        a = cols[:, j:]
        w = np.full(nodes, 1.0 / nodes)
        for _ in range(rounds):
            sw = np.sqrt(w)
            c = np.linalg.lstsq(a * sw[:, None], rest * sw, rcond=None)[0]
            w = np.maximum(w * np.abs(a @ c - rest), 1e-300)
            w /= w.sum()
        fixed.append(float(f32(c[0])))
    return fixed


def main():
    big = big_threshold()
    c1 = float(f32((T1 + M) / 2))
    c2 = float(f32((M + big) / 2))
    small = fit_f32(lambda t: mpmath.erf(t) / t - 1, 1e-4, T1, DEG_SMALL, lambda x: x * x)
    l1 = fit_f32(mpmath.erfc, T1, M, DEG_LARGE, lambda x: x - c1)
    l2 = fit_f32(mpmath.erfc, M, big, DEG_LARGE, lambda x: x - c2)
    r = lambda v: str(f32(v))  # the shortest decimal that reads back as this f32
    print(f"const SMALL_MAX: f32 = {r(T1)};")
    print(f"const SPLIT: f32 = {r(M)};")
    print(f"const ONE_FROM: f32 = {r(big)};")
    print(f"const CENTER: [f32; 2] = [{r(c1)}, {r(c2)}];")
    print(f"const SMALL: [f32; {DEG_SMALL + 1}] = [{', '.join(r(c) for c in small)}];")
    print(f"const LOWER: [f32; {DEG_LARGE + 1}] = [{', '.join(r(c) for c in l1)}];")
    print(f"const UPPER: [f32; {DEG_LARGE + 1}] = [{', '.join(r(c) for c in l2)}];")


if __name__ == "__main__":
    main()
