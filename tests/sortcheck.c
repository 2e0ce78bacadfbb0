/* sortcheck.c - see sortcheck.h. */
#include "sortcheck.h"

typedef struct inputs {
    unsigned char *keys, *vals, *out_k, *out_v;
    size_t *perm;
    size_t kb, vb;
} inputs;

static void free_inputs(inputs *in)
{
    free(in->keys);
    free(in->vals);
    free(in->out_k);
    free(in->out_v);
    free(in->perm);
}

static bool make_inputs(const sort_case *c, inputs *in)
{
    memset(in, 0, sizeof *in);
    size_t n = c->n;
    in->kb = clsort_type_size(c->type);
    in->vb = c->mode == CHECK_PAIRS ? c->value_size
             : c->mode == CHECK_ARGSORT ? clsort_type_size(c->index_type)
                                        : 0;
    in->keys = malloc(n * in->kb + 1);
    in->out_k = malloc(n * in->kb + 1);
    in->perm = malloc((n + 1) * sizeof *in->perm);
    if (in->vb) {
        in->vals = malloc(n * in->vb + 1);
        in->out_v = malloc(n * in->vb + 1);
    }
    if (!in->keys || !in->out_k || !in->perm || (in->vb && (!in->vals || !in->out_v))) {
        test_fail(__FILE__, __LINE__, "out of host memory (n=%zu)", n);
        free_inputs(in);
        return false;
    }
    if (c->input)
        memcpy(in->keys, c->input, n * in->kb);
    else
        data_fill(in->keys, c->type, n, c->dist, c->seed);
    if (c->mode == CHECK_PAIRS)
        data_fill_values(in->vals, c->value_size, n, c->seed);
    ref_stable_perm(c->type, in->keys, n, c->opt.begin_bit, c->opt.end_bit, c->opt.descending,
                    in->perm);
    return true;
}

static bool check_outputs(const sort_case *c, inputs *in, const char *label)
{
    size_t n = c->n;
    char what[256];
    snprintf(what, sizeof what, "%s (%s %s n=%zu bits [%u,%u) %s)", label,
             clsort_type_name(c->type), data_dist_name(c->dist), n, c->opt.begin_bit,
             c->opt.end_bit, c->opt.descending ? "desc" : "asc");
    if (c->mode == CHECK_ARGSORT) {
        for (size_t i = 0; i < n; i++) {
            uint64_t v = 0;
            memcpy(&v, in->out_v + i * in->vb, in->vb);
            if (v != in->perm[i]) {
                test_fail(__FILE__, __LINE__, "%s: index %zu is %llu, expected %zu", what, i,
                          (unsigned long long)v, in->perm[i]);
                return false;
            }
        }
        return true;
    }
    if (!check_permuted(what, in->keys, in->out_k, in->perm, n, in->kb))
        return false;
    if (c->mode == CHECK_PAIRS) {
        char vwhat[300];
        snprintf(vwhat, sizeof vwhat, "%s values of %zu bytes", what, c->value_size);
        if (!check_permuted(vwhat, in->vals, in->out_v, in->perm, n, in->vb))
            return false;
    }
    return true;
}

bool sort_and_check(clsort_context *ctx, const sort_case *c, const char *label)
{
    inputs in;
    if (!make_inputs(c, &in))
        return false;
    size_t n = c->n;
    memcpy(in.out_k, in.keys, n * in.kb);
    if (c->mode == CHECK_PAIRS)
        memcpy(in.out_v, in.vals, n * in.vb);
    clsort_status s;
    if (c->mode == CHECK_KEYS)
        s = clsort_sort_keys(ctx, c->type, in.out_k, n, &c->opt);
    else if (c->mode == CHECK_PAIRS)
        s = clsort_sort_pairs(ctx, c->type, in.out_k, in.out_v, c->value_size, n, &c->opt);
    else
        s = clsort_argsort(ctx, c->type, in.keys, n, c->index_type, in.out_v, &c->opt);
    bool ok = true;
    if (s != CLSORT_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: %s n=%zu: %s\n%s", label, clsort_type_name(c->type), n,
                  clsort_status_string(s), clsort_context_last_error(ctx));
        ok = false;
    } else {
        ok = check_outputs(c, &in, label);
    }
    free_inputs(&in);
    return ok;
}

