/* hydrofmu native runtime, small dense linear algebra (see hfn_linalg.h). */
#include "hfn_linalg.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void mat_mul(int n, const double *a, const double *b, double *c) {
    int i, j, l;
    for (i = 0; i < n; i++) {
        double *ci = c + (size_t)i * n;
        for (j = 0; j < n; j++) ci[j] = 0.0;
        for (l = 0; l < n; l++) {
            double ail = a[(size_t)i * n + l];
            const double *bl = b + (size_t)l * n;
            if (ail == 0.0) continue;
            for (j = 0; j < n; j++) ci[j] += ail * bl[j];
        }
    }
}

/* Solve A X = B in place (A n x n destroyed, B n x n overwritten by X); partial pivoting. */
static int lu_solve(int n, double *a, double *b, int *ipiv) {
    int i, j, l;
    for (l = 0; l < n; l++) {
        int p = l;
        double best = fabs(a[(size_t)l * n + l]);
        for (i = l + 1; i < n; i++) {
            double v = fabs(a[(size_t)i * n + l]);
            if (v > best) { best = v; p = i; }
        }
        ipiv[l] = p;
        if (best == 0.0) return -1;
        if (p != l) {
            for (j = 0; j < n; j++) {
                double t = a[(size_t)l * n + j];
                a[(size_t)l * n + j] = a[(size_t)p * n + j];
                a[(size_t)p * n + j] = t;
                t = b[(size_t)l * n + j];
                b[(size_t)l * n + j] = b[(size_t)p * n + j];
                b[(size_t)p * n + j] = t;
            }
        }
        for (i = l + 1; i < n; i++) {
            double f = a[(size_t)i * n + l] / a[(size_t)l * n + l];
            if (f == 0.0) continue;
            for (j = l + 1; j < n; j++) a[(size_t)i * n + j] -= f * a[(size_t)l * n + j];
            for (j = 0; j < n; j++) b[(size_t)i * n + j] -= f * b[(size_t)l * n + j];
        }
    }
    for (l = n - 1; l >= 0; l--) {
        for (j = 0; j < n; j++) {
            double s = b[(size_t)l * n + j];
            for (i = l + 1; i < n; i++) s -= a[(size_t)l * n + i] * b[(size_t)i * n + j];
            b[(size_t)l * n + j] = s / a[(size_t)l * n + l];
        }
    }
    return 0;
}

static const double PADE13[14] = {
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0};
static const double THETA13 = 5.371920351148152;
/* The most squarings of a finite norm: log2(DBL_MAX / THETA13) < 1022. */
#define HFN_MAX_SQUARINGS 1100.0

int hfn_expm(int n, const double *a_in, double *out, double *work, int *ipiv) {
    size_t nn = (size_t)n * n, i;
    double *a = work, *a2 = work + nn, *a4 = work + 2 * nn, *a6 = work + 3 * nn;
    double *t1 = work + 4 * nn, *t2 = work + 5 * nn;
    double norm = 0.0, scale;
    const double *b = PADE13;
    int s = 0, j, l;
    if (n == 0) return 0;
    for (j = 0; j < n; j++) {
        double col = 0.0;
        for (l = 0; l < n; l++) col += fabs(a_in[(size_t)l * n + j]);
        if (col > norm) norm = col;
    }
    /* the squarings: ceil(log2(norm / theta)), converted to int only when it is a finite
     * number of them (a NaN or an infinite norm, from a step of DBL_MAX, is refused: the
     * conversion of inf to int is undefined); beyond HFN_MAX_SQUARINGS e^A overflows */
    if (!(norm <= DBL_MAX)) return -1;
    if (norm > THETA13) {
        double squarings = ceil(log2(norm / THETA13));
        if (!(squarings <= HFN_MAX_SQUARINGS)) return -1;
        s = (int)squarings;
    }
    scale = ldexp(1.0, -s);
    for (i = 0; i < nn; i++) a[i] = a_in[i] * scale;
    mat_mul(n, a, a, a2);
    mat_mul(n, a2, a2, a4);
    mat_mul(n, a4, a2, a6);
    /* U = A (A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I) */
    for (i = 0; i < nn; i++) t1[i] = b[13] * a6[i] + b[11] * a4[i] + b[9] * a2[i];
    mat_mul(n, a6, t1, t2);
    for (i = 0; i < nn; i++) t2[i] += b[7] * a6[i] + b[5] * a4[i] + b[3] * a2[i];
    for (j = 0; j < n; j++) t2[(size_t)j * n + j] += b[1];
    mat_mul(n, a, t2, out); /* out = U */
    /* V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I */
    for (i = 0; i < nn; i++) t1[i] = b[12] * a6[i] + b[10] * a4[i] + b[8] * a2[i];
    mat_mul(n, a6, t1, t2);
    for (i = 0; i < nn; i++) t2[i] += b[6] * a6[i] + b[4] * a4[i] + b[2] * a2[i];
    for (j = 0; j < n; j++) t2[(size_t)j * n + j] += b[0];
    /* (V - U) R = V + U */
    for (i = 0; i < nn; i++) {
        double u = out[i], v = t2[i];
        a[i] = v - u;
        out[i] = v + u;
    }
    if (lu_solve(n, a, out, ipiv) != 0) return -1;
    for (j = 0; j < s; j++) {
        mat_mul(n, out, out, t1);
        memcpy(out, t1, nn * sizeof(double));
        for (i = 0; i < nn; i++) /* overflowed: no more squarings (NaN stays NaN) */
            if (!(fabs(out[i]) <= DBL_MAX)) return -1;
    }
    return 0;
}

