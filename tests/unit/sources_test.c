/*
 * sources_test.c: FluxLoadOptions.sources_inside through the public API.
 * The load checks every source, and each read checks again: a program
 * loaded while its link pointed inside its folder is refused the file
 * once the link points out, by the next run in the same process.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flux.h"
#include "fx_test.h"

static char dir[] = "/tmp/flux-sources-XXXXXX";

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    EXPECT(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* Runs `names()`; its status, and what it wrote to diagnostics in *msg
 * (caller frees), its value in *text. */
static int run(FluxProgram *p, char **msg, char **text)
{
    size_t len = 0;
    FILE *diag = open_memstream(msg, &len);
    FluxResult r;
    int st = flux_run(p, "names()", NULL, diag, &r);
    fclose(diag);
    *text = st == FLUX_OK ? strdup(r.text) : NULL;
    if (st == FLUX_OK)
        flux_result_free(&r);
    return st;
}

FX_TEST(link_changed_after_load)
{
    EXPECT(mkdtemp(dir) != NULL);
    char app[300], link[320], out[320];
    snprintf(app, sizeof(app), "%s/app", dir);
    snprintf(link, sizeof(link), "%s/app/data.csv", dir);
    snprintf(out, sizeof(out), "%s/secret.csv", dir);
    EXPECT_EQ(mkdir(app, 0700), 0);
    write_file("app/items.csv", "name\nmine\n");
    write_file("secret.csv", "name\nsecret\n");
    write_file("app/prog.flux", "type Item = { name: String }\n"
                                "data items: List[Item] from \"data.csv\"\n"
                                "intent names() -> List[String]:\n"
                                "    constraints:\n"
                                "        - result = [i.name for i in items]\n");
    EXPECT_EQ(symlink("items.csv", link), 0);
    char prog[320];
    snprintf(prog, sizeof(prog), "%s/app/prog.flux", dir);
    FluxLoadOptions o = {.sources_inside = 1, .types_only = 1};
    FluxProgram *p = NULL;
    EXPECT_EQ(flux_program_load(prog, &o, stderr, &p), FLUX_OK);
    char *msg = NULL, *text = NULL;
    EXPECT_EQ(run(p, &msg, &text), FLUX_OK);
    EXPECT_STR_EQ(text, "[\"mine\"]");
    free(msg);
    free(text);

    EXPECT_EQ(unlink(link), 0);
    EXPECT_EQ(symlink("../secret.csv", link), 0);
    EXPECT_EQ(run(p, &msg, &text), FLUX_ERR_RUNTIME);
    EXPECT(text == NULL);
    char *real = realpath(out, NULL), *real_app = realpath(app, NULL), want[1024];
    snprintf(want, sizeof(want), "data source `items` reads `%s`, outside the program's folder "
             "`%s`, where its sources must lie", real, real_app);
    EXPECT(msg && strstr(msg, want) != NULL);
    if (msg && !strstr(msg, want))
        fprintf(stderr, "got: %s\nwant: %s\n", msg, want);
    free(msg);
    free(real);
    free(real_app);
    flux_program_free(p);

    // loaded now, with the link pointing out: refused at the load
    size_t len = 0;
    FILE *diag = open_memstream(&msg, &len);
    EXPECT_EQ(flux_program_load(prog, &o, diag, &p), FLUX_ERR_REJECTED);
    fclose(diag);
    EXPECT(msg && strstr(msg, "prog.flux:2:29: error: data source `items` reads `") != NULL);
    free(msg);
    // and read as any program reads without the option
    o.sources_inside = 0;
    EXPECT_EQ(flux_program_load(prog, &o, stderr, &p), FLUX_OK);
    EXPECT_EQ(run(p, &msg, &text), FLUX_OK);
    EXPECT_STR_EQ(text, "[\"secret\"]");
    free(msg);
    free(text);
    flux_program_free(p);
    char rm[300];
    snprintf(rm, sizeof(rm), "rm -rf %s", dir);
    EXPECT_EQ(system(rm), 0);
}

int main(void)
{
    return fx_test_run();
}
