/* hydrofmu native runtime, the model blob's reader (see hfn_model.h for the layout).
 * Every array is allocated here, once, at fmi2Instantiate; hfn_model_free releases them. */
#include "hfn_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cursor over the blob; bad is set by the first read past its end (and stays set). */
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
/* The header words after the magic and the version: the sizes, checked against limits. */
static int read_header(hfn_model *md, reader *r, char *err, size_t err_size) {
    uint32_t version, hw, i;
    uint32_t words[HFN_HEADER_WORDS];
    version = rd_u32(r);
    hw = rd_u32(r);
    if (version != HFN_VERSION || hw != HFN_HEADER_WORDS) {
        snprintf(err, err_size, "resources/model.bin has format version %u (%u header words); "
                 "this runtime reads version %u: rebuild the FMU with the same hydrofmu",
                 (unsigned)version, (unsigned)hw, (unsigned)HFN_VERSION);
        return -1;
    }
    for (i = 0; i < HFN_HEADER_WORDS; i++) words[i] = rd_u32(r);
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
    md->nz = md->n + md->m + 1;
    return 0;
}

/* The linear model: times, start values, F, G, the step's [Phi | Gamma], the sinusoids'
 * particular solutions, the output map C and the outputs' sinusoids H. */
static void read_matrices(hfn_model *md, reader *r) {
    uint32_t i;
    md->h0 = rd_f64(r); md->ramp_time = rd_f64(r); md->t0_build = rd_f64(r);
    md->div_limit = rd_f64(r);
    md->y0 = rd_array(r, md->n);
    md->u0 = rd_array(r, md->m);
    md->F = rd_array(r, (size_t)md->n * md->n);
    md->G = rd_array(r, (size_t)md->n * (md->m + 1));
    md->fused0 = rd_array(r, (size_t)md->n * md->nz);
    md->omega = rd_array(r, md->k);
    md->xs_re = rd_array(r, (size_t)md->k * md->n);
    md->xs_im = rd_array(r, (size_t)md->k * md->n);
    if (md->has_ramp) {
        for (i = 0; i < 3; i++) {
            md->xr_re[i] = rd_array(r, (size_t)md->k * md->n);
            md->xr_im[i] = rd_array(r, (size_t)md->k * md->n);
        }
    }
    md->C = rd_array(r, (size_t)md->nout * md->nz);
    md->hrows = rd_u32_array(r, md->nh);
    md->h_re = rd_array(r, (size_t)md->nh * md->k);
    md->h_im = rd_array(r, (size_t)md->nh * md->k);
}

/* The products of outputs: out[i] = coef out[j] out[l]. */
static void read_products(hfn_model *md, reader *r) {
    uint32_t i;
    md->prod_i = (uint32_t *)calloc(md->nprod + 1, sizeof(uint32_t));
    md->prod_j = (uint32_t *)calloc(md->nprod + 1, sizeof(uint32_t));
    md->prod_l = (uint32_t *)calloc(md->nprod + 1, sizeof(uint32_t));
    md->prod_c = (double *)calloc(md->nprod + 1, sizeof(double));
    if (!md->prod_i || !md->prod_j || !md->prod_l || !md->prod_c) r->bad = 1;
    for (i = 0; i < md->nprod && !r->bad; i++) {
        md->prod_i[i] = rd_u32(r); md->prod_j[i] = rd_u32(r); md->prod_l[i] = rd_u32(r);
        md->prod_c[i] = rd_f64(r);
        if (md->prod_i[i] >= md->nout || md->prod_j[i] >= md->nout ||
            md->prod_l[i] >= md->nout) r->bad = 1;
    }
}

/* The parameters' start values and names, and the GUID. */
static void read_parameters(hfn_model *md, reader *r) {
    uint32_t i, nnames;
    md->par_r = rd_array(r, md->npr);
    md->par_i = (int32_t *)calloc(md->npi + 1, sizeof(int32_t));
    if (!md->par_i) r->bad = 1;
    for (i = 0; i < md->npi && !r->bad; i++) md->par_i[i] = (int32_t)rd_u32(r);
    md->par_s = (char **)calloc(md->nps + 1, sizeof(char *));
    if (!md->par_s) r->bad = 1;
    for (i = 0; i < md->nps && !r->bad; i++) md->par_s[i] = rd_string(r);
    nnames = md->npr + md->npi + md->nps;
    md->names = (char **)calloc(nnames + 1, sizeof(char *));
    if (!md->names) r->bad = 1;
    for (i = 0; i < nnames && !r->bad; i++) md->names[i] = rd_string(r);
    if (!r->bad) md->guid = rd_string(r);
}

