/* The quasi-static elastic catenary with seabed contact (plain C99): hydrofmu's one solve,
 * called by the Python FMU (ctypes, hydrofmu.runtime.moorings.catenary) and by the native
 * FMU (export/native/csrc/hfn_catenary.c includes this file, its symbols hidden).
 *
 * One uniform line hangs between an anchor end A and a fairlead end B. In the vertical
 * plane of the line, with XF >= 0 the horizontal span and ZF the height of B above A, the
 * line is described by the horizontal and vertical fairlead tensions HF, VF (N), the
 * unstretched length L (m), the axial stiffness EA (N) and the submerged weight per length
 * w (N/m). Two closed-form equations (Irvine 1981; Jonkman 2007, the formulation MoorDyn
 * and FAST use) give XF(HF, VF) and ZF(HF, VF):
 *
 *   fully suspended (no seabed, or VF >= w L):
 *     XF = HF/w [asinh(VF/HF) - asinh(VA/HF)] + HF L/EA,          VA = VF - w L
 *     ZF = HF/w [sqrt(1 + (VF/HF)^2) - sqrt(1 + (VA/HF)^2)] + (VF L - w L^2/2)/EA
 *   partly on the seabed (LB = L - VF/w on the bottom, friction coefficient CB):
 *     XF = LB + HF/w asinh(VF/HF) + HF L/EA
 *          + CB w/(2 EA) [-LB^2 + (LB - HF/(CB w)) max(LB - HF/(CB w), 0)]
 *     ZF = HF/w [sqrt(1 + (VF/HF)^2) - 1] + VF^2/(2 EA w)
 *
 * The pair is solved by a damped Newton iteration on (log HF, VF) from Peyrot & Goulois'
 * (Jonkman's) starting point, every solve from that same point (no warm start: a solve is a
 * function of its arguments, so the FMU states need nothing of it); when it does not
 * converge a nested bisection (ZF increases with VF at fixed HF, XF with HF along that
 * curve) takes over, so slack, taut and fully lifted lines are all found. A span the line
 * cannot take is an error code with its message (hf_cat_message), never a NaN.
 *
 * The line on a body: the fairlead at pose[:3] + R(pose[3:]) fairlead (R = Rx Ry Rz,
 * MoorDyn-C's RotXYZ, as hydrofmu.runtime.moorings.frames.rotation), the force
 * (-HF e_h, -VF) on the body and its moment about pose[:3] (hf_cat_body).
 *
 * No allocation, no state: every argument is the caller's.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#ifndef HF_CATENARY_ABI
#define HF_CATENARY_ABI 1
#endif

/* The native FMU includes this file with HF_EXPORT defined (its symbols hidden there). */
#ifndef HF_EXPORT
#if defined(_WIN32)
#define HF_EXPORT __declspec(dllexport)
#else
#define HF_EXPORT __attribute__((visibility("default")))
#endif
#endif

/* One line (hydrofmu.runtime.moorings.catenary.HfCatenary: same fields, same order). */
typedef struct hf_catenary {
    double length;     /* unstretched length L, m, > 0 */
    double weight;     /* submerged weight per length w, N/m, > 0 */
    double ea;         /* axial stiffness EA, N, > 0 (inf: inextensible) */
    double cb;         /* seabed friction coefficient, >= 0 */
    double max_strain; /* largest mean strain before the line cannot reach */
    double tol;        /* relative tolerance on XF and ZF */
    double anchor[3];  /* m, global frame, z up */
    double fairlead[3];/* m, body axes, from the body's reference point */
    int64_t seabed;    /* 1: the anchor lies on a seabed the line may rest on */
} hf_catenary;

