/*
 * cmd_proofs.c: `flux proofs FILE [PROOF_ID] [--smt|--coq] [--json]`,
 * `flux proofs FILE --check INTENT CANDIDATE` and `flux proofs FILE --verify`.
 *
 * The listing shows the proofs and proposals recorded for FILE's intents,
 * with counterexamples; one proof by id shows its obligations, as SMT-LIB
 * with --smt (what `z3 -in` accepts and answers the same), or the Coq
 * library lemmas with --coq. --check asks the prover whether CANDIDATE, an
 * intent of FILE, is a correct rewrite of INTENT, and records the answer.
 * --verify judges every version by the seals of its proofs and has the
 * prover check each proof again.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux proofs FILE [PROOF_ID] [--smt | --coq] [--json] [--store DIR]\n"
        "       flux proofs FILE --check INTENT CANDIDATE [--store DIR]\n"
        "       flux proofs FILE --verify [--store DIR]\n"
        "\n"
        "Lists the proofs and the proposed rewrites (accepted or rejected, with\n"
        "counterexamples) of FILE's intents. With PROOF_ID, that proof: --smt prints\n"
        "its obligations as SMT-LIB for `z3 -in`, --coq the Coq lemmas it relies on.\n"
        "--check proves (or refutes) that CANDIDATE computes INTENT, and records it;\n"
        "exit 0 when proved, 3 when rejected. --verify judges every version of FILE's\n"
        "intents by the seals that bind its proofs to it and checks each proof again;\n"
        "exit 0 when all hold, 3 when one does not.\n";

int fx_cmd_proofs(int argc, char **argv)
{
    const char *path = NULL, *store_dir = NULL, *check[2] = {NULL, NULL};
    long long id = 0;
    bool smt = false, coq = false, json = false, verify = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--smt")) {
            smt = true;
        } else if (!strcmp(a, "--coq")) {
            coq = true;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--verify")) {
            verify = true;
        } else if (!strcmp(a, "--store") && i + 1 < argc) {
            store_dir = argv[++i];
        } else if (!strcmp(a, "--check") && i + 2 < argc) {
            check[0] = argv[++i];
            check[1] = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return fx_cli_usage_error("proofs", "unknown option or missing value: `%s`", a);
        } else if (!path) {
            path = a;
        } else if (!id) {
            char *end;
            id = strtoll(a[0] == '#' ? a + 1 : a, &end, 10);
            if (*end || id <= 0)
                return fx_cli_usage_error("proofs", "`%s` is not a proof id", a);
        } else {
            return fx_cli_usage_error("proofs", "unexpected argument `%s`", a);
        }
    }
    if (!path)
        return fx_cli_usage_error("proofs", "missing FILE");
    if (smt && coq)
        return fx_cli_usage_error("proofs", "--smt or --coq, not both");
    if (verify && (id || smt || coq || json || check[0]))
        return fx_cli_usage_error("proofs", "--verify takes FILE and --store only");
    if ((smt || coq) && !id)
        return fx_cli_usage_error("proofs", "--smt and --coq show one proof: give its id");
    FluxProgram *prog;
    FluxLoadOptions lo = fx_cli_load_options();
    int status = flux_program_load(path, &lo, stderr, &prog);
    if (status != FLUX_OK)
        return status;
    FluxStore *store;
    status = flux_store_open(store_dir, stderr, &store);
    if (status == FLUX_OK) {
        if (verify)
            status = flux_proofs_verify(store, prog, stdout, stderr);
        else if (check[0])
            status = flux_prove_rewrite(prog, store, check[0], check[1], stdout, stderr);
        else
            status = flux_proofs(store, prog, id, smt, coq, json, stdout, stderr);
        int closed = flux_store_close(store, stderr);
        if (status == FLUX_OK)
            status = closed;
    }
    flux_program_free(prog);
    return status;
}
