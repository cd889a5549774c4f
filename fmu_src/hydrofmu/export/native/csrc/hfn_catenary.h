/* hydrofmu native runtime, the catenary moorings: the blob's catenary section (after the
 * lines section; export/native/catenary_blob.py writes it, hfn_model.c reads it with its
 * checked reader and hands the arrays here):
 *
 *   u32 parts (0: none); if parts > 0: f64 OK[nout*nq] (the outputs of the catenary
 *   parts' DOF forces), then per part: u32 n_lines, dof0 (its body's first DOF), out_row
 *   (its first tension output: fairlead, anchor per line); f64 lines[n_lines*13] (length,
 *   weight, ea, cb, max_strain, tol, anchor[3], fairlead[3], seabed 0/1: the kernel's
 *   struct hf_catenary); PQ[6*n] (the body's 6 DOF displacements from the state).
 *
 * The physics is the catenary solve the Python FMU calls by ctypes
 * (runtime/moorings/catenary_kernel.c, included by hfn_catenary.c with its symbols
 * hidden): one source, two FMUs. This file only evaluates each part at the body's pose,
 * adds its force and moment to the DOF forces and writes its tensions. The solve keeps
 * nothing between calls (no warm start): the FMU state holds nothing of it. No allocation
 * after fmi2Instantiate. */
#ifndef HFN_CATENARY_H
#define HFN_CATENARY_H

#include <stddef.h>
#include <stdint.h>

#include "hfn_internal.h"

typedef struct hfn_cat_model hfn_cat_model;

/* A section of nparts parts for n live states, nout outputs, nq DOFs (NULL: out of
 * memory). */
HFN_HIDDEN hfn_cat_model *hfn_cat_new(uint32_t nparts, uint32_t n, uint32_t nout, uint32_t nq);
HFN_HIDDEN void hfn_cat_free(hfn_cat_model *cm);
/* Where OK (nout*nq doubles) goes: the reader stores its array there. */
HFN_HIDDEN double **hfn_cat_ok(hfn_cat_model *cm);
/* Part i from the reader's arrays (lines: n_lines*13, pq: 6*n doubles; taken over, freed
 * with the model): 0, or -1 when they are out of range (a corrupt file). */
HFN_HIDDEN int hfn_cat_part(hfn_cat_model *cm, uint32_t i, uint32_t n_lines, uint32_t dof0,
                            uint32_t out_row, double *lines, double *pq);
/* g (nq) += the catenary parts' DOF forces at the live state y. 0, or -1: a line cannot be
 * solved (g is then NaN, the step diverges; hfn_cat_failure says why). */
HFN_HIDDEN int hfn_cat_deriv(hfn_cat_model *cm, const double *y, double *g);
/* out (nout) += OK (the DOF forces at y); the tension rows set (NaN when unsolvable). */
HFN_HIDDEN void hfn_cat_outputs(hfn_cat_model *cm, const double *y, double *out);
/* The first failure since the last call, in words (NULL: none); clears it. */
HFN_HIDDEN const char *hfn_cat_failure(hfn_cat_model *cm);

#endif
