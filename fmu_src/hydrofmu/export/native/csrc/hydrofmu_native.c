/* hydrofmu native runtime: FMI 2.0 co-simulation over an assembled linear model.
 * See hydrofmu_native.h for the equations and the blob layout. C99, no allocation per step
 * (only at fmi2Instantiate, fmi2GetFMUstate and fmi2DeSerializeFMUstate). */
#include "hydrofmu_native.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------ blob reading */
typedef struct {
    const unsigned char *p;
    size_t left;
    int bad;
} reader;

static uint32_t rd_u32(reader *r) {
    uint32_t v = 0;
    if (r->left < 4) { r->bad = 1; return 0; }
    v = (uint32_t)r->p[0] | ((uint32_t)r->p[1] << 8) | ((uint32_t)r->p[2] << 16) |
        ((uint32_t)r->p[3] << 24);
    r->p += 4; r->left -= 4;
    return v;
}

static double rd_f64(reader *r) {
    uint64_t v = 0;
    double d;
    int i;
    if (r->left < 8) { r->bad = 1; return 0.0; }
    for (i = 7; i >= 0; i--) v = (v << 8) | r->p[i];
    r->p += 8; r->left -= 8;
    memcpy(&d, &v, sizeof d);
    return d;
}

static double *rd_array(reader *r, size_t count) {
    double *a;
    size_t i;
    if (r->bad || count > r->left / 8) { r->bad = 1; return NULL; }
    a = (double *)calloc(count ? count : 1, sizeof(double));
    if (!a) { r->bad = 1; return NULL; }
    for (i = 0; i < count; i++) a[i] = rd_f64(r);
    return a;
}

static uint32_t *rd_u32_array(reader *r, size_t count) {
    uint32_t *a;
    size_t i;
    if (r->bad || count > r->left / 4) { r->bad = 1; return NULL; }
    a = (uint32_t *)calloc(count ? count : 1, sizeof(uint32_t));
    if (!a) { r->bad = 1; return NULL; }
    for (i = 0; i < count; i++) a[i] = rd_u32(r);
    return a;
}

static char *rd_string(reader *r) {
    uint32_t len = rd_u32(r);
    char *s;
    if (r->bad || len > r->left) { r->bad = 1; return NULL; }
    s = (char *)malloc((size_t)len + 1);
    if (!s) { r->bad = 1; return NULL; }
    memcpy(s, r->p, len);
    s[len] = '\0';
    r->p += len; r->left -= len;
    return s;
}

/* A dense rows x cols matrix's nonzeros by row (compressed rows, in column order);
 * returns 0, or -1 out of memory. */
static int csr_rows(const double *a, size_t rows, size_t cols, uint32_t **ptr, uint32_t **idx,
                    double **val) {
    size_t nnz = 0, i, j;
    for (i = 0; i < rows * cols; i++) nnz += a[i] != 0.0;
    *ptr = (uint32_t *)calloc(rows + 1, sizeof(uint32_t));
    *idx = (uint32_t *)calloc(nnz + 1, sizeof(uint32_t));
    *val = (double *)calloc(nnz + 1, sizeof(double));
    if (!*ptr || !*idx || !*val) return -1;
    for (i = 0, nnz = 0; i < rows; i++) {
        (*ptr)[i] = (uint32_t)nnz;
        for (j = 0; j < cols; j++) {
            double v = a[i * cols + j];
            if (v != 0.0) { (*idx)[nnz] = (uint32_t)j; (*val)[nnz] = v; nnz++; }
        }
    }
    (*ptr)[rows] = (uint32_t)nnz;
    return 0;
}

int hfn_model_read(hfn_model *md, const unsigned char *data, size_t size, char *err,
                   size_t err_size) {
    reader r;
    uint32_t version, hw, i, nz, nnames;
    uint32_t words[HFN_HEADER_WORDS];
    memset(md, 0, sizeof *md);
    if (size < 16 || memcmp(data, HFN_MAGIC, 8) != 0) {
        snprintf(err, err_size, "resources/model.bin is not a hydrofmu native model (bad "
                 "magic); rebuild the FMU with hydrofmu build --native");
        return -1;
    }
    r.p = data + 8; r.left = size - 8; r.bad = 0;
    version = rd_u32(&r);
    hw = rd_u32(&r);
    if (version != HFN_VERSION || hw != HFN_HEADER_WORDS) {
        snprintf(err, err_size, "resources/model.bin has format version %u (%u header words); "
                 "this runtime reads version %u: rebuild the FMU with the same hydrofmu",
                 (unsigned)version, (unsigned)hw, (unsigned)HFN_VERSION);
        return -1;
    }
    for (i = 0; i < HFN_HEADER_WORDS; i++) words[i] = rd_u32(&r);
    md->n = words[0]; md->m = words[1]; md->nout = words[2]; md->k = words[3];
    md->has_ramp = words[4]; md->nh = words[5]; md->nprod = words[6];
    md->npr = words[7]; md->npi = words[8]; md->nps = words[9]; md->scale_par = words[10];
    if (md->n > 100000u || md->m > 100000u || md->nout > 1000000u || md->k > 1000000u ||
        md->nh > md->nout) {
        snprintf(err, err_size, "resources/model.bin has impossible sizes (n=%u, m=%u, "
                 "outputs=%u, components=%u)", (unsigned)md->n, (unsigned)md->m,
                 (unsigned)md->nout, (unsigned)md->k);
        return -1;
    }
    nz = md->nz = md->n + md->m + 1;
    md->h0 = rd_f64(&r); md->ramp_time = rd_f64(&r); md->t0_build = rd_f64(&r);
    md->div_limit = rd_f64(&r);
    md->y0 = rd_array(&r, md->n);
    md->u0 = rd_array(&r, md->m);
    md->F = rd_array(&r, (size_t)md->n * md->n);
    md->G = rd_array(&r, (size_t)md->n * (md->m + 1));
    md->fused0 = rd_array(&r, (size_t)md->n * nz);
    md->omega = rd_array(&r, md->k);
    md->xs_re = rd_array(&r, (size_t)md->k * md->n);
    md->xs_im = rd_array(&r, (size_t)md->k * md->n);
    if (md->has_ramp) {
        for (i = 0; i < 3; i++) {
            md->xr_re[i] = rd_array(&r, (size_t)md->k * md->n);
            md->xr_im[i] = rd_array(&r, (size_t)md->k * md->n);
        }
    }
    md->C = rd_array(&r, (size_t)md->nout * nz);
    md->hrows = rd_u32_array(&r, md->nh);
    md->h_re = rd_array(&r, (size_t)md->nh * md->k);
    md->h_im = rd_array(&r, (size_t)md->nh * md->k);
    md->prod_i = (uint32_t *)calloc(md->nprod + 1, sizeof(uint32_t));
    md->prod_j = (uint32_t *)calloc(md->nprod + 1, sizeof(uint32_t));
    md->prod_l = (uint32_t *)calloc(md->nprod + 1, sizeof(uint32_t));
    md->prod_c = (double *)calloc(md->nprod + 1, sizeof(double));
    if (!md->prod_i || !md->prod_j || !md->prod_l || !md->prod_c) r.bad = 1;
    for (i = 0; i < md->nprod && !r.bad; i++) {
        md->prod_i[i] = rd_u32(&r); md->prod_j[i] = rd_u32(&r); md->prod_l[i] = rd_u32(&r);
        md->prod_c[i] = rd_f64(&r);
        if (md->prod_i[i] >= md->nout || md->prod_j[i] >= md->nout ||
            md->prod_l[i] >= md->nout) r.bad = 1;
    }
    md->par_r = rd_array(&r, md->npr);
    md->par_i = (int32_t *)calloc(md->npi + 1, sizeof(int32_t));
    if (!md->par_i) r.bad = 1;
    for (i = 0; i < md->npi && !r.bad; i++) md->par_i[i] = (int32_t)rd_u32(&r);
    md->par_s = (char **)calloc(md->nps + 1, sizeof(char *));
    if (!md->par_s) r.bad = 1;
    for (i = 0; i < md->nps && !r.bad; i++) md->par_s[i] = rd_string(&r);
    nnames = md->npr + md->npi + md->nps;
    md->names = (char **)calloc(nnames + 1, sizeof(char *));
    if (!md->names) r.bad = 1;
    for (i = 0; i < nnames && !r.bad; i++) md->names[i] = rd_string(&r);
    if (!r.bad) md->guid = rd_string(&r);
    if (!r.bad) md->rk = rd_u32(&r);
    if (!r.bad && md->rk > 1u) r.bad = 1;
    if (!r.bad && md->rk) {
        md->nq = rd_u32(&r); md->has_drag = rd_u32(&r); md->has_input = rd_u32(&r);
        md->in_index = rd_u32(&r); md->nk = rd_u32(&r); md->elev_row = rd_u32(&r);
        md->dt = rd_f64(&r); md->preview_steps = rd_f64(&r); md->wave_ramp = rd_f64(&r);
        if (md->nq > 100000u || md->nk > 100000000u || md->has_drag > 1u ||
            md->has_input > 1u || (md->has_input && (md->in_index >= md->m || md->nk < 2u ||
                                                     md->elev_row >= md->nout)) ||
            !(md->dt > 0.0 && isfinite(md->dt)) || !isfinite(md->preview_steps) ||
            !isfinite(md->wave_ramp))
            r.bad = 1;
    }
    if (!r.bad && md->rk) {
        md->V = rd_array(&r, (size_t)md->nq * md->n);
        md->BL = rd_array(&r, (size_t)md->nq * md->nq);
        md->BQ = rd_array(&r, md->nq);
        md->EG = rd_array(&r, (size_t)md->n * md->nq);
        md->OG = rd_array(&r, (size_t)md->nout * 2 * md->nq);
        md->KW = rd_array(&r, (size_t)md->nq * md->nk);
        md->kw_used = (uint32_t *)calloc((size_t)md->nq + 1, sizeof(uint32_t));
        if (!md->kw_used) r.bad = 1;
        for (i = 0; i < md->nq && !r.bad && md->KW; i++) {
            size_t j;
            for (j = 0; j < md->nk; j++) md->kw_used[i] |= md->KW[(size_t)i * md->nk + j] != 0.0;
        }
    }
    if (!r.bad) md->nfac = rd_u32(&r); /* the outputs' sinusoids factorised, H = O S */
    if (!r.bad && md->nfac) {
        if (md->nfac > md->nh) r.bad = 1;
        md->fs_re = rd_array(&r, (size_t)md->nfac * md->k);
        md->fs_im = rd_array(&r, (size_t)md->nfac * md->k);
        md->fo = rd_array(&r, (size_t)md->nh * md->nfac);
    }
    if (!r.bad && md->rk && /* F by rows, for the stages */
        csr_rows(md->F, md->n, md->n, &md->f_ptr, &md->f_idx, &md->f_val) != 0)
        r.bad = 1;
    if (!r.bad && md->rk && /* OG by rows: each output reads a few of the 2 nq forces */
        csr_rows(md->OG, md->nout, 2 * (size_t)md->nq, &md->og_ptr, &md->og_idx,
                 &md->og_val) != 0)
        r.bad = 1;
    if (!r.bad) { /* version 2: the tunable matrix parameters */
        uint32_t j, q, total = 0;
        const reader mark = r;
        md->ntun = rd_u32(&r);
        if (md->ntun > md->npr) r.bad = 1;
        if (md->ntun && !r.bad) {
            md->forc_re = rd_array(&r, (size_t)md->k * md->n);
            md->forc_im = rd_array(&r, (size_t)md->k * md->n);
        }
        /* First pass: the counts, to allocate once. */
        for (j = 0; j < md->ntun && !r.bad; j++) {
            rd_u32(&r);
            for (q = 0; q < 3 && !r.bad; q++) {
                uint32_t cnt = rd_u32(&r);
                if (cnt > r.left / 16) { r.bad = 1; break; }
                total += cnt;
                r.p += (size_t)cnt * 16; r.left -= (size_t)cnt * 16;
            }
        }
        if (!r.bad) {
            uint32_t at = 0;
            r = mark;
            rd_u32(&r);
            if (md->ntun) { r.p += (size_t)16 * md->k * md->n; r.left -= (size_t)16 * md->k * md->n; }
            md->tun_idx = (uint32_t *)calloc(md->ntun + 1, sizeof(uint32_t));
            md->tun_ptr = (uint32_t *)calloc(3 * (size_t)md->ntun + 1, sizeof(uint32_t));
            md->tun_row = (uint32_t *)calloc((size_t)total + 1, sizeof(uint32_t));
            md->tun_col = (uint32_t *)calloc((size_t)total + 1, sizeof(uint32_t));
            md->tun_val = (double *)calloc((size_t)total + 1, sizeof(double));
            if (!md->tun_idx || !md->tun_ptr || !md->tun_row || !md->tun_col || !md->tun_val)
                r.bad = 1;
            for (j = 0; j < md->ntun && !r.bad; j++) {
                md->tun_idx[j] = rd_u32(&r);
                if (md->tun_idx[j] >= md->npr || md->tun_idx[j] + 1 == md->scale_par ||
                    !isfinite(md->par_r[md->tun_idx[j]]) || md->par_r[md->tun_idx[j]] < 0.0)
                    r.bad = 1;
                for (q = 0; q < 3 && !r.bad; q++) {
                    uint32_t cnt = rd_u32(&r), e;
                    uint32_t nrow = q == 2 ? md->nout : md->n;
                    uint32_t ncol = q == 0 ? md->n : q == 1 ? md->m + 1 : nz;
                    md->tun_ptr[3 * j + q] = at;
                    for (e = 0; e < cnt && !r.bad; e++, at++) {
                        md->tun_row[at] = rd_u32(&r);
                        md->tun_col[at] = rd_u32(&r);
                        md->tun_val[at] = rd_f64(&r);
                        if (md->tun_row[at] >= nrow || md->tun_col[at] >= ncol ||
                            !isfinite(md->tun_val[at]))
                            r.bad = 1;
                    }
                }
            }
            if (!r.bad) md->tun_ptr[3 * md->ntun] = at;
            for (j = 0; j + 1 < md->ntun && !r.bad; j++) /* one entry per parameter */
                for (q = j + 1; q < md->ntun; q++)
                    if (md->tun_idx[j] == md->tun_idx[q]) r.bad = 1;
        }
    }
    for (i = 0; i < md->nh && !r.bad; i++)
        if (md->hrows[i] >= md->nout) r.bad = 1;
    if (md->scale_par > md->npr || (md->scale_par && !(md->par_r[md->scale_par - 1] != 0.0)))
        r.bad = 1;
    if (!r.bad) { /* the states with a particular solution: the others stay out of the loop */
        uint32_t q, s, cnt = 0;
        md->act = (uint32_t *)calloc(md->n + 1, sizeof(uint32_t));
        if (!md->act) r.bad = 1;
        for (i = 0; i < md->n && !r.bad; i++) {
            int used = 0;
            for (q = 0; q < md->k && !used; q++) {
                size_t at = (size_t)q * md->n + i;
                used = md->xs_re[at] != 0.0 || md->xs_im[at] != 0.0;
                for (s = 0; s < 3 && md->has_ramp && !used; s++)
                    used = md->xr_re[s][at] != 0.0 || md->xr_im[s][at] != 0.0;
            }
            /* with tunable matrices every state may get a particular solution */
            if (used || (md->ntun && !md->rk)) md->act[cnt++] = i; /* RK: X is fixed */
        }
        md->nact = cnt;
        for (s = 0; s < 8 && !r.bad; s++) {
            const double *src = s == 0 ? md->xs_re : s == 1 ? md->xs_im
                              : (md->has_ramp ? (s % 2 ? md->xr_im[(s - 2) / 2]
                                                       : md->xr_re[(s - 2) / 2]) : NULL);
            md->xc[s] = (double *)calloc((size_t)md->k * cnt + 1, sizeof(double));
            if (!md->xc[s]) { r.bad = 1; break; }
            for (q = 0; src && q < md->k; q++)
                for (i = 0; i < cnt; i++)
                    md->xc[s][(size_t)i * md->k + q] = src[(size_t)q * md->n + md->act[i]];
        }
    }
    if (!r.bad && /* the output map's nonzeros by row: most outputs read a few entries */
        csr_rows(md->C, md->nout, nz, &md->c_ptr, &md->c_idx, &md->c_val) != 0)
        r.bad = 1;
    if (r.bad || r.left != 0) {
        snprintf(err, err_size, "resources/model.bin is truncated or corrupt (%lu bytes); "
                 "rebuild the FMU with hydrofmu build --native", (unsigned long)size);
        hfn_model_free(md);
        return -1;
    }
    return 0;
}

