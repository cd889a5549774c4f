/* Compiled derivative of hydrofmu's MoorDyn-C v2 lumped-mass lines (plain C99).
 *
 * The same physics as hydrofmu.moorings.lines.LineSystem (node_forces, derivative,
 * derivative_and_evaluate, evaluate), term for term and in the same order of operations
 * where it matters: segment stiffness (no compression unless asked) and internal damping,
 * weight and buoyancy of the submerged length, Morison drag (normal and axial) and added
 * mass in still water or in a steady current (a depth table, MoorDyn-C's Currents = 1:
 * the drag on the velocity relative to the water), seabed contact, the per-node mass matrix solve
 * (a I + b q q')^-1 f, free points (own mass, volume, drag, added mass and the line ends
 * on them, a 3x3 solve), and the kinematics of the points (fixed, coupled, on fixed or
 * coupled bodies, free).
 *
 * No allocation: every array is owned by the Python caller (hydrofmu.moorings.kernel)
 * and passed once, by pointer, in struct hf_lines; one call evaluates one state.
 * Arrays of nodes are (n_nodes, 3) row-major; indices are int64.
 */
#include <math.h>
#include <stdint.h>

#ifndef HF_LINE_KERNEL_ABI
#define HF_LINE_KERNEL_ABI 3
#endif

/* The native FMU includes this file with HF_EXPORT defined (its symbols hidden there). */
#ifndef HF_EXPORT
#if defined(_WIN32)
#define HF_EXPORT __declspec(dllexport)
#else
#define HF_EXPORT __attribute__((visibility("default")))
#endif
#endif

typedef struct hf_lines {
    /* sizes and switches */
    int64_t n_nodes, n_internal, n_points, n_free, n_lines, n_states, n_coupled_dof;
    int64_t n_seg, n_groups, n_cp, n_coupled_bodies, no_bodies, has_seabed;
    /* environment */
    double g, rho, depth, kbot, cbot;
    /* nodes */
    const int64_t *internal;     /* (n_internal,) */
    const int64_t *node_kind;    /* (n_nodes,): 0 internal, 1 end A, 2 end B */
    const int64_t *node_left;    /* (n_nodes,): segment on the left, -1 none */
    const int64_t *node_right;   /* (n_nodes,): segment on the right, -1 none */
    const int64_t *end_nodes;    /* (2 n_lines,) */
    const int64_t *end_points;   /* (2 n_lines,) */
    const int64_t *seg0, *seg1;  /* (n_seg,) */
    const double *l0;            /* (n_seg,) m */
    const double *pair_l0, *pair_ea_l0, *pair_ba_l0, *pair_fake; /* (n_nodes - 1,) */
    const double *n_len, *n_m, *n_d, *n_area, *n_can, *n_cat;     /* (n_nodes,) */
    const double *cdn_d, *cdt_d;                                  /* (n_nodes,) */
    const double *a_full, *b_full, *wz_full, *cn_full, *ct_full;  /* (n_nodes,) */
    /* points */
    const double *point_r0;      /* (n_points, 3) m */
    const double *point_mass, *point_volume, *point_cda, *point_ca; /* (n_points,) */
    const int64_t *cp_index;     /* (n_cp,) coupled points */
    const int64_t *free_points;  /* (n_free,) */
    const int64_t *point_free;   /* (n_points,): index among the free points, -1 none */
    const int64_t *group_k;      /* (n_groups,): coupled body index, -1 fixed body */
    const double *group_pose;    /* (n_groups, 6): file pose */
    const int64_t *group_start;  /* (n_groups + 1,) into group_points */
    const int64_t *group_points; /* points of each body, concatenated */
    /* work and results, owned by the caller */
    double *r, *v, *rp, *vp, *fnet, *a, *b, *q, *pair_tension, *seg_force, *point_f;
    double *sub_len, *seg_sub, *point_m; /* point_m: (n_free, 9) */
    /* steady current (appended; n_current = 0: still water, the pointers unused): the
     * water velocity at depth z, linear between the rows of current_z (ascending, m),
     * the end rows' values beyond them, as MoorDyn-C's Currents = 1 */
    int64_t n_current;
    const double *current_z;     /* (n_current,) m */
    const double *current_u;     /* (n_current, 3) m/s */
} hf_lines;

