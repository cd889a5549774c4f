/* Pressure integration over the wetted part of a body's triangle mesh (C99, no allocation).
 *
 * One call (hp_panel_eval) places the mesh at a pose (world = t + R v), cuts every
 * triangle at the free surface and integrates over the wetted part:
 *
 *   - the static pressure  p_s = -rho g z             (z up, z = 0 the mean surface);
 *   - the incident wave's pressure (linear Airy, any number of components)
 *       p_w = rho g sum_j a_j f_j(z) cos(w_j t - k_j (x cos b_j + y sin b_j) + phi_j)
 *     with f_j(z) = cosh(k_j (z + h)) / cosh(k_j h) (e^{k_j z} in deep water) for z <= 0
 *     and f_j = 1 above the mean surface (the hydrostatic extension: there the total
 *     pressure p_s + p_w = rho g (eta - z) vanishes at the instantaneous surface);
 *
 * returning the force -int p n dS and its moment about a reference point (world axes,
 * n the outward normal) for each of the two pressures, and the wetted volume, its centre
 * and the waterplane area and centre (horizontal projection) below the surface z = eta
 * (eta = 0 for the mean surface). The volume terms come from the divergence theorem with
 * the fields (0, 0, d), (0, 0, x d), (0, 0, y d), (0, 0, d (z + eta) / 2), d = z - eta,
 * whose divergences are 1, x, y, z and which vanish on the cap z = eta: only the wetted
 * hull is integrated, the waterplane cap never is.
 *
 * The surface: `mean` cuts at z = 0 (exact: the cut of a plane triangle by a plane);
 * `instantaneous` cuts at z = eta(x, y, t) with eta evaluated at the triangle's vertices
 * and taken linear over the triangle (the surface's error is second order in the panel
 * size, k^2 a h^2 / 8 at most).
 *
 * Static pressure: linear over a triangle, integrated exactly (int f g dA = A/12 (sum f_i
 * g_i + sum f_i sum g_i) for linear f, g). Wave pressure: evaluated once per vertex (and
 * interpolated along an edge at a cut), taken linear over each triangle and integrated
 * exactly so: second order in the panel size ((k h)^2 / 8 relative at most), for one
 * evaluation of the components per vertex instead of three per triangle.
 *
 * Quadrilaterals are split into triangles by the caller; a triangle's vertices are counter-
 * clockwise seen from the water (outward normal).
 *
 * A body's loads (hp_body_loads): the pose from the body's six displacements (translation
 * of the reference point, roll, pitch, yaw as R = Rz(yaw) Ry(pitch) Rx(roll)), one pass
 * over the panels for both pressures and the weight at the rotated centre of gravity: the
 * one evaluation both FMUs make per stage (the Python part by ctypes, the native FMU
 * through csrc/hfn_panels.c, which includes this file).
 */
#include <math.h>
#include <stdint.h>

#define HP_PANEL_KERNEL_ABI 3
#define HP_STRIDE 5 /* work per vertex: world x, y, z, height above the surface, p_w / rho g */

/* The native FMU includes this file with HP_EXPORT defined (its symbols hidden there:
 * export/native/csrc/hfn_panels.c). */
#ifndef HP_EXPORT
#if defined(_WIN32)
#define HP_EXPORT __declspec(dllexport)
#else
#define HP_EXPORT __attribute__((visibility("default")))
#endif
#endif

/* The mesh, the wave and the constants; arrays owned by the caller (read only). */
struct hp_panels {
    int64_t n_vertices;        /* vertices in the body frame, about the reference point */
    int64_t n_triangles;
    int64_t n_components;      /* wave components (0: no wave) */
    double rho, g, depth;      /* kg/m^3, m/s^2, m (inf or <= 0: deep water) */
    const double *vertices;    /* (n_vertices, 3) */
    const int64_t *triangles;  /* (n_triangles, 3) */
    const double *amplitude;   /* (n_components,) m */
    const double *omega;       /* rad/s */
    const double *wavenumber;  /* rad/m */
    const double *heading;     /* rad, direction the waves travel to */
    const double *phase;       /* rad */
    double *work;              /* (n_vertices, HP_STRIDE) + (n_components, 4): world
                                  vertices, their height above the surface and the wave
                                  pressure there; per-component cos/sin */
};

