/* scene.c: the scene loader. Reads a JSON scene file with cJSON, applies the
 * command line's --set overrides to the parsed tree, validates every key
 * (unknown keys are errors: they are usually typos), counts the particles
 * the scene would create and refuses a scene that would not fit in memory,
 * then builds the world from it (fl_scene_build_world).
 *
 * Every failure is one line in err->msg:
 *   <file>: <key.path>: expected <what>, got <what>
 * (or "<file>: <key.path>: unknown key (expected one of: ...)"), so that the
 * command can print it as is. scenes/README.md lists the keys. */

#include "scene.h"

#include "analytic.h"
#include "io.h"
#include "mesh_sample.h"
#include "voxelize.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Memory estimate per particle, bytes. A fluid particle costs ~600 bytes:
 * the store (11 floats = 44 bytes, more with solver arrays), its two CSR
 * neighbor lists (fluid and boundary, ~40 neighbors x 2 lists x 4 bytes =
 * 320 bytes) and solver scratch (predicted positions, lambda, grid sort
 * keys, ...) for the rest. A boundary particle costs its 4 floats plus grid
 * binning, ~64 bytes. Deliberately rough: it only has to catch scenes that
 * are off by orders of magnitude (a spacing typed in the wrong unit). */
#define FLUID_BYTES 600.0
#define BOUNDARY_BYTES 64.0

/* A cell of the neighbor grid (cell size h, over the domain and one cell
 * beyond each wall) costs two ints (fluid and boundary cell starts) in each
 * of the two grids a run holds (the solver's and the harness's metric
 * grid). A domain much larger than its fluid (metres typed for
 * centimetres) needs more memory for its empty cells than for its
 * particles, and every step sweeps them all. */
#define CELL_BYTES 16.0

/* Particle counts are int in the store; half of INT_MAX leaves room for
 * index arithmetic (count + 1, 2 * count) in the grid and the solvers. */
#define MAX_PARTICLES (INT_MAX / 2)

/* The clock's limits (scene.h; the harness counts steps per frame in an
 * int). With fps at most 1e6 and substeps at most 1e5 every step is at
 * least 1e-11 s. */
#define MAX_FPS 1e6
#define MAX_STEPS_PER_FRAME FL_SCENE_MAX_STEPS_PER_FRAME
#define MAX_STEPS FL_SCENE_MAX_STEPS

/* A scene file larger than this is surely not a scene. */
#define MAX_FILE_BYTES (64L * 1024 * 1024)

#define KEYPATH_LEN 256

/* What every check needs: the file named in messages and the error to fill. */
typedef struct check {
    const char *file;
    fl_error *err;
    int dims;               /* the scene's "dimensions": 2 or 3 (vectors have as many numbers) */
} check;

/* ---- message helpers ----------------------------------------------------- */

/* Copies src into dst (size n) on one line: control characters become '?'
 * and a text too long ends with "...", so that a message stays one line. */
static void one_line(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    if (n == 0)
        return;
    for (; src[i] != '\0' && i + 1 < n; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[i] = (ch < 32 || ch == 127) ? '?' : (char)ch;
    }
    dst[i] = '\0';
    if (src[i] != '\0' && n > 4)
        memcpy(dst + n - 4, "...", 4);
}

static const char *json_kind(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "an object";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    return "an invalid value";
}

/* A short, one-line description of a JSON value for "got ..." (v may be
 * NULL: the key is absent). */
static void describe(const cJSON *v, char *buf, size_t n)
{
    char text[48];
    if (v == NULL) {
        snprintf(buf, n, "nothing (the key is required)");
    } else if (cJSON_IsTrue(v)) {
        snprintf(buf, n, "true");
    } else if (cJSON_IsFalse(v)) {
        snprintf(buf, n, "false");
    } else if (cJSON_IsNull(v)) {
        snprintf(buf, n, "null");
    } else if (cJSON_IsNumber(v)) {
        snprintf(buf, n, "%g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        one_line(text, sizeof text, v->valuestring);
        snprintf(buf, n, "\"%s\"", text);
    } else if (cJSON_IsArray(v)) {
        /* Short arrays of scalars are shown; longer ones by their size. */
        int size = cJSON_GetArraySize(v), scalars = 1;
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            if (cJSON_IsArray(e) || cJSON_IsObject(e))
                scalars = 0;
        }
        if (size == 0) {
            snprintf(buf, n, "an empty array");
        } else if (size <= 4 && scalars) {
            size_t used = 0;
            char item[64];
            buf[0] = '\0';
            cJSON_ArrayForEach(e, v) {
                describe(e, item, sizeof item);
                used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s",
                                         used == 0 ? "[" : ", ", item);
                if (used >= n)
                    break;
            }
            if (used < n)
                snprintf(buf + used, n - used, "]");
        } else {
            snprintf(buf, n, "an array of %d element%s", size, size == 1 ? "" : "s");
        }
    } else if (cJSON_IsObject(v)) {
        snprintf(buf, n, "an object");
    } else {
        snprintf(buf, n, "an invalid value");
    }
}

/* "<file>: <keypath>: expected <expected>, got <got>" */
static int fail_got(const check *c, const char *keypath, const char *expected, const char *got)
{
    return fl_fail(c->err, FL_ERR_INPUT, "%s: %s: expected %s, got %s", c->file, keypath,
                   expected, got);
}

static int fail_value(const check *c, const char *keypath, const char *expected, const cJSON *v)
{
    char got[128];
    describe(v, got, sizeof got);
    return fail_got(c, keypath, expected, got);
}

/* parent.key, or key at the top level. */
static void join_key(char *dst, size_t n, const char *parent, const char *key)
{
    char k[64];
    one_line(k, sizeof k, key);
    /* Bounded parts, so the whole fits a KEYPATH_LEN buffer. */
    snprintf(dst, n, "%.190s%s%.63s", parent, parent[0] != '\0' ? "." : "", k);
}

static void join_index(char *dst, size_t n, const char *parent, int index)
{
    /* bounded like join_key, so that the whole fits a KEYPATH_LEN buffer */
    snprintf(dst, n, "%.200s[%d]", parent, index);
}

static void format_vec3(char *buf, size_t n, const double v[3])
{
    snprintf(buf, n, "[%g, %g, %g]", v[0], v[1], v[2]);
}

/* Bytes as GiB with a sensible number of digits. */
static void format_gib(char *buf, size_t n, double bytes)
{
    double gib = bytes / (1024.0 * 1024.0 * 1024.0);
    if (gib < 10.0)
        snprintf(buf, n, "%.1f", gib);
    else if (gib < 1e6)
        snprintf(buf, n, "%.0f", gib);
    else
        snprintf(buf, n, "%.3g", gib);
}

/* ---- generic checks -------------------------------------------------------- */

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Every member of obj must be one of known (NULL-terminated) and appear
 * once. Checked before any value is read, so that a typo is reported as
 * the unknown key it is rather than as the required key it hides. */
static int check_keys(const check *c, const cJSON *obj, const char *objpath,
                      const char *const *known)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, obj) {
        char kp[KEYPATH_LEN];
        int found = 0;
        for (int k = 0; known[k] != NULL; k++)
            found |= strcmp(m->string, known[k]) == 0;
        join_key(kp, sizeof kp, objpath, m->string);
        if (!found) {
            char list[256];
            size_t used = 0;
            list[0] = '\0';
            for (int k = 0; known[k] != NULL && used < sizeof list; k++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                         k == 0 ? "" : ", ", known[k]);
            return fl_fail(c->err, FL_ERR_INPUT, "%s: %s: unknown key (expected one of: %s)",
                           c->file, kp, list);
        }
        for (const cJSON *p = obj->child; p != m; p = p->next) {
            if (strcmp(p->string, m->string) == 0)
                return fail_got(c, kp, "each key once", "it twice");
        }
    }
    return FL_OK;
}

/* Number constraints: a range with open or closed ends, and integrality. */
typedef struct number_rule {
    double lo, hi;
    int lo_open, hi_open;
    int integer;
    const char *expected;   /* for messages: "a number > 0 (m)" */
} number_rule;

static int read_number(const check *c, const cJSON *v, const char *kp, const number_rule *r,
                       double *out)
{
    double x;
    if (!cJSON_IsNumber(v))
        return fail_value(c, kp, r->expected, v);
    x = v->valuedouble;
    /* cJSON reads 1e999 as inf; no key of a scene means anything infinite. */
    if (!isfinite(x) || x < r->lo || x > r->hi || (r->lo_open && x == r->lo) ||
        (r->hi_open && x == r->hi) || (r->integer && x != floor(x)))
        return fail_value(c, kp, r->expected, v);
    *out = x;
    return FL_OK;
}

/* obj.key as a number; when absent, def, or an error when required. */
static int get_number(const check *c, const cJSON *obj, const char *objpath, const char *key,
                      int required, double def, const number_rule *r, double *out)
{
    char kp[KEYPATH_LEN];
    const cJSON *v = member(obj, key);
    join_key(kp, sizeof kp, objpath, key);
    if (v == NULL) {
        if (required)
            return fail_value(c, kp, r->expected, NULL);
        *out = def;
        return FL_OK;
    }
    return read_number(c, v, kp, r, out);
}

/* A vector of the scene's dimensions: 3 numbers, or in a 2D scene 2 (x, y;
 * z is then 0). */
static int read_vec3(const check *c, const cJSON *v, const char *kp, double out[3])
{
    const char *expected = c->dims == 2 ? "an array of 2 numbers (x, y: the scene is 2D)" : "an array of 3 numbers";
    const cJSON *e;
    int k = 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != c->dims)
        return fail_value(c, kp, expected, v);
    out[2] = 0.0;
    cJSON_ArrayForEach(e, v) {
        if (!cJSON_IsNumber(e))
            return fail_value(c, kp, expected, v);
        if (!isfinite(e->valuedouble)) /* JSON has no infinity: a number beyond a double's range */
            return fail_value(c, kp, c->dims == 2 ? "finite numbers (x, y), each within a double's range"
                                                  : "finite numbers, each within a double's range", v);
        out[k++] = e->valuedouble;
    }
    return FL_OK;
}

/* 1 when the n bytes at s are well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static int is_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        const unsigned char b = s[i];
        const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + (size_t)len > n)
            return 0;
        unsigned long cp = len == 1 ? b : len == 2 ? b & 0x1fu : len == 3 ? b & 0x0fu : b & 0x07u;
        for (int k = 1; k < len; k++) {
            if ((s[i + (size_t)k] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + (size_t)k] & 0x3fu);
        }
        static const unsigned long least[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += (size_t)len;
    }
    return 1;
}

/* {"min": [x,y,z], "max": [x,y,z]} with max > min on every axis, inside
 * domain when domain is not NULL (touching its walls is allowed). */
