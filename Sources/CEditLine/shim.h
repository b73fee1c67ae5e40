#ifndef HARK_CEDITLINE_SHIM_H
#define HARK_CEDITLINE_SHIM_H
#include <stdio.h>
#include <wchar.h>
#include <histedit.h>

// el_set, el_get and history are variadic; Swift can only call fixed signatures.
typedef char *(*hark_prompt_fn)(EditLine *);
typedef unsigned char (*hark_command_fn)(EditLine *, int);
typedef int (*hark_getc_fn)(EditLine *, wchar_t *);

static inline int hark_el_set_prompt(EditLine *el, hark_prompt_fn fn) {
    // '\1' brackets invisible (colour) sequences so libedit measures the prompt correctly.
    return el_set(el, EL_PROMPT_ESC, fn, '\1');
}
static inline int hark_el_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }
static inline int hark_el_set_signal(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }
static inline int hark_el_set_history(EditLine *el, History *h) { return el_set(el, EL_HIST, history, h); }
static inline int hark_el_add_function(EditLine *el, const char *name, const char *help, hark_command_fn fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}
static inline int hark_el_bind(EditLine *el, const char *keys, const char *function) {
    return el_set(el, EL_BIND, keys, function, NULL);
}
static inline int hark_el_set_getc(EditLine *el, hark_getc_fn fn) { return el_set(el, EL_GETCFN, fn); }
static inline int hark_el_set_clientdata(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }
static inline void *hark_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}
static inline int hark_el_refresh(EditLine *el) { return el_set(el, EL_REFRESH); }
static inline int hark_el_get_editor(EditLine *el, const char **mode) { return el_get(el, EL_EDITOR, mode); }

static inline int hark_history_setsize(History *h, HistEvent *ev, int size) { return history(h, ev, H_SETSIZE, size); }
static inline int hark_history_setunique(History *h, HistEvent *ev, int unique) { return history(h, ev, H_SETUNIQUE, unique); }
static inline int hark_history_enter(History *h, HistEvent *ev, const char *line) { return history(h, ev, H_ENTER, line); }
static inline int hark_history_clear(History *h, HistEvent *ev) { return history(h, ev, H_CLEAR); }
#endif