void hfn_model_free(hfn_model *md) {
    uint32_t i;
    double **arrays[] = {&md->y0, &md->u0, &md->F, &md->G, &md->fused0, &md->omega,
                         &md->xs_re, &md->xs_im, &md->C, &md->h_re, &md->h_im, &md->prod_c,
                         &md->par_r, &md->V, &md->BL, &md->BQ, &md->EG, &md->OG, &md->KW,
                         &md->og_val, &md->fs_re, &md->fs_im, &md->fo, &md->f_val};
    for (i = 0; i < sizeof arrays / sizeof arrays[0]; i++) { free(*arrays[i]); *arrays[i] = NULL; }
    for (i = 0; i < 3; i++) { free(md->xr_re[i]); free(md->xr_im[i]); md->xr_re[i] = md->xr_im[i] = NULL; }
    free(md->c_ptr); free(md->c_idx); free(md->c_val); free(md->act); md->act = NULL;
    free(md->og_ptr); free(md->og_idx); free(md->f_ptr); free(md->f_idx); free(md->kw_used);
    for (i = 0; i < 8; i++) { free(md->xc[i]); md->xc[i] = NULL; }
    md->c_ptr = md->c_idx = NULL; md->c_val = NULL;
    free(md->hrows); free(md->prod_i); free(md->prod_j); free(md->prod_l); free(md->par_i);
    if (md->par_s) for (i = 0; i < md->nps; i++) free(md->par_s[i]);
    free(md->par_s);
    if (md->names) for (i = 0; i < md->npr + md->npi + md->nps; i++) free(md->names[i]);
    free(md->names);
    free(md->guid);
    free(md->tun_idx); free(md->tun_ptr); free(md->tun_row); free(md->tun_col);
    free(md->tun_val); free(md->forc_re); free(md->forc_im);
    memset(md, 0, sizeof *md);
}

/* ------------------------------------------------------------------ linear algebra */
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
    if (norm > THETA13) s = (int)ceil(log2(norm / THETA13));
    if (s < 0) s = 0;
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

