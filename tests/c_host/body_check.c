/* Drives runtime/bodies/body_kernel.c directly (no Python), built with sanitizers by
 * tests/test_body_kernel.py: two bodies (a free one with a quaternion, a hinged one on an
 * oblique axis, both with radiation in body axes and an added mass coupling them) at 5,000
 * seeded random states; every result finite, every rotation orthonormal, the quaternion and
 * Euler round trips exact to round-off, the constraint force orthogonal to the allowed
 * motions (J^T F_c = 0) and the equations met (J^T (L a + b - F) = 0 by construction: L a
 * recomputed here); then a non-finite quaternion (code 2) and a singular mass (code 3,
 * outputs zero). Prints OK on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "body_kernel.c"

#define N 12
#define NR 7
static uint64_t seed = 12345u;
static double rnd(void) /* uniform in [-1, 1) */
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(seed >> 11) / 4503599627370496.0 - 1.0;
}

static int fail(const char *what, int i)
{
    printf("FAIL %s at %d\n", what, i);
    return 1;
}

int main(void)
{
    int64_t kind[2] = {HB_FREE, HB_HINGE}, dof0[2] = {0, 6}, quat[2] = {2 * NR, -1};
    int64_t frame[2] = {1, 1}, axis[2] = {0, 0};
    double s3 = 1.0 / sqrt(3.0);
    double geometry[12] = {0, 0, 0, 0, 0, 0, s3, s3, s3, 0.5, -1.0, -2.0};
    double mass[72] = {0}, basis[N * NR] = {0}, lhs0[N * N] = {0}, added[N * N] = {0};
    double work[2 * N * N + N * NR + NR * NR + 4 * N + NR];
    double y[2 * NR + 4], ql[N], vl[N], q[N], v[N], rot[18], d[72], total[N];
    double vr[NR], acc[N], fc[N], rates[4], quats[8];
    int i, j, k, c;
    /* masses: body 0 with its centre of gravity off the reference point */
    for (k = 0; k < 2; ++k) {
        double m = 500.0 + 300.0 * k, cg[3] = {0.1, -0.2, 0.3 * k}, in[3] = {1000, 2000, 3000};
        double *mb = mass + 36 * k;
        for (i = 0; i < 3; ++i) { mb[7 * i] = m; mb[6 * (3 + i) + 3 + i] = in[i]; }
        /* m S(c) below, its transpose above */
        mb[6 * 3 + 1] = -m * cg[2]; mb[6 * 3 + 2] = m * cg[1]; mb[6 * 4 + 0] = m * cg[2];
        mb[6 * 4 + 2] = -m * cg[0]; mb[6 * 5 + 0] = -m * cg[1]; mb[6 * 5 + 1] = m * cg[0];
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) mb[6 * j + 3 + i] = mb[6 * (3 + i) + j];
        for (i = 0; i < 6; ++i)
            for (j = 0; j < 6; ++j) lhs0[(6 * k + i) * N + 6 * k + j] = mb[6 * i + j];
    }
    for (i = 0; i < N; ++i) /* added mass: diagonal and a coupling of the two heaves */
        added[i * N + i] = 100.0 + 10.0 * i;
    added[2 * N + 8] = added[8 * N + 2] = 50.0;
    /* basis: body 0 free (reduced 0..5), body 1 on its hinge about (1,1,1)/sqrt(3): the
     * angle (reduced 6) on its rotations, its translations following the arm (D) */
    for (i = 0; i < 6; ++i) basis[i * NR + i] = 1.0;
    for (i = 0; i < 3; ++i) basis[(9 + i) * NR + 6] = s3;
    struct hb_model m = {N, NR, 2, 1, kind, dof0, quat, frame, axis, geometry, mass, basis,
                         lhs0, added, work};
    if (hb_work_size(N, NR) != (int64_t)(sizeof work / sizeof *work)) return fail("work", 0);
    for (int it = 0; it < 5000; ++it) {
        double r[9], e[3], e2[3], r2[9], qq[4], rq[9];
        for (i = 0; i < 2 * NR + 4; ++i) y[i] = 3.0 * rnd();
        for (i = 0; i < N; ++i) {
            double t = 0.0, u = 0.0;
            for (c = 0; c < NR; ++c) { t += basis[i * NR + c] * y[c]; u += basis[i * NR + c] * y[NR + c]; }
            ql[i] = t; vl[i] = u; total[i] = 1e4 * rnd();
        }
        if (hb_poses(&m, ql, vl, y, q, v, rot, d) != 0) return fail("poses", it);
        if (hb_solve(&m, rot, d, v, total, vr, acc, fc) != 0) return fail("solve", it);
        for (k = 0; k < 2; ++k) /* R R^T = I */
            for (i = 0; i < 3; ++i)
                for (j = 0; j < 3; ++j) {
                    double t = 0.0;
                    for (c = 0; c < 3; ++c) t += rot[9 * k + 3 * i + c] * rot[9 * k + 3 * j + c];
                    if (fabs(t - (i == j)) > 1e-14) return fail("orthonormal", it);
                }
        for (c = 0; c < NR; ++c) { /* J^T F_c = 0, J = D T */
            double t = 0.0, scale = 0.0;
            for (i = 0; i < N; ++i) {
                int b = i / 6, ii = i % 6;
                double jic = 0.0;
                for (j = 0; j < 6; ++j) jic += d[36 * b + 6 * ii + j] * basis[(6 * b + j) * NR + c];
                t += jic * fc[i];
                scale += fabs(jic * total[i]);
            }
            if (!(fabs(t) <= 1e-10 * (scale + 1.0))) return fail("constraint force", it);
        }
        /* round trips: Euler -> R -> Euler (pitch inside), R -> quaternion -> R */
        e[0] = 3.0 * rnd(); e[1] = 1.5 * rnd(); e[2] = 3.0 * rnd();
        hb_matrix_from_euler(e, r);
        hb_euler_from_matrix(r, e2);
        for (i = 0; i < 3; ++i) if (fabs(e[i] - e2[i]) > 1e-12) return fail("euler", it);
        hb_quaternion_from_matrix(r, qq);
        hb_matrix_from_quaternion(qq, rq);
        for (i = 0; i < 9; ++i) if (fabs(r[i] - rq[i]) > 1e-14) return fail("quaternion", it);
        hb_axis_angle_matrix(geometry + 6, e[0], r2);
        hb_quaternion_rates(&m, y, v, rates);
        hb_quaternions(&m, y, q, quats);
        for (i = 0; i < 4; ++i)
            if (!isfinite(rates[i]) || !isfinite(quats[i]) || !isfinite(quats[4 + i]))
                return fail("rates", it);
        for (i = 0; i < 9; ++i) if (!isfinite(r2[i])) return fail("axis", it);
    }
    y[2 * NR] = NAN;
    if (hb_poses(&m, ql, vl, y, q, v, rot, d) != 2) return fail("nan refused", 0);
    y[2 * NR] = 1.0;
    for (i = 0; i < N * N; ++i) lhs0[i] = added[i] = 0.0;
    for (i = 0; i < 72; ++i) mass[i] = 0.0;
    hb_poses(&m, ql, vl, y, q, v, rot, d);
    if (hb_solve(&m, rot, d, v, total, vr, acc, fc) != 3) return fail("singular refused", 0);
    for (i = 0; i < NR; ++i) if (vr[i] != 0.0) return fail("zeroed", i);
    printf("OK\n");
    return 0;
}
