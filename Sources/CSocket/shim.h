#ifndef TOUCHRELAY_SOCKET_SHIM_H
#define TOUCHRELAY_SOCKET_SHIM_H

/* The socket headers, for the server's own sockets outside the libwebsockets driver (TUIO's
 * UDP sockets). Swift's Glibc module does not show every name of these (SOCK_DGRAM,
 * SOCK_NONBLOCK, IPPROTO_IPV6) once another module has included them first, as
 * libwebsockets.h does: this module names them itself. */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netdb.h>

#endif
