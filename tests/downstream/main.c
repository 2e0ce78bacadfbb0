/* main.c - a program of a project that uses an installed clsort, built
 * once through find_package(clsort) and once through pkg-config. Sorts a
 * few keys on the test device and checks them; exits 77 when there is no
 * OpenCL platform. */
#include <clsort.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    clsort_context *ctx = NULL;
    clsort_status s = clsort_context_create(&ctx, getenv("CLSORT_TEST_DEVICE"));
    if (s == CLSORT_ERROR_NO_PLATFORM)
        return 77;
    if (s != CLSORT_SUCCESS) {
        fprintf(stderr, "%s\n", clsort_context_last_error(NULL));
        return 1;
    }
    float keys[7] = {3.5f, -1.0f, 0.0f, 2.0f, -0.0f, 9.0f, -7.25f};
    s = clsort_sort_keys(ctx, CLSORT_F32, keys, 7, NULL);
    int ok = s == CLSORT_SUCCESS;
    for (int i = 1; ok && i < 7; i++)
        ok = keys[i - 1] <= keys[i];
    if (!ok)
        fprintf(stderr, "downstream: %s\n", clsort_context_last_error(ctx));
    clsort_context_release(ctx);
    printf("downstream: %s\n", ok ? "sorted" : "FAILED");
    return ok ? 0 : 1;
}