/* Output layout (HP_OUT doubles). */
enum {
    HP_STATIC = 0,   /* 6: force, moment of the static pressure */
    HP_WAVE = 6,     /* 6: force, moment of the wave pressure */
    HP_VOLUME = 12,  /* volume below the surface, m^3 */
    HP_COB = 13,     /* 3: its centre, world, m */
    HP_AWP = 16,     /* waterplane area (horizontal projection), m^2 */
    HP_CWP = 17,     /* 2: its centre x, y, m */
    HP_WETTED = 19,  /* wetted area, m^2 */
    HP_OUT = 20
};

/* Modes (bit flags). */
enum { HP_MODE_STATIC = 1, HP_MODE_WAVE = 2, HP_MODE_INSTANTANEOUS = 4 };

HP_EXPORT int64_t hp_panel_kernel_abi(void) { return HP_PANEL_KERNEL_ABI; }
HP_EXPORT int64_t hp_panel_kernel_struct_size(void) { return (int64_t)sizeof(struct hp_panels); }

static int deep(const struct hp_panels *m) { return !(m->depth > 0.0) || isinf(m->depth); }

/* Depth factor f(z) of one component (z <= 0), overflow-free for large k h. */
static double depth_factor(const struct hp_panels *m, double k, double z)
{
    if (z > 0.0)
        return 1.0;
    if (deep(m))
        return exp(k * z);
    return (exp(k * z) + exp(-k * (z + 2.0 * m->depth))) / (1.0 + exp(-2.0 * k * m->depth));
}

/* Elevation and wave pressure / (rho g) at a point (the pressure only when `pressure`).
 * The per-component cos/sin of (w t + phi), scaled by the amplitude, and of the heading
 * are in cs (4 per component). */
static void wave_at(const struct hp_panels *m, const double *cs, const double *r,
                    int pressure, double *eta, double *pw)
{
    double e = 0.0, p = 0.0;
    for (int64_t j = 0; j < m->n_components; ++j) {
        double kx = m->wavenumber[j] * (r[0] * cs[4 * j + 2] + r[1] * cs[4 * j + 3]);
        /* a cos(wt + phi - kx) = a cos(wt+phi) cos kx + a sin(wt+phi) sin kx */
        double c = cs[4 * j] * cos(kx) + cs[4 * j + 1] * sin(kx);
        e += c;
        if (pressure && r[2] <= 0.0)
            p += c * depth_factor(m, m->wavenumber[j], r[2]);
    }
    *eta = e;
    *pw = (r[2] > 0.0) ? e : p; /* above the mean surface: rho g eta (hydrostatic) */
}

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Accumulate one wetted triangle p0 p1 p2 (HP_STRIDE doubles each: world x, y, z, the
 * height above the surface, the wave pressure / rho g). */
static void add_triangle(const struct hp_panels *m, const double *p0, const double *p1,
                         const double *p2, const double *ref, int mode,
                         double *out)
{
    double e1[3], e2[3], nv[3];
    for (int i = 0; i < 3; ++i) {
        e1[i] = p1[i] - p0[i];
        e2[i] = p2[i] - p0[i];
    }
    cross(e1, e2, nv);
    for (int i = 0; i < 3; ++i)
        nv[i] *= 0.5; /* area vector N = A n */
    double area = sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
    if (area == 0.0)
        return;
    double c[4], szr[3], sdr[3];
    for (int i = 0; i < 4; ++i)
        c[i] = (p0[i] + p1[i] + p2[i]) / 3.0;
    /* (1/A) int f g dA = (sum f_i g_i + 9 f_c g_c) / 12 for f, g linear over the triangle */
    for (int i = 0; i < 3; ++i) {
        szr[i] = (p0[2] * p0[i] + p1[2] * p1[i] + p2[2] * p2[i] + 9.0 * c[2] * c[i]) / 12.0;
        sdr[i] = (p0[3] * p0[i] + p1[3] * p1[i] + p2[3] * p2[i] + 9.0 * c[3] * c[i]) / 12.0;
    }
    double sdd = (p0[3] * p0[3] + p1[3] * p1[3] + p2[3] * p2[3] + 9.0 * c[3] * c[3]) / 12.0;
    double rg = m->rho * m->g;
    out[HP_WETTED] += area;
    /* the volume below the surface: d = z - eta (the 4th coordinate), linear over it */
    out[HP_VOLUME] += c[3] * nv[2];
    out[HP_COB] += sdr[0] * nv[2];
    out[HP_COB + 1] += sdr[1] * nv[2];
    out[HP_COB + 2] += (sdr[2] - 0.5 * sdd) * nv[2];
    out[HP_AWP] -= nv[2];
    out[HP_CWP] -= c[0] * nv[2];
    out[HP_CWP + 1] -= c[1] * nv[2];
    if (mode & HP_MODE_STATIC) { /* -int p n = rho g int z n */
        double arm[3], mom[3];
        for (int i = 0; i < 3; ++i) {
            out[HP_STATIC + i] += rg * c[2] * nv[i];
            arm[i] = szr[i] - ref[i] * c[2];
        }
        cross(arm, nv, mom);
        for (int i = 0; i < 3; ++i)
            out[HP_STATIC + 3 + i] += rg * mom[i];
    }
    if ((mode & HP_MODE_WAVE) && m->n_components > 0) { /* p_w linear over the triangle */
        double pc = (p0[4] + p1[4] + p2[4]) / 3.0, arm[3], mom[3];
        for (int i = 0; i < 3; ++i) /* (1/A) int p_w (r - ref) dA */
            arm[i] = rg * ((p0[4] * p0[i] + p1[4] * p1[i] + p2[4] * p2[i] + 9.0 * pc * c[i])
                           / 12.0 - pc * ref[i]);
        cross(arm, nv, mom);
        for (int i = 0; i < 3; ++i) {
            out[HP_WAVE + i] -= rg * pc * nv[i];
            out[HP_WAVE + 3 + i] -= mom[i];
        }
    }
}

