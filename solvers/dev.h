/* dev.h: the device backend of the particle solvers: the data layout the
 * device kernels work on, the list of kernels, and the interface a
 * backend implements.
 *
 * One step sequence (solvers/dev_solver.c) drives every backend. A kernel
 * is a per-particle FL_HD function (solvers/dev_bodies.h) over an
 * fl_dev_view: a plain struct of array pointers and constants, the
 * particles sorted by cell, with the cell start table of the sort. A
 * backend only launches: the CUDA one (kernels_cuda/dev_cuda.cu) runs a
 * kernel as one GPU thread per particle; the emulator (solvers/dev_emu.c)
 * runs the same function in an OpenMP loop over host memory laid out as
 * on the GPU, which is how CI, without a GPU, tests the GPU's logic.
 * docs/design.md, "The CUDA backend". */
#ifndef FL_DEV_H
#define FL_DEV_H

#include "pbf_physics.h"
#include "solver.h"
#include "tool_physics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels, by name: dev_bodies.h defines fl_dev_<name>(i, view) for
 * each; the backends generate their launchers from this list. A kernel
 * that walks the boundary has a <name>_tool version, which visits a
 * rigid tool's particles too (dev_solver.c launches it when there is one). */
#define FL_DEV_KERNEL_LIST(X) \
    X(cell_key)               \
    X(cell_start)             \
    X(gather)                 \
    X(density)                \
    X(density_tool)           \
    X(sph_eos)                \
    X(sph_accel)              \
    X(sph_accel_tool)         \
    X(wcsph_eos)              \
    X(wcsph_accel)            \
    X(wcsph_accel_tool)       \
    X(integrate)              \
    X(pcisph_nonpressure)     \
    X(pcisph_nonpressure_tool) \
    X(pcisph_predict)         \
    X(pcisph_correct)         \
    X(pcisph_pressure_accel)  \
    X(pcisph_pressure_accel_tool) \
    X(pcisph_total)           \
    X(pbf_predict)            \
    X(pbf_neighbors)          \
    X(pbf_lambda)             \
    X(pbf_lambda_tool)        \
    X(pbf_delta)              \
    X(pbf_delta_tool)         \
    X(pbf_velocity_from)      \
    X(pbf_xsph)               \
    X(pbf_xsph_tool)          \
    X(pbf_confine)            \
    X(pbf_morris)             \
    X(pbf_morris_tool)        \
    X(pbf_morris_apply)       \
    X(pbf_update)             \
    X(tool_place)             \
    X(tool_impulse)

#define FL_DEV_KERNEL_ENUM(name) FL_DEV_K_##name,
typedef enum fl_dev_kernel { FL_DEV_KERNEL_LIST(FL_DEV_KERNEL_ENUM) FL_DEV_KERNEL_COUNT } fl_dev_kernel;
#undef FL_DEV_KERNEL_ENUM

/* The reductions over the particles, each a join of per-particle terms
 * (fl_dev_term in dev_bodies.h). The tool's (from FL_DEV_RED_TOOL_FORCE
 * on) sum six values in add[]: a force on the tool, N, and its torque
 * about the pose's centre, N m. */
typedef enum fl_dev_reduction {
    FL_DEV_RED_COMPRESSION, /* over red_rho: sum of max(rho/rho0 - 1, 0), max of rho/rho0 - 1 */
    FL_DEV_RED_SPEED,       /* max |v|^2 over finite particles, count of non-finite ones */
    FL_DEV_RED_ACCEL,       /* max |a|^2 over (ax, ay, az) */
    FL_DEV_RED_EXTENT,      /* max of x, y, z and of -x, -y, -z */
    FL_DEV_RED_TOOL_FORCE,  /* the reactions of the forces in tool.link.fx, fy, fz */
    FL_DEV_RED_TOOL_ADHESION, /* the reactions of the adhesion the particles are about to get */
    FL_DEV_RED_TOOL_DAMPING   /* the same of the damping; count: the particles in contact */
} fl_dev_reduction;

/* A reduction's result (and a partial one): 64 bytes. */
typedef struct fl_dev_red {
    double sum;
    union {
        double max[6];
        double add[6];      /* the tool's reductions */
    };
    int count;
    int pad;
} fl_dev_red;

