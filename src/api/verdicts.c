/*
 * verdicts.c: the checker's verdicts kept in the store, so that a warm
 * start does not run the solver again (docs/cli.md, "A warm start").
 *
 * The checker's solver stage is remembered as a memo (lang/check_memo.h)
 * under a key that hashes every source of the program (the prelude, the
 * root file, its imports, with their names), the check options and the
 * build of this library: the GNU build id of the object that holds this
 * code, so that a rebuilt flux checks again. A build without a build id
 * keeps no memos. Memos live in the store's learned table, kind
 * "checked", hardware "" (a verdict does not depend on the machine).
 * Only the memo of a program without errors is kept; its warnings are in
 * it, and are printed again exactly when a later load replays it.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

static const char KIND[] = "checked";

static char build_id[2 * 64 + 1];
static pthread_once_t build_id_once = PTHREAD_ONCE_INIT;

/* The hex of an NT_GNU_BUILD_ID note among a segment's notes, if any. */
static void read_notes(const char *p, size_t size)
{
    const char *end = p + size;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
        const char *name = p + sizeof(*n);
        const unsigned char *desc =
                (const unsigned char *)name + ((n->n_namesz + 3) & ~(ElfW(Word))3);
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
            n->n_descsz <= 64 && (const char *)desc + n->n_descsz <= end) {
            for (size_t i = 0; i < n->n_descsz; i++)
                snprintf(build_id + 2 * i, 3, "%02x", desc[i]);
            return;
        }
        p = (const char *)desc + ((n->n_descsz + 3) & ~(ElfW(Word))3);
    }
}

/* dl_iterate_phdr's callback: stops at the object that maps this code. */
static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t self = (uintptr_t)data;
    bool mine = false;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        mine |= ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz;
    }
    for (ElfW(Half) i = 0; mine && !build_id[0] && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE)
            read_notes((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz);
    }
    return mine;
}

static void find_build_id(void)
{
    dl_iterate_phdr(find_self, (void *)(uintptr_t)&find_build_id);
}

const char *fx_api_build_id(void)
{
    pthread_once(&build_id_once, find_build_id);
    return build_id[0] ? build_id : NULL;
}

/* FxCheckOptions.recall: the memo kept under key, or NULL. */
static char *recall(void *ctx, const char *key)
{
    FluxStore *fs = ctx;
    char *text = NULL;
    pthread_mutex_lock(&fs->lock);
    if (fx_store_learned(fs->store, KIND, key, "", &text, NULL) != FX_OK) {
        free(text); /* a store that cannot answer: the solver runs */
        text = NULL;
    }
    pthread_mutex_unlock(&fs->lock);
    return text;
}

void fx_api_verdicts_options(FluxStore *fs, FxCheckOptions *opts)
{
    opts->salt = fx_api_build_id();
    opts->recall = fs ? recall : NULL;
    opts->recall_ctx = fs;
}

void fx_api_verdicts_keep(FluxProgram *fp, FluxStore *fs)
{
    FxProgram *prog = fp->prog;
    if (!fs || !prog->check_memo)
        return;
    /* the next load gains from it; a store that refuses it only costs
     * that load the solver's time */
    if (fx_store_set_learned(fs->store, KIND, prog->check_key, "", prog->check_memo,
                             strlen(prog->check_memo)) == FX_OK) {
        free(prog->check_memo);
        prog->check_memo = NULL;
    }
}
