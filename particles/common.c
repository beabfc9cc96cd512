/* common.c: error messages, solver parameter lists and aligned allocation
 * (declared in fl_common.h). */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "fl_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fl_fail(fl_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void fl_params_init(fl_params *p, const char *source)
{
    memset(p, 0, sizeof *p);
    snprintf(p->source, sizeof p->source, "%s", source ? source : "parameters");
}

int fl_params_set(fl_params *p, const char *key, double value, fl_error *err)
{
    if (strlen(key) >= FL_PARAM_KEY_LEN)
        return fl_fail(err, FL_ERR_INPUT, "%s.%s: key too long", p->source, key);
    for (int i = 0; i < p->count; i++) {
        if (strcmp(p->items[i].key, key) == 0) {
            p->items[i].value = value;
            return FL_OK;
        }
    }
    if (p->count == FL_MAX_PARAMS)
        return fl_fail(err, FL_ERR_INPUT, "%s: more than %d parameters", p->source, FL_MAX_PARAMS);
    snprintf(p->items[p->count].key, FL_PARAM_KEY_LEN, "%s", key);
    p->items[p->count].value = value;
    p->count++;
    return FL_OK;
}

int fl_params_check_known(const fl_params *p, const char *const *known, fl_error *err)
{
    for (int i = 0; i < p->count; i++) {
        int found = 0;
        for (const char *const *k = known; *k; k++)
            found |= strcmp(*k, p->items[i].key) == 0;
        if (found)
            continue;
        char list[256] = "";
        size_t len = 0;
        for (const char *const *k = known; *k && len < sizeof list; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k == known ? "" : ", ", *k);
        return fl_fail(err, FL_ERR_INPUT, "%s.%s: unknown parameter (expected one of: %s)",
                       p->source, p->items[i].key, list);
    }
    return FL_OK;
}

int fl_params_get(const fl_params *p, const char *key, double def, double lo, double hi,
                  double *out, fl_error *err)
{
    *out = def;
    for (int i = 0; i < p->count; i++) {
        if (strcmp(p->items[i].key, key) != 0)
            continue;
        double v = p->items[i].value;
        if (!(v >= lo && v <= hi))
            return fl_fail(err, FL_ERR_INPUT, "%s.%s: expected a value in [%g, %g], got %g",
                           p->source, key, lo, hi, v);
        *out = v;
    }
    if (p->taken) {
        fl_error full; /* a key past the list's room is not recorded */
        fl_params_set(p->taken, key, *out, &full);
    }
    return FL_OK;
}

int fl_params_get_int(const fl_params *p, const char *key, int def, int lo, int hi, int *out,
                      fl_error *err)
{
    double v;
    int rc = fl_params_get(p, key, def, lo, hi, &v, err);
    *out = def;
    if (rc == FL_OK && v != floor(v))
        return fl_fail(err, FL_ERR_INPUT, "%s.%s: expected a whole number, got %g", p->source, key, v);
    if (rc == FL_OK)
        *out = (int)v;
    return rc;
}

int fl_params_get_bool(const fl_params *p, const char *key, int def, int *out, fl_error *err)
{
    double v;
    int rc = fl_params_get(p, key, def, 0.0, 1.0, &v, err);
    *out = def;
    if (rc == FL_OK && v != 0.0 && v != 1.0)
        return fl_fail(err, FL_ERR_INPUT, "%s.%s: expected 0 or 1 (false or true), got %g", p->source, key,
                       v);
    if (rc == FL_OK)
        *out = v != 0.0;
    return rc;
}

void *fl_alloc(size_t bytes)
{
    if (bytes == 0)
        return NULL;
    size_t rounded = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, rounded);
}

void fl_free(void *ptr) { free(ptr); }

double fl_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0.0;
    return (double)pages * (double)page;
}