/* The entries of a PBF neighbor list (fl_dev_view.nbr): more than the
 * fluid neighbors a particle has at the rest spacing, h = 2 d (32 in 3D),
 * with room for compression. */
#define FL_DEV_NBR_CAP 64

/* The most gathered arrays of one reorder. */
#define FL_DEV_MAX_GATHER 12
/* The result slots of a step's reductions: one per solver iteration, and
 * a few more. */
#define FL_DEV_RED_SLOTS (FL_MAX_HISTORY + 8)

/* The grid: the CPU neighbor grid's geometry (fl_nbgrid_init), the fluid
 * cell start table of the last sort (ncells + 1 entries: the particles of
 * cell c are start[c] .. start[c + 1]), and the walls' boundary particles
 * (not a tool's: fl_dev_tool), sorted by cell once, with theirs. */
typedef struct fl_dev_grid {
    float lo[3];
    float cell;
    int dim[3];
    int ncells;
    float r2max;          /* the neighbor criterion: r^2 < r2max (h^2) */
    int *start;
    const int *bstart;
    const float *bx, *by, *bz, *bvol;
} fl_dev_grid;

/* The rigid tool (solvers/tool.h) on the device: its particles, which the
 * boundary walks visit after the walls' cells, and what the solver
 * reports. n = 0: no tool. The particles are binned once, in the tool's
 * own frame, on a grid of cells a little larger than h (the binning
 * moves with the tool): a walk from a point within reach of the centre
 * visits the 27 cells around the point's own-frame cell. */
typedef struct fl_dev_tool {
    int n;                     /* its particles */
    float reach2;              /* (bounding radius + h)^2: a point farther from the centre has no tool neighbor */
    float lo[3], cell;         /* its own-frame grid: corner and cell size */
    int dim[3];
    const int *start;          /* the cell start table (dim[0] dim[1] dim[2] + 1 entries) */
    fl_tool_link link;         /* the host's link: shape, the step's pose, the adhesion and damping constants;
                                * fx, fy, fz per slot on the device (the force the tool's particles put on
                                * the particle in the step), and nothing of the host's arrays */
    const float *ox, *oy, *oz; /* n: own frame, in cell order */
    const float *vol;          /* n: volumes */
    float *x, *y, *z;          /* n: at the step's pose (tool_place) */
    float *vx, *vy, *vz;       /* n: the material velocity there */
    float *dx, *dy, *dz;       /* PBF, per slot: the displacement its particles gave over the iterations */
    float inv_dt2;             /* PBF: 1 / dt^2 */
} fl_dev_tool;

/* Everything a kernel reads or writes. Arrays are device memory (host
 * memory for the emulator), n entries each unless said, in cell order. */
typedef struct fl_dev_view {
    int n;                     /* fluid particles */
    fl_dev_grid grid;
    fl_dev_tool tool;
    /* the particle state */
    float *x, *y, *z, *vx, *vy, *vz;
    float *rho, *p;
    /* sorting: the positions sorted by (sx, sy, sz), their cells and order */
    const float *sx, *sy, *sz;
    int *key, *order;
    /* gather: dst[m][k] = src[m][order[k]] */
    int gather_count;
    const float *gather_src[FL_DEV_MAX_GATHER];
    float *gather_dst[FL_DEV_MAX_GATHER];
    /* the SPH family */
    float *ax, *ay, *az;       /* acceleration (PCISPH: non-pressure; PBF with Morris: nu lap v) */
    float *p_rho2, *vol;
    float *apx, *apy, *apz;    /* PCISPH: pressure acceleration */
    float *qx, *qy, *qz;       /* PCISPH: x*; PBF: the estimate an iteration reads */
    float *rho_pred;           /* PCISPH: rho* */
    /* the density kernel: rho_out from positions (ex, ey, ez), neighbors
     * chosen at (x, y, z) */
    const float *ex, *ey, *ez;
    float *rho_out;
    /* PBF */
    float *gx, *gy, *gz;       /* x* at the sort: the neighbor criterion's positions */
    float *bx, *by, *bz;       /* the estimate an iteration writes; before, lambda_i grad_i C_i */
    float *lambda, *lambda_sum;
    int *nbr, *nbr_count;      /* fluid neighbor lists: entry k of particle i at nbr[k n + i], nbr_cap entries
                                * each; nbr_count[i] all of i's neighbors (more than nbr_cap: i walks the cells) */
    int nbr_cap;
    float *ux, *uy, *uz;       /* (x* - x) / dt */
    float *wx, *wy, *wz, *wn;  /* omega and |omega| */
    /* reductions */
    const float *red_rho;
    /* constants */
    float h, m, rho0;
    int dim;                   /* the world's dims, 2 or 3 */
    float gravity[3];
    float gdt[3];              /* dt g (PBF) */
    float dt;
    fl_walls walls;
    double stiffness;          /* SPH: k */
    double tait_b;             /* WCSPH: B */
    double rho0_d;             /* rho0 as a double (the equations of state) */
    float mu;                  /* SPH, PCISPH: viscosity, Pa s (0 with Morris's) */
    int morris;                /* viscosity_model 1: Morris's nu lap v (fl_dev_morris) instead of mu, alpha or XSPH */
    float nu;                  /* its kinematic viscosity, m^2/s */
    int clamp_negative;
    float av, eps_visc, friction, kappa; /* WCSPH: 2 alpha h_s c, 0.01 h_s^2, sigma h_s c / 2, cohesion */
    double delta, negative_scale;        /* PCISPH */
    fl_pbf_consts pbf;
    int vorticity, first;                /* PBF: confinement on; first iteration */
    float dt_eps, p_scale;               /* PBF: dt eps_v; -rho0 / dt^2 */
} fl_dev_view;

