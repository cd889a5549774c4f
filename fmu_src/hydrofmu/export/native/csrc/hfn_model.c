/* hydrofmu native runtime, the model blob's reader (see hfn_model.h for the layout).
 * Every array is allocated here, once, at fmi2Instantiate; hfn_model_free releases them. */
#include "hfn_model.h"

#include "hfn_bodies.h"
#include "hfn_drift.h"
#include "hfn_reader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cursor's reads (hfn_reader.c), under the short names this file uses. */
typedef hfn_reader reader;
#define rd_u32 hfn_rd_u32
#define rd_f64 hfn_rd_f64
#define rd_fits hfn_rd_fits
#define rd_alloc hfn_rd_alloc
#define rd_array hfn_rd_array
#define rd_u32_array hfn_rd_u32_array
#define rd_string hfn_rd_string
#define rd_strings hfn_rd_strings

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
    md->guid_len = words[11];
    if (md->n > 100000u || md->m > 100000u || md->nout > 1000000u || md->k > 1000000u ||
        md->nh > md->nout || md->has_ramp > 1u) {
        snprintf(err, err_size, "resources/model.bin has impossible sizes (n=%u, m=%u, "
                 "outputs=%u, components=%u, ramp=%u, sine rows=%u); rebuild the FMU with "
                 "hydrofmu build", (unsigned)md->n, (unsigned)md->m, (unsigned)md->nout,
                 (unsigned)md->k, (unsigned)md->has_ramp, (unsigned)md->nh);
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

/* The products of outputs: out[i] = coef out[j] out[l] (each entry 20 bytes). */
static void read_products(hfn_model *md, reader *r) {
    uint32_t i;
    if (!rd_fits(r, md->nprod, 20)) return;
    md->prod_i = (uint32_t *)rd_alloc(r, md->nprod, sizeof(uint32_t));
    md->prod_j = (uint32_t *)rd_alloc(r, md->nprod, sizeof(uint32_t));
    md->prod_l = (uint32_t *)rd_alloc(r, md->nprod, sizeof(uint32_t));
    md->prod_c = (double *)rd_alloc(r, md->nprod, sizeof(double));
    for (i = 0; i < md->nprod && !r->bad; i++) {
        md->prod_i[i] = rd_u32(r); md->prod_j[i] = rd_u32(r); md->prod_l[i] = rd_u32(r);
        md->prod_c[i] = rd_f64(r);
        if (md->prod_i[i] >= md->nout || md->prod_j[i] >= md->nout ||
            md->prod_l[i] >= md->nout) r->bad = 1;
    }
}

/* The parameters' start values and names, and the GUID. */
static void read_parameters(hfn_model *md, reader *r) {
    uint32_t i;
    size_t nnames = (size_t)md->npr + md->npi + md->nps;
    md->par_r = rd_array(r, md->npr);
    if (rd_fits(r, md->npi, 4)) md->par_i = (int32_t *)rd_alloc(r, md->npi, sizeof(int32_t));
    for (i = 0; i < md->npi && !r->bad; i++) md->par_i[i] = (int32_t)rd_u32(r);
    md->par_s = rd_strings(r, md->nps);
    md->names = rd_strings(r, nnames);
    if (!r->bad) md->guid = rd_string(r);
    if (!r->bad && strlen(md->guid) != md->guid_len) r->bad = 1; /* the header's length */
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
    /* nq >= 1 (drag or the input act on DOFs), so that the FIR's nq nk doubles bound nk by
     * the file's size before the instance allocates its history (2 nk doubles) */
    if (md->nq == 0u || md->nq > 100000u || md->nk > 100000000u || md->has_drag > 1u ||
        (!md->has_input && md->nk != 0u) ||
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
    md->kw_used = (uint32_t *)rd_alloc(r, md->nq, sizeof(uint32_t));
    for (i = 0; i < md->nq && !r->bad; i++) {
        size_t j;
        for (j = 0; j < md->nk; j++) md->kw_used[i] |= md->KW[(size_t)i * md->nk + j] != 0.0;
    }
}

/* The outputs' sinusoids factorised, H = O S (r = nfac signals). */
static void read_factorised(hfn_model *md, reader *r) {
    if (!r->bad) md->nfac = rd_u32(r);
    if (r->bad || !md->nfac) return;
    if (md->nfac > md->nh) { r->bad = 1; return; }
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
    md->tun_idx = (uint32_t *)rd_alloc(r, md->ntun, sizeof(uint32_t));
    md->tun_ptr = (uint32_t *)rd_alloc(r, 3 * (size_t)md->ntun, sizeof(uint32_t));
    md->tun_row = (uint32_t *)rd_alloc(r, total, sizeof(uint32_t));
    md->tun_col = (uint32_t *)rd_alloc(r, total, sizeof(uint32_t));
    md->tun_val = (double *)rd_alloc(r, total, sizeof(double));
    for (j = 0; j < md->ntun && !r->bad; j++) read_tunable(md, r, j, &at);
    if (!r->bad) md->tun_ptr[3 * md->ntun] = at;
    for (j = 0; j + 1 < md->ntun && !r->bad; j++) /* one entry per parameter */
        for (q = j + 1; q < md->ntun; q++)
            if (md->tun_idx[j] == md->tun_idx[q]) r->bad = 1;
}

/* The convolution radiation (hfn_conv.h): u32 has_conv, then its data over the nq body
 * DOFs with the kernel's spacing dt (the Runge-Kutta mode's internal step, or the load
 * FMU's). */
static void read_conv(hfn_model *md, reader *r, double dt) {
    uint32_t i, j;
    if (!r->bad) md->has_conv = rd_u32(r);
    if (!r->bad && md->has_conv > 1u) r->bad = 1;
    if (!r->bad && md->has_conv) {
        md->conv_nc = rd_u32(r); md->conv_np = rd_u32(r); md->conv_nk = rd_u32(r);
        md->conv_dt = rd_f64(r);
        if (md->conv_nc > md->nq || md->conv_np > (size_t)md->nq * md->nq ||
            md->conv_nk < 1u || md->conv_nk > 100000000u || !(md->conv_dt == dt))
            r->bad = 1;
        md->conv_dof = rd_u32_array(r, md->conv_nc);
        md->conv_row = rd_u32_array(r, md->conv_np);
        md->conv_col = rd_u32_array(r, md->conv_np);
        md->conv_K = rd_array(r, (size_t)md->conv_np * (md->conv_nk + 2u));
        md->OC = rd_array(r, (size_t)md->nout * md->nq);
        for (i = 0; i < md->conv_nc && !r->bad; i++)
            if (md->conv_dof[i] >= md->nq) r->bad = 1;
        for (i = 0; i < md->conv_np && !r->bad; i++)
            if (md->conv_row[i] >= md->nq || md->conv_col[i] >= md->conv_nc) r->bad = 1;
        for (i = 0; i < md->conv_np && !r->bad; i++)
            for (j = 0; j < md->conv_nk + 2u; j++)
                if (!isfinite(md->conv_K[(size_t)i * (md->conv_nk + 2u) + j])) r->bad = 1;
        if (!r->bad && csr_rows(md->OC, md->nout, md->nq, &md->oc_ptr, &md->oc_idx,
                                &md->oc_val) != 0)
            r->bad = 1;
    }
}

/* The load FMU's quadratic drag: u32 has_drag, then BQ[nq] and OG[nout*2nq] (the outputs of
 * [drag; excitation], the Runge-Kutta mode's arrays and meaning). */
static void read_load_drag(hfn_model *md, reader *r) {
    size_t i, size = (size_t)md->nout * 2 * md->nq;
    if (!r->bad) md->has_drag = rd_u32(r);
    if (r->bad || md->has_drag > 1u) { r->bad = 1; return; }
    if (!md->has_drag) return;
    md->BQ = rd_array(r, md->nq);
    md->OG = rd_array(r, size);
    for (i = 0; i < md->nq && !r->bad; i++) if (!isfinite(md->BQ[i])) r->bad = 1;
    for (i = 0; i < size && !r->bad; i++) if (!isfinite(md->OG[i])) r->bad = 1;
    if (!r->bad && csr_rows(md->OG, md->nout, 2 * (size_t)md->nq, &md->og_ptr, &md->og_idx,
                            &md->og_val) != 0)
        r->bad = 1;
}

/* The convolution radiation and the explicit Runge-Kutta tableau (the last section). */
static void read_scheme(hfn_model *md, reader *r) {
    uint32_t i, j;
    read_conv(md, r, md->dt);
    if (!r->bad && md->has_conv && !md->rk) r->bad = 1;
    if (!r->bad) md->stages = rd_u32(r);
    /* 0 in the Runge-Kutta mode: a semi-implicit scheme (the lines section's; checked
     * there) */
    if (!r->bad && (md->rk ? md->stages > 4u : md->stages != 0u)) r->bad = 1;
    if (r->bad || !md->stages) return;
    md->tab_a = rd_array(r, (size_t)md->stages * md->stages);
    md->tab_b = rd_array(r, md->stages);
    md->tab_c = rd_array(r, md->stages);
    for (i = 0; i < md->stages && !r->bad; i++) {
        if (!isfinite(md->tab_b[i]) || !isfinite(md->tab_c[i])) r->bad = 1;
        for (j = 0; j < md->stages; j++) /* explicit: strictly lower triangular */
            if (!isfinite(md->tab_a[i * md->stages + j]) ||
                (j >= i && md->tab_a[i * md->stages + j] != 0.0))
                r->bad = 1;
    }
}

/* The states some sinusoid reaches (the others stay out of the loops), and X's columns of
 * those states contiguous over the components. */
static void active_columns(hfn_model *md, reader *r) {
    uint32_t i, q, s, cnt = 0;
    md->act = (uint32_t *)rd_alloc(r, md->n, sizeof(uint32_t));
    if (!md->act) return;
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

uint32_t hfn_crc32(const unsigned char *data, size_t size) {
    uint32_t table[256], crc = 0xFFFFFFFFu, v;
    size_t i;
    int k;
    for (i = 0; i < 256; i++) {
        v = (uint32_t)i;
        for (k = 0; k < 8; k++) v = (v & 1u) ? 0xEDB88320u ^ (v >> 1) : v >> 1;
        table[i] = v;
    }
    for (i = 0; i < size; i++) crc = table[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

/* The catenary section (layout in hfn_catenary.h; the Runge-Kutta mode only). */
static void read_catenary(hfn_model *md, reader *r) {
    uint32_t np = rd_u32(r), i;
    if (r->bad || !np) return;
    if (np > 1000u || !md->rk || !(md->cat = hfn_cat_new(np, md->n, md->nout, md->nq))) {
        r->bad = 1;
        return;
    }
    *hfn_cat_ok(md->cat) = rd_array(r, (size_t)md->nout * md->nq);
    for (i = 0; i < np && !r->bad; i++) {
        uint32_t nl = rd_u32(r), dof0 = rd_u32(r), out_row = rd_u32(r);
        double *lines = nl <= 100000u ? rd_array(r, 13 * (size_t)nl) : NULL;
        double *pq = lines ? rd_array(r, 6 * (size_t)md->n) : NULL;
        /* the part takes both arrays (freed with the section, read or not) */
        if (hfn_cat_part(md->cat, i, nl, dof0, out_row, lines, pq) != 0) r->bad = 1;
    }
}

/* The magic, the version and the trailer's checksum over everything before it: 0, or -1
 * after a message. */
static int check_frame(const unsigned char *data, size_t size, char *err, size_t err_size) {
    uint32_t version, stored, actual;
    if (size < 16 || memcmp(data, HFN_MAGIC, 8) != 0) {
        snprintf(err, err_size, "resources/model.bin is not a hydrofmu native model (%lu "
                 "bytes, no 'HFMUNAT1' at its start); rebuild the FMU with hydrofmu build",
                 (unsigned long)size);
        return -1;
    }
    version = (uint32_t)data[8] | ((uint32_t)data[9] << 8) | ((uint32_t)data[10] << 16) |
              ((uint32_t)data[11] << 24);
    if (version != HFN_VERSION) {
        snprintf(err, err_size, "resources/model.bin has format version %u; this runtime "
                 "reads version %u: rebuild the FMU with one hydrofmu (hydrofmu build)",
                 (unsigned)version, (unsigned)HFN_VERSION);
        return -1;
    }
    if (size < 16 + HFN_TRAILER_BYTES ||
        memcmp(data + size - HFN_TRAILER_BYTES, HFN_TRAILER_TAG, 4) != 0) {
        snprintf(err, err_size, "resources/model.bin is truncated (%lu bytes, its trailer "
                 "'HFCK' is missing): the file was cut or altered after the build; rebuild "
                 "the FMU with hydrofmu build", (unsigned long)size);
        return -1;
    }
    stored = (uint32_t)data[size - 4] | ((uint32_t)data[size - 3] << 8) |
             ((uint32_t)data[size - 2] << 16) | ((uint32_t)data[size - 1] << 24);
    actual = hfn_crc32(data, size - 4);
    if (stored != actual) {
        snprintf(err, err_size, "resources/model.bin is damaged: its CRC-32 is 0x%08x, the "
                 "trailer says 0x%08x (%lu bytes; the file was truncated or altered after "
                 "the build); rebuild the FMU with hydrofmu build", (unsigned)actual,
                 (unsigned)stored, (unsigned long)size);
        return -1;
    }
    return 0;
}

int hfn_model_read(hfn_model *md, const unsigned char *data, size_t size, char *err,
                   size_t err_size) {
    reader r;
    uint32_t i;
    memset(md, 0, sizeof *md);
    if (check_frame(data, size, err, err_size) != 0) return -1;
    /* the sections: between the magic and the trailer */
    r.p = data + 8; r.left = size - 8 - HFN_TRAILER_BYTES; r.bad = 0;
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
    read_scheme(md, &r);
    if (!r.bad) { /* the last section: the scheme and the lines (hfn_lines.c) */
        size_t used = 0;
        if (hfn_lines_read(&md->lines, r.p, r.left, &used, md->n, md->nout,
                           md->rk ? md->nq : 0u, md->rk) != 0) r.bad = 1;
        else { r.p += used; r.left -= used; }
    }
    read_catenary(md, &r); /* hfn_catenary.h */
    /* the drift and current section (hfn_drift.c) */
    if (!r.bad && hfn_drift_read(&md->drift, &r, md->rk ? md->nq : 0u, md->nout, md->rk,
                                 md->lines) != 0)
        r.bad = 1;
    for (i = 0; i < md->nh && !r.bad; i++)
        if (md->hrows[i] >= md->nout) r.bad = 1;
    if (!r.bad && (md->scale_par > md->npr ||
                   (md->scale_par && !(md->par_r[md->scale_par - 1] != 0.0))))
        r.bad = 1;
    if (!r.bad) active_columns(md, &r);
    if (!r.bad && /* the output map's nonzeros by row: most outputs read a few entries */
        csr_rows(md->C, md->nout, md->nz, &md->c_ptr, &md->c_idx, &md->c_val) != 0)
        r.bad = 1;
    /* the Runge-Kutta mode steps a tableau or a semi-implicit scheme: one of them */
    if (!r.bad && md->rk &&
        (md->stages ? (md->lines && md->lines->si_n) : !(md->lines && md->lines->si_n)))
        r.bad = 1;
    /* Sections appended after the tunables are read here, in the order blob.py writes
     * them (each with the cursor's checked reads). */
    if (!r.bad && hfn_panels_read(&md->panels, &r, md->n, md->nout, md->rk ? md->nq : 0u,
                                  err, err_size) != 0) { /* its own message */
        hfn_model_free(md);
        return -1;
    }
    if (!r.bad && hfn_bodies_read(&md->bodies, &r, md->n, md->m, md->nout, md->k,
                                  md->rk && md->stages ? md->nq : 0u, err, err_size) != 0) {
        hfn_model_free(md); /* its own message (hfn_bodies.c: large rotations) */
        return -1;
    }
    if (!r.bad && md->bodies && (md->lines || md->cat || md->drift || md->has_conv ||
                                 md->has_input || md->nprod))
        r.bad = 1; /* large rotations: the linear parts, the drag and the panels only */
    if (!r.bad) { /* derivatives / load-FMU data (derivative_blob.py): a flag */
        md->deriv = rd_u32(&r);
        md->load = rd_u32(&r);
        if (md->deriv > 1u || md->load > 1u) r.bad = 1;
        if (!r.bad && md->load) { /* the bodies' motion inputs come first */
            md->load_nb = rd_u32(&r);
            md->load_dt = rd_f64(&r);
            if (r.bad || md->rk || md->nprod || !md->load_nb || md->load_nb > md->m / 18u ||
                !(isfinite(md->load_dt) && md->load_dt > 0.0))
                r.bad = 1;
            md->nq = r.bad ? 0u : 6u * md->load_nb; /* the bodies' DOFs */
            read_conv(md, &r, md->load_dt); /* its convolution radiation (hfn_load.h) */
            if (!r.bad) md->load_exact = rd_u32(&r); /* time_scheme = "exact" */
            if (!r.bad && (md->load_exact > 1u || (md->load_exact && md->has_conv)))
                r.bad = 1;
            read_load_drag(md, &r); /* its quadratic drag (hfn_load.h) */
        }
    }
    if (r.bad || r.left != 0) {
        snprintf(err, err_size, "resources/model.bin is corrupt (%lu bytes, %s): its sizes "
                 "or indices do not fit the file; rebuild the FMU with hydrofmu build",
                 (unsigned long)size, r.bad ? "a count or index out of range" :
                 "bytes left over after the last section");
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
                         &md->og_val, &md->fs_re, &md->fs_im, &md->fo, &md->f_val,
                         &md->conv_K, &md->OC, &md->oc_val, &md->tab_a, &md->tab_b,
                         &md->tab_c};
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
    if (md->names) {
        size_t q, nnames = (size_t)md->npr + md->npi + md->nps;
        for (q = 0; q < nnames; q++) free(md->names[q]);
    }
    free(md->names);
    free(md->guid);
    free(md->tun_idx); free(md->tun_ptr); free(md->tun_row); free(md->tun_col);
    free(md->tun_val); free(md->forc_re); free(md->forc_im);
    free(md->conv_dof); free(md->conv_row); free(md->conv_col); free(md->oc_ptr);
    free(md->oc_idx);
    hfn_lines_free(md->lines);
    hfn_cat_free(md->cat);
    hfn_drift_free(md->drift);
    hfn_panels_free(md->panels);
    hfn_bodies_free(md->bodies);
    memset(md, 0, sizeof *md);
}
