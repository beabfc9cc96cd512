/* fl_common.h: what every fluidlab module shares.
 *
 *  - FL_HD: marks small inline functions that CUDA and C both compile,
 *    so that the host and the device compute the same numbers;
 *  - fl_error: the message buffer that library functions fill instead of
 *    printing (only bench/ prints and chooses exit codes);
 *  - status codes returned by library functions and solver steps;
 *  - fl_params: the per-solver parameter object read from a scene. */
#ifndef FL_COMMON_H
#define FL_COMMON_H

#include <stddef.h>

#ifdef __CUDACC__
#define FL_HD __host__ __device__
#else
#define FL_HD
#endif

/* FL_FORCE_INLINE: a static function to be inlined at every call even where
 * the compiler would not, so that a constant argument (a flag choosing a
 * variant of a loop) folds away and the loop vectorizes. */
#if defined(__GNUC__)
#define FL_FORCE_INLINE static inline __attribute__((always_inline))
#else
#define FL_FORCE_INLINE static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. Zero is success; every failure is negative. */
enum {
    FL_OK = 0,
    FL_ERR_INPUT = -1,    /* bad input: scene, parameter, option */
    FL_ERR_MEMORY = -2,   /* an allocation failed or would be too large */
    FL_ERR_OUTSIDE = -3,  /* a particle left the neighbor grid (NaN, blow-up) */
    FL_ERR_IO = -4,       /* a file could not be read or written */
    FL_ERR_DEVICE = -5    /* no usable CUDA device */
};

#define FL_ERROR_LEN 512

/* One human-readable line saying what went wrong. */
typedef struct fl_error {
    char msg[FL_ERROR_LEN];
} fl_error;

/* printf-style: writes the message into err (when err is not NULL) and
 * returns code, so that callers can write `return fl_fail(err, FL_ERR_INPUT, ...)`. */
int fl_fail(fl_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- solver parameters -------------------------------------------------
 * A flat list of numeric parameters (booleans are 0/1), read from the
 * scene's "solvers": { "<name>": { ... } } object and from --set.
 * `source` names where they came from ("scenes/dam_break.json: solvers.sph")
 * so that a solver can reject a key with a message a user can act on. */
#define FL_MAX_PARAMS 32
#define FL_PARAM_KEY_LEN 48

typedef struct fl_param {
    char key[FL_PARAM_KEY_LEN];
    double value;
} fl_param;

typedef struct fl_params {
    char source[256];
    int count;
    fl_param items[FL_MAX_PARAMS];
    /* when set, the getters below record there every key they read with the
     * value taken, its default when the list does not give it (what a run
     * ran with: run.json's parameters_taken) */
    struct fl_params *taken;
} fl_params;

/* Empty parameter list with a source description. */
void fl_params_init(fl_params *p, const char *source);

/* Adds or replaces key. Returns FL_ERR_INPUT when the list is full. */
int fl_params_set(fl_params *p, const char *key, double value, fl_error *err);

/* Fails with one line naming the first key of p that is not in known
 * (a NULL-terminated list), and lists the known keys. */
int fl_params_check_known(const fl_params *p, const char *const *known, fl_error *err);

/* *out = the value of key, or def when absent; fails when the value is
 * outside [lo, hi]. */
int fl_params_get(const fl_params *p, const char *key, double def, double lo, double hi,
                  double *out, fl_error *err);

/* The same for a count (an iteration count, an interval in steps): the
 * value must also be a whole number ("<source>.<key>: expected a whole
 * number, got 2.5"). */
int fl_params_get_int(const fl_params *p, const char *key, int def, int lo, int hi, int *out,
                      fl_error *err);

/* The same for a switch: 0 or 1 (a scene's false / true). */
int fl_params_get_bool(const fl_params *p, const char *key, int def, int *out, fl_error *err);

/* Allocation aligned to 64 bytes (a cache line, and an AVX-512 vector).
 * Returns NULL on failure or when bytes is 0. Free with fl_free. */
void *fl_alloc(size_t bytes);
void fl_free(void *ptr);

/* This machine's physical memory, bytes; 0 when it cannot be told. For the
 * checks that refuse, before allocating, a size no run could hold. */
double fl_physical_memory(void);

#ifdef __cplusplus
}
#endif

#endif
