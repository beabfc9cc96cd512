/* world.h: the shared state every solver works on.
 *
 * A world is the domain box, gravity, the fluid's rest density and lattice
 * spacing, the support radius h = 2d, the calibrated particle mass, the fluid
 * particles and the boundary particles (domain walls, box obstacles and
 * solid meshes, Akinci et al. 2012). Solvers borrow it during a step; the harness reads
 * only the world. */
#ifndef FL_WORLD_H
#define FL_WORLD_H

#include <stdint.h>

#include "mesh.h"
#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_MAX_BOXES 16

typedef struct fl_box {
    double lo[3], hi[3];   /* m */
} fl_box;

/* A rigid tool in the fluid (solvers/tool.h moves it; docs/methods/tool.md):
 * its shape in its own frame, and where it is and how it moves during the
 * step the solvers take. */
typedef enum fl_tool_kind { FL_TOOL_NONE = 0, FL_TOOL_SPHERE = 1, FL_TOOL_BOX = 2, FL_TOOL_MESH = 3 } fl_tool_kind;

/* A mesh tool's signed distance from its surface (negative inside),
 * sampled on a regular grid in the tool's own frame (solvers/tool.c). */
typedef struct fl_tool_sdf {
    const float *d;       /* n[0] n[1] n[2] values, m, x fastest; a device solver points it at its own copy */
    int n[3];             /* nodes along each axis (at least 2) */
    float lo[3];          /* node (0, 0, 0) in the own frame, m */
    float dx;             /* between nodes, m */
} fl_tool_sdf;

typedef struct fl_tool_shape {
    int kind;             /* fl_tool_kind */
    float radius;         /* sphere, m */
    float half[3];        /* box half extents along its own axes, m */
    fl_tool_sdf sdf;      /* mesh */
    float bound;          /* the farthest point of its surface from the own frame's origin, m (tool.c sets it) */
} fl_tool_shape;

typedef struct fl_tool_pose {
    float c[3];           /* centre, m */
    float rot[9];         /* own axes to world, row-major: world = rot * own */
    float v[3];           /* velocity of the centre, m/s */
    float omega[3];       /* angular velocity, world frame, rad/s */
} fl_tool_pose;

/* The adhesion and damping constants of the tool (solvers/tool_physics.h). */
typedef struct fl_tool_forces {
    float adh_a, adh_b;   /* A and B of eq. 13: the band of distances from the tool's surface, m */
    float adh_cd;         /* C_d of eq. 13 */
    float adh_k;          /* (K_i + K_j) / 2 of eq. 12, N/m^3 (0: adhesion off) */
    float damp_k;         /* k_Damp of eq. 14, kg/s (0: damping off) */
    float contact;        /* a particle within this distance of the surface touches the tool, m */
} fl_tool_forces;

/* The tool as a scene describes it (scenes/README.md, "tool"). */
#define FL_TOOL_MAX_KEYS 256

typedef enum fl_tool_motion {
    FL_TOOL_PATH = 0,     /* kinematic, on the keyframes (one key: held still) */
    FL_TOOL_DYNAMIC = 1,  /* moved by gravity and the fluid's force, from its density */
    FL_TOOL_STREAM = 2    /* positions read tick by tick (`fluidlab tool --input`) */
} fl_tool_motion;

typedef enum fl_tool_interp { FL_TOOL_LINEAR = 0, FL_TOOL_CATMULL_ROM = 1 } fl_tool_interp;

typedef struct fl_tool_key {
    double t;             /* s */
    double pos[3];        /* centre, m */
    double rot[3];        /* rotations about x, then y, then z, degrees */
} fl_tool_key;

typedef struct fl_tool_spec {
    fl_tool_shape shape;  /* kind FL_TOOL_NONE: the scene has no tool */
    fl_mesh mesh;         /* FL_TOOL_MESH: closed and outward, scaled, in m, in the file's axes (the scene owns
                             it; the tool's own frame is these axes with the origin at the enclosed volume's
                             centroid, which the keys' positions place) */
    int motion;           /* fl_tool_motion */
    int interp;           /* fl_tool_interp */
    int key_count;        /* >= 1; key 0 is the start pose */
    int from_path;        /* the keys came from the scene's tool.path (else tool.position and rotation) */
    fl_tool_key keys[FL_TOOL_MAX_KEYS];
    double density;       /* dynamic: kg/m^3 */
    double velocity[3];   /* dynamic: initial velocity, m/s */
    int adhesion;         /* eqs. 12-13 on */
    double adh_k;         /* (K_i + K_j)/2, N/m^3 */
    double adh_cd;        /* C_d */
    double adh_a, adh_b;  /* A, B: distances from the surface, m */
    int damping;          /* eq. 14 on */
    double damp_k;        /* kg/s */
    double contact;       /* contact distance from the surface, m */
} fl_tool_spec;

