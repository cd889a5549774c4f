/* The large-rotation rigid bodies: kinematics and Newton-Euler equations (C99, no allocation).
 *
 * The one implementation both FMUs evaluate per stage (the Python FMU by ctypes through
 * runtime/bodies/body_kernel.py, the native FMU through csrc/hfn_bodies.c, which includes
 * this file with its symbols hidden). Python assembles the model (the constraint basis T,
 * the left side, the bodies' mass matrices and hinge geometry) and sums the forces; this
 * file turns them into the reduced accelerations.
 *
 * Conventions (runtime/bodies/rotations.py's docstring):
 *   - a quaternion is [w, x, y, z], scalar first, and turns body axes into world axes;
 *     its rate for the world angular velocity w is q' = 1/2 [0, w] * q (Hamilton);
 *   - Euler angles (roll, pitch, yaw) with R = Rz(yaw) Ry(pitch) Rx(roll) (intrinsic
 *     z-y'-x''), pitch in [-pi/2, pi/2]; at gimbal lock (cos(pitch) <= 1e-12) yaw = 0;
 *   - matrices row-major, 3 x 3 as 9 doubles.
 *
 * A model (struct hb_model) has n DOFs (6 per body, every body), nr reduced coordinates
 * (q = T q_r) and nb large-rotation bodies, each of a kind:
 *   HB_NONE  every rotation held: R = I;
 *   HB_FREE  a unit quaternion among the states: R = R(q / |q|);
 *   HB_AXIS  one rotation free about the world axis u through the reference point:
 *            R = Rodrigues(u, q[3 + axis]), Euler angles u * angle (continuous);
 *   HB_HINGE first body of a revolute joint on the world, axis u through point p, arm
 *            a0 = r0 - p: angle = u . q[3:6], R = Rodrigues(u, angle), displacement
 *            R a0 - a0, true velocity [w x (R a0), w] (D), kappa = [w x (w x R a0), 0].
 *
 * The equations (Kane's, in the reduced coordinates; J = D T):
 *     J^T L J vr' = J^T (F - b - L kappa),   L = L0 + sum_b (R6 Mb R6^T - Mb) + Q A Q^T,
 *     b = [w x (w x R m c); w x (R I R^T w)],   a = J vr' + kappa,   F_c = L a + b - F,
 * with R6 = diag(R, R), L0 the constant left side (rigid mass and, for a model without a
 * body-axes radiation, the added mass), A the added mass turned with the bodies whose
 * radiation acts in body axes (Q = diag(R6) on those bodies, I elsewhere).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#define HB_BODY_KERNEL_ABI 1

/* The native FMU includes this file with HB_EXPORT defined (its symbols hidden there:
 * export/native/csrc/hfn_bodies.c). */
#ifndef HB_EXPORT
#if defined(_WIN32)
#define HB_EXPORT __declspec(dllexport)
#else
#define HB_EXPORT __attribute__((visibility("default")))
#endif
#endif

enum { HB_NONE = 0, HB_FREE = 1, HB_AXIS = 2, HB_HINGE = 3 };

/* Doubles per body in `geometry`: the unit axis (3) and the arm a0 = r0 - p (3). */
#define HB_GEOMETRY 6
/* cos(pitch) below which the Euler angles are taken at gimbal lock (yaw = 0). */
#define HB_GIMBAL_LOCK 1e-12

/* A model; every array owned by the caller. */
struct hb_model {
    int64_t n;          /* DOFs, 6 per body */
    int64_t nr;         /* reduced coordinates */
    int64_t nb;         /* large-rotation bodies */
    int64_t any_frame;  /* 1 when a body's radiation acts in body axes */
    const int64_t *kind;   /* nb: HB_NONE, HB_FREE, HB_AXIS, HB_HINGE */
    const int64_t *dof0;   /* nb: the body's first DOF (6 x its index) */
    const int64_t *quat;   /* nb: its quaternion's index in the state (HB_FREE), else -1 */
    const int64_t *frame;  /* nb: 1 when its radiation and damping act in body axes */
    const int64_t *axis;   /* nb: HB_AXIS: 0, 1, 2 (x, y, z); 1 if a hinge about one axis */
    const double *geometry; /* nb x HB_GEOMETRY */
    const double *mass;     /* nb x 36: rigid mass matrix about the reference point, body axes */
    const double *basis;    /* n x nr: T */
    const double *lhs0;     /* n x n: the constant left side */
    const double *added;    /* n x n: the added mass (used when any_frame) */
    double *work;           /* hb_work_size(n, nr) doubles */
};