HF_EXPORT int64_t hf_line_kernel_abi(void) { return HF_LINE_KERNEL_ABI; }

HF_EXPORT int64_t hf_line_kernel_struct_size(void) { return (int64_t)sizeof(hf_lines); }

static double dot3(const double *x, const double *y) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

/* Morison drag of one node with unit tangent q and velocity v (relative to the water): normal and
 * tangential parts, each c |v_part| v_part with c = cn, ct (N s^2/m^2), subtracted from f. */
static void morison_drag(double *f, const double *v, const double *q, double cn, double ct) {
    double u = dot3(v, q), vpar[3], vperp[3], sp;
    int k;
    for (k = 0; k < 3; k++) { vpar[k] = u * q[k]; vperp[k] = v[k] - vpar[k]; }
    sp = sqrt(dot3(vperp, vperp)) * cn;
    for (k = 0; k < 3; k++) f[k] -= sp * vperp[k];
    sp = fabs(u) * ct;
    for (k = 0; k < 3; k++) f[k] -= sp * vpar[k];
}

/* The water velocity u (m/s) at depth z (m): the current table, linear in z between its
 * rows (np.interp's formula), clamped to the end rows beyond them. */
static void water_velocity(const hf_lines *L, double z, double *u) {
    const double *cz = L->current_z, *cu = L->current_u;
    int64_t n = L->n_current, lo = 0, hi, k;
    if (n == 1 || z <= cz[0]) { for (k = 0; k < 3; k++) u[k] = cu[k]; return; }
    if (z >= cz[n - 1]) { for (k = 0; k < 3; k++) u[k] = cu[3 * (n - 1) + k]; return; }
    hi = n - 1;
    while (hi - lo > 1) { int64_t mid = (lo + hi) / 2; if (cz[mid] <= z) lo = mid; else hi = mid; }
    for (k = 0; k < 3; k++) {
        double slope = (cu[3 * hi + k] - cu[3 * lo + k]) / (cz[hi] - cz[lo]);
        u[k] = slope * (z - cz[lo]) + cu[3 * lo + k];
    }
}

/* The velocity of node or point i relative to the water: v itself in still water, else
 * v - u(z) into rel (returned). */
static const double *relative_velocity(const hf_lines *L, const double *v, double z,
                                       double *rel) {
    double u[3];
    int k;
    if (L->n_current <= 0) return v;
    water_velocity(L, z, u);
    for (k = 0; k < 3; k++) rel[k] = v[k] - u[k];
    return rel;
}

/* Rx(roll) Ry(pitch) Rz(yaw) (MoorDyn-C's RotXYZ), as hydrofmu.moorings.frames.rotation. */
static void rotation(const double *ang, double R[9]) {
    double cr = cos(ang[0]), sr = sin(ang[0]);
    double cp = cos(ang[1]), sp = sin(ang[1]);
    double cy = cos(ang[2]), sy = sin(ang[2]);
    R[0] = cp * cy;                R[1] = -cp * sy;               R[2] = sp;
    R[3] = sr * sp * cy + cr * sy; R[4] = cr * cy - sr * sp * sy; R[5] = -sr * cp;
    R[6] = sr * sy - cr * sp * cy; R[7] = cr * sp * sy + sr * cy; R[8] = cr * cp;
}

