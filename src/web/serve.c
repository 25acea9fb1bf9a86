/*
 * serve.c: the HTTP side of `flux serve` (serve.h): libmicrohttpd, the
 * page's assets compiled in, the access token, and the live updates.
 *
 * DESIGN
 *
 * A thread per connection (libmicrohttpd's), so that a live-update stream
 * (Server-Sent Events, /api/events) may wait between its events; the
 * library is called under one mutex, a program and its store taking one
 * caller at a time. Only GET and HEAD are answered (405 else); a request
 * whose body or headers pass the limits gets 413 or is closed by
 * libmicrohttpd; a path is one of the assets (compiled into the binary:
 * nothing is read from disk, so no path can reach a file) or an API path
 * (api.c), else 404. Every error is a JSON object, never a stack.
 *
 * The listening address is 127.0.0.1 unless --bind says otherwise; on any
 * other address every request must carry the access token (printed at
 * start, or given by --token) as `Authorization: Bearer TOKEN` or
 * `?token=TOKEN` (the page passes it on; an EventSource cannot send
 * headers), compared in constant time; 401 without it.
 *
 * The live stream polls the store every 250 ms for executions newer than
 * the last it sent (so runs of other processes appear within a second),
 * and sends each as an `execution` event with the execution's record.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/dynlib.h"
#include "serve.h"

/* libmicrohttpd is loaded when `flux serve` starts (base/dynlib.h): linked
 * in, it and its TLS libraries were mapped by every `flux run` (+7 MB
 * resident, start-up time). Each MHD_ call goes through mhd_fns. */
static const char *const mhd_names[] = {
        "MHD_start_daemon",           "MHD_stop_daemon",
        "MHD_get_daemon_info",        "MHD_create_response_from_buffer",
        "MHD_create_response_from_callback", "MHD_add_response_header",
        "MHD_queue_response",         "MHD_destroy_response",
        "MHD_lookup_connection_value", "MHD_get_connection_values",
};
#define MHD_N (sizeof(mhd_names) / sizeof(mhd_names[0]))
static void *mhd_fns[MHD_N];
#define MHD_start_daemon                 (*(__typeof__(&MHD_start_daemon))mhd_fns[0])
#define MHD_stop_daemon                  (*(__typeof__(&MHD_stop_daemon))mhd_fns[1])
#define MHD_get_daemon_info              (*(__typeof__(&MHD_get_daemon_info))mhd_fns[2])
#define MHD_create_response_from_buffer  (*(__typeof__(&MHD_create_response_from_buffer))mhd_fns[3])
#define MHD_create_response_from_callback                                                          \
    (*(__typeof__(&MHD_create_response_from_callback))mhd_fns[4])
#define MHD_add_response_header          (*(__typeof__(&MHD_add_response_header))mhd_fns[5])
#define MHD_queue_response               (*(__typeof__(&MHD_queue_response))mhd_fns[6])
#define MHD_destroy_response             (*(__typeof__(&MHD_destroy_response))mhd_fns[7])
#define MHD_lookup_connection_value      (*(__typeof__(&MHD_lookup_connection_value))mhd_fns[8])
#define MHD_get_connection_values        (*(__typeof__(&MHD_get_connection_values))mhd_fns[9])

#ifndef FX_MHD_SONAME
#define FX_MHD_SONAME "libmicrohttpd.so.12"
#endif

#define MAX_CONNECTIONS 1024
#define MAX_BODY        16384 /* bytes; a GET needs none */
/* A URL or headers past these are refused here, as JSON (414, 431), well
 * before libmicrohttpd's own limit (MEMORY_LIMIT, the connection's buffer),
 * past which it answers with its own HTML page */
#define MAX_URL         8192
#define MAX_HEADERS     16384
#define MEMORY_LIMIT    131072 /* per connection: headers and URL */
#define STACK_SIZE      (1u << 20)
#define POLL_MS         250
#define KEEPALIVE_MS    15000

/* The assets, generated from src/web/assets/ by tools/embed.c. */
extern const char fx_web_index_html[], fx_web_app_js[], fx_web_app_css[];
extern const unsigned long fx_web_index_html_len, fx_web_app_js_len, fx_web_app_css_len;

typedef struct Server {
    const FxServeConfig *cfg;
    pthread_mutex_t lock; /* around every call into the library but a replay's */
    pthread_mutex_t replay_lock; /* one replay at a time */
    char token[65];       /* "" when none is needed */
    atomic_bool stopping;
    bool loopback;        /* listening on a loopback address: Host is checked */
} Server;

