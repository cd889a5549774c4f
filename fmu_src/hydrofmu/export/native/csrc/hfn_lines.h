/* hydrofmu native runtime, the MoorDyn lines and the semi-implicit scheme's data: the
 * blob's last section (layout in hfn_model.h), read at fmi2Instantiate.
 *
 * The lines' physics is the line kernel the Python FMU calls by ctypes
 * (runtime/moorings/line_kernel.c, included by hfn_lines.c with its symbols hidden): one
 * source, two FMUs. This file only moves the body's coupled points with the body (they are
 * the points of one coupled body of the kernel at the pose [ref + q[:3], q[3:]]), sums their
 * forces and moments about ref + q[:3] into the body's DOF forces, and reports the lines'
 * fairlead and anchor tensions. No allocation after hfn_lines_read. */
#ifndef HFN_LINES_H
#define HFN_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "hfn_internal.h"

typedef struct hfn_line_part hfn_line_part; /* one MoorDyn file on one body (hfn_lines.c) */

/* The section: the scheme (si_n = 0: the RK mode's rk4) and the line parts. */
typedef struct {
    uint32_t si_n;      /* semi-implicit: N iterations per step; 0: rk4 */
    uint32_t si_family; /* 1 beuler, 2 midpoint, 3 aca */
    double *relax;      /* N - 1 relaxation weights of the previous iterate */
    double *z, *g, *ytmp, *d0; /* the scheme's work, n each */
    uint32_t nparts, n, nout, nq;
    double *OL;         /* nout x nq: the outputs of the lines' DOF forces */
    double *gl;         /* nq: the lines' DOF forces (work) */
    hfn_line_part *parts;
} hfn_lines_model;

/* Read the section from data (size bytes left) into *out (NULL when it holds neither a
 * scheme nor lines); *used: its bytes. n live states, nout outputs, nq DOFs, rk: the
 * Runge-Kutta mode is on. 0, or -1 (corrupt, out of memory). */
HFN_HIDDEN int hfn_lines_read(hfn_lines_model **out, const unsigned char *data, size_t size,
                              size_t *used, uint32_t n, uint32_t nout, uint32_t nq,
                              uint32_t rk);
HFN_HIDDEN void hfn_lines_free(hfn_lines_model *lm);
/* Part i's steady current: MoorDyn-C's Currents = 1 table of rows depths z (ascending, m)
 * and velocities u (rows x 3, m/s), owned by the caller (hfn_drift.c). */
HFN_HIDDEN void hfn_lines_set_current(hfn_lines_model *lm, uint32_t i, uint32_t rows,
                                      const double *z, const double *u);
/* The doubles the scheme keeps in the dynamic state: the carried derivative (n), its time
 * and validity; 0 without a semi-implicit scheme. */
HFN_HIDDEN size_t hfn_lines_state_size(const hfn_lines_model *lm);
/* dy (n) += the line states' derivative at the live state y; g (nq) += the lines' DOF forces.
 * 0, or -1: a free point's mass matrix is singular (dy is then NaN: the step diverges). */
HFN_HIDDEN int hfn_lines_deriv(hfn_lines_model *lm, const double *y, double *dy, double *g);
/* out (nout) += OL (the lines' DOF forces at y); the tension rows set. */
HFN_HIDDEN void hfn_lines_outputs(hfn_lines_model *lm, const double *y, double *out);

#endif
