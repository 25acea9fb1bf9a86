/*
 * diag.c: loading sources, recording diagnostics, rendering them.
 *
 * Diagnostics are kept, not printed, so that all of them can be sorted by
 * position (the checker finds problems in a different order from the
 * parser) and so that a library caller decides where they go. Identical
 * diagnostics at the same span are reported once.
 */
#include "diag.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static bool is_continuation_byte(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

static void index_lines(FxSource *src)
{
    size_t cap = 64;
    src->line_starts = fx_xmalloc(cap * sizeof(uint32_t));
    src->n_lines = 0;
    src->line_starts[src->n_lines++] = 0;
    for (size_t i = 0; i < src->len; i++) {
        if (src->text[i] != '\n')
            continue;
        if (src->n_lines == cap) {
            cap *= 2;
            src->line_starts = fx_xrealloc(src->line_starts, cap * sizeof(uint32_t));
        }
        src->line_starts[src->n_lines++] = (uint32_t)(i + 1);
    }
    /* Columns count characters, not bytes; counting from the line's start
     * for every node of a long one-line EXPR was quadratic. */
    src->cols = fx_xmalloc((src->len / FX_DIAG_COL_STEP + 1) * sizeof(uint32_t));
    uint32_t col = 1;
    for (size_t i = 0; i <= src->len; i++) {
        if (i % FX_DIAG_COL_STEP == 0)
            src->cols[i / FX_DIAG_COL_STEP] = col;
        if (i < src->len)
            col = src->text[i] == '\n' ? 1 : col + !is_continuation_byte(src->text[i]);
    }
}

FxSource *fx_diag_add_source(FxDiag *d, const char *path, const char *text, size_t len)
{
    FxSource *src = fx_xcalloc(1, sizeof(*src));
    src->path = fx_xstrdup(path);
    src->text = fx_xstrndup(text, len);
    src->len = len;
    index_lines(src);
    fx_vec_push(&d->sources, src);
    return src;
}

FxSource *fx_diag_load_file(FxDiag *d, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        FxSpan none = {0};
        fx_diag_error(d, none, "cannot read `%s`: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[8192];
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (len + n > cap) {
            cap = (len + n) * 2;
            text = fx_xrealloc(text, cap);
        }
        memcpy(text + len, chunk, n);
        len += n;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        FxSpan none = {0};
        fx_diag_error(d, none, "cannot read `%s`", path);
        return NULL;
    }
    FxSource *src = fx_diag_add_source(d, path, text ? text : "", len);
    free(text);
    return src;
}

