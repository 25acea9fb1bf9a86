/*
 * base_test.c: what src/base/ gives every layer: the one hash (FNV-1a, with
 * its published test vectors), the one general stable sort, and the error
 * record with its JSON form.
 */
#include <jansson.h>
#include <stdlib.h>

#include "base/dynlib.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/sort.h"
#include "fx_test.h"

FX_TEST(fnv1a_matches_the_published_vectors)
{
    EXPECT(fx_fnv1a(FX_FNV_BASIS, "", 0) == 0xcbf29ce484222325ULL);
    EXPECT(fx_fnv1a(FX_FNV_BASIS, "a", 1) == 0xaf63dc4c8601ec8cULL);
    EXPECT(fx_fnv1a(FX_FNV_BASIS, "foobar", 6) == 0x85944171f73967e8ULL);
    /* folding in pieces is folding the whole */
    EXPECT(fx_fnv1a(fx_fnv1a(FX_FNV_BASIS, "foo", 3), "bar", 3) ==
           fx_fnv1a(FX_FNV_BASIS, "foobar", 6));
}

typedef struct Item {
    int key, order; /* order: where it was, to see stability */
} Item;

static int by_key(void *ctx, const void *a, const void *b)
{
    int ka = ((const Item *)a)->key, kb = ((const Item *)b)->key;
    if (ctx && (ka < 0 || kb < 0))
        return FX_SORT_UNORDERED;
    return (ka > kb) - (ka < kb);
}

FX_TEST(merge_sort_is_stable_for_every_length)
{
    for (size_t n = 0; n < 70; n++) {
        Item *it = malloc((n + 1) * sizeof(Item));
        for (size_t i = 0; i < n; i++)
            it[i] = (Item){(int)((i * 7919) % 5), (int)i};
        EXPECT(fx_merge_sort(it, n, sizeof(Item), by_key, NULL));
        for (size_t i = 1; i < n; i++) {
            EXPECT(it[i - 1].key <= it[i].key);
            if (it[i - 1].key == it[i].key)
                EXPECT(it[i - 1].order < it[i].order);
        }
        free(it);
    }
}

FX_TEST(merge_sort_stops_on_elements_without_an_order)
{
    Item it[9];
    for (int i = 0; i < 9; i++)
        it[i] = (Item){i == 6 ? -1 : 9 - i, i};
    EXPECT(!fx_merge_sort(it, 9, sizeof(Item), by_key, &(int){1}));
    int seen = 0; /* still a permutation of what it held */
    for (int i = 0; i < 9; i++)
        seen |= 1 << it[i].order;
    EXPECT_EQ(seen, 0x1ff);
}

/* The record's JSON form, as a web API returns it; freed. */
static char *dumped(json_t *j)
{
    char *s = json_dumps(j, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(j);
    return s;
}

FX_TEST(error_records_turn_into_json)
{
    FxError e;
    fx_error_set(&e, FX_ERR_USAGE, "no intent `%s`", "fob");
    char *s = dumped(fx_error_json(&e));
    EXPECT_STR_EQ(s, "{\"status\":\"usage\",\"code\":2,\"message\":\"no intent `fob`\"}");
    free(s);
    /* a run-time error at a node, with its place and a message to escape */
    fx_error_set(&e, FX_ERR_RUNTIME, "fib.flux:3:9: in `fib`: \"x\" is\tbad");
    e.file = "fib.flux", e.line = 3, e.col = 9, e.len = 5, e.graph = "fib", e.node = 12;
    s = dumped(fx_error_json(&e));
    EXPECT_STR_EQ(s, "{\"status\":\"runtime\",\"code\":1,"
                     "\"message\":\"fib.flux:3:9: in `fib`: \\\"x\\\" is\\tbad\","
                     "\"at\":{\"file\":\"fib.flux\",\"line\":3,\"col\":9,\"len\":5},"
                     "\"node\":{\"graph\":\"fib\",\"id\":12}}");
    free(s);
    fx_error_clear(&e);
    EXPECT_EQ(e.status, FX_OK);
    EXPECT_STR_EQ(fx_status_name(FX_ERR_REJECTED), "rejected");
    EXPECT_STR_EQ(fx_status_name(FX_ERR_STORE), "store");
}

FX_TEST(diagnostics_turn_into_error_records)
{
    FxDiag d = {0};
    const char *text = "intent f() -> Nat:\n  x\n";
    FxSource *src = fx_diag_add_source(&d, "a.flux", text, strlen(text));
    FxDiagItem *it = fx_diag_error(&d, (FxSpan){src, 14, 3}, "unknown type `%s`", "Nat");
    fx_diag_note(&d, it, (FxSpan){0}, "did you mean `Natural`?");
    fx_diag_warning(&d, (FxSpan){src, 21, 1}, "unused");
    char *s = dumped(fx_diag_json(&d));
    EXPECT_STR_EQ(s, "[{\"status\":\"rejected\",\"code\":3,\"message\":\"unknown type `Nat`\","
                     "\"at\":{\"file\":\"a.flux\",\"line\":1,\"col\":15,\"len\":3},"
                     "\"level\":\"error\",\"notes\":[{\"status\":\"rejected\",\"code\":3,"
                     "\"message\":\"did you mean `Natural`?\",\"level\":\"note\"}]},"
                     "{\"status\":\"ok\",\"code\":0,\"message\":\"unused\","
                     "\"at\":{\"file\":\"a.flux\",\"line\":2,\"col\":3,\"len\":1},"
                     "\"level\":\"warning\"}]");
    free(s);
    fx_diag_free(&d);
}

FX_TEST(dynlib_says_what_is_missing)
{
    char why[512];
    void *fns[1];
    const char *absent[] = {"fx_no_such_function"}, *present[] = {"strlen"};
    EXPECT(!fx_dynlib_load("Z3", "libflux-absent.so.4", present, fns, 1, why, sizeof(why)));
    EXPECT(strstr(why, "Z3 (libflux-absent.so.4) is not installed: ") == why);
    EXPECT(!fx_dynlib_load("libc", "libc.so.6", absent, fns, 1, why, sizeof(why)));
    EXPECT(strstr(why, "libc (libc.so.6) has no fx_no_such_function: ") == why);
    EXPECT(fx_dynlib_load("libc", "libc.so.6", present, fns, 1, why, sizeof(why)));
    EXPECT(fns[0] != NULL);
}

int main(void)
{
    return fx_test_run();
}
