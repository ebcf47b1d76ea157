/*
 * contexts-probe: can one process serve from several libwebsockets contexts at once, each on
 * its own thread with its own libev loop, on Debian's lws 4.1.6 (LWS_MAX_SMP 1)? Issue 39's
 * `--threads` rests on it, so it is proved here before the relay is changed.
 *
 * Each of N threads owns an epoll libev loop, one lws context on it (LWS_SERVER_OPTION_LIBEV,
 * a foreign loop, as touch-relay runs) and its own listening socket on the same port with
 * SO_REUSEPORT, adopted onto its vhost as a raw file; each connection it accepts is handed to
 * the vhost with lws_adopt_socket_vhost (touch-relay's SharedListener does the same), so the
 * kernel spreads connections over the threads. Threads share nothing but bounded inboxes:
 * another thread appends under the inbox's mutex and wakes the owner with lws_cancel_service,
 * the one lws call that is safe from another thread; the owner drains its inbox in
 * LWS_CALLBACK_EVENT_WAIT_CANCELLED, on its own service thread, and writes to its own peers.
 *
 * WebSocket text commands (subprotocol-free):
 *   "all TEXT"  every connection on every thread gets "thread=K TEXT" (K: the sender's thread),
 *               in the order each sender sent them; a full inbox answers "dropped N"
 *   "stats"     "stats thread=K connections=C delivered=D wakes=W dropped=X"
 * Each connection is greeted with "hello thread=K". SIGTERM or SIGINT stops every thread
 * (each destroys its context on its own thread) and the process exits 0.
 *
 *   cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o contexts-probe contexts-probe.c \
 *      -lwebsockets -lev -lpthread
 *   ./contexts-probe --threads 2 --port 0       (tools/threads/check.py runs it and checks it)
 */
#include <libwebsockets.h>
#include <ev.h>

#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_THREADS 64
#define INBOX_LIMIT 4096 /* notes one thread may hold for another before it answers "dropped" */
#define PEER_QUEUE 1024  /* messages one connection may have waiting */
#define MAX_TEXT 512

struct note {
	struct note *next;
	size_t len;
	char text[];
};

struct peer;

struct worker {
	int index;
	pthread_t thread;
	struct ev_loop *loop;
	struct lws_context *context;
	struct lws_vhost *vhost;
	int listen_fd;
	/* The inbox: the only state another thread touches, always under `lock`. */
	pthread_mutex_t lock;
	struct note *head, *tail;
	int count;
	/* The service thread's own. */
	struct peer *peers;
	unsigned long connections, delivered, wakes;
	atomic_ulong dropped;
	atomic_int stopping;
	int failed;
};

struct peer {
	struct peer *next, *prev;
	struct worker *worker;
	struct lws *wsi;
	char *queue[PEER_QUEUE]; /* each LWS_PRE + text, malloc'd */
	size_t lens[PEER_QUEUE];
	int first, count;
	unsigned long lost;
};

static struct worker workers[MAX_THREADS];
static int thread_count = 2;
static int port = 0;
static const char *host = "127.0.0.1";
static int serial_create = 0;
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t started;

static struct worker *worker_of(struct lws *wsi)
{
	return lws_context_user(lws_get_context(wsi));
}

static void enqueue(struct peer *p, const char *text, size_t len)
{
	if (p->count == PEER_QUEUE) { /* a stalled reader loses its oldest message, counted */
		free(p->queue[p->first]);
		p->first = (p->first + 1) % PEER_QUEUE;
		p->count--;
		p->lost++;
	}
	char *buf = malloc(LWS_PRE + len);
	if (!buf)
		return;
	memcpy(buf + LWS_PRE, text, len);
	int slot = (p->first + p->count) % PEER_QUEUE;
	p->queue[slot] = buf;
	p->lens[slot] = len;
	p->count++;
	lws_callback_on_writable(p->wsi);
}

/* From any thread: append to `to`'s inbox and wake its service thread. */
static int post(struct worker *to, const char *text, size_t len)
{
	struct note *n = malloc(sizeof(*n) + len);
	if (!n)
		return -1;
	n->next = NULL;
	n->len = len;
	memcpy(n->text, text, len);
	pthread_mutex_lock(&to->lock);
	if (to->count >= INBOX_LIMIT) {
		pthread_mutex_unlock(&to->lock);
		free(n);
		atomic_fetch_add(&to->dropped, 1);
		return -1;
	}
	if (to->tail)
		to->tail->next = n;
	else
		to->head = n;
	to->tail = n;
	to->count++;
	pthread_mutex_unlock(&to->lock);
	lws_cancel_service(to->context);
	return 0;
}

