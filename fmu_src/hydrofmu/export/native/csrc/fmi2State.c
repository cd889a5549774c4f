/* hydrofmu native runtime, FMU states (fmi2GetFMUstate ... fmi2DeSerializeFMUstate): a
 * copy of the instance's dynamic state block, serialized as "HFNS", u32 version, u32 size
 * and the block's doubles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "hfn_instance.h"
#include "hfn_tunables.h"

#define STATE_MAGIC 0x48464e53u /* "HFNS" */
/* An FMU state: the dynamic state block (par_i: unused, NULL). */
typedef struct {
    uint32_t magic;
    uint32_t size; /* doubles in the block */
    int32_t *par_i;
    double block[1];
} saved_state;

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    saved_state *s;
    if (!c) return fmi2Error;
    if (!state) { REFUSE(c, "fmi2GetFMUstate: NULL state pointer"); return fmi2Error; }
    s = (saved_state *)*state;
    if (!s || s->magic != STATE_MAGIC || s->size != c->d.size) {
        s = (saved_state *)malloc(sizeof(saved_state) + c->d.size * sizeof(double));
        if (!s) { REFUSE(c, "fmi2GetFMUstate: out of memory"); return fmi2Error; }
        s->magic = STATE_MAGIC;
        s->size = (uint32_t)c->d.size;
        s->par_i = NULL;
    }
    memcpy(s->block, c->d.block, c->d.size * sizeof(double));
    *state = (fmi2FMUstate)s;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state) {
    instance *c = (instance *)comp;
    const saved_state *s = (const saved_state *)state;
    if (!c) return fmi2Error;
    if (!s || s->magic != STATE_MAGIC || s->size != c->d.size) {
        REFUSE(c, "fmi2SetFMUstate: the state was not made by this FMU (or is NULL); "
               "nothing was changed");
        return fmi2Error;
    }
    memcpy(c->d.block, s->block, c->d.size * sizeof(double));
    c->cache_h = -1.0; c->rot_h = -1.0; c->rot2_h = -1.0;
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    if (!state) { REFUSE(c, "fmi2FreeFMUstate: NULL state pointer"); return fmi2Error; }
    if (*state) {
        saved_state *s = (saved_state *)*state;
        if (s->magic != STATE_MAGIC) {
            REFUSE(c, "fmi2FreeFMUstate: the state was not made by this FMU");
            return fmi2Error;
        }
        s->magic = 0;
        free(s);
    }
    *state = NULL;
    return fmi2OK;
}

/* Serialized: "HFNS", u32 version, u32 size, the block's doubles (native byte order of the
 * machine that made it: states are restored on the same platform). */
fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state, size_t *size) {
    instance *c = (instance *)comp;
    const saved_state *s = (const saved_state *)state;
    if (!c) return fmi2Error;
    if (!s || !size || s->magic != STATE_MAGIC) {
        REFUSE(c, "fmi2SerializedFMUstateSize: not a state of this FMU");
        return fmi2Error;
    }
    *size = 12 + (size_t)s->size * sizeof(double);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state, fmi2Byte data[],
                                 size_t size) {
    instance *c = (instance *)comp;
    const saved_state *s = (const saved_state *)state;
    uint32_t head[3];
    if (!c) return fmi2Error;
    if (!s || !data || s->magic != STATE_MAGIC) {
        REFUSE(c, "fmi2SerializeFMUstate: not a state of this FMU");
        return fmi2Error;
    }
    if (size < 12 + (size_t)s->size * sizeof(double)) {
        REFUSE(c, "fmi2SerializeFMUstate: buffer of %lu bytes, needs %lu", (unsigned long)size,
               (unsigned long)(12 + (size_t)s->size * sizeof(double)));
        return fmi2Error;
    }
    head[0] = STATE_MAGIC; head[1] = HFN_VERSION; head[2] = s->size;
    memcpy(data, head, 12);
    memcpy(data + 12, s->block, (size_t)s->size * sizeof(double));
    return fmi2OK;
}

/* A deserialized block's bookkeeping entries are what this runtime writes (the values are
 * data): finite times, counters in range, the fixed parameters' values. */
static int consistent(const instance *c, double *block) {
    dyn_view v;
    uint32_t i;
    int ok;
    hfn_dyn_bind(&v, block, &c->md);
    ok = isfinite(*v.time) && isfinite(*v.t0) && *v.rot_count >= 0.0 &&
         *v.rot_count < RESYNC_STEPS && (*v.dirty == 0.0 || *v.dirty == 1.0) &&
         (*v.xp_valid == 0.0 || *v.xp_valid == 1.0) &&
         (*v.xp_seg == 0.0 || *v.xp_seg == 1.0) && isfinite(*v.scale) && *v.scale >= 0.0 &&
         isfinite(*v.rk_time) && *v.grid_index >= 0.0 && *v.grid_index < 9007199254740992.0 &&
         *v.grid_index == floor(*v.grid_index) && *v.hist_pos >= 0.0 &&
         *v.hist_pos == floor(*v.hist_pos) &&
         (c->md.nk ? *v.hist_pos < (double)c->md.nk : *v.hist_pos == 0.0) &&
         (!hfn_lines_state_size(c->md.lines) ||
          (isfinite(*v.si_t) && (*v.si_valid == 0.0 || *v.si_valid == 1.0)));
    for (i = 0; ok && i < c->md.npr; i++)
        ok = (c->md.scale_par == i + 1 || hfn_tunable_index(&c->md, i) >= 0)
                 ? isfinite(v.par_r[i]) && v.par_r[i] >= 0.0
                 : v.par_r[i] == c->md.par_r[i] ||
                   (isnan(v.par_r[i]) && isnan(c->md.par_r[i]));
    return ok;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte data[], size_t size,
                                   fmi2FMUstate *state) {
    instance *c = (instance *)comp;
    uint32_t head[3];
    saved_state *s;
    double phase;
    if (!c) return fmi2Error;
    if (!data || !state || size < 12) {
        REFUSE(c, "fmi2DeSerializeFMUstate: no data (%lu bytes)", (unsigned long)size);
        return fmi2Error;
    }
    memcpy(head, data, 12);
    if (head[0] != STATE_MAGIC || head[1] != HFN_VERSION || head[2] != c->d.size ||
        size != 12 + (size_t)head[2] * sizeof(double)) {
        REFUSE(c, "fmi2DeSerializeFMUstate: the %lu bytes are not a serialized state of this "
               "model (expected %lu bytes); nothing was changed", (unsigned long)size,
               (unsigned long)(12 + c->d.size * sizeof(double)));
        return fmi2Error;
    }
    memcpy(&phase, data + 12 + 2 * sizeof(double), sizeof phase);
    if (!(phase >= 0.0 && phase <= (double)ST_ERROR && phase == floor(phase))) {
        REFUSE(c, "fmi2DeSerializeFMUstate: corrupt state (phase %g)", phase);
        return fmi2Error;
    }
    s = (saved_state *)malloc(sizeof(saved_state) + c->d.size * sizeof(double));
    if (!s) { REFUSE(c, "fmi2DeSerializeFMUstate: out of memory"); return fmi2Error; }
    s->magic = STATE_MAGIC;
    s->size = head[2];
    s->par_i = NULL;
    memcpy(s->block, data + 12, (size_t)head[2] * sizeof(double));
    if (!consistent(c, s->block)) {
        REFUSE(c, "fmi2DeSerializeFMUstate: corrupt state (its time, counters or "
               "parameters are not values this FMU writes); nothing was changed");
        free(s);
        return fmi2Error;
    }
    *state = (fmi2FMUstate)s;
    return fmi2OK;
}