int hfn_particular(int n, const double *f, double w, const double *b_re, const double *b_im,
                   double *x_re, double *x_im, double *work, int *ipiv) {
    double *ar = work, *ai = work + (size_t)n * n, anorm = 0.0, tiny;
    int i, j, l;
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
    for (i = n - 1; i >= 0; i--) { /* back substitution */
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

/* ------------------------------------------------------------------ instance */
enum { ST_INSTANTIATED, ST_INIT, ST_STEP, ST_FAILED, ST_TERMINATED, ST_ERROR };
static const char *STATE_NAMES[] = {"instantiated", "initialization mode", "step complete",
                                    "step failed", "terminated", "error"};
static const char *STATE_HINTS[] = {
    "call fmi2SetupExperiment and fmi2EnterInitializationMode first",
    "call fmi2ExitInitializationMode first", "the instance is stepping",
    "only fmi2Terminate, fmi2Reset, the getters and fmi2FreeInstance remain",
    "the instance has been terminated; fmi2Reset it or instantiate a new one",
    "initialization failed; fmi2Reset the instance or instantiate a new one"};
#define BIT(s) (1u << (s))
#define ANY_STATE 0x3Fu
enum {
    C_SETUP, C_ENTER, C_EXIT, C_STEP, C_TERMINATE, C_GET, C_SET_PAR, C_SET_INPUT,
    C_GET_STATE, C_SET_STATE, C_RESET
};
static const unsigned ALLOWED[] = {
    BIT(ST_INSTANTIATED), BIT(ST_INSTANTIATED), BIT(ST_INIT), BIT(ST_STEP),
    BIT(ST_STEP) | BIT(ST_FAILED) | BIT(ST_ERROR),
    BIT(ST_INIT) | BIT(ST_STEP) | BIT(ST_FAILED) | BIT(ST_TERMINATED) | BIT(ST_ERROR),
    BIT(ST_INSTANTIATED) | BIT(ST_INIT),
    BIT(ST_INSTANTIATED) | BIT(ST_INIT) | BIT(ST_STEP), ANY_STATE, ANY_STATE, ANY_STATE};

/* Log categories (as the Python FMU declares them). */
static const char *CATEGORIES[] = {"logStatusWarning", "logStatusDiscard", "logStatusError",
                                   "logStatusFatal", "logAll"};
#define N_CATEGORIES 5
/* Phasors are recomputed exactly (trigonometry) every this many rotations, so that the
 * rounding of the rotations (about 1e-16 each) never accumulates past ~1e-14. */
#define RESYNC_STEPS 256

/* The dynamic state: one contiguous block of doubles, copied as is by the FMU state. */
typedef struct {
    double *block;
    size_t size; /* doubles */
    double *time, *t0, *phase, *rot_count, *dirty, *start_set;
    double *x, *u, *out, *p_re, *p_im, *r; /* r: ramp phasor (re, im) */
    double *xp_valid, *xp_seg, *xp; /* x_p at the current time, segment xp_seg, if valid */
    double *scale; /* the tunable scaling parameter over its build value */
    double *par_r;
    /* Runge-Kutta mode: the simulator's time (on the grid, or a partial step's end), the
     * grid index, the elevation input's history (newest first from hist + hist_pos, twice
     * over so that it is contiguous) and its FIR on the grid and one sample later */
    double *rk_time, *grid_index, *hist_pos, *hist, *fgrid, *tail;
} dyn_view;

typedef struct {
    char *name;
    fmi2CallbackFunctions cb;
    int logging_on;
    unsigned categories;
    hfn_model md;
    dyn_view d;
    int32_t *par_i;
    char **par_s;
    /* work and caches (not state: functions of the model and the step length) */
    double *w, *xp, *xp1, *xnew, *xtmp, *fused, *rot_re, *rot_im, *dwork;
    int *ipiv;
    double cache_h, cache_hq, rot_h, rot_ramp_re, rot_ramp_im;
    const double *cur_fused;
    int end_seg;   /* the segment whose x_p the step left in xp1 ... */
    double xp1_t;  /* ... at this time (NaN: none) */
    /* Runge-Kutta mode work (not state) */
    double *rk_k[4], *rk_y, *rk_b, *rk_g, *rk_gd, *rk_ge, *rk_v, *rk_save;
    double *pm_re, *pm_im, *pe_re, *pe_im, *rot2_re, *rot2_im, *rk_g2, *p3, *sv;
    double rot2_h;
    int32_t step_limit_index; /* the Integer parameter max_internal_steps_per_call, -1: none */
    /* The matrices in use: the blob's, or rebuilt for the tunable matrix parameters' current
     * values (tun_built; a function of them only, so a restored FMU state rebuilds the same
     * bits). tun_c_ok: C is current; tun_d_ok: F, G and the particular solutions are. */
    const double *cur_F, *cur_G, *cur_xc[8];
    const uint32_t *cur_c_ptr, *cur_c_idx;
    const double *cur_c_val;
    double *tun_built, *tun_F, *tun_G, *tun_C, *tun_xc[8], *tun_c_val, *zwork, *tun_tmp;
    uint32_t *tun_c_ptr, *tun_c_idx;
    int tun_c_ok, tun_d_ok, tun_at_build;
    double w_bad; /* the frequency of a singular solve, rad/s */
} instance;

static void dyn_bind(dyn_view *d, double *block, const hfn_model *md) {
    double *p = block;
    d->block = block;
    d->time = p++; d->t0 = p++; d->phase = p++; d->rot_count = p++; d->dirty = p++;
    d->start_set = p++;
    d->x = p; p += md->n;
    d->u = p; p += md->m;
    d->out = p; p += md->nout;
    d->p_re = p; p += md->k;
    d->p_im = p; p += md->k;
    d->r = p; p += 2;
    d->xp_valid = p++; d->xp_seg = p++;
    d->xp = p; p += md->n;
    d->scale = p++;
    d->par_r = p; p += md->npr;
    d->rk_time = p++; d->grid_index = p++; d->hist_pos = p++;
    d->hist = p; p += 2 * (size_t)md->nk;
    d->fgrid = p; p += md->nq;
    d->tail = p; p += md->nq;
    d->size = (size_t)(p - block);
}

static size_t dyn_size(const hfn_model *md) {
    return 6 + (size_t)md->n + md->m + md->nout + 2 * (size_t)md->k + 2 + 2 + md->n + 1 + md->npr
           + 3 + 2 * (size_t)md->nk + 2 * (size_t)md->nq;
}

static void logf_(instance *c, fmi2Status status, const char *category, const char *fmt, ...) {
    char text[1024], escaped[2100];
    size_t i, j = 0;
    unsigned bit;
    va_list args;
    if (!c || !c->cb.logger || !c->logging_on) return;
    bit = status == fmi2Warning ? 1u : status == fmi2Discard ? 2u
        : status == fmi2Error ? 4u : status == fmi2Fatal ? 8u : 16u;
    if (!(c->categories & (bit | 16u))) return;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    for (i = 0; text[i] && j + 2 < sizeof escaped; i++) {
        if (text[i] == '%' || text[i] == '#') escaped[j++] = text[i];
        escaped[j++] = text[i];
    }
    escaped[j] = '\0';
    c->cb.logger(c->cb.componentEnvironment, c->name, status, category, escaped);
}

#define REFUSE(c, ...) logf_((c), fmi2Error, "logStatusError", __VA_ARGS__)

static int refused(instance *c, int call, const char *fmi_name) {
    int state = (int)*c->d.phase;
    if (ALLOWED[call] & BIT(state)) return 0;
    REFUSE(c, "%s is not allowed in state '%s' (FMI 2.0 co-simulation): %s", fmi_name,
           STATE_NAMES[state], STATE_HINTS[state]);
    return 1;
}

static void cos_sin(double angle, double *c, double *s) { *c = cos(angle); *s = sin(angle); }

/* Phasors at the absolute time t (trigonometry: initialisation, resync, segment ends). */
static void phasors_at(instance *c, double t) {
    uint32_t q;
    for (q = 0; q < c->md.k; q++) cos_sin(c->md.omega[q] * t, &c->d.p_re[q], &c->d.p_im[q]);
    if (c->md.has_ramp) cos_sin(M_PI / c->md.ramp_time * (t - *c->d.t0), &c->d.r[0], &c->d.r[1]);
    else { c->d.r[0] = 1.0; c->d.r[1] = 0.0; }
}

/* Re(sum_q (xr_q + i xi_q)(pr_q + i pi_q)) over k terms, four partial sums. */
static double re_dot(const double *xr, const double *xi, const double *pr, const double *pi_,
                     uint32_t k) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    uint32_t q;
    for (q = 0; q + 2 <= k; q += 2) {
        s0 += xr[q] * pr[q]; s1 += xi[q] * pi_[q];
        s2 += xr[q + 1] * pr[q + 1]; s3 += xi[q + 1] * pi_[q + 1];
    }
    for (; q < k; q++) { s0 += xr[q] * pr[q]; s1 += xi[q] * pi_[q]; }
    return (s0 + s2) - (s1 + s3);
}

/* x_p at the current phasors for segment seg (0: ramp, 1: steady) into xp. */
static void particular(instance *c, int seg, double *xp) {
    const hfn_model *md = &c->md;
    const double *pre = c->d.p_re, *pim = c->d.p_im;
    const double *const *xc = c->cur_xc;
    uint32_t q, a, n = md->n, na = md->nact, k = md->k;
    double scale = *c->d.scale;
    for (a = 0; a < n; a++) xp[a] = 0.0;
    if (seg == 1 || !md->has_ramp) {
        for (a = 0; a < na; a++)
            xp[md->act[a]] = scale * re_dot(xc[0] + (size_t)a * k, xc[1] + (size_t)a * k,
                                            pre, pim, k);
    } else {
        /* p, p r, p conj(r) */
        double rr = c->d.r[0], ri = c->d.r[1];
        double *p3 = c->p3;
        int s;
        for (q = 0; q < k; q++) {
            p3[q] = pre[q]; p3[k + q] = pim[q];
            p3[2 * k + q] = pre[q] * rr - pim[q] * ri; p3[3 * k + q] = pre[q] * ri + pim[q] * rr;
            p3[4 * k + q] = pre[q] * rr + pim[q] * ri; p3[5 * k + q] = pim[q] * rr - pre[q] * ri;
        }
        for (a = 0; a < na; a++) {
            double sum = 0.0;
            for (s = 0; s < 3; s++)
                sum += re_dot(xc[2 + 2 * s] + (size_t)a * k, xc[3 + 2 * s] + (size_t)a * k,
                              p3 + 2 * (size_t)s * k, p3 + (2 * (size_t)s + 1) * k, k);
            xp[md->act[a]] = scale * sum;
        }
    }
}

/* Rebuild what the tunable matrix parameters determine, when their values changed (or a
 * restored state holds other values): C always (cheap), and with dyn F, G and the particular
 * solutions X_k = (i w_k I - F)^{-1} forcing_k (steady; on the ramp 0.5 X_k at w_k and -0.25
 * of the solutions at w_k +- pi/T, as the build computes them). At the build values the
 * blob's matrices (Python's discretisation of h0 among them). Returns 0, or -1 (with the
 * frequency in *w_bad) when a solve is singular: a resonance; nothing is half-used then
 * (tun_d_ok stays 0 and the next call tries again). No allocation. */
static int tunables_current(instance *c, int dyn) {
    const hfn_model *md = &c->md;
    uint32_t j, e, i, q;
    int changed = 0;
    if (!md->ntun) return 0;
    for (j = 0; j < md->ntun; j++)
        if (!(c->d.par_r[md->tun_idx[j]] == c->tun_built[j])) changed = 1;
    if (changed) {
        c->tun_at_build = 1;
        for (j = 0; j < md->ntun; j++) {
            c->tun_built[j] = c->d.par_r[md->tun_idx[j]];
            if (!(c->tun_built[j] == md->par_r[md->tun_idx[j]])) c->tun_at_build = 0;
        }
        c->tun_c_ok = c->tun_d_ok = 0;
        c->cache_h = -1.0; c->cache_hq = -1.0; c->cur_fused = NULL;
    }
    if (!c->tun_c_ok) {
        if (c->tun_at_build) {
            c->cur_c_ptr = md->c_ptr; c->cur_c_idx = md->c_idx; c->cur_c_val = md->c_val;
        } else {
            size_t nz = md->nz, nnz = 0;
            memcpy(c->tun_C, md->C, (size_t)md->nout * nz * sizeof(double));
            for (j = 0; j < md->ntun; j++) {
                double dp = c->tun_built[j] - md->par_r[md->tun_idx[j]];
                for (e = md->tun_ptr[3 * j + 2]; e < md->tun_ptr[3 * j + 3]; e++)
                    c->tun_C[(size_t)md->tun_row[e] * nz + md->tun_col[e]] += dp * md->tun_val[e];
            }
            for (i = 0; i < md->nout; i++) { /* nonzeros by row, as the reader's */
                c->tun_c_ptr[i] = (uint32_t)nnz;
                for (q = 0; q < nz; q++) {
                    double v = c->tun_C[(size_t)i * nz + q];
                    if (v != 0.0) { c->tun_c_idx[nnz] = q; c->tun_c_val[nnz] = v; nnz++; }
                }
            }
            c->tun_c_ptr[md->nout] = (uint32_t)nnz;
            c->cur_c_ptr = c->tun_c_ptr; c->cur_c_idx = c->tun_c_idx;
            c->cur_c_val = c->tun_c_val;
        }
        c->tun_c_ok = 1;
    }
    if (dyn && !c->tun_d_ok) {
        if (c->tun_at_build) {
            c->cur_F = md->F; c->cur_G = md->G;
            for (q = 0; q < 8; q++) c->cur_xc[q] = md->xc[q];
        } else {
            uint32_t n = md->n, ng = md->m + 1, s;
            double nu = md->has_ramp ? M_PI / md->ramp_time : 0.0;
            memcpy(c->tun_F, md->F, (size_t)n * n * sizeof(double));
            memcpy(c->tun_G, md->G, (size_t)n * ng * sizeof(double));
            for (j = 0; j < md->ntun; j++) {
                double dp = c->tun_built[j] - md->par_r[md->tun_idx[j]];
                for (e = md->tun_ptr[3 * j]; e < md->tun_ptr[3 * j + 1]; e++)
                    c->tun_F[(size_t)md->tun_row[e] * n + md->tun_col[e]] += dp * md->tun_val[e];
                for (e = md->tun_ptr[3 * j + 1]; e < md->tun_ptr[3 * j + 2]; e++)
                    c->tun_G[(size_t)md->tun_row[e] * ng + md->tun_col[e]] += dp * md->tun_val[e];
            }
            c->cur_F = c->tun_F; c->cur_G = c->tun_G; /* nact == n: every state active */
            /* the Runge-Kutta mode's X is the forcing itself: it does not depend on p */
            for (q = 0; q < md->k && !md->rk; q++) {
                const double *br = md->forc_re + (size_t)q * n, *bi = md->forc_im + (size_t)q * n;
                double *xr = c->tun_tmp, *xi = c->tun_tmp + n;
                size_t k = md->k;
                if (hfn_particular((int)n, c->tun_F, md->omega[q], br, bi, xr, xi, c->zwork,
                                   c->ipiv) != 0) {
                    c->w_bad = md->omega[q];
                    return -1;
                }
                for (i = 0; i < n; i++) { /* X's columns contiguous over the components */
                    c->tun_xc[0][i * k + q] = xr[i];
                    c->tun_xc[1][i * k + q] = xi[i];
                }
                if (!md->has_ramp) continue;
                for (i = 0; i < n; i++) {
                    c->tun_xc[2][i * k + q] = 0.5 * xr[i];
                    c->tun_xc[3][i * k + q] = 0.5 * xi[i];
                }
                for (s = 1; s < 3; s++) {
                    double ws = s == 1 ? md->omega[q] + nu : md->omega[q] - nu;
                    if (hfn_particular((int)n, c->tun_F, ws, br, bi, xr, xi, c->zwork,
                                       c->ipiv) != 0) {
                        c->w_bad = ws;
                        return -1;
                    }
                    for (i = 0; i < n; i++) {
                        c->tun_xc[2 + 2 * s][i * k + q] = -0.25 * xr[i];
                        c->tun_xc[3 + 2 * s][i * k + q] = -0.25 * xi[i];
                    }
                }
            }
            for (q = 0; q < 8 && !md->rk; q++) c->cur_xc[q] = c->tun_xc[q];
        }
        c->tun_d_ok = 1;
    }
    return 0;
}

static double ramp_factor(const instance *c, double t) {
    double s = t - *c->d.t0, T = c->md.ramp_time;
    if (T <= 0.0 || s >= T) return 1.0;
    if (s <= 0.0) return 0.0;
    return 0.5 * (1.0 - c->d.r[0]);
}

static double half_cosine(double s, double T);
static double rk_grid_time(const instance *c);
static void rk_record(instance *c, double v, int push);
static void rk_forces(instance *c, double t, double s, const double *y);
static double rk_elevation(const instance *c, double s, double u);

static void compute_outputs(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t i, j, nz = md->nz;
    double *w = c->w, *out = c->d.out, rf, s_rk = 0.0;
    const uint32_t *c_ptr, *c_idx;
    const double *c_val;
    if (md->rk) { /* on the grid, the elevation input just set is the newest sample */
        s_rk = *c->d.rk_time - rk_grid_time(c);
        if (md->has_input && s_rk <= 1e-9 * md->dt) rk_record(c, c->d.u[md->in_index], 0);
    }
    tunables_current(c, 0);
    c_ptr = c->cur_c_ptr; c_idx = c->cur_c_idx; c_val = c->cur_c_val;
    for (i = 0; i < md->n; i++) w[i] = c->d.x[i];
    for (i = 0; i < md->m; i++) w[md->n + i] = c->d.u[i];
    w[nz - 1] = 1.0;
    for (i = 0; i < md->nout; i++) {
        double s = 0.0;
        for (j = c_ptr[i]; j < c_ptr[i + 1]; j++) s += c_val[j] * w[c_idx[j]];
        out[i] = s;
    }
    rf = (md->rk ? half_cosine(*c->d.rk_time - *c->d.t0, md->ramp_time)
                 : ramp_factor(c, *c->d.time)) * *c->d.scale;
    if (rf != 0.0 && md->k && md->nfac) { /* H = O S: the r sinusoid signals, then O */
        const double *pr = c->d.p_re, *pi_ = c->d.p_im;
        uint32_t k = md->k, r = md->nfac;
        for (j = 0; j < r; j++)
            c->sv[j] = re_dot(md->fs_re + (size_t)j * k, md->fs_im + (size_t)j * k, pr, pi_, k);
        for (i = 0; i < md->nh; i++) {
            const double *o = md->fo + (size_t)i * r;
            double s = 0.0;
            for (j = 0; j < r; j++) s += o[j] * c->sv[j];
            out[md->hrows[i]] += rf == 1.0 ? s : rf * s;
        }
    } else if (rf != 0.0 && md->k) {
        const double *pr = c->d.p_re, *pi_ = c->d.p_im;
        uint32_t k = md->k;
        for (i = 0; i < md->nh; i++) {
            double s = re_dot(md->h_re + (size_t)i * k, md->h_im + (size_t)i * k, pr, pi_, k);
            out[md->hrows[i]] += rf == 1.0 ? s : rf * s;
        }
    }
    if (md->rk && (md->has_drag || md->has_input)) { /* + OG [g_drag; g_exc] */
        double *g = c->rk_g2;
        rk_forces(c, *c->d.rk_time, s_rk, c->d.x);
        for (i = 0; i < md->nq; i++) {
            g[i] = md->has_drag ? c->rk_gd[i] : 0.0;
            g[md->nq + i] = md->has_input ? c->rk_ge[i] : 0.0;
        }
        for (i = 0; i < md->nout; i++) {
            double s = 0.0;
            for (j = md->og_ptr[i]; j < md->og_ptr[i + 1]; j++) s += md->og_val[j] * g[md->og_idx[j]];
            out[i] += s;
        }
        if (md->has_input)
            out[md->elev_row] = half_cosine(*c->d.rk_time - *c->d.t0, md->wave_ramp)
                                * rk_elevation(c, s_rk, c->d.u[md->in_index]);
    }
    for (i = 0; i < md->nprod; i++)
        out[md->prod_i[i]] = md->prod_c[i] * out[md->prod_j[i]] * out[md->prod_l[i]];
    *c->d.dirty = 0.0;
}

/* The fused [Phi | Gamma] of a step length (cached; the precomputed one when it matches). */
static const double *matrices(instance *c, double h) {
    double hq;
    if (h == c->cache_h) return c->cur_fused;
    hq = hfn_quantized_step(h);
    if (hq == hfn_quantized_step(c->md.h0) && c->tun_at_build) {
        c->cur_fused = c->md.fused0;
    } else if (hq == c->cache_hq && c->cur_fused == c->fused) {
        /* same quantized length as the computed one */
    } else {
        if (hfn_discretize((int)c->md.n, (int)c->md.m + 1, c->cur_F, c->cur_G, hq, c->fused,
                           c->dwork, c->ipiv) != 0)
            return NULL;
        c->cache_hq = hq;
        c->cur_fused = c->fused;
    }
    c->cache_h = h;
    return c->cur_fused;
}

/* xnew <- xp1 + fused [x - xp0; u; 1]. */
static void propagate(instance *c, const double *x, const double *fused, const double *xp0,
                      const double *xp1) {
    const hfn_model *md = &c->md;
    uint32_t i, j, n = md->n, nz = md->nz;
    double *w = c->w;
    for (i = 0; i < n; i++) w[i] = x[i] - xp0[i];
    for (i = 0; i < md->m; i++) w[n + i] = c->d.u[i];
    w[nz - 1] = 1.0;
    /* Eight rows at a time: eight independent sums (each row's own order is kept). */
    for (i = 0; i + 8 <= n; i += 8) {
        const double *r = fused + (size_t)i * nz;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
        for (j = 0; j < nz; j++) {
            double wj = w[j];
            s0 += r[j] * wj; s1 += r[nz + j] * wj; s2 += r[2 * nz + j] * wj;
            s3 += r[3 * nz + j] * wj; s4 += r[4 * nz + j] * wj; s5 += r[5 * nz + j] * wj;
            s6 += r[6 * nz + j] * wj; s7 += r[7 * nz + j] * wj;
        }
        c->xnew[i] = xp1[i] + s0; c->xnew[i + 1] = xp1[i + 1] + s1;
        c->xnew[i + 2] = xp1[i + 2] + s2; c->xnew[i + 3] = xp1[i + 3] + s3;
        c->xnew[i + 4] = xp1[i + 4] + s4; c->xnew[i + 5] = xp1[i + 5] + s5;
        c->xnew[i + 6] = xp1[i + 6] + s6; c->xnew[i + 7] = xp1[i + 7] + s7;
    }
    for (; i < n; i++) {
        const double *row = fused + (size_t)i * nz;
        double s = 0.0;
        for (j = 0; j < nz; j++) s += row[j] * w[j];
        c->xnew[i] = xp1[i] + s;
    }
}

static void rotate(instance *c, double h) {
    uint32_t q;
    double rr, ri;
    if (h != c->rot_h) {
        for (q = 0; q < c->md.k; q++) cos_sin(c->md.omega[q] * h, &c->rot_re[q], &c->rot_im[q]);
        if (c->md.has_ramp) cos_sin(M_PI / c->md.ramp_time * h, &c->rot_ramp_re, &c->rot_ramp_im);
        c->rot_h = h;
    }
    for (q = 0; q < c->md.k; q++) {
        double a = c->d.p_re[q], b = c->d.p_im[q];
        c->d.p_re[q] = a * c->rot_re[q] - b * c->rot_im[q];
        c->d.p_im[q] = a * c->rot_im[q] + b * c->rot_re[q];
    }
    rr = c->d.r[0]; ri = c->d.r[1];
    c->d.r[0] = rr * c->rot_ramp_re - ri * c->rot_ramp_im;
    c->d.r[1] = rr * c->rot_ramp_im + ri * c->rot_ramp_re;
}

static int segment_of(const instance *c, double t) {
    if (c->md.has_ramp && c->md.k && t < *c->d.t0 + c->md.ramp_time) return 0;
    return 1;
}

/* One communication step from the current time t to t_end with the held inputs. */
static int advance(instance *c, double t, double t_end) {
    const hfn_model *md = &c->md;
    double seg_end;
    int seg = segment_of(c, t);
    c->xp1_t = NAN;
    seg_end = seg == 0 ? *c->d.t0 + md->ramp_time : INFINITY;
    if (t_end <= seg_end && t_end > t) {
        const double *fused = matrices(c, t_end - t);
        if (!fused) return -1;
        if (*c->d.xp_valid != 0.0 && *c->d.xp_seg == (double)seg) /* phasors: FMU time */
            memcpy(c->xp, c->d.xp, md->n * sizeof(double)); /* the last step's end */
        else
            particular(c, seg, c->xp);
        if (*c->d.rot_count + 1.0 >= RESYNC_STEPS) {
            phasors_at(c, t_end);
            *c->d.rot_count = 0.0;
        } else {
            rotate(c, t_end - t);
            *c->d.rot_count += 1.0;
        }
        particular(c, seg, c->xp1);
        c->end_seg = seg; c->xp1_t = t_end;
        propagate(c, c->d.x, fused, c->xp, c->xp1);
        return 0;
    }
    /* Split where the segment ends (the end of the ramp): trigonometry for the phasors. */
    memcpy(c->xnew, c->d.x, md->n * sizeof(double));
    while (t < t_end) {
        double t_next, hs;
        const double *fused;
        seg = segment_of(c, t);
        seg_end = seg == 0 ? *c->d.t0 + md->ramp_time : INFINITY;
        t_next = seg_end > t ? (t_end < seg_end ? t_end : seg_end) : t_end;
        hs = t_next - t;
        if (hs <= 1e-12 * fmax(1.0, fabs(t_end))) { t = t_next; continue; }
        fused = matrices(c, hs);
        if (!fused) return -1;
        phasors_at(c, t);
        particular(c, seg, c->xp);
        phasors_at(c, t_next);
        particular(c, seg, c->xp1);
        c->end_seg = seg; c->xp1_t = t_next;
        memcpy(c->xtmp, c->xnew, md->n * sizeof(double));
        propagate(c, c->xtmp, fused, c->xp, c->xp1);
        t = t_next;
    }
    phasors_at(c, t_end);
    *c->d.rot_count = 0.0;
    return 0;
}

/* ------------------------------------------------------------------ Runge-Kutta mode */
/* The Python rk4 scheme's internal steps, term for term: quadratic drag and the elevation
 * input's excitation are evaluated at every stage (see hydrofmu_native.h). */
static double half_cosine(double s, double T) {
    if (T <= 0.0 || s >= T) return 1.0;
    if (s <= 0.0) return 0.0;
    return 0.5 * (1.0 - cos(M_PI * s / T));
}

static double rk_grid_time(const instance *c) { return *c->d.t0 + *c->d.grid_index * c->md.dt; }

/* How far a time may be from a grid time and still be it (Simulator.grid_tolerance). */
static double rk_grid_tolerance(const instance *c, double t) {
    double at = fabs(t), ulp = nextafter(at, INFINITY) - at, dt = c->md.dt;
    return fmin(0.25 * dt, fmax(1e-9 * dt, ulp * fmax(8.0, (t - *c->d.t0) / dt)));
}

/* out[i] = sum_{j < count} KW[i, from + j] h[j] (four independent sums per row). */
static void rk_fir(const instance *c, const double *h, uint32_t from, uint32_t count,
                   double *out) {
    uint32_t i, j, nk = c->md.nk;
    for (i = 0; i < c->md.nq; i++) {
        const double *kw = c->md.KW + (size_t)i * nk + from;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        if (!c->md.kw_used[i]) { out[i] = 0.0; continue; } /* a DOF the wave does not excite */
        for (j = 0; j + 4 <= count; j += 4) {
            s0 += kw[j] * h[j]; s1 += kw[j + 1] * h[j + 1];
            s2 += kw[j + 2] * h[j + 2]; s3 += kw[j + 3] * h[j + 3];
        }
        for (; j < count; j++) s0 += kw[j] * h[j];
        out[i] = (s0 + s1) + (s2 + s3);
    }
}

static const double *rk_view(const instance *c) { return c->d.hist + (size_t)*c->d.hist_pos; }

/* The elevation input at the newest grid time: a new sample (push) or a better value for
 * the same instant (overwrite); the FIRs on the grid and one sample later follow. */
static void rk_record(instance *c, double v, int push) {
    uint32_t i, nk = c->md.nk;
    size_t pos;
    if (!c->md.has_input) return;
    if (push) *c->d.hist_pos = (double)(((uint32_t)*c->d.hist_pos + nk - 1u) % nk);
    pos = (size_t)*c->d.hist_pos;
    c->d.hist[pos] = v;
    c->d.hist[pos + nk] = v;
    if (push) /* the new grid FIR is the last one-sample-later FIR at this input */
        for (i = 0; i < c->md.nq; i++)
            c->d.fgrid[i] = c->md.KW[(size_t)i * nk] * v + c->d.tail[i];
    else
        rk_fir(c, rk_view(c), 0, nk, c->d.fgrid);
    rk_fir(c, rk_view(c), 1, nk - 1, c->d.tail);
}

static void rk_start(instance *c) {
    const hfn_model *md = &c->md;
    memset(c->d.hist, 0, 2 * (size_t)md->nk * sizeof(double));
    memset(c->d.fgrid, 0, md->nq * sizeof(double));
    memset(c->d.tail, 0, md->nq * sizeof(double));
    *c->d.hist_pos = 0.0;
    *c->d.grid_index = 0.0;
    *c->d.rk_time = *c->d.t0;
    if (md->has_input) rk_record(c, c->d.u[md->in_index], 1); /* calm sea before t0 */
}

/* The excitation by the elevation input at s after the newest grid time, input u held:
 * linear between the grid FIR and the one a sample later. */
static void rk_excitation(const instance *c, double s, double u, double *out) {
    uint32_t i, nk = c->md.nk;
    double a;
    if (s <= 0.0) { memcpy(out, c->d.fgrid, c->md.nq * sizeof(double)); return; }
    a = s / c->md.dt;
    for (i = 0; i < c->md.nq; i++)
        out[i] = (1.0 - a) * c->d.fgrid[i] + a * (c->md.KW[(size_t)i * nk] * u + c->d.tail[i]);
}

/* The elevation at s after the newest grid time: the input received preview s before. */
static double rk_elevation(const instance *c, double s, double u) {
    const double *h = rk_view(c);
    double x = c->md.preview_steps - s / c->md.dt, a;
    uint32_t i;
    if (x < 0.0) { a = fmin(1.0, -x); return (1.0 - a) * h[0] + a * u; }
    if (!(x < (double)(c->md.nk - 1u))) return h[c->md.nk - 1u];
    i = (uint32_t)x;
    a = x - (double)i;
    return (1.0 - a) * h[i] + a * h[i + 1];
}

/* The DOF forces of the drag (rk_gd) and of the elevation input (rk_ge) at (t, s, y). */
static void rk_forces(instance *c, double t, double s, const double *y) {
    const hfn_model *md = &c->md;
    uint32_t i, j, n = md->n, nq = md->nq;
    if (md->has_drag) {
        for (i = 0; i < nq; i++) {
            const double *row = md->V + (size_t)i * n;
            double v = 0.0;
            for (j = 0; j < n; j++) v += row[j] * y[j];
            c->rk_v[i] = v;
        }
        for (i = 0; i < nq; i++) {
            const double *row = md->BL + (size_t)i * nq;
            double f = 0.0, v = c->rk_v[i];
            for (j = 0; j < nq; j++) f += row[j] * c->rk_v[j];
            c->rk_gd[i] = -f - md->BQ[i] * v * fabs(v);
        }
    }
    if (md->has_input) {
        double rw = half_cosine(t - *c->d.t0, md->wave_ramp);
        rk_excitation(c, s, c->d.u[md->in_index], c->rk_ge);
        for (i = 0; i < nq; i++) c->rk_ge[i] *= rw;
    }
}

/* dy = F y + G [u; 1] + ramp Re(sum X_k p_k) + EG (g_drag + g_exc) at (t, s, y, p). */
static void rk_deriv(instance *c, double t, double s, const double *y, const double *pre,
                     const double *pim, double *dy) {
    const hfn_model *md = &c->md;
    uint32_t i, j, n = md->n, nq = md->nq, na = md->nact;
    if (c->cur_F == md->F) { /* F's nonzeros by row */
        for (i = 0; i < n; i++) {
            double sum = 0.0;
            for (j = md->f_ptr[i]; j < md->f_ptr[i + 1]; j++)
                sum += md->f_val[j] * y[md->f_idx[j]];
            dy[i] = sum + c->rk_b[i];
        }
    } else { /* rebuilt for the tunable parameters' values */
        for (i = 0; i < n; i++) {
            const double *row = c->cur_F + (size_t)i * n;
            double sum = 0.0;
            for (j = 0; j < n; j++) sum += row[j] * y[j];
            dy[i] = sum + c->rk_b[i];
        }
    }
    if (md->k) {
        double rf = half_cosine(t - *c->d.t0, md->ramp_time) * *c->d.scale;
        if (rf != 0.0)
            for (i = 0; i < na; i++)
                dy[md->act[i]] += rf * re_dot(c->cur_xc[0] + (size_t)i * md->k,
                                              c->cur_xc[1] + (size_t)i * md->k, pre, pim, md->k);
    }
    if (md->has_drag || md->has_input) {
        rk_forces(c, t, s, y);
        for (i = 0; i < nq; i++)
            c->rk_g[i] = (md->has_drag ? c->rk_gd[i] : 0.0) + (md->has_input ? c->rk_ge[i] : 0.0);
        for (i = 0; i < n; i++) {
            const double *row = md->EG + (size_t)i * nq;
            double f = 0.0;
            for (j = 0; j < nq; j++) f += row[j] * c->rk_g[j];
            dy[i] += f;
        }
    }
}

/* One classical RK4 step from (t, x) by h into xnew; the phasors at t + h into pe. */
static void rk_step(instance *c, double t, double h, double t_grid) {
    static const double B[4] = {1.0 / 6.0, 2.0 / 6.0, 2.0 / 6.0, 1.0 / 6.0};
    const hfn_model *md = &c->md;
    uint32_t i, q, n = md->n;
    const double *y = c->d.x;
    double **k = c->rk_k, tm = t + 0.5 * h, te = t + 1.0 * h;
    /* The phasors turn by the step; a grid step is dt itself (the float differences of the
     * grid times t0 + j dt differ from it by their rounding only): one rotation for all. */
    double hr = fabs(h - md->dt) <= 1e-9 * md->dt ? md->dt : h;
    if (hr != c->rot_h) {
        for (q = 0; q < md->k; q++) cos_sin(md->omega[q] * hr, &c->rot_re[q], &c->rot_im[q]);
        c->rot_h = hr;
    }
    if (hr != c->rot2_h) {
        for (q = 0; q < md->k; q++)
            cos_sin(md->omega[q] * (0.5 * hr), &c->rot2_re[q], &c->rot2_im[q]);
        c->rot2_h = hr;
    }
    for (q = 0; q < md->k; q++) {
        double a = c->d.p_re[q], b = c->d.p_im[q];
        c->pm_re[q] = a * c->rot2_re[q] - b * c->rot2_im[q];
        c->pm_im[q] = a * c->rot2_im[q] + b * c->rot2_re[q];
        c->pe_re[q] = a * c->rot_re[q] - b * c->rot_im[q];
        c->pe_im[q] = a * c->rot_im[q] + b * c->rot_re[q];
    }
    rk_deriv(c, t, t - t_grid, y, c->d.p_re, c->d.p_im, k[0]);
    for (i = 0; i < n; i++) c->rk_y[i] = y[i] + h * (0.5 * k[0][i]);
    rk_deriv(c, tm, tm - t_grid, c->rk_y, c->pm_re, c->pm_im, k[1]);
    for (i = 0; i < n; i++) c->rk_y[i] = y[i] + h * (0.5 * k[1][i]);
    rk_deriv(c, tm, tm - t_grid, c->rk_y, c->pm_re, c->pm_im, k[2]);
    for (i = 0; i < n; i++) c->rk_y[i] = y[i] + h * k[2][i];
    rk_deriv(c, te, te - t_grid, c->rk_y, c->pe_re, c->pe_im, k[3]);
    for (i = 0; i < n; i++)
        c->xnew[i] = y[i] + h * (B[0] * k[0][i] + B[1] * k[1][i] + B[2] * k[2][i] + B[3] * k[3][i]);
}

/* The internal steps to t_end (Simulator._advance); -1 when the state diverges (at the
 * time *t_fail, with the step *h_fail and the size *norm), the block then to be restored. */
static int rk_advance(instance *c, double t_end, double *t_fail, double *h_fail, double *norm) {
    const hfn_model *md = &c->md;
    double eps = rk_grid_tolerance(c, t_end), time = *c->d.rk_time;
    uint32_t i;
    for (i = 0; i < md->n; i++)
        c->rk_b[i] = c->cur_G[(size_t)i * (md->m + 1) + md->m];
    for (i = 0; i < md->n; i++) {
        const double *row = c->cur_G + (size_t)i * (md->m + 1);
        uint32_t j;
        double sum = 0.0;
        for (j = 0; j < md->m; j++) sum += row[j] * c->d.u[j];
        c->rk_b[i] += sum;
    }
    if (fabs(time - rk_grid_time(c)) <= eps) { /* on the grid: step from the grid time */
        time = rk_grid_time(c);
        if (md->has_input) rk_record(c, c->d.u[md->in_index], 0);
    }
    while (time < t_end - eps) {
        double t_grid = rk_grid_time(c), big = 0.0;
        double t_grid_next = *c->d.t0 + (*c->d.grid_index + 1.0) * md->dt;
        int on_grid = t_grid_next <= t_end + eps;
        double t_next = on_grid ? t_grid_next : t_end, h = t_next - time;
        rk_step(c, time, h, t_grid);
        for (i = 0; i < md->n; i++) {
            double a = fabs(c->xnew[i]);
            if (!(a <= big)) big = a; /* NaN wins */
        }
        if (!(big <= md->div_limit)) { *t_fail = t_next; *h_fail = h; *norm = big; return -1; }
        memcpy(c->d.x, c->xnew, md->n * sizeof(double));
        memcpy(c->d.p_re, c->pe_re, md->k * sizeof(double));
        memcpy(c->d.p_im, c->pe_im, md->k * sizeof(double));
        time = t_next;
        if (on_grid) {
            *c->d.grid_index += 1.0;
            time = rk_grid_time(c);
            if (md->has_input) rk_record(c, c->d.u[md->in_index], 1);
        }
        *c->d.rot_count += 1.0;
        if (*c->d.rot_count >= RESYNC_STEPS) { phasors_at(c, time); *c->d.rot_count = 0.0; }
    }
    *c->d.rk_time = time;
    return 0;
}

/* ------------------------------------------------------------------ FMI: life cycle */
static char *dup_string(const char *s) {
    size_t len = strlen(s);
    char *d = (char *)malloc(len + 1);
    if (d) memcpy(d, s, len + 1);
    return d;
}

static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* file:///a/b%20c -> /a/b c (every %XX decoded); Windows: file:///C:/x -> C:/x. */
static char *uri_to_path(const char *uri) {
    const char *p = uri;
    char *out, *o;
    if (strncmp(p, "file://", 7) == 0) {
        p += 7;
        if (strncmp(p, "localhost", 9) == 0) p += 9;
    } else if (strncmp(p, "file:", 5) == 0) {
        p += 5;
    }
#ifdef _WIN32
    if (p[0] == '/' && p[1] && p[2] == ':') p++;
#endif
    out = o = (char *)malloc(strlen(p) + 32);
    if (!out) return NULL;
    while (*p) {
        if (p[0] == '%' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
            *o++ = (char)(hexval(p[1]) * 16 + hexval(p[2]));
            p += 3;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long len;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    data = (unsigned char *)malloc((size_t)len + 1);
    if (data && fread(data, 1, (size_t)len, f) != (size_t)len) { free(data); data = NULL; }
    fclose(f);
    *size = (size_t)len;
    return data;
}

static void free_instance(instance *c) {
    if (!c) return;
    free(c->name); free(c->d.block); free(c->w); free(c->xp); free(c->xp1); free(c->xnew); free(c->xtmp);
    free(c->fused); free(c->rot_re); free(c->rot_im); free(c->dwork); free(c->ipiv);
    {
        int q;
        double *rk[] = {c->rk_k[0], c->rk_k[1], c->rk_k[2], c->rk_k[3], c->rk_y, c->rk_b,
                        c->rk_g, c->rk_gd, c->rk_ge, c->rk_v, c->rk_save, c->pm_re, c->pm_im,
                        c->pe_re, c->pe_im, c->rot2_re, c->rot2_im, c->rk_g2, c->p3,
                        c->sv};
        for (q = 0; q < (int)(sizeof rk / sizeof rk[0]); q++) free(rk[q]);
    }
    free(c->par_i);
    free(c->tun_built); free(c->tun_F); free(c->tun_G); free(c->tun_C); free(c->tun_c_val);
    free(c->zwork); free(c->tun_tmp); free(c->tun_c_ptr); free(c->tun_c_idx);
    { int q; for (q = 0; q < 8; q++) free(c->tun_xc[q]); }
    if (c->par_s) {
        uint32_t i;
        for (i = 0; i < c->md.nps; i++) free(c->par_s[i]);
        free(c->par_s);
    }
    hfn_model_free(&c->md);
    free(c);
}

static void reset_values(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t i;
    memset(c->d.block, 0, c->d.size * sizeof(double));
    *c->d.phase = ST_INSTANTIATED;
    *c->d.t0 = md->t0_build;
    *c->d.time = md->t0_build;
    *c->d.dirty = 1.0;
    *c->d.scale = 1.0;
    memcpy(c->d.u, md->u0, md->m * sizeof(double));
    memcpy(c->d.x, md->y0, md->n * sizeof(double));
    memcpy(c->d.par_r, md->par_r, md->npr * sizeof(double));
    for (i = 0; i < md->npi; i++) c->par_i[i] = md->par_i[i];
    for (i = 0; i < md->nps; i++) { free(c->par_s[i]); c->par_s[i] = dup_string(md->par_s[i]); }
    c->cache_h = -1.0; c->cache_hq = -1.0; c->rot_h = -1.0; c->rot2_h = -1.0;
    c->rot_ramp_re = 1.0; c->rot_ramp_im = 0.0;
    c->cur_fused = NULL;
    /* the blob's matrices; tunables_current() rebuilds them when a value differs */
    c->cur_F = md->F; c->cur_G = md->G;
    for (i = 0; i < 8; i++) c->cur_xc[i] = md->xc[i];
    c->cur_c_ptr = md->c_ptr; c->cur_c_idx = md->c_idx; c->cur_c_val = md->c_val;
    for (i = 0; i < md->ntun; i++) c->tun_built[i] = md->par_r[md->tun_idx[i]];
    c->tun_c_ok = c->tun_d_ok = c->tun_at_build = 1;
}

static void plain_log(const fmi2CallbackFunctions *cb, const char *name, const char *msg) {
    if (cb && cb->logger) cb->logger(cb->componentEnvironment, name, fmi2Error, "logStatusError",
                                     "%s", msg);
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn) {
    instance *c;
    char err[512], *dir, *path;
    unsigned char *data;
    size_t size = 0, nb;
    const char *name = instanceName ? instanceName : "";
    (void)visible;
    if (!functions || !functions->logger) return NULL;
    if (!instanceName || !instanceName[0]) {
        plain_log(functions, name, "fmi2Instantiate: instanceName must be a non-empty string");
        return NULL;
    }
    if (fmuType != fmi2CoSimulation) {
        plain_log(functions, name, "fmi2Instantiate: this FMU supports co-simulation only");
        return NULL;
    }
    if (!fmuResourceLocation) {
        plain_log(functions, name, "fmi2Instantiate: no resource location was given");
        return NULL;
    }
    dir = uri_to_path(fmuResourceLocation);
    if (!dir) return NULL;
    path = (char *)malloc(strlen(dir) + 32);
    if (!path) { free(dir); return NULL; }
    snprintf(path, strlen(dir) + 32, "%s%smodel.bin", dir,
             (dir[0] && dir[strlen(dir) - 1] == '/') ? "" : "/");
    free(dir);
    data = read_file(path, &size);
    if (!data) {
        char msg[1200];
        snprintf(msg, sizeof msg, "fmi2Instantiate: cannot read the model file '%.1000s': the "
                 "FMU is incomplete or the resource location is wrong", path);
        plain_log(functions, name, msg);
        free(path);
        return NULL;
    }
    free(path);
    c = (instance *)calloc(1, sizeof *c);
    if (!c) { free(data); return NULL; }
    c->cb = *functions;
    c->name = dup_string(name);
    c->logging_on = loggingOn ? 1 : 0;
    c->categories = 0x1Fu;
    if (hfn_model_read(&c->md, data, size, err, sizeof err) != 0) {
        free(data);
        plain_log(functions, name, err);
        free_instance(c);
        return NULL;
    }
    free(data);
    if (fmuGUID && c->md.guid && strcmp(fmuGUID, c->md.guid) != 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "fmi2Instantiate: GUID '%.200s' does not match the model's "
                 "'%.200s' (the model description and resources/model.bin come from different "
                 "builds)", fmuGUID, c->md.guid);
        plain_log(functions, name, msg);
        free_instance(c);
        return NULL;
    }
    nb = (size_t)c->md.n + c->md.m + 1;
    c->d.block = (double *)calloc(dyn_size(&c->md), sizeof(double));
    c->w = (double *)calloc(c->md.nz + 1, sizeof(double));
    c->xp = (double *)calloc(c->md.n + 1, sizeof(double));
    c->xp1 = (double *)calloc(c->md.n + 1, sizeof(double));
    c->xnew = (double *)calloc(c->md.n + 1, sizeof(double));
    c->xtmp = (double *)calloc(c->md.n + 1, sizeof(double));
    c->fused = (double *)calloc((size_t)c->md.n * c->md.nz + 1, sizeof(double));
    c->rot_re = (double *)calloc(c->md.k + 1, sizeof(double));
    c->rot_im = (double *)calloc(c->md.k + 1, sizeof(double));
    c->dwork = (double *)calloc(8 * nb * nb + 1, sizeof(double));
    c->ipiv = (int *)calloc(nb + 1, sizeof(int));
    c->par_i = (int32_t *)calloc(c->md.npi + 1, sizeof(int32_t));
    c->par_s = (char **)calloc(c->md.nps + 1, sizeof(char *));
    {
        size_t n1 = (size_t)c->md.n + 1, q1 = (size_t)c->md.nq + 1, k1 = (size_t)c->md.k + 1;
        int q;
        for (q = 0; q < 4; q++) c->rk_k[q] = (double *)calloc(n1, sizeof(double));
        c->rk_y = (double *)calloc(n1, sizeof(double));
        c->rk_b = (double *)calloc(n1, sizeof(double));
        c->rk_g = (double *)calloc(q1, sizeof(double));
        c->rk_gd = (double *)calloc(q1, sizeof(double));
        c->rk_ge = (double *)calloc(q1, sizeof(double));
        c->rk_v = (double *)calloc(q1, sizeof(double));
        c->rk_g2 = (double *)calloc(2 * q1, sizeof(double));
        c->rk_save = (double *)calloc(dyn_size(&c->md), sizeof(double));
        c->pm_re = (double *)calloc(k1, sizeof(double));
        c->pm_im = (double *)calloc(k1, sizeof(double));
        c->pe_re = (double *)calloc(k1, sizeof(double));
        c->pe_im = (double *)calloc(k1, sizeof(double));
        c->rot2_re = (double *)calloc(k1, sizeof(double));
        c->rot2_im = (double *)calloc(k1, sizeof(double));
        c->p3 = (double *)calloc(6 * k1, sizeof(double));
        c->sv = (double *)calloc((size_t)c->md.nfac + 1, sizeof(double));
        if (!c->rk_k[0] || !c->rk_k[1] || !c->rk_k[2] || !c->rk_k[3] || !c->rk_y || !c->rk_b ||
            !c->rk_g || !c->rk_gd || !c->rk_ge || !c->rk_v || !c->rk_g2 || !c->rk_save ||
            !c->pm_re || !c->pm_im || !c->pe_re || !c->pe_im || !c->rot2_re || !c->rot2_im ||
            !c->p3 || !c->sv) {
            plain_log(functions, name, "fmi2Instantiate: out of memory");
            free_instance(c);
            return NULL;
        }
        c->step_limit_index = -1;
        for (q = 0; q < (int)c->md.npi; q++)
            if (strcmp(c->md.names[c->md.npr + (uint32_t)q], "max_internal_steps_per_call") == 0)
                c->step_limit_index = q;
    }
    if (c->md.ntun) { /* the rebuilt matrices of the tunable matrix parameters */
        uint32_t q;
        size_t nnz = 0;
        int lost = 0;
        for (q = 0; q < c->md.nout; q++) nnz += c->md.c_ptr[q + 1] - c->md.c_ptr[q];
        nnz += c->md.tun_ptr[3 * c->md.ntun]; /* C's pattern grows by dC's at most */
        c->tun_built = (double *)calloc(c->md.ntun, sizeof(double));
        c->tun_F = (double *)calloc((size_t)c->md.n * c->md.n + 1, sizeof(double));
        c->tun_G = (double *)calloc((size_t)c->md.n * (c->md.m + 1) + 1, sizeof(double));
        c->tun_C = (double *)calloc((size_t)c->md.nout * c->md.nz + 1, sizeof(double));
        c->tun_c_val = (double *)calloc(nnz + 1, sizeof(double));
        c->tun_c_idx = (uint32_t *)calloc(nnz + 1, sizeof(uint32_t));
        c->tun_c_ptr = (uint32_t *)calloc((size_t)c->md.nout + 1, sizeof(uint32_t));
        c->zwork = (double *)calloc(2 * (size_t)c->md.n * c->md.n + 2 * (size_t)c->md.n + 1,
                                    sizeof(double));
        c->tun_tmp = (double *)calloc(2 * (size_t)c->md.n + 1, sizeof(double));
        for (q = 0; q < 8; q++) {
            c->tun_xc[q] = (double *)calloc((size_t)c->md.k * c->md.n + 1, sizeof(double));
            if (!c->tun_xc[q]) lost = 1;
        }
        if (lost || !c->tun_built || !c->tun_F || !c->tun_G || !c->tun_C || !c->tun_c_val ||
            !c->tun_c_idx || !c->tun_c_ptr || !c->zwork || !c->tun_tmp) {
            plain_log(functions, name, "fmi2Instantiate: out of memory");
            free_instance(c);
            return NULL;
        }
    }
    if (!c->d.block || !c->w || !c->xp || !c->xp1 || !c->xnew || !c->xtmp || !c->fused || !c->rot_re ||
        !c->rot_im || !c->dwork || !c->ipiv || !c->par_i || !c->par_s) {
        plain_log(functions, name, "fmi2Instantiate: out of memory");
        free_instance(c);
        return NULL;
    }
    dyn_bind(&c->d, c->d.block, &c->md);
    reset_values(c);
    return (fmi2Component)c;
}

void fmi2FreeInstance(fmi2Component comp) { free_instance((instance *)comp); }

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean loggingOn, size_t n,
                               const fmi2String categories[]) {
    instance *c = (instance *)comp;
    size_t i;
    int j;
    unsigned mask = 0;
    if (!c) return fmi2Error;
    c->logging_on = loggingOn ? 1 : 0;
    if (n == 0) { c->categories = 0x1Fu; return fmi2OK; }
    if (!categories) { REFUSE(c, "fmi2SetDebugLogging: %lu categories but a NULL array",
                              (unsigned long)n); return fmi2Error; }
    for (i = 0; i < n; i++) {
        int found = 0;
        for (j = 0; j < N_CATEGORIES; j++)
            if (categories[i] && strcmp(categories[i], CATEGORIES[j]) == 0) { mask |= 1u << j; found = 1; }
        if (!found) {
            REFUSE(c, "fmi2SetDebugLogging: unknown log category '%s' (known: logStatusWarning, "
                   "logStatusDiscard, logStatusError, logStatusFatal, logAll)",
                   categories[i] ? categories[i] : "(null)");
            return fmi2Error;
        }
    }
    c->categories = mask;
    return fmi2OK;
}

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    instance *c = (instance *)comp;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    if (!c) return fmi2Error;
    if (refused(c, C_SETUP, "fmi2SetupExperiment")) return fmi2Error;
    if (!isfinite(startTime)) {
        REFUSE(c, "fmi2SetupExperiment: startTime = %g is not a finite time", startTime);
        return fmi2Error;
    }
    *c->d.t0 = startTime;
    *c->d.time = startTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    if (refused(c, C_ENTER, "fmi2EnterInitializationMode")) return fmi2Error;
    *c->d.phase = ST_INIT;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component comp) {
    instance *c = (instance *)comp;
    uint32_t i;
    if (!c) return fmi2Error;
    if (refused(c, C_EXIT, "fmi2ExitInitializationMode")) return fmi2Error;
    for (i = 0; i < c->md.m; i++) {
        if (!isfinite(c->d.u[i])) {
            logf_(c, fmi2Warning, "logStatusWarning", "non-finite start value of input %u: zero "
                  "is used until it is set", (unsigned)i);
            c->d.u[i] = 0.0;
        }
    }
    memcpy(c->d.x, c->md.y0, c->md.n * sizeof(double));
    *c->d.time = *c->d.t0;
    *c->d.rot_count = 0.0;
    *c->d.xp_valid = 0.0;
    phasors_at(c, *c->d.t0);
    if (c->md.rk) rk_start(c);
    compute_outputs(c);
    *c->d.phase = ST_STEP;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    if (refused(c, C_TERMINATE, "fmi2Terminate")) return fmi2Error;
    *c->d.phase = ST_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    reset_values(c);
    return fmi2OK;
}

