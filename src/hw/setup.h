/*
 * setup.h: the time this process has spent in one-time setup (the
 * hardware probe, the worker pool's start), so that a run's measured time
 * can leave it out: whichever version happens to run first in a process
 * would otherwise be charged for it, and a rollback compares versions by
 * their recorded times (docs/optimizer.md).
 *
 *   double t0 = fx_setup_clock_ms();  ... start the pool ...
 *   fx_setup_charge(t0);              // from t0 to now was setup
 *
 * Thread-safe; the total only grows.
 */
#ifndef FX_HW_SETUP_H
#define FX_HW_SETUP_H

/* A monotonic clock in ms, for fx_setup_charge. */
double fx_setup_clock_ms(void);
/* Counts the time from `since` (fx_setup_clock_ms) to now as setup. */
void fx_setup_charge(double since);
/* The setup time counted so far in this process, in ms. */
double fx_setup_total_ms(void);

#endif
