/* hydrofmu native runtime, an instance (see hfn_instance.h): its life cycle, its dynamic
 * state's layout, its logger and the FMI 2.0 state machine's table. */
#include "hfn_instance.h"

#include "hfn_conv.h"
#include "hfn_uri.h"
#include "hfn_load.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *STATE_NAMES[] = {"instantiated", "initialization mode", "step complete",
                                    "step failed", "terminated", "error"};
static const char *STATE_HINTS[] = {
    "call fmi2SetupExperiment and fmi2EnterInitializationMode first",
    "call fmi2ExitInitializationMode first", "the instance is stepping",
    "the last step returned fmi2Discard: only the getters, fmi2SetFMUstate (back to a saved "
    "state), fmi2Terminate, fmi2Reset and fmi2FreeInstance remain",
    "the instance has been terminated; fmi2Reset it or instantiate a new one",
    "a step returned fmi2Error: only the getters, fmi2SetFMUstate (back to a saved state), "
    "fmi2Terminate, fmi2Reset and fmi2FreeInstance remain"};
#define BIT(s) (1u << (s))
#define ANY_STATE 0x3Fu
/* The states each call (C_*) is allowed in. */
static const unsigned ALLOWED[] = {
    BIT(ST_INSTANTIATED), BIT(ST_INSTANTIATED), BIT(ST_INIT), BIT(ST_STEP),
    BIT(ST_STEP) | BIT(ST_FAILED) | BIT(ST_ERROR),
    BIT(ST_INIT) | BIT(ST_STEP) | BIT(ST_FAILED) | BIT(ST_TERMINATED) | BIT(ST_ERROR),
    BIT(ST_INSTANTIATED) | BIT(ST_INIT),
    BIT(ST_INSTANTIATED) | BIT(ST_INIT) | BIT(ST_STEP), ANY_STATE, ANY_STATE, ANY_STATE};

/* ------------------------------------------------------------------ the dynamic state */
void hfn_dyn_bind(dyn_view *d, double *block, const hfn_model *md) {
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
    d->conv_pos = p; d->conv_hist = p + (md->has_conv ? 1 : 0);
    d->conv_g = d->conv_hist + 2 * (size_t)md->conv_nc * md->conv_nk;
    p += hfn_conv_state_size(md);
    d->si_d = p; d->si_t = p + md->n; d->si_valid = p + md->n + 1;
    p += hfn_lines_state_size(md->lines);
    d->load = p; p += hfn_load_state_size(md);
    d->size = (size_t)(p - block);
}

size_t hfn_dyn_size(const hfn_model *md) {
    return 6 + (size_t)md->n + md->m + md->nout + 2 * (size_t)md->k + 2 + 2 + md->n + 1 + md->npr
           + 3 + 2 * (size_t)md->nk + 2 * (size_t)md->nq + hfn_conv_state_size(md) +
           hfn_lines_state_size(md->lines) + hfn_load_state_size(md);
}