/* ------------------------------------------------------------------ FMI: values */
/* Value references: Real parameters, inputs, outputs; then Integer, then String. */
#define VR_IN(md) ((md)->npr)
#define VR_OUT(md) ((md)->npr + (md)->m)
#define VR_INT(md) ((md)->npr + (md)->m + (md)->nout)
#define VR_STR(md) (VR_INT(md) + (md)->npi)

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    const hfn_model *md;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetReal: NULL array"); return fmi2Error; }
    md = &c->md;
    if (refused(c, C_GET, "fmi2GetReal")) status = fmi2Error;
    if (*c->d.dirty != 0.0 && *c->d.phase != ST_INSTANTIATED && *c->d.phase != ST_INIT) {
        uint32_t j;
        int finite = 1;
        for (j = 0; j < md->m; j++) if (!isfinite(c->d.u[j])) finite = 0;
        if (finite) compute_outputs(c);
    }
    for (i = 0; i < nvr; i++) {
        fmi2ValueReference r = vr[i];
        if (r < VR_IN(md)) value[i] = c->d.par_r[r];
        else if (r < VR_OUT(md)) value[i] = c->d.u[r - VR_IN(md)];
        else if (r < VR_INT(md)) value[i] = c->d.out[r - VR_OUT(md)];
        else {
            REFUSE(c, "no Real variable has value reference %u", (unsigned)r);
            value[i] = NAN;
            status = fmi2Error;
        }
    }
    return status;
}

