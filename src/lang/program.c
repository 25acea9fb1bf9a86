/*
 * program.c: loading a program: the prelude, the root file and its imports.
 *
 * Imports are resolved relative to the importing file and loaded once each;
 * a cycle is an error at the import that closes it. Modules are kept in
 * load order with the prelude first, so that lookups can prefer what the
 * user wrote over the prelude.
 */
#include "program.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "parse.h"

static char *dirname_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return fx_xstrdup("");
    return fx_xstrndup(path, (size_t)(slash - path) + 1);
}

static FxModule *find_loaded(FxProgram *prog, const char *path)
{
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        if (strcmp((*m)->src->path, path) == 0)
            return *m;
    }
    return NULL;
}

typedef FX_VEC(const char *) PathStack;

static FxModule *load_module(FxProgram *prog, FxSource *src, PathStack *loading);

/* `import std.NAME`: the module's source (named std/NAME.flux), or NULL
 * with the error at the import. */
static FxSource *library_module(FxProgram *prog, const FxImport *imp)
{
    const char *name = !strncmp(imp->path, "std.", 4) ? imp->path + 4 : NULL;
    for (unsigned long i = 0; name && i < fx_stdlib_count; i++) {
        if (strcmp(fx_stdlib[i].name, name) != 0)
            continue;
        char *path = fx_xasprintf("std/%s.flux", name);
        FxModule *loaded = find_loaded(prog, path);
        FxSource *src = loaded ? NULL
                               : fx_diag_add_source(prog->diag, path, fx_stdlib[i].text,
                                                    (size_t)fx_stdlib[i].len);
        free(path);
        return src;
    }
    FxBuf all = {0};
    for (unsigned long i = 0; i < fx_stdlib_count; i++)
        fx_buf_printf(&all, "%sstd.%s", i ? ", " : "", fx_stdlib[i].name);
    fx_diag_error(prog->diag, imp->span, "no module `%s` in the standard library (it has %s)",
                  imp->path, fx_buf_str(&all));
    fx_buf_free(&all);
    return NULL;
}

static void load_imports(FxProgram *prog, FxModule *m, PathStack *loading)
{
    char *dir = dirname_of(m->src->path);
    fx_vec_foreach(FxImport, imp, &m->imports)
    {
        if (imp->library) {
            FxSource *src = library_module(prog, imp);
            if (src)
                load_module(prog, src, loading);
            continue;
        }
        char *path = imp->path[0] == '/' ? fx_xstrdup(imp->path)
                                         : fx_xasprintf("%s%s", dir, imp->path);
        bool cycle = false;
        fx_vec_foreach(const char *, p, loading) cycle |= strcmp(*p, path) == 0;
        if (cycle) {
            fx_diag_error(prog->diag, imp->span, "import cycle: `%s` imports itself, directly "
                          "or through other files", imp->path);
        } else if (!find_loaded(prog, path)) {
            FxSource *src = NULL;
            struct stat st;
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0)
                fx_diag_error(prog->diag, imp->span, "cannot import `%s`: no such file",
                              imp->path);
            else
                src = fx_diag_load_file(prog->diag, path);
            if (src)
                load_module(prog, src, loading);
        }
        free(path);
    }
    free(dir);
}

static FxModule *load_module(FxProgram *prog, FxSource *src, PathStack *loading)
{
    FxModule *m = fx_parse(prog->diag, src);
    fx_vec_push(loading, src->path);
    load_imports(prog, m, loading);
    loading->len--;
    fx_vec_push(&prog->modules, m);
    return m;
}

static FxProgram *new_program(FxDiag *d)
{
    FxProgram *prog = fx_xcalloc(1, sizeof(*prog));
    prog->diag = d;
    FxSource *src = fx_diag_add_source(d, "<prelude>", fx_prelude_source,
                                       (size_t)fx_prelude_source_len);
    prog->prelude = fx_parse(d, src);
    fx_vec_foreach(FxIntent *, in, &prog->prelude->intents)(*in)->from_prelude = true;
    fx_vec_push(&prog->modules, prog->prelude);
    return prog;
}

/* Each intent's key: its name, unless it is a prelude intent that a user
 * intent of the same name shadows. */
static void assign_keys(FxProgram *prog)
{
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxIntent *, in, &(*m)->intents)
        {
            (*in)->key = (*in)->name;
            if ((*in)->from_prelude && fx_program_find_intent(prog, (*in)->name) != *in) {
                char *k = fx_xasprintf("%s%s", FX_PRELUDE_PREFIX, (*in)->name);
                (*in)->key = fx_arena_strdup(&prog->arena, k);
                free(k);
            }
        }
    }
}

static FxProgram *finish(FxProgram *prog, FxSource *src, const FxCheckOptions *options)
{
    if (src) {
        PathStack loading = {0};
        prog->root = load_module(prog, src, &loading);
        fx_vec_free(&loading);
        assign_keys(prog);
        fx_check_program(prog, options);
    }
    return prog;
}

FxProgram *fx_program_load(FxDiag *d, const char *path, const FxCheckOptions *options)
{
    FxProgram *prog = new_program(d);
    return finish(prog, fx_diag_load_file(d, path), options);
}

FxProgram *fx_program_load_text(FxDiag *d, const char *name, const char *text, size_t len,
                                const FxCheckOptions *options)
{
    FxProgram *prog = new_program(d);
    return finish(prog, fx_diag_add_source(d, name, text, len), options);
}

const FxIntent *fx_program_find_intent(const FxProgram *prog, const char *name)
{
    size_t pre = strlen(FX_PRELUDE_PREFIX);
    if (!strncmp(name, FX_PRELUDE_PREFIX, pre)) {
        fx_vec_foreach(FxIntent *, in, &prog->prelude->intents) if (!strcmp((*in)->name,
                                                                              name + pre)) return *in;
        return NULL;
    }
    for (size_t i = prog->modules.len; i-- > 0;) {
        fx_vec_foreach(FxIntent *, in, &prog->modules.data[i]->intents)
        {
            if (strcmp((*in)->name, name) == 0)
                return *in;
        }
    }
    return NULL;
}

void fx_program_free(FxProgram *prog)
{
    if (!prog)
        return;
    fx_vec_foreach(FxModule *, m, &prog->modules) fx_module_free(*m);
    fx_vec_free(&prog->modules);
    fx_arena_free(&prog->arena);
    free(prog->check_memo);
    free(prog);
}
