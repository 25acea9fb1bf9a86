/*
 * fault.h: the test-only fault switch (docs/testing.md). With
 * FLUX_TEST_FAULT=kernel:sort in the environment, the sort kernel's result
 * comes back corrupted, so that tests/cli/validation.sh can show run-time
 * validation catching a wrong kernel and rolling its version back. No one
 * sets a variable of that name by accident, and nothing else reads it.
 */
#ifndef FX_FAULT_H
#define FX_FAULT_H

#include "exec/value.h"

/* At a fault site ("kernel:sort"): when the switch names it, *v (a
 * kernel's result, owned) is replaced: a list reversed, an integer plus 1. */
void fx_fault_inject(const char *site, FxValue *v);

#endif
