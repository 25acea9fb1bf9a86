/*
 * value_gmp.h: integer values to and from GMP, for the kernels that compute
 * with mpz_t directly. Apart from value.h so that only they see gmp.h.
 */
#ifndef FX_VALUE_GMP_H
#define FX_VALUE_GMP_H

#include <gmp.h>

#include "value.h"

/* Turns z into a value and clears it (an INT when it fits int64). */
FxValue fx_val_int_take_mpz(mpz_t z);
/* Initialises out to the integer v (INT or BIG). */
void fx_val_mpz_init_from(mpz_t out, FxValue v);

#endif
