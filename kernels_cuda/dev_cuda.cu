/* dev_cuda.cu: the CUDA backend (solvers/dev.h). A kernel is one thread
 * per particle calling its body from solvers/dev_bodies.h, the functions
 * the emulator runs on the host; the view is a __grid_constant__
 * parameter, read in place. The sort is CUB's radix sort (stable, like the
 * emulator's counting sort); a reduction is one launch: block partials,
 * joined into the step's result slot by the last block to finish, with
 * the same join and per-particle terms as the emulator. Everything runs in order on one
 * stream; stage times come from CUDA events. Every CUDA call's status is
 * checked and reported with the call's name. */
#include <cstdio>
#include <cstring>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "dev_bodies.h"

#define FL_CUDA_BLOCK 128
#define FL_CUDA_RED_BLOCK 256
#define FL_CUDA_RED_GRID 1024
#define FL_CUDA_MAX_MARKS 256

struct cuda_ctx {
    cudaStream_t stream;
    fl_dev_red *slots;     /* device: FL_DEV_RED_SLOTS results */
    fl_dev_red *partials;  /* device: FL_CUDA_RED_GRID block results */
    unsigned *done;        /* device: the blocks of the running reduction done, 0 between reductions */
    void *sort_temp;
    size_t sort_temp_bytes;
    int *sort_key, *sort_order;
    int sort_cap;
    cudaEvent_t events[FL_CUDA_MAX_MARKS];
    int stage_of[FL_CUDA_MAX_MARKS];
    int marks;
    int event_count;
    cudaError_t mark_error; /* the first failed cudaEventRecord, reported by stage_times */
};

static int cuda_check(cudaError_t rc, const char *call, fl_error *err)
{
    if (rc == cudaSuccess)
        return FL_OK;
    return fl_fail(err, rc == cudaErrorMemoryAllocation ? FL_ERR_MEMORY : FL_ERR_DEVICE, "CUDA: %s failed: %s", call,
                   cudaGetErrorString(rc));
}

static void cuda_close(void *p)
{
    cuda_ctx *c = (cuda_ctx *)p;
    if (!c)
        return;
    cudaFree(c->slots);
    cudaFree(c->partials);
    cudaFree(c->done);
    cudaFree(c->sort_temp);
    cudaFree(c->sort_key);
    cudaFree(c->sort_order);
    for (int k = 0; k < c->event_count; k++)
        cudaEventDestroy(c->events[k]);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    delete c;
}

static void *cuda_open(fl_error *err)
{
    cuda_ctx *c = new cuda_ctx();
    int rc = cuda_check(cudaSetDevice(0), "cudaSetDevice", err);
    if (rc == FL_OK)
        rc = cuda_check(cudaStreamCreate(&c->stream), "cudaStreamCreate", err);
    if (rc == FL_OK)
        rc = cuda_check(cudaMalloc(&c->slots, FL_DEV_RED_SLOTS * sizeof(fl_dev_red)), "cudaMalloc (results)", err);
    if (rc == FL_OK)
        rc = cuda_check(cudaMalloc(&c->partials, FL_CUDA_RED_GRID * sizeof(fl_dev_red)), "cudaMalloc (partials)", err);
    if (rc == FL_OK)
        rc = cuda_check(cudaMalloc(&c->done, sizeof *c->done), "cudaMalloc (reduction count)", err);
    if (rc == FL_OK)
        rc = cuda_check(cudaMemset(c->done, 0, sizeof *c->done), "cudaMemset (reduction count)", err);
    for (int k = 0; k < FL_CUDA_MAX_MARKS && rc == FL_OK; k++) {
        rc = cuda_check(cudaEventCreate(&c->events[k]), "cudaEventCreate", err);
        c->event_count += rc == FL_OK;
    }
    if (rc != FL_OK) {
        cuda_close(c);
        return NULL;
    }
    return c;
}

static void *cuda_alloc(void *p, size_t bytes, fl_error *err)
{
    (void)p;
    void *d = NULL;
    if (cuda_check(cudaMalloc(&d, bytes), "cudaMalloc", err) != FL_OK)
        return NULL;
    return d;
}

static void cuda_release(void *p, void *ptr)
{
    (void)p;
    cudaFree(ptr);
}

static int cuda_write(void *p, void *dst, const void *src, size_t bytes, fl_error *err)
{
    cuda_ctx *c = (cuda_ctx *)p;
    int rc = cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream), "cudaMemcpyAsync (to the device)", err);
    return rc ? rc : cuda_check(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize", err);
}