/* Is the request's Host a name of this machine's loopback (or the address
 * it listens on), with any port? A page of another site whose name was
 * rebound to 127.0.0.1 sends its own name: refused, so it cannot read the
 * API (DNS rebinding). */
static bool host_is_local(const Server *sv, const char *host)
{
    if (!host)
        return false;
    size_t n = strlen(host);
    const char *colon = strrchr(host, ':');
    if (colon && (host[0] != '[' || colon > strchr(host, ']'))) /* a port: after it */
        n = (size_t)(colon - host);
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i]) == n && !strncasecmp(host, names[i], n))
            return true;
    const char *bound = sv->cfg->bind;
    if (bound && strlen(bound) == n && !strncmp(host, bound, n))
        return true;
    return bound && host[0] == '[' && n == strlen(bound) + 2 && !strncmp(host + 1, bound, n - 2);
}

static const struct {
    const char *path, *type;
    const char *data;
    const unsigned long *len;
} assets[] = {
        {"/", "text/html; charset=utf-8", fx_web_index_html, &fx_web_index_html_len},
        {"/app.js", "text/javascript; charset=utf-8", fx_web_app_js, &fx_web_app_js_len},
        {"/app.css", "text/css; charset=utf-8", fx_web_app_css, &fx_web_app_css_len},
};

static void add_common_headers(struct MHD_Response *r, const char *type)
{
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; img-src 'self' data:; style-src 'self'");
}

static enum MHD_Result send_answer(struct MHD_Connection *c, FxWebAnswer a)
{
    struct MHD_Response *r =
            MHD_create_response_from_buffer(a.len, a.body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(a.body);
        return MHD_NO;
    }
    add_common_headers(r, a.type ? a.type : "application/json");
    enum MHD_Result ok = MHD_queue_response(c, a.status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
    return send_answer(c, fx_web_error(status, msg));
}

static const char *query_arg(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

static bool same_text(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    unsigned char diff = (unsigned char)(n != m);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i < m ? i : 0]);
    return diff == 0;
}

/* Is the request's Origin, when it has one, this server (the scheme and
 * the Host it was sent to)? A browser names the page's site in Origin on
 * every POST; a client that is not a browser sends none. */
static bool same_origin(struct MHD_Connection *c)
{
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"),
               *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!origin)
        return true;
    return host && !strncmp(origin, "http://", 7) && !strcmp(origin + 7, host);
}

static enum MHD_Result add_header_size(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
    (void)kind;
    *(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 4; /* ": " and CRLF */
    return MHD_YES;
}

/* The request's headers as sent, in bytes (near enough: names, values and
 * their separators). */
static size_t header_bytes(struct MHD_Connection *c)
{
    size_t n = 0;
    MHD_get_connection_values(c, MHD_HEADER_KIND, add_header_size, &n);
    return n;
}

static bool authorised(Server *sv, struct MHD_Connection *c)
{
    if (!sv->token[0])
        return true;
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    if (q && same_text(q, sv->token))
        return true;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    return h && !strncmp(h, "Bearer ", 7) && same_text(h + 7, sv->token);
}

/* ---- the live stream ---- */

typedef struct Stream {
    Server *sv;
    long long last;   /* the newest execution sent */
    char *pending;    /* text not yet sent */
    size_t len, at;
    double quiet_ms;  /* since the last bytes */
} Stream;

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Events for the executions newer than s->last, or NULL. */
static char *next_events(Stream *s)
{
    pthread_mutex_lock(&s->sv->lock);
    long long newest;
    char *rows = fx_web_since(s->sv->cfg, s->last, 100, &newest);
    pthread_mutex_unlock(&s->sv->lock);
    if (!rows)
        return NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    for (char *p = rows, *end; *p; p = end + 1) {
        end = strchr(p, '\n');
        if (!end)
            break;
        *end = '\0';
        const char *id = strstr(p, "\"execution_id\": \"exec_");
        fprintf(f, "id: %lld\nevent: execution\ndata: %s\n\n",
                id ? strtoll(id + strlen("\"execution_id\": \"exec_"), NULL, 10) : 0, p);
    }
    fclose(f);
    free(rows);
    s->last = newest;
    return out;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    Stream *s = cls;
    while (!s->pending) {
        if (atomic_load(&s->sv->stopping))
            return MHD_CONTENT_READER_END_OF_STREAM;
        s->pending = next_events(s);
        s->at = 0;
        if (s->pending) {
            s->len = strlen(s->pending);
            break;
        }
        if (s->quiet_ms >= KEEPALIVE_MS) { /* a comment: proxies keep the line open */
            s->quiet_ms = 0;
            s->pending = strdup(": keep-alive\n\n");
            s->len = strlen(s->pending);
            break;
        }
        nap_ms(POLL_MS);
        s->quiet_ms += POLL_MS;
    }
    size_t n = s->len - s->at < max ? s->len - s->at : max;
    memcpy(buf, s->pending + s->at, n);
    s->at += n;
    if (s->at == s->len) {
        free(s->pending);
        s->pending = NULL;
    }
    s->quiet_ms = 0;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    Stream *s = cls;
    free(s->pending);
    free(s);
}

static enum MHD_Result send_stream(Server *sv, struct MHD_Connection *c)
{
    Stream *s = calloc(1, sizeof(*s));
    s->sv = sv;
    /* from the client's last event (a reconnection), else from now */
    const char *last = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID");
    if (!last)
        last = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after");
    if (last) {
        s->last = strtoll(last, NULL, 10);
    } else {
        pthread_mutex_lock(&sv->lock);
        s->last = fx_web_newest(sv->cfg);
        pthread_mutex_unlock(&sv->lock);
    }
    s->pending = strdup(": flux live updates\n\n"); /* the client sees the stream open */
    s->len = strlen(s->pending);
    struct MHD_Response *r =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, s, stream_free);
    if (!r) {
        stream_free(s);
        return MHD_NO;
    }
    add_common_headers(r, "text/event-stream");
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
}

