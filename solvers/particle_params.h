/* particle_params.h: the parameters of the particle solvers, read from a
 * scene's "solvers" object by one reader each, so that the CPU solvers
 * and the device ones (solvers/dev_solver.c) take the same keys, defaults
 * and ranges. docs/methods/<solver>.md describes each key. */
#ifndef FL_PARTICLE_PARAMS_H
#define FL_PARTICLE_PARAMS_H

#include "pbf_physics.h"
#include "solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *a = the solver's shifting coefficient (docs/methods/shifting.md), 0 (off) when absent. */
static inline int fl_shifting_get(const fl_params *p, double *a, fl_error *err)
{
    return fl_params_get(p, "shifting", 0.0, 0.0, 100.0, a, err);
}

/* The course deck's forms of the SPH pressure force (sph's pressure_force). */
typedef enum fl_pressure_form {
    FL_PRESSURE_SYMMETRIC = 0, /* m (p_i/rho_i^2 + p_j/rho_j^2): fluidlab's, every solver's */
    FL_PRESSURE_MEAN = 1,      /* m/rho_j (p_i + p_j)/2, over rho_i: the deck's symmetric form */
    FL_PRESSURE_ONE_SIDED = 2  /* m/rho_j p_j, over rho_i: the deck's first form */
} fl_pressure_form;

/* A particle solver's viscosity (its viscosity_model; docs/methods/viscosity.md). */
typedef enum fl_viscosity_model {
    FL_VISCOSITY_ARTIFICIAL = 0, /* the solver's own: SPH's and PCISPH's mu (Müller), WCSPH's alpha
                                  * (Monaghan), PBF's XSPH */
    FL_VISCOSITY_MORRIS = 1      /* instead of it, Morris et al. 1997's Laplacian with the fluid's nu */
} fl_viscosity_model;

/* *model = the solver's viscosity_model, FL_VISCOSITY_ARTIFICIAL when absent;
 * fails naming the key for any other value than 0 or 1. */
static inline int fl_viscosity_model_get(const fl_params *p, int *model, fl_error *err)
{
    return fl_params_get_int(p, "viscosity_model", FL_VISCOSITY_ARTIFICIAL, FL_VISCOSITY_ARTIFICIAL,
                             FL_VISCOSITY_MORRIS, model, err);
}

typedef struct sph_params {
    double stiffness;     /* k, m^2/s^2 (Pa per kg/m^3) */
    double viscosity;     /* mu, Pa s */
    int clamp_negative;   /* 1: p = max(p, 0) */
    int sort_interval;    /* steps between re-sorts of the particle store by cell */
    int pressure_form;    /* fl_pressure_form */
    int corrected_density; /* 1: a boundary particle weighs Psi_b = rho0 V_b (Akinci); 0: the fluid's m */
    int shepard;          /* 1: Shepard's correction of the density */
    int viscosity_model;  /* fl_viscosity_model: FL_VISCOSITY_MORRIS instead of mu */
    double shifting;      /* A of particle shifting (fl_shift_displacement); 0: off */
} sph_params;

typedef struct wcsph_params {
    double c;              /* speed of sound, m/s */
    double alpha;          /* Monaghan artificial viscosity */
    double friction;       /* boundary friction sigma (Akinci 2012) */
    double cohesion;       /* kappa, m^3/s^2 */
    int clamp_negative;    /* 1: p = max(p, 0) */
    int sort_interval;     /* steps between re-sorts of the store by cell */
    int viscosity_model;   /* fl_viscosity_model: FL_VISCOSITY_MORRIS instead of alpha's Pi_ij */
    double shifting;       /* A of particle shifting (fl_shift_displacement); 0: off */
} wcsph_params;

typedef struct pcisph_params {
    double eta;            /* stop when the max density error ratio is below, fraction */
    int min_iterations;    /* never stop before (3 in the paper) */
    int max_iterations;
    double negative_scale; /* factor on a negative corrected pressure (0: p >= 0) */
    double viscosity;      /* mu, Pa s */
    int sort_interval;
    int viscosity_model;   /* fl_viscosity_model: FL_VISCOSITY_MORRIS instead of mu */
    double shifting;       /* A of particle shifting (fl_shift_displacement); 0: off */
} pcisph_params;

/* How PBF solves its density constraints (docs/methods/pbf.md, section 12). */
typedef enum fl_pbf_constraint_solver {
    FL_PBF_JACOBI = 0,          /* all constraints from the same positions, corrections summed (the paper) */
    FL_PBF_AVERAGED_JACOBI = 1, /* Jacobi, each particle's correction times omega / n_i (Macklin 2014) */
    FL_PBF_GAUSS_SEIDEL = 2,    /* one constraint after another, in particle order, each moving its particles */
    FL_PBF_SOR = 3              /* Gauss-Seidel, each projection times omega */
} fl_pbf_constraint_solver;

typedef struct pbf_params {
    int solver_iterations;    /* iterations (sweeps) per step (the most, when eta > 0) */
    double eta;               /* stop when max_i (rho_i/rho0 - 1) after an iteration is below; 0: off */
    double cfm_epsilon;       /* eps of eq. 11, as a fraction of the full-neighborhood sum_k |grad_k C|^2;
                               * 0: none (a particle without neighbors then ends the run) */
    int constraint_solver;    /* fl_pbf_constraint_solver */
    double relaxation;        /* omega of averaged Jacobi, (0, 2], and of SOR, (0, 2); 1 otherwise */
    int one_sided;            /* 1: C_i = max(rho_i/rho0 - 1, 0), only compression is corrected */
    double scorr_k;           /* k of eq. 13: the density error the artificial pressure of a pair at dq stands for */
    int scorr_n;              /* n of eq. 13 */
    double scorr_dq;          /* |dq| of eq. 13, fraction of h */
    double vorticity_epsilon; /* eps of eq. 16, m/s; 0: off */
    double xsph_c;            /* c of eq. 17 */
    int sort_interval;        /* steps between re-sorts of the store by cell; 0: never */
    int viscosity_model;      /* fl_viscosity_model: FL_VISCOSITY_MORRIS instead of XSPH */
} pbf_params;

/* Each fails with FL_ERR_INPUT and one line naming the key when a value is
 * unknown or out of range. The world gives the defaults that depend on it. */
int fl_sph_read_params(const fl_world *w, const fl_params *p, sph_params *prm, fl_error *err);
int fl_wcsph_read_params(const fl_world *w, const fl_params *p, wcsph_params *prm, fl_error *err);
int fl_pcisph_read_params(const fl_world *w, const fl_params *p, pcisph_params *prm, fl_error *err);
int fl_pbf_read_params(const fl_params *p, pbf_params *prm, fl_error *err);

/* sum_k |grad_k C|^2 of a particle with a full lattice neighborhood, 1/m^2:
 * the scale of PBF's CFM eps and s_corr strength. */
double fl_pbf_grad_sq_full(const fl_world *w);

/* The constants of PBF's physics for a step of dt. */
fl_pbf_consts fl_pbf_make_consts(const pbf_params *prm, const fl_world *w, double dt);

#ifdef __cplusplus
}
#endif

#endif
