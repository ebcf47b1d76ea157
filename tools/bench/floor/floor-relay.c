/*
 * floor-relay: the benchmark's floor, not a product. The raw-mirror part of protocol v1 on the
 * same Debian libwebsockets 4.1.6 as touch-relay, written the way the leanest C servers on it
 * are, so the bench can say what fraction of "what libwebsockets allows" touch-relay reaches:
 *
 *   /v1/source/SESSION   hello -> welcome naming the source ("s1", "s2", ... per session);
 *                        each `frame` -> `touches` with source, seq, t, rt and the frame's
 *                        touches copied as they came, to every observer of the session
 *   /v1/observe/SESSION  a welcome, then every session's `touches` (as with ?raw=1)
 *
 * Same loop as touch-relay's default (a libev loop it owns, given to lws as a foreign loop),
 * same subprotocol name, same 16 KiB receive buffer. What it leaves out is what makes a
 * relay a product: no JSON validation beyond finding three members, no gesture engine, no
 * limits, rate rules, filters, metrics or errors. A message to an observer is written at
 * once while lws holds nothing for it; otherwise queued (at most QUEUE messages, the oldest
 * dropped and counted) and written from its writable callback, one message per call.
 *
 *   floor-relay [--host H] [--port P]   (port 0: a free one; other touch-relay flags ignored)
 *
 * Prints "floor-relay listening on ws://H:PORT (...)" as its first line, as touch-relay does,
 * so tools/relaytools.py starts either. SIGTERM or SIGINT stops it.
 */
#include <ev.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUEUE 256
#define MAX_MESSAGE (64 * 1024)

struct message {
	int refs;
	size_t len; /* payload bytes after LWS_PRE */
	unsigned char buf[];
};

struct session {
	char name[65];
	int sources;
	struct peer *observers;
	struct session *next;
};

struct peer {
	struct lws *wsi;
	struct session *session;
	int observer;
	char id[16];
	struct peer *next_observer, *prev_observer;
	/* Outgoing queue (observers, and a source's welcome). */
	struct message *queue[QUEUE];
	int head, count;
	unsigned long dropped;
	/* A message arriving in fragments. */
	unsigned char *rx;
	size_t rx_len;
};

static struct session *sessions;
static struct lws_context *context;
static struct ev_loop *loop;
static struct timespec started;

static double now_ms(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - started.tv_sec) * 1e3 + (double)(t.tv_nsec - started.tv_nsec) / 1e6;
}

static struct session *session_named(const char *name) {
	for (struct session *s = sessions; s; s = s->next)
		if (!strcmp(s->name, name)) return s;
	struct session *s = calloc(1, sizeof *s);
	if (!s) return NULL;
	size_t n = strnlen(name, sizeof s->name - 1);
	memcpy(s->name, name, n);
	s->name[n] = '\0';
	s->next = sessions;
	sessions = s;
	return s;
}

static struct message *message_new(size_t len) {
	struct message *m = malloc(sizeof *m + LWS_PRE + len);
	if (!m) return NULL;
	m->refs = 1;
	m->len = len;
	return m;
}

static void message_release(struct message *m) {
	if (--m->refs == 0) free(m);
}

/* Written at once if lws holds nothing for the peer and nothing is queued before it; else
 * queued for the writable callback. lws frames the payload in the LWS_PRE bytes in front of
 * it, the same header for every observer, so one buffer serves the whole fan-out. */
