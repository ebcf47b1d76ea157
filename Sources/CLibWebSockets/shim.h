#ifndef TOUCHRELAY_LWS_SHIM_H
#define TOUCHRELAY_LWS_SHIM_H

#include <libwebsockets.h>

/* LWS_PRE is a macro expression Swift cannot import. */
static inline size_t tr_lws_pre(void) { return LWS_PRE; }

/* A libwebsockets timer that carries a pointer back to its Swift owner.
 * The sul must be the first member so the callback can recover the struct. */
typedef struct tr_timer {
  lws_sorted_usec_list_t sul;
  void *owner;
} tr_timer;

static inline void *tr_timer_owner(lws_sorted_usec_list_t *sul) {
  return ((tr_timer *)sul)->owner;
}

static inline void tr_timer_schedule(struct lws_context *context, tr_timer *timer,
                                     sul_cb_t cb, int64_t usecs) {
  lws_sul_schedule(context, 0, &timer->sul, cb, (lws_usec_t)usecs);
}

static inline void tr_timer_cancel(tr_timer *timer) {
  lws_sul_cancel(&timer->sul);
}

#endif
