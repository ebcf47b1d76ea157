/* touch-relay links the Swift runtime and FoundationEssentials statically (Package.swift).
 * FoundationEssentials names the temporary file of Data's atomic write with mktemp(3), and
 * binding glibc's mktemp makes the linker print a warning ("the use of `mktemp' is
 * dangerous") on every build. Defined here, in the executable, it is the one the linker binds,
 * with the same contract: the trailing XXXXXX replaced by a name no file has now (the caller
 * creates it with O_EXCL), or the template emptied and errno set. */

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

char *mktemp(char *template) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  size_t n = strlen(template);
  if (n < 6 || memcmp(template + n - 6, "XXXXXX", 6) != 0) {
    errno = EINVAL;
    template[0] = '\0';
    return template;
  }
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned char random[6];
    if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random) break;
    for (int i = 0; i < 6; i++) template[n - 6 + i] = letters[random[i] % (sizeof letters - 1)];
    struct stat st;
    if (lstat(template, &st) != 0) {
      if (errno == ENOENT) return template;
      break;
    }
    errno = EEXIST;
  }
  template[0] = '\0';
  return template;
}
