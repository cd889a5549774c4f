/* hydrofmu native runtime, the MoorDyn lines (see hfn_lines.h and hfn_model.h). */
#include "hfn_lines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The one line kernel (runtime/moorings/line_kernel.c), its functions hidden here. */
#define HF_EXPORT HFN_HIDDEN
#include "line_kernel.c"

#define N_INTS 13
#define N_REALS 24
#define N_WORK 14

struct hfn_line_part {
    hf_lines L;
    uint32_t sizes[9]; /* n_nodes, n_internal, n_points, n_free, n_lines, n_seg, n_groups,
                          n_group_points, has_seabed */
    uint32_t state0, dof0, out_row;
    double env[5], ref[3];
    int64_t *ints[N_INTS];
    double *reals[N_REALS];
    double *work[N_WORK];
    double *PQ, *PV, *deriv;
    uint32_t *pq_idx, npq; /* the state columns PQ or PV reads (the body's DOFs) */
    int64_t none; /* the kernel's coupled-point index array: none */
    double cp[6], cv[6], f[6];
};

/* ------------------------------------------------------------------ reading */
typedef struct {
    const unsigned char *p;
    size_t left;
    int bad;
} lreader;

static uint32_t lr_u32(lreader *r) {
    uint32_t v;
    if (r->bad || r->left < 4) { r->bad = 1; return 0; }
    v = (uint32_t)r->p[0] | ((uint32_t)r->p[1] << 8) | ((uint32_t)r->p[2] << 16) |
        ((uint32_t)r->p[3] << 24);
    r->p += 4; r->left -= 4;
    return v;
}

