/* One scratch block per thread, made (zeroed) on first use. When the thread exits its
 * block goes back to a small pool (a POSIX thread-specific key whose destructor returns
 * it), and the next thread to need one takes it from there, as it was left: a rollout's
 * worker threads are made anew for each rollout, and a block that holds a memo stays
 * warm from one rollout to the next.
 *
 * The evaluator (fastbg._core.evaluator) keeps its memo of a crashed net's blot features
 * there (512 kB): they are needed inside a play's evaluation, where no caller's
 * workspace is at hand, and an EvalPolicy is shared by the threads of a rollout, so the
 * memo cannot be the instance's. The first call of a thread fixes the block's size: call
 * it with one size only (one header user, evaluator.pyx).
 */
#ifndef FASTBG_THREAD_WORKSPACE_H
#define FASTBG_THREAD_WORKSPACE_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FBG_WS_POOL 64     /* blocks kept for later threads at most (more are freed) */

static pthread_key_t fbg_ws_key;
static pthread_once_t fbg_ws_once = PTHREAD_ONCE_INIT;
static int fbg_ws_key_ok = 0;
static pthread_mutex_t fbg_ws_lock = PTHREAD_MUTEX_INITIALIZER;
static void* fbg_ws_pool[FBG_WS_POOL];
static int fbg_ws_pooled = 0;

/* The key's destructor: an exiting thread's block goes back to the pool. */
static void fbg_ws_release(void* p) {
    pthread_mutex_lock(&fbg_ws_lock);
    if (fbg_ws_pooled < FBG_WS_POOL) {
        fbg_ws_pool[fbg_ws_pooled++] = p;
        p = NULL;
    }
    pthread_mutex_unlock(&fbg_ws_lock);
    free(p);
}

static void fbg_ws_make_key(void) {
    fbg_ws_key_ok = pthread_key_create(&fbg_ws_key, fbg_ws_release) == 0;
}

/* The calling thread's block of `size` bytes (zeroed when made; a pooled block is as
 * its last thread left it). Out of memory (or
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
        pthread_mutex_lock(&fbg_ws_lock);
        if (fbg_ws_pooled > 0)
            p = fbg_ws_pool[--fbg_ws_pooled];
        pthread_mutex_unlock(&fbg_ws_lock);
        if (p == NULL)
            p = calloc(1, size);
        if (p == NULL || pthread_setspecific(fbg_ws_key, p) != 0) {
            fputs("fastbg: out of memory for the evaluator's workspace\n", stderr);
            abort();
        }
    }
    return p;
}

/* Zero the first `bytes` bytes of every pooled block and of the calling thread's own
 * block, if it has one (blocks of other running threads are not touched): a memo kept
 * there starts empty again. */
static void fbg_ws_clear(size_t bytes) {
    int i;
    void* own;
    pthread_once(&fbg_ws_once, fbg_ws_make_key);
    pthread_mutex_lock(&fbg_ws_lock);
    for (i = 0; i < fbg_ws_pooled; i++)
        memset(fbg_ws_pool[i], 0, bytes);
    pthread_mutex_unlock(&fbg_ws_lock);
    own = fbg_ws_key_ok ? pthread_getspecific(fbg_ws_key) : NULL;
    if (own != NULL)
        memset(own, 0, bytes);
}

#endif
