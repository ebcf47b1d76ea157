#ifndef TOUCHRELAY_HIREDIS_SHIM_H
#define TOUCHRELAY_HIREDIS_SHIM_H
/* hiredis (Debian: libhiredis-dev 0.14): its RESP reader only; the cluster bus does its own
 * I/O on the service thread's event loop (see RedisLink.swift). Only read.h is included, with
 * the two declarations of hiredis.h the reader needs: hiredis.h pulls in system headers that
 * this module would then own, hiding their names (SOCK_DGRAM, ...) from the rest of the
 * server's files. */
#include <hiredis/read.h>

typedef struct redisReply {
  int type;
  long long integer;
  size_t len;
  char *str;
  size_t elements;
  struct redisReply **element;
} redisReply;

redisReader *redisReaderCreate(void);
void freeReplyObject(void *reply);
#endif
