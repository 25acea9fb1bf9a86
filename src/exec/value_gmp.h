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
/* The price of a product of an la-limb by an lb-limb integer, as value.c
 * asks the meter for it (value.c, "what big-number work costs"): its work
 * in units of about a nanosecond, and the bytes of its result and scratch. */
void fx_val_mul_cost(uint64_t la, uint64_t lb, uint64_t *out_units, uint64_t *out_bytes);

#endif