static int param_refused(instance *c, uint32_t index, const char *type, int same) {
    if (!(ALLOWED[C_SET_PAR] & BIT((int)*c->d.phase))) {
        REFUSE(c, "parameter '%s' is fixed: it cannot be changed after initialization; the "
               "value is ignored (fmi2Set%s (parameter) is not allowed in state '%s')",
               c->md.names[index], type, STATE_NAMES[(int)*c->d.phase]);
        return 1;
    }
    if (!same) {
        REFUSE(c, "parameter '%s': this native FMU was assembled with its start value and "
               "cannot take another one (the model's matrices are computed at build); rebuild "
               "it with the value in the configuration (hydrofmu build --native), or use the "
               "Python FMU (hydrofmu build) to change it at run time", c->md.names[index]);
        return 1;
    }
    return 0;
}

/* The index among the tunable matrix parameters of Real parameter r, or -1. */
static int tunable_index(const hfn_model *md, uint32_t r) {
    uint32_t j;
    for (j = 0; j < md->ntun; j++)
        if (md->tun_idx[j] == r) return (int)j;
    return -1;
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    const hfn_model *md;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2SetReal: NULL array"); return fmi2Error; }
    md = &c->md;
    for (i = 0; i < nvr; i++) {
        fmi2ValueReference r = vr[i];
        if (r < VR_IN(md) && (r + 1 == md->scale_par || tunable_index(md, r) >= 0)) {
            double v = value[i];
            if (refused(c, C_SET_INPUT, "fmi2SetReal (tunable parameter)")) {
                status = fmi2Error;
            } else if (!(isfinite(v) && v >= 0.0)) {
                REFUSE(c, "%s = %g refused, it keeps its value %g: it must be a finite number "
                       ">= 0", md->names[r], v, c->d.par_r[r]);
                status = fmi2Error;
            } else {
                c->d.par_r[r] = v;
                if (r + 1 == md->scale_par) /* the sinusoids are linear in it */
                    *c->d.scale = v / md->par_r[r];
                /* a matrix parameter: F, G, C and the particular solutions follow before the
                 * next step or output (tunables_current) */
                *c->d.xp_valid = 0.0;
                *c->d.dirty = 1.0;
            }
        } else if (r < VR_IN(md)) {
            double v = value[i], old = md->par_r[r];
            int same = v == old || (isnan(v) && isnan(old));
            if (param_refused(c, r, "Real", same)) status = fmi2Error;
        } else if (r < VR_OUT(md)) {
            if (refused(c, C_SET_INPUT, "fmi2SetReal (input)")) { status = fmi2Error; continue; }
            c->d.u[r - VR_IN(md)] = value[i];
            *c->d.dirty = 1.0;
        } else if (r < VR_INT(md)) {
            REFUSE(c, "output with value reference %u cannot be set", (unsigned)r);
            status = fmi2Error;
        } else {
            REFUSE(c, "no Real variable has value reference %u", (unsigned)r);
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetInteger: NULL array"); return fmi2Error; }
    if (refused(c, C_GET, "fmi2GetInteger")) status = fmi2Error;
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_INT(&c->md) && r < VR_STR(&c->md)) value[i] = c->par_i[r - VR_INT(&c->md)];
        else {
            REFUSE(c, "no Integer variable has value reference %u", (unsigned)r);
            value[i] = 0;
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2SetInteger: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_INT(&c->md) && r < VR_STR(&c->md)) {
            uint32_t k = r - VR_INT(&c->md);
            if (param_refused(c, c->md.npr + k, "Integer", value[i] == c->md.par_i[k]))
                status = fmi2Error;
        } else {
            REFUSE(c, "no Integer variable has value reference %u", (unsigned)r);
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[]) {
    instance *c = (instance *)comp;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetBoolean: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++) {
        REFUSE(c, "no Boolean variable has value reference %u", (unsigned)vr[i]);
        value[i] = fmi2False;
    }
    return nvr ? fmi2Error : fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[]) {
    instance *c = (instance *)comp;
    size_t i;
    (void)value;
    if (!c) return fmi2Error;
    if (nvr && !vr) { REFUSE(c, "fmi2SetBoolean: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++)
        REFUSE(c, "no Boolean variable has value reference %u", (unsigned)vr[i]);
    return nvr ? fmi2Error : fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetString: NULL array"); return fmi2Error; }
    if (refused(c, C_GET, "fmi2GetString")) status = fmi2Error;
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_STR(&c->md) && r < VR_STR(&c->md) + c->md.nps) {
            value[i] = c->par_s[r - VR_STR(&c->md)];
        } else {
            REFUSE(c, "no String variable has value reference %u", (unsigned)r);
            value[i] = "";
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2SetString: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_STR(&c->md) && r < VR_STR(&c->md) + c->md.nps) {
            uint32_t k = r - VR_STR(&c->md);
            int same = value[i] && strcmp(value[i], c->md.par_s[k]) == 0;
            if (param_refused(c, c->md.npr + c->md.npi + k, "String", same)) status = fmi2Error;
        } else {
            REFUSE(c, "no String variable has value reference %u", (unsigned)r);
            status = fmi2Error;
        }
    }
    return status;
}

/* ------------------------------------------------------------------ FMI: stepping */
fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real t, fmi2Real h,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    instance *c = (instance *)comp;
    const hfn_model *md;
    double fmu_time, tol, t_end, norm2 = 0.0;
    uint32_t i;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!c) return fmi2Error;
    md = &c->md;
    if (refused(c, C_STEP, "fmi2DoStep")) return fmi2Error;
    fmu_time = *c->d.time;
    if (!isfinite(t)) {
        REFUSE(c, "fmi2DoStep refused: currentCommunicationPoint = %.17g is not a finite time; "
               "the FMU is at t = %.17g s", t, fmu_time);
        return fmi2Error;
    }
    if (!(isfinite(h) && h > 0.0)) {
        REFUSE(c, "fmi2DoStep refused: communicationStepSize = %.17g must be a finite number "
               "> 0 s", h);
        return fmi2Error;
    }
    tol = fmax(1e-9 * h, 8.0 * nextafter(fabs(fmu_time), INFINITY) - 8.0 * fabs(fmu_time));
    if (fabs(t - fmu_time) > tol) {
        REFUSE(c, "fmi2DoStep refused: currentCommunicationPoint = %.17g s but the FMU is at "
               "t = %.17g s (steps must follow each other; use fmi2SetFMUstate to go back)",
               t, fmu_time);
        return fmi2Error;
    }
    for (i = 0; i < md->m; i++) {
        if (!isfinite(c->d.u[i])) {
            logf_(c, fmi2Discard, "logStatusDiscard", "step at t = %.17g s refused: input %u "
                  "is not finite (%g); the state and the outputs stay at their last good "
                  "values", t, (unsigned)i, c->d.u[i]);
            return fmi2Discard;
        }
    }
    if (tunables_current(c, 1) != 0) {
        REFUSE(c, "step from t = %.17g s refused: with the tunable parameters' current values "
               "the wave component at %.9g rad/s resonates with an undamped mode of the model "
               "(i w is an eigenvalue of its system matrix; on the ramp the frequencies are "
               "shifted by +-pi/ramp_time); the state stays at the start of the step; change "
               "the PTO damping or stiffness", t, c->w_bad);
        return fmi2Error;
    }
    t_end = t + h;
    if (md->rk) {
        double t_fail = 0.0, h_fail = 0.0, big = 0.0;
        double steps = ceil(h / md->dt) + 1.0; /* internal steps, a bound (work_limits) */
        if (c->step_limit_index >= 0 && steps > (double)c->par_i[c->step_limit_index]) {
            logf_(c, fmi2Discard, "logStatusDiscard", "fmi2DoStep refused before any work: a "
                  "step of %.17g s takes %.3g internal steps of %.17g s, above the limit "
                  "max_internal_steps_per_call = %d; take shorter communication steps or raise "
                  "the parameter max_internal_steps_per_call", h, steps, md->dt,
                  (int)c->par_i[c->step_limit_index]);
            return fmi2Discard;
        }
        memcpy(c->rk_save, c->d.block, c->d.size * sizeof(double));
        if (rk_advance(c, t_end, &t_fail, &h_fail, &big) != 0) {
            memcpy(c->d.block, c->rk_save, c->d.size * sizeof(double));
            logf_(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s failed: "
                  "the solution diverges at t = %.6g s with time scheme 'rk4' (h = %.3g s, "
                  "|state| = %.3g > %g); rebuild the FMU with a smaller max_internal_step, and "
                  "check the mass, stiffness and damping data; the state stays at the start of "
                  "the step", t, h, t_fail, h_fail, big, md->div_limit);
            return fmi2Discard;
        }
        *c->d.time = t_end;
        compute_outputs(c);
        return fmi2OK;
    }
    {
        /* The phasors and the rotation count change in advance(): saved for a rollback. */
        double saved_r0 = c->d.r[0], saved_r1 = c->d.r[1], saved_count = *c->d.rot_count;
        if (advance(c, t, t_end) != 0) {
            logf_(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s "
                  "failed: the discretisation of this step length is singular; the state "
                  "stays at the start of the step", t, h);
            c->d.r[0] = saved_r0; c->d.r[1] = saved_r1; *c->d.rot_count = saved_count;
            phasors_at(c, fmu_time);
            return fmi2Discard;
        }
        for (i = 0; i < md->n; i++) norm2 += c->xnew[i] * c->xnew[i];
        if (!(norm2 <= md->div_limit * md->div_limit)) {
            logf_(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s "
                  "failed: the state diverged (|y| = %g at t = %.17g s): either the model is "
                  "unstable or, over a long step, a DOF without a restoring force drifts this "
                  "far; check the mass, stiffness and damping data, or take shorter steps; the "
                  "state stays at the start of the step", t, h, sqrt(norm2), t_end);
            c->d.r[0] = saved_r0; c->d.r[1] = saved_r1; *c->d.rot_count = saved_count;
            phasors_at(c, fmu_time);
            return fmi2Discard;
        }
    }
    memcpy(c->d.x, c->xnew, md->n * sizeof(double));
    *c->d.time = t_end;
    /* x_p(t_end) of the segment the next step starts in (the split path ends in it too) */
    memcpy(c->d.xp, c->xp1, md->n * sizeof(double));
    *c->d.xp_seg = (double)c->end_seg;
    *c->d.xp_valid = c->xp1_t == t_end ? 1.0 : 0.0;
    compute_outputs(c);
    return fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    REFUSE(c, "fmi2CancelStep: steps are synchronous in this FMU; there is nothing to cancel");
    return fmi2Error;
}

