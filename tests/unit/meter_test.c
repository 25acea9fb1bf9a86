/*
 * meter_test.c: the run's meter (src/exec/meter.h). Every charge is
 * credited when its value is freed, GMP's allocations included, so that
 * `live` comes back to where it was; and an operation the budgets cannot
 * afford is refused before it runs, with the budget's message.
 */
#include <string.h>

#include "exec/meter.h"
#include "exec/value.h"
#include "exec/value_gmp.h"
#include "fx_test.h"

static FxValue big(const char *decimal)
{
    return fx_val_int_text(decimal);
}

/* 10^e, computed by the value layer. */
static FxValue ten_to(int64_t e)
{
    FxValue out;
    FxError err;
    bool ok = fx_val_pow(fx_val_int(10), fx_val_int(e), &out, &err);
    EXPECT(ok);
    return ok ? out : fx_val_int(0);
}

FX_TEST(every_charge_is_credited)
{
    fx_meter_install();
    int64_t before = fx_meter_state.live;
    FxError err;
    FxValue a = big("123456789012345678901234567890"), b = ten_to(100000), c, d, e;
    EXPECT(fx_meter_state.live > before);
    EXPECT(fx_val_mul(a, b, &c, &err));
    EXPECT(fx_val_mod(c, a, &d, &err));
    EXPECT(fx_val_pow(a, fx_val_int(50000), &e, &err)); /* a squaring at a time */
    FxValue s = fx_val_string("abc", 3), t;
    EXPECT(fx_val_concat(s, s, &t, &err));
    FxValue items[3] = {a, s, fx_val_int(7)};
    FxValue list = fx_val_list(items, 3), both;
    EXPECT(fx_val_concat(list, list, &both, &err));
    FxValue *cells = fx_xmalloc(4 * sizeof(FxValue));
    for (int i = 0; i < 4; i++)
        cells[i] = fx_val_int(i);
    fx_meter_add(4 * sizeof(FxValue)); /* as a builder charges its array */
    FxValue m = fx_val_matrix_adopt(2, 2, cells, 4, true);
    FxValue *grown = fx_xmalloc(8 * sizeof(FxValue));
    grown[0] = fx_val_int(1);
    fx_meter_add(8 * sizeof(FxValue));
    FxValue adopted = fx_val_list_adopt(grown, 1, 8, true); /* shrunk: 7 credited */
    const char *names[] = {"x", "y"};
    FxValue fields[2] = {b, t};
    FxValue rec = fx_val_record(2, names, fields);
    FxValue all[] = {a, b, c, d, e, s, t, list, both, m, adopted, rec};
    for (size_t i = 0; i < FX_ARRAY_LEN(all); i++)
        fx_value_release(all[i]);
    EXPECT_EQ(fx_meter_state.live, before);
}

/* A run's meter with exactly `room` bytes left, whatever the resident size. */
static void begin_with_room(uint64_t steps, double seconds, int64_t room)
{
    fx_meter_begin(steps, 1 << 20, seconds);
    fx_meter_state.limit = fx_meter_state.live + room;
}

FX_TEST(a_power_that_cannot_fit_is_refused_before_it_runs)
{
    fx_meter_install();
    begin_with_room(0, 0, 1 << 20);
    int64_t live = fx_meter_state.live;
    FxValue out = fx_val_int(0);
    FxError err;
    EXPECT(!fx_val_pow(fx_val_int(10), fx_val_int(10000000), &out, &err)); /* 4 MB of digits */
    EXPECT_EQ(fx_meter_state.stop, FX_STOP_MEMORY);
    EXPECT_EQ(fx_meter_state.live, live); /* nothing was allocated */
    EXPECT(strstr(err.message, "the memory budget of 1048576 MB is exhausted: `^` would need "
                               "about ") == err.message);
    EXPECT(strstr(err.message, "for a result of 33219281 bits; raise it with --max-memory"));
    /* refused from now on, until the next run */
    EXPECT(!fx_meter_charge(1));
    EXPECT(!fx_meter_poll());
    fx_meter_end();
    EXPECT(fx_meter_charge(1));
    fx_meter_sub(1);
}

FX_TEST(a_product_past_the_deadline_or_the_steps_is_refused)
{
    fx_meter_install();
    FxValue x = ten_to(20000000), y = ten_to(20000001), out = fx_val_int(0);
    FxError err;
    begin_with_room(0, 0.001, INT64_MAX / 2); /* about a second of work, a millisecond left */
    EXPECT(!fx_val_mul(x, y, &out, &err));
    EXPECT_EQ(fx_meter_state.stop, FX_STOP_TIME);
    EXPECT(strstr(err.message, "the time budget of 0.001 s is exhausted: `*` is estimated at ") ==
           err.message);
    fx_meter_end();
    begin_with_room(1000, 0, INT64_MAX / 2);
    EXPECT(!fx_val_mul(x, y, &out, &err));
    EXPECT_EQ(fx_meter_state.stop, FX_STOP_STEPS);
    EXPECT(strstr(err.message, "the step budget of 1000 steps (calls and loop iterations) is "
                               "exhausted: `*` is estimated at ") == err.message);
    fx_meter_end();
    fx_value_release(x);
    fx_value_release(y);
}

FX_TEST(a_forced_charge_past_the_limit_stops_the_run)
{
    fx_meter_install();
    begin_with_room(0, 0, 100);
    fx_meter_add(50);
    EXPECT_EQ(fx_meter_state.stop, FX_STOP_NONE);
    fx_meter_add(51); /* a value already made: counted, and the run stops */
    EXPECT_EQ(fx_meter_state.stop, FX_STOP_MEMORY);
    EXPECT(fx_meter_state.work >= ((uint64_t)1 << 62)); /* the VM looks at once */
    fx_meter_sub(101);
    fx_meter_end();
}

int main(void)
{
    return fx_test_run();
}
