/* hydrofmu native runtime, the catenary moorings (see hfn_catenary.h). */
#include "hfn_catenary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one catenary solve (runtime/moorings/catenary_kernel.c), its functions hidden here. */
#define HF_EXPORT HFN_HIDDEN
#include "catenary_kernel.c"

#define LINE_DOUBLES 13

typedef struct {
    hf_catenary *lines;
    uint32_t n_lines, dof0, out_row;
    double *raw, *PQ, *tens; /* raw: the blob's lines; tens: 2 n_lines */
    uint32_t *pq_idx, npq;   /* the state columns PQ reads */
    double pose[6], f[6], sol[HF_CAT_SOL];
} cat_part;

struct hfn_cat_model {
    uint32_t nparts, n, nout, nq;
    double *OK, *gc; /* OK: nout x nq; gc: nq (work) */
    cat_part *parts;
    int failed;      /* a failure not yet reported */
    char msg[1024];
};

hfn_cat_model *hfn_cat_new(uint32_t nparts, uint32_t n, uint32_t nout, uint32_t nq) {
    hfn_cat_model *cm = (hfn_cat_model *)calloc(1, sizeof *cm);
    if (!cm) return NULL;
    cm->nparts = nparts; cm->n = n; cm->nout = nout; cm->nq = nq;
    cm->parts = (cat_part *)calloc((size_t)nparts + 1, sizeof(cat_part));
    cm->gc = (double *)calloc((size_t)nq + 1, sizeof(double));
    if (!cm->parts || !cm->gc) { hfn_cat_free(cm); return NULL; }
    return cm;
}

void hfn_cat_free(hfn_cat_model *cm) {
    uint32_t i;
    if (!cm) return;
    if (cm->parts)
        for (i = 0; i < cm->nparts; i++) {
            cat_part *P = &cm->parts[i];
            free(P->lines); free(P->raw); free(P->PQ); free(P->tens); free(P->pq_idx);
        }
    free(cm->parts); free(cm->OK); free(cm->gc);
    free(cm);
}

double **hfn_cat_ok(hfn_cat_model *cm) { return &cm->OK; }

int hfn_cat_part(hfn_cat_model *cm, uint32_t i, uint32_t n_lines, uint32_t dof0,
                 uint32_t out_row, double *lines, double *pq) {
    cat_part *P;
    uint32_t l, q;
    if (i >= cm->nparts) { free(lines); free(pq); return -1; }
    P = &cm->parts[i];
    P->raw = lines; P->PQ = pq;
    if (!lines || !pq || n_lines < 1u || (uint64_t)dof0 + 6u > cm->nq ||
        (uint64_t)out_row + 2u * (uint64_t)n_lines > cm->nout)
        return -1;
    P->n_lines = n_lines; P->dof0 = dof0; P->out_row = out_row;
    P->lines = (hf_catenary *)calloc(n_lines, sizeof(hf_catenary));
    P->tens = (double *)calloc(2 * (size_t)n_lines, sizeof(double));
    P->pq_idx = (uint32_t *)calloc((size_t)cm->n + 1, sizeof(uint32_t));
    if (!P->lines || !P->tens || !P->pq_idx) return -1;
    for (l = 0; l < n_lines; l++) { /* the values the Python part checked, checked again */
        const double *v = lines + (size_t)l * LINE_DOUBLES;
        hf_catenary *c = &P->lines[l];
        for (q = 0; q < LINE_DOUBLES; q++)
            if (q != 2 && !isfinite(v[q])) return -1;
        if (!(v[0] > 0 && v[1] > 0 && v[2] > 0 && v[3] >= 0 && v[4] >= 0 && v[5] > 0) ||
            !(v[12] == 0.0 || v[12] == 1.0))
            return -1;
        c->length = v[0]; c->weight = v[1]; c->ea = v[2]; c->cb = v[3];
        c->max_strain = v[4]; c->tol = v[5];
        for (q = 0; q < 3; q++) { c->anchor[q] = v[6 + q]; c->fairlead[q] = v[9 + q]; }
        c->seabed = v[12] == 1.0;
    }
    for (q = 0; q < cm->n; q++) { /* the columns of PQ with a nonzero */
        uint32_t k;
        int used = 0;
        for (k = 0; k < 6; k++) used |= pq[(size_t)k * cm->n + q] != 0.0;
        if (used) P->pq_idx[P->npq++] = q;
    }
    return 0;
}

/* Part P at the live state y: its pose, the lines' force and moment into P->f and the
 * tensions into P->tens; 0, or -1 after recording the first failure's message. */
static int evaluate(hfn_cat_model *cm, cat_part *P, const double *y) {
    uint32_t i, k;
    int64_t bad = -1;
    int code;
    for (i = 0; i < 6; i++) {
        const double *pq = P->PQ + (size_t)i * cm->n;
        double a = 0.0;
        for (k = 0; k < P->npq; k++) a += pq[P->pq_idx[k]] * y[P->pq_idx[k]];
        P->pose[i] = a;
    }
    code = hf_cat_body(P->lines, P->n_lines, P->pose, P->f, P->tens, P->sol, &bad);
    if (code == CAT_OK) return 0;
    if (!cm->failed && bad >= 0) {
        char text[512];
        hf_cat_message(&P->lines[bad], code, P->sol, text, (int64_t)sizeof text);
        snprintf(cm->msg, sizeof cm->msg, "catenary line %ld of the mooring on DOFs %u-%u at "
                 "the pose [%.6g, %.6g, %.6g, %.6g, %.6g, %.6g]: %s; the body has moved too "
                 "far for its lines (longer lines, or a smaller wave)", (long)bad + 1,
                 (unsigned)P->dof0 + 1u, (unsigned)P->dof0 + 6u, P->pose[0], P->pose[1],
                 P->pose[2], P->pose[3], P->pose[4], P->pose[5], text);
        cm->failed = 1;
    }
    return -1;
}

int hfn_cat_deriv(hfn_cat_model *cm, const double *y, double *g) {
    uint32_t i, k;
    int rc = 0;
    for (i = 0; i < cm->nparts; i++) {
        cat_part *P = &cm->parts[i];
        if (evaluate(cm, P, y) != 0) {
            for (k = 0; k < cm->nq; k++) g[k] = NAN;
            rc = -1;
            continue;
        }
        for (k = 0; k < 6; k++) g[P->dof0 + k] += P->f[k];
    }
    return rc;
}

void hfn_cat_outputs(hfn_cat_model *cm, const double *y, double *out) {
    uint32_t i, j, k;
    memset(cm->gc, 0, cm->nq * sizeof(double));
    for (i = 0; i < cm->nparts; i++) {
        cat_part *P = &cm->parts[i];
        if (evaluate(cm, P, y) != 0) {
            for (k = 0; k < 6; k++) cm->gc[P->dof0 + k] = NAN;
            for (k = 0; k < 2 * P->n_lines; k++) out[P->out_row + k] = NAN;
            continue;
        }
        for (k = 0; k < 6; k++) cm->gc[P->dof0 + k] += P->f[k];
        for (k = 0; k < 2 * P->n_lines; k++) out[P->out_row + k] = P->tens[k];
    }
    for (j = 0; j < cm->nout; j++) {
        const double *row = cm->OK + (size_t)j * cm->nq;
        double s = 0.0;
        for (k = 0; k < cm->nq; k++) s += row[k] * cm->gc[k];
        out[j] += s;
    }
}

const char *hfn_cat_failure(hfn_cat_model *cm) {
    if (!cm || !cm->failed) return NULL;
    cm->failed = 0;
    return cm->msg;
}
