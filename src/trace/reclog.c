/*
 * reclog.c: the record log (reclog.h).
 *
 * DESIGN
 *
 * Why. A recorded run's commit into SQLite cost 38 us when it followed a
 * run that had filled the caches with its own data (7 us right after
 * another commit): most of it is SQLite's code and pages read back from
 * memory. Appending the same record to a file is one write. So a flush
 * appends, and the store moves the frames into the database later, many in
 * one transaction (store.c).
 *
 * A frame is a header of 16 bytes, then the payload:
 *
 *     "FXR\1"   u32 length   u64 check   payload[length]
 *
 * integers little-endian; the check is base/hash.h's FNV-1a step over the
 * length and the payload's 8-byte words (the last one zero-padded), each
 * mixed by fx_mix64. A flush's frames go to the file in one write() with
 * O_APPEND, under a shared flock, so appenders of several processes never
 * interleave (the kernel appends a write whole) and never wait for each
 * other. The reader takes the exclusive flock: then no write is under way,
 * and a frame that does not check was torn for good (its process died in
 * the write, or the disk filled). It is passed over: the next frame is
 * found by its magic, and every byte passed over is counted. A kill thus
 * loses at most the frames of the write it interrupted, whose flush had not
 * returned, as a kill in the middle of a SQLite commit does.
 *
 * The locks are flock()'s, which belong to the open file: the kernel drops
 * them when a process dies, so a killed appender never blocks a reader.
 */
#include "reclog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hash.h"

#define HEADER 16
static const unsigned char MAGIC[4] = {'F', 'X', 'R', 1};

struct FxRecLog {
    int fd;
};

int fx_reclog_open(const char *dir, bool create, FxRecLog **out)
{
    *out = NULL;
    char *path = fx_xasprintf("%s/records.log", dir);
    int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
    int e = errno;
    free(path);
    if (fd < 0)
        return !create && e == ENOENT ? 0 : e;
    *out = fx_xmalloc(sizeof(**out));
    (*out)->fd = fd;
    return 0;
}

void fx_reclog_close(FxRecLog *log)
{
    if (log) {
        close(log->fd);
        free(log);
    }
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static uint64_t check_of(const unsigned char *data, size_t len)
{
    uint64_t h = fx_fnv_step(FX_FNV_BASIS, len);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, data + i, 8);
        h = fx_fnv_step(h, fx_mix64(w));
    }
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, data + i, len - i);
        h = fx_fnv_step(h, fx_mix64(w));
    }
    return h;
}

void fx_reclog_frame(FxBuf *frames, const void *data, size_t len)
{
    unsigned char head[HEADER];
    memcpy(head, MAGIC, 4);
    put_u32(head + 4, (uint32_t)len);
    put_u64(head + 8, check_of(data, len));
    fx_buf_append(frames, (const char *)head, HEADER);
    fx_buf_append(frames, data, len);
}

static int lock_as(FxRecLog *log, int how)
{
    while (flock(log->fd, how) != 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

int fx_reclog_append(FxRecLog *log, const FxBuf *frames)
{
    int e = lock_as(log, LOCK_SH);
    if (e)
        return e;
    ssize_t n;
    do
        n = write(log->fd, frames->data, frames->len);
    while (n < 0 && errno == EINTR);
    /* a short write cannot be finished: the rest would land after another
     * process's frames; it leaves a torn frame, which readers pass over */
    e = n < 0 ? errno : (size_t)n < frames->len ? ENOSPC : 0;
    flock(log->fd, LOCK_UN);
    return e;
}

int fx_reclog_lock(FxRecLog *log)
{
    return lock_as(log, LOCK_EX);
}

void fx_reclog_unlock(FxRecLog *log)
{
    flock(log->fd, LOCK_UN);
}

int64_t fx_reclog_size(FxRecLog *log)
{
    struct stat sb;
    return fstat(log->fd, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* Whether a whole frame that checks starts at p (n bytes left). */
static bool frame_at(const unsigned char *p, size_t n, size_t *len)
{
    if (n < HEADER || memcmp(p, MAGIC, 4) != 0)
        return false;
    *len = get_u32(p + 4);
    return *len <= n - HEADER && get_u64(p + 8) == check_of(p + HEADER, *len);
}

int fx_reclog_read(FxRecLog *log, int64_t from, FxRecLogFn fn, void *ctx, int64_t *end,
                   int64_t *skipped)
{
    *end = from;
    *skipped = 0;
    int64_t size = fx_reclog_size(log);
    if (size < 0)
        return errno;
    if (size <= from)
        return 0;
    size_t n = (size_t)(size - from), got = 0;
    unsigned char *data = fx_xmalloc(n);
    while (got < n) {
        ssize_t r = pread(log->fd, data + got, n - got, (off_t)(from + (int64_t)got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            free(data);
            return e;
        }
        got += (size_t)r;
    }
    int status = 0;
    size_t at = 0;
    while (at < n && status == 0) {
        size_t len;
        if (frame_at(data + at, n - at, &len)) {
            status = fn(ctx, data + at + HEADER, len);
            if (status == 0)
                at += HEADER + len;
            continue;
        }
        size_t next = at + 1; /* torn: on to the next frame's magic */
        while (next < n && !(data[next] == MAGIC[0] && n - next >= 4 &&
                             memcmp(data + next, MAGIC, 4) == 0 && frame_at(data + next, n - next, &len)))
            next++;
        *skipped += (int64_t)(next - at);
        at = next;
    }
    *end = from + (int64_t)at;
    free(data);
    return status;
}

int fx_reclog_truncate(FxRecLog *log)
{
    return ftruncate(log->fd, 0) == 0 ? 0 : errno;
}
