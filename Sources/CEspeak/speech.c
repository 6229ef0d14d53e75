#include "reveille_speech.h"

#include <dlfcn.h>
#include <espeak-ng/speak_lib.h>
#include <stdlib.h>
#include <string.h>

/* libespeak-ng is opened at the first sentence (dlopen), not linked: it brings PulseAudio's client
   and X11's libraries with it, which would cost the idle daemon some 10 MB of resident memory and
   its start-up time, for a voice that may never speak. */
static struct {
    int (*initialize)(espeak_AUDIO_OUTPUT, int, const char *, int);
    void (*set_callback)(t_espeak_callback *);
    espeak_ERROR (*set_voice)(const char *);
    espeak_ERROR (*set_parameter)(espeak_PARAMETER, int, int);
    espeak_ERROR (*synth)(const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int, unsigned int,
                          unsigned int *, void *);
    espeak_ERROR (*synchronize)(void);
} espeak;

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

static int load(void) {
    void *library = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return 0;
    espeak.initialize = (int (*)(espeak_AUDIO_OUTPUT, int, const char *, int))dlsym(library, "espeak_Initialize");
    espeak.set_callback = (void (*)(t_espeak_callback *))dlsym(library, "espeak_SetSynthCallback");
    espeak.set_voice = (espeak_ERROR(*)(const char *))dlsym(library, "espeak_SetVoiceByName");
    espeak.set_parameter = (espeak_ERROR(*)(espeak_PARAMETER, int, int))dlsym(library, "espeak_SetParameter");
    espeak.synth = (espeak_ERROR(*)(const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int,
                                    unsigned int, unsigned int *, void *))dlsym(library, "espeak_Synth");
    espeak.synchronize = (espeak_ERROR(*)(void))dlsym(library, "espeak_Synchronize");
    return espeak.initialize && espeak.set_callback && espeak.set_voice && espeak.set_parameter && espeak.synth &&
           espeak.synchronize;
}

int RV_speech_start(const char *voice, int words_per_minute) {
    if (!load()) return -3;
    int rate = espeak.initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, NULL, espeakINITIALIZE_DONT_EXIT);
    if (rate <= 0) return -1;
    espeak.set_callback(collect);
    if (espeak.set_voice(voice) != EE_OK) return -2;
    if (words_per_minute > 0) espeak.set_parameter(espeakRATE, words_per_minute, 0);
    return rate;
}

int RV_speech_synthesize(const char *text, short **samples, size_t *count) {
    collected = NULL;
    collected_count = 0;
    collected_capacity = 0;
    collect_failed = 0;
    espeak_ERROR result = espeak.synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    if (result == EE_OK) result = espeak.synchronize();
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
