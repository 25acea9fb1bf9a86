/*
 * guard.c: what the store looks at before it changes anything (guard.h).
 *
 * DESIGN
 *
 * Opening a store used to change it before checking it: a read-write
 * connection switched a foreign database to WAL mode and the folder got a
 * `cache/`, and only then was it refused. store.c now looks first, through
 * what is here, and changes nothing until the database proved to be a
 * flux store of a schema this flux knows, readable and (when its files
 * are not as flux left them) whole.
 *
 * Reading without writing. A read-only SQLite connection to a WAL-mode
 * database still makes its `-wal` and `-shm`; fx_data_sqlite_uri says how
 * to avoid it (immutable when the log is absent or empty, mode=ro when it
 * holds frames, which then exist already).
 *
 * Closed as left. A damaged file (bytes written into it by something else,
 * a disk's error) shows to SQLite only where a statement reads, so a store
 * could go on recording into a database that fails integrity_check. A full
 * check at every open would read the whole file in every `flux run`. So a
 * process that opened the store for writing leaves, when it closes, the
 * stamp of flux.db and flux.db-wal (device, inode, size, modification and
 * change times, to the nanosecond) in DIR/closed; the next open compares
 * it with the files (two stat calls and a small read) and checks the
 * database only when they differ and no other process has the database
 * open (a lock every SQLite connection holds on its shared memory): after
 * a crash or a kill, a copy, a change by another program. A change time
 * cannot be set back, so a write by anyone shows. A store that another
 * process has open is not checked: its writes (a background learner's,
 * another run's) explain the difference, and the last to close stamps
 * the files. So what this cannot see is damage done while a flux process
 * has the store open, which that process stamps as its own when it
 * closes; `flux store check` reads all. (Checking whenever the stamps
 * differed cost a check in one `flux run` of ten or so, those a
 * background learner's round had followed.)
 *
 * The check is PRAGMA integrity_check (quick_check skips comparing the
 * indexes with their tables, where random bytes are found too), stopped
 * by a progress handler after a budget, so that a large store costs a
 * bounded time; the part read in time is what was checked.
 */
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "exec/data.h"
#include "store.h"

#define MARKER      "closed"
#define MARKER_SIZE 512 /* bytes: the stamp (under 300), then the executions line */
#define STAMP_SIZE  448 /* the stamp's part of the marker */

