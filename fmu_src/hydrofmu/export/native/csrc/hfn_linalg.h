/* hydrofmu native runtime, small dense linear algebra: the matrix exponential, the exact
 * discretisation of x' = F x + G u over a step, the complex solve of a sinusoid's particular
 * solution and the step length's quantisation. Row-major arrays, caller-provided work (no
 * allocation).
 */
#ifndef HFN_LINALG_H
#define HFN_LINALG_H

#include "hfn_internal.h"

/* e^A of an n x n row-major matrix (Pade [13/13], scaling and squaring). work: 6 n^2
 * doubles, ipiv: n ints. Returns 0, or -1 when the Pade denominator is singular, the norm
 * of A is not finite or e^A overflows. */
HFN_HIDDEN int hfn_expm(int n, const double *a, double *out, double *work, int *ipiv);

/* Exact discretisation over h: fused = [e^{F h} | int_0^h e^{F s} ds G], n x (n + p).
 * work: (n + p)^2 * 8 doubles, ipiv: n + p ints. */
HFN_HIDDEN int hfn_discretize(int n, int p, const double *f, const double *g, double h,
                              double *fused, double *work, int *ipiv);

/* The particular solution of one sinusoid: (i w I - F) x = b, complex, F n x n row-major,
 * by LU with partial pivoting. work: 2 n^2 + 2 n doubles, ipiv: n ints. Returns 0, or -1
 * when i w I - F is singular to working precision (a pivot below n eps ||i w I - F||_1: a
 * resonance) or the solution is not finite. */
HFN_HIDDEN int hfn_particular(int n, const double *f, double w, const double *b_re,
                              const double *b_im, double *x_re, double *x_im, double *work,
                              int *ipiv);

/* h rounded to 12 significant digits (as hydrofmu.lti.quantized_step). */
HFN_HIDDEN double hfn_quantized_step(double h);

#endif