/* ---- requests ---- */

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static int first_call;

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    Server *sv = cls;
    if (!*state) { /* the headers: refuse a body that is too large before it comes */
        *state = &first_call;
        size_t query = 0;
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_header_size, &query);
        if (strlen(url) + query > MAX_URL)
            return send_error(c, MHD_HTTP_URI_TOO_LONG, "the URL is too long (8 KiB at most)");
        if (header_bytes(c) > MAX_HEADERS)
            return send_error(c, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
                              "the request's headers are too large (16 KiB at most)");
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > MAX_BODY)
            return send_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "the request is too large");
        /* a chunked body has no length to check first: no path reads a body */
        const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_TRANSFER_ENCODING);
        if (te && strcasecmp(te, "identity") != 0)
            return send_error(c, MHD_HTTP_CONTENT_TOO_LARGE,
                              "a request with a chunked body is not served");
        if (sv->loopback &&
            !host_is_local(sv, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                           MHD_HTTP_HEADER_HOST)))
            return send_error(c, MHD_HTTP_MISDIRECTED_REQUEST,
                              "this server answers to localhost, 127.0.0.1 or [::1] only (a "
                              "page of another site must not read it); --bind another "
                              "address to serve other names");
        return MHD_YES;
    }
    if (*upload_size) { /* a body: not used by any path, read and dropped */
        *upload_size = 0;
        return MHD_YES;
    }
    /* a replay runs code: not for a GET, which any page can make (an <img>) */
    bool replaying = !strcmp(url, "/api/replay");
    if (replaying ? strcmp(method, MHD_HTTP_METHOD_POST) != 0
                  : strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                          replaying ? "a replay runs code: POST /api/replay?id=N, not GET"
                                    : "only GET is served");
    if (replaying && !same_origin(c))
        return send_error(c, MHD_HTTP_FORBIDDEN,
                          "a replay is started from this server's own page only (the request's "
                          "Origin is another site)");
    if (!authorised(sv, c))
        return send_error(c, MHD_HTTP_UNAUTHORIZED,
                          "this server needs its access token (printed when it started): "
                          "Authorization: Bearer TOKEN, or ?token=TOKEN");
    for (size_t i = 0; i < sizeof(assets) / sizeof(assets[0]); i++) {
        if (strcmp(url, assets[i].path) != 0)
            continue;
        struct MHD_Response *r = MHD_create_response_from_buffer(
                *assets[i].len, (void *)assets[i].data, MHD_RESPMEM_PERSISTENT);
        add_common_headers(r, assets[i].type);
        enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ok;
    }
    if (!strcmp(url, "/api/events"))
        return send_stream(sv, c);
    if (replaying) { /* off the lock: the other answers go on meanwhile */
        if (pthread_mutex_trylock(&sv->replay_lock) != 0)
            return send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                              "a replay is running; one runs at a time: try again when it ends");
        FxWebAnswer a = fx_web_replay(sv->cfg, query_arg, c);
        pthread_mutex_unlock(&sv->replay_lock);
        return send_answer(c, a);
    }
    if (strncmp(url, "/api/", 5) != 0)
        return send_error(c, MHD_HTTP_NOT_FOUND, "not found");
    pthread_mutex_lock(&sv->lock);
    FxWebAnswer a = fx_web_api(sv->cfg, url, query_arg, c);
    pthread_mutex_unlock(&sv->lock);
    return send_answer(c, a);
}

