/*
 * learner.c: FluxLearner, learning in a thread of the library.
 *
 * The optimizer's round runs the program many times and installs versions
 * in the store; it wants a program and a store connection to itself. So
 * the learner loads its own copy of the program and opens its own
 * connection, runs flux_learn on them when asked, and hands what it
 * installed to the caller's program through the store: a refresh there
 * makes the next calls run the new versions. Nothing here forks.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

struct FluxLearner {
    FluxProgram *target; /* the caller's: refreshed after each round */
    FluxProgram *own;    /* the copy the rounds run */
    FluxStore *store;    /* the learner's connection */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    bool pending, running, stop;
    long long after;
    unsigned rounds, failed;
};

static void *learn_loop(void *arg)
{
    FluxLearner *l = arg;
    pthread_mutex_lock(&l->lock);
    for (;;) {
        while (!l->pending && !l->stop)
            pthread_cond_wait(&l->wake, &l->lock);
        if (l->stop)
            break;
        long long after = l->after;
        l->pending = false;
        l->running = true;
        pthread_mutex_unlock(&l->lock);
        int st = l->target->store ? flux_store_flush(l->target->store, NULL) : FLUX_OK;
        if (st == FLUX_OK)
            st = flux_learn(l->own, l->store, after, NULL);
        flux_program_refresh(l->target);
        pthread_mutex_lock(&l->lock);
        l->running = false;
        l->rounds++;
        l->failed += st != FLUX_OK;
        pthread_cond_broadcast(&l->idle);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

int flux_learner_start(FluxProgram *prog, FluxStore *store, FILE *diagnostics, FluxLearner **out)
{
    *out = NULL;
    FluxLearner *l = fx_xcalloc(1, sizeof(*l));
    l->target = prog;
    int st = prog->source ? flux_program_load_source(prog->path, prog->source, &prog->load_options,
                                                     diagnostics, &l->own)
                          : flux_program_load(prog->path, &prog->load_options, diagnostics,
                                              &l->own);
    if (st == FLUX_OK)
        st = flux_store_open(fx_store_dir(store->store), diagnostics, &l->store);
    if (st != FLUX_OK) {
        flux_program_free(l->own);
        free(l);
        return st;
    }
    flux_program_use_store(l->own, l->store, prog->keep_values);
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->wake, NULL);
    pthread_cond_init(&l->idle, NULL);
    FX_CHECK(pthread_create(&l->thread, NULL, learn_loop, l) == 0,
             "cannot start the learner's thread");
    *out = l;
    return FLUX_OK;
}

void flux_learner_request(FluxLearner *l, long long after)
{
    pthread_mutex_lock(&l->lock);
    /* merged: a round now beats one that may be due; then the newest */
    if (!l->pending || after == FLUX_LEARN_NOW || l->after == FLUX_LEARN_NOW)
        l->after = l->pending && l->after == FLUX_LEARN_NOW ? FLUX_LEARN_NOW : after;
    else
        l->after = after == 0 || l->after == 0 ? 0 : after > l->after ? after : l->after;
    l->pending = true;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
}

unsigned flux_learner_wait(FluxLearner *l, unsigned *failed)
{
    pthread_mutex_lock(&l->lock);
    while (l->pending || l->running)
        pthread_cond_wait(&l->idle, &l->lock);
    unsigned n = l->rounds;
    if (failed)
        *failed = l->failed;
    pthread_mutex_unlock(&l->lock);
    return n;
}

void flux_learner_stop(FluxLearner *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    l->stop = true;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    pthread_cond_destroy(&l->wake);
    pthread_cond_destroy(&l->idle);
    pthread_mutex_destroy(&l->lock);
    flux_program_free(l->own);
    flux_store_close(l->store, NULL);
    free(l);
}
