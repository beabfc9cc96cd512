/* ensure.h: the test harness. ENSURE(cond) and ENSURE_NEAR(a, b, tol)
 * report the file, line and values of a failed check and count it; a test
 * program returns fl_test_report() from main, which prints
 * "N passed, M failed" and is non-zero when anything failed. */
#ifndef FL_ENSURE_H
#define FL_ENSURE_H

#include <math.h>
#include <stdio.h>

static int fl_test_passed, fl_test_failed;

#define ENSURE(cond)                                                            \
    do {                                                                        \
        if (cond) {                                                             \
            fl_test_passed++;                                                   \
        } else {                                                                \
            fl_test_failed++;                                                   \
            fprintf(stderr, "%s:%d: ENSURE(%s) failed\n", __FILE__, __LINE__, #cond); \
        }                                                                       \
    } while (0)

#define ENSURE_NEAR(a, b, tol)                                                  \
    do {                                                                        \
        double ensure_a_ = (double)(a), ensure_b_ = (double)(b);               \
        if (fabs(ensure_a_ - ensure_b_) <= (double)(tol)) {                     \
            fl_test_passed++;                                                   \
        } else {                                                                \
            fl_test_failed++;                                                   \
            fprintf(stderr, "%s:%d: ENSURE_NEAR(%s, %s, %s) failed: %.9g vs %.9g (diff %.3g)\n", \
                    __FILE__, __LINE__, #a, #b, #tol, ensure_a_, ensure_b_,    \
                    fabs(ensure_a_ - ensure_b_));                               \
        }                                                                       \
    } while (0)

static inline int fl_test_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, fl_test_passed, fl_test_failed);
    return fl_test_failed == 0 ? 0 : 1;
}

#endif