/* Point where the edge a -> b meets the surface (da <= 0 < db or the reverse); its 4th
 * coordinate, the height above the surface, is 0. */
static void edge_cut(const double *a, double da, const double *b, double db, double *out)
{
    double s = da / (da - db);
    for (int i = 0; i < HP_STRIDE; ++i)
        out[i] = a[i] + s * (b[i] - a[i]);
    out[3] = 0.0;
}

/* Place the mesh: world vertices and their height above the surface into the work array;
 * the components' cos/sin. */
static void place(const struct hp_panels *m, const double *pose, double t, double scale,
                  int mode, double *cs)
{
    const double *R = pose, *tr = pose + 9;
    for (int64_t j = 0; j < m->n_components; ++j) {
        double arg = m->omega[j] * t + m->phase[j];
        cs[4 * j] = scale * m->amplitude[j] * cos(arg);
        cs[4 * j + 1] = scale * m->amplitude[j] * sin(arg);
        cs[4 * j + 2] = cos(m->heading[j]);
        cs[4 * j + 3] = sin(m->heading[j]);
    }
    for (int64_t v = 0; v < m->n_vertices; ++v) {
        const double *b = m->vertices + 3 * v;
        double *w = m->work + HP_STRIDE * v;
        for (int i = 0; i < 3; ++i)
            w[i] = tr[i] + R[3 * i] * b[0] + R[3 * i + 1] * b[1] + R[3 * i + 2] * b[2];
        double eta = 0.0, pw = 0.0;
        if ((mode & (HP_MODE_INSTANTANEOUS | HP_MODE_WAVE)) && m->n_components > 0)
            wave_at(m, cs, w, (mode & HP_MODE_WAVE) != 0, &eta, &pw);
        w[3] = (mode & HP_MODE_INSTANTANEOUS) ? w[2] - eta : w[2];
        w[4] = pw;
    }
}

/* Integrate over the wetted part at the pose (R row-major 3x3, then t: 12 doubles), time
 * t (s) and amplitude scale (ramp, height ratio). mode: HP_MODE_* flags. ref: the moment's
 * reference point (world). out: HP_OUT doubles. Returns 0, or 1 when an index is out of
 * range, 2 when a coordinate or a sum is not finite (out then holds zeros). */