/* The Runge-Kutta mode's flag, sizes and matrices (drag, the elevation input's FIR). */
static void read_rk(hfn_model *md, reader *r) {
    uint32_t i;
    if (!r->bad) md->rk = rd_u32(r);
    if (!r->bad && md->rk > 1u) r->bad = 1;
    if (r->bad || !md->rk) return;
    md->nq = rd_u32(r); md->has_drag = rd_u32(r); md->has_input = rd_u32(r);
    md->in_index = rd_u32(r); md->nk = rd_u32(r); md->elev_row = rd_u32(r);
    md->dt = rd_f64(r); md->preview_steps = rd_f64(r); md->wave_ramp = rd_f64(r);
    if (md->nq > 100000u || md->nk > 100000000u || md->has_drag > 1u ||
        md->has_input > 1u || (md->has_input && (md->in_index >= md->m || md->nk < 2u ||
                                                 md->elev_row >= md->nout)) ||
        !(md->dt > 0.0 && isfinite(md->dt)) || !isfinite(md->preview_steps) ||
        !isfinite(md->wave_ramp))
        r->bad = 1;
    if (r->bad) return;
    md->V = rd_array(r, (size_t)md->nq * md->n);
    md->BL = rd_array(r, (size_t)md->nq * md->nq);
    md->BQ = rd_array(r, md->nq);
    md->EG = rd_array(r, (size_t)md->n * md->nq);
    md->OG = rd_array(r, (size_t)md->nout * 2 * md->nq);
    md->KW = rd_array(r, (size_t)md->nq * md->nk);
    md->kw_used = (uint32_t *)calloc((size_t)md->nq + 1, sizeof(uint32_t));
    if (!md->kw_used) r->bad = 1;
    for (i = 0; i < md->nq && !r->bad && md->KW; i++) {
        size_t j;
        for (j = 0; j < md->nk; j++) md->kw_used[i] |= md->KW[(size_t)i * md->nk + j] != 0.0;
    }
}

/* The outputs' sinusoids factorised, H = O S (r = nfac signals). */
static void read_factorised(hfn_model *md, reader *r) {
    if (!r->bad) md->nfac = rd_u32(r);
    if (r->bad || !md->nfac) return;
    if (md->nfac > md->nh) r->bad = 1;
    md->fs_re = rd_array(r, (size_t)md->nfac * md->k);
    md->fs_im = rd_array(r, (size_t)md->nfac * md->k);
    md->fo = rd_array(r, (size_t)md->nh * md->nfac);
}

/* The tunables' sparse entries in total (a first pass, to allocate once); r is advanced. */
static uint32_t count_tunable_entries(const hfn_model *md, reader *r) {
    uint32_t j, q, total = 0;
    for (j = 0; j < md->ntun && !r->bad; j++) {
        rd_u32(r);
        for (q = 0; q < 3 && !r->bad; q++) {
            uint32_t cnt = rd_u32(r);
            if (cnt > r->left / 16) { r->bad = 1; break; }
            total += cnt;
            r->p += (size_t)cnt * 16; r->left -= (size_t)cnt * 16;
        }
    }
    return total;
}

/* Parameter j's index and its dF, dG, dC (s = 0, 1, 2) from entry *at on. */
static void read_tunable(hfn_model *md, reader *r, uint32_t j, uint32_t *at) {
    uint32_t q;
    md->tun_idx[j] = rd_u32(r);
    if (md->tun_idx[j] >= md->npr || md->tun_idx[j] + 1 == md->scale_par ||
        !isfinite(md->par_r[md->tun_idx[j]]) || md->par_r[md->tun_idx[j]] < 0.0)
        r->bad = 1;
    for (q = 0; q < 3 && !r->bad; q++) {
        uint32_t cnt = rd_u32(r), e;
        uint32_t nrow = q == 2 ? md->nout : md->n;
        uint32_t ncol = q == 0 ? md->n : q == 1 ? md->m + 1 : md->nz;
        md->tun_ptr[3 * j + q] = *at;
        for (e = 0; e < cnt && !r->bad; e++, (*at)++) {
            md->tun_row[*at] = rd_u32(r);
            md->tun_col[*at] = rd_u32(r);
            md->tun_val[*at] = rd_f64(r);
            if (md->tun_row[*at] >= nrow || md->tun_col[*at] >= ncol ||
                !isfinite(md->tun_val[*at]))
                r->bad = 1;
        }
    }
}

