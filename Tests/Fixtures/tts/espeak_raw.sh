#!/bin/sh
# A tts_command writing raw samples, as Piper's --output-raw does: espeak-ng's WAV stream without
# its 44-byte header, so 16-bit little-endian mono at 22050 Hz (tts_rate = 22050).
espeak-ng --stdin --stdout -v "${HARK_VOICE:-en}" | tail -c +45