static fmi2Status status_refused(fmi2Component comp, const char *name) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    REFUSE(c, "%s: steps are synchronous; there is no pending status", name);
    return fmi2Discard;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetStatus");
}
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *v) {
    instance *in = (instance *)c;
    if (in && s == fmi2LastSuccessfulTime && v) { *v = *in->d.time; return fmi2OK; }
    return status_refused(c, "fmi2GetRealStatus");
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetIntegerStatus");
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetBooleanStatus");
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetStringStatus");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[]) {
    instance *c = (instance *)comp;
    (void)vr; (void)nvr; (void)order; (void)value;
    if (!c) return fmi2Error;
    REFUSE(c, "fmi2SetRealInputDerivatives: inputs are held over a step "
           "(canInterpolateInputs = false)");
    return fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[]) {
    instance *c = (instance *)comp;
    (void)vr; (void)nvr; (void)order; (void)value;
    if (!c) return fmi2Error;
    REFUSE(c, "fmi2GetRealOutputDerivatives: not provided (maxOutputDerivativeOrder = 0)");
    return fmi2Error;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference u[],
                                        size_t nu, const fmi2ValueReference z[], size_t nz,
                                        const fmi2Real du[], fmi2Real dz[]) {
    instance *c = (instance *)comp;
    (void)u; (void)nu; (void)z; (void)nz; (void)du; (void)dz;
    if (!c) return fmi2Error;
    REFUSE(c, "fmi2GetDirectionalDerivative: not provided "
           "(providesDirectionalDerivative = false)");
    return fmi2Error;
}

