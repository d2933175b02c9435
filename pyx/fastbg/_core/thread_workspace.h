/* One zeroed scratch block per thread, made on first use and freed when the thread
 * exits (a POSIX thread-specific key with free() as its destructor).
 *
 * The evaluator (fastbg._core.evaluator) needs a move generator workspace (about
 * 250 kB) to compute a crashed net's blot features inside a play's evaluation, where
 * no caller's workspace is at hand; an EvalPolicy is shared by the threads of a
 * rollout, so the workspace cannot be the instance's. The first call of a thread
 * fixes the block's size: call it with one size only (one header user, evaluator.pyx).
 */
#ifndef FASTBG_THREAD_WORKSPACE_H
#define FASTBG_THREAD_WORKSPACE_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_key_t fbg_ws_key;
static pthread_once_t fbg_ws_once = PTHREAD_ONCE_INIT;
static int fbg_ws_key_ok = 0;

static void fbg_ws_make_key(void) {
    fbg_ws_key_ok = pthread_key_create(&fbg_ws_key, free) == 0;
}

/* The calling thread's block of `size` bytes (zeroed when made). Out of memory (or
 * out of thread keys) the process stops with a message: a wrong evaluation would be
 * worse, and a noexcept nogil caller cannot raise. */
static void* fbg_thread_workspace(size_t size) {
    void* p;
    pthread_once(&fbg_ws_once, fbg_ws_make_key);
    if (!fbg_ws_key_ok) {
        fputs("fastbg: no thread-specific key for the evaluator's workspace\n", stderr);
        abort();
    }
    p = pthread_getspecific(fbg_ws_key);
    if (p == NULL) {
        p = calloc(1, size);
        if (p == NULL || pthread_setspecific(fbg_ws_key, p) != 0) {
            fputs("fastbg: out of memory for the evaluator's move generator workspace\n", stderr);
            abort();
        }
    }
    return p;
}

#endif