static int read_box(const check *c, const cJSON *v, const char *kp, const fl_box *domain,
                    fl_box *out)
{
    static const char *const keys[] = {"min", "max", NULL};
    static const char *const axis = "xyz";
    char sub[KEYPATH_LEN];
    int rc;
    if (!cJSON_IsObject(v))
        return fail_value(c, kp, "a box {\"min\": [x, y, z], \"max\": [x, y, z]}", v);
    if ((rc = check_keys(c, v, kp, keys)) != FL_OK)
        return rc;
    join_key(sub, sizeof sub, kp, "min");
    if ((rc = read_vec3(c, member(v, "min"), sub, out->lo)) != FL_OK)
        return rc;
    join_key(sub, sizeof sub, kp, "max");
    if ((rc = read_vec3(c, member(v, "max"), sub, out->hi)) != FL_OK)
        return rc;
    if (c->dims == 2) /* a nominal slab around z = 0; read_scene gives it the domain's thickness */
        out->lo[2] = -1.0, out->hi[2] = 1.0;
    for (int a = 0; a < c->dims; a++) {
        if (!(out->hi[a] > out->lo[a])) {
            char got[96];
            snprintf(got, sizeof got, "max.%c = %g <= min.%c = %g", axis[a], out->hi[a],
                     axis[a], out->lo[a]);
            return fail_got(c, kp, "max > min on every axis", got);
        }
    }
    if (domain != NULL) {
        for (int a = 0; a < c->dims; a++) {
            int low = out->lo[a] < domain->lo[a];
            if (low || out->hi[a] > domain->hi[a]) {
                char expected[160], dlo[64], dhi[64], got[64];
                format_vec3(dlo, sizeof dlo, domain->lo);
                format_vec3(dhi, sizeof dhi, domain->hi);
                snprintf(expected, sizeof expected, "a point inside the domain %s..%s", dlo, dhi);
                format_vec3(got, sizeof got, low ? out->lo : out->hi);
                join_key(sub, sizeof sub, kp, low ? "min" : "max");
                return fail_got(c, sub, expected, got);
            }
        }
    }
    return FL_OK;
}

/* An optional string of at most cap - 1 characters copied into dst. */
static int get_string(const check *c, const cJSON *obj, const char *key, char *dst, size_t cap)
{
    const cJSON *v = member(obj, key);
    char expected[64];
    snprintf(expected, sizeof expected, "a string of at most %zu characters", cap - 1);
    if (v == NULL)
        return FL_OK;
    if (!cJSON_IsString(v))
        return fail_value(c, key, expected, v);
    /* it goes into run.json, which must stay valid JSON */
    if (!is_utf8((const unsigned char *)v->valuestring, strlen(v->valuestring)))
        return fail_got(c, key, "UTF-8 text", "bytes that are not UTF-8");
    if (strlen(v->valuestring) >= cap) {
        char got[64];
        snprintf(got, sizeof got, "%zu characters", strlen(v->valuestring));
        return fail_got(c, key, expected, got);
    }
    /* One line: the name and description go into CSV headers and titles. */
    one_line(dst, cap, v->valuestring);
    return FL_OK;
}

/* ---- malformed JSON ------------------------------------------------------ */

/* Names the line and column where cJSON stopped (approximate: cJSON stops
 * where the text stopped making sense, which may be just after the error). */
static int fail_parse(const check *c, const char *text, const char *stop)
{
    int line = 1, column = 1;
    const char *p;
    char near[40];
    if (stop == NULL || stop < text || stop > text + strlen(text))
        stop = text;
    for (p = text; *p != '\0' && isspace((unsigned char)*p); p++) {
    }
    if (*p == '\0')
        return fl_fail(c->err, FL_ERR_INPUT, "%s: malformed JSON: the file is empty", c->file);
    for (p = text; p < stop; p++) {
        if (*p == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
    }
    /* The text from the stop up to the end of its line. */
    {
        size_t k = 0;
        for (p = stop; *p != '\0' && *p != '\n' && k + 1 < sizeof near; p++)
            near[k++] = (unsigned char)*p < 32 ? ' ' : *p;
        near[k] = '\0';
        while (k > 0 && near[k - 1] == ' ')
            near[--k] = '\0';
    }
    if (near[0] == '\0') {
        for (p = stop; *p != '\0' && isspace((unsigned char)*p); p++) {
        }
        return fl_fail(c->err, FL_ERR_INPUT, "%s: malformed JSON at line %d, column %d (%s)",
                       c->file, line, column,
                       *p == '\0' ? "the text ends early: a missing bracket or brace?"
                                   : "at the end of the line");
    }
    return fl_fail(c->err, FL_ERR_INPUT, "%s: malformed JSON at line %d, column %d (near \"%s\")",
                   c->file, line, column, near);
}

/* ---- --set overrides ----------------------------------------------------- */

/* One component of a key path: a name, or an index ("blocks[0]" or
 * "blocks.0"; a numeric name is an index in an array, a key in an object). */
typedef struct path_token {
    char name[64];
    int bracket;   /* written as [n]: must index an array */
} path_token;

#define MAX_SET_TOKENS 16

static int fail_set_syntax(const check *c, const char *set)
{
    char shown[128];
    one_line(shown, sizeof shown, set);
    return fl_fail(c->err, FL_ERR_INPUT, "--set %s: expected key.path=value", shown);
}

static int all_digits(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return 0;
    }
    return 1;
}

/* Splits "a.b[0].c" (the text before '=') into tokens. Returns the count,
 * or -1 when the path is malformed. */
static int tokenize_path(const char *key, size_t len, path_token *tok)
{
    int count = 0;
    size_t i = 0;
    while (i < len) {
        size_t start, n;
        int bracket = 0;
        if (count == MAX_SET_TOKENS)
            return -1;
        if (key[i] == '[') {
            bracket = 1;
            start = ++i;
            while (i < len && key[i] != ']')
                i++;
            if (i == len)
                return -1;
            n = i - start;
            i++;   /* past ']' */
        } else {
            start = i;
            while (i < len && key[i] != '.' && key[i] != '[' && key[i] != ']')
                i++;
            n = i - start;
            if (i < len && key[i] == ']')
                return -1;
        }
        if (n == 0 || n >= sizeof tok[count].name)
            return -1;
        memcpy(tok[count].name, key + start, n);
        tok[count].name[n] = '\0';
        tok[count].bracket = bracket;
        if (bracket && !all_digits(tok[count].name))
            return -1;
        count++;
        /* After a component: end, '.', or '[' (but not "a.[0]" or "a.") */
        if (i < len) {
            if (key[i] == '.') {
                i++;
                if (i == len || key[i] == '.' || key[i] == '[')
                    return -1;
            } else if (key[i] != '[') {
                return -1;
            }
        }
    }
    return count;
}

/* Applies one "key.path=value" to root, creating missing objects on the way. */
static int apply_set(const check *c, cJSON *root, const char *set)
{
    path_token tok[MAX_SET_TOKENS];
    char where[KEYPATH_LEN] = "", shown[128];
    const char *eq = strchr(set, '=');
    cJSON *cur = root, *value;
    const char *at;   /* where, or "(top level)" */
    int count;

    if (eq == NULL || eq == set)
        return fail_set_syntax(c, set);
    count = tokenize_path(set, (size_t)(eq - set), tok);
    if (count <= 0)
        return fail_set_syntax(c, set);
    one_line(shown, sizeof shown, set);

    for (int t = 0; t < count; t++) {
        int last = t == count - 1;
        cJSON *child;
        char next[KEYPATH_LEN];
        at = where[0] != '\0' ? where : "(top level)";
        if (cJSON_IsArray(cur)) {
            long index;
            int size = cJSON_GetArraySize(cur);
            if (!all_digits(tok[t].name))
                return fl_fail(c->err, FL_ERR_INPUT,
                               "--set %s: %s is an array: expected an index, got \"%s\"", shown,
                               at, tok[t].name);
            errno = 0;
            index = strtol(tok[t].name, NULL, 10);
            if (errno != 0 || index > size)
                return fl_fail(c->err, FL_ERR_INPUT,
                               "--set %s: %s has %d element%s: expected an index of at most "
                               "%d, got %s",
                               shown, at, size, size == 1 ? "" : "s", size, tok[t].name);
            join_index(next, sizeof next, where, (int)index);
            if (last)
                break;   /* handled below with the parent and the index */
            child = index < size ? cJSON_GetArrayItem(cur, (int)index) : NULL;
            if (child == NULL) {   /* index == size appends (an array when an index follows) */
                child = tok[t + 1].bracket ? cJSON_CreateArray() : cJSON_CreateObject();
                if (child == NULL || !cJSON_AddItemToArray(cur, child)) {
                    cJSON_Delete(child);
                    return fl_fail(c->err, FL_ERR_MEMORY, "--set %s: out of memory", shown);
                }
            }
        } else if (cJSON_IsObject(cur)) {
            if (tok[t].bracket)
                return fl_fail(c->err, FL_ERR_INPUT,
                               "--set %s: %s: expected an array, got an object", shown, at);
            join_key(next, sizeof next, where, tok[t].name);
            if (last)
                break;
            child = cJSON_GetObjectItemCaseSensitive(cur, tok[t].name);
            if (child == NULL) {
                /* So that --set solvers.sph.stiffness=2000 works on a scene
                 * without "solvers" (and obstacles[0]=... on one without
                 * obstacles: an array when an index follows): validation
                 * then judges the keys. */
                child = tok[t + 1].bracket ? cJSON_CreateArray() : cJSON_CreateObject();
                if (child == NULL || !cJSON_AddItemToObject(cur, tok[t].name, child)) {
                    cJSON_Delete(child);
                    return fl_fail(c->err, FL_ERR_MEMORY, "--set %s: out of memory", shown);
                }
            }
        } else {
            return fl_fail(c->err, FL_ERR_INPUT,
                           "--set %s: %s: expected an object or an array, got %s", shown, at,
                           json_kind(cur));
        }
        snprintf(where, sizeof where, "%s", next);
        cur = child;
    }

    /* cur, an object or an array, is the parent of the last component. */
    value = cJSON_ParseWithOpts(eq + 1, NULL, 1);
    if (value == NULL)
        value = cJSON_CreateString(eq + 1);   /* not JSON: a bare string */
    if (value == NULL)
        return fl_fail(c->err, FL_ERR_MEMORY, "--set %s: out of memory", shown);
    {
        const char *name = tok[count - 1].name;
        cJSON_bool ok;
        if (cJSON_IsArray(cur)) {
            int index = atoi(name), size = cJSON_GetArraySize(cur);
            ok = index < size ? cJSON_ReplaceItemInArray(cur, index, value)
                              : cJSON_AddItemToArray(cur, value);
        } else if (cJSON_GetObjectItemCaseSensitive(cur, name) != NULL) {
            ok = cJSON_ReplaceItemInObjectCaseSensitive(cur, name, value);
        } else {
            ok = cJSON_AddItemToObject(cur, name, value);
        }
        if (!ok) {
            cJSON_Delete(value);
            return fl_fail(c->err, FL_ERR_MEMORY, "--set %s: out of memory", shown);
        }
    }
    return FL_OK;
}

/* ---- the scene's sections -------------------------------------------------- */

static int read_boxes(const check *c, const cJSON *v, const char *kp, int non_empty,
                      const fl_box *domain, fl_box *boxes, int *count)
{
    char expected[160];
    int rc, k = 0;
    const cJSON *e;
    snprintf(expected, sizeof expected,
             "%s array of at most %d boxes {\"min\": [x, y, z], \"max\": [x, y, z]}",
             non_empty ? "a non-empty" : "an", FL_MAX_BOXES);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > FL_MAX_BOXES ||
        (non_empty && cJSON_GetArraySize(v) == 0))
        return fail_value(c, kp, expected, v);
    cJSON_ArrayForEach(e, v) {
        char sub[KEYPATH_LEN];
        join_index(sub, sizeof sub, kp, k);
        if ((rc = read_box(c, e, sub, domain, &boxes[k])) != FL_OK)
            return rc;
        k++;
    }
    *count = k;
    return FL_OK;
}

