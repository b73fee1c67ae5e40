#include "hark_vosk.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// One pointer per libvosk function hark uses (the C API of vosk_api.h).
static struct {
    VoskModel *(*model_new)(const char *);
    void (*model_free)(VoskModel *);
    int (*model_find_word)(VoskModel *, const char *);
    VoskRecognizer *(*recognizer_new)(VoskModel *, float);
    VoskRecognizer *(*recognizer_new_grm)(VoskModel *, float, const char *);
    void (*recognizer_free)(VoskRecognizer *);
    void (*recognizer_set_words)(VoskRecognizer *, int);
    int (*recognizer_accept_waveform_s)(VoskRecognizer *, const short *, int);
    const char *(*recognizer_result)(VoskRecognizer *);
    const char *(*recognizer_partial_result)(VoskRecognizer *);
    const char *(*recognizer_final_result)(VoskRecognizer *);
    void (*recognizer_reset)(VoskRecognizer *);
    void (*set_log_level)(int);
} fn;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static char load_error[1024];
static char loaded_path[1024];
static int loaded;

#define RESOLVE(lib, field, symbol)                                                        \
    do {                                                                                   \
        *(void **)(&fn.field) = dlsym(lib, symbol);                                        \
        if (!fn.field) {                                                                   \
            snprintf(load_error, sizeof load_error, "%s is not libvosk (it lacks %s)",     \
                     path, symbol);                                                        \
            dlclose(lib);                                                                  \
            return load_error;                                                             \
        }                                                                                  \
    } while (0)

static const char *load(const char *path) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot load it");
        return load_error;
    }
    RESOLVE(lib, model_new, "vosk_model_new");
    RESOLVE(lib, model_free, "vosk_model_free");
    RESOLVE(lib, model_find_word, "vosk_model_find_word");
    RESOLVE(lib, recognizer_new, "vosk_recognizer_new");
    RESOLVE(lib, recognizer_new_grm, "vosk_recognizer_new_grm");
    RESOLVE(lib, recognizer_free, "vosk_recognizer_free");
    RESOLVE(lib, recognizer_set_words, "vosk_recognizer_set_words");
    RESOLVE(lib, recognizer_accept_waveform_s, "vosk_recognizer_accept_waveform_s");
    RESOLVE(lib, recognizer_result, "vosk_recognizer_result");
    RESOLVE(lib, recognizer_partial_result, "vosk_recognizer_partial_result");
    RESOLVE(lib, recognizer_final_result, "vosk_recognizer_final_result");
    RESOLVE(lib, recognizer_reset, "vosk_recognizer_reset");
    RESOLVE(lib, set_log_level, "vosk_set_log_level");
    // Kaldi logs to stderr by default; hark reports problems itself.
    fn.set_log_level(-1);
    snprintf(loaded_path, sizeof loaded_path, "%s", path);
    loaded = 1;
    return NULL;
}

const char *hark_vosk_load(const char *path) {
    pthread_mutex_lock(&load_lock);
    const char *result = loaded ? NULL : load(path);
    pthread_mutex_unlock(&load_lock);
    return result;
}

const char *hark_vosk_loaded_path(void) { return loaded ? loaded_path : NULL; }

VoskModel *hark_vosk_model_new(const char *model_path) { return fn.model_new(model_path); }
void hark_vosk_model_free(VoskModel *model) { fn.model_free(model); }
int hark_vosk_model_find_word(VoskModel *model, const char *word) { return fn.model_find_word(model, word); }
VoskRecognizer *hark_vosk_recognizer_new(VoskModel *model, float rate) { return fn.recognizer_new(model, rate); }
VoskRecognizer *hark_vosk_recognizer_new_grm(VoskModel *model, float rate, const char *grammar) {
    return fn.recognizer_new_grm(model, rate, grammar);
}
void hark_vosk_recognizer_free(VoskRecognizer *r) { fn.recognizer_free(r); }
void hark_vosk_recognizer_set_words(VoskRecognizer *r, int words) { fn.recognizer_set_words(r, words); }
int hark_vosk_recognizer_accept_waveform_s(VoskRecognizer *r, const short *data, int length) {
    return fn.recognizer_accept_waveform_s(r, data, length);
}
const char *hark_vosk_recognizer_result(VoskRecognizer *r) { return fn.recognizer_result(r); }
const char *hark_vosk_recognizer_partial_result(VoskRecognizer *r) { return fn.recognizer_partial_result(r); }
const char *hark_vosk_recognizer_final_result(VoskRecognizer *r) { return fn.recognizer_final_result(r); }
void hark_vosk_recognizer_reset(VoskRecognizer *r) { fn.recognizer_reset(r); }
void hark_vosk_set_log_level(int level) { fn.set_log_level(level); }