/* On w's service thread: everything its inbox holds, to each of its peers, in order. */
static void drain(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	struct note *n = w->head;
	w->head = w->tail = NULL;
	w->count = 0;
	pthread_mutex_unlock(&w->lock);
	while (n) {
		struct note *next = n->next;
		for (struct peer *p = w->peers; p; p = p->next) {
			enqueue(p, n->text, n->len);
			w->delivered++;
		}
		free(n);
		n = next;
	}
}

static void on_message(struct peer *p, const char *in, size_t len)
{
	struct worker *w = p->worker;
	char out[MAX_TEXT + 64];
	if (len >= 4 && !memcmp(in, "all ", 4)) {
		int n = snprintf(out, sizeof(out), "thread=%d %.*s", w->index, (int)(len - 4 > MAX_TEXT ? MAX_TEXT : len - 4),
				 in + 4);
		int refused = 0;
		for (int i = 0; i < thread_count; i++)
			refused += post(&workers[i], out, (size_t)n) != 0;
		if (refused) {
			n = snprintf(out, sizeof(out), "dropped %d", refused);
			enqueue(p, out, (size_t)n);
		}
	} else if (len == 5 && !memcmp(in, "stats", 5)) {
		int n = snprintf(out, sizeof(out), "stats thread=%d connections=%lu delivered=%lu wakes=%lu dropped=%lu",
				 w->index, w->connections, w->delivered, w->wakes, (unsigned long)atomic_load(&w->dropped));
		enqueue(p, out, (size_t)n);
	} else {
		enqueue(p, "unknown command", 15);
	}
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct peer *p = user;
	struct worker *w;
	switch (reason) {
	case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
		w = lws_context_user(lws_get_context(wsi));
		if (!w)
			return 0;
		w->wakes++;
		drain(w);
		if (atomic_load(&w->stopping))
			ev_break(w->loop, EVBREAK_ALL);
		return 0;
	case LWS_CALLBACK_ESTABLISHED: {
		w = worker_of(wsi);
		memset(p, 0, sizeof(*p));
		p->worker = w;
		p->wsi = wsi;
		p->next = w->peers;
		if (w->peers)
			w->peers->prev = p;
		w->peers = p;
		w->connections++;
		char hello[32];
		int n = snprintf(hello, sizeof(hello), "hello thread=%d", w->index);
		enqueue(p, hello, (size_t)n);
		return 0;
	}
	case LWS_CALLBACK_RECEIVE: {
		/* Commands are short: a fragmented one is refused rather than joined. */
		if (!lws_is_final_fragment(wsi) || !lws_is_first_fragment(wsi))
			return 0;
		on_message(p, in, len);
		return 0;
	}
	case LWS_CALLBACK_SERVER_WRITEABLE: {
		if (!p->count)
			return 0;
		char *buf = p->queue[p->first];
		size_t n = p->lens[p->first];
		p->first = (p->first + 1) % PEER_QUEUE;
		p->count--;
		int rc = lws_write(wsi, (unsigned char *)buf + LWS_PRE, n, LWS_WRITE_TEXT);
		free(buf);
		if (rc < (int)n)
			return -1;
		if (p->count)
			lws_callback_on_writable(wsi);
		return 0;
	}
	case LWS_CALLBACK_CLOSED:
		w = p->worker;
		if (!w)
			return 0;
		if (p->prev)
			p->prev->next = p->next;
		else
			w->peers = p->next;
		if (p->next)
			p->next->prev = p->prev;
		while (p->count) {
			free(p->queue[p->first]);
			p->first = (p->first + 1) % PEER_QUEUE;
			p->count--;
		}
		return 0;
	default:
		return 0;
	}
}

/* The listening socket, adopted as a raw file: readable means connections wait. */
static int listener_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	(void)user;
	(void)in;
	(void)len;
	if (reason != LWS_CALLBACK_RAW_RX_FILE)
		return 0;
	struct worker *w = worker_of(wsi);
	for (int i = 0; i < 64; i++) {
		int fd = accept4(w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return 0; /* EAGAIN (another thread took it, or none left), or EMFILE: next readiness */
		if (!lws_adopt_socket_vhost(w->vhost, fd))
			close(fd); /* lws refused it (its table is full): closed, not leaked */
	}
	return 0;
}

static int open_listener(int want_port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int on = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on))) {
		close(fd);
		return -1;
	}
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)want_port);
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, SOMAXCONN)) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct lws_protocols protocols[] = {
	{ "probe", callback, sizeof(struct peer), 4096, 0, NULL, 0 },
	{ "probe-listener", listener_callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static void *serve(void *arg)
{
	struct worker *w = arg;
	w->loop = ev_loop_new(EVBACKEND_EPOLL);
	void *foreign[] = { w->loop };
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof(info));
	info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_LIBEV | LWS_SERVER_OPTION_DISABLE_IPV6;
	info.foreign_loops = foreign;
	info.count_threads = 1;
	info.fd_limit_per_thread = 0;
	info.user = w;
	if (serial_create)
		pthread_mutex_lock(&create_lock);
	w->context = w->loop ? lws_create_context(&info) : NULL;
	w->vhost = w->context ? lws_get_vhost_by_name(w->context, "default") : NULL;
	if (serial_create)
		pthread_mutex_unlock(&create_lock);
	struct lws *listener = NULL;
	if (w->vhost) {
		lws_sock_file_fd_type fd;
		fd.filefd = w->listen_fd;
		listener = lws_adopt_descriptor_vhost(w->vhost, LWS_ADOPT_RAW_FILE_DESC, fd, "probe-listener", NULL);
	}
	w->failed = !listener;
	pthread_barrier_wait(&started);
	if (!w->failed)
		while (!atomic_load(&w->stopping))
			if (lws_service(w->context, 0) < 0)
				break;
	if (w->context)
		lws_context_destroy(w->context);
	if (w->loop)
		ev_loop_destroy(w->loop);
	return NULL;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			thread_count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--host") && i + 1 < argc)
			host = argv[++i];
		else if (!strcmp(argv[i], "--serial"))
			serial_create = 1;
		else {
			fprintf(stderr, "usage: contexts-probe [--threads 2 (1-%d)] [--port 0] [--host 127.0.0.1] [--serial]\n",
				MAX_THREADS);
			return 2;
		}
	}
	if (thread_count < 1 || thread_count > MAX_THREADS) {
		fprintf(stderr, "contexts-probe: --threads must be 1 to %d\n", MAX_THREADS);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* Signals go to this thread alone (sigwait below), never to a service thread. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	lws_set_log_level(LLL_ERR, NULL);
	for (int i = 0; i < thread_count; i++) {
		struct worker *w = &workers[i];
		w->index = i;
		pthread_mutex_init(&w->lock, NULL);
		w->listen_fd = open_listener(port);
		if (w->listen_fd < 0) {
			fprintf(stderr, "contexts-probe: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
			return 1;
		}
		if (i == 0 && port == 0) { /* the port the system picked, for the other threads to share */
			struct sockaddr_in a;
			socklen_t l = sizeof(a);
			getsockname(w->listen_fd, (struct sockaddr *)&a, &l);
			port = ntohs(a.sin_port);
		}
	}
	pthread_barrier_init(&started, NULL, (unsigned)thread_count + 1);
	for (int i = 0; i < thread_count; i++)
		pthread_create(&workers[i].thread, NULL, serve, &workers[i]);
	pthread_barrier_wait(&started);
	int failed = 0;
	for (int i = 0; i < thread_count; i++)
		failed += workers[i].failed;
	if (!failed) {
		printf("contexts-probe listening on ws://%s:%d (%d contexts, libev, libwebsockets %s)\n", host, port,
		       thread_count, lws_get_library_version());
		fflush(stdout);
		int sig;
		sigwait(&stop, &sig);
	} else {
		fprintf(stderr, "contexts-probe: %d of %d contexts could not start\n", failed, thread_count);
	}
	for (int i = 0; i < thread_count; i++) {
		atomic_store(&workers[i].stopping, 1);
		if (workers[i].context)
			lws_cancel_service(workers[i].context);
	}
	for (int i = 0; i < thread_count; i++)
		pthread_join(workers[i].thread, NULL);
	for (int i = 0; i < thread_count; i++)
		fprintf(stderr, "contexts-probe: thread %d: %lu connections, %lu delivered, %lu wakes, %lu dropped\n", i,
			workers[i].connections, workers[i].delivered, workers[i].wakes,
			(unsigned long)atomic_load(&workers[i].dropped));
	return failed ? 1 : 0;
}
