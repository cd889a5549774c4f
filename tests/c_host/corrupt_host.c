/* Corrupted inputs for the native runtime (tests/test_native_corruption.py), linked with the
 * runtime's sources (built with ASan and UBSan), no Python.
 *
 * usage: corrupt_host MODEL_BIN WORK_DIR GUID FLIPS SEED
 *   For every truncation length of MODEL_BIN and FLIPS seeded single-byte flips (a byte
 *   xor 1..255 at a random offset), the bytes are written to WORK_DIR/model.bin and
 *   instantiated: each must be refused (NULL) with a message that names the file and says
 *   to rebuild. The same again "forged" (the trailer's CRC-32 recomputed, so that the
 *   reader's own checks are what refuses): every truncation refused, every header word set
 *   to 0xFFFFFFFF refused, a flip may be accepted (a changed number), and an accepted
 *   model is then instantiated, initialized and stepped (no crash: the sanitizers watch).
 *   Then a valid instance's serialized FMU state: every truncation and FLIPS flips refused
 *   by fmi2DeSerializeFMUstate with a message; forged (CRC recomputed) flips refused or,
 *   when accepted, restored and stepped.
 *   Prints one line per family, "<family> cases=<n> refused=<n> messages=<n>", then "OK";
 *   an accepted corruption that must be refused prints "FAIL ..." and exits 2.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "hfn_model.h"

static char last[4096];
static long n_messages = 0;

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
    va_list args;
    (void)env; (void)instance; (void)status; (void)category;
    va_start(args, message);
    vsnprintf(last, sizeof last, message, args);
    va_end(args);
    n_messages++;
}

static const fmi2CallbackFunctions CALLBACKS = {logger, calloc, free, NULL, NULL};
static uint64_t rng_state;
static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static void fail(const char *what, long at) {
    printf("FAIL %s (case %ld): %s\n", what, at, last);
    fflush(stdout);
    exit(2);
}

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long len;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) { printf("FAIL read\n"); exit(2); }
    rewind(f);
    data = (unsigned char *)malloc((size_t)len + 1);
    if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) { printf("FAIL read\n"); exit(2); }
    fclose(f);
    *size = (size_t)len;
    return data;
}

/* The CRC-32 trailer recomputed over the first size - 4 bytes (a forged file). */
static void reseal(unsigned char *d, size_t size) {
    uint32_t crc;
    if (size < 8) return;
    memcpy(d + size - 8, HFN_TRAILER_TAG, 4);
    crc = hfn_crc32(d, size - 4);
    d[size - 4] = (unsigned char)(crc & 0xFFu); d[size - 3] = (unsigned char)((crc >> 8) & 0xFFu);
    d[size - 2] = (unsigned char)((crc >> 16) & 0xFFu); d[size - 1] = (unsigned char)(crc >> 24);
}

static const char *work_file, *uri, *guid;

/* Instantiate the bytes as resources/model.bin: 1 accepted (then stepped and freed). */
static int try_model(const unsigned char *d, size_t size) {
    FILE *f = fopen(work_file, "wb");
    fmi2Component c;
    int k;
    if (!f || fwrite(d, 1, size, f) != size) { printf("FAIL write\n"); exit(2); }
    fclose(f);
    last[0] = '\0';
    c = fmi2Instantiate("corrupt", fmi2CoSimulation, guid, uri, &CALLBACKS, fmi2False, fmi2False);
    if (!c) return 0;
    if (fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) == fmi2OK &&
        fmi2EnterInitializationMode(c) == fmi2OK && fmi2ExitInitializationMode(c) <= fmi2Warning)
        for (k = 0; k < 5; k++) if (fmi2DoStep(c, 0.1 * k, 0.1, fmi2False) != fmi2OK) break;
    fmi2FreeInstance(c);
    return 1;
}

static int names_file(void) {
    int ok = strstr(last, "model.bin") != NULL &&
             (strstr(last, "rebuild") != NULL || strstr(last, "different builds") != NULL);
    if (!ok && getenv("CORRUPT_DEBUG")) printf("MESSAGE %s\n", last);
    return ok;
}

static void model_cases(const unsigned char *blob, size_t size, long flips) {
    unsigned char *d = (unsigned char *)malloc(size);
    long i, refused = 0, messages = 0, cases = 0, accepted = 0;
    size_t len;
    /* every truncation, and seeded flips, as they are: refused with the file named */
    for (len = 0; len < size; len++, cases++) {
        memcpy(d, blob, len);
        if (try_model(d, len)) fail("truncated model accepted", (long)len);
        refused++; messages += names_file();
    }
    for (i = 0; i < flips; i++, cases++) {
        memcpy(d, blob, size);
        d[rnd() % size] ^= (unsigned char)(1 + rnd() % 255);
        if (try_model(d, size)) fail("flipped model accepted", i);
        refused++; messages += names_file();
    }
    printf("model cases=%ld refused=%ld messages=%ld\n", cases, refused, messages);
    /* forged: the reader's checks alone */
    cases = refused = messages = 0;
    for (len = 24; len < size; len++, cases++) {
        memcpy(d, blob, len - 8);
        reseal(d, len);
        if (try_model(d, len)) fail("forged truncation accepted", (long)len);
        refused++; messages += names_file();
    }
    for (i = 0; i < 14; i++, cases++) { /* version, header words, then each header word */
        memcpy(d, blob, size);
        memset(d + 8 + 4 * (size_t)i, 0xFF, 4);
        reseal(d, size);
        if (try_model(d, size)) fail("forged header word accepted", i);
        refused++; messages += names_file();
    }
    printf("forged_model cases=%ld refused=%ld messages=%ld\n", cases, refused, messages);
    cases = refused = messages = 0;
    for (i = 0; i < flips; i++, cases++) {
        memcpy(d, blob, size);
        d[rnd() % (size - 8)] ^= (unsigned char)(1 + rnd() % 255);
        reseal(d, size);
        if (try_model(d, size)) { accepted++; continue; }
        refused++; messages += names_file();
    }
    printf("forged_flips cases=%ld refused=%ld messages=%ld accepted=%ld\n", cases, refused,
           messages, accepted);
    free(d);
}