HB_EXPORT int64_t hb_body_kernel_abi(void) { return HB_BODY_KERNEL_ABI; }
HB_EXPORT int64_t hb_body_kernel_struct_size(void) { return (int64_t)sizeof(struct hb_model); }

/* Work doubles a model of n DOFs and nr reduced coordinates needs. */
HB_EXPORT int64_t hb_work_size(int64_t n, int64_t nr)
{
    return 2 * n * n + n * nr + nr * nr + 4 * n + nr;
}

/* ------------------------------------------------------------------ rotations */
static void cross3(const double *a, const double *b, double *out)
{
    double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2];
    double c2 = a[0] * b[1] - a[1] * b[0];
    out[0] = c0; out[1] = c1; out[2] = c2;
}

static void matvec3(const double *r, const double *x, double *out)
{
    double o[3];
    for (int i = 0; i < 3; ++i)
        o[i] = r[3 * i] * x[0] + r[3 * i + 1] * x[1] + r[3 * i + 2] * x[2];
    memcpy(out, o, sizeof o);
}

static void matTvec3(const double *r, const double *x, double *out)
{
    double o[3];
    for (int i = 0; i < 3; ++i)
        o[i] = r[i] * x[0] + r[3 + i] * x[1] + r[6 + i] * x[2];
    memcpy(out, o, sizeof o);
}

/* R = Rz(yaw) Ry(pitch) Rx(roll), body to world; e = (roll, pitch, yaw), rad. */
HB_EXPORT void hb_matrix_from_euler(const double *e, double *r)
{
    double cr = cos(e[0]), sr = sin(e[0]), cp = cos(e[1]), sp = sin(e[1]);
    double cy = cos(e[2]), sy = sin(e[2]);
    r[0] = cy * cp; r[1] = cy * sp * sr - sy * cr; r[2] = cy * sp * cr + sy * sr;
    r[3] = sy * cp; r[4] = sy * sp * sr + cy * cr; r[5] = sy * sp * cr - cy * sr;
    r[6] = -sp; r[7] = cp * sr; r[8] = cp * cr;
}

/* (roll, pitch, yaw) of R = Rz(yaw) Ry(pitch) Rx(roll), atan2 throughout; yaw = 0 at
 * gimbal lock, roll then carrying the whole turn about the vertical. */
HB_EXPORT void hb_euler_from_matrix(const double *r, double *e)
{
    double cp = hypot(r[0], r[3]);
    double pitch = atan2(-r[6], cp);
    if (cp > HB_GIMBAL_LOCK) {
        e[0] = atan2(r[7], r[8]); e[1] = pitch; e[2] = atan2(r[3], r[0]);
        return;
    }
    /* pitch = +pi/2: R[0,1] = sin(roll - yaw), R[1,1] = cos(roll - yaw); -pi/2: the sum. */
    e[0] = atan2((pitch > 0.0 ? 1.0 : -1.0) * r[1], r[4]); e[1] = pitch; e[2] = 0.0;
}

/* R of a quaternion, normalised first (an integrated quaternion's drifted norm never
 * reaches the rotation). */
HB_EXPORT void hb_matrix_from_quaternion(const double *q, double *r)
{
    double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = q[0] / s, x = q[1] / s, y = q[2] / s, z = q[3] / s;
    r[0] = 1.0 - 2.0 * (y * y + z * z); r[1] = 2.0 * (x * y - w * z); r[2] = 2.0 * (x * z + w * y);
    r[3] = 2.0 * (x * y + w * z); r[4] = 1.0 - 2.0 * (x * x + z * z); r[5] = 2.0 * (y * z - w * x);
    r[6] = 2.0 * (x * z - w * y); r[7] = 2.0 * (y * z + w * x); r[8] = 1.0 - 2.0 * (x * x + y * y);
}

