#include "hark_pulse.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The parts of <pulse/simple.h> hark uses, declared here so that building needs no
// libpulse-dev. These layouts are PulseAudio's stable ABI.
typedef struct {
    int format;  // pa_sample_format_t
    uint32_t rate;
    uint8_t channels;
} hark_pa_sample_spec;

typedef struct {
    uint32_t maxlength, tlength, prebuf, minreq, fragsize;
} hark_pa_buffer_attr;

enum { HARK_PA_STREAM_PLAYBACK = 1, HARK_PA_STREAM_RECORD = 2, HARK_PA_SAMPLE_S16LE = 3 };

static struct {
    pa_simple *(*open)(const char *, const char *, int, const char *, const char *, const hark_pa_sample_spec *,
                       const void *, const hark_pa_buffer_attr *, int *);
    void (*free)(pa_simple *);
    int (*write)(pa_simple *, const void *, size_t, int *);
    int (*read)(pa_simple *, void *, size_t, int *);
    int (*drain)(pa_simple *, int *);
    int (*flush)(pa_simple *, int *);
    const char *(*strerror)(int);
} fn;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

#define RESOLVE(lib, field, symbol)                                                       \
    do {                                                                                  \
        *(void **)(&fn.field) = dlsym(lib, symbol);                                       \
        if (!fn.field) {                                                                  \
            snprintf(load_error, sizeof load_error, "libpulse-simple lacks %s", symbol);  \
            return;                                                                       \
        }                                                                                 \
    } while (0)

static void load(void) {
    void *lib = dlopen("libpulse-simple.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "the PulseAudio client library is not installed (libpulse0)");
        return;
    }
    RESOLVE(lib, open, "pa_simple_new");
    RESOLVE(lib, free, "pa_simple_free");
    RESOLVE(lib, write, "pa_simple_write");
    RESOLVE(lib, read, "pa_simple_read");
    RESOLVE(lib, drain, "pa_simple_drain");
    RESOLVE(lib, flush, "pa_simple_flush");
    RESOLVE(lib, strerror, "pa_strerror");  // from libpulse, a dependency dlsym also searches
    loaded = 1;
}

const char *hark_pulse_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

pa_simple *hark_pulse_open(const char *server, const char *device, int record, unsigned rate, unsigned channels,
                           const char *stream_name, unsigned latency_bytes, int *error) {
    hark_pa_sample_spec spec = {HARK_PA_SAMPLE_S16LE, rate, (uint8_t)channels};
    // (uint32_t)-1 leaves a field to the server. Playback: a short target buffer that starts
    // playing as soon as a little is there. Record: deliver in small fragments.
    hark_pa_buffer_attr attr = {(uint32_t)-1, (uint32_t)-1, (uint32_t)-1, (uint32_t)-1, (uint32_t)-1};
    if (record) {
        attr.fragsize = latency_bytes;
    } else {
        attr.tlength = latency_bytes;
        attr.prebuf = latency_bytes / 4;
        attr.minreq = latency_bytes / 4;
    }
    return fn.open(server, "hark", record ? HARK_PA_STREAM_RECORD : HARK_PA_STREAM_PLAYBACK, device, stream_name, &spec,
                   NULL, &attr, error);
}

int hark_pulse_write(pa_simple *s, const void *data, size_t bytes, int *error) { return fn.write(s, data, bytes, error); }
int hark_pulse_read(pa_simple *s, void *data, size_t bytes, int *error) { return fn.read(s, data, bytes, error); }
int hark_pulse_drain(pa_simple *s, int *error) { return fn.drain(s, error); }
int hark_pulse_flush(pa_simple *s, int *error) { return fn.flush(s, error); }
void hark_pulse_free(pa_simple *s) { fn.free(s); }
const char *hark_pulse_strerror(int error) { return loaded ? fn.strerror(error) : "not loaded"; }
