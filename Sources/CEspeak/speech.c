#include "reveille_speech.h"

#include <espeak-ng/speak_lib.h>
#include <stdlib.h>
#include <string.h>

/* Where the synthesis callback puts samples; only touched by the thread that calls
   RV_speech_synthesize (libespeak-ng runs the callback on it, in synchronous mode). */
static short *collected;
static size_t collected_count;
static size_t collected_capacity;
static int collect_failed;

static int collect(short *samples, int count, espeak_EVENT *events) {
    (void)events;
    if (samples == NULL || count <= 0) return 0;
    if (collected_count + (size_t)count > collected_capacity) {
        size_t capacity = collected_capacity ? collected_capacity * 2 : 22050;
        while (capacity < collected_count + (size_t)count) capacity *= 2;
        short *grown = realloc(collected, capacity * sizeof(short));
        if (grown == NULL) {
            collect_failed = 1;
            return 1; /* stop synthesis */
        }
        collected = grown;
        collected_capacity = capacity;
    }
    memcpy(collected + collected_count, samples, (size_t)count * sizeof(short));
    collected_count += (size_t)count;
    return 0;
}

int RV_speech_start(const char *voice, int words_per_minute) {
    int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, NULL, espeakINITIALIZE_DONT_EXIT);
    if (rate <= 0) return -1;
    espeak_SetSynthCallback(collect);
    if (espeak_SetVoiceByName(voice) != EE_OK) return -2;
    if (words_per_minute > 0) espeak_SetParameter(espeakRATE, words_per_minute, 0);
    return rate;
}

int RV_speech_synthesize(const char *text, short **samples, size_t *count) {
    collected = NULL;
    collected_count = 0;
    collected_capacity = 0;
    collect_failed = 0;
    espeak_ERROR result =
        espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    if (result == EE_OK) result = espeak_Synchronize();
    if (result != EE_OK || collect_failed) {
        free(collected);
        collected = NULL;
        return result != EE_OK ? (int)result : -1;
    }
    *samples = collected;
    *count = collected_count;
    collected = NULL;
    return 0;
}
