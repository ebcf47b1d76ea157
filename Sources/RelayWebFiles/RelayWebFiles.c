#include "RelayWebFiles.h"

/* SwiftPM names a target's resource directory PACKAGE_TARGET.resources. */
const char *tr_web_files_directory(void) { return "TouchRelay_RelayWebFiles.resources/Web"; }