/* fluid.initial_velocity: {"field": "taylor_green", "amplitude": U}. The
 * domain's shape and periods are checked once the whole scene is read
 * (check_initial_velocity). */
static int read_initial_velocity(const check *c, const cJSON *v, fl_scene *s)
{
    static const char *const keys[] = {"field", "amplitude", NULL};
    /* beyond 1e3 m/s no fluid of the testbed keeps its sound speed ahead */
    static const number_rule amplitude = {0, 1e3, 1, 0, 0, "a number in (0, 1e3] (m/s)"};
    const char *expected = "an object {\"field\": \"taylor_green\", \"amplitude\": U (m/s)}";
    int rc;
    if (v == NULL)
        return FL_OK;
    if (!cJSON_IsObject(v))
        return fail_value(c, "fluid.initial_velocity", expected, v);
    if ((rc = check_keys(c, v, "fluid.initial_velocity", keys)) != FL_OK)
        return rc;
    const cJSON *field = member(v, "field");
    if (!cJSON_IsString(field) || strcmp(field->valuestring, "taylor_green") != 0)
        return fail_value(c, "fluid.initial_velocity.field", "\"taylor_green\"", field);
    s->initial_field = FL_FIELD_TAYLOR_GREEN;
    return get_number(c, v, "fluid.initial_velocity", "amplitude", 1, 0, &amplitude, &s->initial_amplitude);
}

/* The Taylor-Green field is periodic over a square: a domain square in
 * x-y, both axes periodic. */
static int check_initial_velocity(const check *c, const fl_scene *s)
{
    if (s->initial_field == FL_FIELD_NONE)
        return FL_OK;
    const double wx = s->domain.hi[0] - s->domain.lo[0], wy = s->domain.hi[1] - s->domain.lo[1];
    if (fabs(wx - wy) > 1e-9 * fmax(wx, wy)) {
        char got[96];
        snprintf(got, sizeof got, "a domain %g m by %g m", wx, wy);
        return fail_got(c, "fluid.initial_velocity", "a domain square in x and y (the Taylor-Green field's period)",
                        got);
    }
    if (!s->periodic[0] || !s->periodic[1])
        return fail_got(c, "fluid.initial_velocity", "x and y both periodic (the Taylor-Green field's period)",
                        s->periodic[0] ? "y not periodic" : "x not periodic");
    return FL_OK;
}

static int read_fluid(const check *c, const cJSON *fluid, fl_scene *s)
{
    static const char *const keys[] = {"spacing", "rest_density", "nu", "jitter", "seed", "blocks",
                                       "initial_velocity", NULL};
    static const number_rule spacing = {0, HUGE_VAL, 1, 0, 0, "a number > 0 (m)"};
    /* Densities are floats: far outside the range of real fluids (air 1.2,
     * osmium 22 600) the kernel sums over- or underflow and a run reports
     * an infinite or zero compression as if it were a result. */
    static const number_rule density = {1e-3, 1e6, 0, 0, 0, "a number in [0.001, 1e6] (kg/m^3)"};
    /* water 1e-6, glycerol 1e-3, honey about 1e-2; beyond 100 an explicit
     * viscosity step would need more substeps than any run could take */
    static const number_rule nu = {0, 100, 0, 0, 0, "a number in [0, 100] (m^2/s)"};
    static const number_rule jitter = {0, 1, 0, 1, 0, "a number in [0, 1) (fraction of spacing)"};
    /* 2^53: the largest integer a JSON number (a double) holds exactly. */
    static const number_rule seed = {0, 9007199254740992.0, 0, 0, 1,
                                     "an integer >= 0 (at most 2^53)"};
    double x;
    int rc, fluid_meshes = 0;
    if (!cJSON_IsObject(fluid))
        return fail_value(c, "fluid", "an object {\"spacing\": ..., \"blocks\": [...]}", fluid);
    if ((rc = check_keys(c, fluid, "fluid", keys)) != FL_OK ||
        (rc = get_number(c, fluid, "fluid", "spacing", 1, 0, &spacing, &s->spacing)) != FL_OK ||
        (rc = get_number(c, fluid, "fluid", "rest_density", 0, 1000, &density,
                         &s->rest_density)) != FL_OK ||
        (rc = get_number(c, fluid, "fluid", "nu", 0, 0, &nu, &s->nu)) != FL_OK ||
        (rc = get_number(c, fluid, "fluid", "jitter", 0, 0, &jitter, &s->jitter)) != FL_OK ||
        (rc = get_number(c, fluid, "fluid", "seed", 0, 1, &seed, &x)) != FL_OK ||
        (rc = read_initial_velocity(c, member(fluid, "initial_velocity"), s)) != FL_OK)
        return rc;
    s->seed = (unsigned long long)x;
    /* A fluid mesh may hold all the fluid; otherwise blocks are required. */
    for (int k = 0; k < s->mesh_count; k++)
        fluid_meshes += s->meshes[k].as == FL_MESH_FLUID;
    if ((fluid_meshes == 0 || member(fluid, "blocks") != NULL) &&
        (rc = read_boxes(c, member(fluid, "blocks"), "fluid.blocks", fluid_meshes == 0, &s->domain,
                         s->blocks, &s->block_count)) != FL_OK)
        return rc;
    /* Overlapping blocks would put two particles closer than the spacing
     * (each block has its own lattice), and the fluid would start
     * over-dense and explode. Touching faces are fine. */
    for (int i = 0; i < s->block_count; i++) {
        for (int j = 0; j < i; j++) {
            int overlap = 1;
            for (int a = 0; a < 3; a++)
                overlap &= s->blocks[i].lo[a] < s->blocks[j].hi[a] &&
                           s->blocks[j].lo[a] < s->blocks[i].hi[a];
            if (overlap) {
                char kp[KEYPATH_LEN], got[64];
                join_index(kp, sizeof kp, "fluid.blocks", i);
                snprintf(got, sizeof got, "an overlap with fluid.blocks[%d]", j);
                return fail_got(c, kp, "blocks that do not overlap", got);
            }
        }
    }
    return FL_OK;
}

/* time.dt: a step in seconds, or "cfl" for the solver's stability limit. */
static int get_dt(const check *c, const cJSON *time, fl_scene *s)
{
    static const number_rule dt = {0, HUGE_VAL, 1, 0, 0, "a number > 0 (s) or \"cfl\""};
    const cJSON *v = member(time, "dt");
    if (cJSON_IsString(v)) {
        if (strcmp(v->valuestring, "cfl") != 0)
            return fail_value(c, "time.dt", "a number > 0 (s) or \"cfl\"", v);
        s->dt_cfl = 1;
        s->dt = 0.0;
        return FL_OK;
    }
    return get_number(c, time, "time", "dt", 0, 0, &dt, &s->dt);
}

static int read_time(const check *c, const cJSON *time, fl_scene *s)
{
    static const char *const keys[] = {"duration", "fps", "substeps", "dt", NULL};
    static const number_rule duration = {0, HUGE_VAL, 1, 0, 0, "a number > 0 (s)"};
    static const number_rule fps = {0, MAX_FPS, 1, 0, 0, "a number in (0, 1e6] (frames per second)"};
    static const number_rule substeps = {1, MAX_STEPS_PER_FRAME, 0, 0, 1, "an integer in [1, 1e5]"};
    double x, dt;
    int rc;
    if (!cJSON_IsObject(time))
        return fail_value(c, "time", "an object {\"duration\": ..., \"fps\": ...}", time);
    if ((rc = check_keys(c, time, "time", keys)) != FL_OK ||
        (rc = get_number(c, time, "time", "duration", 1, 0, &duration, &s->duration)) != FL_OK ||
        (rc = get_number(c, time, "time", "fps", 0, 30, &fps, &s->fps)) != FL_OK ||
        (rc = get_number(c, time, "time", "substeps", 0, 1, &substeps, &x)) != FL_OK ||
        (rc = get_dt(c, time, s)) != FL_OK)
        return rc;
    s->substeps = (int)x;
    if (s->dt > 0.0 && !(1.0 / (s->fps * s->dt) <= MAX_STEPS_PER_FRAME)) {
        char expected[128], got[64];
        snprintf(expected, sizeof expected,
                 "at most 1e5 steps a frame (a step of at least %.3g s at %g fps)",
                 1.0 / (s->fps * MAX_STEPS_PER_FRAME), s->fps);
        snprintf(got, sizeof got, "%g s", s->dt);
        return fail_got(c, "time.dt", expected, got);
    }
    if (s->dt > 0.0 && !(s->dt <= (1.0 / s->fps) * (1.0 + 1e-9))) {
        char expected[128], got[64];
        snprintf(expected, sizeof expected, "at most a frame, 1 / fps = %.3g s (lower time.fps for longer steps)",
                 1.0 / s->fps);
        snprintf(got, sizeof got, "%g s", s->dt);
        return fail_got(c, "time.dt", expected, got);
    }
    /* The planned steps (with "cfl", of the largest step fl_scene_dt gives). */
    dt = fl_scene_dt(s);
    if (!s->dt_cfl && !(dt <= s->duration * (1.0 + 1e-9))) {
        char expected[128], got[64];
        snprintf(expected, sizeof expected, "at least one step (of %.3g s: more time.substeps, or a longer duration)",
                 dt);
        snprintf(got, sizeof got, "%g s", s->duration);
        return fail_got(c, "time.duration", expected, got);
    }
    if (!(s->duration / dt <= MAX_STEPS)) {
        char expected[128], got[64];
        snprintf(expected, sizeof expected, "at most 1e9 steps (of %.3g s: a duration of at most %.3g s)",
                 dt, MAX_STEPS * dt);
        snprintf(got, sizeof got, "%g s (%.3g steps)", s->duration, s->duration / dt);
        return fail_got(c, "time.duration", expected, got);
    }
    return FL_OK;
}

