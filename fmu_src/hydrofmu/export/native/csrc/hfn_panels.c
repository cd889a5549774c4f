/* hydrofmu native runtime, the panels (see hfn_panels.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfn_internal.h"

/* The one panel kernel (runtime/panels/panel_kernel.c, found through -I, as the line
 * kernel; the FMU's sources/ carry it beside this file), its functions hidden here. */
#define HP_EXPORT HFN_HIDDEN
#include "panel_kernel.c"

#include "hfn_model.h"
#include "hfn_panels.h"
#include "hfn_reader.h"
#include "hfn_waves.h"

struct hfn_panel_body {
    struct hp_panels m;
    uint32_t mode, dof0;
    double body[7];
    double *vertices, *wave[5], *work, *pq;
    int64_t *triangles;
    double q[6], pose[12], out[HP_OUT];
};

static void free_body(hfn_panel_body *b) {
    int i;
    free(b->vertices); free(b->work); free(b->pq); free(b->triangles);
    for (i = 0; i < 5; i++) free(b->wave[i]);
}

void hfn_panels_free(hfn_panels_model *pm) {
    uint32_t i;
    if (!pm) return;
    if (pm->bodies) for (i = 0; i < pm->nbodies; i++) free_body(&pm->bodies[i]);
    free(pm->bodies); free(pm->OP); free(pm->g2);
    free(pm);
}

