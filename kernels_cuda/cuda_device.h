/* cuda_device.h: what the command asks of the CUDA side. Callable from C;
 * implemented in device.cu. */
#ifndef FL_CUDA_DEVICE_H
#define FL_CUDA_DEVICE_H

#include "fl_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills name (at most len bytes) with the first device's name and compute
 * capability and returns FL_OK, or returns FL_ERR_DEVICE with the CUDA
 * runtime's reason in err when no device can be used. */
int fl_cuda_device_query(char *name, int len, fl_error *err);

/* out[i] = fl_poly6(r2[i], h, 3) (3D) computed on the device: the check that the
 * FL_HD kernels give the CPU's numbers there. FL_ERR_DEVICE without one. */
int fl_cuda_poly6(const float *r2, int n, float h, float *out, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
