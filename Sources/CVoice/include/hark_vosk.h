#ifndef HARK_VOSK_H
#define HARK_VOSK_H
// libvosk reached through dlopen: it is not on the system library path (the `vosk` Python
// wheel ships it), and nothing of it should load unless dictation is used.

typedef struct VoskModel VoskModel;
typedef struct VoskRecognizer VoskRecognizer;

/// Loads libvosk from `path` (a file, or a bare name for the system library path). Once one
/// library is loaded, later calls return NULL at once. Returns NULL when ready, else a message.
const char *hark_vosk_load(const char *path);
/// The file that was loaded, or NULL.
const char *hark_vosk_loaded_path(void);

VoskModel *hark_vosk_model_new(const char *model_path);
void hark_vosk_model_free(VoskModel *model);
/// The word's symbol, or -1 when the model does not know it.
int hark_vosk_model_find_word(VoskModel *model, const char *word);

VoskRecognizer *hark_vosk_recognizer_new(VoskModel *model, float sample_rate);
/// `grammar` is a JSON array of phrases, e.g. ["yes", "no", "[unk]"].
VoskRecognizer *hark_vosk_recognizer_new_grm(VoskModel *model, float sample_rate, const char *grammar);
void hark_vosk_recognizer_free(VoskRecognizer *recognizer);
void hark_vosk_recognizer_set_words(VoskRecognizer *recognizer, int words);
/// 1 when an utterance ended (read the result), 0 to go on, -1 on error.
int hark_vosk_recognizer_accept_waveform_s(VoskRecognizer *recognizer, const short *data, int length);
const char *hark_vosk_recognizer_result(VoskRecognizer *recognizer);
const char *hark_vosk_recognizer_partial_result(VoskRecognizer *recognizer);
const char *hark_vosk_recognizer_final_result(VoskRecognizer *recognizer);
void hark_vosk_recognizer_reset(VoskRecognizer *recognizer);
void hark_vosk_set_log_level(int level);
#endif