static void point_kinematics(const hf_lines *L, const double *x, const double *cp,
                             const double *cv) {
    double *rp = L->rp, *vp = L->vp;
    int64_t i, k, n;
    for (i = 0; i < 3 * L->n_points; i++) { rp[i] = L->point_r0[i]; vp[i] = 0.0; }
    if (L->no_bodies) {
        for (n = 0; n < L->n_cp; n++)
            for (k = 0; k < 3; k++) {
                rp[3 * L->cp_index[n] + k] = cp[3 * n + k];
                vp[3 * L->cp_index[n] + k] = cv[3 * n + k];
            }
    } else {
        static const double zero6[6] = {0, 0, 0, 0, 0, 0};
        int64_t gi, off;
        for (gi = 0; gi < L->n_groups; gi++) {
            const double *pose = L->group_pose + 6 * gi, *vel = zero6;
            double R[9];
            if (L->group_k[gi] >= 0) {
                pose = cp + 6 * L->group_k[gi];
                vel = cv + 6 * L->group_k[gi];
            }
            rotation(pose + 3, R);
            for (n = L->group_start[gi]; n < L->group_start[gi + 1]; n++) {
                int64_t p = L->group_points[n];
                const double *r0 = L->point_r0 + 3 * p;
                const double *w = vel + 3;
                double arm[3];
                for (k = 0; k < 3; k++)
                    arm[k] = r0[0] * R[3 * k] + r0[1] * R[3 * k + 1] + r0[2] * R[3 * k + 2];
                for (k = 0; k < 3; k++) rp[3 * p + k] = pose[k] + arm[k];
                vp[3 * p + 0] = vel[0] + (w[1] * arm[2] - w[2] * arm[1]);
                vp[3 * p + 1] = vel[1] + (w[2] * arm[0] - w[0] * arm[2]);
                vp[3 * p + 2] = vel[2] + (w[0] * arm[1] - w[1] * arm[0]);
            }
        }
        off = 6 * L->n_coupled_bodies;
        for (n = 0; n < L->n_cp; n++)
            for (k = 0; k < 3; k++) {
                rp[3 * L->cp_index[n] + k] = cp[off + 3 * n + k];
                vp[3 * L->cp_index[n] + k] = cv[off + 3 * n + k];
            }
    }
    if (L->n_free) {
        int64_t base = 6 * L->n_internal, nf = L->n_free;
        for (n = 0; n < nf; n++)
            for (k = 0; k < 3; k++) {
                rp[3 * L->free_points[n] + k] = x[base + 3 * n + k];
                vp[3 * L->free_points[n] + k] = x[base + 3 * nf + 3 * n + k];
            }
    }
}

static void nodes(const hf_lines *L, const double *x) {
    int64_t i, k, ni = L->n_internal;
    for (i = 0; i < ni; i++)
        for (k = 0; k < 3; k++) {
            L->r[3 * L->internal[i] + k] = x[3 * i + k];
            L->v[3 * L->internal[i] + k] = x[3 * ni + 3 * i + k];
        }
    for (i = 0; i < 2 * L->n_lines; i++)
        for (k = 0; k < 3; k++) {
            L->r[3 * L->end_nodes[i] + k] = L->rp[3 * L->end_points[i] + k];
            L->v[3 * L->end_nodes[i] + k] = L->vp[3 * L->end_points[i] + k];
        }
}