static double lr_f64(lreader *r) {
    uint64_t v = 0;
    double d;
    int i;
    if (r->bad || r->left < 8) { r->bad = 1; return 0.0; }
    for (i = 7; i >= 0; i--) v = (v << 8) | r->p[i];
    r->p += 8; r->left -= 8;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* count doubles (checked against the bytes left before allocating). */
static double *lr_f64s(lreader *r, size_t count) {
    double *a;
    size_t i;
    if (r->bad || count > r->left / 8) { r->bad = 1; return NULL; }
    a = (double *)calloc(count + 1, sizeof(double));
    if (!a) { r->bad = 1; return NULL; }
    for (i = 0; i < count; i++) a[i] = lr_f64(r);
    return a;
}

/* count int32 into int64. */
static int64_t *lr_i32s(lreader *r, size_t count) {
    int64_t *a;
    size_t i;
    if (r->bad || count > r->left / 4) { r->bad = 1; return NULL; }
    a = (int64_t *)calloc(count + 1, sizeof(int64_t));
    if (!a) { r->bad = 1; return NULL; }
    for (i = 0; i < count; i++) a[i] = (int64_t)(int32_t)lr_u32(r);
    return a;
}

/* Every index in [lo, hi). */
static int in_range(const int64_t *a, size_t count, int64_t lo, int64_t hi) {
    size_t i;
    for (i = 0; i < count; i++)
        if (a[i] < lo || a[i] >= hi) return 0;
    return 1;
}

/* The sizes of the integer and real arrays (blob order, as lines_blob.py writes them). */
static void array_sizes(const uint32_t *s, size_t *ni, size_t *nr) {
    size_t nn = s[0], nin = s[1], npt = s[2], nf = s[3], nl = s[4], ns = s[5], ng = s[6];
    size_t ngp = s[7], q;
    size_t ints[N_INTS] = {nin, nn, nn, nn, 2 * nl, 2 * nl, ns, ns, nf, npt, ng, ng + 1, ngp};
    for (q = 0; q < N_INTS; q++) ni[q] = ints[q];
    nr[0] = ns;
    for (q = 1; q < 5; q++) nr[q] = nn - 1;
    for (q = 5; q < 18; q++) nr[q] = nn;
    nr[18] = 3 * npt;
    for (q = 19; q < 23; q++) nr[q] = npt;
    nr[23] = 6 * ng;
}

/* The kernel's indices are in range, so that no blob can make it read out of bounds. */
static int part_valid(const hfn_line_part *P, const hfn_lines_model *lm) {
    const uint32_t *s = P->sizes;
    int64_t nn = s[0], nin = s[1], npt = s[2], nf = s[3], nl = s[4], ns = s[5], ng = s[6];
    int64_t ngp = s[7], i, nst = 6 * (nin + nf);
    int64_t *const *a = P->ints;
    if (nn < 2 || nl < 1 || npt < 1 || ng < 1 || s[8] > 1u || nin > nn ||
        (uint64_t)P->state0 + (uint64_t)nst > lm->n || (uint64_t)P->dof0 + 6u > lm->nq ||
        (uint64_t)P->out_row + 2u * (uint64_t)nl > lm->nout)
        return 0;
    if (!in_range(a[0], (size_t)nin, 0, nn) || !in_range(a[1], (size_t)nn, 0, 3) ||
        !in_range(a[2], (size_t)nn, -1, ns) || !in_range(a[3], (size_t)nn, -1, ns) ||
        !in_range(a[4], 2 * (size_t)nl, 0, nn) || !in_range(a[5], 2 * (size_t)nl, 0, npt) ||
        !in_range(a[6], (size_t)ns, 0, nn) || !in_range(a[7], (size_t)ns, 0, nn) ||
        !in_range(a[8], (size_t)nf, 0, npt) || !in_range(a[9], (size_t)npt, -1, nf) ||
        !in_range(a[10], (size_t)ng, -1, 1) || !in_range(a[12], (size_t)ngp, 0, npt))
        return 0;
    for (i = 0; i < nn; i++) { /* the tangent's neighbours exist */
        int64_t kind = a[1][i];
        if ((kind != 2 && i + 1 >= nn) || (kind != 1 && i < 1)) return 0;
    }
    if (a[11][0] != 0 || a[11][ng] != ngp) return 0;
    for (i = 0; i < ng; i++)
        if (a[11][i + 1] < a[11][i]) return 0;
    for (i = 0; i < N_REALS; i++)
        if (!P->reals[i]) return 0;
    return 1;
}

/* Point the kernel's structure at the part's arrays. */
static void bind_kernel(hfn_line_part *P) {
    hf_lines *L = &P->L;
    const uint32_t *s = P->sizes;
    int64_t *const *a = P->ints;
    double *const *x = P->reals, *const *w = P->work;
    L->n_nodes = s[0]; L->n_internal = s[1]; L->n_points = s[2]; L->n_free = s[3];
    L->n_lines = s[4]; L->n_states = 6 * ((int64_t)s[1] + s[3]); L->n_coupled_dof = 6;
    L->n_seg = s[5]; L->n_groups = s[6]; L->n_cp = 0; L->n_coupled_bodies = 1;
    L->no_bodies = 0; L->has_seabed = s[8];
    L->g = P->env[0]; L->rho = P->env[1]; L->depth = P->env[2]; L->kbot = P->env[3];
    L->cbot = P->env[4];
    L->internal = a[0]; L->node_kind = a[1]; L->node_left = a[2]; L->node_right = a[3];
    L->end_nodes = a[4]; L->end_points = a[5]; L->seg0 = a[6]; L->seg1 = a[7];
    L->free_points = a[8]; L->point_free = a[9]; L->group_k = a[10]; L->group_start = a[11];
    L->group_points = a[12]; L->cp_index = &P->none;
    L->l0 = x[0]; L->pair_l0 = x[1]; L->pair_ea_l0 = x[2]; L->pair_ba_l0 = x[3];
    L->pair_fake = x[4]; L->n_len = x[5]; L->n_m = x[6]; L->n_d = x[7]; L->n_area = x[8];
    L->n_can = x[9]; L->n_cat = x[10]; L->cdn_d = x[11]; L->cdt_d = x[12]; L->a_full = x[13];
    L->b_full = x[14]; L->wz_full = x[15]; L->cn_full = x[16]; L->ct_full = x[17];
    L->point_r0 = x[18]; L->point_mass = x[19]; L->point_volume = x[20];
    L->point_cda = x[21]; L->point_ca = x[22]; L->group_pose = x[23];
    L->r = w[0]; L->v = w[1]; L->rp = w[2]; L->vp = w[3]; L->fnet = w[4]; L->a = w[5];
    L->b = w[6]; L->q = w[7]; L->pair_tension = w[8]; L->seg_force = w[9];
    L->point_f = w[10]; L->sub_len = w[11]; L->seg_sub = w[12]; L->point_m = w[13];
}

/* One part from the reader; 0, or -1. */
static int read_part(lreader *r, hfn_line_part *P, const hfn_lines_model *lm) {
    size_t ni[N_INTS], nr[N_REALS], q, nn, npt, work[N_WORK];
    for (q = 0; q < 9; q++) P->sizes[q] = lr_u32(r);
    P->state0 = lr_u32(r); P->dof0 = lr_u32(r); P->out_row = lr_u32(r);
    for (q = 0; q < 5; q++) P->env[q] = lr_f64(r);
    for (q = 0; q < 3; q++) P->ref[q] = lr_f64(r);
    for (q = 0; q < 8; q++)
        if (P->sizes[q] > 1000000u) r->bad = 1;
    if (r->bad || P->sizes[0] < 2u) return -1;
    array_sizes(P->sizes, ni, nr);
    for (q = 0; q < N_INTS; q++) P->ints[q] = lr_i32s(r, ni[q]);
    for (q = 0; q < N_REALS; q++) P->reals[q] = lr_f64s(r, nr[q]);
    P->PQ = lr_f64s(r, 6 * (size_t)lm->n);
    P->PV = lr_f64s(r, 6 * (size_t)lm->n);
    if (r->bad || !part_valid(P, lm)) return -1;
    P->pq_idx = (uint32_t *)calloc((size_t)lm->n + 1, sizeof(uint32_t));
    if (!P->pq_idx) return -1;
    for (q = 0; q < lm->n; q++) { /* the columns of PQ and PV with a nonzero */
        size_t i;
        int used = 0;
        for (i = 0; i < 6; i++)
            used |= P->PQ[i * lm->n + q] != 0.0 || P->PV[i * lm->n + q] != 0.0;
        if (used) P->pq_idx[P->npq++] = (uint32_t)q;
    }
    nn = P->sizes[0]; npt = P->sizes[2];
    work[0] = work[1] = work[4] = work[7] = 3 * nn;
    work[2] = work[3] = work[10] = 3 * npt;
    work[5] = work[6] = work[11] = nn;
    work[8] = nn - 1; work[9] = 3 * (nn - 1);
    work[12] = P->sizes[5]; work[13] = 9 * (size_t)P->sizes[3];
    for (q = 0; q < N_WORK; q++) {
        P->work[q] = (double *)calloc(work[q] + 1, sizeof(double));
        if (!P->work[q]) return -1;
    }
    P->deriv = (double *)calloc(6 * ((size_t)P->sizes[1] + P->sizes[3]) + 1, sizeof(double));
    if (!P->deriv) return -1;
    bind_kernel(P);
    return 0;
}

static void free_part(hfn_line_part *P) {
    int q;
    for (q = 0; q < N_INTS; q++) free(P->ints[q]);
    for (q = 0; q < N_REALS; q++) free(P->reals[q]);
    for (q = 0; q < N_WORK; q++) free(P->work[q]);
    free(P->PQ); free(P->PV); free(P->deriv); free(P->pq_idx);
}

void hfn_lines_free(hfn_lines_model *lm) {
    uint32_t i;
    if (!lm) return;
    if (lm->parts) for (i = 0; i < lm->nparts; i++) free_part(&lm->parts[i]);
    free(lm->parts); free(lm->relax); free(lm->z); free(lm->g); free(lm->ytmp); free(lm->d0);
    free(lm->OL); free(lm->gl);
    free(lm);
}

int hfn_lines_read(hfn_lines_model **out, const unsigned char *data, size_t size,
                   size_t *used, uint32_t n, uint32_t nout, uint32_t nq, uint32_t rk) {
    lreader r;
    hfn_lines_model *lm;
    uint32_t i;
    size_t nw = (size_t)n + 1;
    *out = NULL;
    *used = 0;
    r.p = data; r.left = size; r.bad = 0;
    lm = (hfn_lines_model *)calloc(1, sizeof *lm);
    if (!lm) return -1;
    lm->n = n; lm->nout = nout; lm->nq = nq;
    lm->si_n = lr_u32(&r);
    if (lm->si_n > 1000u) r.bad = 1;
    if (lm->si_n) {
        lm->si_family = lr_u32(&r);
        if (lm->si_family < 1u || lm->si_family > 3u) r.bad = 1;
        lm->relax = lr_f64s(&r, lm->si_n - 1u);
        lm->z = (double *)calloc(nw, sizeof(double));
        lm->g = (double *)calloc(nw, sizeof(double));
        lm->ytmp = (double *)calloc(nw, sizeof(double));
        lm->d0 = (double *)calloc(nw, sizeof(double));
        if (!lm->z || !lm->g || !lm->ytmp || !lm->d0) r.bad = 1;
        for (i = 0; !r.bad && i + 1 < lm->si_n; i++)
            if (!(lm->relax[i] >= 0.0 && lm->relax[i] < 1.0)) r.bad = 1;
    }
    lm->nparts = lr_u32(&r);
    if (lm->nparts > 1000u || ((lm->nparts || lm->si_n) && !rk)) r.bad = 1;
    if (!r.bad && lm->nparts) {
        lm->OL = lr_f64s(&r, (size_t)nout * nq);
        lm->gl = (double *)calloc((size_t)nq + 1, sizeof(double));
        lm->parts = (hfn_line_part *)calloc(lm->nparts, sizeof(hfn_line_part));
        if (!lm->gl || !lm->parts) r.bad = 1;
        for (i = 0; i < lm->nparts && !r.bad; i++)
            if (read_part(&r, &lm->parts[i], lm) != 0) r.bad = 1;
    }
    if (r.bad) { hfn_lines_free(lm); return -1; }
    *used = size - r.left;
    if (!lm->si_n && !lm->nparts) { hfn_lines_free(lm); return 0; }
    *out = lm;
    return 0;
}

void hfn_lines_set_current(hfn_lines_model *lm, uint32_t i, uint32_t rows, const double *z,
                           const double *u) {
    hf_lines *L = &lm->parts[i].L;
    L->n_current = rows; L->current_z = z; L->current_u = u;
}

size_t hfn_lines_state_size(const hfn_lines_model *lm) {
    return lm && lm->si_n ? (size_t)lm->n + 2 : 0;
}

/* ------------------------------------------------------------------ evaluation */
/* The part at the live state y: the body's pose and velocity, the kernel (derivative into
 * P->deriv), the coupled points' force and moment about ref + q[:3] into P->f. */
static int evaluate(hfn_line_part *P, uint32_t n, const double *y) {
    const hf_lines *L = &P->L;
    double q6[6], f[6] = {0, 0, 0, 0, 0, 0};
    int64_t g = L->n_groups - 1, j; /* the part's coupled points: the last group */
    uint32_t i, k;
    for (i = 0; i < 6; i++) {
        const double *pq = P->PQ + (size_t)i * n, *pv = P->PV + (size_t)i * n;
        double a = 0.0, b = 0.0;
        for (k = 0; k < P->npq; k++) {
            uint32_t col = P->pq_idx[k];
            a += pq[col] * y[col];
            b += pv[col] * y[col];
        }
        q6[i] = a;
        P->cv[i] = b;
    }
    for (i = 0; i < 3; i++) { P->cp[i] = P->ref[i] + q6[i]; P->cp[3 + i] = q6[3 + i]; }
    if (hf_line_eval(L, y + P->state0, P->cp, P->cv, 1.0, 0, 1, P->deriv)) return -1;
    for (j = L->group_start[g]; j < L->group_start[g + 1]; j++) {
        int64_t p = L->group_points[j];
        const double *fp = L->point_f + 3 * p, *rp = L->rp + 3 * p;
        double arm[3];
        for (k = 0; k < 3; k++) { f[k] += fp[k]; arm[k] = rp[k] - P->cp[k]; }
        f[3] += arm[1] * fp[2] - arm[2] * fp[1];
        f[4] += arm[2] * fp[0] - arm[0] * fp[2];
        f[5] += arm[0] * fp[1] - arm[1] * fp[0];
    }
    memcpy(P->f, f, sizeof f);
    return 0;
}

int hfn_lines_deriv(hfn_lines_model *lm, const double *y, double *dy, double *g) {
    uint32_t i, k;
    for (i = 0; i < lm->nparts; i++) {
        hfn_line_part *P = &lm->parts[i];
        int64_t j, ns = P->L.n_states;
        if (evaluate(P, lm->n, y) != 0) {
            for (k = 0; k < lm->n; k++) dy[k] = NAN;
            return -1;
        }
        for (j = 0; j < ns; j++) dy[P->state0 + j] += P->deriv[j];
        for (k = 0; k < 6; k++) g[P->dof0 + k] += P->f[k];
    }
    return 0;
}

void hfn_lines_outputs(hfn_lines_model *lm, const double *y, double *out) {
    uint32_t i, j, k;
    if (!lm->nparts) return;
    memset(lm->gl, 0, lm->nq * sizeof(double));
    for (i = 0; i < lm->nparts; i++) {
        hfn_line_part *P = &lm->parts[i];
        const hf_lines *L = &P->L;
        int64_t l, nl = L->n_lines;
        if (evaluate(P, lm->n, y) != 0) {
            for (k = 0; k < 6; k++) lm->gl[P->dof0 + k] = NAN;
            for (l = 0; l < 2 * nl; l++) out[P->out_row + l] = NAN;
            continue;
        }
        for (k = 0; k < 6; k++) lm->gl[P->dof0 + k] += P->f[k];
        for (l = 0; l < nl; l++) { /* fairlead: end B; anchor: end A */
            const double *fb = L->fnet + 3 * L->end_nodes[nl + l];
            const double *fa = L->fnet + 3 * L->end_nodes[l];
            out[P->out_row + 2 * l] = sqrt(fb[0] * fb[0] + fb[1] * fb[1] + fb[2] * fb[2]);
            out[P->out_row + 2 * l + 1] = sqrt(fa[0] * fa[0] + fa[1] * fa[1] + fa[2] * fa[2]);
        }
    }
    for (j = 0; j < lm->nout; j++) {
        const double *row = lm->OL + (size_t)j * lm->nq;
        double s = 0.0;
        for (k = 0; k < lm->nq; k++) s += row[k] * lm->gl[k];
        out[j] += s;
    }
}
