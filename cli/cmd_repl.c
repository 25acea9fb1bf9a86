/*
 * cmd_repl.c: `flux repl [FILE] [--store DIR]`: an interactive session on
 * a warm engine (docs/cli.md, "The REPL").
 *
 * The session is a list of top-level blocks (an intent, a type, a data
 * source, an import, with their indented lines): FILE's, then those typed.
 * A line that starts a block (`intent`, `type`, `data`, `import`) reads on
 * until a blank line or a line back at column 0; the block replaces the
 * one of the same kind and name, or is added, and the whole session is
 * checked as a file is (flux_program_load_source). A rejected block is
 * dropped, its errors shown with the positions the user knows: FILE:LINE
 * in FILE's blocks, <repl>:LINE for what was typed (LINE counting the
 * session's input lines). Any other line is an expression, run on the
 * program and recorded in the store as `flux run` does; a learner thread
 * learns from the runs as the session goes. Commands start with `:`.
 *
 * Line editing and history come from libedit (BSD licence), opened with
 * dlopen when stdin is a terminal, so that `flux run` does not load it;
 * without a terminal (or without libedit) lines are read plainly and no
 * prompt is written, so a session can be scripted through a pipe.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flux.h"

typedef struct Block {
    char *text;         /* its lines, each ending in \n */
    char kind[8];       /* intent, type, data, import */
    char name[128];
    const char *origin; /* the session's name when FILE was loaded (its path), or "<repl>" */
    int first_line;     /* its first line there */
    int start;          /* its first line in the session's text (assemble) */
    int lines;
} Block;

typedef struct Session {
    Block *blocks;
    size_t n, cap;
    char *name; /* what the session's text is called: FILE, or "<repl>" */
    FluxProgram *prog;
    FluxStore *store;
    FluxLearner *learner;
    int line; /* input lines read so far */
    bool tty;
    /* libedit's readline interface, when stdin is a terminal */
    char *(*readline)(const char *prompt);
    int (*add_history)(const char *line);
} Session;

static const char help[] =
        "Type an expression to run it (fibonacci(100)), or an intent to define or\n"
        "redefine it (an `intent` line and its indented lines, ended by a blank line).\n"
        "  :explain EXPR    run EXPR and show its provenance tree\n"
        "  :history INTENT  the versions of INTENT's lineage, with their proofs\n"
        "  :graph INTENT    INTENT's execution graph (the current version)\n"
        "  :load FILE       start again from FILE's intents\n"
        "  :source          the session's definitions, as the checker reads them\n"
        "  :help            this\n"
        "  :quit            leave (Ctrl-D too)\n";

/* ---- blocks ---- */

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The kind and name a block's first line declares ("intent fib(n: ..." is
 * intent fib); false for a line that starts none. */
static bool declares(const char *line, char *kind, size_t kind_len, char *name, size_t name_len)
{
    static const char *const kinds[] = {"intent", "type", "data", "import"};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        size_t k = strlen(kinds[i]);
        if (strncmp(line, kinds[i], k) || (line[k] != ' ' && line[k] != '\t'))
            continue;
        const char *p = line + k;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = 0;
        while (p[n] && !strchr(" \t(:=\n", p[n]))
            n++;
        snprintf(kind, kind_len, "%s", kinds[i]);
        snprintf(name, name_len, "%.*s", (int)n, p);
        return true;
    }
    return false;
}

static void add_block(Session *s, Block b)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->blocks = realloc(s->blocks, s->cap * sizeof(*s->blocks));
    }
    s->blocks[s->n++] = b;
}

static void clear_blocks(Session *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->blocks[i].text);
    s->n = 0;
}

/* FILE's text as blocks: each starts at a declaration at column 0; what
 * comes before the first (comments) is a block of its own, of kind "". */
static void split_file(Session *s, const char *path, const char *text)
{
    const char *p = text;
    int line = 1;
    while (*p) {
        Block b = {.origin = path, .first_line = line};
        declares(p, b.kind, sizeof(b.kind), b.name, sizeof(b.name));
        const char *q = p;
        char kind[8], name[128];
        do { /* on to the next line at column 0 that declares */
            const char *nl = strchr(q, '\n');
            q = nl ? nl + 1 : q + strlen(q);
        } while (*q && !declares(q, kind, sizeof(kind), name, sizeof(name)));
        size_t len = (size_t)(q - p);
        b.text = malloc(len + 2);
        memcpy(b.text, p, len);
        b.text[len] = '\0';
        if (len && b.text[len - 1] != '\n')
            strcat(b.text, "\n");
        b.lines = count_lines(b.text);
        line += b.lines;
        add_block(s, b);
        p = q;
    }
}