static void state_cases(const unsigned char *blob, size_t blob_size, long flips) {
    fmi2Component c;
    fmi2FMUstate s = NULL, other = NULL;
    size_t size = 0, len;
    unsigned char *ser, *d;
    long i, k, cases = 0, refused = 0, messages = 0, accepted = 0;
    if (!try_model(blob, blob_size)) fail("the valid model was refused", 0);
    c = fmi2Instantiate("state", fmi2CoSimulation, guid, uri, &CALLBACKS, fmi2False, fmi2False);
    if (!c || fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK ||
        fmi2EnterInitializationMode(c) != fmi2OK || fmi2ExitInitializationMode(c) != fmi2OK)
        fail("start", 0);
    for (k = 0; k < 10; k++) if (fmi2DoStep(c, 0.1 * k, 0.1, fmi2False) != fmi2OK) fail("step", k);
    if (fmi2GetFMUstate(c, &s) != fmi2OK || fmi2SerializedFMUstateSize(c, s, &size) != fmi2OK)
        fail("get state", 0);
    ser = (unsigned char *)malloc(size);
    d = (unsigned char *)malloc(size);
    if (fmi2SerializeFMUstate(c, s, (fmi2Byte *)ser, size) != fmi2OK) fail("serialize", 0);
    if (fmi2DeSerializeFMUstate(c, (fmi2Byte *)ser, size, &other) != fmi2OK) fail("valid state", 0);
    fmi2FreeFMUstate(c, &other);
    for (len = 0; len < size; len++, cases++) {
        memcpy(d, ser, len);
        last[0] = '\0';
        if (fmi2DeSerializeFMUstate(c, (fmi2Byte *)d, len, &other) != fmi2Error)
            fail("truncated state accepted", (long)len);
        refused++; messages += strstr(last, "fmi2DeSerializeFMUstate") != NULL;
    }
    for (i = 0; i < flips; i++, cases++) {
        memcpy(d, ser, size);
        d[rnd() % size] ^= (unsigned char)(1 + rnd() % 255);
        last[0] = '\0';
        if (fmi2DeSerializeFMUstate(c, (fmi2Byte *)d, size, &other) != fmi2Error)
            fail("flipped state accepted", i);
        refused++; messages += strstr(last, "fmi2DeSerializeFMUstate") != NULL;
    }
    printf("state cases=%ld refused=%ld messages=%ld\n", cases, refused, messages);
    cases = refused = messages = 0;
    for (i = 0; i < flips; i++, cases++) { /* forged: the consistency checks alone */
        memcpy(d, ser, size);
        d[rnd() % (size - 4)] ^= (unsigned char)(1 + rnd() % 255);
        {
            uint32_t crc = hfn_crc32(d, size - 4);
            d[size - 4] = (unsigned char)(crc & 0xFFu); d[size - 3] = (unsigned char)((crc >> 8) & 0xFFu);
            d[size - 2] = (unsigned char)((crc >> 16) & 0xFFu); d[size - 1] = (unsigned char)(crc >> 24);
        }
        last[0] = '\0';
        if (fmi2DeSerializeFMUstate(c, (fmi2Byte *)d, size, &other) == fmi2OK) {
            double t = 0.0;
            fmi2Real lt;
            accepted++;
            fmi2SetFMUstate(c, other);
            fmi2FreeFMUstate(c, &other);
            if (fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &lt) == fmi2OK) t = lt;
            for (k = 0; k < 3; k++) if (fmi2DoStep(c, t + 0.1 * k, 0.1, fmi2False) != fmi2OK) break;
            fmi2SetFMUstate(c, s); /* back to the valid state */
            continue;
        }
        refused++; messages += strstr(last, "fmi2DeSerializeFMUstate") != NULL;
    }
    printf("forged_state cases=%ld refused=%ld messages=%ld accepted=%ld\n", cases, refused,
           messages, accepted);
    fmi2FreeFMUstate(c, &s);
    fmi2FreeInstance(c);
    free(ser);
    free(d);
}

int main(int argc, char **argv) {
    static char file[4096], uri_buf[4200];
    unsigned char *blob;
    size_t size;
    long flips;
    if (argc < 6) {
        fprintf(stderr, "usage: %s MODEL_BIN WORK_DIR GUID FLIPS SEED\n", argv[0]);
        return 64;
    }
    blob = slurp(argv[1], &size);
    snprintf(file, sizeof file, "%s/model.bin", argv[2]);
    snprintf(uri_buf, sizeof uri_buf, "file://%s", argv[2]);
    work_file = file; uri = uri_buf; guid = argv[3];
    flips = strtol(argv[4], NULL, 10);
    rng_state = strtoull(argv[5], NULL, 10);
    model_cases(blob, size, flips);
    state_cases(blob, size, flips);
    free(blob);
    printf("OK\n");
    return 0;
}