/* ------------------------------------------------------------------ FMU state */
#define STATE_MAGIC 0x48464e53u /* "HFNS" */
typedef struct {
    uint32_t magic;
    uint32_t size; /* doubles in the block */
    int32_t *par_i;
    double block[1];
} saved_state;

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    saved_state *s;
    if (!c) return fmi2Error;
    if (!state) { REFUSE(c, "fmi2GetFMUstate: NULL state pointer"); return fmi2Error; }
    s = (saved_state *)*state;
    if (!s || s->magic != STATE_MAGIC || s->size != c->d.size) {
        s = (saved_state *)malloc(sizeof(saved_state) + c->d.size * sizeof(double));
        if (!s) { REFUSE(c, "fmi2GetFMUstate: out of memory"); return fmi2Error; }
        s->magic = STATE_MAGIC;
        s->size = (uint32_t)c->d.size;
        s->par_i = NULL;
    }
    memcpy(s->block, c->d.block, c->d.size * sizeof(double));
    *state = (fmi2FMUstate)s;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state) {
    instance *c = (instance *)comp;
    const saved_state *s = (const saved_state *)state;
    if (!c) return fmi2Error;
    if (!s || s->magic != STATE_MAGIC || s->size != c->d.size) {
        REFUSE(c, "fmi2SetFMUstate: the state was not made by this FMU (or is NULL); "
               "nothing was changed");
        return fmi2Error;
    }
    memcpy(c->d.block, s->block, c->d.size * sizeof(double));
    c->cache_h = -1.0; c->rot_h = -1.0; c->rot2_h = -1.0;
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    if (!state) { REFUSE(c, "fmi2FreeFMUstate: NULL state pointer"); return fmi2Error; }
    if (*state) {
        saved_state *s = (saved_state *)*state;
        if (s->magic != STATE_MAGIC) {
            REFUSE(c, "fmi2FreeFMUstate: the state was not made by this FMU");
            return fmi2Error;
        }
        s->magic = 0;
        free(s);
    }
    *state = NULL;
    return fmi2OK;
}