/* The session's text, each block's `start` set. */
static char *assemble(Session *s)
{
    size_t len = 1;
    for (size_t i = 0; i < s->n; i++)
        len += strlen(s->blocks[i].text);
    char *text = malloc(len);
    text[0] = '\0';
    int line = 1;
    for (size_t i = 0; i < s->n; i++) {
        s->blocks[i].start = line;
        line += s->blocks[i].lines;
        strcat(text, s->blocks[i].text);
    }
    return text;
}

/* The block that holds line `line` of the session's text, or NULL. */
static const Block *block_at(const Session *s, int line)
{
    for (size_t i = 0; i < s->n; i++)
        if (line >= s->blocks[i].start && line < s->blocks[i].start + s->blocks[i].lines)
            return &s->blocks[i];
    return NULL;
}

/* Writes text (diagnostics, a graph, an explanation) with the session's
 * positions (NAME:LINE:COL) turned into their blocks' (FILE:LINE:COL, or
 * <repl>:LINE:COL for what was typed), and the line numbers of the
 * excerpts under a diagnostic ("   11 | ...") likewise. */
static void show_mapped(const Session *s, const char *text, FILE *out)
{
    size_t name_len = strlen(s->name);
    int shift = 0; /* the last position's: the line it had less the line it has */
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
        int number, used = 0;
        if (sscanf(p, " %d |%n", &number, &used) == 1 && used > 0 && shift) {
            int width = (int)(strchr(p, '|') - p) - 1;
            fprintf(out, "%*d", width, number - shift);
            fwrite(p + width, 1, len - (size_t)width, out);
            p += len;
            continue;
        }
        const char *end = p + len;
        while (p < end) {
            const char *at = memmem(p, (size_t)(end - p), s->name, name_len);
            int line, col;
            used = 0;
            if (!at) {
                fwrite(p, 1, (size_t)(end - p), out);
                break;
            }
            fwrite(p, 1, (size_t)(at - p), out);
            const Block *b = NULL;
            if (sscanf(at + name_len, ":%d:%d%n", &line, &col, &used) == 2 && used > 0 &&
                (b = block_at(s, line)) != NULL) {
                int there = b->first_line + line - b->start;
                fprintf(out, "%s:%d:%d", b->origin, there, col);
                shift = line - there;
                p = at + name_len + (size_t)used;
            } else {
                fwrite(at, 1, name_len, out);
                p = at + name_len;
            }
        }
        p = end;
    }
}

/* fn's output into memory, then written mapped to out. */
#define MAPPED(s, out, call)                                                                       \
    do {                                                                                           \
        char *text_ = NULL;                                                                        \
        size_t len_ = 0;                                                                           \
        FILE *mem_ = open_memstream(&text_, &len_);                                                \
        call;                                                                                      \
        fclose(mem_);                                                                              \
        show_mapped(s, text_, out);                                                                \
        free(text_);                                                                               \
    } while (0)

/* ---- the program ---- */

static void stop_learner(Session *s)
{
    if (s->learner)
        flux_learner_stop(s->learner);
    s->learner = NULL;
}

/* Checks the session's blocks as one file; on success the program is
 * replaced. Errors (and the warnings of a rejected text) on stderr. */
static int reload(Session *s)
{
    char *text = assemble(s), *diag = NULL;
    size_t diag_len = 0;
    FILE *d = open_memstream(&diag, &diag_len);
    FluxLoadOptions opts = fx_cli_load_options();
    opts.quiet_warnings = !fx_cli_show_warnings;
    FluxProgram *prog = NULL;
    int status = flux_program_load_source(s->name, text, &opts, d, &prog);
    fclose(d);
    fflush(stdout);
    show_mapped(s, diag, stderr);
    free(diag);
    free(text);
    if (status != FLUX_OK)
        return status;
    stop_learner(s);
    flux_program_free(s->prog);
    s->prog = prog;
    if (s->store) {
        flux_program_use_store(prog, s->store, 0);
        if (flux_learner_start(prog, s->store, NULL, &s->learner) != FLUX_OK)
            s->learner = NULL;
    }
    return FLUX_OK;
}

