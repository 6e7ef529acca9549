#!/usr/bin/env python3
"""Derives the coefficients of tile_erf, the f32 erf that the emitter writes (Metal has no erf).

Structure (the usual one for a float erf: a polynomial in x^2 near 0, and erf = 1 - exp(q(|x|))
beyond, so that the exponential decay of erfc is carried by exp and q stays smooth):
  |x| < T:      erf(x) = x + x * p(x^2),  p of degree N1 approximating erf(x)/x - 1
  T <= |x| < 4: erf(x) = sign(x) * (1 - exp(q(|x|))),  q of degree N2 approximating log(erfc(|x|))
  |x| >= 4:     erf(x) = sign(x)  (erfc(4) = 1.5e-8 < 2^-25, so erf rounds to 1 in f32)
Both fits minimise the maximum error *in erf* (weighted: relative for the first branch, erfc/erf
for the second) with Lawson's iteratively reweighted least squares (C. L. Lawson, 1961; see
Rice & Usow, "The Lawson algorithm and extensions", Math. Comp. 22 (1968) 118-127), which
converges to the minimax (Chebyshev) polynomial on the sample set, against erf/erfc computed with
mpmath at 40 digits. The coefficients are then rounded to f32 (shortest decimal that round-trips).
Requires numpy and mpmath. Usage: python3 scripts/erf/fit-erf.py  (prints the coefficients).
The resulting error over every finite f32 input is measured by scripts/erf/erf-exhaustive.mjs.
"""
import sys
import numpy as np
import mpmath as mp

mp.mp.dps = 40
T, N1, N2, SAMPLES = 0.875, 5, 7, 2000


def lawson(xs, f, w, deg, basis, iters=60):
    a = np.array([[basis(x) ** k for k in range(deg + 1)] for x in xs])
    lw = np.ones(len(xs)) / len(xs)
    for _ in range(iters):
        sw = np.sqrt(lw) * w
        c, *_ = np.linalg.lstsq(a * sw[:, None], f * sw, rcond=None)
        err = np.abs((a @ c - f) * w)
        lw = lw * err
        lw /= lw.sum()
    return c, err.max()


def cheb(lo, hi, n):
    return np.array([lo + (hi - lo) * (0.5 - 0.5 * np.cos(np.pi * (i + 0.5) / n)) for i in range(n)])


def f32_text(v):
    f = np.float32(v)
    for p in range(1, 12):
        s = "%.*e" % (p - 1, float(f))
        if np.float32(float(s)) == f:
            return s
    raise ValueError(v)


xs = np.maximum(cheb(0.0, T, SAMPLES), 1e-6)
p, e1 = lawson(xs, np.array([float(mp.erf(x) / x - 1) for x in xs]),
               np.array([float(x / mp.erf(x)) for x in xs]), N1, lambda x: x * x)
xs = cheb(T, 4.0, SAMPLES)
q, e2 = lawson(xs, np.array([float(mp.log(mp.erfc(a))) for a in xs]),
               np.array([float(mp.erfc(a) / mp.erf(a)) for a in xs]), N2, lambda x: x)
print("p (x^2 powers 0..%d), max relative error in erf before f32 rounding %.3g:" % (N1, e1))
print("  " + ", ".join(f32_text(v) for v in p))
print("q (|x| powers 0..%d), max relative error in erf before f32 rounding %.3g:" % (N2, e2))
print("  " + ", ".join(f32_text(v) for v in q))
sys.exit(0)