static FxDiagItem *make_item(FxDiag *d, FxDiagLevel level, FxSpan span, const char *fmt,
                             va_list ap)
{
    FxDiagItem *it = fx_xcalloc(1, sizeof(*it));
    it->level = level;
    it->span = span;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    it->message = fx_xmalloc((size_t)(n > 0 ? n : 0) + 1);
    vsnprintf(it->message, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    it->seq = d->seq++;
    return it;
}

static bool same_item(const FxDiagItem *a, const FxDiagItem *b)
{
    return a->level == b->level && a->span.src == b->span.src &&
           a->span.offset == b->span.offset && strcmp(a->message, b->message) == 0;
}

static void free_item(FxDiagItem *it)
{
    while (it) {
        FxDiagItem *next = it->next_note;
        free_item(it->notes);
        free(it->message);
        free(it);
        it = next;
    }
}

static FxDiagItem *add_item(FxDiag *d, FxDiagItem *it)
{
    fx_vec_foreach(FxDiagItem *, old, &d->items)
    {
        if (same_item(*old, it)) {
            free_item(it);
            return *old;
        }
    }
    fx_vec_push(&d->items, it);
    if (it->level == FX_DIAG_ERROR)
        d->n_errors++;
    else
        d->n_warnings++;
    return it;
}

FxDiagItem *fx_diag_error(FxDiag *d, FxSpan span, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    FxDiagItem *it = make_item(d, FX_DIAG_ERROR, span, fmt, ap);
    va_end(ap);
    return add_item(d, it);
}

FxDiagItem *fx_diag_warning(FxDiag *d, FxSpan span, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    FxDiagItem *it = make_item(d, FX_DIAG_WARNING, span, fmt, ap);
    va_end(ap);
    return add_item(d, it);
}

void fx_diag_note(FxDiag *d, FxDiagItem *parent, FxSpan span, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    FxDiagItem *it = make_item(d, FX_DIAG_NOTE, span, fmt, ap);
    va_end(ap);
    FxDiagItem **tail = &parent->notes;
    while (*tail) {
        if (same_item(*tail, it)) {
            free_item(it);
            return;
        }
        tail = &(*tail)->next_note;
    }
    *tail = it;
}

size_t fx_diag_errors(const FxDiag *d)
{
    return d->n_errors;
}

size_t fx_diag_warnings(const FxDiag *d)
{
    return d->n_warnings;
}

void fx_diag_position(const FxSource *src, uint32_t offset, size_t *out_line, size_t *out_col)
{
    size_t lo = 0, hi = src->n_lines;
    while (hi - lo > 1) { /* the last line start <= offset */
        size_t mid = (lo + hi) / 2;
        if (src->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    size_t col = 1, from = src->line_starts[lo];
    size_t mark = (offset < src->len ? offset : src->len) / FX_DIAG_COL_STEP * FX_DIAG_COL_STEP;
    if (mark > from) {
        col = src->cols[mark / FX_DIAG_COL_STEP];
        from = mark;
    }
    for (size_t i = from; i < offset && i < src->len; i++)
        if (!is_continuation_byte(src->text[i]))
            col++;
    *out_line = lo + 1;
    *out_col = col;
}

static const char *level_name(FxDiagLevel level)
{
    switch (level) {
    case FX_DIAG_ERROR:
        return "error";
    case FX_DIAG_WARNING:
        return "warning";
    case FX_DIAG_NOTE:
        return "note";
    }
    return "error";
}

/* The source line of the span, then a caret under its first character and
 * tildes under the rest of it (up to the end of the line). Tabs in the line
 * are echoed in the caret line so that the caret stays aligned. */
static void render_snippet(const FxSpan *sp, size_t line, FILE *out)
{
    const FxSource *src = sp->src;
    uint32_t start = src->line_starts[line - 1];
    uint32_t end = start;
    while (end < src->len && src->text[end] != '\n')
        end++;
    uint32_t line_end = end;
    if (line_end > start && src->text[line_end - 1] == '\r')
        line_end--;
    fprintf(out, "%5zu | ", line);
    for (uint32_t i = start; i < line_end; i++) {
        unsigned char c = (unsigned char)src->text[i];
        /* control bytes would garble the terminal; each is one column */
        fputc((c < 0x20 && c != '\t') || c == 0x7F ? '?' : c, out);
    }
    fputc('\n', out);
    fprintf(out, "      | ");
    for (uint32_t i = start; i < sp->offset && i < line_end; i++) {
        if (is_continuation_byte(src->text[i]))
            continue;
        fputc(src->text[i] == '\t' ? '\t' : ' ', out);
    }
    fputc('^', out);
    uint32_t span_end = sp->offset + sp->len;
    bool first = true;
    for (uint32_t i = sp->offset; i < span_end && i < line_end; i++) {
        if (is_continuation_byte(src->text[i]))
            continue;
        if (!first)
            fputc('~', out);
        first = false;
    }
    fputc('\n', out);
}

static void render_item(const FxDiagItem *it, FILE *out)
{
    if (!it->span.src) {
        fprintf(out, "flux: %s: %s\n", level_name(it->level), it->message);
    } else {
        size_t line, col;
        fx_diag_position(it->span.src, it->span.offset, &line, &col);
        fprintf(out, "%s:%zu:%zu: %s: %s\n", it->span.src->path, line, col,
                level_name(it->level), it->message);
        render_snippet(&it->span, line, out);
    }
    for (const FxDiagItem *n = it->notes; n; n = n->next_note)
        render_item(n, out);
}

/* Sorting key: the source's load order, then the offset, then emission. */
typedef struct SortKey {
    size_t source, offset, seq;
    const FxDiagItem *item;
} SortKey;

static int compare_keys(const void *pa, const void *pb)
{
    const SortKey *a = pa, *b = pb;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static size_t source_index(const FxDiag *d, const FxSource *src)
{
    for (size_t i = 0; src && i < d->sources.len; i++)
        if (d->sources.data[i] == src)
            return i + 1;
    return 0; /* no position: first */
}

/* The items in the order they are shown; caller frees. */
static SortKey *sorted_items(const FxDiag *d)
{
    SortKey *keys = fx_xmalloc((d->items.len ? d->items.len : 1) * sizeof(*keys));
    for (size_t i = 0; i < d->items.len; i++) {
        const FxDiagItem *it = d->items.data[i];
        keys[i] = (SortKey){source_index(d, it->span.src), it->span.offset, it->seq, it};
    }
    qsort(keys, d->items.len, sizeof(*keys), compare_keys);
    return keys;
}

void fx_diag_render(const FxDiag *d, FILE *out)
{
    if (d->items.len == 0)
        return;
    SortKey *keys = sorted_items(d);
    for (size_t i = 0; i < d->items.len; i++)
        render_item(keys[i].item, out);
    free(keys);
}

/* An item as an error record: an error rejects the program, a warning or
 * a note does not. */
static json_t *item_json(const FxDiagItem *it, FxStatus status)
{
    FxError e;
    fx_error_set(&e, status, "%s", it->message);
    fx_error_at_span(&e, it->span);
    json_t *j = fx_error_json(&e);
    json_object_set_new(j, "level", json_string(level_name(it->level)));
    if (it->notes) {
        json_t *notes = json_array();
        for (const FxDiagItem *n = it->notes; n; n = n->next_note)
            json_array_append_new(notes, item_json(n, status));
        json_object_set_new(j, "notes", notes);
    }
    return j;
}

json_t *fx_diag_json(const FxDiag *d)
{
    json_t *all = json_array();
    SortKey *keys = sorted_items(d);
    for (size_t i = 0; i < d->items.len; i++) {
        const FxDiagItem *it = keys[i].item;
        json_array_append_new(all, item_json(it, it->level == FX_DIAG_ERROR ? FX_ERR_REJECTED : FX_OK));
    }
    free(keys);
    return all;
}

FxSpan fx_span_join(FxSpan a, FxSpan b)
{
    if (!a.src)
        return b;
    if (!b.src || a.src != b.src || b.offset + b.len < a.offset)
        return a;
    FxSpan s = a;
    s.len = b.offset + b.len - a.offset;
    return s;
}

void fx_diag_free(FxDiag *d)
{
    fx_vec_foreach(FxDiagItem *, it, &d->items) free_item(*it);
    fx_vec_free(&d->items);
    fx_vec_foreach(FxSource *, src, &d->sources)
    {
        free((*src)->path);
        free((*src)->text);
        free((*src)->line_starts);
        free((*src)->cols);
        free(*src);
    }
    fx_vec_free(&d->sources);
}
