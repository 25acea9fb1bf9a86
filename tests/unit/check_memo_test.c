/*
 * check_memo_test.c: the solver's part of a check, remembered
 * (lang/check_memo.h): the key covers every source (the prelude too), the
 * options and the build; a replayed memo gives what the solver gave; a
 * memo that does not fit is ignored.
 */
#include <stdlib.h>

#include "fx_test.h"
#include "lang/check_memo.h"

static const char program[] = "intent f(n: Natural) -> Natural:\n"
                              "    constraints:\n"
                              "        - f(0) = 0\n"
                              "        - f(n) = f(n - 1) + 2\n"
                              "    properties:\n"
                              "        - monotone\n"
                              "intent g(a: Int, b: Int) -> Int:\n"
                              "    constraints:\n"
                              "        - result = a * b + 1\n"
                              "    properties:\n"
                              "        - commutative\n";

typedef struct {
    FxDiag diag;
    FxProgram *prog;
    char *rendered; /* the diagnostics as the CLI prints them */
} Loaded;

static char *recall_text(void *ctx, const char *key)
{
    (void)key;
    return ctx ? strdup(ctx) : NULL;
}

static Loaded *load(const char *text, const char *salt, const char *memo)
{
    Loaded *l = calloc(1, sizeof(*l));
    FxCheckOptions o = {.salt = salt, .recall = recall_text, .recall_ctx = (void *)memo};
    l->prog = fx_program_load_text(&l->diag, "m.flux", text, strlen(text), &o);
    size_t len;
    FILE *f = open_memstream(&l->rendered, &len);
    fx_diag_render(&l->diag, f);
    fclose(f);
    return l;
}

static void done(Loaded *l)
{
    fx_program_free(l->prog);
    fx_diag_free(&l->diag);
    free(l->rendered);
    free(l);
}

static const FxProperty *property(const Loaded *l, size_t intent)
{
    return l->prog->root->intents.data[intent]->properties.data[0];
}

FX_TEST(key_covers_sources_options_and_build)
{
    Loaded *a = load(program, "build-1", NULL), *b = load(program, "build-1", NULL);
    EXPECT_STR_EQ(a->prog->check_key, b->prog->check_key);
    EXPECT_EQ(strlen(a->prog->check_key), 32);
    Loaded *other_build = load(program, "build-2", NULL);
    EXPECT(strcmp(a->prog->check_key, other_build->prog->check_key) != 0);
    char edited[sizeof(program) + 8];
    snprintf(edited, sizeof(edited), "%s\n", program);
    Loaded *other_text = load(edited, "build-1", NULL);
    EXPECT(strcmp(a->prog->check_key, other_text->prog->check_key) != 0);
    /* the prelude is a source like the others: a changed one is a new key */
    char key[33];
    FxCheckOptions o = {.salt = "build-1"};
    FxSource *prelude = (FxSource *)b->prog->prelude->src;
    prelude->text[0] ^= 1;
    fx_check_memo_key(b->prog, &o, key);
    EXPECT(strcmp(a->prog->check_key, key) != 0);
    prelude->text[0] ^= 1;
    fx_check_memo_key(b->prog, &o, key);
    EXPECT_STR_EQ(a->prog->check_key, key);
    o.smt_timeout_ms = 10;
    fx_check_memo_key(b->prog, &o, key);
    EXPECT(strcmp(a->prog->check_key, key) != 0);
    done(a);
    done(b);
    done(other_build);
    done(other_text);
}

FX_TEST(replay_gives_what_the_solver_gave)
{
    Loaded *fresh = load(program, "b", NULL);
    EXPECT(!fresh->prog->check_recalled);
    EXPECT(fresh->prog->check_memo != NULL);
    EXPECT_EQ(fx_diag_warnings(&fresh->diag), 1); /* monotone: kept as an assumption */
    Loaded *warm = load(program, "b", fresh->prog->check_memo);
    EXPECT(warm->prog->check_recalled);
    EXPECT(warm->prog->check_memo == NULL); /* nothing new to keep */
    EXPECT_STR_EQ(warm->rendered, fresh->rendered);
    for (size_t i = 0; i < 2; i++) {
        EXPECT_EQ(property(warm, i)->verdict, property(fresh, i)->verdict);
        EXPECT_STR_EQ(property(warm, i)->reason, property(fresh, i)->reason);
    }
    EXPECT_EQ(property(warm, 1)->verdict, FX_VERDICT_HOLDS);
    done(fresh);
    done(warm);
}

FX_TEST(a_memo_that_does_not_fit_is_ignored)
{
    Loaded *fresh = load(program, "b", NULL);
    const char *damaged[] = {"not json", "[1, 2, 3]", "[{\"v\": [], \"d\": []}]",
                             "[null, null, null, null, null, null, null, null, null, null, "
                             "{\"v\": [[1, null]], \"d\": [[1, 99, 0, 1, \"x\", []]]}]"};
    for (size_t i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
        Loaded *l = load(program, "b", damaged[i]);
        EXPECT(!l->prog->check_recalled);
        EXPECT_STR_EQ(l->rendered, fresh->rendered);
        EXPECT(l->prog->check_memo != NULL);
        done(l);
    }
    done(fresh);
}

FX_TEST(no_salt_no_memo)
{
    Loaded *l = load(program, NULL, NULL);
    EXPECT_STR_EQ(l->prog->check_key, "");
    EXPECT(l->prog->check_memo == NULL);
    done(l);
}

int main(void)
{
    return fx_test_run();
}
