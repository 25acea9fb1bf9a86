/*
 * walvfs.c: the store's SQLite VFS: the default one, except that the
 * frames a transaction appends to the write-ahead log reach the file in
 * one write instead of two writes a page.
 *
 * DESIGN
 *
 * SQLite writes a WAL frame as its 24-byte header, then its page, each by
 * its own write; so a recorded run's commit (six to eight pages: an
 * execution row, its two index entries, a decision row and its index
 * entry, the node counters) cost twelve pwrite calls or more. One write
 * instead took a warm commit from 30 to 25 us (4 KiB pages, bench/record's
 * transaction).
 *
 * Here a write that extends the WAL is kept in a buffer while it is a frame
 * header, or the page of a frame whose header does not mark a commit; every
 * other write (a commit frame's page, the WAL header, a page rewritten in
 * place) sends the buffer and itself to the file before it returns. Every
 * other call on the WAL file (read, sync, truncate, size, lock, file
 * control) sends the buffer first. So:
 *
 *   - a transaction's frames are in the file when the write of its commit
 *     frame returns, which is before SQLite publishes the commit in the
 *     wal-index (sqlite3WalFrames writes every frame, then appends to the
 *     index, then writes the index header): readers and checkpoints, here
 *     or in another process, only ever look at frames that are written;
 *   - what a kill can lose is a buffer of frames of a transaction not yet
 *     committed, which SQLite does not count either (and which recovery
 *     would ignore: no commit frame follows them);
 *   - a failed write fails the call that sends the buffer, which is the
 *     commit frame's write at the latest: SQLite rolls back as it does
 *     when its own write fails;
 *   - frames still held when the connection lets the WAL's write lock go
 *     (the database file's shared-memory lock 0) belong to a transaction
 *     that rolled back, and are dropped: once the lock is gone another
 *     connection may write where they were to go. (A WAL file is linked to
 *     its database file at open, by sqlite3_database_file_object.)
 *
 * A write that extends the WAL also writes zeros up to the next GROW_CHUNK
 * boundary: appending a commit's few KiB a time made the kernel allocate
 * and zero-fill a new page-cache page (and reserve its block) inside most
 * commits, while overwriting a page already cached is a copy; a fresh
 * store's WAL grows to 8000 frames before its first checkpoint restarts
 * it. The zeros are not frames (a frame's salt must match the WAL
 * header's), so recovery stops at them as at the end of the file.
 *
 * The database file and every other file pass straight through.
 */
#include "walvfs.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define FRAME_HEADER  24          /* a WAL frame's header (SQLite's file format) */
/* Sent at this size (a big transaction's frames go in parts): the unix VFS
 * writes less than 128 KiB a call (SQLite itself writes a page at most). */
#define BUFFER_LIMIT  (64u << 10)
#define GROW_CHUNK    (64 << 10) /* below the unix VFS's write limit (BUFFER_LIMIT) */
#define VFS_NAME      "flux-wal"

/* What the last write buffered: the next write (a page) is kept or sent. */
enum { AFTER_NONE, AFTER_FRAME_HEADER, AFTER_COMMIT_HEADER };

typedef struct WalFile WalFile;
struct WalFile {
    sqlite3_file base;  /* pMethods: &methods */
    sqlite3_file *real; /* the default VFS's file, just after this struct */
    bool is_wal;
    WalFile *link;      /* a WAL's database file, a database file's WAL, or NULL */
    int after;          /* AFTER_*: what the last buffered write was */
    char *buf;          /* the pending bytes, for [start, start + len) of the file */
    size_t len, cap;
    sqlite3_int64 start;
    sqlite3_int64 size; /* the file's size once known (a WAL's), else -1 */
};

static sqlite3_vfs *base_vfs;
static sqlite3_vfs vfs;
static int registered = SQLITE_ERROR;

/* Writes [off, off + amt) of the WAL; when that extends the file and the
 * bytes are the buffer's, with zeros after them up to a GROW_CHUNK
 * boundary (see DESIGN). After a failed size query or write the size is
 * unknown, to be asked again. */
static int write_wal(WalFile *w, const void *data, int amt, sqlite3_int64 off)
{
    sqlite3_file *f = w->real;
    if (w->size < 0 && f->pMethods->xFileSize(f, &w->size) != SQLITE_OK)
        w->size = -1;
    sqlite3_int64 end = off + amt, grown = end;
    if (data == w->buf && w->size >= 0 && end > w->size) {
        grown = (end + GROW_CHUNK - 1) / GROW_CHUNK * GROW_CHUNK;
        if ((size_t)(grown - off) > w->cap) {
            w->cap = (size_t)(grown - off);
            w->buf = fx_xrealloc(w->buf, w->cap);
        }
        memset(w->buf + amt, 0, (size_t)(grown - end));
        data = w->buf;
    }
    int rc = f->pMethods->xWrite(f, data, (int)(grown - off), off);
    if (rc != SQLITE_OK)
        w->size = -1;
    else if (w->size >= 0 && grown > w->size)
        w->size = grown;
    return rc;
}

