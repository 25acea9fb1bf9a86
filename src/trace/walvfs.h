/*
 * walvfs.h: the store's SQLite VFS, which writes the frames a transaction
 * appends to the write-ahead log in one write (walvfs.c).
 */
#ifndef FX_TRACE_WALVFS_H
#define FX_TRACE_WALVFS_H

/* The VFS's name for sqlite3_open_v2, registered on first call; NULL (the
 * default VFS) when it could not be. */
const char *fx_walvfs_name(void);

#endif