/* What the solvers see of the tool, and where they report the fluid's
 * force on it. The tool's boundary particles are the world's last ones,
 * boundary[first .. boundary.count); they move every step, so the solvers
 * bin the boundary again each step while a tool is active. */
typedef struct fl_tool_link {
    int active;           /* 0: no tool in the world */
    fl_tool_shape shape;
    fl_tool_pose pose;    /* during the current step */
    fl_tool_forces forces;
    int first;
    /* its particles in its own frame: boundary[first + k] sits at
     * pose.c + pose.rot (ox, oy, oz)[k] */
    const float *ox, *oy, *oz;
    /* set by a device solver (solvers/dev.h), which holds the fluid: it
     * places the tool's particles, gives the adhesion and damping and sums
     * the forces itself, and fl_tool_before_step only sets the pose */
    int on_device;
    /* per fluid particle: the force, N, the tool's boundary particles put
     * on it in the step (a particle solver's reaction terms; written for
     * every particle each step), NULL when no tool is active (or on a
     * device, which keeps them in its own memory) */
    float *fx, *fy, *fz;
    /* a solver's own sum instead (FLIP's over its grid, a device's
     * reduction): the force on the tool, N, and its torque about pose.c,
     * N m, from the fluid's pressure */
    double grid_force[3], grid_torque[3];
    /* the step's adhesion and damping (tool.c, or a device solver): their
     * forces on the tool, N, their torque about pose.c, N m, and the fluid
     * particles in contact */
    double adhesion[3], damping[3], impulse_torque[3];
    int contacts;
} fl_tool_link;

typedef struct fl_world {
    int dims;                        /* 3, or 2: every particle on the plane z = 0, the domain one
                                        spacing thick in z (-d/2 to d/2), the kernels normalised
                                        over the plane (docs/design.md, "2D") */
    int periodic[3];                 /* which axes wrap (docs/design.md, "Periodic boundaries") */
    fl_box domain;                   /* fluid stays inside, m */
    double gravity[3];               /* m/s^2 */
    double rho0;                     /* rest density, kg/m^3 */
    double nu;                       /* kinematic viscosity, m^2/s (fluid.nu; 0: none): the physical
                                        viscosity of a solver's viscosity_model 1 (Morris) and of
                                        FLIP's grid_viscosity (docs/methods/viscosity.md) */
    double spacing;                  /* lattice spacing d, m */
    double h;                        /* support radius, 2d, m */
    double mass;                     /* particle mass, kg (fl_world_calibrate_mass) */
    int obstacle_count;
    fl_box obstacles[FL_MAX_BOXES];  /* solid boxes inside the domain */
    int solid_mesh_count;
    fl_mesh solid_meshes[FL_MAX_BOXES]; /* closed solid meshes inside the domain, m (owned; the
                                          scene samples their boundary particles, the MAC grid
                                          rasterises them) */
    fl_particles fluid;
    fl_boundary boundary;
    fl_tool_link tool;               /* the rigid tool, when the scene has one */
    double time;                     /* simulated time, s */
} fl_world;

/* Distance, in units of d, from a wall's surface to its single layer of
 * boundary particles (behind the surface; inside an obstacle). The first
 * fluid row sits d/2 in front of the surface, so 1.15 d from the layer: at
 * that distance a particle at rest on a flat wall with a full fluid
 * neighborhood reads rho0 within 1 % under poly6 with h = 2d (computed on
 * the lattice in docs/methods/sph.md; tests/test_world.c checks it). Closer
 * layers over-count: at 0.5 d behind the surface (the lattice's own next
 * row) the first row reads 12 % over rho0. */
#define FL_BOUNDARY_OFFSET 0.65

/* The same in 2D, for a line of boundary particles under the 2D poly6: at
 * 0.69 d behind the surface the first row reads rho0 within 0.3 % (at the
 * 3D offset, 0.65 d, it read 3.2 % over: a PBF dam break stuck to the
 * floor; docs/methods/sph.md, "2D"). */