static void send_to(struct peer *p, struct message *m) {
	/* Not lws_send_pipe_choked: it polls the socket, a syscall per delivery. */
	if (p->count == 0 && !lws_partial_buffered(p->wsi)) {
		if (lws_write(p->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) < 0)
			lws_set_timeout(p->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
		return;
	}
	if (p->count == QUEUE) {
		message_release(p->queue[p->head]);
		p->head = (p->head + 1) % QUEUE;
		p->count--;
		p->dropped++;
	}
	m->refs++;
	p->queue[(p->head + p->count) % QUEUE] = m;
	p->count++;
	lws_callback_on_writable(p->wsi);
}

/* A welcome: queued, and written from the writable callback lws calls once the connection
 * is fully up. */
static void send_text(struct peer *p, const char *text, size_t len) {
	struct message *m = message_new(len);
	if (!m) return;
	memcpy(m->buf + LWS_PRE, text, len);
	if (p->count == QUEUE) {
		message_release(m);
		return;
	}
	p->queue[(p->head + p->count) % QUEUE] = m;
	p->count++;
	lws_callback_on_writable(p->wsi);
}

/* The bytes of the value after `"name":` at the top level of a small JSON object: numbers
 * end at a delimiter, an array at its matching bracket (strings and escapes skipped). */
static const unsigned char *member(const unsigned char *b, size_t n, const char *key, size_t *len) {
	size_t k = strlen(key);
	for (size_t i = 0; i + k < n; i++) {
		if (b[i] != '"' || memcmp(b + i + 1, key, k) || b[i + 1 + k] != '"') continue;
		size_t j = i + k + 2;
		while (j < n && (b[j] == ' ' || b[j] == ':')) j++;
		size_t start = j;
		if (j < n && b[j] == '[') {
			int depth = 0, in_string = 0;
			for (; j < n; j++) {
				if (in_string) {
					if (b[j] == '\\') j++;
					else if (b[j] == '"') in_string = 0;
				} else if (b[j] == '"') in_string = 1;
				else if (b[j] == '[' || b[j] == '{') depth++;
				else if ((b[j] == ']' || b[j] == '}') && --depth == 0) { j++; break; }
			}
		} else {
			while (j < n && b[j] != ',' && b[j] != '}' && b[j] != ' ') j++;
		}
		*len = j - start;
		return j > start ? b + start : NULL;
	}
	return NULL;
}

static void source_message(struct peer *p, const unsigned char *b, size_t n) {
	size_t type_len, seq_len, t_len, touches_len;
	const unsigned char *type = member(b, n, "type", &type_len);
	if (!type) return;
	if (type_len == 7 && !memcmp(type, "\"hello\"", 7)) {
		if (p->id[0]) return;
		snprintf(p->id, sizeof p->id, "s%d", ++p->session->sources);
		char w[256];
		int len = snprintf(w, sizeof w,
			"{\"type\":\"welcome\",\"protocol\":\"touchrelay.v1\",\"role\":\"source\",\"session\":\"%s\","
			"\"source\":\"%s\",\"resumed\":false,\"serverTime\":%.2f}", p->session->name, p->id, now_ms());
		send_text(p, w, (size_t)len);
		return;
	}
	if (!p->id[0] || type_len != 7 || memcmp(type, "\"frame\"", 7)) return;
	const unsigned char *seq = member(b, n, "seq", &seq_len);
	const unsigned char *t = member(b, n, "t", &t_len);
	const unsigned char *touches = member(b, n, "touches", &touches_len);
	if (!seq || !t || !touches || !p->session->observers) return;
	char head[160];
	int head_len = snprintf(head, sizeof head, "{\"type\":\"touches\",\"source\":\"%s\",\"seq\":%.*s,\"t\":%.*s,\"rt\":%.2f,\"touches\":",
		p->id, (int)seq_len, seq, (int)t_len, t, now_ms());
	struct message *m = message_new((size_t)head_len + touches_len + 1);
	if (!m) return;
	unsigned char *out = m->buf + LWS_PRE;
	memcpy(out, head, (size_t)head_len);
	memcpy(out + head_len, touches, touches_len);
	out[(size_t)head_len + touches_len] = '}';
	for (struct peer *o = p->session->observers; o; o = o->next_observer) send_to(o, m);
	message_release(m);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
	struct peer *p = user;
	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED: {
		char uri[128];
		memset(p, 0, sizeof *p);
		p->wsi = wsi;
		if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0) return -1;
		const char *name;
		if (!strncmp(uri, "/v1/source/", 11)) name = uri + 11;
		else if (!strncmp(uri, "/v1/observe/", 12)) { name = uri + 12; p->observer = 1; }
		else return -1;
		if (!*name || !(p->session = session_named(name))) return -1;
		if (p->observer) {
			struct session *s = p->session;
			p->next_observer = s->observers;
			if (s->observers) s->observers->prev_observer = p;
			s->observers = p;
			char w[256];
			int n = snprintf(w, sizeof w,
				"{\"type\":\"welcome\",\"protocol\":\"touchrelay.v1\",\"role\":\"observer\",\"session\":\"%s\","
				"\"serverTime\":%.2f,\"sources\":[]}", s->name, now_ms());
			send_text(p, w, (size_t)n);
		}
		break;
	}
	case LWS_CALLBACK_RECEIVE: {
		if (p->observer) break;
		int final = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
		if (final && !p->rx) {
			source_message(p, in, len);
			break;
		}
		if (p->rx_len + len > MAX_MESSAGE) return -1;
		unsigned char *grown = realloc(p->rx, p->rx_len + len);
		if (!grown) return -1;
		memcpy(grown + p->rx_len, in, len);
		p->rx = grown;
		p->rx_len += len;
		if (final) {
			source_message(p, p->rx, p->rx_len);
			free(p->rx);
			p->rx = NULL;
			p->rx_len = 0;
		}
		break;
	}
	case LWS_CALLBACK_SERVER_WRITEABLE: {
		if (!p->count) break;
		struct message *m = p->queue[p->head];
		p->head = (p->head + 1) % QUEUE;
		p->count--;
		int n = lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
		message_release(m);
		if (n < 0) return -1;
		if (p->count) lws_callback_on_writable(wsi);
		break;
	}
	case LWS_CALLBACK_CLOSED:
		if (p->observer && p->session) {
			if (p->prev_observer) p->prev_observer->next_observer = p->next_observer;
			else p->session->observers = p->next_observer;
			if (p->next_observer) p->next_observer->prev_observer = p->prev_observer;
		}
		while (p->count) {
			message_release(p->queue[p->head]);
			p->head = (p->head + 1) % QUEUE;
			p->count--;
		}
		free(p->rx);
		p->rx = NULL;
		break;
	default:
		break;
	}
	return 0;
}