/* What a backend provides. Every call returns FL_OK or FL_ERR_DEVICE (or
 * FL_ERR_MEMORY) with the failing call named in err. Calls run in order;
 * a host-side result (read, results, stage_times) waits for the ones
 * before it. */
typedef struct fl_dev_backend {
    const char *name;          /* the --device name: "cuda", "emu" */
    void *(*open)(fl_error *err);
    void (*close)(void *ctx);
    void *(*alloc)(void *ctx, size_t bytes, fl_error *err);
    void (*release)(void *ctx, void *ptr);
    int (*write)(void *ctx, void *dst, const void *src, size_t bytes, fl_error *err); /* host to device */
    int (*read)(void *ctx, void *dst, const void *src, size_t bytes, fl_error *err);  /* device to host */
    int (*launch)(void *ctx, fl_dev_kernel k, int n, const fl_dev_view *v, fl_error *err);
    /* stable sort of key[0, n) (values 0 .. ncells) carrying order */
    int (*sort)(void *ctx, fl_dev_view *v, int n, fl_error *err);
    /* the reduction r over n particles into result slot `slot` */
    int (*reduce)(void *ctx, fl_dev_reduction r, int n, const fl_dev_view *v, int slot, fl_error *err);
    /* the first count result slots */
    int (*results)(void *ctx, fl_dev_red *out, int count, fl_error *err);
    /* from now on, time goes to stage s (-1: to none) */
    void (*mark)(void *ctx, int s);
    /* the time of each stage since the last call, ms */
    int (*stage_times)(void *ctx, double ms[FL_STAGE_COUNT], fl_error *err);
} fl_dev_backend;

/* The emulator: the kernels on the host, over the device layout. */
extern const fl_dev_backend fl_dev_emu;

/* The CUDA backend (kernels_cuda/dev_cuda.cu), in builds with FL_HAVE_CUDA. */
extern const fl_dev_backend fl_dev_cuda;

/* The particle solvers on a backend: sph, wcsph, pcisph and pbf, or NULL
 * for another name. The ops have the CPU solvers' names, parameters and
 * stop criteria, and their measure and download functions (solver.h). */
const fl_solver_ops *fl_dev_solver_ops(const fl_dev_backend *be, const char *name);

/* The device solver `name` on backend be for the world w (fl_solver_create
 * calls it for ops with a backend). */
void *fl_dev_create(const fl_dev_backend *be, const char *name, fl_world *w, const fl_params *p, fl_error *err);

/* Tests: the view of a device solver (its arrays are device memory), and
 * a copy of bytes of its device memory at src to the host. */
const fl_dev_view *fl_dev_solver_view(void *solver);
/* Tests: PBF's neighbor lists cut to cap entries (at most FL_DEV_NBR_CAP),
 * so that particles with more neighbors take the cell walk. */
void fl_dev_solver_set_list_cap(void *solver, int cap);
int fl_dev_solver_read(void *solver, void *dst, const void *src, size_t bytes, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
