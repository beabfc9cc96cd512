/* registry.c: the table of CPU solvers, found by name at run time. */
#include <string.h>

#include "solver.h"

extern const fl_solver_ops fl_sph_ops;
extern const fl_solver_ops fl_wcsph_ops;
extern const fl_solver_ops fl_pcisph_ops;
extern const fl_solver_ops fl_pbf_ops;
extern const fl_solver_ops fl_flip_ops;
extern const fl_solver_ops fl_pic_ops;

const fl_solver_ops *const fl_solvers[] = {&fl_sph_ops, &fl_wcsph_ops, &fl_pcisph_ops, &fl_pbf_ops,
                                           &fl_flip_ops, &fl_pic_ops, NULL};

const fl_solver_ops *fl_solver_find(const char *name)
{
    for (int k = 0; fl_solvers[k]; k++)
        if (strcmp(fl_solvers[k]->name, name) == 0)
            return fl_solvers[k];
    return NULL;
}
