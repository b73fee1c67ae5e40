#!/bin/sh
# A tts_command as a user would write one: the text on stdin, a WAV stream on stdout
# (espeak-ng's --stdout writes a 44-byte RIFF header, then 16-bit mono samples at 22050 Hz).
exec espeak-ng --stdin --stdout -v "${HARK_VOICE:-en}" -s "${HARK_RATE:-175}"