/* The unit quaternion of R, w >= 0 (Shepperd: the largest of the four squares first). */
HB_EXPORT void hb_quaternion_from_matrix(const double *r, double *q)
{
    double tr = r[0] + r[4] + r[8], cand[4] = {tr, r[0], r[4], r[8]}, s, n;
    int k = 0;
    for (int i = 1; i < 4; ++i)
        if (cand[i] > cand[k]) k = i;
    if (k == 0) {
        s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s; q[1] = (r[7] - r[5]) / s; q[2] = (r[2] - r[6]) / s; q[3] = (r[3] - r[1]) / s;
    } else if (k == 1) {
        s = 2.0 * sqrt(1.0 + r[0] - r[4] - r[8]);
        q[0] = (r[7] - r[5]) / s; q[1] = 0.25 * s; q[2] = (r[1] + r[3]) / s; q[3] = (r[2] + r[6]) / s;
    } else if (k == 2) {
        s = 2.0 * sqrt(1.0 + r[4] - r[0] - r[8]);
        q[0] = (r[2] - r[6]) / s; q[1] = (r[1] + r[3]) / s; q[2] = 0.25 * s; q[3] = (r[5] + r[7]) / s;
    } else {
        s = 2.0 * sqrt(1.0 + r[8] - r[0] - r[4]);
        q[0] = (r[3] - r[1]) / s; q[1] = (r[2] + r[6]) / s; q[2] = (r[5] + r[7]) / s; q[3] = 0.25 * s;
    }
    if (q[0] < 0.0)
        for (int i = 0; i < 4; ++i) q[i] = -q[i];
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i) q[i] /= n;
}

/* Rotation by `angle` (rad) about the unit `u` (Rodrigues: I + sin K + (1 - cos) K K). */
HB_EXPORT void hb_axis_angle_matrix(const double *u, double angle, double *r)
{
    double s = sin(angle), c = 1.0 - cos(angle);
    double k[9] = {0.0, -u[2], u[1], u[2], 0.0, -u[0], -u[1], u[0], 0.0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double kk = k[3 * i] * k[j] + k[3 * i + 1] * k[3 + j] + k[3 * i + 2] * k[6 + j];
            r[3 * i + j] = (i == j ? 1.0 : 0.0) + s * k[3 * i + j] + c * kk;
        }
}

/* q' = 1/2 [0, w] * q for the world angular velocity w (rad/s). */
HB_EXPORT void hb_quaternion_rate(const double *q, const double *w, double *out)
{
    double o0 = -w[0] * q[1] - w[1] * q[2] - w[2] * q[3];
    double o1 = w[0] * q[0] + w[1] * q[3] - w[2] * q[2];
    double o2 = -w[0] * q[3] + w[1] * q[0] + w[2] * q[1];
    double o3 = w[0] * q[2] - w[1] * q[1] + w[2] * q[0];
    out[0] = 0.5 * o0; out[1] = 0.5 * o1; out[2] = 0.5 * o2; out[3] = 0.5 * o3;
}

/* ------------------------------------------------------------------ kinematics */
/* Body k's rotation (9) from the linear coordinates q (its 6) and the state y. */
static void body_rotation(const struct hb_model *m, int64_t k, const double *q,
                          const double *y, double *r)
{
    const double *u = m->geometry + HB_GEOMETRY * k;
    switch (m->kind[k]) {
    case HB_FREE: hb_matrix_from_quaternion(y + m->quat[k], r); break;
    case HB_AXIS: hb_axis_angle_matrix(u, q[3 + m->axis[k]], r); break;
    case HB_HINGE: hb_axis_angle_matrix(u, u[0] * q[3] + u[1] * q[4] + u[2] * q[5], r); break;
    default:
        for (int i = 0; i < 9; ++i) r[i] = (i % 4 == 0) ? 1.0 : 0.0;
    }
}

/* The true pose and velocity of every body (q, v: n each, from the linear ones q_lin,
 * v_lin; the large-rotation bodies' rotations rot: nb x 9, velocity maps d: nb x 36).
 * Returns 0, or 2 when a result is not finite. */