static struct lws_protocols protocols[] = {
	{ "touchrelay.v1", callback, sizeof(struct peer), 16 * 1024, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

static void stop(struct ev_loop *l, ev_signal *w, int revents) {
	(void)w;
	(void)revents;
	ev_break(l, EVBREAK_ALL);
}

int main(int argc, char **argv) {
	const char *host = "127.0.0.1";
	int port = 8080;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--host") && i + 1 < argc) host = argv[++i];
		else if (!strcmp(argv[i], "--port") && i + 1 < argc) port = atoi(argv[++i]);
		/* touch-relay's other flags (limits, --log-level, --no-gestures ...) mean nothing here. */
	}
	clock_gettime(CLOCK_MONOTONIC, &started);
	lws_set_log_level(LLL_ERR, NULL);
	loop = ev_loop_new(EVBACKEND_EPOLL);
	void *foreign[] = { loop };
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = port;
	info.iface = host;
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_LIBEV | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND |
		LWS_SERVER_OPTION_DISABLE_IPV6;
	info.foreign_loops = foreign;
	info.count_threads = 1;
	context = lws_create_context(&info);
	if (!context) {
		fprintf(stderr, "floor-relay: cannot listen on %s:%d\n", host, port);
		return 1;
	}
	struct lws_vhost *vhost = lws_get_vhost_by_name(context, "default");
	printf("floor-relay listening on ws://%s:%d (the bench's libwebsockets floor)\n", host,
		vhost ? lws_get_vhost_listen_port(vhost) : port);
	fflush(stdout);
	ev_signal term, interrupt;
	ev_signal_init(&term, stop, SIGTERM);
	ev_signal_init(&interrupt, stop, SIGINT);
	ev_signal_start(loop, &term);
	ev_signal_start(loop, &interrupt);
	ev_run(loop, 0);
	lws_context_destroy(context);
	ev_loop_destroy(loop);
	return 0;
}