/* The solution's layout (hf_cat_solve's sol; HF_CAT_SOL doubles). */
enum { CAT_HF, CAT_VF, CAT_HA, CAT_VA, CAT_LB, CAT_XF, CAT_ZF, CAT_V1, CAT_V2, HF_CAT_SOL };
/* Return codes: 0 solved, else why not (hf_cat_message says it in words). */
enum { CAT_OK, CAT_NONFINITE, CAT_VERTICAL, CAT_BELOW, CAT_REACH, CAT_NOSOLUTION };

HF_EXPORT int64_t hf_catenary_abi(void) { return HF_CATENARY_ABI; }

HF_EXPORT int64_t hf_catenary_struct_size(void) { return (int64_t)sizeof(hf_catenary); }

/* Python's max(a, b) and min(a, b) (the first argument unless the second compares
 * greater / smaller: the same result with a NaN as the Python solve had). */
static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }

/* x^2 as pow(x, 2) (what Python's x ** 2 computes, which the solve was validated as; the
 * exponent is read at run time so that the compiler does not fold it into x * x, which
 * rounds differently by an ulp in rare cases). */
static volatile double cat_two = 2.0;
static double py_square(double x) { return pow(x, cat_two); }

static int on_seabed(const hf_catenary *c, double vf) {
    return c->seabed && vf < c->weight * c->length;
}

/* (XF, ZF) in m into xz for fairlead tensions hf > 0, vf (N). */
HF_EXPORT void hf_cat_span(const hf_catenary *c, double hf, double vf, double *xz) {
    double L = c->length, w = c->weight, ea = c->ea, va, a, b, sa, sb, dx;
    if (on_seabed(c, vf)) {
        double lb, xf, zf, q;
        vf = py_max(vf, 0.0);
        lb = L - vf / w;
        xf = lb + hf / w * asinh(vf / hf) + hf * L / ea;
        if (c->cb > 0) {
            double s0 = lb - hf / (c->cb * w);
            xf += c->cb * w / (2 * ea) * (-lb * lb + s0 * py_max(s0, 0.0));
        }
        q = vf / hf;
        zf = hf / w * (sqrt(1 + py_square(q)) - 1) + vf * vf / (2 * ea * w);
        xz[0] = xf; xz[1] = zf;
        return;
    }
    va = vf - w * L;
    a = vf / hf; b = va / hf;
    sa = sqrt(1 + a * a); sb = sqrt(1 + b * b);
    /* differences of asinh and sqrt rewritten without cancellation (a - b = w L / HF is
     * tiny for a light, taut line) */
    if (a * b > 0)
        dx = asinh((w * L / hf) * (a + b) / (a * sb + b * sa));
    else
        dx = asinh(a) - asinh(b);
    xz[0] = hf / w * dx + hf * L / ea;
    xz[1] = L * (a + b) / (sa + sb) + (vf * L - w * L * L / 2) / ea;
}

static double residual(const hf_catenary *c, double hf, double vf, double xf, double zf) {
    double xz[2];
    hf_cat_span(c, hf, vf, xz);
    return fabs(xz[0] - xf) + fabs(xz[1] - zf);
}

/* The solution with no horizontal tension, when the span is too short for any: with
 * HF -> 0 a seabed line hangs vertically over a suspended length Ls
 * (ZF = Ls + w Ls^2 / (2 EA)) and the rest lies on the bottom; a span below L - Ls leaves
 * the line slack on the seabed, HF = 0 and VF = w Ls. 1 when it is the solution. */
static int slack(const hf_catenary *c, double xf, double zf, double *sol) {
    double w = c->weight, ea = c->ea, ls;
    if (!c->seabed || zf <= 0) return 0;
    /* positive root of (w / (2 EA)) Ls^2 + Ls - ZF = 0, written without cancellation */
    ls = isfinite(ea) ? 2 * zf / (1 + sqrt(1 + 2 * w * zf / ea)) : zf;
    if (ls >= c->length || xf > (c->length - ls) * (1 + 1e-9)) return 0;
    sol[CAT_HF] = 0.0; sol[CAT_VF] = w * ls; sol[CAT_HA] = 0.0; sol[CAT_VA] = 0.0;
    sol[CAT_LB] = c->length - ls;
    return 1;
}