HB_EXPORT int hb_poses(const struct hb_model *m, const double *q_lin, const double *v_lin,
                       const double *y, double *q, double *v, double *rot, double *d)
{
    int bad = 0;
    if (q != q_lin) memcpy(q, q_lin, (size_t)m->n * sizeof *q);
    if (v != v_lin) memcpy(v, v_lin, (size_t)m->n * sizeof *v);
    for (int64_t k = 0; k < m->nb; ++k) {
        const double *u = m->geometry + HB_GEOMETRY * k, *a0 = u + 3;
        double *r = rot + 9 * k, *dk = d + 36 * k, *qk = q + m->dof0[k], *vk = v + m->dof0[k];
        double arm[3], w[3];
        body_rotation(m, k, q_lin + m->dof0[k], y, r);
        memset(dk, 0, 36 * sizeof *dk);
        for (int i = 0; i < 6; ++i) dk[7 * i] = 1.0;
        if (m->kind[k] == HB_AXIS) {
            double angle = qk[3 + m->axis[k]];
            for (int i = 0; i < 3; ++i) qk[3 + i] = u[i] * angle; /* continuous, not wrapped */
        } else if (m->kind[k] == HB_HINGE) {
            double angle = u[0] * qk[3] + u[1] * qk[4] + u[2] * qk[5];
            matvec3(r, a0, arm);
            if (m->axis[k]) /* about x, y or z: continuous, not wrapped */
                for (int i = 0; i < 3; ++i) qk[3 + i] = u[i] * angle;
            else
                hb_euler_from_matrix(r, qk + 3);
            for (int i = 0; i < 3; ++i) qk[i] = arm[i] - a0[i];
            /* v = w x arm: D[0:3, 3:6] = -S(arm) */
            dk[3] = 0.0; dk[4] = arm[2]; dk[5] = -arm[1];
            dk[9] = -arm[2]; dk[10] = 0.0; dk[11] = arm[0];
            dk[15] = arm[1]; dk[16] = -arm[0]; dk[17] = 0.0;
            for (int i = 0; i < 3; ++i) dk[i * 7] = 0.0;
            memcpy(w, vk + 3, sizeof w);
            cross3(w, arm, vk);
        } else {
            hb_euler_from_matrix(r, qk + 3);
        }
    }
    for (int64_t i = 0; i < m->n; ++i)
        if (!isfinite(q[i]) || !isfinite(v[i])) bad = 2;
    return bad;
}

/* R6 x (6) for body k's rotation r, or R6^T x with transpose. */
static void turn6(const double *r, const double *x, double *out, int transpose)
{
    if (transpose) { matTvec3(r, x, out); matTvec3(r, x + 3, out + 3); }
    else { matvec3(r, x, out); matvec3(r, x + 3, out + 3); }
}

/* x (n) with the body-axes bodies' six turned: to their body axes (to_body = 1, R6^T x)
 * or back to world axes (R6 x); the other bodies' copied. */
HB_EXPORT void hb_turn(const struct hb_model *m, const double *rot, const double *x,
                       double *out, int64_t to_body)
{
    if (out != x) memcpy(out, x, (size_t)m->n * sizeof *out);
    for (int64_t k = 0; k < m->nb; ++k)
        if (m->frame[k])
            turn6(rot + 9 * k, x + m->dof0[k], out + m->dof0[k], (int)to_body);
}

/* The left side's added mass with the body-axes bodies' rows and columns turned
 * (Q A Q^T), into out (n x n). */
HB_EXPORT void hb_turned_added_mass(const struct hb_model *m, const double *rot, double *out)
{
    int64_t n = m->n;
    double col[6], tmp[6];
    memcpy(out, m->added, (size_t)(n * n) * sizeof *out);
    for (int64_t k = 0; k < m->nb; ++k) {
        int64_t s = m->dof0[k];
        if (!m->frame[k]) continue;
        for (int64_t j = 0; j < n; ++j) { /* rows: R6 A[s:s+6, j] */
            for (int i = 0; i < 6; ++i) col[i] = out[(s + i) * n + j];
            turn6(rot + 9 * k, col, tmp, 0);
            for (int i = 0; i < 6; ++i) out[(s + i) * n + j] = tmp[i];
        }
        for (int64_t i = 0; i < n; ++i) /* columns: A[i, s:s+6] R6^T = (R6 A[i, s:s+6]^T)^T */
            turn6(rot + 9 * k, out + i * n + s, out + i * n + s, 0);
    }
}

/* The body's velocity terms b (6) at its rotation r and world angular velocity w, with
 * its body-axes mass matrix mb (36). */
