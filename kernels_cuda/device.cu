/* device.cu: the CUDA device query. Without a driver or a device the
 * runtime returns an error (e.g. "CUDA driver version is insufficient"),
 * which is reported, never fatal. */
#include <cstdio>

#include <cuda_runtime.h>

#include "cuda_device.h"
#include "kernels.h"

/* One kernel so that the FL_HD plumbing is compiled by nvcc: the same
 * poly6 as the CPU code. */
__global__ void fl_cuda_poly6_probe(const float *r2, float h, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = fl_poly6(r2[i], h);
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
