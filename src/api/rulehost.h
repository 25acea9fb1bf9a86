/*
 * rulehost.h: what the learning round lends its rules (opt/rule.h):
 * running, timing and lowering graphs of one program, for one intent.
 * Every run is made with internal calls on a runtime named explicitly,
 * records nothing and learns nothing. Private to src/api.
 */
#ifndef FX_API_RULEHOST_H
#define FX_API_RULEHOST_H

#include "api_int.h"
#include "opt/rule.h"

typedef struct FxApiRuleHost {
    FxRuleHost host; /* host.ctx is this */
    FluxProgram *fp;
    const char *intent;
    FX_VEC(FxGraph *) lowered; /* host.lower's, freed with the host */
} FxApiRuleHost;

/* The host of a round of intent in fp (whose proof cache it lends). */
void fx_api_rule_host_init(FxApiRuleHost *h, FluxProgram *fp, const char *intent);
void fx_api_rule_host_free(FxApiRuleHost *h);

#endif