static void solution(const hf_catenary *c, double hf, double vf, double *sol) {
    double w = c->weight, L = c->length;
    if (on_seabed(c, vf)) {
        double vf0 = py_max(vf, 0.0), lb = L - vf0 / w;
        sol[CAT_HF] = hf; sol[CAT_VF] = vf0;
        sol[CAT_HA] = c->cb > 0 ? py_max(hf - c->cb * w * lb, 0.0) : hf;
        sol[CAT_VA] = 0.0; sol[CAT_LB] = lb;
        return;
    }
    sol[CAT_HF] = hf; sol[CAT_VF] = vf; sol[CAT_HA] = hf; sol[CAT_VA] = vf - w * L;
    sol[CAT_LB] = 0.0;
}

/* Peyrot & Goulois' / Jonkman's starting point. */
static void initial_guess(const hf_catenary *c, double xf, double zf, double *hf, double *vf) {
    double L = c->length, w = c->weight, chord2 = xf * xf + zf * zf, lam;
    if (L * L <= chord2) {
        lam = 0.2;
    } else if (xf > 0) {
        /* >= 0 in exact arithmetic here; a rounding below 0 is taken as 0 */
        lam = sqrt(py_max(3 * ((L * L - zf * zf) / (xf * xf) - 1), 0.0));
    } else {
        lam = 1e6;
    }
    *hf = py_max(fabs(w * xf / (2 * py_max(lam, 1e-6))), 1e-6 * w * L);
    *vf = w / 2 * (zf / tanh(py_max(lam, 1e-6)) + L);
}

/* Damped Newton on (log HF, VF); 1 and (hf, vf) when it converges, else 0. */
static int newton(const hf_catenary *c, double xf, double zf, double *hf_out, double *vf_out) {
    double hf, vf, u, scale = py_max(c->length, 1.0), xz[2], x1[2], x2[2];
    int it, ls;
    initial_guess(c, xf, zf, &hf, &vf);
    u = log(hf);
    for (it = 0; it < 200; it++) {
        double fx, fz, err, du, dv, j11, j21, j12, j22, det, su, sv, fac, un = 0, vn = 0;
        hf = exp(u);
        hf_cat_span(c, hf, vf, xz);
        fx = xz[0] - xf; fz = xz[1] - zf;
        err = fabs(fx) + fabs(fz);
        if (err < c->tol * scale) { *hf_out = hf; *vf_out = vf; return 1; }
        du = 1e-7;
        dv = 1e-7 * py_max(fabs(vf), c->weight * c->length);
        hf_cat_span(c, exp(u + du), vf, x1);
        hf_cat_span(c, hf, vf + dv, x2);
        j11 = (x1[0] - xz[0]) / du; j21 = (x1[1] - xz[1]) / du;
        j12 = (x2[0] - xz[0]) / dv; j22 = (x2[1] - xz[1]) / dv;
        det = j11 * j22 - j12 * j21;
        if (det == 0 || !isfinite(det)) return 0;
        su = -(j22 * fx - j12 * fz) / det;
        sv = -(-j21 * fx + j11 * fz) / det;
        /* limit the step: at most a factor e^1 on HF, and half the line weight on VF */
        fac = py_min(py_min(1.0, 1.0 / py_max(fabs(su), 1e-300)),
                     0.5 * c->weight * c->length / py_max(fabs(sv), 1e-300));
        /* backtracking on the residual */
        for (ls = 0; ls < 30; ls++) {
            un = u + fac * su; vn = vf + fac * sv;
            if (residual(c, exp(un), vn, xf, zf) < err) break;
            fac *= 0.5;
        }
        if (ls == 30) return 0;
        u = un; vf = vn;
    }
    return 0;
}

