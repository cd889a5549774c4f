/* hydrofmu native runtime, FMU states (fmi2GetFMUstate ... fmi2DeSerializeFMUstate): a
 * copy of the instance's dynamic state block.
 *
 * The instance keeps the states it made in a list (instance.states): a state passed in is
 * looked up there by its address and refused when it is not one of them (another
 * instance's or FMU's, freed, or garbage), so it is never dereferenced, written or freed
 * unless it is this instance's own; fmi2FreeInstance frees the ones the host left.
 *
 * Serialized: "HFNS", u32 format version, u32 size (doubles), the block's doubles (native
 * byte order of the machine that made it: states are restored on the same platform), then
 * the u32 CRC-32 of every byte before it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "hfn_conv.h"
#include "hfn_instance.h"
#include "hfn_load.h"
#include "hfn_tunables.h"

#define STATE_MAGIC 0x48464e53u /* "HFNS" */
#define STATE_VERSION 2u        /* 2: with the CRC-32 */
#define STATE_HEAD 12u          /* magic, version, size */
#define STATE_CRC 4u

/* An FMU state: the dynamic state block, in the instance's list. */
typedef struct saved_state {
    uint32_t magic;
    uint32_t size; /* doubles in the block */
    struct saved_state *next;
    double block[1];
} saved_state;

/* The state s if it is one of c's (found by its address), else NULL. */
static saved_state *own_state(const instance *c, const void *s) {
    saved_state *p;
    if (!s) return NULL;
    for (p = (saved_state *)c->states; p; p = p->next)
        if ((const void *)p == s) return p;
    return NULL;
}

static saved_state *new_state(instance *c) {
    saved_state *s = (saved_state *)malloc(sizeof(saved_state) + c->d.size * sizeof(double));
    if (!s) return NULL;
    s->magic = STATE_MAGIC;
    s->size = (uint32_t)c->d.size;
    s->next = (saved_state *)c->states;
    c->states = s;
    return s;
}

static void drop_state(instance *c, saved_state *s) {
    saved_state **p = (saved_state **)&c->states;
    while (*p && *p != s) p = &(*p)->next;
    if (*p) *p = s->next;
    s->magic = 0;
    free(s);
}

void hfn_states_release(instance *c) {
    while (c->states) drop_state(c, (saved_state *)c->states);
}

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    saved_state *s;
    if (!c) return fmi2Error;
    if (!state) { REFUSE(c, "fmi2GetFMUstate: NULL state pointer"); return fmi2Error; }
    if (*state) {
        s = own_state(c, *state);
        if (!s) {
            REFUSE(c, "fmi2GetFMUstate: *FMUstate is not NULL and not a state this instance "
                   "made (another instance's, a freed one or garbage); pass NULL for a new "
                   "state; nothing was allocated or changed");
            return fmi2Error;
        }
    } else {
        s = new_state(c);
        if (!s) { REFUSE(c, "fmi2GetFMUstate: out of memory"); return fmi2Error; }
    }
    memcpy(s->block, c->d.block, c->d.size * sizeof(double));
    *state = (fmi2FMUstate)s;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state) {
    instance *c = (instance *)comp;
    const saved_state *s;
    if (!c) return fmi2Error;
    s = own_state(c, state);
    if (!s) {
        REFUSE(c, "fmi2SetFMUstate: the state was not made by this instance (or is NULL or "
               "freed); nothing was changed");
        return fmi2Error;
    }
    memcpy(c->d.block, s->block, c->d.size * sizeof(double));
    c->cache_h = -1.0; c->rot_h = -1.0; c->rot2_h = -1.0;
    c->halt = 0; /* out of the step failed or error state: the saved state's own */
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    saved_state *s;
    if (!c) return fmi2Error;
    if (!state) { REFUSE(c, "fmi2FreeFMUstate: NULL state pointer"); return fmi2Error; }
    if (*state) {
        s = own_state(c, *state);
        if (!s) {
            REFUSE(c, "fmi2FreeFMUstate: the state was not made by this instance (or was "
                   "freed already); nothing was freed");
            return fmi2Error;
        }
        drop_state(c, s);
    }
    *state = NULL;
    return fmi2OK;
}

static size_t serialized_size(size_t doubles) {
    return STATE_HEAD + doubles * sizeof(double) + STATE_CRC;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state, size_t *size) {
    instance *c = (instance *)comp;
    const saved_state *s;
    if (!c) return fmi2Error;
    s = own_state(c, state);
    if (!s || !size) {
        REFUSE(c, "fmi2SerializedFMUstateSize: not a state of this instance (or NULL size)");
        return fmi2Error;
    }
    *size = serialized_size(s->size);
    return fmi2OK;
}

