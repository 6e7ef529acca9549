// tile_erf: the f32 erf the emitter writes wherever a kernel uses `erf` (Metal has none).
//
//   |x| < 0.875:        erf(x) = x + x * p(x^2), p of degree 5 approximating erf(x)/x - 1
//   0.875 <= |x| < 4:   erf(x) = sign(x) * (1 - exp(q(|x|))), q of degree 7 approximating
//                       log(erfc(|x|)) (exp carries erfc's Gaussian decay; q stays smooth)
//   |x| >= 4, +-inf:    sign(x) (erfc(4) = 1.5e-8 < 2^-25: erf rounds to 1 in f32); NaN -> NaN
//
// The coefficients are our own weighted minimax fits (scripts/erf/fit-erf.py: Lawson's
// algorithm against mpmath, then rounded to f32). Horner steps are fma. Measured over every
// finite f32 input against glibc's double erf (scripts/erf/erf-exhaustive.mjs, this very text
// compiled against the host shim; all 4,278,190,080 finite inputs): at most 1.0987 ulp (at
// x = 0.88285077, just past the switch; largest absolute error 6.55e-8), and 8.37% of the results
// differ from the correctly rounded f32. The exp is Metal's precise::exp; on a GPU its own error
// (not the host's expf) enters the second branch.

/** The helper's MSL text, emitted once before the kernel when it is used. */
export const ERF_HELPER: string =
  "// erf for f32 (Metal has none): |x| < 0.875: x + x*p(x^2); below 4: sign(x)*(1 - exp(q(|x|)));\n" +
  "// else sign(x). Minimax fits, at most 1.1 ulp over all finite f32 (see core/emit/erf.ts).\n" +
  "static inline float tile_erf(float x) {\n" +
  "  const float a = fabs(x);\n" +
  "  if (a < 0.875f) {\n" +
  "    const float s = x * x;\n" +
  "    float p = -6.2033854e-4f;\n" +
  "    p = fma(p, s, 5.0322087e-3f);\n" +
  "    p = fma(p, s, -2.6791485e-2f);\n" +
  "    p = fma(p, s, 0.11282456f);\n" +
  "    p = fma(p, s, -0.3761255f);\n" +
  "    p = fma(p, s, 0.12837915f);\n" +
  "    return fma(x, p, x);\n" +
  "  }\n" +
  "  if (a >= 4.0f) return copysign(1.0f, x);\n" +
  "  float q = -2.0451462e-5f;\n" +
  "  q = fma(q, a, 4.270841e-4f);\n" +
  "  q = fma(q, a, -4.13565e-3f);\n" +
  "  q = fma(q, a, 2.5027154e-2f);\n" +
  "  q = fma(q, a, -0.108139046f);\n" +
  "  q = fma(q, a, -0.63347346f);\n" +
  "  q = fma(q, a, -1.1294532f);\n" +
  "  q = fma(q, a, 1.6202597e-4f);\n" +
  "  return copysign(1.0f - precise::exp(q), x);\n" +
  "}\n";