HP_EXPORT int hp_panel_eval(const struct hp_panels *m, const double *pose, double t,
                            double scale, int64_t mode, const double *ref, double *out)
{
    double *cs = m->work + HP_STRIDE * m->n_vertices;
    for (int i = 0; i < HP_OUT; ++i)
        out[i] = 0.0;
    place(m, pose, t, scale, (int)mode, cs);
    for (int64_t v = 0; v < m->n_vertices; ++v)
        if (!isfinite(m->work[HP_STRIDE * v]) || !isfinite(m->work[HP_STRIDE * v + 1])
            || !isfinite(m->work[HP_STRIDE * v + 3]) || !isfinite(m->work[HP_STRIDE * v + 4]))
            return 2;
    for (int64_t f = 0; f < m->n_triangles; ++f) {
        const int64_t *tri = m->triangles + 3 * f;
        const double *p[3];
        double d[3];
        int wet = 0;
        for (int i = 0; i < 3; ++i) {
            if (tri[i] < 0 || tri[i] >= m->n_vertices) {
                for (int o = 0; o < HP_OUT; ++o)
                    out[o] = 0.0;
                return 1;
            }
            p[i] = m->work + HP_STRIDE * tri[i];
            d[i] = p[i][3];
            wet += d[i] <= 0.0;
        }
        if (wet == 0)
            continue;
        if (wet == 3) {
            add_triangle(m, p[0], p[1], p[2], ref, (int)mode, out);
            continue;
        }
        /* rotate so that vertex 0 is the odd one (alone wet, or alone dry) */
        int k = 0;
        for (int i = 0; i < 3; ++i)
            if ((d[i] <= 0.0) == (wet == 1))
                k = i;
        const double *a = p[k], *b = p[(k + 1) % 3], *c = p[(k + 2) % 3];
        double da = d[k], db = d[(k + 1) % 3], dc = d[(k + 2) % 3];
        double ab[HP_STRIDE], ac[HP_STRIDE];
        edge_cut(a, da, b, db, ab);
        edge_cut(a, da, c, dc, ac);
        if (wet == 1) {
            add_triangle(m, a, ab, ac, ref, (int)mode, out);
        } else { /* the quadrilateral ab b c ac */
            add_triangle(m, ab, b, c, ref, (int)mode, out);
            add_triangle(m, ab, c, ac, ref, (int)mode, out);
        }
    }
    for (int i = 0; i < HP_OUT; ++i)
        if (!isfinite(out[i])) { /* sums that overflowed: coordinates far too large */
            for (int o = 0; o < HP_OUT; ++o)
                out[o] = 0.0;
            return 2;
        }
    if (out[HP_VOLUME] != 0.0)
        for (int i = 0; i < 3; ++i)
            out[HP_COB + i] /= out[HP_VOLUME];
    if (out[HP_AWP] != 0.0)
        for (int i = 0; i < 2; ++i)
            out[HP_CWP + i] /= out[HP_AWP];
    return 0;
}

/* The pose (R row-major, then t: 12 doubles) of a body whose reference point is at
 * origin + q[0:3] (world) and whose angles are q[3:6] = (roll, pitch, yaw), rad:
 * R = Rz(yaw) Ry(pitch) Rx(roll) (runtime/panels/pose.py, the same expressions). */
HP_EXPORT void hp_body_pose(const double *q, const double *origin, double *pose)
{
    double cr = cos(q[3]), sr = sin(q[3]), cp = cos(q[4]), sp = sin(q[4]);
    double cy = cos(q[5]), sy = sin(q[5]);
    pose[0] = cy * cp;
    pose[1] = cy * sp * sr - sy * cr;
    pose[2] = cy * sp * cr + sy * sr;
    pose[3] = sy * cp;
    pose[4] = sy * sp * sr + cy * cr;
    pose[5] = sy * sp * cr - cy * sr;
    pose[6] = -sp;
    pose[7] = cp * sr;
    pose[8] = cp * cr;
    for (int i = 0; i < 3; ++i)
        pose[9 + i] = origin[i] + q[i];
}

/* A body's loads at its displacements q (6: x, y, z of the reference point from origin,
 * m; roll, pitch, yaw, rad) at time t (s), wave amplitude scale `scale`: the pose
 * (hp_body_pose, into pose: 12 doubles), one hp_panel_eval about the reference point
 * origin + q[0:3] with `mode`, then the weight at the rotated centre of gravity added to
 * the static load: out[HP_STATIC..+6] is buoyancy minus weight. body: origin[3], the
 * centre of gravity about the reference point in the body frame cog[3] (m), the weight
 * m g (N). Returns hp_panel_eval's code (out zero unless 0). */
HP_EXPORT int hp_body_loads(const struct hp_panels *m, const double *body, const double *q,
                            double t, double scale, int64_t mode, double *pose, double *out)
{
    const double *cog = body + 3;
    double weight = body[6], arm[3];
    hp_body_pose(q, body, pose);
    int rc = hp_panel_eval(m, pose, t, scale, mode, pose + 9, out);
    if (rc != 0)
        return rc;
    for (int i = 0; i < 3; ++i)
        arm[i] = pose[3 * i] * cog[0] + pose[3 * i + 1] * cog[1] + pose[3 * i + 2] * cog[2];
    out[HP_STATIC + 2] -= weight;
    out[HP_STATIC + 3] -= arm[1] * weight;
    out[HP_STATIC + 4] += arm[0] * weight;
    return 0;
}
