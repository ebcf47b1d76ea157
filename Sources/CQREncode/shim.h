#ifndef TOUCHRELAY_QRENCODE_SHIM_H
#define TOUCHRELAY_QRENCODE_SHIM_H

/* Debian's libqrencode (libqrencode-dev, 4.1.1): QRcode_encodeString and friends. */
#include <qrencode.h>

#endif
