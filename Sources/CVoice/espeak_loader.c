#include "hark_espeak.h"
#include <espeak-ng/speak_lib.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// One pointer per espeak-ng function hark uses, resolved by hark_espeak_load.
static struct {
    int (*initialize)(espeak_AUDIO_OUTPUT, int, const char *, int);
    void (*set_synth_callback)(t_espeak_callback *);
    espeak_ERROR (*synth)(const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int, unsigned int,
                          unsigned int *, void *);
    espeak_ERROR (*set_parameter)(espeak_PARAMETER, int, int);
    espeak_ERROR (*set_voice_by_name)(const char *);
    const espeak_VOICE **(*list_voices)(espeak_VOICE *);
    const char *(*info)(const char **);
    // Optional (espeak-ng 1.49 on): the rate of the voice in use, which an MBROLA voice changes.
    int (*current_rate)(void);
} fn;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int requested_buffer_ms = 40;
static char load_error[512];
static int sample_rate;
static const char *version = "";
static const char *data_path = "";
static const espeak_VOICE **voices;

// The sink of the synth call in progress. Calls are serialised by the caller (espeak-ng's
// state is global), so one slot is enough and no event has to carry it.
static hark_espeak_sink current_sink;
static void *current_context;

static int synth_callback(short *wav, int count, espeak_EVENT *events) {
    (void)events;
    if (!current_sink || !wav || count <= 0) return 0;
    return current_sink(current_context, wav, count);
}

#define RESOLVE(lib, field, symbol)                                                      \
    do {                                                                                 \
        *(void **)(&fn.field) = dlsym(lib, symbol);                                      \
        if (!fn.field) {                                                                 \
            snprintf(load_error, sizeof load_error, "libespeak-ng lacks %s", symbol);    \
            return;                                                                      \
        }                                                                                \
    } while (0)

static void load(void) {
    void *lib = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libespeak-ng.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "espeak-ng is not installed (no libespeak-ng.so.1)");
        return;
    }
    RESOLVE(lib, initialize, "espeak_Initialize");
    RESOLVE(lib, set_synth_callback, "espeak_SetSynthCallback");
    RESOLVE(lib, synth, "espeak_Synth");
    RESOLVE(lib, set_parameter, "espeak_SetParameter");
    RESOLVE(lib, set_voice_by_name, "espeak_SetVoiceByName");
    RESOLVE(lib, list_voices, "espeak_ListVoices");
    RESOLVE(lib, info, "espeak_Info");
    *(void **)(&fn.current_rate) = dlsym(lib, "espeak_ng_GetSampleRate");
    // DONT_EXIT: a missing data folder must be an error, not the end of the process.
    int rate = fn.initialize(AUDIO_OUTPUT_SYNCHRONOUS, requested_buffer_ms, NULL, espeakINITIALIZE_DONT_EXIT);
    if (rate <= 0) {
        snprintf(load_error, sizeof load_error, "espeak-ng could not start (its data files are missing)");
        return;
    }
    sample_rate = rate;
    fn.set_synth_callback(synth_callback);
    const char *path = NULL;
    version = fn.info(&path);
    if (path) data_path = path;
    voices = fn.list_voices(NULL);
}

const char *hark_espeak_load(int buffer_ms) {
    requested_buffer_ms = buffer_ms;
    pthread_once(&load_once, load);
    return sample_rate > 0 ? NULL : load_error;
}

int hark_espeak_sample_rate(void) { return sample_rate; }

int hark_espeak_voice_rate(void) {
    int rate = fn.current_rate ? fn.current_rate() : 0;
    return rate > 0 ? rate : sample_rate;
}

int hark_espeak_list_voices(int mbrola) {
    // The list with no filter leaves MBROLA voices out; the language "mb" selects them, as
    // `espeak-ng --voices=mb` does. Each call frees the list before: read it before the next.
    espeak_VOICE spec;
    memset(&spec, 0, sizeof spec);
    spec.languages = "mb";
    voices = fn.list_voices(mbrola ? &spec : NULL);
    return hark_espeak_voice_count();
}
const char *hark_espeak_version(void) { return version ? version : ""; }
const char *hark_espeak_data_path(void) { return data_path; }

int hark_espeak_set_voice(const char *name) { return fn.set_voice_by_name(name); }
int hark_espeak_set_rate(int value) { return fn.set_parameter(espeakRATE, value, 0); }
int hark_espeak_set_pitch(int value) { return fn.set_parameter(espeakPITCH, value, 0); }

int hark_espeak_synth(const char *text, hark_espeak_sink sink, void *context) {
    current_sink = sink;
    current_context = context;
    int result = fn.synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    current_sink = NULL;
    current_context = NULL;
    return result;
}

int hark_espeak_voice_count(void) {
    int count = 0;
    while (voices && voices[count]) count++;
    return count;
}

int hark_espeak_voice_at(int index, const char **name, const char **identifier, const char **language, int *gender) {
    if (index < 0 || index >= hark_espeak_voice_count()) return -1;
    const espeak_VOICE *voice = voices[index];
    *name = voice->name ? voice->name : "";
    *identifier = voice->identifier ? voice->identifier : "";
    // languages is a list of (priority byte, name, NUL); the first is the main one.
    *language = voice->languages && voice->languages[0] ? voice->languages + 1 : "";
    *gender = voice->gender;
    return 0;
}