/* Sends the pending bytes to the file. */
static int send(WalFile *w)
{
    if (!w->len)
        return SQLITE_OK;
    int rc = write_wal(w, w->buf, (int)w->len, w->start);
    w->len = 0;
    w->after = AFTER_NONE;
    return rc;
}

/* Forgets the pending bytes: frames of a transaction that did not commit. */
static void drop(WalFile *w)
{
    w->len = 0;
    w->after = AFTER_NONE;
}

static void keep(WalFile *w, const void *data, size_t amt, sqlite3_int64 off)
{
    if (!w->len)
        w->start = off;
    if (w->len + amt > w->cap) {
        w->cap = w->len + amt > 2 * w->cap ? w->len + amt : 2 * w->cap;
        w->buf = fx_xrealloc(w->buf, w->cap);
    }
    memcpy(w->buf + w->len, data, amt);
    w->len += amt;
}

/* A frame header marks a commit when its "database size after commit"
 * (bytes 4 to 7) is not zero. */
static bool marks_commit(const unsigned char *header)
{
    return header[4] | header[5] | header[6] | header[7];
}

static int wal_write(WalFile *w, const void *data, int amt, sqlite3_int64 off)
{
    size_t n = (size_t)amt;
    bool follows = w->len && off == w->start + (sqlite3_int64)w->len;
    if ((w->len && !follows) || w->len + n > BUFFER_LIMIT) {
        int rc = send(w);
        if (rc != SQLITE_OK)
            return rc;
    }
    if (n > BUFFER_LIMIT)
        return write_wal(w, data, amt, off);
    int after = w->after;
    keep(w, data, n, off);
    if (n == FRAME_HEADER) {
        w->after = marks_commit(data) ? AFTER_COMMIT_HEADER : AFTER_FRAME_HEADER;
        return SQLITE_OK;
    }
    w->after = AFTER_NONE;
    return after == AFTER_FRAME_HEADER ? SQLITE_OK : send(w);
}

/* ---- the file's methods: the WAL's buffer is sent before each ---- */

#define REAL(f)   (((WalFile *)(f))->real)
#define SENT(f)   (((WalFile *)(f))->is_wal ? send((WalFile *)(f)) : SQLITE_OK)

static int x_close(sqlite3_file *f)
{
    WalFile *w = (WalFile *)f;
    /* nothing is sent: a commit's frames are written with it, so what is
     * left belongs to a transaction that did not commit */
    if (w->link)
        w->link->link = NULL;
    int rc = w->real->pMethods->xClose(w->real);
    free(w->buf);
    w->buf = NULL;
    return rc;
}

static int x_read(sqlite3_file *f, void *data, int amt, sqlite3_int64 off)
{
    int rc = SENT(f);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xRead(REAL(f), data, amt, off);
}

static int x_write(sqlite3_file *f, const void *data, int amt, sqlite3_int64 off)
{
    WalFile *w = (WalFile *)f;
    return w->is_wal ? wal_write(w, data, amt, off)
                     : w->real->pMethods->xWrite(w->real, data, amt, off);
}

