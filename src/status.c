/* status.c - status names and the detailed error messages. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *clsort_status_string(clsort_status status)
{
    switch (status) {
#define CLSORT_STATUS_CASE_(name, value, message) \
    case value:                                   \
        return #name ": " message;
        CLSORT_STATUS_LIST(CLSORT_STATUS_CASE_)
#undef CLSORT_STATUS_CASE_
#define CL_CASE_(code) \
    case code:         \
        return #code;
        CL_CASE_(CL_DEVICE_NOT_FOUND)
        CL_CASE_(CL_DEVICE_NOT_AVAILABLE)
        CL_CASE_(CL_COMPILER_NOT_AVAILABLE)
        CL_CASE_(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        CL_CASE_(CL_OUT_OF_RESOURCES)
        CL_CASE_(CL_OUT_OF_HOST_MEMORY)
        CL_CASE_(CL_PROFILING_INFO_NOT_AVAILABLE)
        CL_CASE_(CL_MEM_COPY_OVERLAP)
        CL_CASE_(CL_IMAGE_FORMAT_MISMATCH)
        CL_CASE_(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        CL_CASE_(CL_BUILD_PROGRAM_FAILURE)
        CL_CASE_(CL_MAP_FAILURE)
        CL_CASE_(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        CL_CASE_(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        CL_CASE_(CL_COMPILE_PROGRAM_FAILURE)
        CL_CASE_(CL_LINKER_NOT_AVAILABLE)
        CL_CASE_(CL_LINK_PROGRAM_FAILURE)
        CL_CASE_(CL_DEVICE_PARTITION_FAILED)
        CL_CASE_(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        CL_CASE_(CL_INVALID_VALUE)
        CL_CASE_(CL_INVALID_DEVICE_TYPE)
        CL_CASE_(CL_INVALID_PLATFORM)
        CL_CASE_(CL_INVALID_DEVICE)
        CL_CASE_(CL_INVALID_CONTEXT)
        CL_CASE_(CL_INVALID_QUEUE_PROPERTIES)
        CL_CASE_(CL_INVALID_COMMAND_QUEUE)
        CL_CASE_(CL_INVALID_HOST_PTR)
        CL_CASE_(CL_INVALID_MEM_OBJECT)
        CL_CASE_(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        CL_CASE_(CL_INVALID_IMAGE_SIZE)
        CL_CASE_(CL_INVALID_SAMPLER)
        CL_CASE_(CL_INVALID_BINARY)
        CL_CASE_(CL_INVALID_BUILD_OPTIONS)
        CL_CASE_(CL_INVALID_PROGRAM)
        CL_CASE_(CL_INVALID_PROGRAM_EXECUTABLE)
        CL_CASE_(CL_INVALID_KERNEL_NAME)
        CL_CASE_(CL_INVALID_KERNEL_DEFINITION)
        CL_CASE_(CL_INVALID_KERNEL)
        CL_CASE_(CL_INVALID_ARG_INDEX)
        CL_CASE_(CL_INVALID_ARG_VALUE)
        CL_CASE_(CL_INVALID_ARG_SIZE)
        CL_CASE_(CL_INVALID_KERNEL_ARGS)
        CL_CASE_(CL_INVALID_WORK_DIMENSION)
        CL_CASE_(CL_INVALID_WORK_GROUP_SIZE)
        CL_CASE_(CL_INVALID_WORK_ITEM_SIZE)
        CL_CASE_(CL_INVALID_GLOBAL_OFFSET)
        CL_CASE_(CL_INVALID_EVENT_WAIT_LIST)
        CL_CASE_(CL_INVALID_EVENT)
        CL_CASE_(CL_INVALID_OPERATION)
        CL_CASE_(CL_INVALID_GL_OBJECT)
        CL_CASE_(CL_INVALID_BUFFER_SIZE)
        CL_CASE_(CL_INVALID_MIP_LEVEL)
        CL_CASE_(CL_INVALID_GLOBAL_WORK_SIZE)
        CL_CASE_(CL_INVALID_PROPERTY)
        CL_CASE_(CL_INVALID_IMAGE_DESCRIPTOR)
        CL_CASE_(CL_INVALID_COMPILER_OPTIONS)
        CL_CASE_(CL_INVALID_LINKER_OPTIONS)
        CL_CASE_(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CL_CASE_
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "unknown status";
    }
}

/* Messages of failed context creations, per thread. */
static _Thread_local char creation_error[4096];

static void store_message(clsort_context *ctx, const char *msg)
{
    if (!ctx) {
        snprintf(creation_error, sizeof creation_error, "%s", msg);
        return;
    }
    size_t len = strlen(msg);
    if (len + 1 > ctx->error_cap) {
        char *p = realloc(ctx->error, len + 1);
        if (!p) {
            /* Keep what fits in the old buffer rather than lose everything. */
            if (ctx->error && ctx->error_cap) {
                memcpy(ctx->error, msg, ctx->error_cap - 1);
                ctx->error[ctx->error_cap - 1] = '\0';
            }
            return;
        }
        ctx->error = p;
        ctx->error_cap = len + 1;
    }
    memcpy(ctx->error, msg, len + 1);
}

clsort_status clsort_fail(clsort_context *ctx, clsort_status status, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    store_message(ctx, buf);
    return status;
}

clsort_status clsort_context_set_error(clsort_context *ctx, clsort_status status,
                                       const char *message)
{
    store_message(ctx, message ? message : "");
    return status;
}

void clsort_fail_append(clsort_context *ctx, const char *text)
{
    const char *cur = clsort_context_last_error(ctx);
    size_t a = strlen(cur), b = strlen(text);
    char *msg = malloc(a + b + 1);
    if (!msg)
        return;
    memcpy(msg, cur, a);
    memcpy(msg + a, text, b + 1);
    store_message(ctx, msg);
    free(msg);
}

void clsort_clear_error(clsort_context *ctx)
{
    if (ctx && ctx->error)
        ctx->error[0] = '\0';
}

const char *clsort_context_last_error(const clsort_context *ctx)
{
    if (!ctx)
        return creation_error;
    return ctx->error ? ctx->error : "";
}
