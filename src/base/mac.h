/*
 * mac.h: keyed message authentication with this user's key (libsodium's
 * crypto_auth, HMAC-SHA-512-256). What a store keeps that flux would run
 * or serve without recomputing it (native objects, kept results) carries a
 * MAC made with a key that lives outside every store, so a store written
 * by someone else, or edited, cannot supply a valid one (docs/store.md,
 * "Trust").
 *
 * The key: 32 random bytes in FLUX_KEY_FILE, else
 * ${XDG_CONFIG_HOME:-$HOME/.config}/flux/key, made on first use (mode
 * 0600, in a folder of mode 0700). Where no file can be read or made, a
 * key of this process alone: what it builds serves it, and later
 * processes build again.
 */
#ifndef FX_MAC_H
#define FX_MAC_H

#include <stdbool.h>
#include <stddef.h>

#define FX_MAC_HEX 65 /* 64 hex digits and the NUL */

/* The MAC of len bytes at data, as hex into out. */
void fx_mac_hex(const void *data, size_t len, char out[FX_MAC_HEX]);
/* Does hex (from a store) match the MAC of data? In constant time. */
bool fx_mac_holds(const void *data, size_t len, const char *hex);
/* Where the key is kept ("a key of this process alone" if nowhere), for
 * docs and `flux hw`. */
const char *fx_mac_key_place(void);

#endif
