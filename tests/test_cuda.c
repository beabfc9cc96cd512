/* test_cuda.c: the CUDA build. Without a usable device the test reports
 * itself skipped (exit 77, SKIP_RETURN_CODE); with one, the device's poly6
 * must match the CPU's to float rounding. */
#include <stdlib.h>

#include "cuda_device.h"
#include "ensure.h"
#include "kernels.h"

int main(void)
{
    char name[256];
    fl_error err;
    if (fl_cuda_device_query(name, sizeof name, &err) != FL_OK) {
        printf("test_cuda: skipped: %s\n", err.msg);
        return 77;
    }
    printf("device: %s\n", name);
    enum { N = 4096 };
    const float h = 0.02f;
    float r2[N], gpu[N];
    for (int i = 0; i < N; i++)
        r2[i] = 1.1f * h * h * (float)i / N; /* across the support and past it */
    ENSURE(fl_cuda_poly6(r2, N, h, gpu, &err) == FL_OK);
    for (int i = 0; i < N; i++) {
        float cpu = fl_poly6(r2[i], h, 3);
        ENSURE_NEAR(gpu[i], cpu, 1e-5 * fl_poly6(0.0f, h, 3));
    }
    return fl_test_report("test_cuda");
}
