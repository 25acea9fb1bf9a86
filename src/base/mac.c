/*
 * mac.c: this user's key, and MACs made with it (mac.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "base/mac.h"

static unsigned char key[crypto_auth_KEYBYTES];
static char place[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The key file's path, or false when there is no home to keep it in. */
static bool key_path(char *path, size_t len)
{
    const char *file = getenv("FLUX_KEY_FILE"), *xdg = getenv("XDG_CONFIG_HOME"),
               *home = getenv("HOME");
    if (file && *file)
        return snprintf(path, len, "%s", file) < (int)len;
    if (xdg && *xdg == '/')
        return snprintf(path, len, "%s/flux/key", xdg) < (int)len;
    if (home && *home == '/')
        return snprintf(path, len, "%s/.config/flux/key", home) < (int)len;
    return false;
}

/* Reads the key at path: exactly its size, a regular file of this user's
 * that no one else may read or write. */
static bool read_key(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
              (st.st_mode & 077) == 0 && st.st_size == (off_t)sizeof(key) &&
              read(fd, key, sizeof(key)) == (ssize_t)sizeof(key);
    close(fd);
    return ok;
}

/* Makes the key file: written whole under a temporary name, then linked
 * into place, so two processes that start together agree on one key. */
static void make_key(const char *path)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *s = dir + 1; (s = strchr(s, '/')); s++) { /* its folders, 0700 */
        *s = '\0';
        (void)mkdir(dir, 0700);
        *s = '/';
    }
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    unsigned char fresh[sizeof(key)];
    randombytes_buf(fresh, sizeof(fresh));
    bool written = write(fd, fresh, sizeof(fresh)) == (ssize_t)sizeof(fresh) && fsync(fd) == 0;
    close(fd);
    if (written)
        (void)link(tmp, path); /* fails if another made it first: theirs stands */
    unlink(tmp);
    sodium_memzero(fresh, sizeof(fresh));
}

static void load_key(void)
{
    if (sodium_init() < 0)
        fx_fatal(__FILE__, __LINE__, "libsodium cannot start");
    char path[512];
    if (key_path(path, sizeof(path))) {
        if (!read_key(path)) {
            make_key(path);
            if (read_key(path)) {
                snprintf(place, sizeof(place), "%s", path);
                return;
            }
        } else {
            snprintf(place, sizeof(place), "%s", path);
            return;
        }
    }
    crypto_auth_keygen(key);
    snprintf(place, sizeof(place), "a key of this process alone");
}

void fx_mac_hex(const void *data, size_t len, char out[FX_MAC_HEX])
{
    pthread_once(&once, load_key);
    unsigned char mac[crypto_auth_BYTES];
    crypto_auth(mac, data, len, key);
    sodium_bin2hex(out, FX_MAC_HEX, mac, sizeof(mac));
}

bool fx_mac_holds(const void *data, size_t len, const char *hex)
{
    pthread_once(&once, load_key);
    unsigned char mac[crypto_auth_BYTES];
    size_t n = 0;
    if (!hex || sodium_hex2bin(mac, sizeof(mac), hex, strlen(hex), NULL, &n, NULL) != 0 ||
        n != sizeof(mac))
        return false;
    return crypto_auth_verify(mac, data, len, key) == 0;
}

const char *fx_mac_key_place(void)
{
    pthread_once(&once, load_key);
    return place;
}
