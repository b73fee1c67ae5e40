#include "hark_editline.h"
#include <dlfcn.h>
#include <pthread.h>

// One pointer per libedit function hark uses, resolved by hark_editline_load.
static struct {
    EditLine *(*el_init)(const char *, FILE *, FILE *, FILE *);
    void (*el_end)(EditLine *);
    const char *(*el_gets)(EditLine *, int *);
    int (*el_source)(EditLine *, const char *);
    const LineInfoW *(*el_wline)(EditLine *);
    int (*el_winsertstr)(EditLine *, const wchar_t *);
    int (*el_cursor)(EditLine *, int);
    void (*el_deletestr)(EditLine *, int);
    int (*el_set)(EditLine *, int, ...);
    int (*el_get)(EditLine *, int, ...);
    History *(*history_init)(void);
    void (*history_end)(History *);
    int (*history)(History *, HistEvent *, int, ...);
} fn;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

#define RESOLVE(lib, field)                                                                 \
    do {                                                                                    \
        *(void **)(&fn.field) = dlsym(lib, #field);                                         \
        if (!fn.field) {                                                                    \
            snprintf(load_error, sizeof load_error, "libedit lacks %s (reinstall libedit2)", \
                     #field);                                                               \
            return;                                                                         \
        }                                                                                   \
    } while (0)

static void load(void) {
    const char *names[] = {"libedit.so.2", "libedit.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "libedit is not installed (apt-get install libedit2)");
        return;
    }
    RESOLVE(lib, el_init);
    RESOLVE(lib, el_end);
    RESOLVE(lib, el_gets);
    RESOLVE(lib, el_source);
    RESOLVE(lib, el_wline);
    RESOLVE(lib, el_winsertstr);
    RESOLVE(lib, el_cursor);
    RESOLVE(lib, el_deletestr);
    RESOLVE(lib, el_set);
    RESOLVE(lib, el_get);
    RESOLVE(lib, history_init);
    RESOLVE(lib, history_end);
    RESOLVE(lib, history);
    loaded = 1;
}

const char *hark_editline_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

// The wrappers below are called only after a successful hark_editline_load.
EditLine *hark_el_init(const char *program, FILE *in, FILE *out, FILE *err) { return fn.el_init(program, in, out, err); }
void hark_el_end(EditLine *el) { fn.el_end(el); }
const char *hark_el_gets(EditLine *el, int *count) { return fn.el_gets(el, count); }
int hark_el_source(EditLine *el, const char *file) { return fn.el_source(el, file); }
const LineInfoW *hark_el_wline(EditLine *el) { return fn.el_wline(el); }
int hark_el_winsertstr(EditLine *el, const wchar_t *text) { return fn.el_winsertstr(el, text); }
int hark_el_cursor(EditLine *el, int offset) { return fn.el_cursor(el, offset); }
void hark_el_deletestr(EditLine *el, int count) { fn.el_deletestr(el, count); }

int hark_el_set_prompt(EditLine *el, hark_prompt_fn prompt) {
    // '\1' brackets invisible (colour) sequences so libedit measures the prompt correctly.
    return fn.el_set(el, EL_PROMPT_ESC, prompt, '\1');
}
int hark_el_set_editor(EditLine *el, const char *mode) { return fn.el_set(el, EL_EDITOR, mode); }
int hark_el_set_signal(EditLine *el, int on) { return fn.el_set(el, EL_SIGNAL, on); }
int hark_el_set_history(EditLine *el, History *h) { return fn.el_set(el, EL_HIST, fn.history, h); }
int hark_el_add_function(EditLine *el, const char *name, const char *help, hark_command_fn command) {
    return fn.el_set(el, EL_ADDFN, name, help, command);
}
int hark_el_bind(EditLine *el, const char *keys, const char *function) {
    return fn.el_set(el, EL_BIND, keys, function, NULL);
}
int hark_el_set_getc(EditLine *el, hark_getc_fn getc) { return fn.el_set(el, EL_GETCFN, getc); }
int hark_el_set_clientdata(EditLine *el, void *data) { return fn.el_set(el, EL_CLIENTDATA, data); }
void *hark_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    fn.el_get(el, EL_CLIENTDATA, &data);
    return data;
}
int hark_el_refresh(EditLine *el) { return fn.el_set(el, EL_REFRESH); }
int hark_el_setty_edit_off(EditLine *el, const char *flag) {
    char cleared[64];
    snprintf(cleared, sizeof cleared, "-%s", flag);
    return fn.el_set(el, EL_SETTY, "-d", cleared, (const char *)NULL);
}
int hark_el_prep_term(EditLine *el, int raw) { return fn.el_set(el, EL_PREP_TERM, raw); }
int hark_el_get_editor(EditLine *el, const char **mode) { return fn.el_get(el, EL_EDITOR, mode); }

History *hark_history_init(void) { return fn.history_init(); }
void hark_history_end(History *h) { fn.history_end(h); }
int hark_history_setsize(History *h, HistEvent *ev, int size) { return fn.history(h, ev, H_SETSIZE, size); }
int hark_history_setunique(History *h, HistEvent *ev, int unique) { return fn.history(h, ev, H_SETUNIQUE, unique); }
int hark_history_enter(History *h, HistEvent *ev, const char *line) { return fn.history(h, ev, H_ENTER, line); }
int hark_history_clear(History *h, HistEvent *ev) { return fn.history(h, ev, H_CLEAR); }
