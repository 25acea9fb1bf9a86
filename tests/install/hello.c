/* hello.c: a program built against an installed libflux with pkg-config
 * (tests/cli/install.sh): fibonacci(100), then its explanation. */
#include <flux.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: hello FILE STORE\n");
        return 2;
    }
    FluxProgram *prog;
    FluxStore *store;
    int st = flux_program_load(argv[1], NULL, stderr, &prog);
    if (st != FLUX_OK)
        return st;
    if ((st = flux_store_open(argv[2], stderr, &store)) != FLUX_OK)
        return st;
    flux_program_use_store(prog, store, 0);
    FluxResult r;
    if ((st = flux_run(prog, "fibonacci(100)", NULL, stderr, &r)) != FLUX_OK)
        return st;
    printf("%s\n", r.text);
    flux_result_free(&r);
    if ((st = flux_store_flush(store, stderr)) == FLUX_OK)
        st = flux_explain(prog, "fibonacci(100)", NULL, 0, stdout, stderr);
    flux_store_close(store, stderr);
    flux_program_free(prog);
    printf("libflux %s\n", flux_version());
    return st;
}
