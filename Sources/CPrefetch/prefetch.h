#ifndef TOUCHRELAY_PREFETCH_H
#define TOUCHRELAY_PREFETCH_H

#include <stddef.h>

/* Asks the CPU to start loading `bytes` at `p` into its caches: a hint, never a fault.
 * Swift has no prefetch of its own; the relay core uses it for the engines' state. */
static inline void tr_prefetch(const void *p, size_t bytes) {
  const char *c = (const char *)p;
  for (size_t i = 0; i < bytes; i += 64) __builtin_prefetch(c + i);
}

#endif