FxDbHead fx_guard_head(const char *db_path)
{
    static const char magic[16] = "SQLite format 3";
    FxDbHead h = {0};
    char head[16];
    int fd = open(db_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return h;
    ssize_t got = read(fd, head, sizeof(head));
    close(fd);
    h.exists = got > 0;
    h.is_sqlite = got == (ssize_t)sizeof(head) && memcmp(head, magic, sizeof(head)) == 0;
    return h;
}

int fx_guard_open_reader(const char *db_path, sqlite3 **out)
{
    bool immutable;
    char *uri = fx_data_sqlite_uri(db_path, &immutable);
    int rc = sqlite3_open_v2(uri, out, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                             NULL);
    free(uri);
    /* a reader's close must not checkpoint (it cannot write) nor delete the log */
    if (rc == SQLITE_OK)
        sqlite3_db_config(*out, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
    return rc;
}

static void put_stamp(FxBuf *b, const char *name, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fx_buf_printf(b, "%s none\n", name);
        return;
    }
    fx_buf_printf(b, "%s %llu %llu %lld %lld.%09ld %lld.%09ld\n", name,
                  (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                  (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                  (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

char *fx_guard_stamp(const char *dir)
{
    FxBuf b = {0};
    char *db = fx_xasprintf("%s/flux.db", dir), *wal = fx_xasprintf("%s/flux.db-wal", dir);
    fx_buf_printf(&b, "flux store, schema version %d\n", FX_STORE_SCHEMA_VERSION);
    put_stamp(&b, "flux.db", db);
    put_stamp(&b, "flux.db-wal", wal);
    free(db);
    free(wal);
    return fx_buf_take(&b);
}

/* The marker's bytes for a stamp: the stamp padded with spaces to
 * MARKER_SIZE, so that writing it again overwrites the file in place (an
 * O_TRUNC that frees the file's block and a write that allocates one cost
 * 170 us on ext4, most of what the marker cost a `flux run`). */
static void marker_bytes(const char *stamp, int64_t last_execution, char out[MARKER_SIZE])
{
    size_t len = strlen(stamp);
    char tail[MARKER_SIZE - STAMP_SIZE + 1];
    memset(out, ' ', MARKER_SIZE);
    memcpy(out, stamp, len < STAMP_SIZE ? len : STAMP_SIZE);
    int n = snprintf(tail, sizeof(tail), "executions up to %lld\n", (long long)last_execution);
    if (last_execution >= 0 && n > 0 && n < (int)sizeof(tail))
        memcpy(out + STAMP_SIZE, tail, (size_t)n);
}

/* The marker's bytes, or false when it is not one. */
static bool read_marker(const char *dir, char kept[MARKER_SIZE + 1])
{
    char *path = fx_xasprintf("%s/" MARKER, dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    /* one byte more than a marker, so that a longer file differs */
    ssize_t got = fd >= 0 ? read(fd, kept, MARKER_SIZE + 1) : -1;
    if (fd >= 0)
        close(fd);
    free(path);
    return got == MARKER_SIZE;
}

int64_t fx_guard_last_execution(const char *dir)
{
    char kept[MARKER_SIZE + 1];
    long long last;
    if (!read_marker(dir, kept))
        return -1;
    kept[MARKER_SIZE] = '\0';
    return sscanf(kept + STAMP_SIZE, "executions up to %lld", &last) == 1 ? last : -1;
}

bool fx_guard_closed_as(const char *dir, const char *stamp)
{
    char want[MARKER_SIZE], kept[MARKER_SIZE + 1];
    marker_bytes(stamp, -1, want);
    return strlen(stamp) < STAMP_SIZE && read_marker(dir, kept) &&
           !memcmp(kept, want, STAMP_SIZE);
}

bool fx_guard_in_use(const char *dir)
{
    /* every connection holds a read lock on this byte of the shared
     * memory while it is open (SQLite's os_unix.c, UNIX_SHM_DMS) */
    enum { SHM_DMS = 128 };
    char *path = fx_xasprintf("%s/flux.db-shm", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = SHM_DMS, .l_len = 1};
    bool used = fd >= 0 && fcntl(fd, F_GETLK, &lk) == 0 && lk.l_type != F_UNLCK;
    if (fd >= 0)
        close(fd);
    free(path);
    return used;
}

void fx_guard_mark_closed(const char *dir, const char *stamp, int64_t last_execution)
{
    char *path = fx_xasprintf("%s/" MARKER, dir);
    char bytes[MARKER_SIZE];
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    marker_bytes(stamp, last_execution, bytes);
    /* no sync: a marker lost with a power cut only costs a check */
    if (fd >= 0) {
        ssize_t put = pwrite(fd, bytes, sizeof(bytes), 0);
        (void)put; /* a torn marker differs from every stamp: a check */
        close(fd);
    }
    free(path);
}

void fx_guard_forget(const char *dir)
{
    char *path = fx_xasprintf("%s/" MARKER, dir);
    if (unlink(path) != 0 && errno != ENOENT) { /* cannot: spoil it instead */
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd >= 0)
            close(fd);
    }
    free(path);
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* sqlite3_progress_handler: nonzero stops the statement once past the deadline */
static int past(void *deadline)
{
    return mono_s() > *(double *)deadline;
}

int fx_guard_integrity(sqlite3 *db, double seconds, char *msg, size_t len)
{
    sqlite3_stmt *st = NULL;
    double deadline = mono_s() + seconds;
    int rc = sqlite3_prepare_v2(db, "PRAGMA integrity_check(1)", -1, &st, NULL);
    snprintf(msg, len, "%s", rc == SQLITE_OK ? "" : sqlite3_errmsg(db));
    if (rc != SQLITE_OK)
        return sqlite3_errcode(db);
    sqlite3_progress_handler(db, 1000, past, &deadline);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *answer = (const char *)sqlite3_column_text(st, 0);
        bool ok = answer && !strcmp(answer, "ok");
        /* the first problem, without the header naming the schema */
        if (answer && !strncmp(answer, "*** in database main ***\n", 25))
            answer += 25;
        snprintf(msg, len, "%.*s", answer ? (int)strcspn(answer, "\n") : 0, answer ? answer : "");
        rc = ok ? SQLITE_OK : SQLITE_CORRUPT;
    } else if (rc == SQLITE_INTERRUPT) {
        rc = SQLITE_OK; /* the budget is spent: what was read was whole */
    } else {
        snprintf(msg, len, "%s", sqlite3_errmsg(db));
        rc = sqlite3_errcode(db);
    }
    sqlite3_progress_handler(db, 0, NULL, NULL);
    sqlite3_finalize(st);
    return rc;
}