/* ------------------------------------------------------------------ logging */
void hfn_log(instance *c, fmi2Status status, const char *category, const char *fmt, ...) {
    char text[1024], escaped[2100];
    size_t i, j = 0;
    unsigned bit;
    va_list args;
    if (!c || !c->cb.logger) return;
    /* A discarded, refused or fatal call's reason always reaches the host, whatever
       loggingOn and the categories say (as the FMUSDK template logs errors); the categories
       and loggingOn filter the rest. */
    if (status != fmi2Discard && status != fmi2Error && status != fmi2Fatal) {
        if (!c->logging_on) return;
        bit = status == fmi2Warning ? 1u : 16u;
        if (!(c->categories & (bit | 16u))) return;
    }
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

int hfn_state(const instance *c) {
    double phase = *c->d.phase;
    if (c->halt) return c->halt;
    /* the block's phase is one of ST_* (fmi2DeSerializeFMUstate checks it): guarded all
     * the same, so that no value converts out of range */
    if (!(phase >= 0.0 && phase <= (double)ST_ERROR)) return ST_ERROR;
    return (int)phase;
}

const char *hfn_state_name(const instance *c) { return STATE_NAMES[hfn_state(c)]; }

int hfn_allowed(const instance *c, int call) {
    return (ALLOWED[call] & BIT(hfn_state(c))) != 0;
}

int hfn_refused(instance *c, int call, const char *fmi_name) {
    int state = hfn_state(c);
    if (ALLOWED[call] & BIT(state)) return 0;
    REFUSE(c, "%s is not allowed in state '%s' (FMI 2.0 co-simulation): %s", fmi_name,
           STATE_NAMES[state], STATE_HINTS[state]);
    return 1;
}

void hfn_plain_log(const fmi2CallbackFunctions *cb, const char *name, const char *msg) {
    if (cb && cb->logger) cb->logger(cb->componentEnvironment, name, fmi2Error, "logStatusError",
                                     "%s", msg);
}

/* ------------------------------------------------------------------ the resource */
static char *dup_string(const char *s) {
    size_t len = strlen(s);
    char *d = (char *)malloc(len + 1);
    if (d) memcpy(d, s, len + 1);
    return d;
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

/* The bytes of resources/model.bin in the folder of the URI (NULL after a message); its
 * path into *where (to be freed). */
static unsigned char *read_model_file(const char *resource_uri, size_t *size,
                                      const fmi2CallbackFunctions *functions, const char *name,
                                      char **where) {
    char *dir = hfn_uri_to_path(resource_uri, HFN_URI_WINDOWS), *path;
    unsigned char *data;
    *where = NULL;
    if (!dir) {
        char msg[1200];
        snprintf(msg, sizeof msg, "fmi2Instantiate: the resource location '%.1000s' is not a "
                 "file URI of this machine (file:///path, file:/path, file://localhost/path%s)",
                 resource_uri ? resource_uri : "(null)",
                 HFN_URI_WINDOWS ? ", file:///C:/path or file://server/share/path" : "");
        hfn_plain_log(functions, name, msg);
        return NULL;
    }
    path = (char *)malloc(strlen(dir) + 32);
    if (!path) { free(dir); return NULL; }
    snprintf(path, strlen(dir) + 32, "%s%smodel.bin", dir,
             (dir[0] && dir[strlen(dir) - 1] == '/') ? "" : "/");
    free(dir);
    data = read_file(path, size);
    if (!data) {
        char msg[1200];
        snprintf(msg, sizeof msg, "fmi2Instantiate: cannot read the model file '%.1000s': the "
                 "FMU is incomplete or the resource location is wrong", path);
        hfn_plain_log(functions, name, msg);
        free(path);
        return NULL;
    }
    *where = path;
    return data;
}

/* ------------------------------------------------------------------ life cycle */
void hfn_instance_free(instance *c) {
    if (!c) return;
    free(c->name); free(c->d.block); free(c->w); free(c->xp); free(c->xp1); free(c->xnew);
    free(c->xtmp); free(c->fused); free(c->rot_re); free(c->rot_im); free(c->dwork);
    free(c->ipiv); free(c->deriv_work); free(c->load_work);
    {
        int q;
        double *rk[] = {c->rk_k[0], c->rk_k[1], c->rk_k[2], c->rk_k[3], c->rk_y, c->rk_b,
                        c->rk_g, c->rk_gd, c->rk_ge, c->rk_v, c->rk_save, c->pe_re,
                        c->pe_im, c->rk_g2, c->p3,
                        c->sv, c->rk_stage, c->conv_work, c->pm_re, c->pm_im,
                        c->rh_re, c->rh_im};
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

void hfn_reset_values(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t i;
    memset(c->d.block, 0, c->d.size * sizeof(double));
    *c->d.phase = ST_INSTANTIATED;
    c->halt = 0;
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
    c->rh_h = -1.0;
    c->rot_ramp_re = 1.0; c->rot_ramp_im = 0.0;
    c->cur_fused = NULL;
    /* the blob's matrices; hfn_tunables_current() rebuilds them when a value differs */
    c->cur_F = md->F; c->cur_G = md->G;
    for (i = 0; i < 8; i++) c->cur_xc[i] = md->xc[i];
    c->cur_c_ptr = md->c_ptr; c->cur_c_idx = md->c_idx; c->cur_c_val = md->c_val;
    for (i = 0; i < md->ntun; i++) c->tun_built[i] = md->par_r[md->tun_idx[i]];
    c->tun_c_ok = c->tun_d_ok = c->tun_at_build = 1;
}

/* The exact stepper's work arrays and the dynamic state; 0, or -1 out of memory. */
static int alloc_work(instance *c) {
    const hfn_model *md = &c->md;
    size_t nb = (size_t)md->n + md->m + 1;
    c->d.block = (double *)calloc(hfn_dyn_size(md), sizeof(double));
    c->w = (double *)calloc(md->nz + 1, sizeof(double));
    c->xp = (double *)calloc(md->n + 1, sizeof(double));
    c->xp1 = (double *)calloc(md->n + 1, sizeof(double));
    c->xnew = (double *)calloc(md->n + 1, sizeof(double));
    c->xtmp = (double *)calloc(md->n + 1, sizeof(double));
    c->fused = (double *)calloc((size_t)md->n * md->nz + 1, sizeof(double));
    c->rot_re = (double *)calloc(md->k + 1, sizeof(double));
    c->rot_im = (double *)calloc(md->k + 1, sizeof(double));
    c->dwork = (double *)calloc(8 * nb * nb + 1, sizeof(double));
    c->ipiv = (int *)calloc(nb + 1, sizeof(int));
    c->par_i = (int32_t *)calloc(md->npi + 1, sizeof(int32_t));
    c->par_s = (char **)calloc(md->nps + 1, sizeof(char *));
    c->deriv_work = (double *)calloc((size_t)md->m + md->nout + 1, sizeof(double));
    c->load_work = (double *)calloc(hfn_load_work_size(md) + 1, sizeof(double));
    return (!c->deriv_work || !c->load_work || !c->d.block || !c->w || !c->xp || !c->xp1 || !c->xnew || !c->xtmp || !c->fused ||
            !c->rot_re || !c->rot_im || !c->dwork || !c->ipiv || !c->par_i || !c->par_s)
               ? -1 : 0;
}

/* The Runge-Kutta mode's work arrays (and the output map's); 0, or -1 out of memory. */
static int alloc_rk_work(instance *c) {
    const hfn_model *md = &c->md;
    size_t n1 = (size_t)md->n + 1, q1 = (size_t)md->nq + 1, k1 = (size_t)md->k + 1;
    int q;
    for (q = 0; q < 4; q++) c->rk_k[q] = (double *)calloc(n1, sizeof(double));
    c->rk_y = (double *)calloc(n1, sizeof(double));
    c->rk_b = (double *)calloc(n1, sizeof(double));
    c->rk_g = (double *)calloc(q1, sizeof(double));
    c->rk_gd = (double *)calloc(q1, sizeof(double));
    c->rk_ge = (double *)calloc(q1, sizeof(double));
    c->rk_v = (double *)calloc(q1, sizeof(double));
    c->rk_g2 = (double *)calloc(2 * q1, sizeof(double));
    c->rk_save = (double *)calloc(hfn_dyn_size(md), sizeof(double));
    c->pe_re = (double *)calloc(k1, sizeof(double));
    c->pe_im = (double *)calloc(k1, sizeof(double));
    c->pm_re = (double *)calloc(k1, sizeof(double));
    c->pm_im = (double *)calloc(k1, sizeof(double));
    c->rh_re = (double *)calloc(k1, sizeof(double));
    c->rh_im = (double *)calloc(k1, sizeof(double));
    c->p3 = (double *)calloc(6 * k1, sizeof(double));
    c->sv = (double *)calloc((size_t)md->nfac + 1, sizeof(double));
    c->rk_stage = (double *)calloc(16 * k1, sizeof(double));
    if (!c->rk_stage || hfn_conv_alloc(c) != 0) return -1;
    return (!c->rk_k[0] || !c->rk_k[1] || !c->rk_k[2] || !c->rk_k[3] || !c->rk_y || !c->rk_b ||
            !c->rk_g || !c->rk_gd || !c->rk_ge || !c->rk_v || !c->rk_g2 || !c->rk_save ||
            !c->pe_re || !c->pe_im || !c->pm_re || !c->pm_im || !c->rh_re || !c->rh_im ||
            !c->p3 || !c->sv) ? -1 : 0;
}

/* The rebuilt matrices of the tunable matrix parameters; 0, or -1 out of memory. */
static int alloc_tunable_work(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t q;
    size_t nnz = 0;
    int lost = 0;
    if (!md->ntun) return 0;
    for (q = 0; q < md->nout; q++) nnz += md->c_ptr[q + 1] - md->c_ptr[q];
    nnz += md->tun_ptr[3 * md->ntun]; /* C's pattern grows by dC's at most */
    c->tun_built = (double *)calloc(md->ntun, sizeof(double));
    c->tun_F = (double *)calloc((size_t)md->n * md->n + 1, sizeof(double));
    c->tun_G = (double *)calloc((size_t)md->n * (md->m + 1) + 1, sizeof(double));
    c->tun_C = (double *)calloc((size_t)md->nout * md->nz + 1, sizeof(double));
    c->tun_c_val = (double *)calloc(nnz + 1, sizeof(double));
    c->tun_c_idx = (uint32_t *)calloc(nnz + 1, sizeof(uint32_t));
    c->tun_c_ptr = (uint32_t *)calloc((size_t)md->nout + 1, sizeof(uint32_t));
    c->zwork = (double *)calloc(2 * (size_t)md->n * md->n + 2 * (size_t)md->n + 1,
                                sizeof(double));
    c->tun_tmp = (double *)calloc(2 * (size_t)md->n + 1, sizeof(double));
    for (q = 0; q < 8; q++) {
        c->tun_xc[q] = (double *)calloc((size_t)md->k * md->n + 1, sizeof(double));
        if (!c->tun_xc[q]) lost = 1;
    }
    return (lost || !c->tun_built || !c->tun_F || !c->tun_G || !c->tun_C || !c->tun_c_val ||
            !c->tun_c_idx || !c->tun_c_ptr || !c->zwork || !c->tun_tmp) ? -1 : 0;
}

/* The Integer parameter max_internal_steps_per_call's index, -1: none. */
static int32_t step_limit_index(const hfn_model *md) {
    uint32_t q;
    for (q = 0; q < md->npi; q++)
        if (strcmp(md->names[md->npr + q], "max_internal_steps_per_call") == 0)
            return (int32_t)q;
    return -1;
}

instance *hfn_instance_new(const char *name, const char *resource_uri, const char *guid,
                           const fmi2CallbackFunctions *functions, int logging_on) {
    instance *c;
    char err[512];
    size_t size = 0;
    char *path = NULL;
    unsigned char *data = read_model_file(resource_uri, &size, functions, name, &path);
    if (!data) return NULL;
    c = (instance *)calloc(1, sizeof *c);
    if (!c) { free(data); free(path); return NULL; }
    c->cb = *functions;
    c->name = dup_string(name);
    c->logging_on = logging_on;
    c->categories = 0x1Fu;
    if (hfn_model_read(&c->md, data, size, err, sizeof err) != 0) {
        char msg[1600];
        snprintf(msg, sizeof msg, "fmi2Instantiate: '%.1000s': %s", path, err);
        free(data);
        free(path);
        hfn_plain_log(functions, name, msg);
        hfn_instance_free(c);
        return NULL;
    }
    free(data);
    free(path);
    if (guid && c->md.guid && strcmp(guid, c->md.guid) != 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "fmi2Instantiate: GUID '%.200s' does not match the model's "
                 "'%.200s' (the model description and resources/model.bin come from different "
                 "builds)", guid, c->md.guid);
        hfn_plain_log(functions, name, msg);
        hfn_instance_free(c);
        return NULL;
    }
    c->step_limit_index = step_limit_index(&c->md);
    if (alloc_work(c) != 0 || alloc_rk_work(c) != 0 || alloc_tunable_work(c) != 0) {
        hfn_plain_log(functions, name, "fmi2Instantiate: out of memory");
        hfn_instance_free(c);
        return NULL;
    }
    hfn_dyn_bind(&c->d, c->d.block, &c->md);
    hfn_reset_values(c);
    return c;
}