static void velocity_terms(const double *mb, const double *r, const double *w, double *b)
{
    double mc_b[3] = {mb[6 * 5 + 1], mb[6 * 3 + 2], mb[6 * 4 + 0]}; /* m c from m S(c) */
    double mc[3], t[3], iw[3];
    matvec3(r, mc_b, mc);
    cross3(w, mc, t);
    cross3(w, t, b);
    matTvec3(r, w, t); /* w in body axes */
    for (int i = 0; i < 3; ++i)
        iw[i] = mb[6 * (3 + i) + 3] * t[0] + mb[6 * (3 + i) + 4] * t[1] + mb[6 * (3 + i) + 5] * t[2];
    matvec3(r, iw, t);
    cross3(w, t, b + 3);
}

/* Solve a x = b (n x n, row-major, overwritten) by Gaussian elimination with partial
 * pivoting; b becomes x. Returns 0, or 3 when a pivot is zero or not finite. */
static int solve_dense(double *a, double *b, int64_t n)
{
    for (int64_t c = 0; c < n; ++c) {
        int64_t p = c;
        for (int64_t i = c + 1; i < n; ++i)
            if (fabs(a[i * n + c]) > fabs(a[p * n + c])) p = i;
        if (!(fabs(a[p * n + c]) > 0.0) || !isfinite(a[p * n + c])) return 3;
        if (p != c) {
            for (int64_t j = 0; j < n; ++j) {
                double t = a[c * n + j]; a[c * n + j] = a[p * n + j]; a[p * n + j] = t;
            }
            double t = b[c]; b[c] = b[p]; b[p] = t;
        }
        for (int64_t i = c + 1; i < n; ++i) {
            double f = a[i * n + c] / a[c * n + c];
            if (f == 0.0) continue;
            for (int64_t j = c; j < n; ++j) a[i * n + j] -= f * a[c * n + j];
            b[i] -= f * b[c];
        }
    }
    for (int64_t c = n - 1; c >= 0; --c) {
        double s = b[c];
        for (int64_t j = c + 1; j < n; ++j) s -= a[c * n + j] * b[j];
        b[c] = s / a[c * n + c];
    }
    return 0;
}

/* The reduced and full accelerations and the constraint force at the bodies' rotations
 * rot and velocity maps d (of hb_poses), the true velocity v (n) and the force sum total
 * (n): vr_dot (nr), acc (n), fc (n; any of acc, fc may be NULL). Returns 0, 2 when a
 * result is not finite, 3 when J^T L J is singular (outputs then zero). */
