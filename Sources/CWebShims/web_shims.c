#include "web_shims.h"

extern void *swift_task_enqueueGlobal_hook;

void **RV_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }
