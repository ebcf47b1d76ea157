/*
 * floor-relay: the libwebsockets floor of tools/bench (issue 23). A minimal relay for the
 * raw-mirror subset of protocol v1, written the way the fastest libwebsockets servers are,
 * so the bench can report touch-relay as a fraction of what the same library allows:
 *
 *   ws://HOST:PORT/v1/source/SESSION          hello -> welcome (source id "sN");
 *                                             each `frame` -> one `touches` to the raw observers
 *   ws://HOST:PORT/v1/observe/SESSION?raw=1   a welcome at once, then every `touches`
 *
 * What it shares with touch-relay: Debian's libwebsockets 4.1.6 on a libev loop that the
 * program owns (a foreign loop), one service thread, 16 KiB receive buffers, the same ping
 * and hang-up policy, the first protocol serving peers that ask for no subprotocol. What it
 * leaves out: every check of protocol v1 beyond the shape of a frame (no seq or time rules,
 * no token, no limits), gestures, scenes, `frames`, `source` notices, metrics, and
 * permessage-deflate (touch-load does not negotiate it). Frames are not decoded: a scanner
 * finds the top-level `type`, `seq`, `t` and `touches` and their bytes are copied through.
 *
 * Writing: a message goes to a peer at once (lws_write) when nothing is queued for it and
 * libwebsockets holds nothing of it (lws_partial_buffered); otherwise it waits in the peer's
 * bounded queue (256 messages) for LWS_CALLBACK_SERVER_WRITEABLE. When the queue is full the
 * oldest message is dropped and counted, and the peer gets {"type":"dropped","count":N}
 * before its next message, as protocol v1 §5 says. lws_send_pipe_choked is not asked: in
 * lws 4.1 it is a poll() per call, a second syscall per delivery that a lean relay does not
 * make (one sendto per delivery is the floor). `rt` is written with integer arithmetic, not
 * printf, for the same reason: the floor must not pay for what a relay need not.
 *
 * Source ids are "s1", "s2", ... numbered across the server, as touch-relay's are: touch-load
 * matches a `touches` message to its source's schedule by the id alone, so ids repeated in
 * several sessions would time messages against another source's schedule.
 *
 *   floor-relay [--host 127.0.0.1] [--port 0] [touch-relay's other flags, ignored]
 *
 * Prints "floor-relay listening on ws://HOST:PORT (...)" first (tools/relaytools.py reads the
 * port from it), stops on SIGTERM or SIGINT and then prints its counters on stderr.
 * Built by tools/bench/run; checked by tools/bench/check_floor.py.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in C11 */
#include <ev.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUEUE_CAP 256           /* touch-relay's default observerQueue */
#define MAX_MESSAGE (64 * 1024) /* touch-relay's default maxMessageBytes */
#define SESSION_BUCKETS 4096
#define PROTOCOL_NAME "touchrelay.v1"

enum role { ROLE_NONE, ROLE_SOURCE, ROLE_OBSERVER };

/* One message for one or more peers' queues, LWS_PRE bytes of headroom before `data`'s
 * payload (lws_write frames in place there); freed with its last reference. */
struct message {
	unsigned refs;
	size_t len;
	unsigned char data[];
};

struct peer;

struct session {
	struct session *next; /* in its bucket */
	char name[65];
	unsigned refs;         /* connections in it */
	struct peer **raw;     /* its raw observers */
	unsigned nraw, capraw;
};

/* libwebsockets' per-connection user data (zeroed by lws). */
struct peer {
	struct lws *wsi;
	struct session *session;
	enum role role;
	int raw;
	int said_hello;
	unsigned raw_index;
	char session_name[65];
	char id[24];
	size_t idlen;
	/* The bounded queue: a ring, allocated at its first use. */
	struct message **queue;
	unsigned head, count;
	uint64_t dropped_untold;
	/* A message that came in several fragments. */
	char *rx;
	size_t rxlen;
};

static struct session *sessions[SESSION_BUCKETS];
static uint64_t next_source = 1;
static struct ev_loop *loop;
static int stopping;
static struct {
	uint64_t frames, touches_out, at_once, queued, dropped, ignored;
} stats;

/* The message being built for a broadcast, with LWS_PRE bytes of headroom. */
static unsigned char scratch[LWS_PRE + MAX_MESSAGE + 256];

/* MARK: time and numbers */

/* The monotonic clock in ns (touch-relay's `rt` clock: CLOCK_MONOTONIC in ms). */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *put_uint(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* ns as milliseconds with at most six decimals, without trailing zeros (protocol v1's
 * numbers). */
static char *put_ms(char *p, uint64_t ns)
{
	p = put_uint(p, ns / 1000000u);
	unsigned frac = (unsigned)(ns % 1000000u);
	if (frac) {
		char d[6];
		for (int i = 5; i >= 0; i--) {
			d[i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		int n = 6;
		while (d[n - 1] == '0')
			n--;
		*p++ = '.';
		memcpy(p, d, (size_t)n);
		p += n;
	}
	return p;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define PUT(p, lit) put((p), (lit), sizeof(lit) - 1)

/* MARK: the scanner */

struct span {
	const char *p;
	size_t n;
};

static const char *skip_space(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the end of the JSON value that starts at p, or NULL if it does not end in [p, e). */
static const char *skip_value(const char *p, const char *e)
{
	if (p >= e)
		return NULL;
	if (*p == '"') {
		for (p++; p < e; p++) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				return p + 1;
		}
		return NULL;
	}
	if (*p == '{' || *p == '[') {
		int depth = 0;
		while (p < e) {
			if (*p == '"') {
				p = skip_value(p, e);
				if (!p)
					return NULL;
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return NULL;
	}
	const char *s = p;
	while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
	       *p != '\n' && *p != '\r')
		p++;
	return p > s ? p : NULL;
}

struct fields {
	struct span type, seq, t, touches;
};

static int key_is(const char *k, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(k, lit, n) == 0;
}

/* The top-level members a frame needs; -1 if the message is not one JSON object. */
static int scan(const char *p, size_t n, struct fields *f)
{
	const char *e = p + n;
	memset(f, 0, sizeof(*f));
	p = skip_space(p, e);
	if (p >= e || *p != '{')
		return -1;
	p = skip_space(p + 1, e);
	if (p < e && *p == '}')
		return 0;
	for (;;) {
		if (p >= e || *p != '"')
			return -1;
		const char *k = p + 1;
		const char *q = skip_value(p, e);
		if (!q)
			return -1;
		size_t kn = (size_t)(q - 1 - k);
		p = skip_space(q, e);
		if (p >= e || *p != ':')
			return -1;
		const char *v = skip_space(p + 1, e);
		p = skip_value(v, e);
		if (!p)
			return -1;
		struct span s = { v, (size_t)(p - v) };
		if (key_is(k, kn, "type"))
			f->type = s;
		else if (key_is(k, kn, "seq"))
			f->seq = s;
		else if (key_is(k, kn, "t"))
			f->t = s;
		else if (key_is(k, kn, "touches"))
			f->touches = s;
		p = skip_space(p, e);
		if (p < e && *p == ',') {
			p = skip_space(p + 1, e);
			continue;
		}
		return p < e && *p == '}' ? 0 : -1;
	}
}

static int is_number(struct span s)
{
	return s.n && ((*s.p >= '0' && *s.p <= '9') || *s.p == '-');
}

/* MARK: sessions */

static unsigned bucket_of(const char *name)
{
	uint32_t h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h % SESSION_BUCKETS;
}

static struct session *session_join(const char *name)
{
	unsigned b = bucket_of(name);
	struct session *s;
	for (s = sessions[b]; s; s = s->next)
		if (!strcmp(s->name, name))
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->next = sessions[b];
		sessions[b] = s;
	}
	s->refs++;
	return s;
}

static void session_leave(struct session *s)
{
	if (--s->refs)
		return;
	struct session **pp = &sessions[bucket_of(s->name)];
	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	free(s->raw);
	free(s);
}

static int session_add_raw(struct session *s, struct peer *p)
{
	if (s->nraw == s->capraw) {
		unsigned cap = s->capraw ? 2 * s->capraw : 8;
		struct peer **raw = realloc(s->raw, cap * sizeof(*raw));
		if (!raw)
			return -1;
		s->raw = raw;
		s->capraw = cap;
	}
	p->raw_index = s->nraw;
	s->raw[s->nraw++] = p;
	return 0;
}

static void session_remove_raw(struct session *s, struct peer *p)
{
	struct peer *last = s->raw[--s->nraw];
	s->raw[p->raw_index] = last;
	last->raw_index = p->raw_index;
}

/* MARK: writing */

static struct message *message_new(const unsigned char *payload, size_t len)
{
	struct message *m = malloc(sizeof(*m) + LWS_PRE + len);
	if (!m)
		return NULL;
	m->refs = 0;
	m->len = len;
	memcpy(m->data + LWS_PRE, payload, len);
	return m;
}

static void message_unref(struct message *m)
{
	if (--m->refs == 0)
		free(m);
}

/* Writes one payload that has LWS_PRE bytes of headroom before it; -1 if lws failed. */
static int write_now(struct peer *p, unsigned char *payload, size_t len)
{
	return lws_write(p->wsi, payload, len, LWS_WRITE_TEXT) < (int)len ? -1 : 0;
}

/* Queues `m` (taking a reference) for a peer that cannot be written to now, dropping the
 * oldest message if the queue is full. */
static void enqueue(struct peer *p, struct message *m)
{
	if (!p->queue) {
		p->queue = malloc(QUEUE_CAP * sizeof(*p->queue));
		if (!p->queue) {
			p->dropped_untold++;
			stats.dropped++;
			lws_callback_on_writable(p->wsi);
			return;
		}
	}
	if (p->count == QUEUE_CAP) {
		message_unref(p->queue[p->head]);
		p->head = (p->head + 1) % QUEUE_CAP;
		p->count--;
		p->dropped_untold++;
		stats.dropped++;
	}
	m->refs++;
	p->queue[(p->head + p->count) % QUEUE_CAP] = m;
	p->count++;
	stats.queued++;
	lws_callback_on_writable(p->wsi);
}

static int can_write_now(struct peer *p)
{
	return p->count == 0 && p->dropped_untold == 0 && !lws_partial_buffered(p->wsi);
}

/* A single message for one peer (a welcome): at once, or queued. */
static void send_one(struct peer *p, const unsigned char *payload, size_t len)
{
	if (can_write_now(p)) {
		unsigned char buf[LWS_PRE + 1024];
		if (len <= 1024) {
			memcpy(buf + LWS_PRE, payload, len);
			if (write_now(p, buf + LWS_PRE, len))
				lws_set_timeout(p->wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
			return;
		}
	}
	struct message *m = message_new(payload, len);
	if (m) {
		enqueue(p, m);
		if (m->refs == 0)
			free(m);
	}
}

/* LWS_CALLBACK_SERVER_WRITEABLE: the `dropped` notice first, then the queue while lws
 * takes it whole. */
static int on_writeable(struct peer *p)
{
	if (p->dropped_untold) {
		unsigned char buf[LWS_PRE + 64];
		char *s = (char *)buf + LWS_PRE, *e = s;
		e = PUT(e, "{\"type\":\"dropped\",\"count\":");
		e = put_uint(e, p->dropped_untold);
		e = PUT(e, "}");
		p->dropped_untold = 0;
		if (write_now(p, buf + LWS_PRE, (size_t)(e - s)))
			return -1;
	}
	while (p->count && !lws_partial_buffered(p->wsi)) {
		struct message *m = p->queue[p->head];
		p->head = (p->head + 1) % QUEUE_CAP;
		p->count--;
		int r = write_now(p, m->data + LWS_PRE, m->len);
		message_unref(m);
		if (r)
			return -1;
	}
	if (p->count)
		lws_callback_on_writable(p->wsi);
	return 0;
}

/* MARK: the protocol */

static const char limits_json[] =
	"{\"maxMessageBytes\":65536,\"maxTouchesPerFrame\":20,\"maxFingers\":10,"
	"\"observerQueue\":256,\"maxDepth\":32,\"maxFramesPerSecond\":480,"
	"\"maxFramesPerMessage\":64,\"maxControlsPerSecond\":20,\"maxConnections\":20000,"
	"\"maxConnectionsPerAddress\":1000,\"maxSessions\":10000,\"maxObserversPerSession\":2000}";

/* touch-relay's member order (TouchProtocol's ServerMessage). The observer's welcome lists
 * no sources and no scenes: the floor keeps no devices. */
static void send_welcome(struct peer *p)
{
	char buf[1024], *e = buf;
	e = PUT(e, "{\"type\":\"welcome\",\"protocol\":\"" PROTOCOL_NAME "\",\"role\":\"");
	e = p->role == ROLE_SOURCE ? PUT(e, "source") : PUT(e, "observer");
	e = PUT(e, "\",\"session\":\"");
	e = put(e, p->session_name, strlen(p->session_name));
	if (p->role == ROLE_SOURCE) {
		e = PUT(e, "\",\"source\":\"");
		e = put(e, p->id, p->idlen);
		e = PUT(e, "\",\"resumed\":false");
	} else {
		e = PUT(e, "\"");
	}
	e = PUT(e, ",\"serverTime\":");
	e = put_ms(e, now_ns());
	e = PUT(e, ",\"limits\":");
	e = put(e, limits_json, sizeof(limits_json) - 1);
	e = p->role == ROLE_SOURCE ? PUT(e, "}") : PUT(e, ",\"sources\":[],\"scenes\":[]}");
	send_one(p, (unsigned char *)buf, (size_t)(e - buf));
}

static void send_error(struct peer *p, const char *code, const char *text)
{
	char buf[512], *e = buf;
	e = PUT(e, "{\"type\":\"error\",\"code\":\"");
	e = put(e, code, strlen(code));
	e = PUT(e, "\",\"message\":\"");
	e = put(e, text, strlen(text));
	e = PUT(e, "\"}");
	send_one(p, (unsigned char *)buf, (size_t)(e - buf));
}

/* One frame: one `touches`, written at once to each raw observer that can take it and
 * queued (one shared copy) for the others. */
static void relay_frame(struct peer *src, const struct fields *f, uint64_t rt)
{
	char *start = (char *)scratch + LWS_PRE, *e = start;
	e = PUT(e, "{\"type\":\"touches\",\"source\":\"");
	e = put(e, src->id, src->idlen);
	e = PUT(e, "\",\"seq\":");
	e = put(e, f->seq.p, f->seq.n);
	e = PUT(e, ",\"t\":");
	e = put(e, f->t.p, f->t.n);
	e = PUT(e, ",\"rt\":");
	e = put_ms(e, rt);
	e = PUT(e, ",\"touches\":");
	e = put(e, f->touches.p, f->touches.n);
	e = PUT(e, "}");
	size_t len = (size_t)(e - start);
	stats.frames++;
	struct session *s = src->session;
	struct message *shared = NULL;
	for (unsigned i = 0; i < s->nraw; i++) {
		struct peer *o = s->raw[i];
		stats.touches_out++;
		if (can_write_now(o)) {
			stats.at_once++;
			if (write_now(o, (unsigned char *)start, len))
				lws_set_timeout(o->wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
			continue;
		}
		if (!shared) {
			shared = message_new((unsigned char *)start, len);
			if (!shared) {
				o->dropped_untold++;
				stats.dropped++;
				lws_callback_on_writable(o->wsi);
				continue;
			}
		}
		enqueue(o, shared);
	}
	if (shared && shared->refs == 0)
		free(shared);
}

static void on_message(struct peer *p, const char *in, size_t len)
{
	if (p->role != ROLE_SOURCE)
		return; /* observers' controls: no scenes here */
	uint64_t rt = now_ns();
	struct fields f;
	if (scan(in, len, &f)) {
		send_error(p, "bad_json", "not one JSON object");
		return;
	}
	if (f.type.n == 7 && !memcmp(f.type.p, "\"frame\"", 7)) {
		if (!p->said_hello) {
			send_error(p, "no_hello", "a frame before hello");
		} else if (!is_number(f.seq) || !is_number(f.t) || !f.touches.n || *f.touches.p != '[') {
			stats.ignored++;
			send_error(p, "missing_field", "floor-relay: a frame needs numbers seq, t and an array touches");
		} else {
			relay_frame(p, &f, rt);
		}
	} else if (f.type.n == 7 && !memcmp(f.type.p, "\"hello\"", 7)) {
		if (!p->said_hello) {
			p->said_hello = 1;
			char *e = put_uint(p->id + 1, next_source++);
			p->id[0] = 's';
			p->idlen = (size_t)(e - p->id);
			send_welcome(p);
		}
	} else {
		stats.ignored++;
		send_error(p, "unknown_type", "floor-relay relays frame and hello only");
	}
}

/* The path and query of an upgrade: the role, the session and whether ?raw=1 was asked. */
static int route(struct lws *wsi, struct peer *p)
{
	char uri[256];
	if (lws_hdr_copy(wsi, uri, sizeof(uri), WSI_TOKEN_GET_URI) <= 0)
		return -1;
	const char *name;
	if (!strncmp(uri, "/v1/source/", 11)) {
		p->role = ROLE_SOURCE;
		name = uri + 11;
	} else if (!strncmp(uri, "/v1/observe/", 12)) {
		p->role = ROLE_OBSERVER;
		name = uri + 12;
	} else {
		return -1;
	}
	size_t n = strlen(name);
	if (n < 1 || n > 64)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '-'))
			return -1;
	}
	memcpy(p->session_name, name, n + 1);
	char arg[128];
	for (int i = 0; lws_hdr_copy_fragment(wsi, arg, sizeof(arg), WSI_TOKEN_HTTP_URI_ARGS, i) > 0; i++)
		if (!strcmp(arg, "raw=1"))
			p->raw = 1;
	return 0;
}

static void on_closed(struct peer *p)
{
	if (p->session) {
		if (p->role == ROLE_OBSERVER && p->raw)
			session_remove_raw(p->session, p);
		session_leave(p->session);
		p->session = NULL;
	}
	while (p->count) {
		message_unref(p->queue[p->head]);
		p->head = (p->head + 1) % QUEUE_CAP;
		p->count--;
	}
	free(p->queue);
	p->queue = NULL;
	free(p->rx);
	p->rx = NULL;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct peer *p = user;
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		/* Plain HTTP: nothing here (no /healthz). */
		lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
		return -1;
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		return stopping || route(wsi, p) ? -1 : 0;
	case LWS_CALLBACK_ESTABLISHED:
		p->wsi = wsi;
		p->session = session_join(p->session_name);
		if (!p->session)
			return -1;
		if (p->role == ROLE_OBSERVER) {
			if (p->raw && session_add_raw(p->session, p)) {
				p->raw = 0;
				return -1;
			}
			send_welcome(p);
		}
		return 0;
	case LWS_CALLBACK_RECEIVE: {
		if (lws_frame_is_binary(wsi))
			return -1;
		int first = lws_is_first_fragment(wsi), last = lws_is_final_fragment(wsi);
		if (first && last && !p->rx) {
			on_message(p, in, len);
			return 0;
		}
		if (first)
			p->rxlen = 0;
		if (p->rxlen + len > MAX_MESSAGE)
			return -1;
		if (!p->rx && !(p->rx = malloc(MAX_MESSAGE)))
			return -1;
		memcpy(p->rx + p->rxlen, in, len);
		p->rxlen += len;
		if (last) {
			on_message(p, p->rx, p->rxlen);
			free(p->rx);
			p->rx = NULL;
		}
		return 0;
	}
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return on_writeable(p);
	case LWS_CALLBACK_CLOSED:
		on_closed(p);
		return 0;
	default:
		return 0;
	}
}

/* MARK: main */

static void on_signal(struct ev_loop *l, ev_signal *w, int revents)
{
	(void)w;
	(void)revents;
	stopping = 1;
	ev_break(l, EVBREAK_ALL);
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1";
	int port = 8080;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *value = i + 1 < argc && strncmp(argv[i + 1], "--", 2) ? argv[i + 1] : NULL;
		if (!strcmp(a, "--host") && value) {
			host = value;
			i++;
		} else if (!strcmp(a, "--port") && value) {
			port = atoi(value);
			i++;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: floor-relay [--host 127.0.0.1] [--port 8080 (0: a free port)]\n"
			       "touch-relay's other flags are accepted and ignored.\n");
			return 0;
		} else if (!strncmp(a, "--", 2)) {
			if (value)
				i++; /* a touch-relay flag and its value: ignored */
		} else {
			fprintf(stderr, "floor-relay: unknown argument %s (see --help)\n", a);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	loop = ev_loop_new(EVBACKEND_EPOLL);
	if (!loop) {
		fprintf(stderr, "floor-relay: libev could not create an epoll loop\n");
		return 1;
	}
	static struct lws_protocols protocols[] = {
		{ PROTOCOL_NAME, callback, sizeof(struct peer), 16 * 1024, 0, NULL, 0 },
		{ NULL, NULL, 0, 0, 0, NULL, 0 },
	};
	static const lws_retry_bo_t retry = { .secs_since_valid_ping = 30, .secs_since_valid_hangup = 60 };
	void *foreign[] = { loop };
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof(info));
	info.port = port;
	info.iface = strcmp(host, "0.0.0.0") ? host : NULL;
	info.protocols = protocols;
	info.retry_and_idle_policy = &retry;
	info.options = LWS_SERVER_OPTION_LIBEV | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
	if (!strchr(host, ':'))
		info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
	info.foreign_loops = foreign;
	info.count_threads = 1;
	info.fd_limit_per_thread = 0; /* sized from the process' open-file limit */
	lws_set_log_level(LLL_ERR, NULL);
	struct lws_context *context = lws_create_context(&info);
	if (!context) {
		fprintf(stderr, "floor-relay: libwebsockets could not start on %s:%d\n", host, port);
		return 1;
	}
	struct lws_vhost *vhost = lws_get_vhost_by_name(context, "default");
	printf("floor-relay listening on ws://%s:%d (libwebsockets %s, libev)\n", host,
	       vhost ? lws_get_vhost_listen_port(vhost) : port, lws_get_library_version());
	fflush(stdout);
	ev_signal term, intr;
	ev_signal_init(&term, on_signal, SIGTERM);
	ev_signal_init(&intr, on_signal, SIGINT);
	ev_signal_start(loop, &term);
	ev_signal_start(loop, &intr);
	while (!stopping)
		if (lws_service(context, 0) < 0)
			break;
	ev_signal_stop(loop, &term);
	ev_signal_stop(loop, &intr);
	lws_context_destroy(context);
	ev_loop_destroy(loop);
	fprintf(stderr,
		"floor-relay: %llu frames, %llu touches out (%llu written at once, %llu queued, %llu dropped), %llu "
		"messages refused\n",
		(unsigned long long)stats.frames, (unsigned long long)stats.touches_out,
		(unsigned long long)stats.at_once, (unsigned long long)stats.queued, (unsigned long long)stats.dropped,
		(unsigned long long)stats.ignored);
	return 0;
}
