#ifndef REVEILLE_WEB_SHIMS_H
#define REVEILLE_WEB_SHIMS_H

/// Where the Swift runtime keeps its hook for enqueuing global tasks. NIO looks it up with dlsym,
/// which cannot see it when the runtime is linked in statically (the release build); the linker can.
void **RV_enqueue_global_hook(void);

#endif
