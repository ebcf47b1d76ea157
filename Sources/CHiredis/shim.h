#ifndef TOUCHRELAY_HIREDIS_SHIM_H
#define TOUCHRELAY_HIREDIS_SHIM_H
/* hiredis (Debian: libhiredis-dev): its RESP reader and command formatter only. The cluster
 * bus does its own I/O on the service thread's event loop (see RedisLink.swift). */
#include <hiredis/hiredis.h>
#endif