int hfn_discretize(int n, int p, const double *f, const double *g, double h, double *fused,
                   double *work, int *ipiv) {
    int nb = n + p, i, j;
    size_t nbb = (size_t)nb * nb;
    double *big = work, *e = work + nbb, *w = work + 2 * nbb;
    memset(big, 0, nbb * sizeof(double));
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) big[(size_t)i * nb + j] = f[(size_t)i * n + j] * h;
        for (j = 0; j < p; j++) big[(size_t)i * nb + n + j] = g[(size_t)i * p + j] * h;
    }
    if (hfn_expm(nb, big, e, w, ipiv) != 0) return -1;
    for (i = 0; i < n; i++)
        for (j = 0; j < nb; j++) fused[(size_t)i * nb + j] = e[(size_t)i * nb + j];
    return 0;
}

double hfn_quantized_step(double h) {
    char text[64];
    snprintf(text, sizeof text, "%.11e", h);
    return strtod(text, NULL);
}

/* (a + i b) / (c + i d) without overflow of c^2 + d^2 (Smith's algorithm). */
static void cdiv(double a, double b, double c, double d, double *re, double *im) {
    if (fabs(c) >= fabs(d)) {
        double r = d / c, den = c + d * r;
        *re = (a + b * r) / den; *im = (b - a * r) / den;
    } else {
        double r = c / d, den = c * r + d;
        *re = (a * r + b) / den; *im = (b * r - a) / den;
    }
}

/* Gaussian elimination of (ar + i ai) x = (x_re + i x_im) in place, rows swapped for the
 * largest |re| + |im| pivot; -1 when a pivot is not above tiny (singular to working
 * precision: a resonance). */
static int complex_eliminate(int n, double *ar, double *ai, double *x_re, double *x_im,
                             double tiny) {
    int i, j, l;
    for (l = 0; l < n; l++) {
        int p = l;
        double best = fabs(ar[(size_t)l * n + l]) + fabs(ai[(size_t)l * n + l]);
        double pr, pi_;
        for (i = l + 1; i < n; i++) {
            double v = fabs(ar[(size_t)i * n + l]) + fabs(ai[(size_t)i * n + l]);
            if (v > best) { best = v; p = i; }
        }
        if (!(best > tiny)) return -1; /* singular to working precision: a resonance */
        if (p != l) {
            double t;
            for (j = l; j < n; j++) {
                t = ar[(size_t)l * n + j]; ar[(size_t)l * n + j] = ar[(size_t)p * n + j];
                ar[(size_t)p * n + j] = t;
                t = ai[(size_t)l * n + j]; ai[(size_t)l * n + j] = ai[(size_t)p * n + j];
                ai[(size_t)p * n + j] = t;
            }
            t = x_re[l]; x_re[l] = x_re[p]; x_re[p] = t;
            t = x_im[l]; x_im[l] = x_im[p]; x_im[p] = t;
        }
        pr = ar[(size_t)l * n + l]; pi_ = ai[(size_t)l * n + l];
        for (i = l + 1; i < n; i++) {
            double mr, mi;
            double *rr = ar + (size_t)i * n, *ri = ai + (size_t)i * n;
            const double *lr = ar + (size_t)l * n, *li = ai + (size_t)l * n;
            if (rr[l] == 0.0 && ri[l] == 0.0) continue;
            cdiv(rr[l], ri[l], pr, pi_, &mr, &mi);
            for (j = l + 1; j < n; j++) {
                rr[j] -= mr * lr[j] - mi * li[j];
                ri[j] -= mr * li[j] + mi * lr[j];
            }
            x_re[i] -= mr * x_re[l] - mi * x_im[l];
            x_im[i] -= mr * x_im[l] + mi * x_re[l];
        }
    }
    return 0;
}

/* Back substitution of the eliminated system; -1 when the solution is not finite. */
static int complex_back_substitute(int n, const double *ar, const double *ai, double *x_re,
                                   double *x_im) {
    int i, j;
    for (i = n - 1; i >= 0; i--) {
        double sr = x_re[i], si = x_im[i];
        for (j = i + 1; j < n; j++) {
            double ur = ar[(size_t)i * n + j], ui = ai[(size_t)i * n + j];
            sr -= ur * x_re[j] - ui * x_im[j];
            si -= ur * x_im[j] + ui * x_re[j];
        }
        cdiv(sr, si, ar[(size_t)i * n + i], ai[(size_t)i * n + i], &x_re[i], &x_im[i]);
        if (!isfinite(x_re[i]) || !isfinite(x_im[i])) return -1;
    }
    return 0;
}

int hfn_particular(int n, const double *f, double w, const double *b_re, const double *b_im,
                   double *x_re, double *x_im, double *work, int *ipiv) {
    double *ar = work, *ai = work + (size_t)n * n, anorm = 0.0, tiny;
    int i, j;
    (void)ipiv; /* rows are swapped in place */
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            ar[(size_t)i * n + j] = -f[(size_t)i * n + j];
            ai[(size_t)i * n + j] = 0.0;
        }
        ai[(size_t)i * n + i] = w;
        x_re[i] = b_re[i]; x_im[i] = b_im[i];
    }
    for (j = 0; j < n; j++) { /* ||A||_1 with |z| <= |re| + |im| */
        double col = 0.0;
        for (i = 0; i < n; i++) col += fabs(ar[(size_t)i * n + j]) + fabs(ai[(size_t)i * n + j]);
        if (col > anorm) anorm = col;
    }
    if (!isfinite(anorm)) return -1;
    tiny = (double)n * DBL_EPSILON * anorm;
    if (complex_eliminate(n, ar, ai, x_re, x_im, tiny) != 0) return -1;
    return complex_back_substitute(n, ar, ai, x_re, x_im);
}