bool sort_and_check_buffer(clsort_context *ctx, const sort_case *c, size_t guard, const char *label)
{
    inputs in;
    if (!make_inputs(c, &in))
        return false;
    size_t n = c->n, total = n + 2 * guard;
    cl_context clc = clsort_context_cl_context(ctx);
    cl_command_queue q = clsort_context_queue(ctx);
    cl_int err = CL_SUCCESS;
    cl_mem dk = clCreateBuffer(clc, CL_MEM_READ_WRITE, total * in.kb, NULL, &err);
    cl_mem dv = NULL;
    bool ok = err == CL_SUCCESS;
    if (ok && in.vb) {
        dv = clCreateBuffer(clc, CL_MEM_READ_WRITE, total * in.vb, NULL, &err);
        ok = err == CL_SUCCESS;
    }
    unsigned char *hk = malloc(total * in.kb + 1), *hv = in.vb ? malloc(total * in.vb + 1) : NULL;
    if (!ok || !hk || (in.vb && !hv)) {
        test_fail(__FILE__, __LINE__, "%s: allocation failed", label);
        ok = false;
        goto out;
    }
    /* Guards: a poison pattern that the sort must leave alone. */
    memset(hk, 0xa5, total * in.kb);
    memcpy(hk + guard * in.kb, in.keys, n * in.kb);
    if (in.vb) {
        memset(hv, 0x5a, total * in.vb);
        if (c->mode == CHECK_PAIRS)
            memcpy(hv + guard * in.vb, in.vals, n * in.vb);
    }
    err = clEnqueueWriteBuffer(q, dk, CL_TRUE, 0, total * in.kb, hk, 0, NULL, NULL);
    if (err == CL_SUCCESS && in.vb)
        err = clEnqueueWriteBuffer(q, dv, CL_TRUE, 0, total * in.vb, hv, 0, NULL, NULL);
    cl_event ev = NULL;
    clsort_status s = err;
    if (err == CL_SUCCESS) {
        if (c->mode == CHECK_KEYS)
            s = clsort_sort_keys_buffer(ctx, c->type, dk, guard, n, &c->opt, 0, NULL, &ev);
        else if (c->mode == CHECK_PAIRS)
            s = clsort_sort_pairs_buffer(ctx, c->type, dk, guard, dv, guard, c->value_size, n,
                                         &c->opt, 0, NULL, &ev);
        else
            s = clsort_argsort_buffer(ctx, c->type, dk, guard, n, c->index_type, dv, guard,
                                      &c->opt, 0, NULL, &ev);
    }
    if (s != CLSORT_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: %s\n%s", label, clsort_status_string(s),
                  clsort_context_last_error(ctx));
        ok = false;
        goto out;
    }
    if (!ev) {
        test_fail(__FILE__, __LINE__, "%s: no event returned", label);
        ok = false;
        goto out;
    }
    err = clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    unsigned char *rk = malloc(total * in.kb + 1), *rv = in.vb ? malloc(total * in.vb + 1) : NULL;
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(q, dk, CL_TRUE, 0, total * in.kb, rk, 0, NULL, NULL);
    if (err == CL_SUCCESS && in.vb)
        err = clEnqueueReadBuffer(q, dv, CL_TRUE, 0, total * in.vb, rv, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: reading back failed (%d)", label, err);
        ok = false;
    } else {
        /* guards untouched (argsort must not change the keys at all) */
        for (size_t i = 0; i < total * in.kb && ok; i++) {
            bool in_range = i >= guard * in.kb && i < (guard + n) * in.kb;
            if ((!in_range || c->mode == CHECK_ARGSORT) && rk[i] != hk[i]) {
                test_fail(__FILE__, __LINE__, "%s: key byte %zu changed outside the sort", label,
                          i);
                ok = false;
            }
        }
        for (size_t i = 0; i < total * in.vb && ok; i++) {
            bool in_range = i >= guard * in.vb && i < (guard + n) * in.vb;
            if (!in_range && rv[i] != hv[i]) {
                test_fail(__FILE__, __LINE__, "%s: value byte %zu changed outside the sort", label,
                          i);
                ok = false;
            }
        }
        if (ok) {
            memcpy(in.out_k, rk + guard * in.kb, n * in.kb);
            if (in.vb)
                memcpy(in.out_v, rv + guard * in.vb, n * in.vb);
            if (c->mode == CHECK_ARGSORT)
                memcpy(in.out_k, in.keys, n * in.kb);
            ok = check_outputs(c, &in, label);
        }
    }
    free(rk);
    free(rv);
out:
    if (dk)
        clReleaseMemObject(dk);
    if (dv)
        clReleaseMemObject(dv);
    free(hk);
    free(hv);
    free_inputs(&in);
    return ok;
}
