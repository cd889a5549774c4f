/* hydrofmu native runtime, the panels: nonlinear hydrostatics and Froude-Krylov force on
 * the wetted part of each nonlinear body's mesh (the blob's panels section, written by
 * export/native/panels_blob.py, read at fmi2Instantiate).
 *
 * The physics is the panel kernel the Python FMU calls by ctypes
 * (runtime/panels/panel_kernel.c, included by hfn_panels.c with its symbols hidden): one
 * source, two FMUs. Per body and evaluation, one hp_body_loads call: the pose from the
 * body's six displacements (the kernel's hp_body_pose), both pressures in one pass over
 * the panels, the weight at the rotated centre of gravity. This file only reads the
 * displacements from the state (PQ), scales the wave by the ramp and the wave height as the
 * Python part does, and hands the two loads on as DOF forces (static, then wave: 2 nq).
 *
 * Section layout (u32 and f64 little-endian):
 *   u32 nbodies (0: no section data follows); if > 0:
 *   f64 ramp_time (s), scale0 (the wave's amplitude factor at build: the Python part's
 *   wave.height over the height its components were built with, 0 without a wave);
 *   f64 OP[nout * 2 nq] (the outputs of [static; wave] DOF forces); then per body:
 *   u32 nv, nt, nc, mode (the kernel's HP_MODE_* flags, static always), dof0 (the body's
 *   first DOF among the nq); f64 rho, g, depth (<= 0: deep water), body[7] (origin[3]: the
 *   reference point at rest, world; cog[3] about it, body frame; the weight m g, N);
 *   f64 vertices[3 nv] (body frame, about the reference point); u32 triangles[3 nt];
 *   f64 amplitude[nc], omega[nc], wavenumber[nc], heading[nc], phase[nc];
 *   f64 PQ[6 n] (the body's 6 displacements from the live state).
 * A triangle naming a vertex out of range, a non-finite vertex or constant is refused at
 * reading with a message. Every array is allocated at reading: none per step.
 */
#ifndef HFN_PANELS_H
#define HFN_PANELS_H

#include <stddef.h>
#include <stdint.h>

#include "hfn_internal.h"

struct hfn_reader_s;
typedef struct hfn_panel_body hfn_panel_body; /* one nonlinear body (hfn_panels.c) */

typedef struct {
    uint32_t nbodies, n, nq, nout;
    double ramp_time, scale0;
    double *OP;  /* nout x 2 nq */
    double *g2;  /* 2 nq: the last evaluation's static and wave DOF forces */
    const double *q_true; /* set by hfn_bodies.c: the true pose (nq; NULL: PQ y) */
    hfn_panel_body *bodies;
} hfn_panels_model;

/* Read the section at the cursor into *out (NULL when it has no body); n live states, nout
 * outputs, nq DOFs (0 outside the Runge-Kutta mode). 0, or -1 after a message into err. */
HFN_HIDDEN int hfn_panels_read(hfn_panels_model **out, struct hfn_reader_s *r, uint32_t n,
                               uint32_t nout, uint32_t nq, char *err, size_t err_size);
HFN_HIDDEN void hfn_panels_free(hfn_panels_model *pm);
/* The bodies' loads at the live state y, time t (s), run start t0 (s) and the tunable wave
 * height's factor dscale into pm->g2 (NaN when the kernel refuses a pose: the step then
 * diverges and is refused); g (nq) += static + wave. */
HFN_HIDDEN void hfn_panels_forces(hfn_panels_model *pm, const double *y, double t, double t0,
                                  double dscale, double *g);
/* out (nout) += OP g2 (after hfn_panels_forces at the output's point). */
HFN_HIDDEN void hfn_panels_outputs(const hfn_panels_model *pm, double *out);

#endif
