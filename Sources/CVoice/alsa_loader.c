#include "hark_alsa.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The parts of <alsa/asoundlib.h> hark uses, declared here so that building needs no
// libasound2-dev. The values are ALSA's stable ABI.
enum { HARK_SND_PCM_STREAM_PLAYBACK = 0, HARK_SND_PCM_STREAM_CAPTURE = 1 };
enum { HARK_SND_PCM_FORMAT_S16_LE = 2, HARK_SND_PCM_ACCESS_RW_INTERLEAVED = 3 };

typedef void (*error_handler)(const char *, int, const char *, int, const char *, ...);

static struct {
    int (*open)(snd_pcm_t **, const char *, int, int);
    int (*set_params)(snd_pcm_t *, int, int, unsigned, unsigned, int, unsigned);
    long (*writei)(snd_pcm_t *, const void *, unsigned long);
    long (*readi)(snd_pcm_t *, void *, unsigned long);
    int (*recover)(snd_pcm_t *, int, int);
    int (*drain)(snd_pcm_t *);
    int (*drop)(snd_pcm_t *);
    int (*prepare)(snd_pcm_t *);
    int (*close)(snd_pcm_t *);
    const char *(*strerror)(int);
    int (*set_error_handler)(error_handler);
} fn;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

// ALSA prints its own errors on stderr, which would garble the shell's line; hark reports
// the error code itself.
static void quiet(const char *file, int line, const char *function, int error, const char *format, ...) {
    (void)file, (void)line, (void)function, (void)error, (void)format;
}

#define RESOLVE(lib, field, symbol)                                                  \
    do {                                                                             \
        *(void **)(&fn.field) = dlsym(lib, symbol);                                  \
        if (!fn.field) {                                                             \
            snprintf(load_error, sizeof load_error, "libasound lacks %s", symbol);   \
            return;                                                                  \
        }                                                                            \
    } while (0)

static void load(void) {
    void *lib = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "the ALSA library is not installed (libasound2)");
        return;
    }
    RESOLVE(lib, open, "snd_pcm_open");
    RESOLVE(lib, set_params, "snd_pcm_set_params");
    RESOLVE(lib, writei, "snd_pcm_writei");
    RESOLVE(lib, readi, "snd_pcm_readi");
    RESOLVE(lib, recover, "snd_pcm_recover");
    RESOLVE(lib, drain, "snd_pcm_drain");
    RESOLVE(lib, drop, "snd_pcm_drop");
    RESOLVE(lib, prepare, "snd_pcm_prepare");
    RESOLVE(lib, close, "snd_pcm_close");
    RESOLVE(lib, strerror, "snd_strerror");
    RESOLVE(lib, set_error_handler, "snd_lib_error_set_handler");
    fn.set_error_handler(quiet);
    loaded = 1;
}

const char *hark_alsa_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

int hark_alsa_open(snd_pcm_t **pcm, const char *device, int capture, unsigned rate, unsigned channels,
                   unsigned latency_us) {
    int result = fn.open(pcm, device, capture ? HARK_SND_PCM_STREAM_CAPTURE : HARK_SND_PCM_STREAM_PLAYBACK, 0);
    if (result < 0) return result;
    result = fn.set_params(*pcm, HARK_SND_PCM_FORMAT_S16_LE, HARK_SND_PCM_ACCESS_RW_INTERLEAVED, channels, rate, 1,
                           latency_us);
    if (result < 0) {
        fn.close(*pcm);
        *pcm = NULL;
    }
    return result;
}

long hark_alsa_write(snd_pcm_t *pcm, const short *frames, unsigned long count) {
    long written = fn.writei(pcm, frames, count);
    if (written < 0) written = fn.recover(pcm, (int)written, 1) < 0 ? written : 0;
    return written;
}

long hark_alsa_read(snd_pcm_t *pcm, short *frames, unsigned long count) {
    long got = fn.readi(pcm, frames, count);
    if (got < 0) got = fn.recover(pcm, (int)got, 1) < 0 ? got : 0;
    return got;
}

// Draining or dropping leaves the device stopped; prepare it for the next write.
int hark_alsa_drain(snd_pcm_t *pcm) {
    int result = fn.drain(pcm);
    fn.prepare(pcm);
    return result;
}
int hark_alsa_drop(snd_pcm_t *pcm) {
    int result = fn.drop(pcm);
    fn.prepare(pcm);
    return result;
}
int hark_alsa_close(snd_pcm_t *pcm) { return fn.close(pcm); }
const char *hark_alsa_strerror(int error) { return loaded ? fn.strerror(error) : "not loaded"; }
