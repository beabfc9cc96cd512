/* registry.c: the table of CPU solvers, found by name at run time. */
#include <string.h>

#include "dev.h"

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

void *fl_solver_create(const fl_solver_ops *ops, fl_world *w, const fl_params *p, fl_error *err)
{
    if (ops->backend)
        return fl_dev_create(ops->backend, ops->name, w, p, err);
    return ops->create(w, p, err);
}
