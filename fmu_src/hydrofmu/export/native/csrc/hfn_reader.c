/* hydrofmu native runtime, the model blob's checked cursor (see hfn_reader.h): every section
 * reader (hfn_model.c, hfn_drift.c, hfn_panels.c) reads through these. */
#include "hfn_reader.h"

#include <stdlib.h>
#include <string.h>

/* A cursor over the blob; bad is set by the first read past its end (and stays set). */
typedef hfn_reader reader;

uint32_t hfn_rd_u32(reader *r) {
    uint32_t v = 0;
    if (r->left < 4) { r->bad = 1; return 0; }
    v = (uint32_t)r->p[0] | ((uint32_t)r->p[1] << 8) | ((uint32_t)r->p[2] << 16) |
        ((uint32_t)r->p[3] << 24);
    r->p += 4; r->left -= 4;
    return v;
}

double hfn_rd_f64(reader *r) {
    uint64_t v = 0;
    double d;
    int i;
    if (r->left < 8) { r->bad = 1; return 0.0; }
    for (i = 7; i >= 0; i--) v = (v << 8) | r->p[i];
    r->p += 8; r->left -= 8;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* count items of size bytes each can still be read: 1, else the cursor is marked bad and
 * 0 (every count read from the file is checked here BEFORE anything is allocated for it). */
int hfn_rd_fits(reader *r, size_t count, size_t size) {
    if (r->bad || size == 0 || count > r->left / size) { r->bad = 1; return 0; }
    return 1;
}

/* count + 1 zeroed items of size bytes (the + 1 in size_t: no wrap), or NULL (bad set). */
void *hfn_rd_alloc(reader *r, size_t count, size_t size) {
    void *a;
    if (r->bad || count >= ((size_t)-1) / size - 1) { r->bad = 1; return NULL; }
    a = calloc(count + 1, size);
    if (!a) r->bad = 1;
    return a;
}

double *hfn_rd_array(reader *r, size_t count) {
    double *a;
    size_t i;
    if (!hfn_rd_fits(r, count, 8)) return NULL;
    a = (double *)hfn_rd_alloc(r, count, sizeof(double));
    for (i = 0; a && i < count; i++) a[i] = hfn_rd_f64(r);
    return a;
}

uint32_t *hfn_rd_u32_array(reader *r, size_t count) {
    uint32_t *a;
    size_t i;
    if (!hfn_rd_fits(r, count, 4)) return NULL;
    a = (uint32_t *)hfn_rd_alloc(r, count, sizeof(uint32_t));
    for (i = 0; a && i < count; i++) a[i] = hfn_rd_u32(r);
    return a;
}

char *hfn_rd_string(reader *r) {
    uint32_t len = hfn_rd_u32(r);
    char *s;
    if (!hfn_rd_fits(r, len, 1)) return NULL;
    s = (char *)hfn_rd_alloc(r, len, 1);
    if (!s) return NULL;
    memcpy(s, r->p, len);
    s[len] = '\0';
    r->p += len; r->left -= len;
    return s;
}

/* count strings (each at least its u32 length), the array of count + 1 pointers. */
char **hfn_rd_strings(reader *r, size_t count) {
    char **a;
    size_t i;
    if (!hfn_rd_fits(r, count, 4)) return NULL;
    a = (char **)hfn_rd_alloc(r, count, sizeof(char *));
    for (i = 0; a && i < count && !r->bad; i++) a[i] = hfn_rd_string(r);
    return a;
}
