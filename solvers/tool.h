/* tool.h: the rigid tool in the fluid (docs/methods/tool.md).
 *
 * A sphere, a box or a closed mesh, sampled with one layer of boundary
 * particles (the Akinci model the walls use, volumes from the tool's own
 * particles),
 * appended to the world's boundary, so that every particle solver feels it
 * through its own boundary terms and reports their reaction per fluid
 * particle (fl_tool_link). Around each solver step:
 *
 *   fl_tool_before_step  places the tool at its pose for the step (path,
 *                        stream or its own dynamics), moves its particles,
 *                        gives the fluid the adhesion (eqs. 12-13) and
 *                        damping (eq. 14) impulses and keeps their sums
 *   solver step          the boundary terms; each reaction into the link
 *   fl_tool_after_step   the fluid's force and torque on the tool summed;
 *                        a dynamic tool integrated (symplectic Euler)
 *
 * A device solver (solvers/dev.h) holds the fluid in its own memory: it
 * marks the link on_device, fl_tool_before_step then only sets the pose,
 * and the device moves the particles, gives the impulses and sums every
 * force itself, into the link's grid_force, grid_torque and impulse sums. */
#ifndef FL_TOOL_H
#define FL_TOOL_H

#include "tool_physics.h"
#include "trimesh.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One step's record: tool.csv's row. Forces are on the tool, N. */
typedef struct fl_tool_report {
    double time;              /* s, at the end of the step */
    double pos[3], vel[3];    /* centre and its velocity during the step */
    double f_pressure[3];     /* the solver's boundary terms' reaction (pressure, constraint, friction) */
    double f_adhesion[3];     /* eqs. 12-13 */
    double f_damping[3];      /* eq. 14 */
    double f_total[3];
    double torque[3];         /* about the centre, N m */
    int contacts;             /* fluid particles within the contact distance */
} fl_tool_report;

typedef struct fl_tool {
    fl_tool_spec spec;
    int count;                /* its boundary particles: w->boundary[first, first + count) */
    float *ox, *oy, *oz;      /* their positions in the tool's own frame */
    float *fx, *fy, *fz;      /* per fluid particle: the link's arrays */
    int capacity;
    double pos[3], vel[3];    /* centre, m, and its velocity, m/s */
    double q[4];              /* orientation (w, x, y, z) */
    double omega[3];          /* angular velocity, rad/s */
    fl_mesh own;              /* a mesh's, in its own frame (its centroid at the origin), m */
    float *sdf;               /* a mesh's signed distances (spec.shape.sdf) */
    double mass;              /* kg (from spec.density) */
    double inertia[9];        /* about the centre, in the own axes, kg m^2, row-major */
    double inv_inertia[9];    /* dynamic: its inverse */
    double stream_t0, stream_t1;           /* stream: the tick's interval */
    double stream_p0[3], stream_p1[3];     /* and the positions at its ends */
} fl_tool;

/* A pose's problem for the domain: 0 when the tool t (its shape set up by
 * fl_tool_init) at centre c (rotation rot) lies inside the domain box,
 * else 1 with why ("its surface reaches x = ..., outside the domain ...")
 * in why. */
int fl_tool_outside(const fl_tool *t, const double c[3], const float rot[9], const fl_box *domain, char *why,
                    int len);

/* The tool's count particles at (ox, oy, oz) in its own frame, binned on
 * a grid there: cells of 1.01 h (so that rounding in a change of frame
 * cannot put a neighbor two cells away) over the particles' box and one
 * cell more on every side (corner lo, dim cells, their size *cell); the
 * particles' order by cell (order, count entries) and the cell start
 * table (*start, allocated with malloc, dim[0] dim[1] dim[2] + 1 entries).
 * FL_ERR_MEMORY when the table cannot be allocated. The device walks its
 * tool on this grid (solvers/dev.h); the set-up sums the volumes on it. */
int fl_tool_bin(const float *ox, const float *oy, const float *oz, int count, float h, float lo[3], int dim[3],
                float *cell, int *order, int **start, fl_error *err);

/* Adds the tool of spec to the world w (built, its wall volumes computed):
 * checks it fits the domain, removes the fluid particles within d/2 of it,
 * appends its boundary particles with their volumes and activates w->tool.
 * FL_ERR_INPUT with one line when it does not fit. */
int fl_tool_init(fl_tool *t, const fl_tool_spec *spec, fl_world *w, fl_error *err);

/* Stream mode: the next tick's target, the centre at pos at time t1 (s);
 * the steps up to t1 move the tool on the straight line from where the
 * stream has it at t_now (the previous target, once reached; at first the
 * start pose). */
void fl_tool_stream_to(fl_tool *t, double t_now, double t1, const double pos[3]);

/* Before a solver step of dt from w->time: the tool to its pose, its
 * particles moved, the adhesion and damping impulses given to the fluid
 * (their sums kept in the link), the link's per-particle arrays sized and
 * cleared; on a device (w->tool.on_device) the pose alone. FL_ERR_INPUT
 * with one line when the pose leaves the domain, FL_ERR_MEMORY when the
 * arrays cannot grow. */
int fl_tool_before_step(fl_tool *t, fl_world *w, double dt, fl_error *err);

/* After the step (w->time already advanced): the forces on the tool summed
 * into r (the link's per-particle reports, its grid_force and its impulse
 * sums); a dynamic tool moved by them and gravity. */
void fl_tool_after_step(fl_tool *t, fl_world *w, double dt, fl_tool_report *r);

/* "time,x,y,z,vx,vy,vz,fx,fy,fz,fx_pressure,...": the header of tool.csv,
 * and one row of it (step and wall time are the caller's columns). */
const char *fl_tool_csv_header(void);
int fl_tool_csv_row(char *buf, int len, long long step, const fl_tool_report *r, double step_ms);

/* The tool's surface at pose (the link's: where its particles were in the
 * step) as a triangle mesh in the world, counter-clockwise seen from
 * outside, with outward unit normals: a sphere as 24 bands of 48 segments
 * between its poles (inscribed), a box as its six faces, a mesh as its own
 * triangles. Into *m (freed with fl_trimesh_free); FL_ERR_MEMORY when it
 * does not fit. tool_surface.c. */
int fl_tool_surface(const fl_tool *t, const fl_tool_pose *pose, fl_trimesh *m, fl_error *err);

void fl_tool_free(fl_tool *t);

#ifdef __cplusplus
}
#endif

#endif