static int all_finite(const double *a, size_t count) {
    size_t i;
    for (i = 0; i < count; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* One body's data; 0, or -1 after a message (the cursor's failure: r->bad). */
static int read_body(hfn_panel_body *b, hfn_reader *r, uint32_t index, const hfn_panels_model *pm,
                     char *err, size_t err_size) {
    uint32_t nv = hfn_rd_u32(r), nt = hfn_rd_u32(r), nc = hfn_rd_u32(r), *tri;
    size_t i;
    int w;
    b->mode = hfn_rd_u32(r); b->dof0 = hfn_rd_u32(r);
    b->m.rho = hfn_rd_f64(r); b->m.g = hfn_rd_f64(r); b->m.depth = hfn_rd_f64(r);
    for (i = 0; i < 7; i++) b->body[i] = hfn_rd_f64(r);
    if (r->bad) return -1;
    if (nv < 3u || nt < 1u || !(b->mode & HP_MODE_STATIC) || b->mode > 7u ||
        (uint64_t)b->dof0 + 6u > pm->nq || !(b->m.rho > 0.0) || !(b->m.g > 0.0) ||
        !isfinite(b->m.rho) || !isfinite(b->m.g) || isnan(b->m.depth) ||
        !all_finite(b->body, 7)) {
        snprintf(err, err_size, "resources/model.bin: nonlinear body %u has impossible "
                 "constants (%u vertices, %u triangles, mode %u, DOF %u of %u, rho %g, g %g); "
                 "rebuild the FMU with hydrofmu build", (unsigned)index, (unsigned)nv,
                 (unsigned)nt, (unsigned)b->mode, (unsigned)b->dof0, (unsigned)pm->nq,
                 b->m.rho, b->m.g);
        return -1;
    }
    b->vertices = hfn_rd_array(r, 3 * (size_t)nv);
    tri = hfn_rd_u32_array(r, 3 * (size_t)nt);
    for (w = 0; w < 5; w++) b->wave[w] = hfn_rd_array(r, nc);
    b->pq = hfn_rd_array(r, 6 * (size_t)pm->n);
    if (r->bad || !tri) { free(tri); return -1; }
    b->triangles = (int64_t *)calloc(3 * (size_t)nt, sizeof(int64_t));
    b->work = (double *)calloc(HP_STRIDE * (size_t)nv + 4 * (size_t)nc + 1, sizeof(double));
    if (!b->triangles || !b->work) { free(tri); r->bad = 1; return -1; }
    for (i = 0; i < 3 * (size_t)nt; i++) {
        if (tri[i] >= nv) {
            snprintf(err, err_size, "resources/model.bin: nonlinear body %u's mesh is corrupt: "
                     "triangle %lu names vertex %u, the mesh has %u; rebuild the FMU with "
                     "hydrofmu build", (unsigned)index, (unsigned long)(i / 3),
                     (unsigned)tri[i], (unsigned)nv);
            free(tri);
            return -1;
        }
        b->triangles[i] = (int64_t)tri[i];
    }
    free(tri);
    for (i = 0; i < 3 * (size_t)nv; i++)
        if (!isfinite(b->vertices[i])) {
            snprintf(err, err_size, "resources/model.bin: nonlinear body %u's mesh is corrupt: "
                     "vertex %lu has a non-finite coordinate (%g); rebuild the FMU with "
                     "hydrofmu build", (unsigned)index, (unsigned long)(i / 3),
                     b->vertices[i]);
            return -1;
        }
    for (w = 0; w < 5; w++)
        if (!all_finite(b->wave[w], nc)) {
            snprintf(err, err_size, "resources/model.bin: nonlinear body %u's wave has a "
                     "non-finite component value; rebuild the FMU with hydrofmu build",
                     (unsigned)index);
            return -1;
        }
    if (!all_finite(b->pq, 6 * (size_t)pm->n)) { r->bad = 1; return -1; }
    b->m.n_vertices = nv; b->m.n_triangles = nt; b->m.n_components = nc;
    b->m.vertices = b->vertices; b->m.triangles = b->triangles;
    b->m.amplitude = b->wave[0]; b->m.omega = b->wave[1]; b->m.wavenumber = b->wave[2];
    b->m.heading = b->wave[3]; b->m.phase = b->wave[4]; b->m.work = b->work;
    return 0;
}

int hfn_panels_read(hfn_panels_model **out, struct hfn_reader_s *r, uint32_t n, uint32_t nout,
                    uint32_t nq, char *err, size_t err_size) {
    hfn_panels_model *pm;
    uint32_t count = hfn_rd_u32(r), i;
    *out = NULL;
    if (r->bad) {
        snprintf(err, err_size, "resources/model.bin is corrupt (it ends before its panels "
                 "section); rebuild the FMU with hydrofmu build");
        return -1;
    }
    if (count == 0u) return 0;
    if (nq == 0u || count > nq / 6u) {
        snprintf(err, err_size, "resources/model.bin: %u nonlinear bodies for %u DOFs (the "
                 "Runge-Kutta mode steps them); rebuild the FMU with hydrofmu build",
                 (unsigned)count, (unsigned)nq);
        return -1;
    }
    pm = (hfn_panels_model *)calloc(1, sizeof *pm);
    if (!pm) {
        snprintf(err, err_size, "out of memory reading the panels section of model.bin");
        return -1;
    }
    pm->n = n; pm->nout = nout; pm->nq = nq;
    pm->ramp_time = hfn_rd_f64(r); pm->scale0 = hfn_rd_f64(r);
    pm->OP = hfn_rd_array(r, (size_t)nout * 2 * nq);
    pm->g2 = (double *)calloc(2 * (size_t)nq + 1, sizeof(double));
    pm->bodies = (hfn_panel_body *)calloc(count, sizeof(hfn_panel_body));
    if (pm->bodies) pm->nbodies = count;
    if (r->bad || !pm->g2 || !pm->bodies || !isfinite(pm->ramp_time) ||
        !isfinite(pm->scale0) || !all_finite(pm->OP, (size_t)nout * 2 * nq)) {
        snprintf(err, err_size, "resources/model.bin is corrupt (its panels section does not "
                 "fit the file); rebuild the FMU with hydrofmu build");
        hfn_panels_free(pm);
        return -1;
    }
    for (i = 0; i < count; i++)
        if (read_body(&pm->bodies[i], r, i, pm, err, err_size) != 0) {
            if (r->bad)
                snprintf(err, err_size, "resources/model.bin is corrupt (nonlinear body %u: "
                         "its sizes do not fit the file); rebuild the FMU with hydrofmu build",
                         (unsigned)i);
            hfn_panels_free(pm);
            return -1;
        }
    *out = pm;
    return 0;
}

void hfn_panels_forces(hfn_panels_model *pm, const double *y, double t, double t0,
                       double dscale, double *g) {
    uint32_t i, j, nq = pm->nq;
    /* the Python part's scale * ramp_factor(t - t0, ramp_time) */
    double scale = pm->scale0 * dscale * hfn_half_cosine(t - t0, pm->ramp_time);
    for (i = 0; i < 2 * nq; i++) pm->g2[i] = 0.0;
    for (i = 0; i < pm->nbodies; i++) {
        hfn_panel_body *b = &pm->bodies[i];
        for (j = 0; j < 6; j++) {
            const double *row = b->pq + (size_t)j * pm->n;
            double s = 0.0;
            uint32_t c;
            for (c = 0; c < pm->n; c++) s += row[c] * y[c];
            b->q[j] = pm->q_true ? pm->q_true[b->dof0 + j] : s; /* large rotations */
        }
        if (hp_body_loads(&b->m, b->body, b->q, t, scale, b->mode, b->pose, b->out) != 0) {
            for (j = 0; j < 2 * nq; j++) pm->g2[j] = NAN; /* refused: the step diverges */
            break;
        }
        for (j = 0; j < 6; j++) {
            pm->g2[b->dof0 + j] = b->out[HP_STATIC + j];
            pm->g2[nq + b->dof0 + j] = b->out[HP_WAVE + j];
        }
    }
    if (g)
        for (i = 0; i < nq; i++) g[i] += pm->g2[i] + pm->g2[nq + i];
}

void hfn_panels_outputs(const hfn_panels_model *pm, double *out) {
    uint32_t i, j, w = 2 * pm->nq;
    for (i = 0; i < pm->nout; i++) {
        const double *row = pm->OP + (size_t)i * w;
        double s = 0.0;
        for (j = 0; j < w; j++) s += row[j] * pm->g2[j];
        out[i] += s;
    }
}