static void node_forces(const hf_lines *L, double drag_scale, int compression) {
    const double *r = L->r, *v = L->v;
    double *fnet = L->fnet, *sf = L->seg_force, *q = L->q;
    int64_t nn = L->n_nodes, p, i, k;
    double zmax = -INFINITY, zmin = INFINITY;
    /* node pairs: segments, and pairs with no stiffness between lines */
    for (p = 0; p < nn - 1; p++) {
        const double *r0 = r + 3 * p, *r1 = r0 + 3, *v0 = v + 3 * p, *v1 = v0 + 3;
        double d[3] = {r1[0] - r0[0], r1[1] - r0[1], r1[2] - r0[2]};
        double dv[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]};
        double lstr = sqrt(dot3(d, d)) + L->pair_fake[p];
        double ldstr = dot3(d, dv) / lstr;
        double stretch = lstr - L->pair_l0[p], tmag, s;
        if (!compression && stretch < 0.0) stretch = 0.0;
        tmag = L->pair_ea_l0[p] * stretch;
        tmag += L->pair_ba_l0[p] * ldstr;
        L->pair_tension[p] = tmag;
        s = tmag / lstr;
        for (k = 0; k < 3; k++) sf[3 * p + k] = s * d[k];
    }
    for (k = 0; k < 3; k++) fnet[3 * (nn - 1) + k] = 0.0;
    for (p = 0; p < nn - 1; p++)
        for (k = 0; k < 3; k++) fnet[3 * p + k] = sf[3 * p + k];
    for (p = 1; p < nn; p++)
        for (k = 0; k < 3; k++) fnet[3 * p + k] -= sf[3 * (p - 1) + k];
    /* tangents: neighbours for internal nodes, the end segment for end nodes */
    for (i = 0; i < nn; i++) {
        double t[3], nrm;
        int64_t kind = L->node_kind[i];
        for (k = 0; k < 3; k++) {
            if (kind == 1) t[k] = r[3 * (i + 1) + k] - r[3 * i + k];
            else if (kind == 2) t[k] = r[3 * i + k] - r[3 * (i - 1) + k];
            else t[k] = r[3 * (i + 1) + k] - r[3 * (i - 1) + k];
        }
        nrm = sqrt(dot3(t, t));
        for (k = 0; k < 3; k++) q[3 * i + k] = t[k] / nrm;
        if (r[3 * i + 2] > zmax) zmax = r[3 * i + 2];
        if (r[3 * i + 2] < zmin) zmin = r[3 * i + 2];
    }
    if (zmax < 0.0) { /* every node under water: the precomputed full values */
        double shared_c = 0.5 * L->rho * drag_scale;
        for (i = 0; i < nn; i++) {
            L->a[i] = L->a_full[i];
            L->b[i] = L->b_full[i];
            fnet[3 * i + 2] += L->wz_full[i];
        }
        for (i = 0; i < nn; i++) {
            double cn, ct, rel[3];
            const double *vi = relative_velocity(L, v + 3 * i, r[3 * i + 2], rel);
            const double *qi = q + 3 * i;
            if (drag_scale == 1.0) { cn = L->cn_full[i]; ct = L->ct_full[i]; }
            else {
                double shared = shared_c * L->n_len[i];
                cn = L->cdn_d[i] * shared; ct = L->cdt_d[i] * shared;
            }
            morison_drag(fnet + 3 * i, vi, qi, cn, ct);
        }
    } else {
        /* submergence of each segment (surface z = 0): linear in the ends' depth */
        double shared_c = 0.5 * L->rho * drag_scale;
        int64_t s;
        for (s = 0; s < L->n_seg; s++) {
            double z0 = r[3 * L->seg0[s] + 2], z1 = r[3 * L->seg1[s] + 2];
            double lo = z0 < z1 ? z0 : z1, hi = z0 < z1 ? z1 : z0, frac, den;
            if (hi <= 0.0) frac = 1.0;
            else if (lo >= 0.0) frac = 0.0;
            else { den = hi - lo; if (den < 1e-300) den = 1e-300; frac = -lo / den; }
            L->seg_sub[s] = L->l0[s] * frac;
        }
        for (i = 0; i < nn; i++) {
            double left = L->node_left[i] >= 0 ? L->seg_sub[L->node_left[i]] : 0.0;
            double right = L->node_right[i] >= 0 ? L->seg_sub[L->node_right[i]] : 0.0;
            double sub = 0.5 * (left + right), vol = sub * L->n_area[i];
            double cn, ct, shared, rel[3];
            const double *vi = relative_velocity(L, v + 3 * i, r[3 * i + 2], rel);
            const double *qi = q + 3 * i;
            fnet[3 * i + 2] -= L->g * (L->n_m[i] - L->rho * vol);
            L->a[i] = L->n_m[i] + L->rho * vol * L->n_can[i];
            L->b[i] = L->rho * vol * (L->n_cat[i] - L->n_can[i]);
            shared = shared_c * sub;
            cn = L->cdn_d[i] * shared; ct = L->cdt_d[i] * shared;
            morison_drag(fnet + 3 * i, vi, qi, cn, ct);
        }
    }
    /* seabed */
    if (L->has_seabed && zmin < -L->depth) {
        for (i = 0; i < nn; i++) {
            double pen = -L->depth - r[3 * i + 2];
            if (pen > 0)
                fnet[3 * i + 2] +=
                    (pen * L->kbot - v[3 * i + 2] * L->cbot) * L->n_d[i] * L->n_len[i];
        }
    }
}

