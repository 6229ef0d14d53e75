#ifndef REVEILLE_SPEECH_H
#define REVEILLE_SPEECH_H

#include <stddef.h>

/// Opens libespeak-ng (dlopen), loads its data (synchronous mode: samples come back, nothing is
/// played) and picks `voice` (`en`, `de`, `en-us`...) at `words_per_minute`. The sample rate
/// (22050), or -1 when the data is missing, -2 when there is no such voice, -3 when the library
/// is not installed. Never exits the process (DONT_EXIT).
int RV_speech_start(const char *voice, int words_per_minute);

/// Synthesizes UTF-8 `text` into a malloc'd buffer of mono 16-bit samples the caller frees.
/// 0, or espeak-ng's error code. One thread at a time: libespeak-ng keeps global state.
int RV_speech_synthesize(const char *text, short **samples, size_t *count);

#endif
