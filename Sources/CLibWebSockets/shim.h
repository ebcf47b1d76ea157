#ifndef TOUCHRELAY_LWS_SHIM_H
#define TOUCHRELAY_LWS_SHIM_H

/* The socket headers first, through the CSocket module (an import, as its module map is
 * known wherever this one is): they are then CSocket's, and libwebsockets.h's own includes of
 * them find them already there. Included here first by libwebsockets.h instead, they were this
 * module's, and a file importing only CSocket (TUIO's) could not see SOCK_DGRAM or IPPROTO_IPV6
 * whenever its compilation had loaded this module first. */
#include "../CSocket/shim.h"
#include <libwebsockets.h>
#include <ev.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* accept4(2) is declared only with _GNU_SOURCE, which Swift's import of glibc does not set:
 * a non-blocking, close-on-exec accept in one call, for `--reuse-port`'s own listener. */
static inline int tr_accept4(int fd, int flags) {
  return (int)syscall(SYS_accept4, fd, (void *)0, (void *)0, flags);
}

/* Names the calling thread (at most 15 bytes are kept); prctl(2) is variadic, which Swift
 * cannot call, and pthread_setname_np needs _GNU_SOURCE. */
static inline void tr_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/* LWS_PRE is a macro expression Swift cannot import. */
static inline size_t tr_lws_pre(void) { return LWS_PRE; }

/* A one-shot timer on the service thread that calls fire(owner).
 * With lws' own poll loop it is an lws_sul. With libev it is an ev_timer on the loop we own:
 * libwebsockets 4.1's libev glue re-arms its single timer with ev_timer_set on an active
 * watcher, which libev ignores, so an lws_sul scheduled earlier than a pending one fires late. */
typedef void (*tr_timer_fire)(void *owner);

typedef struct tr_timer {
  lws_sorted_usec_list_t sul; /* first member: the sul callback recovers the struct */
  ev_timer ev;
  struct ev_loop *loop;       /* NULL: use the lws_sul */
  void *owner;
  tr_timer_fire fire;
} tr_timer;

static inline void tr_timer_sul_cb(lws_sorted_usec_list_t *sul) {
  tr_timer *t = (tr_timer *)sul;
  t->fire(t->owner);
}

static inline void tr_timer_ev_cb(struct ev_loop *loop, ev_timer *w, int revents) {
  tr_timer *t = (tr_timer *)((char *)w - offsetof(tr_timer, ev));
  (void)loop;
  (void)revents;
  t->fire(t->owner);
}

static inline void tr_timer_init(tr_timer *t, void *loop, void *owner, tr_timer_fire fire) {
  memset(t, 0, sizeof(*t));
  t->loop = (struct ev_loop *)loop;
  t->owner = owner;
  t->fire = fire;
  ev_timer_init(&t->ev, tr_timer_ev_cb, 0., 0.);
}

static inline void tr_timer_schedule(struct lws_context *context, tr_timer *t, int64_t usecs) {
  if (t->loop) {
    ev_timer_stop(t->loop, &t->ev);
    ev_timer_set(&t->ev, (double)usecs / 1000000.0, 0.);
    ev_timer_start(t->loop, &t->ev);
  } else {
    lws_sul_schedule(context, 0, &t->sul, tr_timer_sul_cb, (lws_usec_t)usecs);
  }
}

static inline void tr_timer_cancel(tr_timer *t) {
  if (t->loop)
    ev_timer_stop(t->loop, &t->ev);
  else
    lws_sul_cancel(&t->sul);
}

/* Calls fire(owner) once per iteration of our libev loop, just before it waits for events:
 * the relay checks its engine deadlines there (see DeadlineQueue.swift). */
typedef struct tr_loop_hook {
  ev_prepare ev;
  struct ev_loop *loop;
  void *owner;
  tr_timer_fire fire;
  int paused;
} tr_loop_hook;

static inline void tr_loop_hook_cb(struct ev_loop *loop, ev_prepare *w, int revents) {
  tr_loop_hook *h = (tr_loop_hook *)w;
  (void)loop;
  (void)revents;
  h->fire(h->owner);
}

static inline void tr_loop_hook_start(tr_loop_hook *h, void *loop, void *owner, tr_timer_fire fire) {
  memset(h, 0, sizeof(*h));
  h->loop = (struct ev_loop *)loop;
  h->owner = owner;
  h->fire = fire;
  ev_prepare_init(&h->ev, tr_loop_hook_cb);
  ev_prepare_start(h->loop, &h->ev);
  /* A prepare watcher alone must not keep ev_run going once everything else has stopped. */
  ev_unref(h->loop);
}

static inline void tr_loop_hook_stop(tr_loop_hook *h) {
  if (!h->loop) return;
  if (!h->paused) {
    ev_ref(h->loop);
    ev_prepare_stop(h->loop, &h->ev);
  }
  h->loop = NULL;
}

/* Stops calling fire until tr_loop_hook_resume, when there is nothing to tick: a prepare
 * watcher costs its dispatch on every iteration, two per frame with lws' idle watcher. */
static inline void tr_loop_hook_pause(tr_loop_hook *h) {
  if (!h->loop || h->paused) return;
  ev_ref(h->loop);
  ev_prepare_stop(h->loop, &h->ev);
  h->paused = 1;
}

static inline void tr_loop_hook_resume(tr_loop_hook *h) {
  if (!h->loop || !h->paused) return;
  ev_prepare_start(h->loop, &h->ev);
  ev_unref(h->loop);
  h->paused = 0;
}

/* libev, for --event-loop libev. The server owns the loop ("foreign" to lws): lws then
 * installs no SIGINT watcher on it, so several servers can live in one process and the
 * process keeps its own signal handling. libev-dev is a dependency of libwebsockets-dev. */
static inline void *tr_ev_loop_new(void) { return ev_loop_new(EVBACKEND_EPOLL); }
static inline void tr_ev_break(void *loop) { ev_break((struct ev_loop *)loop, EVBREAK_ALL); }
static inline void tr_ev_loop_destroy(void *loop) { ev_loop_destroy((struct ev_loop *)loop); }

#endif
