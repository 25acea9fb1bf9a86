/*
 * rules.c: the table of rules the learning round tries, in order (the
 * order of a store whose proposer has learned nothing, opt/proposer.h):
 * from the smallest departure from the running version to the largest. The same
 * computation with fewer nodes; the same graph and a table; the recurrence
 * by a loop; a new algorithm beside the loop; a node run by a data kernel
 * (the sort, the sieve, then the registry's kernels, each a turn);
 * results kept while the data files are unchanged; a table of recurring
 * arguments' results in front of it all; a fold fused with the list it
 * folds; records read where they are built kept as scalars. Inline expansion comes last: it changes the shapes the others
 * match, so it waits until none applies.
 * Adding a rule is its file (docs/extending.md) and one line here.
 */
#include "rule.h"

#define FX_RULES(X)                                                                              \
    X(fx_rule_simplify)                                                                          \
    X(fx_rule_memo)                                                                              \
    X(fx_rule_iteration)                                                                         \
    X(fx_rule_power)                                                                             \
    X(fx_rule_sort)                                                                              \
    X(fx_rule_sieve)                                                                             \
    X(fx_rule_kernels)                                                                           \
    X(fx_rule_materialise)                                                                       \
    X(fx_rule_hot)                                                                               \
    X(fx_rule_fuse)                                                                              \
    X(fx_rule_scalar)                                                                            \
    X(fx_rule_hoist)                                                                             \
    X(fx_rule_inline)                                                                            \
    /* one line a rule, each ending in a backslash */

#define DECLARE(rule) extern const FxRule rule;
#define ENTRY(rule) &rule,
FX_RULES(DECLARE)

const FxRule *const fx_rules[] = {FX_RULES(ENTRY)};
const size_t fx_rules_count = sizeof(fx_rules) / sizeof(fx_rules[0]);
