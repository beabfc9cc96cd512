/* scene.h: JSON scene files, validated key by key, and the world built
 * from them.
 *
 * A scene file (see scenes/README.md for every key):
 *   {
 *     "name": "dam_break", "description": "...",
 *     "domain":  { "min": [0,0,0], "max": [1.2,0.6,0.2] },
 *     "gravity": [0, -9.81, 0],
 *     "fluid":   { "spacing": 0.02, "rest_density": 1000, "nu": 0, "jitter": 0, "seed": 1,
 *                  "blocks": [ { "min": [...], "max": [...] } ],
 *                  "initial_velocity": { "field": "taylor_green", "amplitude": 1 } },
 *     "obstacles": [ { "min": [...], "max": [...] } ],
 *     "meshes":  [ { "mesh": "../reference/bunny.obj", "scale": 0.05, "translate": [...],
 *                    "rotate": [0, 90, 0], "as": "fluid" or "solid" } ],
 *     "time":    { "duration": 1.0, "fps": 30, "substeps": 20, "dt": 0.0005 or "cfl" },
 *     "solvers": { "sph": { "stiffness": 1000, ... }, "pbf": { ... } },
 *     "tool":    { "shape": "sphere", "radius": 0.05, "path": [ { "t": 0, "position": [...] }, ... ],
 *                  "adhesion": { "k": 200 }, "damping": { "k": 0.05 } }
 *   }
 * Unknown keys are errors (they are usually typos). Every message names the
 * file, the key path and what was expected. */
#ifndef FL_SCENE_H
#define FL_SCENE_H

#include "obj.h"
#include "voxelize.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_MAX_SCENE_SOLVERS 16

typedef struct fl_scene_solver {
    char name[32];
    fl_params params;   /* source: "<path>: solvers.<name>" */
} fl_scene_solver;

typedef enum fl_mesh_role { FL_MESH_FLUID = 0, FL_MESH_SOLID = 1 } fl_mesh_role;

/* A mesh object of the scene (scenes/README.md, "meshes"). */
typedef struct fl_scene_mesh {
    int as;                  /* fl_mesh_role */
    double scale[3];         /* along the file's axes */
    double rotate[3];        /* degrees about x, then y, then z */
    double translate[3];     /* m */
    double velocity[3];      /* m/s: a fluid mesh's particles' start velocity */
    fl_mesh mesh;            /* scaled, rotated, translated: scene coordinates, m (owned) */
    double volume;           /* enclosed, m^3 */
    double lo[3], hi[3];     /* its bounds, m */
} fl_scene_mesh;

/* fluid.initial_velocity's field: none (the fluid starts at rest, or at a
 * fluid mesh's velocity), or the Taylor-Green vortex (analytic.h). */
typedef enum fl_initial_field { FL_FIELD_NONE = 0, FL_FIELD_TAYLOR_GREEN = 1 } fl_initial_field;

typedef struct fl_scene {
    char path[512];
    char name[64];
    char description[256];
    int dims;                /* dimensions: 3 (default) or 2 (the plane z = 0; vectors are [x, y]) */
    fl_box domain;
    int periodic[3];         /* periodic: which axes wrap (default none; z never in 2D) */
    double gravity[3];
    double spacing;          /* fluid.spacing, m */
    double rest_density;     /* fluid.rest_density, kg/m^3 (default 1000) */
    double nu;               /* fluid.nu, kinematic viscosity, m^2/s (default 0) */
    double jitter;           /* fluid.jitter, fraction of d (default 0) */
    int initial_field;       /* fluid.initial_velocity.field: fl_initial_field (default none) */
    double initial_amplitude; /* fluid.initial_velocity.amplitude, m/s */
    unsigned long long seed; /* fluid.seed (default 1) */
    int block_count;
    fl_box blocks[FL_MAX_BOXES];
    int obstacle_count;
    fl_box obstacles[FL_MAX_BOXES];
    int mesh_count;
    fl_scene_mesh meshes[FL_MAX_BOXES];
    double duration;         /* time.duration, s */
    double fps;              /* time.fps, frames per second (default 30) */
    int substeps;            /* time.substeps, steps per frame (default 1) */
    double dt;               /* time.dt, s; 0 when absent (then 1/(fps*substeps)) */
    int dt_cfl;              /* time.dt is "cfl": each step as large as the solver's stability limit allows */
    int solver_count;
    fl_scene_solver solvers[FL_MAX_SCENE_SOLVERS];
    fl_tool_spec tool;       /* tool; shape.kind FL_TOOL_NONE when the scene has none */
    long long fluid_count;   /* particles the world will hold */
    long long boundary_count;
    char *json;              /* the scene after --set overrides, as JSON text (owned) */
} fl_scene;

/* Reads and validates path. sets are "key.path=value" overrides applied to
 * the JSON before validation (value parsed as JSON when it parses, else as
 * a string). Refuses, with the particle count, a scene whose particles
 * would not fit in this machine's memory. On failure s holds nothing to free. */
int fl_scene_load(const char *path, const char *const *sets, int set_count, fl_scene *s,
                  fl_error *err);

/* The same from JSON text; `path` is used only in messages. */
int fl_scene_parse(const char *text, const char *path, const char *const *sets, int set_count,
                   fl_scene *s, fl_error *err);

/* The clock's limits (scenes/README.md): a frame of more than 1e5 steps,
 * or a run of more than 1e9, is a typo (a duration or a step in the wrong
 * unit); the harness holds run configurations from the command line to the
 * same limits. */
#define FL_SCENE_MAX_STEPS_PER_FRAME 1e5
#define FL_SCENE_MAX_STEPS 1e9

/* The step size: time.dt when given, else 1 / (fps * substeps) (with
 * "dt": "cfl", the largest step the harness will take). */
double fl_scene_dt(const fl_scene *s);

/* The grid a fluid mesh m of s is filled on: the domain's lattice of the
 * scene's spacing (domain.min + d/2 + i d at the cell centres) over m's
 * bounds. */
void fl_scene_mesh_lattice(const fl_scene *s, const fl_scene_mesh *m, fl_voxel_grid *g);

/* The parameters of solver name from the scene, or an empty list (with a
 * source naming the scene) when the scene has none for it. */
void fl_scene_solver_params(const fl_scene *s, const char *name, fl_params *out);

/* Builds the world: obstacles and solid meshes, fluid blocks and fluid
 * meshes (no fluid inside a solid), boundary particles (volumes are left
 * for fl_boundary_compute_volumes, grid/). */
int fl_scene_build_world(const fl_scene *s, fl_world *w, fl_error *err);

void fl_scene_free(fl_scene *s);

#ifdef __cplusplus
}
#endif

#endif