HB_EXPORT int hb_solve(const struct hb_model *m, const double *rot, const double *d,
                       const double *v, const double *total, double *vr_dot, double *acc,
                       double *fc)
{
    int64_t n = m->n, nr = m->nr;
    double *lhs = m->work, *turned = lhs + n * n, *jac = turned + n * n, *kk = jac + n * nr;
    double *bias = kk + nr * nr, *kappa = bias + n, *force = kappa + n, *a = force + n;
    double *rhs = a + n;
    int rc = 0;
    memcpy(lhs, m->lhs0, (size_t)(n * n) * sizeof *lhs);
    if (m->any_frame) {
        hb_turned_added_mass(m, rot, turned);
        for (int64_t i = 0; i < n * n; ++i) lhs[i] += turned[i];
    }
    memcpy(jac, m->basis, (size_t)(n * nr) * sizeof *jac);
    memset(bias, 0, 2 * (size_t)n * sizeof *bias); /* bias and kappa */
    for (int64_t k = 0; k < m->nb; ++k) {
        int64_t s = m->dof0[k];
        const double *r = rot + 9 * k, *dk = d + 36 * k, *mb = m->mass + 36 * k;
        const double *w = v + s + 3;
        double r6mb[36], rmr[36];
        for (int64_t c = 0; c < nr; ++c) /* jac[s:s+6] = D T[s:s+6] */
            for (int i = 0; i < 6; ++i) {
                double t = 0.0;
                for (int j = 0; j < 6; ++j) t += dk[6 * i + j] * m->basis[(s + j) * nr + c];
                jac[(s + i) * nr + c] = t;
            }
        for (int j = 0; j < 6; ++j) { /* R6 Mb, column by column */
            double col[6], out[6];
            for (int i = 0; i < 6; ++i) col[i] = mb[6 * i + j];
            turn6(r, col, out, 0);
            for (int i = 0; i < 6; ++i) r6mb[6 * i + j] = out[i];
        }
        for (int i = 0; i < 6; ++i) /* (R6 Mb) R6^T, row by row */
            turn6(r, r6mb + 6 * i, rmr + 6 * i, 0);
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
                lhs[(s + i) * n + s + j] += rmr[6 * i + j] - mb[6 * i + j];
        velocity_terms(mb, r, w, bias + s);
        if (m->kind[k] == HB_HINGE) {
            double arm[3], t[3];
            matvec3(r, m->geometry + HB_GEOMETRY * k + 3, arm);
            cross3(w, arm, t);
            cross3(w, t, kappa + s);
        }
    }
    for (int64_t i = 0; i < n; ++i) { /* force = total - bias - L kappa */
        double t = 0.0;
        for (int64_t j = 0; j < n; ++j) t += lhs[i * n + j] * kappa[j];
        force[i] = total[i] - bias[i] - t;
    }
    for (int64_t c = 0; c < nr; ++c) { /* rhs = J^T force, kk = J^T L J */
        double t = 0.0;
        for (int64_t i = 0; i < n; ++i) t += jac[i * nr + c] * force[i];
        rhs[c] = t;
    }
    for (int64_t i = 0; i < n; ++i) /* a = L J, in `turned` (n x nr) */
        for (int64_t c = 0; c < nr; ++c) {
            double t = 0.0;
            for (int64_t j = 0; j < n; ++j) t += lhs[i * n + j] * jac[j * nr + c];
            turned[i * nr + c] = t;
        }
    for (int64_t r = 0; r < nr; ++r)
        for (int64_t c = 0; c < nr; ++c) {
            double t = 0.0;
            for (int64_t i = 0; i < n; ++i) t += jac[i * nr + r] * turned[i * nr + c];
            kk[r * nr + c] = t;
        }
    rc = solve_dense(kk, rhs, nr);
    if (rc != 0) {
        memset(vr_dot, 0, (size_t)nr * sizeof *vr_dot);
        if (acc) memset(acc, 0, (size_t)n * sizeof *acc);
        if (fc) memset(fc, 0, (size_t)n * sizeof *fc);
        return rc;
    }
    memcpy(vr_dot, rhs, (size_t)nr * sizeof *vr_dot);
    for (int64_t i = 0; i < n; ++i) { /* a = J vr' + kappa */
        double t = 0.0;
        for (int64_t c = 0; c < nr; ++c) t += jac[i * nr + c] * rhs[c];
        a[i] = t + kappa[i];
    }
    for (int64_t i = 0; i < nr; ++i)
        if (!isfinite(vr_dot[i])) rc = 2;
    if (acc) memcpy(acc, a, (size_t)n * sizeof *acc);
    if (fc)
        for (int64_t i = 0; i < n; ++i) { /* F_c = L a + b - F */
            double t = 0.0;
            for (int64_t j = 0; j < n; ++j) t += lhs[i * n + j] * a[j];
            fc[i] = t + bias[i] - total[i];
        }
    return rc;
}

/* The free bodies' quaternion rates, in body order (4 each), from the state y and the true
 * velocity v (n). */
HB_EXPORT void hb_quaternion_rates(const struct hb_model *m, const double *y, const double *v,
                                   double *out)
{
    for (int64_t k = 0; k < m->nb; ++k)
        if (m->kind[k] == HB_FREE) {
            hb_quaternion_rate(y + m->quat[k], v + m->dof0[k] + 3, out);
            out += 4;
        }
}

/* Every large-rotation body's output quaternion (4 each, w >= 0, unit), from the state y
 * and the true pose q (n): the free bodies' state normalised, the others' from their
 * Euler angles. */
HB_EXPORT void hb_quaternions(const struct hb_model *m, const double *y, const double *q,
                              double *out)
{
    for (int64_t k = 0; k < m->nb; ++k, out += 4) {
        if (m->kind[k] == HB_FREE) {
            const double *s = y + m->quat[k];
            double n = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
            double sign = s[0] >= 0.0 ? 1.0 : -1.0;
            for (int i = 0; i < 4; ++i) out[i] = sign * s[i] / n;
        } else {
            double r[9];
            hb_matrix_from_euler(q + m->dof0[k] + 3, r);
            hb_quaternion_from_matrix(r, out);
        }
    }
}
