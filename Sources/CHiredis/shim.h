#ifndef TOUCHRELAY_HIREDIS_SHIM_H
#define TOUCHRELAY_HIREDIS_SHIM_H
/* hiredis (Debian 12: libhiredis-dev 0.14; Debian 13 and Ubuntu 24.04: 1.x): its RESP reader
 * only; the cluster bus does its own I/O on the service thread's event loop (see
 * RedisLink.swift). hiredis.h itself, not a copy of its declarations: `redisReply` gained
 * members in 1.0 (and `len` was an int before 0.11), so a copy builds against any of them and
 * misreads every reply of all but one. The system headers hiredis.h includes (sys/time.h,
 * stdarg.h, stdint.h, sys/types.h) are Glibc's too: other files still see their names through
 * Glibc, and none of them declares sockets. */
#include <hiredis/hiredis.h>

#if !defined(HIREDIS_MAJOR)
#error "hiredis.h without HIREDIS_MAJOR: not a hiredis this code knows (0.14 or 1.x)"
#endif
#endif