static int x_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    int rc = SENT(f);
    ((WalFile *)f)->size = -1;
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int x_sync(sqlite3_file *f, int flags)
{
    int rc = SENT(f);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int x_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    int rc = SENT(f);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int x_lock(sqlite3_file *f, int level)
{
    int rc = SENT(f);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xLock(REAL(f), level);
}

static int x_unlock(sqlite3_file *f, int level)
{
    int rc = SENT(f);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int x_check_reserved_lock(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int x_file_control(sqlite3_file *f, int op, void *arg)
{
    int rc = SENT(f);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int x_sector_size(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int x_device_characteristics(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

/* The shared memory is the database file's (the wal-index), and mmap its
 * reads: passed through, to a file that has them. */
static int x_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out)
{
    if (REAL(f)->pMethods->iVersion < 2)
        return SQLITE_IOERR;
    return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, out);
}

static int x_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    WalFile *w = (WalFile *)f;
    if ((flags & SQLITE_SHM_UNLOCK) && offset == 0 && w->link) /* the WAL's write lock */
        drop(w->link);
    return w->real->pMethods->xShmLock(w->real, offset, n, flags);
}

static void x_shm_barrier(sqlite3_file *f)
{
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int x_shm_unmap(sqlite3_file *f, int delete_flag)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

static int x_fetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **out)
{
    int rc = SENT(f);
    *out = NULL; /* no mapping: SQLite reads instead */
    if (rc != SQLITE_OK || REAL(f)->pMethods->iVersion < 3)
        return rc;
    return REAL(f)->pMethods->xFetch(REAL(f), off, amt, out);
}

static int x_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    if (REAL(f)->pMethods->iVersion < 3)
        return SQLITE_OK;
    return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods methods = {
    3,           x_close,       x_read,         x_write,       x_truncate,
    x_sync,      x_file_size,   x_lock,         x_unlock,      x_check_reserved_lock,
    x_file_control, x_sector_size, x_device_characteristics, x_shm_map, x_shm_lock,
    x_shm_barrier, x_shm_unmap, x_fetch,        x_unfetch,
};

/* ---- the VFS: the default one's, with its files wrapped ---- */

static int x_open(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
    (void)v;
    WalFile *w = (WalFile *)f;
    memset(w, 0, sizeof(*w));
    w->real = (sqlite3_file *)(w + 1);
    w->is_wal = (flags & SQLITE_OPEN_WAL) != 0;
    w->size = -1;
    int rc = base_vfs->xOpen(base_vfs, name, w->real, flags, out_flags);
    /* SQLite closes a file whose pMethods is set, even when opening failed */
    f->pMethods = w->real->pMethods ? &methods : NULL;
    sqlite3_file *db = w->is_wal && rc == SQLITE_OK ? sqlite3_database_file_object(name) : NULL;
    if (db && db->pMethods == &methods) {
        w->link = (WalFile *)db;
        w->link->link = w;
    }
    return rc;
}

static int x_delete(sqlite3_vfs *v, const char *name, int sync_dir)
{
    (void)v;
    return base_vfs->xDelete(base_vfs, name, sync_dir);
}

static int x_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
    (void)v;
    return base_vfs->xAccess(base_vfs, name, flags, out);
}

static int x_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
    (void)v;
    return base_vfs->xFullPathname(base_vfs, name, n, out);
}

static void *x_dl_open(sqlite3_vfs *v, const char *name)
{
    (void)v;
    return base_vfs->xDlOpen(base_vfs, name);
}

static void x_dl_error(sqlite3_vfs *v, int n, char *out)
{
    (void)v;
    base_vfs->xDlError(base_vfs, n, out);
}

static void (*x_dl_sym(sqlite3_vfs *v, void *lib, const char *sym))(void)
{
    (void)v;
    return base_vfs->xDlSym(base_vfs, lib, sym);
}

static void x_dl_close(sqlite3_vfs *v, void *lib)
{
    (void)v;
    base_vfs->xDlClose(base_vfs, lib);
}

static int x_randomness(sqlite3_vfs *v, int n, char *out)
{
    (void)v;
    return base_vfs->xRandomness(base_vfs, n, out);
}

static int x_sleep(sqlite3_vfs *v, int us)
{
    (void)v;
    return base_vfs->xSleep(base_vfs, us);
}

static int x_current_time(sqlite3_vfs *v, double *out)
{
    (void)v;
    return base_vfs->xCurrentTime(base_vfs, out);
}

static int x_get_last_error(sqlite3_vfs *v, int n, char *out)
{
    (void)v;
    return base_vfs->xGetLastError(base_vfs, n, out);
}

static int x_current_time_int64(sqlite3_vfs *v, sqlite3_int64 *out)
{
    (void)v;
    return base_vfs->xCurrentTimeInt64(base_vfs, out);
}

static void register_vfs(void)
{
    base_vfs = sqlite3_vfs_find(NULL);
    if (!base_vfs || base_vfs->iVersion < 2) /* no xCurrentTimeInt64: used as it is */
        return;
    vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(WalFile) + base_vfs->szOsFile,
        .mxPathname = base_vfs->mxPathname,
        .zName = VFS_NAME,
        .xOpen = x_open,
        .xDelete = x_delete,
        .xAccess = x_access,
        .xFullPathname = x_full_pathname,
        .xDlOpen = x_dl_open,
        .xDlError = x_dl_error,
        .xDlSym = x_dl_sym,
        .xDlClose = x_dl_close,
        .xRandomness = x_randomness,
        .xSleep = x_sleep,
        .xCurrentTime = x_current_time,
        .xGetLastError = x_get_last_error,
        .xCurrentTimeInt64 = x_current_time_int64,
    };
    registered = sqlite3_vfs_register(&vfs, 0);
}

const char *fx_walvfs_name(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_vfs);
    return registered == SQLITE_OK ? VFS_NAME : NULL;
}