/* VF such that ZF(hf, VF) = zf (bisection; ZF increases with VF). */
static double vf_for_height(const hf_catenary *c, double hf, double zf) {
    double lo = -10 * c->weight * c->length - 10 * hf, hi = 10 * c->weight * c->length + 10 * hf;
    double xz[2];
    int it;
    if (c->seabed) {
        lo = 0.0;
        hf_cat_span(c, hf, lo, xz);
        if (xz[1] > zf) return lo;
    }
    for (it = 0; it < 2100; it++) { /* doubling: at most to the largest double */
        hf_cat_span(c, hf, hi, xz);
        if (!(xz[1] < zf)) break;
        hi *= 2;
    }
    for (it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        hf_cat_span(c, hf, mid, xz);
        if (xz[1] < zf) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void bisection(const hf_catenary *c, double xf, double zf, double *hf_out,
                      double *vf_out) {
    double lo = log(1e-9 * c->weight * c->length);
    double hi = log(1e3 * c->weight * c->length + 1e3 * c->ea * py_min(1.0, c->max_strain));
    double xz[2], hf;
    int it;
    for (it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        hf = exp(mid);
        hf_cat_span(c, hf, vf_for_height(c, hf, zf), xz);
        if (xz[0] < xf) lo = mid; else hi = mid;
    }
    hf = exp(0.5 * (lo + hi));
    *hf_out = hf;
    *vf_out = vf_for_height(c, hf, zf);
}

/* Fairlead and anchor tensions for a horizontal span xf and a height zf (m) into sol
 * (HF_CAT_SOL doubles: HF, VF, HA, VA, LB, XF, ZF and the values a message quotes);
 * CAT_OK, or the code of why not (sol[CAT_V1], sol[CAT_V2]: the values it names). */
HF_EXPORT int hf_cat_solve(const hf_catenary *c, double xf, double zf, double *sol) {
    double chord, limit, scale = py_max(c->length, 1.0), hf, vf, xz[2], res;
    int k;
    for (k = 0; k < HF_CAT_SOL; k++) sol[k] = 0.0;
    sol[CAT_XF] = xf; sol[CAT_ZF] = zf;
    sol[CAT_V1] = xf; sol[CAT_V2] = zf;
    if (!(isfinite(xf) && isfinite(zf))) return CAT_NONFINITE;
    if (xf <= 1e-9 * c->length) return CAT_VERTICAL;
    if (c->seabed && zf < 0) return CAT_BELOW;
    chord = hypot(xf, zf);
    limit = isfinite(c->ea) ? c->length * (1 + c->max_strain) : c->length;
    if (chord >= limit) { sol[CAT_V1] = chord; return CAT_REACH; }
    if (slack(c, xf, zf, sol)) return CAT_OK;
    if (!newton(c, xf, zf, &hf, &vf)) bisection(c, xf, zf, &hf, &vf);
    hf_cat_span(c, hf, vf, xz);
    res = fabs(xz[0] - xf) + fabs(xz[1] - zf);
    if (!(res <= 1e3 * c->tol * scale)) { sol[CAT_V1] = res; return CAT_NOSOLUTION; }
    solution(c, hf, vf, sol);
    return CAT_OK;
}

/* The message of code (hf_cat_solve's, its sol) into buf (size bytes, NUL-terminated). */
HF_EXPORT void hf_cat_message(const hf_catenary *c, int code, const double *sol, char *buf,
                              int64_t size) {
    double xf = sol[CAT_XF], zf = sol[CAT_ZF];
    size_t n = size > 0 ? (size_t)size : 0;
    if (!n) return;
    switch (code) {
    case CAT_OK: snprintf(buf, n, "solved"); break;
    case CAT_NONFINITE:
        snprintf(buf, n, "catenary span (%.17g, %.17g) must be finite", xf, zf);
        break;
    case CAT_VERTICAL:
        snprintf(buf, n, "catenary horizontal span XF=%.6g m must be > 0: a vertical line is "
                 "not supported by the quasi-static model; use a dynamic (moordyn) line", xf);
        break;
    case CAT_BELOW:
        snprintf(buf, n, "the fairlead is %.6g m below an anchor that lies on the seabed; "
                 "swap the ends or set seabed = false for a line hanging between two points",
                 -zf);
        break;
    case CAT_REACH:
        snprintf(buf, n, "the line cannot reach: the ends are %.6g m apart and the line is "
                 "%.6g m long (EA = %.3g N, at most %.0f%% strain accepted); lengthen the "
                 "line or move the anchor closer", sol[CAT_V1], c->length, c->ea,
                 100.0 * c->max_strain);
        break;
    case CAT_NOSOLUTION:
        snprintf(buf, n, "no catenary solution found for XF=%.6g m, ZF=%.6g m (residual "
                 "%.3g m)", xf, zf, sol[CAT_V1]);
        break;
    default: snprintf(buf, n, "catenary: unknown code %d", code); break;
    }
}

/* Rx(roll) Ry(pitch) Rz(yaw) (MoorDyn-C's RotXYZ), as hydrofmu.moorings.frames.rotation. */
static void cat_rotation(const double *ang, double R[9]) {
    double cr = cos(ang[0]), sr = sin(ang[0]);
    double cp = cos(ang[1]), sp = sin(ang[1]);
    double cy = cos(ang[2]), sy = sin(ang[2]);
    R[0] = cp * cy;                R[1] = -cp * sy;               R[2] = sp;
    R[3] = sr * sp * cy + cr * sy; R[4] = cr * cy - sr * sp * sy; R[5] = -sr * cp;
    R[6] = sr * sy - cr * sp * cy; R[7] = cr * sp * sy + sr * cy; R[8] = cr * cp;
}

/* n lines on one body at pose (m, rad; shape 6): force[6] = the lines' force (N) and moment
 * about pose[:3] (N m), global axes, summed in line order; tensions[2 n] = fairlead, anchor
 * tension of each line (N); sol (HF_CAT_SOL) = the last line's solution. CAT_OK, or the
 * code of the first line that cannot be solved, its index into *failed (sol: its values). */
HF_EXPORT int hf_cat_body(const hf_catenary *lines, int64_t n, const double *pose,
                          double *force, double *tensions, double *sol, int64_t *failed) {
    double R[9];
    int64_t i;
    int k;
    cat_rotation(pose + 3, R);
    for (k = 0; k < 6; k++) force[k] = 0.0;
    *failed = -1;
    for (i = 0; i < n; i++) {
        const hf_catenary *c = &lines[i];
        double arm[3], rel[3], xf, f[3];
        int code;
        for (k = 0; k < 3; k++)
            arm[k] = R[3 * k] * c->fairlead[0] + R[3 * k + 1] * c->fairlead[1] +
                     R[3 * k + 2] * c->fairlead[2];
        for (k = 0; k < 3; k++) rel[k] = pose[k] + arm[k] - c->anchor[k];
        xf = hypot(rel[0], rel[1]);
        code = hf_cat_solve(c, xf, rel[2], sol);
        if (code != CAT_OK) { *failed = i; return code; }
        f[0] = -sol[CAT_HF] * (rel[0] / xf);
        f[1] = -sol[CAT_HF] * (rel[1] / xf);
        f[2] = -sol[CAT_VF];
        for (k = 0; k < 3; k++) force[k] += f[k];
        force[3] += arm[1] * f[2] - arm[2] * f[1];
        force[4] += arm[2] * f[0] - arm[0] * f[2];
        force[5] += arm[0] * f[1] - arm[1] * f[0];
        tensions[2 * i] = hypot(sol[CAT_HF], sol[CAT_VF]);
        tensions[2 * i + 1] = hypot(sol[CAT_HA], sol[CAT_VA]);
    }
    return CAT_OK;
}