/* Net force (N) on every point; for the free points also their mass matrix (kg). */
static void point_forces(const hf_lines *L, double drag_scale) {
    double *f = L->point_f;
    int64_t i, k, j;
    for (i = 0; i < L->n_points; i++) {
        f[3 * i] = 0.0; f[3 * i + 1] = 0.0;
        f[3 * i + 2] = L->g * (L->point_volume[i] * L->rho - L->point_mass[i]);
    }
    for (j = 0; j < 2 * L->n_lines; j++)
        for (k = 0; k < 3; k++) f[3 * L->end_points[j] + k] += L->fnet[3 * L->end_nodes[j] + k];
    for (i = 0; i < L->n_points; i++) {
        double rel[3];
        const double *vi = relative_velocity(L, L->vp + 3 * i, L->rp[3 * i + 2], rel);
        double c = 0.5 * L->rho * L->point_cda[i] * sqrt(dot3(vi, vi)) * drag_scale;
        for (k = 0; k < 3; k++) f[3 * i + k] -= c * vi[k];
    }
    for (i = 0; i < L->n_free; i++) {
        int64_t p = L->free_points[i];
        double mp = L->point_mass[p] + L->rho * L->point_volume[p] * L->point_ca[p];
        double *m = L->point_m + 9 * i;
        for (k = 0; k < 9; k++) m[k] = 0.0;
        m[0] = m[4] = m[8] = mp;
    }
    for (j = 0; j < 2 * L->n_lines; j++) {
        int64_t fi = L->point_free[L->end_points[j]], e = L->end_nodes[j], c;
        const double *qe = L->q + 3 * e;
        double *m;
        if (fi < 0) continue;
        m = L->point_m + 9 * fi;
        for (k = 0; k < 3; k++)
            for (c = 0; c < 3; c++)
                m[3 * k + c] += (k == c ? L->a[e] : 0.0) + L->b[e] * qe[k] * qe[c];
    }
}

/* Solve the 3x3 system m x = f (Gaussian elimination, partial pivoting); 0 on success. */
static int solve3(const double *m_in, const double *f_in, double *x) {
    double m[3][4];
    int i, j, c, p;
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 3; j++) m[i][j] = m_in[3 * i + j];
        m[i][3] = f_in[i];
    }
    for (c = 0; c < 3; c++) {
        p = c;
        for (i = c + 1; i < 3; i++)
            if (fabs(m[i][c]) > fabs(m[p][c])) p = i;
        if (!(m[p][c] != 0.0)) return 1;
        if (p != c)
            for (j = 0; j < 4; j++) { double t = m[c][j]; m[c][j] = m[p][j]; m[p][j] = t; }
        for (i = c + 1; i < 3; i++) {
            double l = m[i][c] / m[c][c];
            for (j = c; j < 4; j++) m[i][j] -= l * m[c][j];
        }
    }
    for (i = 2; i >= 0; i--) {
        double s = m[i][3];
        for (j = i + 1; j < 3; j++) s -= m[i][j] * x[j];
        x[i] = s / m[i][i];
    }
    return 0;
}

