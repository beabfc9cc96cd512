/* dev_emu.c: the emulator backend (dev.h): the device kernels' bodies
 * (dev_bodies.h) run on the host, one OpenMP loop per kernel, over host
 * memory laid out as on the GPU: `--device emu`, and how CI tests the GPU
 * logic without a GPU. The sort is a stable counting sort by cell, as
 * stable as the GPU's radix sort, so both give the same order. */
#include <stdlib.h>
#include <string.h>

#include "dev_bodies.h"

typedef struct emu_ctx {
    int stage;                       /* the stage time goes to, -1: none */
    double since;                    /* ms, when it started */
    double ms[FL_STAGE_COUNT];
    fl_dev_red slots[FL_DEV_RED_SLOTS];
    int *count, *key, *order;        /* the sort's scratch */
    long long count_cap, key_cap, order_cap;
} emu_ctx;

static void *emu_open(fl_error *err)
{
    emu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        fl_fail(err, FL_ERR_MEMORY, "emu: out of memory");
    else
        c->stage = -1;
    return c;
}

static void emu_close(void *ctx)
{
    emu_ctx *c = ctx;
    if (!c)
        return;
    fl_free(c->count), fl_free(c->key), fl_free(c->order);
    free(c);
}

static void *emu_alloc(void *ctx, size_t bytes, fl_error *err)
{
    (void)ctx;
    void *p = fl_alloc(bytes);
    if (!p)
        fl_fail(err, FL_ERR_MEMORY, "emu: out of memory for %zu bytes", bytes);
    return p;
}

static void emu_release(void *ctx, void *ptr)
{
    (void)ctx;
    fl_free(ptr);
}

static int emu_copy(void *ctx, void *dst, const void *src, size_t bytes, fl_error *err)
{
    (void)ctx, (void)err;
    if (bytes)
        memcpy(dst, src, bytes);
    return FL_OK;
}

#define EMU_CASE(name)                                        \
    case FL_DEV_K_##name:                                     \
        _Pragma("omp parallel for schedule(static)")          \
        for (int i = 0; i < n; i++)                           \
            fl_dev_##name(i, v);                              \
        break;

static int emu_launch(void *ctx, fl_dev_kernel k, int n, const fl_dev_view *v, fl_error *err)
{
    (void)ctx;
    switch (k) {
        FL_DEV_KERNEL_LIST(EMU_CASE)
    default:
        return fl_fail(err, FL_ERR_DEVICE, "emu: unknown kernel %d", (int)k);
    }
    return FL_OK;
}

static int emu_grow(int **a, long long *cap, long long need)
{
    if (need <= *cap)
        return 1;
    fl_free(*a);
    *a = fl_alloc((size_t)need * sizeof(int));
    *cap = *a ? need : 0;
    return *a != NULL;
}

static int emu_sort(void *ctx, fl_dev_view *v, int n, fl_error *err)
{
    emu_ctx *c = ctx;
    const int buckets = v->grid.ncells + 1;
    if (!emu_grow(&c->count, &c->count_cap, buckets + 1) || !emu_grow(&c->key, &c->key_cap, n) ||
        !emu_grow(&c->order, &c->order_cap, n))
        return fl_fail(err, FL_ERR_MEMORY, "emu: out of memory for sorting %d particles", n);
    int *count = c->count;
    memset(count, 0, (size_t)(buckets + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        count[v->key[i] + 1]++;
    for (int b = 0; b < buckets; b++)
        count[b + 1] += count[b];
    for (int i = 0; i < n; i++) {
        int slot = count[v->key[i]]++;
        c->key[slot] = v->key[i];
        c->order[slot] = v->order[i];
    }
    memcpy(v->key, c->key, (size_t)n * sizeof(int));
    memcpy(v->order, c->order, (size_t)n * sizeof(int));
    return FL_OK;
}

/* Fixed blocks (of n only), so the result does not depend on the threads. */
#define EMU_BLOCKS 256

static int emu_reduce(void *ctx, fl_dev_reduction r, int n, const fl_dev_view *v, int slot, fl_error *err)
{
    emu_ctx *c = ctx;
    if (slot < 0 || slot >= FL_DEV_RED_SLOTS)
        return fl_fail(err, FL_ERR_DEVICE, "emu: reduction slot %d out of range", slot);
    fl_dev_red part[EMU_BLOCKS];
    const int adds = fl_dev_red_adds(r);
    const long long per = ((long long)n + EMU_BLOCKS - 1) / EMU_BLOCKS;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < EMU_BLOCKS; b++) {
        long long lo = b * per, hi = lo + per;
        int i0 = lo < n ? (int)lo : n, i1 = hi < n ? (int)hi : n;
        fl_dev_red acc = fl_dev_red_identity(adds);
        for (int i = i0; i < i1; i++)
            acc = fl_dev_red_join(adds, acc, adds ? fl_dev_tool_term(r, i, v) : fl_dev_term(r, i, v));
        part[b] = acc;
    }
    fl_dev_red acc = fl_dev_red_identity(adds);
    for (int b = 0; b < EMU_BLOCKS; b++)
        acc = fl_dev_red_join(adds, acc, part[b]);
    c->slots[slot] = acc;
    return FL_OK;
}

static int emu_results(void *ctx, fl_dev_red *out, int count, fl_error *err)
{
    emu_ctx *c = ctx;
    if (count < 0 || count > FL_DEV_RED_SLOTS)
        return fl_fail(err, FL_ERR_DEVICE, "emu: %d result slots asked for", count);
    memcpy(out, c->slots, (size_t)count * sizeof *out);
    return FL_OK;
}

static void emu_mark(void *ctx, int s)
{
    emu_ctx *c = ctx;
    double now = fl_now_ms();
    if (c->stage >= 0)
        c->ms[c->stage] += now - c->since;
    c->stage = s;
    c->since = now;
}

static int emu_stage_times(void *ctx, double ms[FL_STAGE_COUNT], fl_error *err)
{
    emu_ctx *c = ctx;
    (void)err;
    for (int s = 0; s < FL_STAGE_COUNT; s++)
        ms[s] += c->ms[s], c->ms[s] = 0.0;
    return FL_OK;
}

const fl_dev_backend fl_dev_emu = {
    .name = "emu",
    .open = emu_open,
    .close = emu_close,
    .alloc = emu_alloc,
    .release = emu_release,
    .write = emu_copy,
    .read = emu_copy,
    .launch = emu_launch,
    .sort = emu_sort,
    .reduce = emu_reduce,
    .results = emu_results,
    .mark = emu_mark,
    .stage_times = emu_stage_times,
};
