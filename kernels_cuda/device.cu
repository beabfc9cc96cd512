/* device.cu: the CUDA device query and a poly6 probe. Without a driver or
 * a device the runtime returns an error (e.g. "CUDA driver version is
 * insufficient"), which is reported, never fatal. */
#include <cstdio>

#include <cuda_runtime.h>

#include "cuda_device.h"
#include "kernels.h"

/* The same poly6 as the CPU code, through the FL_HD plumbing. */
__global__ void fl_cuda_poly6_probe(const float *r2, float h, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = fl_poly6(r2[i], h, 3);
}

extern "C" int fl_cuda_device_query(char *name, int len, fl_error *err)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess)
        return fl_fail(err, FL_ERR_DEVICE, "no usable CUDA device: %s", cudaGetErrorString(rc));
    if (count == 0)
        return fl_fail(err, FL_ERR_DEVICE, "no CUDA device found");
    cudaDeviceProp prop;
    rc = cudaGetDeviceProperties(&prop, 0);
    if (rc != cudaSuccess)
        return fl_fail(err, FL_ERR_DEVICE, "no usable CUDA device: %s", cudaGetErrorString(rc));
    snprintf(name, (size_t)len, "%s (compute %d.%d, %.1f GiB)", prop.name, prop.major, prop.minor,
             prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return FL_OK;
}

extern "C" int fl_cuda_poly6(const float *r2, int n, float h, float *out, fl_error *err)
{
    float *d_r2 = NULL, *d_out = NULL;
    size_t bytes = (size_t)n * sizeof(float);
    cudaError_t rc = cudaMalloc(&d_r2, bytes);
    if (rc == cudaSuccess)
        rc = cudaMalloc(&d_out, bytes);
    if (rc == cudaSuccess)
        rc = cudaMemcpy(d_r2, r2, bytes, cudaMemcpyHostToDevice);
    if (rc == cudaSuccess) {
        fl_cuda_poly6_probe<<<(n + 255) / 256, 256>>>(d_r2, h, d_out, n);
        rc = cudaGetLastError();
    }
    if (rc == cudaSuccess)
        rc = cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_r2);
    cudaFree(d_out);
    if (rc != cudaSuccess)
        return fl_fail(err, FL_ERR_DEVICE, "CUDA poly6 probe failed: %s", cudaGetErrorString(rc));
    return FL_OK;
}
