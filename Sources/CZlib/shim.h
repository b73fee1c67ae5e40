#ifndef HARK_CZLIB_SHIM_H
#define HARK_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 is a macro over inflateInit2_, which Swift cannot call through.
static inline int hark_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}
#endif