static int read_solvers(const check *c, const cJSON *solvers, fl_scene *s)
{
    char expected[96];
    const cJSON *sv;
    int rc;
    snprintf(expected, sizeof expected, "an object of at most %d solvers {\"<name>\": {...}}",
             FL_MAX_SCENE_SOLVERS);
    if (!cJSON_IsObject(solvers) || cJSON_GetArraySize(solvers) > FL_MAX_SCENE_SOLVERS)
        return fail_value(c, "solvers", expected, solvers);
    cJSON_ArrayForEach(sv, solvers) {
        fl_scene_solver *out = &s->solvers[s->solver_count];
        char kp[KEYPATH_LEN], source[256];
        const cJSON *p;
        join_key(kp, sizeof kp, "solvers", sv->string);
        for (const cJSON *q = solvers->child; q != sv; q = q->next) {
            if (strcmp(q->string, sv->string) == 0)
                return fail_got(c, kp, "each solver once", "it twice");
        }
        if (sv->string[0] == '\0' || strlen(sv->string) >= sizeof out->name)
            return fail_got(c, kp, "a solver name of 1 to 31 characters", "another name");
        snprintf(expected, sizeof expected, "an object of at most %d parameters {\"<key>\": number}",
                 FL_MAX_PARAMS);
        if (!cJSON_IsObject(sv) || cJSON_GetArraySize(sv) > FL_MAX_PARAMS)
            return fail_value(c, kp, expected, sv);
        snprintf(out->name, sizeof out->name, "%s", sv->string);
        snprintf(source, sizeof source, "%s: solvers.%s", c->file, out->name);
        fl_params_init(&out->params, source);
        cJSON_ArrayForEach(p, sv) {
            char pk[KEYPATH_LEN];
            double value;
            join_key(pk, sizeof pk, kp, p->string);
            for (const cJSON *q = sv->child; q != p; q = q->next) {
                if (strcmp(q->string, p->string) == 0)
                    return fail_got(c, pk, "each key once", "it twice");
            }
            if (p->string[0] == '\0' || strlen(p->string) >= FL_PARAM_KEY_LEN)
                return fail_got(c, pk, "a parameter name of 1 to 47 characters", "another name");
            if (cJSON_IsBool(p)) {
                value = cJSON_IsTrue(p) ? 1.0 : 0.0;
            } else if (cJSON_IsNumber(p) && isfinite(p->valuedouble)) {
                value = p->valuedouble;
            } else {
                return fail_value(c, pk, "a number or true/false", p);
            }
            if ((rc = fl_params_set(&out->params, p->string, value, c->err)) != FL_OK)
                return rc;
        }
        s->solver_count++;
    }
    return FL_OK;
}

/* ---- the tool ------------------------------------------------------------- */

/* obj.key as one of names (NULL-terminated): its index into *out; def when absent. */
static int get_choice(const check *c, const cJSON *obj, const char *objpath, const char *key,
                      const char *const *names, int def, int *out)
{
    char kp[KEYPATH_LEN], expected[160];
    size_t used = 0;
    const cJSON *v = member(obj, key);
    join_key(kp, sizeof kp, objpath, key);
    *out = def;
    if (v == NULL)
        return FL_OK;
    for (int k = 0; names[k] != NULL; k++) {
        if (cJSON_IsString(v) && strcmp(v->valuestring, names[k]) == 0) {
            *out = k;
            return FL_OK;
        }
    }
    used += (size_t)snprintf(expected, sizeof expected, "one of");
    for (int k = 0; names[k] != NULL && used < sizeof expected; k++)
        used += (size_t)snprintf(expected + used, sizeof expected - used, "%s \"%s\"", k ? "," : "", names[k]);
    return fail_value(c, kp, expected, v);
}

static int get_bool(const check *c, const cJSON *obj, const char *objpath, const char *key, int def, int *out)
{
    char kp[KEYPATH_LEN];
    const cJSON *v = member(obj, key);
    join_key(kp, sizeof kp, objpath, key);
    if (v == NULL) {
        *out = def;
        return FL_OK;
    }
    if (!cJSON_IsBool(v))
        return fail_value(c, kp, "true or false", v);
    *out = cJSON_IsTrue(v);
    return FL_OK;
}

static int get_vec3(const check *c, const cJSON *obj, const char *objpath, const char *key, double out[3])
{
    char kp[KEYPATH_LEN];
    const cJSON *v = member(obj, key);
    join_key(kp, sizeof kp, objpath, key);
    return v == NULL ? FL_OK : read_vec3(c, v, kp, out);
}

/* tool.path: keys {"t", "position", "rotation"} with t increasing. */
static int read_path(const check *c, const cJSON *v, fl_tool_spec *t)
{
    static const char *const keys[] = {"t", "position", "rotation", NULL};
    static const number_rule time = {0, HUGE_VAL, 0, 0, 0, "a number >= 0 (s)"};
    char expected[96];
    snprintf(expected, sizeof expected, "a non-empty array of at most %d keys {\"t\": s, \"position\": [x, y, z]}",
             FL_TOOL_MAX_KEYS);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > FL_TOOL_MAX_KEYS)
        return fail_value(c, "tool.path", expected, v);
    const cJSON *e;
    int k = 0, rc;
    cJSON_ArrayForEach(e, v) {
        char kp[KEYPATH_LEN], sub[KEYPATH_LEN];
        fl_tool_key *key = &t->keys[k];
        join_index(kp, sizeof kp, "tool.path", k);
        if (!cJSON_IsObject(e))
            return fail_value(c, kp, "a key {\"t\": s, \"position\": [x, y, z], \"rotation\": [deg, deg, deg]}", e);
        if ((rc = check_keys(c, e, kp, keys)) != FL_OK ||
            (rc = get_number(c, e, kp, "t", 1, 0, &time, &key->t)) != FL_OK)
            return rc;
        join_key(sub, sizeof sub, kp, "position");
        if ((rc = read_vec3(c, member(e, "position"), sub, key->pos)) != FL_OK ||
            (rc = get_vec3(c, e, kp, "rotation", key->rot)) != FL_OK)
            return rc;
        if (k > 0 && !(key->t > t->keys[k - 1].t)) {
            char exp[96], got[64];
            join_key(sub, sizeof sub, kp, "t");
            snprintf(exp, sizeof exp, "a time after tool.path[%d].t = %g s (keys in time order)", k - 1,
                     t->keys[k - 1].t);
            snprintf(got, sizeof got, "%g s", key->t);
            return fail_got(c, sub, exp, got);
        }
        k++;
    }
    t->key_count = k;
    return FL_OK;
}

/* tool.adhesion and tool.damping: {"enabled": bool, ...}; present means on
 * unless "enabled" says otherwise. */
static int read_tool_forces(const check *c, const cJSON *tool, fl_scene *s)
{
    static const char *const adh_keys[] = {"enabled", "k", "cd", "a", "b", NULL};
    static const char *const damp_keys[] = {"enabled", "k", NULL};
    static const number_rule positive = {0, HUGE_VAL, 0, 0, 0, "a number >= 0"};
    static const number_rule distance = {0, HUGE_VAL, 0, 0, 0, "a number >= 0 (m)"};
    fl_tool_spec *t = &s->tool;
    const double h = 2.0 * s->spacing;
    const cJSON *a = member(tool, "adhesion"), *d = member(tool, "damping");
    int rc;
    t->adh_cd = 27.0 / 4.0; /* the kernel's deepest point is then -1 */
    t->adh_a = 0.0, t->adh_b = h;
    if (a != NULL) {
        if (!cJSON_IsObject(a))
            return fail_value(c, "tool.adhesion", "an object {\"k\": N/m^3, \"cd\", \"a\": m, \"b\": m}", a);
        if ((rc = check_keys(c, a, "tool.adhesion", adh_keys)) != FL_OK ||
            (rc = get_bool(c, a, "tool.adhesion", "enabled", 1, &t->adhesion)) != FL_OK ||
            (rc = get_number(c, a, "tool.adhesion", "k", 1, 0, &positive, &t->adh_k)) != FL_OK ||
            (rc = get_number(c, a, "tool.adhesion", "cd", 0, t->adh_cd, &positive, &t->adh_cd)) != FL_OK ||
            (rc = get_number(c, a, "tool.adhesion", "a", 0, 0.0, &distance, &t->adh_a)) != FL_OK ||
            (rc = get_number(c, a, "tool.adhesion", "b", 0, h, &distance, &t->adh_b)) != FL_OK)
            return rc;
        if (!(t->adh_b > t->adh_a)) {
            char got[64];
            snprintf(got, sizeof got, "b = %g m <= a = %g m", t->adh_b, t->adh_a);
            return fail_got(c, "tool.adhesion.b", "a band with b > a", got);
        }
    }
    if (d != NULL) {
        if (!cJSON_IsObject(d))
            return fail_value(c, "tool.damping", "an object {\"k\": kg/s}", d);
        if ((rc = check_keys(c, d, "tool.damping", damp_keys)) != FL_OK ||
            (rc = get_bool(c, d, "tool.damping", "enabled", 1, &t->damping)) != FL_OK ||
            (rc = get_number(c, d, "tool.damping", "k", 1, 0, &positive, &t->damp_k)) != FL_OK)
            return rc;
    }
    return FL_OK;
}

static int get_scale(const check *c, const cJSON *obj, const char *objpath, double out[3]);
static int load_mesh(const check *c, const char *name, const char *kp, const double a[12], fl_mesh *out,
                     double *volume);

/* tool.mesh and tool.scale: the OBJ file, scaled, in the tool's spec. */
static int read_tool_mesh(const check *c, const cJSON *tool, fl_tool_spec *t)
{
    const cJSON *file = member(tool, "mesh");
    double scale[3];
    int rc;
    if (!cJSON_IsString(file) || file->valuestring[0] == '\0')
        return fail_value(c, "tool.mesh", "the path of a closed OBJ file (relative to the scene's folder)", file);
    if ((rc = get_scale(c, tool, "tool", scale)) != FL_OK)
        return rc;
    const double a[12] = {scale[0], 0, 0, 0, 0, scale[1], 0, 0, 0, 0, scale[2], 0};
    return load_mesh(c, file->valuestring, "tool.mesh", a, &t->mesh, NULL);
}