static int load_file(Session *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "flux: cannot read %s\n", path);
        return FLUX_ERR_USAGE;
    }
    char *text = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&text, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(text);
        text = strdup("");
    }
    Session saved = *s; /* kept whole until FILE is accepted */
    s->blocks = NULL;
    s->n = s->cap = 0;
    s->name = strdup(path);
    split_file(s, s->name, text);
    free(text);
    int status = reload(s);
    Session *drop = status == FLUX_OK ? &saved : s;
    clear_blocks(drop);
    free(drop->blocks);
    free(drop->name);
    if (status != FLUX_OK) { /* the session stays as it was */
        s->blocks = saved.blocks;
        s->n = saved.n;
        s->cap = saved.cap;
        s->name = saved.name;
    }
    return status;
}

/* A block typed: replaces the one of its kind and name, or is added. */
static void define(Session *s, const char *text, int first_line)
{
    Block b = {.text = strdup(text), .origin = "<repl>", .first_line = first_line,
               .lines = count_lines(text)};
    declares(text, b.kind, sizeof(b.kind), b.name, sizeof(b.name));
    size_t at = s->n;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->blocks[i].kind, b.kind) && !strcmp(s->blocks[i].name, b.name))
            at = i;
    Block old = {0};
    if (at < s->n) {
        old = s->blocks[at];
        s->blocks[at] = b;
    } else {
        add_block(s, b);
    }
    if (reload(s) == FLUX_OK) {
        printf("%s %s %s\n", at < s->n && old.text ? "redefined" : "defined", b.kind, b.name);
        free(old.text);
        return;
    }
    /* rejected: as it was */
    free(b.text);
    if (old.text)
        s->blocks[at] = old;
    else
        s->n--;
}

/* ---- commands ---- */

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static FluxRunOptions run_options(Session *s)
{
    (void)s;
    return (FluxRunOptions){.expr_name = "<repl>"};
}

/* The message of a run's error, with the expression's line (1) made the
 * session's, in its position and in its excerpt. */
static void run_diagnostics(Session *s, const char *diag)
{
    for (const char *p = diag; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
        int number, used = 0;
        if (!strncmp(p, "<repl>:1:", 9)) {
            fprintf(stderr, "<repl>:%d:", s->line);
            fwrite(p + 9, 1, len - 9, stderr);
        } else if (sscanf(p, " %d |%n", &number, &used) == 1 && used > 0 && number == 1) {
            int width = (int)(strchr(p, '|') - p) - 1;
            fprintf(stderr, "%*d", width, s->line);
            fwrite(p + width, 1, len - (size_t)width, stderr);
        } else {
            fwrite(p, 1, len, stderr);
        }
        p += len;
    }
}

/* Ctrl-C while a run goes stops the run, not the session. */
static void on_interrupt(int sig)
{
    (void)sig;
    flux_interrupt();
}

static void evaluate(Session *s, const char *expr, bool explain)
{
    struct sigaction stop = {.sa_handler = on_interrupt}, before;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, &before);
    char *diag = NULL;
    size_t diag_len = 0;
    FILE *d = open_memstream(&diag, &diag_len);
    FluxRunOptions opts = run_options(s);
    int status;
    if (explain) {
        MAPPED(s, stdout, status = flux_explain(s->prog, expr, &opts, 0, mem_, d));
    } else {
        FluxResult r;
        status = flux_run(s->prog, expr, &opts, d, &r);
        if (status == FLUX_OK) {
            printf("%s\n", r.text);
            long long id = r.execution_id;
            flux_result_free(&r);
            if (s->store && flux_store_flush(s->store, d) == FLUX_OK && s->learner)
                flux_learner_request(s->learner, id);
        }
    }
    fclose(d);
    sigaction(SIGINT, &before, NULL);
    fflush(stdout);
    run_diagnostics(s, diag);
    free(diag);
}

static void command(Session *s, const char *line)
{
    const char *arg = line + 1;
    size_t n = strcspn(arg, " \t");
    const char *rest = skip_space(arg + n);
    if (s->learner) /* what follows wants the program alone (flux.h, "Threads") */
        flux_learner_wait(s->learner, NULL);
    if (!strncmp(arg, "help", n) && n) {
        fputs(help, stdout);
    } else if (!strncmp(arg, "explain", n) && n > 1) {
        if (*rest)
            evaluate(s, rest, true);
        else
            fprintf(stderr, "flux: :explain EXPR\n");
    } else if (!strncmp(arg, "history", n) && n > 1) {
        flux_history(s->store, s->prog, *rest ? rest : NULL, 0, stdout, stderr);
    } else if (!strncmp(arg, "graph", n) && n) {
        if (*rest)
            MAPPED(s, stdout, flux_graph(s->prog, rest, NULL, "text", mem_, stderr));
        else
            fprintf(stderr, "flux: :graph INTENT\n");
    } else if (!strncmp(arg, "load", n) && n) {
        if (*rest && load_file(s, rest) == FLUX_OK)
            printf("loaded %s\n", rest);
        else if (!*rest)
            fprintf(stderr, "flux: :load FILE\n");
    } else if (!strncmp(arg, "source", n) && n) {
        for (size_t i = 0; i < s->n; i++)
            if (!strcmp(s->blocks[i].origin, "<repl>"))
                fputs(s->blocks[i].text, stdout);
    } else {
        fprintf(stderr, "flux: unknown command `%.*s`; :help lists them\n", (int)n + 1, line);
    }
}

