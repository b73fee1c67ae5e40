#include "hark_curl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// One pointer per libcurl function hark uses, resolved by hark_curl_load.
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_send)(CURL *, const void *, size_t, size_t *);
    CURLcode (*easy_recv)(CURL *, void *, size_t, size_t *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    curl_mime *(*mime_init)(CURL *);
    void (*mime_free)(curl_mime *);
    curl_mimepart *(*mime_addpart)(curl_mime *);
    CURLcode (*mime_name)(curl_mimepart *, const char *);
    CURLcode (*mime_data)(curl_mimepart *, const char *, size_t);
    CURLcode (*mime_filedata)(curl_mimepart *, const char *);
    CURLcode (*mime_filename)(curl_mimepart *, const char *);
    CURLcode (*mime_type)(curl_mimepart *, const char *);
    char *(*version)(void);
} fn;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int loaded;

#define RESOLVE(lib, field, symbol)                                                        \
    do {                                                                                   \
        *(void **)(&fn.field) = dlsym(lib, symbol);                                        \
        if (!fn.field) {                                                                   \
            snprintf(load_error, sizeof load_error, "libcurl lacks %s (need 7.68 or newer)", \
                     symbol);                                                              \
            return;                                                                        \
        }                                                                                  \
    } while (0)

static void load(void) {
    const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error,
                 "libcurl is not installed (apt-get install libcurl4)");
        return;
    }
    RESOLVE(lib, global_init, "curl_global_init");
    RESOLVE(lib, easy_init, "curl_easy_init");
    RESOLVE(lib, easy_cleanup, "curl_easy_cleanup");
    RESOLVE(lib, easy_setopt, "curl_easy_setopt");
    RESOLVE(lib, easy_perform, "curl_easy_perform");
    RESOLVE(lib, easy_send, "curl_easy_send");
    RESOLVE(lib, easy_recv, "curl_easy_recv");
    RESOLVE(lib, easy_getinfo, "curl_easy_getinfo");
    RESOLVE(lib, easy_strerror, "curl_easy_strerror");
    RESOLVE(lib, slist_append, "curl_slist_append");
    RESOLVE(lib, slist_free_all, "curl_slist_free_all");
    RESOLVE(lib, multi_init, "curl_multi_init");
    RESOLVE(lib, multi_cleanup, "curl_multi_cleanup");
    RESOLVE(lib, multi_add_handle, "curl_multi_add_handle");
    RESOLVE(lib, multi_remove_handle, "curl_multi_remove_handle");
    RESOLVE(lib, multi_perform, "curl_multi_perform");
    RESOLVE(lib, multi_poll, "curl_multi_poll");
    RESOLVE(lib, multi_wakeup, "curl_multi_wakeup");
    RESOLVE(lib, multi_info_read, "curl_multi_info_read");
    RESOLVE(lib, mime_init, "curl_mime_init");
    RESOLVE(lib, mime_free, "curl_mime_free");
    RESOLVE(lib, mime_addpart, "curl_mime_addpart");
    RESOLVE(lib, mime_name, "curl_mime_name");
    RESOLVE(lib, mime_data, "curl_mime_data");
    RESOLVE(lib, mime_filedata, "curl_mime_filedata");
    RESOLVE(lib, mime_filename, "curl_mime_filename");
    RESOLVE(lib, mime_type, "curl_mime_type");
    RESOLVE(lib, version, "curl_version");
    if (fn.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "libcurl failed to initialise");
        return;
    }
    loaded = 1;
}

const char *hark_curl_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

CURL *hark_curl_easy_init(void) { return fn.easy_init(); }
void hark_curl_easy_cleanup(CURL *h) { fn.easy_cleanup(h); }
CURLcode hark_curl_setopt_long(CURL *h, CURLoption o, long v) { return fn.easy_setopt(h, o, v); }
CURLcode hark_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return fn.easy_setopt(h, o, v); }
CURLcode hark_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return fn.easy_setopt(h, o, v); }
CURLcode hark_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return fn.easy_setopt(h, o, v); }
CURLcode hark_curl_setopt_write_function(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) {
    return fn.easy_setopt(h, o, f);
}
CURLcode hark_curl_setopt_xferinfo_function(CURL *h,
                                            int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return fn.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}
CURLcode hark_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return fn.easy_getinfo(h, i, v); }
CURLcode hark_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return fn.easy_getinfo(h, i, v); }
CURLcode hark_curl_getinfo_socket(CURL *h, CURLINFO i, curl_socket_t *v) { return fn.easy_getinfo(h, i, v); }
CURLcode hark_curl_easy_perform(CURL *h) { return fn.easy_perform(h); }
CURLcode hark_curl_easy_send(CURL *h, const void *b, size_t n, size_t *sent) { return fn.easy_send(h, b, n, sent); }
CURLcode hark_curl_easy_recv(CURL *h, void *b, size_t n, size_t *received) { return fn.easy_recv(h, b, n, received); }
const char *hark_curl_easy_strerror(CURLcode c) { return fn.easy_strerror(c); }

struct curl_slist *hark_curl_slist_append(struct curl_slist *l, const char *v) { return fn.slist_append(l, v); }
void hark_curl_slist_free_all(struct curl_slist *l) { fn.slist_free_all(l); }

CURLM *hark_curl_multi_init(void) { return fn.multi_init(); }
CURLMcode hark_curl_multi_cleanup(CURLM *m) { return fn.multi_cleanup(m); }
CURLMcode hark_curl_multi_add_handle(CURLM *m, CURL *h) { return fn.multi_add_handle(m, h); }
CURLMcode hark_curl_multi_remove_handle(CURLM *m, CURL *h) { return fn.multi_remove_handle(m, h); }
CURLMcode hark_curl_multi_perform(CURLM *m, int *running) { return fn.multi_perform(m, running); }
CURLMcode hark_curl_multi_poll(CURLM *m, int timeout_ms) { return fn.multi_poll(m, NULL, 0, timeout_ms, NULL); }
CURLMcode hark_curl_multi_wakeup(CURLM *m) { return fn.multi_wakeup(m); }
int hark_curl_multi_done_result(CURLM *m) {
    int queued = 0;
    CURLMsg *msg;
    while ((msg = fn.multi_info_read(m, &queued)) != NULL) {
        if (msg->msg == CURLMSG_DONE) return (int)msg->data.result;
    }
    return -1;
}

curl_mime *hark_curl_mime_init(CURL *h) { return fn.mime_init(h); }
void hark_curl_mime_free(curl_mime *m) { fn.mime_free(m); }
curl_mimepart *hark_curl_mime_addpart(curl_mime *m) { return fn.mime_addpart(m); }
CURLcode hark_curl_mime_name(curl_mimepart *p, const char *n) { return fn.mime_name(p, n); }
CURLcode hark_curl_mime_data(curl_mimepart *p, const char *d, size_t s) { return fn.mime_data(p, d, s); }
CURLcode hark_curl_mime_filedata(curl_mimepart *p, const char *path) { return fn.mime_filedata(p, path); }
CURLcode hark_curl_mime_filename(curl_mimepart *p, const char *n) { return fn.mime_filename(p, n); }
CURLcode hark_curl_mime_type(curl_mimepart *p, const char *t) { return fn.mime_type(p, t); }

const char *hark_curl_version(void) { return loaded ? fn.version() : NULL; }
