// Nothing to compile: the target exists for its header. SwiftPM wants one source file.
#include "CFuzzerDriver.h"
