#ifndef HARK_ALSA_H
#define HARK_ALSA_H
// ALSA, reached through dlopen: the fallback when no PulseAudio or PipeWire server answers.

typedef struct _snd_pcm snd_pcm_t;

/// Loads libasound. Returns NULL when ready, else a message.
const char *hark_alsa_load(void);

/// Opens `device` ("default") for 16-bit interleaved playback (`capture` 0) or capture (1),
/// resampling to `rate` if the hardware cannot. Returns 0 or a negative ALSA error code.
int hark_alsa_open(snd_pcm_t **pcm, const char *device, int capture, unsigned rate, unsigned channels,
                   unsigned latency_us);
/// Frames written or read, or a negative error code (recovered from underruns and overruns).
long hark_alsa_write(snd_pcm_t *pcm, const short *frames, unsigned long count);
long hark_alsa_read(snd_pcm_t *pcm, short *frames, unsigned long count);
int hark_alsa_drain(snd_pcm_t *pcm);
int hark_alsa_drop(snd_pcm_t *pcm);
int hark_alsa_close(snd_pcm_t *pcm);
const char *hark_alsa_strerror(int error);
#endif
