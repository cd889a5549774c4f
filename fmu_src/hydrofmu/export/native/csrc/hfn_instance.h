/* hydrofmu native runtime, an instance: the model it read, its dynamic state (one block of
 * doubles that an FMU state copies as is), its work arrays and caches, its logger and its
 * place in the FMI 2.0 co-simulation state machine. Allocated once at fmi2Instantiate: no
 * allocation per step. */
#ifndef HFN_INSTANCE_H
#define HFN_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "fmi2Functions.h"
#include "hfn_internal.h"
#include "hfn_model.h"

/* The FMI 2.0 co-simulation states (the value of *d.phase). */
enum { ST_INSTANTIATED, ST_INIT, ST_STEP, ST_FAILED, ST_TERMINATED, ST_ERROR };
/* The calls whose allowed states hfn_refused checks. */
enum {
    C_SETUP, C_ENTER, C_EXIT, C_STEP, C_TERMINATE, C_GET, C_SET_PAR, C_SET_INPUT,
    C_GET_STATE, C_SET_STATE, C_RESET
};
/* Phasors are recomputed exactly (trigonometry) every this many rotations, so that the
 * rounding of the rotations (about 1e-16 each) never accumulates past ~1e-14. */
#define RESYNC_STEPS 256
/* Log categories (as the Python FMU declares them): the bits of instance.categories. */
#define N_CATEGORIES 5

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
    /* the convolution radiation (hfn_conv.h): the ring position, the velocity history
     * (nc columns of 2 nk) and the grid sums G_0, G_1 (2 nq) */
    double *conv_pos, *conv_hist, *conv_g;
    /* the semi-implicit scheme's carried derivative (n), its time and validity (0/1) */
    double *si_d, *si_t, *si_valid;
    /* the load FMU's committed sample (hfn_load.h) */
    double *load;
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
    double *pe_re, *pe_im, *rk_g2, *p3, *sv;
    double rot2_h; /* the step the stages' rotations (rk_stage) are for */
    double *rk_stage; /* per stage of the tableau: rotation re, im and phasor re, im (k+1) */
    double *conv_work, conv_sn; /* the convolution's work (hfn_conv.c), the step's sn */
    double *pm_re, *pm_im, *rh_re, *rh_im; /* semi-implicit: the phasors at t + h/2 and the */
    double rh_h;                           /* half step's rotation, for this step length */
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
    /* FMI 2.0's step failed (ST_FAILED, after fmi2Discard) and error (ST_ERROR, after a
     * step's fmi2Error) states: not in the dynamic state (the step left the block as it
     * was), left by fmi2SetFMUstate, fmi2Reset or fmi2Terminate; 0: none. */
    int halt;
    /* The FMU states this instance made and has not freed (fmi2State.c): a state passed
     * in is looked up here by its address, never dereferenced before it is found. */
    void *states;
    double *deriv_work; /* hfn_deriv.c: the inputs' seed (m) and the outputs' derivative */
    double *load_work;  /* hfn_load.c */
} instance;

/* Point d's fields into block (dyn_size(md) doubles), in the order of the layout. */
HFN_HIDDEN void hfn_dyn_bind(dyn_view *d, double *block, const hfn_model *md);
/* The doubles of an instance's dynamic state. */
HFN_HIDDEN size_t hfn_dyn_size(const hfn_model *md);

/* The instance of the model in the resource folder (a file: URI), or NULL after a message
 * to functions->logger: the blob unreadable or corrupt, the GUID another build's, out of
 * memory. */
HFN_HIDDEN instance *hfn_instance_new(const char *name, const char *resource_uri,
                                      const char *guid, const fmi2CallbackFunctions *functions,
                                      int logging_on);
HFN_HIDDEN void hfn_instance_free(instance *c);
/* Back to the values after fmi2Instantiate (fmi2Reset). */
HFN_HIDDEN void hfn_reset_values(instance *c);

/* A message to the host's logger when logging is on and its category selected. */
HFN_HIDDEN void hfn_log(instance *c, fmi2Status status, const char *category, const char *fmt,
                        ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define REFUSE(c, ...) hfn_log((c), fmi2Error, "logStatusError", __VA_ARGS__)
/* An error message before an instance exists (or when it could not be made). */
HFN_HIDDEN void hfn_plain_log(const fmi2CallbackFunctions *cb, const char *name,
                              const char *msg);
/* The FMI 2.0 state the instance is in (ST_*). */
HFN_HIDDEN int hfn_state(const instance *c);
/* Every FMU state the instance still holds freed (fmi2FreeInstance). */
HFN_HIDDEN void hfn_states_release(instance *c);
/* The name of the state the instance is in. */
HFN_HIDDEN const char *hfn_state_name(const instance *c);
/* Whether call is allowed in the instance's state. */
HFN_HIDDEN int hfn_allowed(const instance *c, int call);
/* 1 (after a message) when call is not allowed in the instance's state, else 0. */
HFN_HIDDEN int hfn_refused(instance *c, int call, const char *fmi_name);

#endif