/* ---- input ---- */

/* The next line (without its newline; the caller frees), or NULL at the end. */
static char *next_line(Session *s, const char *prompt)
{
    char *line = NULL;
    if (s->readline) {
        line = s->readline(prompt);
    } else {
        size_t cap = 0;
        if (getline(&line, &cap, stdin) < 0) {
            free(line);
            return NULL;
        }
        line[strcspn(line, "\r\n")] = '\0';
    }
    if (line)
        s->line++;
    return line;
}

static void open_editline(Session *s)
{
    if (!s->tty)
        return;
    void *h = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    *(void **)&s->readline = dlsym(h, "readline");
    *(void **)&s->add_history = dlsym(h, "add_history");
    if (!s->readline || !s->add_history)
        s->readline = NULL;
}

static bool blank(const char *line)
{
    return *skip_space(line) == '\0';
}

static void loop(Session *s)
{
    char *pending = NULL; /* a line read past a block's end */
    for (;;) {
        fflush(stdout);
        char *line = pending ? pending : next_line(s, "flux> ");
        pending = NULL;
        if (!line)
            break;
        if (s->readline && !blank(line))
            s->add_history(line);
        char kind[8], name[128];
        const char *t = skip_space(line);
        if (t == line && declares(line, kind, sizeof(kind), name, sizeof(name))) {
            int first = s->line;
            size_t cap = strlen(line) + 2, len = 0;
            char *block = malloc(cap);
            len = (size_t)sprintf(block, "%s\n", line);
            free(line);
            for (char *more; (more = next_line(s, "  ... ")) != NULL;) {
                if (blank(more)) {
                    free(more);
                    break;
                }
                if (more[0] != ' ' && more[0] != '\t') { /* back at column 0: the next input */
                    pending = more;
                    break;
                }
                if (s->readline)
                    s->add_history(more);
                size_t m = strlen(more);
                if (len + m + 2 > cap)
                    block = realloc(block, cap = 2 * (len + m + 2));
                len += (size_t)sprintf(block + len, "%s\n", more);
                free(more);
            }
            define(s, block, first);
            free(block);
            continue;
        }
        if (*t == ':')
            command(s, t);
        else if (*t && *t != '#' && strncmp(t, "//", 2))
            evaluate(s, t, false);
        free(line);
    }
    if (s->tty)
        putchar('\n');
}

int fx_cmd_repl(int argc, char **argv)
{
    const char *file = NULL, *store_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: flux repl [FILE] [--store DIR]\n\nAn interactive session: "
                   "expressions are run, intents defined or redefined.\n\n%s", help);
            return 0;
        }
        if (!strcmp(argv[i], "--store") && i + 1 < argc)
            store_dir = argv[++i];
        else if (argv[i][0] == '-' || file)
            return fx_cli_usage_error("repl", "unexpected `%s`", argv[i]);
        else
            file = argv[i];
    }
    if (!store_dir)
        store_dir = getenv("FLUX_STORE") ? getenv("FLUX_STORE") : ".flux";
    Session s = {.tty = isatty(0) && isatty(1)};
    s.name = strdup("<repl>");
    if (flux_store_open(store_dir, stderr, &s.store) != FLUX_OK) {
        free(s.name);
        return FLUX_ERR_STORE;
    }
    int status = file ? load_file(&s, file) : reload(&s);
    if (status != FLUX_OK) {
        flux_store_close(s.store, stderr);
        free(s.name);
        return status;
    }
    open_editline(&s);
    if (s.tty)
        printf("Flux %s: %s. :help for help, Ctrl-D to leave.\n", flux_version(),
               file ? file : "no file");
    loop(&s);
    stop_learner(&s);
    clear_blocks(&s);
    free(s.blocks);
    free(s.name);
    return fx_cli_finish(s.prog, s.store, FLUX_OK);
}
