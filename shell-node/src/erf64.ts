// erf in double precision for the FP64 oracle, written from W. J. Cody's rational Chebyshev
// approximations: W. J. Cody, "Rational Chebyshev approximations for the error function",
// Math. Comp. 23 (1969) 631-637, as organised in his SPECFUN packet CALERF (netlib
// specfun/erf, 1990). The coefficients below are the published ones (good to about 1e-18
// relative); the evaluation is ours. Three ranges of y = |x|:
//   y <= 0.46875:  erf(x) = x * A(y^2) / B(y^2)                                  (degree 4/4)
//   y <= 4:        erfc(y) = exp(-y^2) * C(y) / D(y)                             (degree 8/8)
//   y > 4:         erfc(y) = exp(-y^2) / y * (1/sqrt(pi) + z * P(z) / Q(z)), z = 1/y^2 (5/5)
// exp(-y^2) is computed as exp(-ys^2) * exp(-(y - ys)(y + ys)) with ys = y rounded down to a
// multiple of 1/16, so that the square is exact in the first factor (Cody's device).

const A = [3.1611237438705656, 113.864154151050156, 377.485237685302021, 3209.37758913846947, 0.185777706184603153];
const B = [23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062];
const C = [
  0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131, 881.95222124176909,
  1712.04761263407058, 2051.07837782607147, 1230.33935479799725, 2.15311535474403846e-8,
];
const D = [
  15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019, 3290.79923573345963,
  4362.61909014324716, 3439.36767414372164, 1230.33935480374942,
];
const P = [
  0.305326634961232344, 0.360344899949804439, 0.125781726111229246, 0.0160837851487422766,
  6.58749161529837803e-4, 0.0163153871373020978,
];
const Q = [2.56852019228982242, 1.87295284992346047, 0.527905102951428412, 0.0605183413124413191, 0.00233520497626869185];
const ONE_OVER_SQRT_PI = 0.56418958354775628695;

/** exp(-y*y) with the square split so that its large part is exact. */
function expMinusSquare(y: number): number {
  const ys = Math.trunc(y * 16) / 16;
  const del = (y - ys) * (y + ys);
  return Math.exp(-ys * ys) * Math.exp(-del);
}

/** erfc(y) for y > 0.46875. */
function erfcTail(y: number): number {
  if (y <= 4) {
    let num = C[8] * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]) * y;
      den = (den + D[i]) * y;
    }
    return ((num + C[7]) / (den + D[7])) * expMinusSquare(y);
  }
  if (y >= 26.543) return 0; // erfc underflows (Cody's XBIG)
  const z = 1 / (y * y);
  let num = P[5] * z;
  let den = z;
  for (let i = 0; i < 4; i++) {
    num = (num + P[i]) * z;
    den = (den + Q[i]) * z;
  }
  const r = (z * (num + P[4])) / (den + Q[4]);
  return ((ONE_OVER_SQRT_PI - r) / y) * expMinusSquare(y);
}

/** The error function, accurate to a few units in the last place of a double. */
export function erf64(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y = Math.abs(x);
  if (y <= 0.46875) {
    const s = y * y;
    let num = A[4] * s;
    let den = s;
    for (let i = 0; i < 3; i++) {
      num = (num + A[i]) * s;
      den = (den + B[i]) * s;
    }
    return (x * (num + A[3])) / (den + B[3]);
  }
  const r = 0.5 - erfcTail(y) + 0.5;
  return x < 0 ? -r : r;
}
