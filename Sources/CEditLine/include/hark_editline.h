#ifndef HARK_EDITLINE_H
#define HARK_EDITLINE_H
// libedit reached through dlopen: the types and constants come from the system's histedit.h,
// the functions from libedit.so.2, loaded when the interactive shell starts. `hark version`,
// `hark search` and one-shot messages in pipes never load it (nor its libtinfo, libbsd and
// libmd). Variadic calls (el_set, el_get, history) get fixed-signature wrappers.
#include <stdio.h>
#include <wchar.h>
#include <histedit.h>

/// Loads libedit once. Returns NULL when ready, else a message naming what is missing.
const char *hark_editline_load(void);

typedef char *(*hark_prompt_fn)(EditLine *);
typedef unsigned char (*hark_command_fn)(EditLine *, int);
typedef int (*hark_getc_fn)(EditLine *, wchar_t *);

EditLine *hark_el_init(const char *program, FILE *in, FILE *out, FILE *err);
void hark_el_end(EditLine *el);
const char *hark_el_gets(EditLine *el, int *count);
int hark_el_source(EditLine *el, const char *file);
const LineInfoW *hark_el_wline(EditLine *el);
int hark_el_winsertstr(EditLine *el, const wchar_t *text);
int hark_el_cursor(EditLine *el, int offset);
void hark_el_deletestr(EditLine *el, int count);

int hark_el_set_prompt(EditLine *el, hark_prompt_fn fn);
int hark_el_set_editor(EditLine *el, const char *mode);
int hark_el_set_signal(EditLine *el, int on);
int hark_el_set_history(EditLine *el, History *h);
int hark_el_add_function(EditLine *el, const char *name, const char *help, hark_command_fn fn);
int hark_el_bind(EditLine *el, const char *keys, const char *function);
int hark_el_set_getc(EditLine *el, hark_getc_fn fn);
int hark_el_set_clientdata(EditLine *el, void *data);
void *hark_el_get_clientdata(EditLine *el);
int hark_el_refresh(EditLine *el);
/// Clears one flag of libedit's edit mode (`setty -d -FLAG`), e.g. "isig".
int hark_el_setty_edit_off(EditLine *el, const char *flag);
/// Puts the terminal in libedit's edit mode (1) or back in the user's (0).
int hark_el_prep_term(EditLine *el, int raw);
int hark_el_get_editor(EditLine *el, const char **mode);

History *hark_history_init(void);
void hark_history_end(History *h);
int hark_history_setsize(History *h, HistEvent *ev, int size);
int hark_history_setunique(History *h, HistEvent *ev, int unique);
int hark_history_enter(History *h, HistEvent *ev, const char *line);
int hark_history_clear(History *h, HistEvent *ev);
#endif
