/*
 * result.c: reading an execution record back as JSON, for clients of the
 * API (the CLI's notes), so that none of them scans the text itself.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

static char *string_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? fx_xstrdup(s) : NULL;
}

int flux_record_summary(const char *json, FluxRecordSummary *out)
{
    memset(out, 0, sizeof(*out));
    json_t *o = json ? json_loads(json, 0, NULL) : NULL;
    if (!json_is_object(o)) {
        json_decref(o);
        return FLUX_ERR_USAGE;
    }
    out->intent = string_of(o, "intent");
    out->version = string_of(o, "graph_version");
    if (out->intent) {
        FxBuf b = {0};
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(o, "optimizations_applied"), i, r)
        {
            if (json_is_string(r))
                fx_buf_printf(&b, "%s%s", b.len ? ", " : "", json_string_value(r));
        }
        out->rewrites = fx_xstrdup(fx_buf_str(&b)); /* "" for none */
        fx_buf_free(&b);
    }
    json_decref(o);
    return FLUX_OK;
}

void flux_record_summary_free(FluxRecordSummary *s)
{
    free(s->intent);
    free(s->version);
    free(s->rewrites);
    memset(s, 0, sizeof(*s));
}
