// syscost: the kernel's own CPU cost per small loopback TCP message, the floor under any
// server on this machine.
//
//   recv+wake  : a thread blocks in poll() and recv()s one message at a time; the sender
//                paces its messages (one every GAP microseconds) so that every recv follows
//                a wake-up. Cost = the receiver thread's CPU (getrusage RUSAGE_THREAD,
//                user+system) / wake-ups.
//   send       : in the same paced run, the sender's CPU inside each send() (the thread's CPU
//                clock read around the call, minus the clock's own cost): one small message
//                to a peer that is asleep, so the send also pays for waking it, as a relay's
//                send to an idle observer does. This is the figure the limits use.
//   send (batched): a thread sends N messages back to back while another thread drains the
//                peer (so most sends find the reader already awake): the sender thread's CPU
//                (getrusage) / N. A lower bound, reported for reference.
//
// Each measurement is repeated REPEATS times; the median is printed, as one JSON object:
//   {"size":100,"send_us":4.7,"send_batched_us":1.3,"recv_wake_us":9.0,...}
//
// Usage: syscost [--size 100] [--sends 200000] [--recvs 20000] [--gap-us 100] [--repeats 3]

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static size_t size = 100;
static long sends = 200000;
static long recvs = 20000;
static long gap_us = 100;
static int repeats = 3;

static void die(const char *what) {
  perror(what);
  exit(1);
}

static double thread_cpu_s(void) {
  struct rusage u;
  if (getrusage(RUSAGE_THREAD, &u) != 0) die("getrusage");
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

/// The calling thread's CPU time in seconds, to the nanosecond (for timing single calls).
static double thread_cpu_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/// What one pair of thread_cpu_clock() calls costs, in microseconds.
static double clock_overhead_us;

static void measure_clock_overhead(void) {
  double sum = 0;
  for (int i = 0; i < 20000; i++) {
    double a = thread_cpu_clock();
    sum += thread_cpu_clock() - a;
  }
  clock_overhead_us = sum / 20000 * 1e6;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/// A connected loopback TCP pair: fds[0] the client end, fds[1] the accepted end.
static void tcp_pair(int fds[2]) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  if (l < 0) die("socket");
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0) die("bind");
  if (listen(l, 1) != 0) die("listen");
  socklen_t len = sizeof a;
  if (getsockname(l, (struct sockaddr *)&a, &len) != 0) die("getsockname");
  int c = socket(AF_INET, SOCK_STREAM, 0);
  if (c < 0) die("socket");
  if (connect(c, (struct sockaddr *)&a, sizeof a) != 0) die("connect");
  int s = accept(l, NULL, NULL);
  if (s < 0) die("accept");
  close(l);
  int one = 1;
  setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fds[0] = c;
  fds[1] = s;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// MARK: send cost

struct drain_arg {
  int fd;
  long expect_bytes;
};

static void *drain(void *p) {
  struct drain_arg *d = p;
  char buf[1 << 16];
  long got = 0;
  while (got < d->expect_bytes) {
    ssize_t n = recv(d->fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got += n;
  }
  return NULL;
}

static double measure_send(void) {
  int fds[2];
  tcp_pair(fds);
  struct drain_arg d = {fds[1], (long)size * sends};
  pthread_t t;
  pthread_create(&t, NULL, drain, &d);
  char *msg = malloc(size);
  memset(msg, 'x', size);
  double c0 = thread_cpu_s();
  for (long i = 0; i < sends; i++) {
    size_t off = 0;
    while (off < size) {
      ssize_t n = send(fds[0], msg + off, size - off, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        die("send");
      }
      off += (size_t)n;
    }
  }
  double c1 = thread_cpu_s();
  pthread_join(t, NULL);
  close(fds[0]);
  close(fds[1]);
  free(msg);
  return (c1 - c0) / sends * 1e6;
}

// MARK: recv + wake-up cost

struct recv_result {
  int fd;
  long messages;
  long wakes;
  double cpu;
};

static void *receiver(void *p) {
  struct recv_result *r = p;
  char buf[4096];
  long want = (long)size * recvs, got = 0;
  double c0 = thread_cpu_s();
  struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
  while (got < want) {
    int k = poll(&pfd, 1, -1);
    if (k < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    r->wakes++;
    ssize_t n = recv(r->fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got += n;
  }
  r->cpu = thread_cpu_s() - c0;
  r->messages = got / (long)size;
  return NULL;
}

static double measure_recv(double *wakes_per_msg, double *send_us) {
  int fds[2];
  tcp_pair(fds);
  struct recv_result r = {.fd = fds[1]};
  pthread_t t;
  pthread_create(&t, NULL, receiver, &r);
  usleep(20000);  // let the receiver block in poll
  char *msg = malloc(size);
  memset(msg, 'y', size);
  double send_cpu = 0;
  uint64_t next = now_ns();
  for (long i = 0; i < recvs; i++) {
    next += (uint64_t)gap_us * 1000;
    // Sleep most of the gap, spin the rest: the receiver goes back to sleep between messages.
    for (;;) {
      uint64_t now = now_ns();
      if (now >= next) break;
      if (next - now > 200000) usleep((useconds_t)((next - now - 100000) / 1000));
    }
    double c0 = thread_cpu_clock();
    if (send(fds[0], msg, size, 0) != (ssize_t)size) die("send");
    send_cpu += thread_cpu_clock() - c0;
  }
  pthread_join(t, NULL);
  close(fds[0]);
  close(fds[1]);
  free(msg);
  *wakes_per_msg = r.messages ? (double)r.wakes / r.messages : 0;
  *send_us = send_cpu / recvs * 1e6 - clock_overhead_us;
  return r.wakes ? r.cpu / r.wakes * 1e6 : 0;
}

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--size")) size = (size_t)atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--sends")) sends = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--recvs")) recvs = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--gap-us")) gap_us = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--repeats")) repeats = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "usage: syscost [--size B] [--sends N] [--recvs N] [--gap-us U] [--repeats K]\n");
      return 2;
    }
  }
  if (repeats < 1 || repeats > 99 || size < 1 || size > 4096 || sends < 1 || recvs < 1) {
    fprintf(stderr, "syscost: bad arguments\n");
    return 2;
  }
  measure_clock_overhead();
  double b[99], s[99], r[99], w[99];
  for (int k = 0; k < repeats; k++) {
    b[k] = measure_send();
    r[k] = measure_recv(&w[k], &s[k]);
  }
  double batch_us = median(b, repeats), send_us = median(s, repeats), recv_us = median(r, repeats);
  double wakes = median(w, repeats);
  printf("{\"size\":%zu,\"sends\":%ld,\"recvs\":%ld,\"gap_us\":%ld,\"repeats\":%d,"
         "\"send_us\":%.3f,\"send_batched_us\":%.3f,\"recv_wake_us\":%.3f,\"wakes_per_msg\":%.3f,"
         "\"clock_overhead_us\":%.3f,"
         "\"fanout_limit_per_cpu_s\":%.0f,\"ingest_limit_per_cpu_s\":%.0f",
         size, sends, recvs, gap_us, repeats, send_us, batch_us, recv_us, wakes, clock_overhead_us,
         1e6 / send_us, 1e6 / (send_us + recv_us));
  const char *names[] = {"send_us_all", "send_batched_us_all", "recv_wake_us_all"};
  double *all[] = {s, b, r};
  for (int j = 0; j < 3; j++) {
    printf(",\"%s\":[", names[j]);
    for (int k = 0; k < repeats; k++) printf("%s%.3f", k ? "," : "", all[j][k]);
    printf("]");
  }
  printf("}\n");
  return 0;
}