/* Serialized: "HFNS", u32 version, u32 size, the block's doubles (native byte order of the
 * machine that made it: states are restored on the same platform). */
fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state, size_t *size) {
    instance *c = (instance *)comp;
    const saved_state *s = (const saved_state *)state;
    if (!c) return fmi2Error;
    if (!s || !size || s->magic != STATE_MAGIC) {
        REFUSE(c, "fmi2SerializedFMUstateSize: not a state of this FMU");
        return fmi2Error;
    }
    *size = 12 + (size_t)s->size * sizeof(double);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state, fmi2Byte data[],
                                 size_t size) {
    instance *c = (instance *)comp;
    const saved_state *s = (const saved_state *)state;
    uint32_t head[3];
    if (!c) return fmi2Error;
    if (!s || !data || s->magic != STATE_MAGIC) {
        REFUSE(c, "fmi2SerializeFMUstate: not a state of this FMU");
        return fmi2Error;
    }
    if (size < 12 + (size_t)s->size * sizeof(double)) {
        REFUSE(c, "fmi2SerializeFMUstate: buffer of %lu bytes, needs %lu", (unsigned long)size,
               (unsigned long)(12 + (size_t)s->size * sizeof(double)));
        return fmi2Error;
    }
    head[0] = STATE_MAGIC; head[1] = HFN_VERSION; head[2] = s->size;
    memcpy(data, head, 12);
    memcpy(data + 12, s->block, (size_t)s->size * sizeof(double));
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte data[], size_t size,
                                   fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    uint32_t head[3];
    saved_state *s;
    double phase;
    if (!c) return fmi2Error;
    if (!data || !state || size < 12) {
        REFUSE(c, "fmi2DeSerializeFMUstate: no data (%lu bytes)", (unsigned long)size);
        return fmi2Error;
    }
    memcpy(head, data, 12);
    if (head[0] != STATE_MAGIC || head[1] != HFN_VERSION || head[2] != c->d.size ||
        size != 12 + (size_t)head[2] * sizeof(double)) {
        REFUSE(c, "fmi2DeSerializeFMUstate: the %lu bytes are not a serialized state of this "
               "model (expected %lu bytes); nothing was changed", (unsigned long)size,
               (unsigned long)(12 + c->d.size * sizeof(double)));
        return fmi2Error;
    }
    memcpy(&phase, data + 12 + 2 * sizeof(double), sizeof phase);
    if (!(phase >= 0.0 && phase <= (double)ST_ERROR && phase == floor(phase))) {
        REFUSE(c, "fmi2DeSerializeFMUstate: corrupt state (phase %g)", phase);
        return fmi2Error;
    }
    s = (saved_state *)malloc(sizeof(saved_state) + c->d.size * sizeof(double));
    if (!s) { REFUSE(c, "fmi2DeSerializeFMUstate: out of memory"); return fmi2Error; }
    s->magic = STATE_MAGIC;
    s->size = head[2];
    s->par_i = NULL;
    memcpy(s->block, data + 12, (size_t)head[2] * sizeof(double));
    {
        /* The bookkeeping entries must be what this runtime writes (the values are data). */
        dyn_view v;
        uint32_t i;
        int ok;
        dyn_bind(&v, s->block, &c->md);
        ok = isfinite(*v.time) && isfinite(*v.t0) && *v.rot_count >= 0.0 &&
             *v.rot_count < RESYNC_STEPS && (*v.dirty == 0.0 || *v.dirty == 1.0) &&
             (*v.xp_valid == 0.0 || *v.xp_valid == 1.0) &&
             (*v.xp_seg == 0.0 || *v.xp_seg == 1.0) && isfinite(*v.scale) && *v.scale >= 0.0 &&
             isfinite(*v.rk_time) && *v.grid_index >= 0.0 && *v.grid_index < 9007199254740992.0 &&
             *v.grid_index == floor(*v.grid_index) && *v.hist_pos >= 0.0 &&
             *v.hist_pos == floor(*v.hist_pos) &&
             (c->md.nk ? *v.hist_pos < (double)c->md.nk : *v.hist_pos == 0.0);
        for (i = 0; ok && i < c->md.npr; i++)
            ok = (c->md.scale_par == i + 1 || tunable_index(&c->md, i) >= 0)
                     ? isfinite(v.par_r[i]) && v.par_r[i] >= 0.0
                     : v.par_r[i] == c->md.par_r[i] ||
                       (isnan(v.par_r[i]) && isnan(c->md.par_r[i]));
        if (!ok) {
            REFUSE(c, "fmi2DeSerializeFMUstate: corrupt state (its time, counters or "
                   "parameters are not values this FMU writes); nothing was changed");
            free(s);
            return fmi2Error;
        }
    }
    *state = (fmi2FMUstate)s;
    return fmi2OK;
}
