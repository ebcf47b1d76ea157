#ifndef TOUCHRELAY_STATIC_LINK_SUPPORT_H
#define TOUCHRELAY_STATIC_LINK_SUPPORT_H

/* Nothing to call from Swift: this target only defines C library functions the statically
 * linked runtime binds at link time (mktemp.c says which and why). */

#endif