#define FL_BOUNDARY_OFFSET_2D 0.69

/* Sets the world's parameters (no particles yet): dims (2 or 3), h = 2 *
 * spacing and the calibrated mass. In 2D the domain's z range becomes
 * [-d/2, d/2] and gravity's z component 0, whatever was given. */
void fl_world_init(fl_world *w, const fl_box *domain, const double gravity[3], double rho0,
                   double spacing, int dims);

/* m = rho0 / sum_j W_poly6(x_ij) over a full cubic-lattice neighborhood of
 * spacing d (a square one in 2D; self included): a particle with complete
 * neighbors then reads exactly rho0 (in 2D, m is a mass per unit depth and
 * rho0 a mass per unit area: the same numbers per metre of depth).
 * docs/design.md, "Data layout and numerics". */
double fl_world_calibrate_mass(double rho0, double spacing, double h, int dims);

/* Fills box with fluid particles on a cubic lattice of spacing d: points
 * lo + d/2 + i d that lie inside box and outside every obstacle (in 2D the
 * square lattice on the plane z = 0, the box's z range ignored). With
 * jitter > 0 each coordinate moves by a uniform offset in
 * [-jitter d/2, jitter d/2] from a generator seeded with seed. */
int fl_world_fill_box(fl_world *w, const fl_box *box, double jitter, uint64_t seed,
                      fl_error *err);

/* Number of particles fl_world_fill_box would add (for memory checks). */
long long fl_world_count_box(const fl_world *w, const fl_box *box);

/* Adds a fluid particle at each of the count points (3 count doubles, m),
 * in order, except those inside an obstacle box, with the jitter of
 * fl_world_fill_box: the points of a box's lattice, in its order, give
 * what fl_world_fill_box gives. For lattices cut by a mesh (scene.c). */
int fl_world_fill_points(fl_world *w, const double *points, int count, double jitter,
                         uint64_t seed, fl_error *err);

/* Number of particles fl_world_fill_points would add. */
long long fl_world_count_points(const fl_world *w, const double *points, int count);

/* Adds the obstacle box (must be called before filling fluid, so fills skip it). */
int fl_world_add_obstacle(fl_world *w, const fl_box *box, fl_error *err);

/* Adds a copy of the closed, outward mesh m (world coordinates, m) as a
 * solid. The world keeps it for the grid solvers (grid/mac.h marks the
 * cells whose centre is inside SOLID); the caller keeps fluid out of it
 * and samples its boundary particles (scenes/mesh_sample.h). */
int fl_world_add_solid_mesh(fl_world *w, const fl_mesh *m, fl_error *err);

/* Samples the boundary particles: one layer on the domain walls, offset
 * FL_BOUNDARY_OFFSET * d outside them, and one on each obstacle, offset
 * inside it (in 2D one line on the outline of each, on the plane z = 0,
 * FL_BOUNDARY_OFFSET_2D * d from it). No walls on the two faces normal to
 * a periodic axis (w->periodic, set before): the other walls wrap along it,
 * round(L/d) points at lo + (i + 1/2) L/round(L/d). Volumes are left at 0:
 * fl_boundary_compute_volumes (grid/) fills them from the boundary neighbors. */
int fl_world_sample_boundary(fl_world *w, fl_error *err);

/* Calls visit(ctx, x) for points on the surface of box, spaced as close to
 * d as the box allows (each edge divided into round(L/d) equal parts, at
 * least one), each once; stops at and returns the first non-zero result. */
typedef int (*fl_point_visitor)(void *ctx, const double x[3]);
int fl_visit_box_shell(const fl_box *box, double d, fl_point_visitor visit, void *ctx);

/* A point visitor that adds each point to a store of boundary particles:
 * ctx is an fl_boundary_sink; non-zero (with err set) when one does not fit. */
typedef struct fl_boundary_sink {
    fl_boundary *b;
    fl_error *err;
} fl_boundary_sink;
int fl_boundary_sink_add(void *ctx, const double x[3]);

/* Number of boundary particles fl_world_sample_boundary would add. */
long long fl_world_count_boundary(const fl_world *w);

void fl_world_free(fl_world *w);

#ifdef __cplusplus
}
#endif

#endif
