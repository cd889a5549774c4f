/* Checks of runtime/panels/panel_kernel.c in a plain C program (built by
 * tests/test_panel_kernel_c.py with the sanitizers): a UV sphere at seeded random poses,
 * both surfaces, a wave of five components in finite depth, the refusals of a non-finite
 * pose and a bad index. Prints OK at the end; any failed check prints FAIL and exits 1. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct hp_panels {
    int64_t n_vertices, n_triangles, n_components;
    double rho, g, depth;
    const double *vertices;
    const int64_t *triangles;
    const double *amplitude, *omega, *wavenumber, *heading, *phase;
    double *work;
};
int hp_panel_eval(const struct hp_panels *m, const double *pose, double t, double scale,
                  int64_t mode, const double *ref, double *out);
int64_t hp_panel_kernel_struct_size(void);

#define NT 24              /* rings from pole to pole */
#define NP 48              /* points around */
#define NV (2 + (NT - 1) * NP)
#define NF (2 * NP * (NT - 1))
#define NC 5

static double vertices[3 * NV];
static int64_t triangles[3 * NF];
static double work[5 * NV + 4 * NC];

static uint64_t state = 20261127u;
static double uniform(double a, double b)
{
    state = state * 6364136223846793005u + 1442695040888963407u;
    return a + (b - a) * (double)(state >> 11) / 9007199254740992.0;
}

static int fail(const char *what)
{
    printf("FAIL %s\n", what);
    return 1;
}

int main(void)
{
    const double pi = 3.14159265358979323846, r = 1.0;
    int64_t nv = 0, nf = 0;
    vertices[0] = 0.0, vertices[1] = 0.0, vertices[2] = -r; /* south pole */
    nv = 1;
    for (int i = 1; i < NT; ++i)
        for (int j = 0; j < NP; ++j) {
            double th = pi * i / NT, ph = 2 * pi * j / NP;
            vertices[3 * nv] = r * sin(th) * cos(ph);
            vertices[3 * nv + 1] = r * sin(th) * sin(ph);
            vertices[3 * nv + 2] = -r * cos(th);
            ++nv;
        }
    vertices[3 * nv + 2] = r; /* north pole */
    int64_t north = nv++;
    for (int j = 0; j < NP; ++j) { /* counter-clockwise seen from outside */
        int64_t a = 1 + j, b = 1 + (j + 1) % NP;
        triangles[3 * nf] = 0, triangles[3 * nf + 1] = b, triangles[3 * nf + 2] = a, ++nf;
        for (int i = 1; i < NT - 1; ++i) {
            int64_t a0 = 1 + (i - 1) * NP + j, b0 = 1 + (i - 1) * NP + (j + 1) % NP;
            int64_t a1 = a0 + NP, b1 = b0 + NP;
            triangles[3 * nf] = a0, triangles[3 * nf + 1] = b0, triangles[3 * nf + 2] = b1, ++nf;
            triangles[3 * nf] = a0, triangles[3 * nf + 1] = b1, triangles[3 * nf + 2] = a1, ++nf;
        }
        int64_t c = 1 + (NT - 2) * NP + j, d = 1 + (NT - 2) * NP + (j + 1) % NP;
        triangles[3 * nf] = c, triangles[3 * nf + 1] = d, triangles[3 * nf + 2] = north, ++nf;
    }
    if (nv != NV || nf != NF || hp_panel_kernel_struct_size() != (int64_t)sizeof(struct hp_panels))
        return fail("mesh or structure size");
    double amp[NC], om[NC], k[NC], head[NC], ph[NC];
    for (int c = 0; c < NC; ++c) {
        om[c] = 0.5 + 0.3 * c;
        k[c] = om[c] * om[c] / 9.81 * 1.2; /* any positive wave number will do here */
        amp[c] = 0.2 / (1 + c), head[c] = 0.4 * c, ph[c] = 1.1 * c;
    }
    struct hp_panels m = {NV, NF, NC, 1025.0, 9.81, 30.0, vertices, triangles,
                          amp, om, k, head, ph, work};
    double pose[12], ref[3] = {0, 0, 0}, out[20];
    memset(pose, 0, sizeof pose);
    pose[0] = pose[4] = pose[8] = 1.0;
    pose[11] = -5.0; /* deep: the whole sphere */
    if (hp_panel_eval(&m, pose, 0.0, 1.0, 1, ref, out) != 0)
        return fail("submerged call");
    double v = 4.0 / 3.0 * pi;
    if (fabs(out[12] - v) > 2 * (pi / NT) * (pi / NT) * v || fabs(out[2] - 1025 * 9.81 * out[12]) > 1e-6 * out[2])
        return fail("submerged volume and buoyancy");
    for (int n = 0; n < 5000; ++n) { /* random poses, surfaces, pressures */
        double a = uniform(-3.2, 3.2), b = uniform(-1.5, 1.5), c = uniform(-3.2, 3.2);
        double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
        double R[9] = {cc * cb, cc * sb * sa - sc * ca, cc * sb * ca + sc * sa,
                       sc * cb, sc * sb * sa + cc * ca, sc * sb * ca - cc * sa,
                       -sb, cb * sa, cb * ca};
        memcpy(pose, R, sizeof R);
        pose[9] = uniform(-5, 5), pose[10] = uniform(-5, 5), pose[11] = uniform(-1.5, 1.5);
        int64_t mode = 1 + (n % 7);
        if (hp_panel_eval(&m, pose, uniform(0, 100), uniform(0, 2), mode, pose + 9, out) != 0)
            return fail("random pose");
        for (int i = 0; i < 20; ++i)
            if (!isfinite(out[i]))
                return fail("non-finite output");
        if (out[12] < -1e-12 || out[12] > v * (1 + 1e-12) || out[16] < -1e-12)
            return fail("volume or waterplane out of range");
    }
    pose[11] = NAN;
    if (hp_panel_eval(&m, pose, 0.0, 1.0, 7, ref, out) != 2 || out[2] != 0.0)
        return fail("a NaN pose is refused");
    pose[11] = -1e200; /* finite coordinates whose squares overflow */
    if (hp_panel_eval(&m, pose, 0.0, 1.0, 7, ref, out) != 2 || out[12] != 0.0)
        return fail("an overflowing pose is refused");
    pose[0] = 1.0, pose[11] = 0.0;
    triangles[5] = NV; /* out of range */
    if (hp_panel_eval(&m, pose, 0.0, 1.0, 3, ref, out) != 1 || out[0] != 0.0)
        return fail("a bad index is refused");
    printf("OK\n");
    return 0;
}
