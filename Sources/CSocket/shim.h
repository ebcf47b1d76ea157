#ifndef TOUCHRELAY_SOCKET_SHIM_H
#define TOUCHRELAY_SOCKET_SHIM_H

/* The socket headers, for the server's own sockets outside the libwebsockets driver (TUIO's
 * UDP sockets). Swift's Glibc module does not show every name of these (SOCK_DGRAM,
 * SOCK_NONBLOCK, IPPROTO_IPV6) once another module has included them first, as
 * libwebsockets.h does: this module includes them for the files that import it. */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netdb.h>

/* IPPROTO_IPV6 is a member of an unnamed enum in <netinet/in.h>, and Swift finds such a
 * constant only through the module that parsed the header first: in a whole-module (release)
 * build of RelayServer that is CLibWebSockets, which TUIO's files do not import. Declared here,
 * it is this module's own in every build. */
static inline int tr_ipproto_ipv6(void) { return IPPROTO_IPV6; }

#endif