static int read_tool(const check *c, const cJSON *tool, fl_scene *s)
{
    static const char *const keys[] = {"shape", "radius", "size", "mesh", "scale", "position", "rotation", "path",
                                       "interpolation", "motion", "density", "velocity", "adhesion", "damping",
                                       "contact_distance", NULL};
    static const char *const shapes[] = {"sphere", "box", "mesh", NULL};
    static const char *const motions[] = {"path", "dynamic", NULL};
    static const char *const interps[] = {"linear", "catmull_rom", NULL};
    static const number_rule length = {0, HUGE_VAL, 1, 0, 0, "a number > 0 (m)"};
    static const number_rule density = {1e-3, 1e6, 0, 0, 0, "a number in [0.001, 1e6] (kg/m^3)"};
    fl_tool_spec *t = &s->tool;
    int rc, shape;
    if (!cJSON_IsObject(tool))
        return fail_value(c, "tool", "an object {\"shape\": \"sphere\", \"radius\": m, \"position\": [x, y, z]}",
                          tool);
    if ((rc = check_keys(c, tool, "tool", keys)) != FL_OK ||
        (rc = get_choice(c, tool, "tool", "shape", shapes, -1, &shape)) != FL_OK)
        return rc;
    if (shape < 0)
        return fail_value(c, "tool.shape", "\"sphere\", \"box\" or \"mesh\"", NULL);
    static const int kinds[] = {FL_TOOL_SPHERE, FL_TOOL_BOX, FL_TOOL_MESH};
    static const char *const sizes[] = {"radius", "size", "mesh"};
    t->shape.kind = kinds[shape];
    /* each shape's own size key, and no other's */
    for (int k = 0; k < 3; k++) {
        char kp[KEYPATH_LEN], expected[96], got[16];
        if (k == shape || member(tool, sizes[k]) == NULL)
            continue;
        join_key(kp, sizeof kp, "tool", sizes[k]);
        snprintf(expected, sizeof expected, "no %s for a %s (its %s gives it)", sizes[k], shapes[shape],
                 sizes[shape]);
        snprintf(got, sizeof got, "a %s", sizes[k]);
        return fail_got(c, kp, expected, got);
    }
    if (shape != 2 && member(tool, "scale") != NULL)
        return fail_got(c, "tool.scale", "no scale but for a mesh", "a scale");
    if (shape == 2) {
        if ((rc = read_tool_mesh(c, tool, t)) != FL_OK)
            return rc;
    } else if (shape == 0) {
        double r;
        if ((rc = get_number(c, tool, "tool", "radius", 1, 0, &length, &r)) != FL_OK)
            return rc;
        t->shape.radius = (float)r;
    } else {
        double size[3];
        if ((rc = read_vec3(c, member(tool, "size"), "tool.size", size)) != FL_OK)
            return rc;
        for (int a = 0; a < 3; a++) {
            if (!(size[a] > 0.0))
                return fail_value(c, "tool.size", "three lengths > 0 (m)", member(tool, "size"));
            t->shape.half[a] = (float)(0.5 * size[a]);
        }
    }
    if ((rc = get_choice(c, tool, "tool", "motion", motions, 0, &t->motion)) != FL_OK ||
        (rc = get_choice(c, tool, "tool", "interpolation", interps, 0, &t->interp)) != FL_OK)
        return rc;
    const cJSON *path = member(tool, "path");
    if (path != NULL) {
        if (t->motion == FL_TOOL_DYNAMIC)
            return fail_got(c, "tool.path", "no path for a dynamic tool (it moves by itself: give a position)",
                            "a path");
        if (member(tool, "position") != NULL || member(tool, "rotation") != NULL)
            return fail_got(c, member(tool, "position") ? "tool.position" : "tool.rotation",
                            "no start pose beside a path (its first key is the start)", "both");
        if ((rc = read_path(c, path, t)) != FL_OK)
            return rc;
        t->from_path = 1;
    } else {
        t->key_count = 1;
        if ((rc = read_vec3(c, member(tool, "position"), "tool.position", t->keys[0].pos)) != FL_OK ||
            (rc = get_vec3(c, tool, "tool", "rotation", t->keys[0].rot)) != FL_OK)
            return rc;
    }
    if (t->motion == FL_TOOL_DYNAMIC) {
        if ((rc = get_number(c, tool, "tool", "density", 1, 0, &density, &t->density)) != FL_OK ||
            (rc = get_vec3(c, tool, "tool", "velocity", t->velocity)) != FL_OK)
            return rc;
    } else if (member(tool, "density") != NULL || member(tool, "velocity") != NULL) {
        return fail_got(c, member(tool, "density") ? "tool.density" : "tool.velocity",
                        "no density or velocity but for \"motion\": \"dynamic\"", "one");
    }
    if ((rc = get_number(c, tool, "tool", "contact_distance", 0, s->spacing, &length, &t->contact)) != FL_OK)
        return rc;
    return read_tool_forces(c, tool, s);
}

/* ---- mesh objects ------------------------------------------------------------ */

/* Rotation about x, then y, then z (degrees): R = Rz Ry Rx, as the tool's. */
static void euler_rotation(const double deg[3], double r[9])
{
    const double rad = 3.14159265358979323846 / 180.0;
    double ca = cos(deg[0] * rad), sa = sin(deg[0] * rad), cb = cos(deg[1] * rad),
           sb = sin(deg[1] * rad), cc = cos(deg[2] * rad), sc = sin(deg[2] * rad);
    r[0] = cc * cb, r[1] = cc * sb * sa - sc * ca, r[2] = cc * sb * ca + sc * sa;
    r[3] = sc * cb, r[4] = sc * sb * sa + cc * ca, r[5] = sc * sb * ca - cc * sa;
    r[6] = -sb, r[7] = cb * sa, r[8] = cb * ca;
}

/* meshes[k].scale: a number > 0, or three of them (one an axis). */
static int get_scale(const check *c, const cJSON *obj, const char *objpath, double out[3])
{
    static const char expected[] = "a number > 0 or an array of 3 numbers > 0";
    char kp[KEYPATH_LEN];
    const cJSON *v = member(obj, "scale");
    join_key(kp, sizeof kp, objpath, "scale");
    out[0] = out[1] = out[2] = 1.0;
    if (v == NULL)
        return FL_OK;
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble) || !(v->valuedouble > 0.0))
            return fail_value(c, kp, expected, v);
        out[0] = out[1] = out[2] = v->valuedouble;
        return FL_OK;
    }
    if (!cJSON_IsArray(v) || read_vec3(c, v, kp, out) != FL_OK || !(out[0] > 0.0) ||
        !(out[1] > 0.0) || !(out[2] > 0.0))
        return fail_value(c, kp, expected, v);
    return FL_OK;
}

/* The mesh file's path: as written when absolute, else relative to the
 * scene file's folder. */
static void mesh_path(const check *c, const char *name, char *dst, size_t cap)
{
    const char *slash = strrchr(c->file, '/');
    if (name[0] == '/' || slash == NULL)
        snprintf(dst, cap, "%s", name);
    else
        snprintf(dst, cap, "%.*s/%s", (int)(slash - c->file), c->file, name);
}

/* The OBJ file name (kp: its key) read relative to the scene's folder,
 * checked closed, mapped by the 3x4 matrix a (x -> A x + t, obj.h) into
 * *out, and checked to enclose a volume (outward), which goes to *volume
 * (m^3) unless NULL. */
static int load_mesh(const check *c, const char *name, const char *kp, const double a[12], fl_mesh *out,
                     double *volume)
{
    char path[1024], why[FL_ERROR_LEN];
    mesh_path(c, name, path, sizeof path);
    int rc = fl_obj_read(path, out, c->err);
    if (rc == FL_OK)
        rc = fl_mesh_check_closed(out, c->err);
    if (rc != FL_OK) {
        snprintf(why, sizeof why, "%s", c->err->msg);
        fl_mesh_free(out);
        if (rc == FL_ERR_IO)
            return fl_fail(c->err, FL_ERR_INPUT, "%s: %s: expected a readable OBJ file, got %s", c->file, kp, why);
        return fl_fail(c->err, rc, "%s: %s: %s", c->file, kp, why);
    }
    fl_mesh_transform(out, a);
    const double v = fl_mesh_volume(out);
    if (volume)
        *volume = v;
    if (!(v > 0.0)) {
        /* flat: no volume against its bounding box's, to rounding */
        double lo[3], hi[3], box = 1.0;
        fl_mesh_bounds(out, lo, hi);
        for (int k = 0; k < 3; k++)
            box *= hi[k] - lo[k];
        char got[1400];
        snprintf(got, sizeof got, "%.1000s: a volume of %g m^3 (%s)", path, v,
                 fabs(v) <= 1e-9 * box ? "it encloses none: flat" : "its faces turn inwards");
        return fail_got(c, kp, "a mesh whose faces are counter-clockwise seen from outside", got);
    }
    return FL_OK;
}

/* Reads, checks and places one mesh object: closed, outward, inside the domain. */
static int read_mesh(const check *c, const cJSON *v, const char *kp, const fl_box *domain,
                     fl_scene_mesh *out)
{
    static const char *const keys[] = {"mesh", "scale", "translate", "rotate", "as", "velocity", NULL};
    static const char *const roles[] = {"fluid", "solid", NULL};
    char sub[KEYPATH_LEN];
    const cJSON *file;
    double r[9], a[12];
    int rc;
    if (!cJSON_IsObject(v))
        return fail_value(c, kp, "a mesh object {\"mesh\": \"file.obj\", \"as\": \"fluid\" or \"solid\"}", v);
    if ((rc = check_keys(c, v, kp, keys)) != FL_OK)
        return rc;
    join_key(sub, sizeof sub, kp, "mesh");
    file = member(v, "mesh");
    if (!cJSON_IsString(file) || file->valuestring[0] == '\0')
        return fail_value(c, sub, "the path of an OBJ file (relative to the scene's folder)", file);
    join_key(sub, sizeof sub, kp, "as");
    if (member(v, "as") == NULL)
        return fail_value(c, sub, "one of \"fluid\", \"solid\"", NULL);
    if ((rc = get_choice(c, v, kp, "as", roles, FL_MESH_FLUID, &out->as)) != FL_OK ||
        (rc = get_scale(c, v, kp, out->scale)) != FL_OK ||
        (rc = get_vec3(c, v, kp, "translate", out->translate)) != FL_OK ||
        (rc = get_vec3(c, v, kp, "rotate", out->rotate)) != FL_OK ||
        (rc = get_vec3(c, v, kp, "velocity", out->velocity)) != FL_OK)
        return rc;
    join_key(sub, sizeof sub, kp, "velocity");
    if (out->as == FL_MESH_SOLID && member(v, "velocity") != NULL)
        return fl_fail(c->err, FL_ERR_INPUT, "%s: %s: expected no velocity for a solid mesh (it stands still)",
                       c->file, sub);

    /* x -> translate + R (scale x) */
    euler_rotation(out->rotate, r);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            a[4 * i + j] = r[3 * i + j] * out->scale[j];
        a[4 * i + 3] = out->translate[i];
    }
    join_key(sub, sizeof sub, kp, "mesh");
    if ((rc = load_mesh(c, file->valuestring, sub, a, &out->mesh, &out->volume)) != FL_OK)
        return rc;
    fl_mesh_bounds(&out->mesh, out->lo, out->hi);
    for (int k = 0; k < 3; k++) {
        if (out->lo[k] < domain->lo[k] || out->hi[k] > domain->hi[k]) {
            char expected[160], dlo[64], dhi[64], got[192], mlo[64], mhi[64];
            format_vec3(dlo, sizeof dlo, domain->lo);
            format_vec3(dhi, sizeof dhi, domain->hi);
            format_vec3(mlo, sizeof mlo, out->lo);
            format_vec3(mhi, sizeof mhi, out->hi);
            snprintf(expected, sizeof expected, "a mesh inside the domain %s..%s", dlo, dhi);
            snprintf(got, sizeof got, "one spanning %s..%s after scale, rotate and translate", mlo, mhi);
            return fail_got(c, kp, expected, got);
        }
    }
    return FL_OK;
}

static int read_meshes(const check *c, const cJSON *v, fl_scene *s)
{
    char expected[96];
    const cJSON *e;
    int rc;
    snprintf(expected, sizeof expected, "an array of at most %d mesh objects", FL_MAX_BOXES);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > FL_MAX_BOXES)
        return fail_value(c, "meshes", expected, v);
    cJSON_ArrayForEach(e, v) {
        char kp[KEYPATH_LEN];
        join_index(kp, sizeof kp, "meshes", s->mesh_count);
        /* counted first, so that fl_scene_free releases a mesh read before a failure */
        rc = read_mesh(c, e, kp, &s->domain, &s->meshes[s->mesh_count++]);
        if (rc != FL_OK)
            return rc;
    }
    return FL_OK;
}

static int boxes_overlap(const double alo[3], const double ahi[3], const double blo[3],
                         const double bhi[3])
{
    int overlap = 1;
    for (int a = 0; a < 3; a++)
        overlap &= alo[a] < bhi[a] && blo[a] < ahi[a];
    return overlap;
}

