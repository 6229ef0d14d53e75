#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper per kind of argument.
static inline CURLcode rv_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode rv_curl_set_off(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode rv_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode rv_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode rv_curl_set_write(CURL *curl, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode rv_curl_set_header(CURL *curl, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
}
static inline long rv_curl_response_code(CURL *curl) {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
