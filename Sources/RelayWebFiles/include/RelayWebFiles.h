#ifndef TOUCHRELAY_WEB_FILES_H
#define TOUCHRELAY_WEB_FILES_H

/* The pad, watch and landing pages' static files (Web/) are this target's resources: SwiftPM
 * copies them next to the built products. This is a C target because SwiftPM gives a Swift
 * target with resources a generated Foundation `Bundle` accessor, which would link all of
 * Foundation into the server (ARCHITECTURE.md, "Memory per process"). */

/* Where SwiftPM puts Web/, relative to the directory of the built executable. */
const char *tr_web_files_directory(void);

#endif