/* A fluid mesh has its own lattice, like a block: its bounds must not
 * overlap a block's or another fluid mesh's (docs: the blocks' rule). */
static int check_fluid_overlaps(const check *c, const fl_scene *s)
{
    for (int i = 0; i < s->mesh_count; i++) {
        const fl_scene_mesh *m = &s->meshes[i];
        char kp[KEYPATH_LEN], got[64];
        if (m->as != FL_MESH_FLUID)
            continue;
        join_index(kp, sizeof kp, "meshes", i);
        for (int b = 0; b < s->block_count; b++) {
            if (boxes_overlap(m->lo, m->hi, s->blocks[b].lo, s->blocks[b].hi)) {
                snprintf(got, sizeof got, "bounds overlapping fluid.blocks[%d]", b);
                return fail_got(c, kp, "a fluid mesh whose bounds overlap no fluid block", got);
            }
        }
        for (int j = 0; j < i; j++) {
            if (s->meshes[j].as == FL_MESH_FLUID &&
                boxes_overlap(m->lo, m->hi, s->meshes[j].lo, s->meshes[j].hi)) {
                snprintf(got, sizeof got, "bounds overlapping meshes[%d]", j);
                return fail_got(c, kp, "a fluid mesh whose bounds overlap no other fluid mesh", got);
            }
        }
    }
    return FL_OK;
}

/* The file's basename without ".json": the default scene name. */
static void default_name(const char *path, char *dst, size_t cap)
{
    const char *base = strrchr(path, '/');
    size_t n;
    base = base != NULL ? base + 1 : path;
    n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, base, n);
    dst[n] = '\0';
}

/* A 2D scene's boxes: one spacing thick in z, centred on z = 0 (the
 * world's, world.h). */
static void flatten_boxes(fl_scene *s)
{
    const double half = 0.5 * s->spacing;
    s->domain.lo[2] = -half;
    s->domain.hi[2] = half;
    for (int k = 0; k < s->block_count; k++)
        s->blocks[k].lo[2] = -half, s->blocks[k].hi[2] = half;
    for (int k = 0; k < s->obstacle_count; k++)
        s->obstacles[k].lo[2] = -half, s->obstacles[k].hi[2] = half;
}

/* ---- periodic boundaries --------------------------------------------------- */

/* Does the box lo..hi reach the face of the domain normal to axis a? */
static int reaches_face(const fl_scene *s, int a, const double lo[3], const double hi[3])
{
    return lo[a] <= s->domain.lo[a] || hi[a] >= s->domain.hi[a];
}

/* "periodic": one boolean an axis (docs/design.md, "Periodic boundaries"),
 * read after the domain, the fluid, the obstacles, the meshes and the tool,
 * which it is checked against: along a periodic axis the domain must be a
 * whole number of spacings long (the lattice tiles the period) and at least
 * 2h = 4 spacings (one image of a neighbor within h); no obstacle or solid
 * mesh may reach a periodic face, and the scene has no tool. */
static int read_periodic(const check *c, const cJSON *v, fl_scene *s)
{
    const char *expected = c->dims == 2 ? "an array of 2 booleans (x, y: the scene is 2D, z cannot wrap)"
                                        : "an array of 3 booleans (x, y, z)";
    const cJSON *e;
    int k = 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != c->dims)
        return fail_value(c, "periodic", expected, v);
    cJSON_ArrayForEach(e, v) {
        if (!cJSON_IsBool(e))
            return fail_value(c, "periodic", expected, v);
        s->periodic[k++] = cJSON_IsTrue(e);
    }
    if (!(s->periodic[0] || s->periodic[1] || s->periodic[2]))
        return FL_OK;
    if (s->tool.shape.kind != FL_TOOL_NONE)
        return fail_got(c, "tool", "no tool in a periodic scene", "a tool");
    for (int a = 0; a < 3; a++) {
        if (!s->periodic[a])
            continue;
        const double len = s->domain.hi[a] - s->domain.lo[a], n = len / s->spacing;
        char kp[KEYPATH_LEN], want[160], got[96];
        join_index(kp, sizeof kp, "periodic", a);
        if (fabs(n - floor(n + 0.5)) > 1e-6 * n || n < 4.0 - 1e-6) {
            snprintf(want, sizeof want,
                     "a domain a whole number of fluid.spacing = %g m long, at least 4 (2h), along a periodic axis",
                     s->spacing);
            snprintf(got, sizeof got, "%g m = %.6g spacings along %c", len, n, "xyz"[a]);
            return fail_got(c, kp, want, got);
        }
        for (int o = 0; o < s->obstacle_count; o++)
            if (reaches_face(s, a, s->obstacles[o].lo, s->obstacles[o].hi)) {
                join_index(kp, sizeof kp, "obstacles", o);
                snprintf(got, sizeof got, "one reaching the domain's %c faces", "xyz"[a]);
                return fail_got(c, kp, "an obstacle clear of the faces of a periodic axis", got);
            }
        for (int m = 0; m < s->mesh_count; m++)
            if (s->meshes[m].as == FL_MESH_SOLID && reaches_face(s, a, s->meshes[m].lo, s->meshes[m].hi)) {
                join_index(kp, sizeof kp, "meshes", m);
                snprintf(got, sizeof got, "one reaching the domain's %c faces", "xyz"[a]);
                return fail_got(c, kp, "a solid mesh clear of the faces of a periodic axis", got);
            }
    }
    return FL_OK;
}

static int read_scene(const check *c3, const cJSON *root, fl_scene *s)
{
    static const char *const keys[] = {"name", "description", "dimensions", "domain", "periodic", "gravity",
                                       "fluid", "obstacles", "meshes", "time", "solvers", "tool",
                                       NULL};
    static const number_rule dimensions = {2, 3, 0, 0, 1, "2 or 3"};
    check dc = *c3;
    const check *c = &dc;
    const cJSON *v;
    double dims;
    int rc;
    if (!cJSON_IsObject(root)) {
        char got[128];
        describe(root, got, sizeof got);
        return fl_fail(c->err, FL_ERR_INPUT, "%s: expected a JSON object at the top level, got %s",
                       c->file, got);
    }
    if ((rc = check_keys(c, root, "", keys)) != FL_OK ||
        (rc = get_number(c, root, "", "dimensions", 0, 3, &dimensions, &dims)) != FL_OK)
        return rc;
    s->dims = dc.dims = (int)dims;
    if (s->dims == 2 && (member(root, "meshes") != NULL || member(root, "tool") != NULL))
        return fail_got(c, member(root, "meshes") ? "meshes" : "tool", "no meshes and no tool in a 2D scene",
                        member(root, "meshes") ? "meshes" : "a tool");

    default_name(c->file, s->name, sizeof s->name);
    if ((rc = get_string(c, root, "name", s->name, sizeof s->name)) != FL_OK ||
        (rc = get_string(c, root, "description", s->description, sizeof s->description)) !=
            FL_OK)
        return rc;

    if ((rc = read_box(c, member(root, "domain"), "domain", NULL, &s->domain)) != FL_OK)
        return rc;
    /* a domain of 1e308 m was blamed on fluid.spacing (infinitely many boundary particles) */
    for (int a = 0; a < c->dims; a++)
        if (!(fabs(s->domain.lo[a]) <= 1e6 && fabs(s->domain.hi[a]) <= 1e6)) {
            char got[160], lo[64], hi[64];
            format_vec3(lo, sizeof lo, s->domain.lo);
            format_vec3(hi, sizeof hi, s->domain.hi);
            snprintf(got, sizeof got, "%s..%s", lo, hi);
            return fail_got(c, "domain", "coordinates within 1e6 m of the origin", got);
        }

    s->gravity[0] = 0.0;
    s->gravity[1] = -9.81;
    s->gravity[2] = 0.0;
    if ((v = member(root, "gravity")) != NULL && (rc = read_vec3(c, v, "gravity", s->gravity)))
        return rc;
    /* about a thousand g: beyond it a step's velocity overflows the floats (NaN positions at step 1) */
    for (int a = 0; a < 3; a++)
        if (!(fabs(s->gravity[a]) <= 1e4)) {
            char got[96];
            format_vec3(got, sizeof got, s->gravity);
            return fail_got(c, "gravity", "components of at most 1e4 m/s^2 in size", got);
        }

    /* The tank, then what stands in it, then the water: errors come in the
     * order a reader checks a scene. */
    if ((v = member(root, "obstacles")) != NULL &&
        (rc = read_boxes(c, v, "obstacles", 0, &s->domain, s->obstacles, &s->obstacle_count)))
        return rc;

    if ((v = member(root, "meshes")) != NULL && (rc = read_meshes(c, v, s)) != FL_OK)
        return rc;

    if ((rc = read_fluid(c, member(root, "fluid"), s)) != FL_OK ||
        (rc = check_fluid_overlaps(c, s)) != FL_OK ||
        (rc = read_time(c, member(root, "time"), s)) != FL_OK)
        return rc;

    if ((v = member(root, "solvers")) != NULL && (rc = read_solvers(c, v, s)) != FL_OK)
        return rc;
    if ((v = member(root, "tool")) != NULL && (rc = read_tool(c, v, s)) != FL_OK)
        return rc;
    if ((v = member(root, "periodic")) != NULL && (rc = read_periodic(c, v, s)) != FL_OK)
        return rc;
    if ((rc = check_initial_velocity(c, s)) != FL_OK)
        return rc;
    if (s->dims == 2)
        flatten_boxes(s);
    return FL_OK;
}

/* ---- the fluid's regions: blocks, and fluid meshes ---------------------------- */

/* Regions of fluid: the blocks, then the fluid meshes (region
 * block_count + j is the j-th fluid mesh). Region r's jitter uses seed + r. */
static int region_count(const fl_scene *s)
{
    int n = s->block_count;
    for (int k = 0; k < s->mesh_count; k++)
        n += s->meshes[k].as == FL_MESH_FLUID;
    return n;
}

/* The fluid mesh of region r (r >= block_count). */
static const fl_scene_mesh *region_mesh(const fl_scene *s, int r)
{
    int j = r - s->block_count;
    for (int k = 0; k < s->mesh_count; k++)
        if (s->meshes[k].as == FL_MESH_FLUID && j-- == 0)
            return &s->meshes[k];
    return NULL;
}

/* Whether a solid mesh's bounds overlap the box lo..hi. */
static int touches_solid(const fl_scene *s, const double lo[3], const double hi[3])
{
    for (int k = 0; k < s->mesh_count; k++)
        if (s->meshes[k].as == FL_MESH_SOLID && boxes_overlap(lo, hi, s->meshes[k].lo, s->meshes[k].hi))
            return 1;
    return 0;
}

/* The lattice points of region r cut by the solid meshes, x fastest:
 * a block's lattice lo + d/2 + i d (world.c's), or the cells of the
 * domain's lattice (domain.lo + d/2 + i d) whose centre lies inside a
 * fluid mesh; less the points inside a solid mesh. *points (3 *count
 * doubles) is freed with free(). *cut is 0, and nothing computed, for a
 * block that no solid mesh touches: fl_world_fill_box fills it as it
 * stands. docs/methods/voxelize.md, "Meshes in scenes". */
