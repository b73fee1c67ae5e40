#ifndef HARK_ESPEAK_H
#define HARK_ESPEAK_H
// espeak-ng reached through dlopen on first use, so nothing of it is loaded unless speech is.
// Its global state is not thread-safe: the Swift side calls these under one lock.

/// Receives synthesized samples (16-bit mono at the rate hark_espeak_initialize returned).
/// Returns non-zero to abort the synthesis (speech stopped).
typedef int (*hark_espeak_sink)(void *context, const short *samples, int count);

/// Loads libespeak-ng and initialises it for synchronous synthesis into a callback.
/// Returns NULL when ready, else a message naming what is missing.
const char *hark_espeak_load(int buffer_ms);

/// The output sample rate (22050 for espeak-ng's voices), valid after loading.
int hark_espeak_sample_rate(void);
/// The rate of the voice set last: an MBROLA voice speaks at its database's rate (16000 for most).
int hark_espeak_voice_rate(void);
/// Lists the ordinary voices (mbrola 0) or the MBROLA ones (1), installed or not, for
/// hark_espeak_voice_at; returns how many. Loading lists the ordinary ones.
int hark_espeak_list_voices(int mbrola);
/// The library's version, e.g. "1.51".
const char *hark_espeak_version(void);
/// The folder of espeak-ng-data in use.
const char *hark_espeak_data_path(void);

/// 0 on success (EE_OK).
int hark_espeak_set_voice(const char *name);
/// rate (words per minute, 80-450) and pitch (0-99); 0 on success.
int hark_espeak_set_rate(int value);
int hark_espeak_set_pitch(int value);

/// Synthesizes UTF-8 text, calling sink with each buffer; returns 0 on success.
int hark_espeak_synth(const char *text, hark_espeak_sink sink, void *context);

/// The installed voices: call count first, then read each.
int hark_espeak_voice_count(void);
/// name ("English (America)"), identifier ("gmw/en-US"), language ("en-us"), gender (1 male, 2 female, 0 unknown).
int hark_espeak_voice_at(int index, const char **name, const char **identifier, const char **language, int *gender);
#endif
