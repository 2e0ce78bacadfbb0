/* nvprobe.h - the first GPU of the OpenCL platforms, if it is NVIDIA's, for
 * the probes that use inline PTX (bench/occupancy.c). */
#ifndef CLSORT_NVPROBE_H
#define CLSORT_NVPROBE_H
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

/* Returns the device, or NULL (with a message naming the program) when
 * there is no GPU or the first one is not NVIDIA's. */
static cl_device_id nvprobe_device(const char *prog)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    clGetPlatformIDs(8, plats, &np);
    cl_device_id dev = NULL;
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    char vendor[256] = "";
    if (dev)
        clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    if (!dev || !strstr(vendor, "NVIDIA")) {
        fprintf(stderr, "%s: needs an NVIDIA GPU (inline PTX)%s%s%s\n", prog,
                dev ? ", not '" : "", vendor, dev ? "'" : "");
        return NULL;
    }
    return dev;
}
#endif