void fl_scene_mesh_lattice(const fl_scene *s, const fl_scene_mesh *m, fl_voxel_grid *g)
{
    const double d = s->spacing;
    g->spacing = d;
    for (int a = 0; a < 3; a++) {
        g->origin[a] = s->domain.lo[a] + floor((m->lo[a] - s->domain.lo[a]) / d) * d;
        g->dims[a] = (int)fmax(1.0, ceil((m->hi[a] - g->origin[a]) / d));
    }
}

static int region_points(const fl_scene *s, int r, double **points, int *count, int *cut,
                         fl_error *err)
{
    const double d = s->spacing;
    const fl_scene_mesh *fm = r < s->block_count ? NULL : region_mesh(s, r);
    fl_voxel_grid g;
    size_t cells;
    unsigned char *keep = NULL, *in = NULL;
    int rc = FL_OK;
    *points = NULL;
    *count = 0;
    *cut = 1;
    if (fm == NULL) {
        const fl_box *b = &s->blocks[r];
        if (!touches_solid(s, b->lo, b->hi)) {
            *cut = 0;
            return FL_OK;
        }
        g.spacing = d;
        for (int a = 0; a < 3; a++) {
            double n = floor((b->hi[a] - b->lo[a]) / d + 1e-6);
            g.origin[a] = b->lo[a];
            g.dims[a] = n > 0 ? (int)n : 0;
        }
    } else {
        fl_scene_mesh_lattice(s, fm, &g);
    }
    if (g.dims[0] == 0 || g.dims[1] == 0 || g.dims[2] == 0)
        return FL_OK;
    cells = (size_t)g.dims[0] * (size_t)g.dims[1] * (size_t)g.dims[2];
    keep = malloc(cells);
    in = malloc(cells);
    if (!keep || !in) {
        rc = fl_fail(err, FL_ERR_MEMORY, "out of memory for %zu lattice points", cells);
        goto done;
    }
    if (fm != NULL)
        rc = fl_voxelize(&fm->mesh, &g, keep, err);
    else
        memset(keep, 1, cells);
    double glo[3], ghi[3];
    for (int a = 0; a < 3; a++) {
        glo[a] = g.origin[a];
        ghi[a] = g.origin[a] + g.dims[a] * d;
    }
    for (int k = 0; k < s->mesh_count && rc == FL_OK; k++) {
        const fl_scene_mesh *m = &s->meshes[k];
        if (m->as != FL_MESH_SOLID || !boxes_overlap(glo, ghi, m->lo, m->hi))
            continue;
        rc = fl_voxelize(&m->mesh, &g, in, err);
        for (size_t c = 0; c < cells && rc == FL_OK; c++)
            keep[c] &= (unsigned char)!in[c];
    }
    size_t n = 0;
    for (size_t c = 0; c < cells && rc == FL_OK; c++)
        n += keep[c];
    if (rc == FL_OK && n > (size_t)MAX_PARTICLES)
        rc = fl_fail(err, FL_ERR_INPUT, "%zu lattice points, more than the %d a store can index", n,
                     MAX_PARTICLES);
    if (rc == FL_OK && n > 0) {
        double *xyz = malloc(3 * n * sizeof *xyz);
        size_t q = 0, nx = (size_t)g.dims[0], ny = (size_t)g.dims[1];
        if (!xyz) {
            rc = fl_fail(err, FL_ERR_MEMORY, "out of memory for %zu lattice points", n);
            goto done;
        }
        for (size_t c = 0; c < cells; c++) {
            if (!keep[c])
                continue;
            size_t i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
            /* the same expression as world.c's lattice, so that the points are its points */
            xyz[3 * q] = g.origin[0] + ((double)i + 0.5) * d;
            xyz[3 * q + 1] = g.origin[1] + ((double)j + 0.5) * d;
            xyz[3 * q + 2] = g.origin[2] + ((double)k + 0.5) * d;
            q++;
        }
        *points = xyz;
        *count = (int)n;
    }
done:
    free(keep);
    free(in);
    return rc;
}

/* Particles region r adds to a world with the scene's obstacles. */
static int region_fluid_count(const fl_scene *s, const fl_world *w, int r, long long *n,
                              fl_error *err)
{
    double *pts;
    int count, cut, rc = region_points(s, r, &pts, &count, &cut, err);
    if (rc != FL_OK)
        return rc;
    *n = cut ? fl_world_count_points(w, pts, count) : fl_world_count_box(w, &s->blocks[r]);
    free(pts);
    return FL_OK;
}

static int count_point(void *ctx, const double x[3])
{
    (void)x;
    ++*(long long *)ctx;
    return 0;
}

/* Boundary particles on the solid meshes' surfaces. */
static int mesh_boundary_count(const fl_scene *s, long long *n, fl_error *err)
{
    int rc = FL_OK;
    *n = 0;
    for (int k = 0; k < s->mesh_count && rc == FL_OK; k++)
        if (s->meshes[k].as == FL_MESH_SOLID)
            rc = fl_mesh_visit_surface(&s->meshes[k].mesh, s->spacing,
                                       FL_BOUNDARY_OFFSET * s->spacing, count_point, n, err);
    return rc;
}

/* ---- particle counts and the memory check --------------------------------- */

/* Cells of the neighbor grid of the scene's domain at support radius
 * h = 2 d (grid/nbgrid.c: the domain and one cell more on every side). */
static double grid_cells(const fl_scene *s)
{
    double h = 2.0 * s->spacing, cells = 1.0;
    for (int a = 0; a < 3; a++)
        cells *= ceil((s->domain.hi[a] - s->domain.lo[a] + 2.0 * h) / h) + 1.0;
    return cells;
}

/* Refuses a scene whose neighbor grid would not fit (or not be indexed). */
static int check_grid(const check *c, const fl_scene *s, double fluid, double boundary)
{
    double cells = grid_cells(s);
    double bytes = fluid * FLUID_BYTES + boundary * BOUNDARY_BYTES + cells * CELL_BYTES;
    double mem = fl_physical_memory();
    char need[32], have[32], dom[48];
    format_gib(need, sizeof need, bytes);
    snprintf(dom, sizeof dom, "%.3g x %.3g x %.3g m", s->domain.hi[0] - s->domain.lo[0],
             s->domain.hi[1] - s->domain.lo[1], s->domain.hi[2] - s->domain.lo[2]);
    if (mem > 0.0 && bytes > mem) {
        format_gib(have, sizeof have, mem);
        return fl_fail(c->err, FL_ERR_INPUT,
                       "%s: domain: the neighbor grids of a %s domain at h = 2 fluid.spacing = %g m need "
                       "%.3g cells (with the particles about %s GiB), more than this machine's %s GiB of "
                       "memory",
                       c->file, dom, 2.0 * s->spacing, cells, need, have);
    }
    if (cells > MAX_PARTICLES)
        return fl_fail(c->err, FL_ERR_INPUT,
                       "%s: domain: the neighbor grid of a %s domain at h = 2 fluid.spacing = %g m needs "
                       "%.3g cells, more than the %d a grid can index",
                       c->file, dom, 2.0 * s->spacing, cells, MAX_PARTICLES);
    return FL_OK;
}

/* Refuses fluid/boundary particle counts that would not fit. slack > 1
 * lets an estimate that may overshoot through (the exact count decides). */
static int check_size(const check *c, double fluid, double boundary, double slack)
{
    double bytes = fluid * FLUID_BYTES + boundary * BOUNDARY_BYTES;
    double mem = fl_physical_memory();   /* 0 when unknown: the index limit still applies */
    char need[32], have[32];
    format_gib(need, sizeof need, bytes);
    if (mem > 0.0 && bytes > slack * mem) {
        format_gib(have, sizeof have, mem);
        if (boundary * BOUNDARY_BYTES <= fluid * FLUID_BYTES)
            return fl_fail(c->err, FL_ERR_INPUT,
                           "%s: fluid.spacing: the scene needs %.3g fluid particles (about %s "
                           "GiB), more than this machine's %s GiB of memory",
                           c->file, fluid, need, have);
        return fl_fail(c->err, FL_ERR_INPUT,
                       "%s: fluid.spacing: the scene needs %.3g fluid particles and %.3g "
                       "boundary particles (about %s GiB), more than this machine's %s GiB of "
                       "memory",
                       c->file, fluid, boundary, need, have);
    }
    if (fluid > slack * MAX_PARTICLES)
        return fl_fail(c->err, FL_ERR_INPUT,
                       "%s: fluid.spacing: the scene needs %.3g fluid particles (about %s GiB), "
                       "more than the %d particles a store can index",
                       c->file, fluid, need, MAX_PARTICLES);
    if (boundary > slack * MAX_PARTICLES)
        return fl_fail(c->err, FL_ERR_INPUT,
                       "%s: fluid.spacing: the scene needs %.3g boundary particles, more than "
                       "the %d particles a store can index",
                       c->file, boundary, MAX_PARTICLES);
    return FL_OK;
}

/* Lattice points along an extent: points lo + d/2 + i d up to hi. */
static double lattice_points(double extent, double d)
{
    return floor(extent / d + 0.5);
}

/* Boundary points on the six faces of a box (one layer, a little outside or
 * inside it): a generous estimate, for the overflow guard only. */
static double surface_points(const fl_box *b, double d)
{
    double n[3];
    for (int a = 0; a < 3; a++)
        n[a] = (b->hi[a] - b->lo[a]) / d + 2.0;
    return 2.0 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0]);
}

/* A solid mesh's boundary points, generously: its area over d^2 twice,
 * and a point for every vertex and every edge's end. */
static double mesh_points(const fl_mesh *m, double d)
{
    double area = 0.0;
    for (int t = 0; t < m->triangle_count; t++) {
        const double *p0 = m->v + 3 * (size_t)m->tri[3 * t], *p1 = m->v + 3 * (size_t)m->tri[3 * t + 1],
                     *p2 = m->v + 3 * (size_t)m->tri[3 * t + 2];
        double u[3], w[3];
        for (int a = 0; a < 3; a++)
            u[a] = p1[a] - p0[a], w[a] = p2[a] - p0[a];
        area += 0.5 * sqrt(pow(u[1] * w[2] - u[2] * w[1], 2) + pow(u[2] * w[0] - u[0] * w[2], 2) +
                           pow(u[0] * w[1] - u[1] * w[0], 2));
    }
    return 2.0 * area / (d * d) + (double)m->vertex_count + 6.0 * m->triangle_count;
}

/* The tool's boundary particles, generously: a sphere's are the nodes of
 * a cube's surface lattice of about pi R / (2 d) divisions an edge; a
 * mesh's, a solid mesh's. */
static double tool_points(const fl_scene *s)
{
    const fl_tool_shape *t = &s->tool.shape;
    if (t->kind == FL_TOOL_SPHERE) {
        double n = 1.5707963267949 * t->radius / s->spacing + 1.0;
        return 6.0 * (n + 1.0) * (n + 1.0);
    }
    if (t->kind == FL_TOOL_BOX) {
        fl_box b = {{-t->half[0], -t->half[1], -t->half[2]}, {t->half[0], t->half[1], t->half[2]}};
        return surface_points(&b, s->spacing);
    }
    if (t->kind == FL_TOOL_MESH)
        return mesh_points(&s->tool.mesh, s->spacing);
    return 0.0;
}

