/*
 * graph_test.c: v1 graphs of every bundled example: they verify, and JSON
 * printed, read back and printed again is byte-identical, and every node's
 * type id agrees with its type's text; a damaged document is refused with a
 * reason.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "fx_test.h"
#include "lang/program.h"
#include "graph/lower.h"

/* A node's type id names the kind its text starts with; only "?" is
 * unknown, and a word that is no built-in type is a record. */
static void expect_id_agrees(const FxNode *n)
{
    FxTypeIdKind k = fx_typeid_kind(n->tid);
    if (!strcmp(n->type, "?")) {
        EXPECT_EQ(k, FX_TK_UNKNOWN);
        return;
    }
    const char *name = fx_typeid_kind_name(k);
    if (k == FX_TK_RECORD)
        EXPECT(strchr(n->type, '[') == NULL);
    else if (strncmp(n->type, name, strlen(name)) != 0)
        fprintf(stderr, "type %s has the id of a %s\n", n->type, name);
    EXPECT(k == FX_TK_RECORD || strncmp(n->type, name, strlen(name)) == 0);
}

static size_t round_trip_file(const char *path)
{
    FxDiag d = {0};
    FxProgram *prog = fx_program_load(&d, path, NULL);
    size_t checked = 0;
    EXPECT_EQ(fx_diag_errors(&d), 0);
    fx_vec_foreach(FxIntent *, in, &prog->root->intents)
    {
        FxGraph *g = fx_lower_intent(prog, *in);
        char why[256] = "";
        EXPECT(fx_graph_verify(g, why, sizeof(why)));
        for (uint32_t i = 0; i < g->n_nodes; i++)
            expect_id_agrees(&g->nodes[i]);
        FxBuf a = {0}, b = {0};
        fx_graph_print_json(g, &a);
        FxGraph *back = fx_graph_read_json(fx_buf_str(&a), why, sizeof(why));
        EXPECT(back != NULL);
        if (back) {
            fx_graph_print_json(back, &b);
            EXPECT_STR_EQ(fx_buf_str(&b), fx_buf_str(&a));
            FxBuf ta = {0}, tb = {0};
            fx_graph_print_text(g, &ta);
            fx_graph_print_text(back, &tb);
            EXPECT_STR_EQ(fx_buf_str(&tb), fx_buf_str(&ta));
            fx_buf_free(&ta);
            fx_buf_free(&tb);
        }
        fx_buf_free(&a);
        fx_buf_free(&b);
        fx_graph_free(back);
        fx_graph_free(g);
        checked++;
    }
    fx_program_free(prog);
    fx_diag_free(&d);
    return checked;
}

FX_TEST(json_round_trip_of_every_example)
{
    const char *dirs[] = {"examples", "tests/lang/ok"};
    size_t graphs = 0;
    for (size_t k = 0; k < 2; k++) {
        DIR *dir = opendir(dirs[k]);
        EXPECT(dir != NULL);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            size_t n = strlen(e->d_name);
            if (n < 6 || strcmp(e->d_name + n - 5, ".flux") != 0)
                continue;
            char path[512];
            snprintf(path, sizeof(path), "%s/%s", dirs[k], e->d_name);
            graphs += round_trip_file(path);
        }
        if (dir)
            closedir(dir);
    }
    EXPECT(graphs >= 20);
}

FX_TEST(type_ids)
{
    FxTypeId t = fx_typeid_parse("List[List[Natural]]");
    EXPECT_EQ(fx_typeid_kind(t), FX_TK_LIST);
    EXPECT_EQ(fx_typeid_kind(fx_typeid_elem(t)), FX_TK_LIST);
    EXPECT_EQ(fx_typeid_kind(fx_typeid_elem(fx_typeid_elem(t))), FX_TK_NATURAL);
    EXPECT(!fx_typeid_has_float(t));
    EXPECT_EQ(fx_typeid_machine(fx_typeid_elem(fx_typeid_elem(t))), FX_MT_INTEGER);
    /* a matrix's element is Float unless its third argument names one; its
     * sizes may hold commas inside brackets */
    EXPECT_EQ(fx_typeid_kind(fx_typeid_elem(fx_typeid_parse("Matrix[n, n]"))), FX_TK_FLOAT);
    EXPECT_EQ(fx_typeid_kind(fx_typeid_elem(fx_typeid_parse("Matrix[len(u), len(v), Int]"))),
              FX_TK_INT);
    EXPECT_EQ(fx_typeid_kind(fx_typeid_elem(fx_typeid_parse("Matrix[f(a, b), 2]"))), FX_TK_FLOAT);
    EXPECT(fx_typeid_has_float(fx_typeid_parse("List[Matrix[2, 2]]")));
    EXPECT_EQ(fx_typeid_kind(fx_typeid_parse("Stream[Particle]")), FX_TK_STREAM);
    EXPECT_EQ(fx_typeid_kind(fx_typeid_elem(fx_typeid_parse("Stream[Particle]"))), FX_TK_RECORD);
    EXPECT_EQ(fx_typeid_kind(fx_typeid_parse("Floating")), FX_TK_RECORD);
    EXPECT_EQ(fx_typeid_kind(fx_typeid_parse("?")), FX_TK_UNKNOWN);
    EXPECT(fx_typeid_is_exact_key(fx_typeid_parse("String")));
    EXPECT(!fx_typeid_is_exact_key(fx_typeid_parse("Float")));
    /* nesting past eight levels reads as unknown below the eighth */
    t = fx_typeid_parse("List[List[List[List[List[List[List[List[List[Int]]]]]]]]]");
    for (int i = 0; i < 8; i++, t = fx_typeid_elem(t))
        EXPECT_EQ(fx_typeid_kind(t), FX_TK_LIST);
    EXPECT_EQ(fx_typeid_kind(t), FX_TK_UNKNOWN);
}

FX_TEST(damaged_json_is_refused)
{
    char why[256];
    EXPECT(fx_graph_read_json("{", why, sizeof(why)) == NULL);
    EXPECT(fx_graph_read_json("{\"format\": \"other\"}", why, sizeof(why)) == NULL);
    /* a node that reads a later node breaks the dependency order */
    const char *bad = "{\"format\": \"flux-graph-1\", \"intent\": \"f\", \"version\": \"v1\", "
                      "\"params\": [], \"returns\": \"Int\", \"slots\": 0, \"root\": 1, "
                      "\"nodes\": [{\"id\": 1, \"op\": \"neg\", \"type\": \"Int\", \"inputs\": "
                      "[2], \"text\": null, \"num\": 0, \"num2\": 0, \"origin\": null}]}";
    EXPECT(fx_graph_read_json(bad, why, sizeof(why)) == NULL);
    EXPECT(strstr(why, "node 1") != NULL);
}

FX_TEST(lowering_keeps_origins)
{
    FxDiag d = {0};
    FxProgram *prog = fx_program_load(&d, "examples/fibonacci.flux", NULL);
    FxGraph *g = fx_lower_intent(prog, prog->root->intents.data[0]);
    size_t with_origin = 0, calls = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        with_origin += g->nodes[i].origin.file != NULL;
        calls += g->nodes[i].op == FX_NODE_CALL;
    }
    EXPECT_EQ(with_origin, g->n_nodes);
    EXPECT_EQ(calls, 2); /* fib(n-1) + fib(n-2) */
    fx_graph_free(g);
    fx_program_free(prog);
    fx_diag_free(&d);
}

int main(void)
{
    return fx_test_run();
}