static void put_u32(fmi2Byte *p, uint32_t v) {
    unsigned char *q = (unsigned char *)p;
    q[0] = (unsigned char)(v & 0xFFu); q[1] = (unsigned char)((v >> 8) & 0xFFu);
    q[2] = (unsigned char)((v >> 16) & 0xFFu); q[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const fmi2Byte *p) {
    const unsigned char *q = (const unsigned char *)p;
    return (uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) |
           ((uint32_t)q[3] << 24);
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state, fmi2Byte data[],
                                 size_t size) {
    instance *c = (instance *)comp;
    const saved_state *s;
    size_t need, body;
    if (!c) return fmi2Error;
    s = own_state(c, state);
    if (!s || !data) {
        REFUSE(c, "fmi2SerializeFMUstate: not a state of this instance (or NULL data)");
        return fmi2Error;
    }
    need = serialized_size(s->size);
    if (size < need) {
        REFUSE(c, "fmi2SerializeFMUstate: buffer of %lu bytes, needs %lu", (unsigned long)size,
               (unsigned long)need);
        return fmi2Error;
    }
    body = need - STATE_CRC;
    put_u32(data, STATE_MAGIC); put_u32(data + 4, STATE_VERSION); put_u32(data + 8, s->size);
    memcpy(data + STATE_HEAD, s->block, (size_t)s->size * sizeof(double));
    put_u32(data + body, hfn_crc32((const unsigned char *)data, body));
    return fmi2OK;
}

/* A deserialized block's bookkeeping entries are what this runtime writes (the values are
 * data): finite times, counters in range, the fixed parameters' values, in the Runge-Kutta
 * mode the internal time at the FMU's and the grid time at or before it. */
static int consistent(const instance *c, double *block) {
    const hfn_model *md = &c->md;
    dyn_view v;
    uint32_t i;
    int ok;
    hfn_dyn_bind(&v, block, md);
    ok = *v.phase >= 0.0 && *v.phase <= (double)ST_ERROR && *v.phase == floor(*v.phase) &&
         isfinite(*v.time) && isfinite(*v.t0) && *v.rot_count >= 0.0 &&
         *v.rot_count < RESYNC_STEPS && (*v.dirty == 0.0 || *v.dirty == 1.0) &&
         (*v.xp_valid == 0.0 || *v.xp_valid == 1.0) &&
         (*v.xp_seg == 0.0 || *v.xp_seg == 1.0) && isfinite(*v.scale) && *v.scale >= 0.0 &&
         isfinite(*v.rk_time) && *v.grid_index >= 0.0 && *v.grid_index < 9007199254740992.0 &&
         *v.grid_index == floor(*v.grid_index) && *v.hist_pos >= 0.0 &&
         *v.hist_pos == floor(*v.hist_pos) &&
         (md->nk ? *v.hist_pos < (double)md->nk : *v.hist_pos == 0.0) &&
         hfn_conv_consistent(md, &v) && hfn_load_consistent(md, v.load) &&
         (!hfn_lines_state_size(md->lines) ||
          (isfinite(*v.si_t) && (*v.si_valid == 0.0 || *v.si_valid == 1.0)));
    if (ok && md->rk && *v.phase >= (double)ST_STEP) {
        /* the simulator's time within a quarter internal step of the FMU's, the newest grid
         * time at most one internal step before it */
        double grid = *v.t0 + *v.grid_index * md->dt, slack = 0.25 * md->dt;
        ok = fabs(*v.rk_time - *v.time) <= slack && grid <= *v.rk_time + slack &&
             *v.rk_time - grid <= md->dt + slack;
    }
    for (i = 0; ok && i < md->npr; i++)
        ok = (md->scale_par == i + 1 || hfn_tunable_index(md, i) >= 0)
                 ? isfinite(v.par_r[i]) && v.par_r[i] >= 0.0
                 : v.par_r[i] == md->par_r[i] || (isnan(v.par_r[i]) && isnan(md->par_r[i]));
    return ok;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte data[], size_t size,
                                   fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    size_t need;
    saved_state *s;
    uint32_t stored, actual;
    if (!c) return fmi2Error;
    need = serialized_size(c->d.size);
    if (!data || !state || size < STATE_HEAD + STATE_CRC) {
        REFUSE(c, "fmi2DeSerializeFMUstate: no data (%lu bytes; a state of this model has "
               "%lu)", (unsigned long)size, (unsigned long)need);
        return fmi2Error;
    }
    if (get_u32(data) != STATE_MAGIC || get_u32(data + 4) != STATE_VERSION ||
        get_u32(data + 8) != c->d.size || size != need) {
        REFUSE(c, "fmi2DeSerializeFMUstate: the %lu bytes are not a serialized state of this "
               "model (expected %lu bytes starting 'HFNS', format %u); nothing was changed",
               (unsigned long)size, (unsigned long)need, (unsigned)STATE_VERSION);
        return fmi2Error;
    }
    stored = get_u32(data + need - STATE_CRC);
    actual = hfn_crc32((const unsigned char *)data, need - STATE_CRC);
    if (stored != actual) {
        REFUSE(c, "fmi2DeSerializeFMUstate: the serialized state is damaged (CRC-32 0x%08x, "
               "stored 0x%08x: truncated or altered after fmi2SerializeFMUstate); nothing was "
               "changed", (unsigned)actual, (unsigned)stored);
        return fmi2Error;
    }
    s = new_state(c);
    if (!s) { REFUSE(c, "fmi2DeSerializeFMUstate: out of memory"); return fmi2Error; }
    memcpy(s->block, data + STATE_HEAD, c->d.size * sizeof(double));
    if (!consistent(c, s->block)) {
        REFUSE(c, "fmi2DeSerializeFMUstate: corrupt state (its phase, time, counters or "
               "parameters are not values this FMU writes); nothing was changed");
        drop_state(c, s);
        return fmi2Error;
    }
    *state = (fmi2FMUstate)s;
    return fmi2OK;
}