static int cuda_read(void *p, void *dst, const void *src, size_t bytes, fl_error *err)
{
    cuda_ctx *c = (cuda_ctx *)p;
    int rc = cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync (to the host)", err);
    return rc ? rc : cuda_check(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize", err);
}

/* One kernel per body: an index and a call. */
#define FL_CUDA_KERNEL(name)                                                    \
    __global__ void fl_k_##name(const __grid_constant__ fl_dev_view v, int n)   \
    {                                                                           \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                          \
        if (i < n)                                                              \
            fl_dev_##name(i, &v);                                               \
    }
FL_DEV_KERNEL_LIST(FL_CUDA_KERNEL)
#undef FL_CUDA_KERNEL

typedef void (*fl_cuda_kernel_fn)(const fl_dev_view, int);
#define FL_CUDA_KERNEL_ENTRY(name) fl_k_##name,
static const fl_cuda_kernel_fn fl_cuda_kernels[FL_DEV_KERNEL_COUNT] = {FL_DEV_KERNEL_LIST(FL_CUDA_KERNEL_ENTRY)};
#define FL_CUDA_KERNEL_NAME(name) #name,
static const char *const fl_cuda_kernel_names[FL_DEV_KERNEL_COUNT] = {FL_DEV_KERNEL_LIST(FL_CUDA_KERNEL_NAME)};

static int cuda_launch(void *p, fl_dev_kernel k, int n, const fl_dev_view *v, fl_error *err)
{
    cuda_ctx *c = (cuda_ctx *)p;
    if (n <= 0)
        return FL_OK;
    fl_cuda_kernels[k]<<<(n + FL_CUDA_BLOCK - 1) / FL_CUDA_BLOCK, FL_CUDA_BLOCK, 0, c->stream>>>(*v, n);
    cudaError_t rc = cudaGetLastError();
    if (rc != cudaSuccess)
        return fl_fail(err, FL_ERR_DEVICE, "CUDA: kernel %s failed to launch: %s", fl_cuda_kernel_names[k],
                       cudaGetErrorString(rc));
    return FL_OK;
}

static int cuda_sort(void *p, fl_dev_view *v, int n, fl_error *err)
{
    cuda_ctx *c = (cuda_ctx *)p;
    if (n <= 0)
        return FL_OK;
    int rc = FL_OK;
    if (n > c->sort_cap) {
        cudaFree(c->sort_key);
        cudaFree(c->sort_order);
        c->sort_key = c->sort_order = NULL;
        c->sort_cap = 0;
        rc = cuda_check(cudaMalloc(&c->sort_key, (size_t)n * sizeof(int)), "cudaMalloc (sort keys)", err);
        if (rc == FL_OK)
            rc = cuda_check(cudaMalloc(&c->sort_order, (size_t)n * sizeof(int)), "cudaMalloc (sort values)", err);
        if (rc)
            return rc;
        c->sort_cap = n;
    }
    int bits = 1;
    while (bits < 31 && (1 << bits) <= v->grid.ncells)
        bits++;
    unsigned *keys_in = (unsigned *)v->key, *keys_out = (unsigned *)c->sort_key;
    size_t need = 0;
    rc = cuda_check(cub::DeviceRadixSort::SortPairs(NULL, need, keys_in, keys_out, v->order, c->sort_order, n, 0, bits,
                                                    c->stream),
                    "cub::DeviceRadixSort::SortPairs (size)", err);
    if (rc == FL_OK && need > c->sort_temp_bytes) {
        cudaFree(c->sort_temp);
        c->sort_temp = NULL;
        c->sort_temp_bytes = 0;
        rc = cuda_check(cudaMalloc(&c->sort_temp, need), "cudaMalloc (sort scratch)", err);
        if (rc == FL_OK)
            c->sort_temp_bytes = need;
    }
    if (rc == FL_OK)
        rc = cuda_check(cub::DeviceRadixSort::SortPairs(c->sort_temp, need, keys_in, keys_out, v->order, c->sort_order,
                                                        n, 0, bits, c->stream),
                        "cub::DeviceRadixSort::SortPairs", err);
    if (rc == FL_OK)
        rc = cuda_check(cudaMemcpyAsync(v->key, c->sort_key, (size_t)n * sizeof(int), cudaMemcpyDeviceToDevice, c->stream),
                        "cudaMemcpyAsync (sorted keys)", err);
    if (rc == FL_OK)
        rc = cuda_check(cudaMemcpyAsync(v->order, c->sort_order, (size_t)n * sizeof(int), cudaMemcpyDeviceToDevice,
                                        c->stream),
                        "cudaMemcpyAsync (sorted order)", err);
    return rc;
}

/* The join of a block's values in shared memory, into *out (ADDS: of
 * one of the tool's reductions, fl_dev_red_adds). */
template <int ADDS> __device__ void fl_cuda_block_join(fl_dev_red acc, fl_dev_red *out)
{
    __shared__ fl_dev_red part[FL_CUDA_RED_BLOCK];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = FL_CUDA_RED_BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            part[threadIdx.x] = fl_dev_red_join(ADDS, part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = part[0];
}

/* A block's partial result as another block wrote it in this launch:
 * read from L2, past this multiprocessor's L1. */
__device__ fl_dev_red fl_cuda_load_partial(const fl_dev_red *p)
{
    fl_dev_red r;
    const double *src = (const double *)p;
    double *dst = (double *)&r;
    for (unsigned q = 0; q < sizeof r / sizeof(double); q++)
        dst[q] = __ldcg(src + q);
    return r;
}

/* One pass: each block joins its particles' terms into partials[block];
 * the last block to finish (counted in *done, which it resets) joins the
 * partials, in block order, into *slot. ADDS is a constant, so that the
 * reductions other than the tool's compile as they did before it had
 * any. */
template <int ADDS>
__global__ void fl_k_reduce(const __grid_constant__ fl_dev_view v, fl_dev_reduction r, int n, fl_dev_red *partials,
                            unsigned *done, fl_dev_red *slot)
{
    __shared__ int last;
    fl_dev_red acc = fl_dev_red_identity(ADDS);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc = fl_dev_red_join(ADDS, acc, ADDS ? fl_dev_tool_term(r, i, &v) : fl_dev_term(r, i, &v));
    fl_cuda_block_join<ADDS>(acc, partials + blockIdx.x);
    if (threadIdx.x == 0) {
        __threadfence(); /* the partial is seen before the count */
        last = atomicAdd(done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    acc = fl_dev_red_identity(ADDS);
    for (unsigned k = threadIdx.x; k < gridDim.x; k += blockDim.x)
        acc = fl_dev_red_join(ADDS, acc, fl_cuda_load_partial(partials + k));
    fl_cuda_block_join<ADDS>(acc, slot);
    if (threadIdx.x == 0)
        *done = 0;
}

/* Reduction r over n particles into result slot `slot`, one launch. */
template <int ADDS>
static int cuda_reduce_pass(cuda_ctx *c, fl_dev_reduction r, int n, const fl_dev_view *v, int slot, fl_error *err)
{
    int blocks = (n + FL_CUDA_RED_BLOCK - 1) / FL_CUDA_RED_BLOCK;
    blocks = blocks < 1 ? 1 : blocks > FL_CUDA_RED_GRID ? FL_CUDA_RED_GRID : blocks;
    fl_k_reduce<ADDS><<<blocks, FL_CUDA_RED_BLOCK, 0, c->stream>>>(*v, r, n, c->partials, c->done, c->slots + slot);
    return cuda_check(cudaGetLastError(), "kernel reduce", err);
}

static int cuda_reduce(void *p, fl_dev_reduction r, int n, const fl_dev_view *v, int slot, fl_error *err)
{
    cuda_ctx *c = (cuda_ctx *)p;
    if (slot < 0 || slot >= FL_DEV_RED_SLOTS)
        return fl_fail(err, FL_ERR_DEVICE, "CUDA: reduction slot %d out of range", slot);
    return fl_dev_red_adds(r) ? cuda_reduce_pass<1>(c, r, n, v, slot, err) : cuda_reduce_pass<0>(c, r, n, v, slot, err);
}

static int cuda_results(void *p, fl_dev_red *out, int count, fl_error *err)
{
    cuda_ctx *c = (cuda_ctx *)p;
    if (count < 0 || count > FL_DEV_RED_SLOTS)
        return fl_fail(err, FL_ERR_DEVICE, "CUDA: %d result slots asked for", count);
    return cuda_read(c, out, c->slots, (size_t)count * sizeof *out, err);
}

static void cuda_mark(void *p, int s)
{
    cuda_ctx *c = (cuda_ctx *)p;
    if (c->marks == FL_CUDA_MAX_MARKS)
        return; /* the pool is full: the time goes on to the last stage marked */
    cudaError_t rc = cudaEventRecord(c->events[c->marks], c->stream);
    if (rc != cudaSuccess && c->mark_error == cudaSuccess)
        c->mark_error = rc;
    c->stage_of[c->marks++] = s;
}

static int cuda_stage_times(void *p, double ms[FL_STAGE_COUNT], fl_error *err)
{
    cuda_ctx *c = (cuda_ctx *)p;
    int rc = cuda_check(c->mark_error, "cudaEventRecord", err);
    c->mark_error = cudaSuccess;
    if (c->marks > 0 && rc == FL_OK)
        rc = cuda_check(cudaEventSynchronize(c->events[c->marks - 1]), "cudaEventSynchronize", err);
    for (int k = 0; k + 1 < c->marks && rc == FL_OK; k++) {
        float t = 0.0f;
        rc = cuda_check(cudaEventElapsedTime(&t, c->events[k], c->events[k + 1]), "cudaEventElapsedTime", err);
        if (c->stage_of[k] >= 0)
            ms[c->stage_of[k]] += t;
    }
    c->marks = 0;
    return rc;
}

extern "C" const fl_dev_backend fl_dev_cuda = {
    "cuda",         cuda_open,   cuda_close,  cuda_alloc,   cuda_release,       cuda_write, cuda_read,
    cuda_launch,    cuda_sort,   cuda_reduce, cuda_results, cuda_mark,          cuda_stage_times,
};
