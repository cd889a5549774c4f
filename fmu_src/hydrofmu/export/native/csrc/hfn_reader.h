/* hydrofmu native runtime, the model blob's checked cursor (hfn_reader.c): every section
 * reader (hfn_model.c, hfn_drift.c, hfn_panels.c) uses the same reads. A read past the end
 * marks the cursor bad (and it stays bad); an array's count is checked against the bytes left BEFORE
 * anything is allocated, and the + 1 of the allocation cannot wrap. */
#ifndef HFN_READER_H
#define HFN_READER_H

#include <stddef.h>
#include <stdint.h>

#include "hfn_internal.h"

typedef struct hfn_reader_s {
    const unsigned char *p;
    size_t left;
    int bad;
} hfn_reader;

HFN_HIDDEN uint32_t hfn_rd_u32(hfn_reader *r);
HFN_HIDDEN double hfn_rd_f64(hfn_reader *r);
/* count + 1 zeroed items of size bytes, or NULL (the cursor marked bad). */
HFN_HIDDEN void *hfn_rd_alloc(hfn_reader *r, size_t count, size_t size);
/* count f64 / u32 read from the cursor (count checked first), or NULL (marked bad). */
HFN_HIDDEN double *hfn_rd_array(hfn_reader *r, size_t count);
HFN_HIDDEN uint32_t *hfn_rd_u32_array(hfn_reader *r, size_t count);
/* 1 when count items of size bytes can still be read, else 0 (the cursor marked bad). */
HFN_HIDDEN int hfn_rd_fits(hfn_reader *r, size_t count, size_t size);
/* a u32 length and that many bytes, NUL-terminated; or NULL (marked bad). */
HFN_HIDDEN char *hfn_rd_string(hfn_reader *r);
/* count such strings, the array of count + 1 pointers; or NULL (marked bad). */
HFN_HIDDEN char **hfn_rd_strings(hfn_reader *r, size_t count);

#endif