/* Version 2: the tunable matrix parameters (the forcing, then each one's dF, dG, dC). */
static void read_tunables(hfn_model *md, reader *r) {
    uint32_t j, q, total, at = 0;
    reader mark;
    if (r->bad) return;
    mark = *r;
    md->ntun = rd_u32(r);
    if (md->ntun > md->npr) r->bad = 1;
    if (md->ntun && !r->bad) {
        md->forc_re = rd_array(r, (size_t)md->k * md->n);
        md->forc_im = rd_array(r, (size_t)md->k * md->n);
    }
    total = count_tunable_entries(md, r);
    if (r->bad) return;
    *r = mark; /* second pass: the values */
    rd_u32(r);
    if (md->ntun) { r->p += (size_t)16 * md->k * md->n; r->left -= (size_t)16 * md->k * md->n; }
    md->tun_idx = (uint32_t *)calloc(md->ntun + 1, sizeof(uint32_t));
    md->tun_ptr = (uint32_t *)calloc(3 * (size_t)md->ntun + 1, sizeof(uint32_t));
    md->tun_row = (uint32_t *)calloc((size_t)total + 1, sizeof(uint32_t));
    md->tun_col = (uint32_t *)calloc((size_t)total + 1, sizeof(uint32_t));
    md->tun_val = (double *)calloc((size_t)total + 1, sizeof(double));
    if (!md->tun_idx || !md->tun_ptr || !md->tun_row || !md->tun_col || !md->tun_val)
        r->bad = 1;
    for (j = 0; j < md->ntun && !r->bad; j++) read_tunable(md, r, j, &at);
    if (!r->bad) md->tun_ptr[3 * md->ntun] = at;
    for (j = 0; j + 1 < md->ntun && !r->bad; j++) /* one entry per parameter */
        for (q = j + 1; q < md->ntun; q++)
            if (md->tun_idx[j] == md->tun_idx[q]) r->bad = 1;
}

/* The states some sinusoid reaches (the others stay out of the loops), and X's columns of
 * those states contiguous over the components. */
static void active_columns(hfn_model *md, reader *r) {
    uint32_t i, q, s, cnt = 0;
    md->act = (uint32_t *)calloc(md->n + 1, sizeof(uint32_t));
    if (!md->act) { r->bad = 1; return; }
    for (i = 0; i < md->n; i++) {
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
    for (s = 0; s < 8; s++) {
        const double *src = s == 0 ? md->xs_re : s == 1 ? md->xs_im
                          : (md->has_ramp ? (s % 2 ? md->xr_im[(s - 2) / 2]
                                                   : md->xr_re[(s - 2) / 2]) : NULL);
        md->xc[s] = (double *)calloc((size_t)md->k * cnt + 1, sizeof(double));
        if (!md->xc[s]) { r->bad = 1; return; }
        for (q = 0; src && q < md->k; q++)
            for (i = 0; i < cnt; i++)
                md->xc[s][(size_t)i * md->k + q] = src[(size_t)q * md->n + md->act[i]];
    }
}

int hfn_model_read(hfn_model *md, const unsigned char *data, size_t size, char *err,
                   size_t err_size) {
    reader r;
    uint32_t i;
    memset(md, 0, sizeof *md);
    if (size < 16 || memcmp(data, HFN_MAGIC, 8) != 0) {
        snprintf(err, err_size, "resources/model.bin is not a hydrofmu native model (bad "
                 "magic); rebuild the FMU with hydrofmu build --native");
        return -1;
    }
    r.p = data + 8; r.left = size - 8; r.bad = 0;
    if (read_header(md, &r, err, err_size) != 0) return -1;
    read_matrices(md, &r);
    read_products(md, &r);
    read_parameters(md, &r);
    read_rk(md, &r);
    read_factorised(md, &r);
    if (!r.bad && md->rk && /* F by rows, for the stages */
        csr_rows(md->F, md->n, md->n, &md->f_ptr, &md->f_idx, &md->f_val) != 0)
        r.bad = 1;
    if (!r.bad && md->rk && /* OG by rows: each output reads a few of the 2 nq forces */
        csr_rows(md->OG, md->nout, 2 * (size_t)md->nq, &md->og_ptr, &md->og_idx,
                 &md->og_val) != 0)
        r.bad = 1;
    read_tunables(md, &r);
    if (!r.bad) { /* the last section: the scheme and the lines (hfn_lines.c) */
        size_t used = 0;
        if (hfn_lines_read(&md->lines, r.p, r.left, &used, md->n, md->nout,
                           md->rk ? md->nq : 0u, md->rk) != 0) r.bad = 1;
        else { r.p += used; r.left -= used; }
    }
    for (i = 0; i < md->nh && !r.bad; i++)
        if (md->hrows[i] >= md->nout) r.bad = 1;
    if (!r.bad && (md->scale_par > md->npr ||
                   (md->scale_par && !(md->par_r[md->scale_par - 1] != 0.0))))
        r.bad = 1;
    if (!r.bad) active_columns(md, &r);
    if (!r.bad && /* the output map's nonzeros by row: most outputs read a few entries */
        csr_rows(md->C, md->nout, md->nz, &md->c_ptr, &md->c_idx, &md->c_val) != 0)
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
    for (i = 0; i < 3; i++) {
        free(md->xr_re[i]); free(md->xr_im[i]);
        md->xr_re[i] = md->xr_im[i] = NULL;
    }
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
    hfn_lines_free(md->lines);
    memset(md, 0, sizeof *md);
}