/* Decodes %XX in place, as libmicrohttpd would, except %00, which stays
 * as it is written: a NUL would cut the path short ("/%00/x" read as "/"). */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    char *o = s;
    for (const char *p = s; *p; p++) {
        int hi, lo;
        if (p[0] == '%' && p[1] && p[2] && (hi = hex_digit(p[1])) >= 0 &&
            (lo = hex_digit(p[2])) >= 0 && (hi || lo)) {
            *o++ = (char)(hi * 16 + lo);
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return (size_t)(o - s);
}

/* ---- starting and stopping ---- */

static bool random_token(char out[65])
{
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    bool ok = fd >= 0 && read(fd, raw, sizeof(raw)) == (ssize_t)sizeof(raw);
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; ok && i < sizeof(raw); i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return ok;
}

static bool is_loopback(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
    return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

int fx_serve(const FxServeConfig *cfg, FILE *out, FILE *diagnostics)
{
    char why[512];
    if (!fx_dynlib_load("libmicrohttpd", FX_MHD_SONAME, mhd_names, mhd_fns, MHD_N, why,
                        sizeof(why))) {
        fprintf(diagnostics, "flux: serve: %s\n", why);
        return FLUX_ERR_USAGE;
    }
    struct sockaddr_storage addr = {0};
    const char *host = cfg->bind ? cfg->bind : "127.0.0.1";
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    bool ipv6 = false;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)cfg->port);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)cfg->port);
        ipv6 = true;
    } else {
        fprintf(diagnostics, "flux: serve: `%s` is not an IPv4 or IPv6 address\n", host);
        return FLUX_ERR_USAGE;
    }
    Server sv = {.cfg = cfg, .loopback = is_loopback(&addr)};
    pthread_mutex_init(&sv.lock, NULL);
    pthread_mutex_init(&sv.replay_lock, NULL);
    if (cfg->token)
        snprintf(sv.token, sizeof(sv.token), "%s", cfg->token);
    else if (!is_loopback(&addr) && !random_token(sv.token)) {
        fprintf(diagnostics, "flux: serve: cannot make an access token (/dev/urandom)\n");
        return FLUX_ERR_USAGE;
    }
    /* SIGINT and SIGTERM wait for sigwait below, not in a server thread */
    sigset_t stop_signals, before;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
    signal(SIGPIPE, SIG_IGN);
    struct MHD_Daemon *d = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                    (ipv6 ? MHD_USE_IPv6 : 0),
            (uint16_t)cfg->port, NULL, NULL, handle, &sv, MHD_OPTION_SOCK_ADDR, &addr,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_THREAD_STACK_SIZE,
            (size_t)STACK_SIZE, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
            MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
    if (!d) {
        fprintf(diagnostics, "flux: serve: cannot listen on %s port %u: %s\n", host, cfg->port,
                strerror(errno ? errno : EADDRINUSE));
        pthread_sigmask(SIG_SETMASK, &before, NULL);
        return FLUX_ERR_USAGE;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = info ? info->port : cfg->port;
    fprintf(out, "flux serve: http://%s%s%s:%u/%s%s\n", ipv6 ? "[" : "", host, ipv6 ? "]" : "",
            port, sv.token[0] ? "?token=" : "", sv.token);
    fflush(out);
    int sig = 0;
    sigwait(&stop_signals, &sig);
    atomic_store(&sv.stopping, true);
    MHD_stop_daemon(d);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    pthread_mutex_destroy(&sv.lock);
    pthread_mutex_destroy(&sv.replay_lock);
    return FLUX_OK;
}

int fx_web_serve(FluxProgram **progs, const char **files, size_t n, FluxStore *store,
                 const char *bind, unsigned port, const char *token)
{
    FxServeConfig cfg = {progs, files, n, store, bind, port, token};
    return fx_serve(&cfg, stdout, stderr);
}