/* The state derivative into out (n_states,), and every intermediate into the work arrays
 * of L (nodes r, v, fnet, a, b, q, pair_tension; points rp, vp and, when want_points or
 * there are free points, point_f). Returns 0, or 1 when a free point's mass matrix is
 * singular. */
HF_EXPORT int hf_line_eval(const hf_lines *L, const double *x, const double *cp,
                           const double *cv, double drag_scale, int64_t compression,
                           int64_t want_points, double *out) {
    int64_t i, k, ni = L->n_internal;
    point_kinematics(L, x, cp, cv);
    nodes(L, x);
    node_forces(L, drag_scale, (int)compression);
    for (i = 0; i < 3 * ni; i++) out[i] = x[3 * ni + i];
    for (i = 0; i < ni; i++) {
        int64_t n = L->internal[i];
        const double *fi = L->fnet + 3 * n, *qi = L->q + 3 * n;
        double ai = L->a[n], bi = L->b[n];
        double qf = dot3(qi, fi), c = bi / (ai + bi) * qf;
        for (k = 0; k < 3; k++) out[3 * ni + 3 * i + k] = (fi[k] - c * qi[k]) / ai;
    }
    if (want_points || L->n_free) point_forces(L, drag_scale);
    if (L->n_free) {
        int64_t base = 6 * ni, nf = L->n_free;
        for (i = 0; i < nf; i++) {
            int64_t p = L->free_points[i];
            for (k = 0; k < 3; k++) out[base + 3 * i + k] = L->vp[3 * p + k];
            if (solve3(L->point_m + 9 * i, L->point_f + 3 * p, out + base + 3 * nf + 3 * i))
                return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------
 * Replay: the coupled objects moved along the replay's C1 piecewise-cubic Hermite
 * interpolant (hydrofmu.cosim.replay.HermiteMotion), the lines stepped by an explicit
 * Runge-Kutta tableau (the registered scheme's A, B, C), many steps per call. */
typedef struct hf_motion {
    int64_t n_samples, n_dof, n_bodies;
    const double *t;  /* (n_samples,) s */
    const double *h;  /* (n_samples - 1,) s */
    const double *c;  /* (4, n_samples - 1, n_dof): position = c0 + u (c1 + u (c2 + u c3)) */
    const double *dc; /* (3, n_samples - 1, n_dof): velocity = d0 + u (d1 + u d2) */
} hf_motion;

HF_EXPORT int64_t hf_line_motion_struct_size(void) { return (int64_t)sizeof(hf_motion); }

/* Position and velocity at tq (clamped to the samples); bodies' angular velocity in global
 * axes from their roll-pitch-yaw rates, as Replay.kinematics. */
static void motion_at(const hf_motion *M, double tq, double *pos, double *vel) {
    int64_t n = M->n_samples, m = M->n_dof, lo = 0, hi = n, i, j, nb;
    double u;
    while (lo < hi) { /* bisect_right */
        int64_t mid = (lo + hi) / 2;
        if (tq < M->t[mid]) hi = mid; else lo = mid + 1;
    }
    i = lo - 1;
    if (i > n - 2) i = n - 2;
    if (i < 0) i = 0;
    u = (tq - M->t[i]) / M->h[i];
    if (u > 1.0) u = 1.0;
    if (u < 0.0) u = 0.0;
    for (j = 0; j < m; j++) {
        const double *c = M->c + i * m + j, *d = M->dc + i * m + j;
        int64_t st = (n - 1) * m;
        pos[j] = c[0] + u * (c[st] + u * (c[2 * st] + u * c[3 * st]));
        vel[j] = d[0] + u * (d[st] + u * d[2 * st]);
    }
    for (nb = 0; nb < M->n_bodies; nb++) {
        const double *ang = pos + 6 * nb + 3;
        double *w = vel + 6 * nb + 3, r0 = w[0], r1 = w[1], r2 = w[2];
        /* as hydrofmu.moorings.frames.angular_velocity */
        double cr = cos(ang[0]), sr = sin(ang[0]), cp = cos(ang[1]), sp = sin(ang[1]);
        w[0] = r0 + r2 * sp;
        w[1] = r1 * cr - r2 * sr * cp;
        w[2] = r1 * sr + r2 * cr * cp;
    }
}

/* n_steps steps of size h from t0 of the explicit RK tableau (A (s, s), B (s,), C (s,)),
 * y (n_states,) advanced in place. Work: k (s, n_states), ytmp (n_states,), cp, cv
 * (n_dof,). Returns 0, or 1 (a singular free point mass matrix). */
HF_EXPORT int hf_line_advance_rk(const hf_lines *L, const hf_motion *M, double *y,
                                 int64_t n_steps, double t0, double h, int64_t s,
                                 const double *A, const double *B, const double *C,
                                 double drag_scale, int64_t compression, double *k,
                                 double *ytmp, double *cp, double *cv) {
    int64_t n = L->n_states, step, i, l, j;
    for (step = 0; step < n_steps; step++) {
        double t = t0 + (double)step * h;
        for (i = 0; i < s; i++) {
            const double *yi = y;
            if (i > 0) {
                for (j = 0; j < n; j++) {
                    double acc = 0.0;
                    for (l = 0; l < i; l++) acc += A[i * s + l] * k[l * n + j];
                    ytmp[j] = y[j] + h * acc;
                }
                yi = ytmp;
            }
            motion_at(M, t + C[i] * h, cp, cv);
            if (hf_line_eval(L, yi, cp, cv, drag_scale, compression, 0, k + i * n)) return 1;
        }
        for (j = 0; j < n; j++) {
            double acc = 0.0;
            for (l = 0; l < s; l++) acc += B[l] * k[l * n + j];
            y[j] = y[j] + h * acc;
        }
    }
    return 0;
}

/* n_steps steps of MoorDyn's semi-implicit backward Euler / midpoint (hydrofmu's
 * schemes/semi_implicit.py, SemiImplicit with STAGE = stage, N = n_sub relaxed iterations
 * on the derivative z, weights relax[0 .. N-2]): the stage state y + (stage h) z, the
 * final y + h g. d (n_states,) carries the last iteration's derivative from step to step
 * (have_d: d is valid at t0; else f(t0, y) is evaluated). Work: z, g, ytmp (n_states,),
 * cp, cv (n_dof,). Returns 0, or 1 (a singular free point mass matrix). */
HF_EXPORT int hf_line_advance_si(const hf_lines *L, const hf_motion *M, double *y,
                                 int64_t n_steps, double t0, double h, double stage,
                                 int64_t n_sub, const double *relax, double drag_scale,
                                 int64_t compression, double *d, int64_t have_d, double *z,
                                 double *g, double *ytmp, double *cp, double *cv) {
    int64_t n = L->n_states, step, i, j;
    for (step = 0; step < n_steps; step++) {
        double t = t0 + (double)step * h, ts = t + stage * h, sh = stage * h;
        if (!(have_d || step > 0)) {
            motion_at(M, t, cp, cv);
            if (hf_line_eval(L, y, cp, cv, drag_scale, compression, 0, d)) return 1;
        }
        for (j = 0; j < n; j++) z[j] = d[j];
        for (i = 0; i < n_sub; i++) {
            for (j = 0; j < n; j++) ytmp[j] = y[j] + sh * z[j];
            motion_at(M, ts, cp, cv);
            if (hf_line_eval(L, ytmp, cp, cv, drag_scale, compression, 0, g)) return 1;
            if (i < n_sub - 1) {
                double r = relax[i];
                for (j = 0; j < n; j++) z[j] = (1.0 - r) * g[j] + r * z[j];
            }
        }
        for (j = 0; j < n; j++) { y[j] = y[j] + h * g[j]; d[j] = g[j]; }
    }
    return 0;
}
