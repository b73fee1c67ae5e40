#ifndef HARK_CURL_H
#define HARK_CURL_H
// libcurl reached through dlopen: the types and constants come from the system's curl.h, the
// functions from libcurl.so.4 loaded on first use. Variadic calls get fixed-signature wrappers.
#include <curl/curl.h>

/// Loads libcurl once. Returns NULL when ready, else a message naming what is missing.
const char *hark_curl_load(void);

CURL *hark_curl_easy_init(void);
void hark_curl_easy_cleanup(CURL *handle);
CURLcode hark_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode hark_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode hark_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode hark_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode hark_curl_setopt_write_function(CURL *handle, CURLoption option,
                                         size_t (*fn)(char *, size_t, size_t, void *));
CURLcode hark_curl_setopt_xferinfo_function(CURL *handle,
                                            int (*fn)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
CURLcode hark_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode hark_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);
CURLcode hark_curl_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value);
/// CONNECT_ONLY connections (a WebSocket over TLS): connect, then raw bytes both ways.
CURLcode hark_curl_easy_perform(CURL *handle);
CURLcode hark_curl_easy_send(CURL *handle, const void *buffer, size_t length, size_t *sent);
CURLcode hark_curl_easy_recv(CURL *handle, void *buffer, size_t length, size_t *received);
const char *hark_curl_easy_strerror(CURLcode code);

struct curl_slist *hark_curl_slist_append(struct curl_slist *list, const char *value);
void hark_curl_slist_free_all(struct curl_slist *list);

CURLM *hark_curl_multi_init(void);
CURLMcode hark_curl_multi_cleanup(CURLM *multi);
CURLMcode hark_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode hark_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode hark_curl_multi_perform(CURLM *multi, int *running);
CURLMcode hark_curl_multi_poll(CURLM *multi, int timeout_ms);
CURLMcode hark_curl_multi_wakeup(CURLM *multi);
/// The result of the first finished transfer, or -1 when none has finished.
int hark_curl_multi_done_result(CURLM *multi);

curl_mime *hark_curl_mime_init(CURL *handle);
void hark_curl_mime_free(curl_mime *mime);
curl_mimepart *hark_curl_mime_addpart(curl_mime *mime);
CURLcode hark_curl_mime_name(curl_mimepart *part, const char *name);
CURLcode hark_curl_mime_data(curl_mimepart *part, const char *data, size_t size);
CURLcode hark_curl_mime_filedata(curl_mimepart *part, const char *path);
CURLcode hark_curl_mime_filename(curl_mimepart *part, const char *name);
CURLcode hark_curl_mime_type(curl_mimepart *part, const char *type);

/// The loaded library's version string, or NULL before loading.
const char *hark_curl_version(void);
#endif
