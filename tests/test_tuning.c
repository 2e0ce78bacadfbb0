/* test_tuning.c - the tuning keys and the table's rows as specs, with no
 * device: every row written as a spec reads back to itself (as
 * clsort_context_save_tuning and `clsort tune --save` write it and a later
 * context reads it), the follower rule, and the removed keys. The checks
 * against a device are test_tuning_spec (test_api.c). */
#include "harness.h"
#include "internal.h"

#include <string.h>

static bool same_tuning(const clsort_tuning *a, const clsort_tuning *b)
{
    return !memcmp(a, b, sizeof *a); /* unsigned fields only: no padding */
}

void test_tuning_rows(void)
{
    size_t nrows, nkeys;
    const clsort_tuning_row *rows = clsort_tuning_rows(&nrows);
    const clsort_tuning_key *keys = clsort_tuning_key_list(&nkeys);
    CHECK(sizeof(clsort_tuning) == nkeys * sizeof(unsigned), "a field per key");
    char text[2048], again[2048], err[512];
    for (size_t r = 0; r < nrows; r++) {
        size_t len = clsort_tuning_format(&rows[r].t, text, sizeof text);
        CHECK(len < sizeof text && strlen(text) == len, "row %zu: %zu characters", r, len);
        /* every key once, in the list's order */
        const char *at = text;
        for (size_t i = 0; i < nkeys; i++) {
            char key[64];
            snprintf(key, sizeof key, "%s%s=", i ? "," : "", keys[i].key);
            const char *hit = strstr(at, key);
            CHECK(hit && (i || hit == text), "row %zu: %s in order: %s", r, keys[i].key, text);
            if (hit)
                at = hit + strlen(key);
        }
        /* read back over every field set, and over every other row */
        clsort_tuning t;
        memset(&t, 0x5a, sizeof t);
        CHECK(clsort_tuning_apply(&t, text, err, sizeof err) == CLSORT_SUCCESS, "row %zu: %s", r,
              err);
        CHECK(same_tuning(&t, &rows[r].t), "row %zu reads back: %s", r, text);
        clsort_tuning_format(&t, again, sizeof again);
        CHECK(!strcmp(text, again), "row %zu writes the same twice", r);
        for (size_t o = 0; o < nrows; o++) {
            t = rows[o].t;
            CHECK(clsort_tuning_apply_saved(&t, text, err, sizeof err) == CLSORT_SUCCESS &&
                      same_tuning(&t, &rows[r].t),
                  "row %zu saved over row %zu: %s", r, o, err);
        }
    }

    /* The follower rule: setting a key alone sets to 0 the keys that
     * follow it, through chains (big_wg_pairs follows os_wg_pairs, which
     * follows os_wg), and nothing else. */
    static const struct {
        const char *key, *zeroed;
    } rules[] = {
        {"os_rank", " os_rank_pairs "},
        {"os_wg", " os_wg_pairs os_wg_wide big_wg big_wg_pairs seg_wg "},
        {"os_items", " os_items_wide big_items seg_items "},
        {"os_wg_pairs", " big_wg_pairs "},
        {"os_items_pairs", " big_items_pairs "},
        {"lb_batch", " lb_batch_pairs "},
        {"os_persist", " os_persist_wide "},
    };
    clsort_tuning full;
    for (size_t i = 0; i < nkeys; i++)
        *(unsigned *)((char *)&full + keys[i].offset) = 1;
    for (size_t m = 0; m < nkeys; m++) {
        const char *zeroed = " ";
        for (size_t j = 0; j < sizeof rules / sizeof rules[0]; j++)
            if (!strcmp(rules[j].key, keys[m].key))
                zeroed = rules[j].zeroed;
        clsort_tuning t = full;
        char spec[64];
        snprintf(spec, sizeof spec, "%s=1", keys[m].key);
        CHECK(clsort_tuning_apply(&t, spec, err, sizeof err) == CLSORT_SUCCESS, "%s: %s", spec,
              err);
        for (size_t i = 0; i < nkeys; i++) {
            char word[64];
            snprintf(word, sizeof word, " %s ", keys[i].key);
            const unsigned v = *(const unsigned *)((const char *)&t + keys[i].offset);
            CHECK(v == (strstr(zeroed, word) ? 0u : 1u), "%s: %s=%u", spec, keys[i].key, v);
        }
    }

    /* a key named keeps its value; its followers still follow it */
    clsort_tuning u = full;
    CHECK(clsort_tuning_apply(&u, "os_wg=64,os_wg_pairs=7", err, sizeof err) == CLSORT_SUCCESS &&
              u.os_wg_pairs == 7 && u.big_wg_pairs == 0 && u.os_wg_wide == 0,
          "os_wg with os_wg_pairs: %u %u %u", u.os_wg_pairs, u.big_wg_pairs, u.os_wg_wide);
    u = full;
    CHECK(clsort_tuning_apply(&u, "os_wg=64,big_wg_pairs=96", err, sizeof err) == CLSORT_SUCCESS &&
              u.os_wg_pairs == 0 && u.big_wg_pairs == 96,
          "os_wg with big_wg_pairs: %u %u", u.os_wg_pairs, u.big_wg_pairs);

    /* removed keys: refused with a message that names the key, says it was
     * removed and what to use instead; a saved tuning that names one at the
     * value at which it did nothing still loads */
    clsort_tuning t = rows[0].t;
    CHECK(clsort_tuning_apply(&t, "nv_maxreg=0", err, sizeof err) == CLSORT_ERROR_INVALID_TUNING,
          "nv_maxreg refused");
    CHECK(strstr(err, "'nv_maxreg' was removed") && strstr(err, "CLSORT_BUILD_OPTIONS"),
          "the message: %s", err);
    CHECK(clsort_tuning_apply_saved(&t, "algorithm=classic,nv_maxreg=0,os_wg=64", err,
                                    sizeof err) == CLSORT_SUCCESS &&
              t.algorithm == CLSORT_ALGORITHM_CLASSIC && t.os_wg == 64,
          "a saved nv_maxreg=0 loads: %s", err);
    t = rows[0].t;
    CHECK(clsort_tuning_apply_saved(&t, "algorithm=classic,nv_maxreg=64", err, sizeof err) ==
              CLSORT_ERROR_INVALID_TUNING && same_tuning(&t, &rows[0].t),
          "a saved nv_maxreg=64 is refused");
    size_t nremoved;
    const clsort_tuning_removed_key *removed = clsort_tuning_removed_list(&nremoved);
    for (size_t r = 0; r < nremoved; r++)
        for (size_t i = 0; i < nkeys; i++)
            CHECK(strcmp(removed[r].key, keys[i].key), "%s removed and listed", keys[i].key);

    /* the removed match.any ranking: its name still parses, and the check
     * refuses it on any device, NVIDIA's too, naming what to use */
    {
        clsort_device_facts nv;
        memset(&nv, 0, sizeof nv);
        nv.vendor = CLSORT_VENDOR_NVIDIA;
        nv.is_gpu = true;
        nv.max_work_group_size = 1024;
        nv.local_mem_bytes = 48 << 10;
        nv.compute_units = 132;
        const char *match_specs[] = {"os_rank=match", "os_rank=ballot,os_rank_pairs=match"};
        for (int i = 0; i < 2; i++) {
            clsort_tuning m = rows[0].t;
            CHECK(clsort_tuning_apply(&m, match_specs[i], err, sizeof err) == CLSORT_SUCCESS,
                  "%s parses: %s", match_specs[i], err);
            err[0] = '\0';
            CHECK(clsort_tuning_check(&m, &nv, err, sizeof err) == CLSORT_ERROR_INVALID_TUNING &&
                      strstr(err, "match was removed") && strstr(err, "ballot"),
                  "%s refused by the check: %s", match_specs[i], err);
        }
    }

    /* values: names or numbers in range; a bad one's message names the key */
    t = rows[0].t;
    CHECK(clsort_tuning_apply(&t, "os_rank=local,os_rank_pairs=same,algorithm=classic", err,
                              sizeof err) == CLSORT_SUCCESS &&
              t.os_rank == CLSORT_RANK_LOCAL && t.os_rank_pairs == 0 &&
              t.algorithm == CLSORT_ALGORITHM_CLASSIC,
          "names: %s", err);
    CHECK(clsort_tuning_apply(&t, "os_rank=bogus", err, sizeof err) ==
              CLSORT_ERROR_INVALID_TUNING && strstr(err, "os_rank") && strstr(err, "atomic_or"),
          "a bad name: %s", err);
    CHECK(clsort_tuning_apply(&t, "os_wg=0x40,os_items=010", err, sizeof err) == CLSORT_SUCCESS &&
              t.os_wg == 64 && t.os_items == 8,
          "hex and octal: %s", err);
    CHECK(clsort_tuning_apply(&t, "os_wg=-1", err, sizeof err) == CLSORT_ERROR_INVALID_TUNING,
          "negative");

    /* the key list: every key at the start of a line */
    const char *list = clsort_tuning_keys();
    for (size_t i = 0; i < nkeys; i++) {
        char line[64];
        snprintf(line, sizeof line, "\n%s ", keys[i].key);
        CHECK(strstr(list, line) || !strncmp(list, line + 1, strlen(line + 1)), "%s listed",
              keys[i].key);
    }
}
