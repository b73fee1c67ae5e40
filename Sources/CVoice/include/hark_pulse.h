#ifndef HARK_PULSE_H
#define HARK_PULSE_H
// PulseAudio's simple API (also served by PipeWire's pulse server), reached through dlopen.
#include <stddef.h>
#include <stdint.h>

typedef struct pa_simple pa_simple;

/// Loads libpulse-simple. Returns NULL when ready, else a message.
const char *hark_pulse_load(void);

/// Opens a 16-bit mono stream to an output (`record` 0) or from an input (`record` 1): the
/// sink or source named `device`, or with NULL the default one ($PULSE_SINK, $PULSE_SOURCE or
/// the server's). `server` NULL means the usual one ($PULSE_SERVER, the user's session).
/// `latency_bytes` sets how much the server buffers: small for prompt starts and stops.
/// On failure returns NULL and sets *error to a PulseAudio error code.
pa_simple *hark_pulse_open(const char *server, const char *device, int record, unsigned rate, unsigned channels,
                           const char *stream_name, unsigned latency_bytes, int *error);
int hark_pulse_write(pa_simple *stream, const void *data, size_t bytes, int *error);
int hark_pulse_read(pa_simple *stream, void *data, size_t bytes, int *error);
int hark_pulse_drain(pa_simple *stream, int *error);
int hark_pulse_flush(pa_simple *stream, int *error);
void hark_pulse_free(pa_simple *stream);
const char *hark_pulse_strerror(int error);
#endif