static int count_particles(const check *c, fl_scene *s)
{
    double fluid_est = 0.0, boundary_est = surface_points(&s->domain, s->spacing);
    long long fluid = 0;
    fl_world tmp;
    int rc = FL_OK;

    /* The counting functions visit every lattice point: with a spacing in
     * the wrong unit (1e-6 in a 1 m box) that is 1e18 points. Estimate in
     * double first (obstacles ignored, so the estimate can only be high)
     * and refuse what is far out of reach before counting. */
    for (int k = 0; k < s->block_count; k++) {
        double n = 1.0;
        for (int a = 0; a < 3; a++)
            n *= lattice_points(s->blocks[k].hi[a] - s->blocks[k].lo[a], s->spacing);
        fluid_est += n;
    }
    for (int k = 0; k < s->obstacle_count; k++)
        boundary_est += surface_points(&s->obstacles[k], s->spacing);
    for (int k = 0; k < s->mesh_count; k++) {
        const fl_scene_mesh *m = &s->meshes[k];
        if (m->as == FL_MESH_FLUID) {
            double n = 1.0;
            for (int a = 0; a < 3; a++)
                n *= (m->hi[a] - m->lo[a]) / s->spacing + 1.0;
            fluid_est += n;
        } else {
            boundary_est += mesh_points(&m->mesh, s->spacing);
        }
    }
    boundary_est += tool_points(s);
    if ((rc = check_size(c, fluid_est, boundary_est, 2.0)) != FL_OK)
        return rc;

    /* A world with parameters and obstacles but no particles: counts only. */
    memset(&tmp, 0, sizeof tmp);
    fl_world_init(&tmp, &s->domain, s->gravity, s->rest_density, s->spacing, s->dims);
    memcpy(tmp.periodic, s->periodic, sizeof tmp.periodic);
    for (int k = 0; k < s->obstacle_count && rc == FL_OK; k++) {
        rc = fl_world_add_obstacle(&tmp, &s->obstacles[k], c->err);
        if (rc != FL_OK) {
            char why[FL_ERROR_LEN];
            snprintf(why, sizeof why, "%s", c->err->msg);
            rc = fl_fail(c->err, rc, "%s: obstacles[%d]: %s", c->file, k, why);
        }
    }
    for (int r = 0; r < region_count(s) && rc == FL_OK; r++) {
        long long n = 0;
        rc = region_fluid_count(s, &tmp, r, &n, c->err);
        if (rc != FL_OK) {
            char why[FL_ERROR_LEN];
            snprintf(why, sizeof why, "%s", c->err->msg);
            rc = fl_fail(c->err, rc, "%s: %s", c->file, why);
        } else if (n <= 0 && r < s->block_count) {
            char kp[KEYPATH_LEN], expected[160];
            join_index(kp, sizeof kp, "fluid.blocks", r);
            snprintf(expected, sizeof expected,
                     "a block holding fluid particles at spacing %g m (at least one spacing "
                     "thick, not all inside obstacles)",
                     s->spacing);
            rc = fail_got(c, kp, expected, "none (an empty fluid)");
        } else if (n <= 0) {
            char kp[KEYPATH_LEN], expected[160];
            join_index(kp, sizeof kp, "meshes", (int)(region_mesh(s, r) - s->meshes));
            snprintf(expected, sizeof expected,
                     "a fluid mesh holding fluid particles at spacing %g m (at least one spacing "
                     "thick, not all inside obstacles or solid meshes)",
                     s->spacing);
            rc = fail_got(c, kp, expected, "none (an empty fluid)");
        }
        fluid += n;
    }
    if (rc == FL_OK) {
        long long on_meshes = 0;
        rc = mesh_boundary_count(s, &on_meshes, c->err);
        s->fluid_count = fluid;
        s->boundary_count = fl_world_count_boundary(&tmp) + on_meshes + (long long)tool_points(s);
    }
    if (rc == FL_OK)
        rc = check_size(c, (double)s->fluid_count, (double)s->boundary_count, 1.0);
    if (rc == FL_OK)
        rc = check_grid(c, s, (double)s->fluid_count, (double)s->boundary_count);
    fl_world_free(&tmp);
    return rc;
}

/* ---- public API ------------------------------------------------------------ */

int fl_scene_parse(const char *text, const char *path, const char *const *sets, int set_count,
                   fl_scene *s, fl_error *err)
{
    check c;
    const char *stop = NULL;
    cJSON *root;
    int rc = FL_OK;

    memset(s, 0, sizeof *s);
    c.file = path != NULL ? path : "(scene)";
    c.err = err;
    c.dims = 3;
    snprintf(s->path, sizeof s->path, "%s", c.file);
    if (text == NULL)
        return fl_fail(err, FL_ERR_INPUT, "%s: malformed JSON: no text", c.file);

    /* Require the text to end after the value: trailing garbage is an error. */
    root = cJSON_ParseWithOpts(text, &stop, 1);
    if (root == NULL)
        return fail_parse(&c, text, stop);

    for (int k = 0; k < set_count && rc == FL_OK; k++) {
        if (sets != NULL && sets[k] != NULL)
            rc = apply_set(&c, root, sets[k]);
    }
    /* --set may have made the top level something else; read_scene says so. */
    if (rc == FL_OK)
        rc = read_scene(&c, root, s);
    if (rc == FL_OK)
        rc = count_particles(&c, s);
    if (rc == FL_OK) {
        /* Our own malloc'ed copy: the caller frees it with free() via
         * fl_scene_free, whatever allocator hooks cJSON has. */
        char *printed = cJSON_PrintUnformatted(root);
        if (printed == NULL) {
            rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory printing the scene", c.file);
        } else {
            size_t n = strlen(printed) + 1;
            s->json = malloc(n);
            if (s->json == NULL)
                rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory printing the scene", c.file);
            else
                memcpy(s->json, printed, n);
            cJSON_free(printed);
        }
    }
    cJSON_Delete(root);
    if (rc != FL_OK)
        fl_scene_free(s);
    return rc;
}

int fl_scene_load(const char *path, const char *const *sets, int set_count, fl_scene *s,
                  fl_error *err)
{
    char *text = NULL;
    int rc;

    memset(s, 0, sizeof *s);
    /* The scene is input: a file that cannot be read is bad input
     * (FL_ERR_INPUT, exit 1), not an output that could not be written. */
    if (path == NULL)
        return fl_fail(err, FL_ERR_INPUT, "(scene): cannot open: no file name");
    if ((rc = fl_read_text(path, MAX_FILE_BYTES, "a scene file", &text, err)) != FL_OK)
        return rc;
    rc = fl_scene_parse(text, path, sets, set_count, s, err);
    free(text);
    return rc;
}

double fl_scene_dt(const fl_scene *s)
{
    if (s->dt > 0.0)
        return s->dt;
    return 1.0 / (s->fps * (double)s->substeps);
}

void fl_scene_solver_params(const fl_scene *s, const char *name, fl_params *out)
{
    char source[256];
    for (int k = 0; k < s->solver_count; k++) {
        if (strcmp(s->solvers[k].name, name) == 0) {
            *out = s->solvers[k].params;
            return;
        }
    }
    /* The source is for messages: a very long path may be cut. */
    snprintf(source, sizeof source, "%.200s: solvers.%.40s", s->path, name);
    fl_params_init(out, source);
}

/* Puts the scene's path in front of a message from the world module. */
static int prefix_error(const fl_scene *s, fl_error *err, int rc)
{
    char why[FL_ERROR_LEN];
    snprintf(why, sizeof why, "%s", err != NULL ? err->msg : "");
    return fl_fail(err, rc, "%s: %s", s->path, why);
}

/* fluid.initial_velocity "taylor_green": every particle at the field's
 * velocity at its position (w = 0). */
static void start_taylor_green(const fl_scene *s, fl_particles *f)
{
    const double L = s->domain.hi[0] - s->domain.lo[0];
    for (int i = 0; i < f->count; i++) {
        double v[2];
        fl_taylor_green_velocity(s->initial_amplitude, L, s->domain.lo[0], s->domain.lo[1], f->x[i], f->y[i], v);
        f->vx[i] = (float)v[0], f->vy[i] = (float)v[1], f->vz[i] = 0.0f;
    }
}

int fl_scene_build_world(const fl_scene *s, fl_world *w, fl_error *err)
{
    int rc = FL_OK;
    memset(w, 0, sizeof *w);
    fl_world_init(w, &s->domain, s->gravity, s->rest_density, s->spacing, s->dims);
    w->nu = s->nu;
    memcpy(w->periodic, s->periodic, sizeof w->periodic);
    for (int k = 0; k < s->obstacle_count && rc == FL_OK; k++)
        rc = fl_world_add_obstacle(w, &s->obstacles[k], err);
    /* Reserve the counted sizes at once: one allocation each, no growth. */
    if (rc == FL_OK && s->fluid_count > 0)
        rc = fl_particles_reserve(&w->fluid, (int)s->fluid_count, err);
    if (rc == FL_OK && s->boundary_count > 0)
        rc = fl_boundary_reserve(&w->boundary, (int)s->boundary_count, err);
    /* seed + r: regions of the same size get different jitter. */
    for (int r = 0; r < region_count(s) && rc == FL_OK; r++) {
        double *pts;
        int count, cut;
        uint64_t seed = (uint64_t)(s->seed + (unsigned)r);
        const int before = w->fluid.count;
        rc = region_points(s, r, &pts, &count, &cut, err);
        if (rc == FL_OK)
            rc = cut ? fl_world_fill_points(w, pts, count, s->jitter, seed, err)
                     : fl_world_fill_box(w, &s->blocks[r], s->jitter, seed, err);
        free(pts);
        /* a fluid mesh's start velocity */
        const fl_scene_mesh *fm = r < s->block_count ? NULL : region_mesh(s, r);
        for (int i = before; fm && rc == FL_OK && i < w->fluid.count; i++)
            w->fluid.vx[i] = (float)fm->velocity[0], w->fluid.vy[i] = (float)fm->velocity[1],
            w->fluid.vz[i] = (float)fm->velocity[2];
    }
    if (rc == FL_OK && s->initial_field == FL_FIELD_TAYLOR_GREEN)
        start_taylor_green(s, &w->fluid);
    if (rc == FL_OK)
        rc = fl_world_sample_boundary(w, err);
    for (int k = 0; k < s->mesh_count && rc == FL_OK; k++) {
        fl_boundary_sink bc = {&w->boundary, err};
        if (s->meshes[k].as != FL_MESH_SOLID)
            continue;
        rc = fl_world_add_solid_mesh(w, &s->meshes[k].mesh, err);
        if (rc == FL_OK)
            rc = fl_mesh_visit_surface(&s->meshes[k].mesh, s->spacing, FL_BOUNDARY_OFFSET * s->spacing,
                                       fl_boundary_sink_add, &bc, err);
    }
    if (rc != FL_OK) {
        fl_world_free(w);
        return prefix_error(s, err, rc);
    }
    return FL_OK;
}

void fl_scene_free(fl_scene *s)
{
    if (s == NULL)
        return;
    for (int k = 0; k < s->mesh_count; k++)
        fl_mesh_free(&s->meshes[k].mesh);
    fl_mesh_free(&s->tool.mesh);
    free(s->json);
    memset(s, 0, sizeof *s);
}
