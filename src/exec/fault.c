/*
 * fault.c: see fault.h.
 */
#include "fault.h"

#include <stdlib.h>
#include <string.h>

void fx_fault_inject(const char *site, FxValue *v)
{
    const char *fault = getenv("FLUX_TEST_FAULT");
    if (!fault || strcmp(fault, site) != 0)
        return;
    if (v->kind == FX_VAL_INT && v->u.i < INT64_MAX) {
        v->u.i++;
    } else if (v->kind == FX_VAL_LIST) {
        size_t n = fx_val_list_len(*v);
        FxValue *items = fx_xmalloc((n + 1) * sizeof(FxValue));
        for (size_t i = 0; i < n; i++)
            items[i] = fx_val_list_at(*v, n - 1 - i);
        FxValue reversed = fx_val_list(items, n);
        free(items);
        fx_value_release(*v);
        *v = reversed;
    }
}
