/* mac.h: the staggered MAC grid (Harlow & Welch 1965; the report of
 * Englesson, Kilby & Ek 2011, section 2.4) and its pressure projection.
 *
 * Cells of size dx; pressure and a label (FLUID, AIR, SOLID) at cell
 * centres; u on the x-faces, v on the y-faces, w on the z-faces. The grid
 * covers the world's domain plus one layer of SOLID cells on every side (the
 * domain walls); the world's box obstacles and solid meshes are rasterised
 * as SOLID cells. In 2D (world dims 2) the grid has one layer of cells
 * along z, centred on the plane z = 0, between two SOLID layers: w is 0 on
 * every face, the z neighbours drop out of the Laplacian (dp/dz = 0), and
 * the operators below are the 2D ones (a 5-point Laplacian) with no code of
 * their own.
 * The discrete operators are the report's equations 6 (gradient, at faces),
 * 7 (divergence, at centres) and 8 (7-point Laplacian, at centres), with
 * Bridson's boundary treatment ("Fluid Simulation for Computer Graphics",
 * ch. 5): p = 0 in AIR cells, u.n = u_solid.n on faces touching a SOLID
 * cell: 0 for static walls, or, on a grid given per-face solid velocities
 * (fl_mac_grid_moving_solids), the moving solid's.
 *
 * Indexing (x fastest): cell (i,j,k) at i + nx (j + ny k); u face (i,j,k),
 * the face between cells i-1 and i, at i + (nx+1) (j + ny k); v at
 * i + nx (j + (ny+1) k); w at i + nx (j + ny k) with k in [0, nz].
 *
 * Periodic axes (the world's periodic[a]; ignored along z in 2D): along an
 * axis that wraps the grid has no SOLID layer: its n cells tile the
 * domain exactly (lo is the domain's corner there), which fl_mac_grid_create
 * requires of dx (the length a whole number of cells), and cell n-1's
 * neighbour above is cell 0. The face lattices keep their layout, n + 1
 * faces along their own axis: face n is face 0 (the same face, seen from
 * either end), and every operator below keeps the two copies equal. The
 * divergence, gradient, Laplacian (the Poisson matrix: pcg.h, "Periodic
 * axes", with the constant null space of a periodic grid without AIR),
 * the viscosity's face Laplacian and the transfers (transfer.h) wrap
 * across those faces. A grid without periodic axes runs exactly the code
 * it ran before they existed. */
#ifndef FL_MAC_H
#define FL_MAC_H

#include "pcg.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_mac_config {
    double dx;   /* cell size, m; 0 = the world's spacing times 2 (8 particles per cell) */
} fl_mac_config;

fl_mac_config fl_default_mac_config(void);

typedef struct fl_mac_grid {
    int nx, ny, nz;        /* cells per axis, the SOLID wall layers included (none along a periodic axis) */
    long ncells;
    double dx;             /* cell size, m */
    double inv_dx;         /* 1 / dx, 1/m: every position-to-cell lookup multiplies by it */
    double lo[3];          /* corner of cell (0,0,0), m: the domain's corner minus dx (the corner itself
                              along a periodic axis) */
    int periodic[3];       /* 1 per axis that wraps (above) */
    int wrap;              /* any of them */
    double *u, *v, *w;     /* face velocities, m/s */
    double *wu, *wv, *ww;  /* summed particle weights per face of the last P2G (0: no particle near) */
    double *p;             /* pressure at cell centres, Pa (0 outside FLUID cells) */
    unsigned char *label;  /* FL_CELL_FLUID, FL_CELL_AIR or FL_CELL_SOLID per cell */
    double *rhs;           /* right-hand side of the last projection on its FLUID cells, Pa (other cells
                              hold older values) */
    double *solid_u, *solid_v, *solid_w; /* per face: the normal velocity of the solid it touches, m/s;
                              NULL (the default): every solid is static, 0 */
    double *div_before, *div_after; /* per cell: div u, 1/s, on the FLUID cells of the last projection,
                              before and after it; NaN on the other cells. NULL (the default): not
                              kept (fl_mac_grid_keep_divergence) */
    unsigned char *sys_label; /* the last projection's system as its solve began: the labels, */
    double *sys_rhs, *sys_p;  /* the right-hand side and the pressure it started from (a warm start).
                              NULL (the default): not kept (fl_mac_grid_keep_system) */
    fl_pcg *pcg;           /* solver workspace */
    /* P2G workspace (transfer.c) */
    long *slab;            /* particles per cell layer k, nz + 1 entries */
    double *sums;          /* per face of u, then v, then w: the weighted velocity sum and the
                              weight sum side by side */
    int *p2g_rows;         /* per row (j, k) of faces, (ny + 1) (nz + 1) of them: the x ranges
                              [lo, hi) in reach of this P2G's particles, then of the last one's */
    int *p2g_cells;        /* per thread: per row of cells the x range of its particles' cells,
                              and its particles per layer */
    int p2g_threads;       /* threads p2g_cells has room for */
    int *p2g_blocks;       /* per block of particles (FL_PARTICLE_BLOCKS), the lowest and the
                              highest cell layer k of its particles (a thread's P2G skips the
                              blocks that reach no layer of its slab) */
} fl_mac_grid;

/* A store of n particles cut into FL_PARTICLE_BLOCKS blocks, for the
 * loops that record where each block lies (P2G's layers, FLIP's cell
 * sort) and skip the blocks that a thread's part of the grid does not
 * meet: block b holds particles [fl_particle_block(n, b),
 * fl_particle_block(n, b + 1)). */
#define FL_PARTICLE_BLOCKS 2048

static inline int fl_particle_block(int n, int b)
{
    return (int)((long)n * b / FL_PARTICLE_BLOCKS);
}

/* Grid over the world's domain: ceil(extent / dx) cells per axis inside it
 * plus the SOLID wall layer; cells whose centre lies outside the domain,
 * inside an obstacle or inside a solid mesh are SOLID, the rest AIR;
 * velocities and pressure 0. Along a periodic axis (w->periodic) exactly
 * extent / dx cells and no wall layer: FL_ERR_INPUT when the extent is not
 * a whole number of cells (within 1e-9 of one; choose dx = extent / n) or
 * is fewer than 3. */
int fl_mac_grid_create(const fl_world *w, const fl_mac_config *cfg, fl_mac_grid **out, fl_error *err);
void fl_mac_grid_destroy(fl_mac_grid **g);

static inline long fl_mac_cell(const fl_mac_grid *g, int i, int j, int k)
{
    return i + (long)g->nx * (j + (long)g->ny * k);
}
/* Cell (i, j, k), each coordinate at most n outside the grid (n its cells
 * along that axis) wrapped on a periodic axis; -1 when it lies beyond the
 * grid on an axis that does not wrap. */
static inline long fl_mac_cell_wrapped(const fl_mac_grid *g, int i, int j, int k)
{
    int q[3] = {i, j, k};
    const int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        if (q[a] >= 0 && q[a] < n[a])
            continue;
        if (!g->periodic[a])
            return -1;
        q[a] += q[a] < 0 ? n[a] : -n[a];
    }
    return fl_mac_cell(g, q[0], q[1], q[2]);
}

/* The cell coordinate of position x along axis a, in cells from the grid's
 * corner: its integer part is the cell index. The transfers, the labels
 * and every other lookup use this one rounding, so that a particle is in
 * the same cell for all of them. */
static inline double fl_mac_coord(const fl_mac_grid *g, int a, double x)
{
    return (x - g->lo[a]) * g->inv_dx;
}

/* The position, m, along axis a of the centre of cell i along it (cell
 * coordinate i + 0.5: fl_mac_coord's inverse). */
static inline double fl_mac_centre(const fl_mac_grid *g, int a, int i)
{
    return g->lo[a] + (i + 0.5) * g->dx;
}

/* The cell holding position (x, y, z), which must lie inside the grid box
 * (the domain and its SOLID layer). */
static inline long fl_mac_cell_at(const fl_mac_grid *g, double x, double y, double z)
{
    return fl_mac_cell(g, (int)fl_mac_coord(g, 0, x), (int)fl_mac_coord(g, 1, y), (int)fl_mac_coord(g, 2, z));
}

static inline long fl_mac_u(const fl_mac_grid *g, int i, int j, int k)
{
    return i + (long)(g->nx + 1) * (j + (long)g->ny * k);
}
static inline long fl_mac_v(const fl_mac_grid *g, int i, int j, int k)
{
    return i + (long)g->nx * (j + (long)(g->ny + 1) * k);
}
static inline long fl_mac_w(const fl_mac_grid *g, int i, int j, int k)
{
    return i + (long)g->nx * (j + (long)g->ny * k);
}

/* Gives g per-face solid velocities, solid_u, solid_v, solid_w, all 0 (a
 * no-op when it has them): the caller then writes a moving solid's normal
 * velocity on the faces that touch it. FL_ERR_MEMORY when they cannot be
 * allocated. */
int fl_mac_grid_moving_solids(fl_mac_grid *g, fl_error *err);

/* Gives g div_before and div_after, NaN until the next projection fills
 * them (a no-op when it has them): from then on every projection keeps
 * the divergence it removed, for pictures of it. FL_ERR_MEMORY when they
 * cannot be allocated. */
int fl_mac_grid_keep_divergence(fl_mac_grid *g, fl_error *err);

/* Gives g sys_label, sys_rhs and sys_p (a no-op when it has them): from
 * the next projection on, each keeps a copy of its pressure system as the
 * solve begins, so that the solve can be run again (`fluidlab bench flip
 * --solves`). FL_ERR_MEMORY when they cannot be allocated. */
int fl_mac_grid_keep_system(fl_mac_grid *g, fl_error *err);

/* Sets the velocity of every face touching a SOLID cell to the solid's:
 * its solid_u, solid_v, solid_w entry, or 0 without them (static walls).
 * The far faces of the grid's outer layer, the walls', are 0; along a
 * periodic axis face n takes face 0's value. */
void fl_mac_enforce_solid(fl_mac_grid *g);

/* div[c] = (report eq. 7) the net outflow of cell c over dx, 1/s, on FLUID
 * cells; 0 elsewhere. div has ncells entries. */
void fl_mac_divergence(const fl_mac_grid *g, double *div);

/* lap[c] = (report eq. 8) the 7-point Laplacian of p at FLUID cell c,
 * units of p / m^2, with p = 0 in AIR cells and the SOLID neighbours left
 * out (dp/dn = 0); 0 elsewhere. p must be 0 outside FLUID cells. */
void fl_mac_laplacian(const fl_mac_grid *g, const double *p, double *lap);

/* u -= dt / rho * (report eq. 6) grad p on every face with a FLUID cell on
 * one side and no SOLID cell on either (p = 0 in AIR); faces touching SOLID
 * get the solid's velocity (fl_mac_enforce_solid). dt in s, rho in kg/m^3. */
void fl_mac_apply_gradient(fl_mac_grid *g, double dt, double rho);

/* The pressure projection: faces touching SOLID set to the solid's
 * velocity (fl_mac_enforce_solid), the right-hand side
 * b = -(rho dx^2 / dt) div u on the FLUID cells (a moving solid's faces
 * enter it with their velocity: u.n = u_solid.n), A p = b solved by
 * fl_pcg_solve with opt (pressure in g->p, Pa), then the pressure gradient
 * applied, so that div u = 0 on the FLUID cells up to the solver's
 * tolerance; div u before and after into div_before and div_after, and
 * the system into sys_label, sys_rhs and sys_p, when the grid keeps them.
 * The outcome of the solve, non-convergence included, is in
 * *res; the return is FL_ERR_INPUT only for bad arguments. */
int fl_mac_project(fl_mac_grid *g, double dt, double rho, const fl_pcg_options *opt,
                   fl_pcg_result *res, fl_error *err);

/* ---- viscosity on the faces (docs/methods/viscosity.md) ----------------
 * The explicit step u += dt nu lap u on every face with a FLUID cell on
 * one side and no SOLID cell on either, the Laplacian the 7-point one (5
 * in 2D) over the neighbour faces of the same lattice, each of which enters
 * by its kind: */
typedef enum fl_face_kind {
    FL_FACE_OPEN = 0, /* a face of the fluid, or one on a solid (normal to it: the solid's velocity): its value */
    FL_FACE_FREE = 1, /* past the free surface (AIR on both sides): the face's own value (du/dn = 0) */
    FL_FACE_WALL = 2  /* alongside a wall (SOLID on a side, the wall halfway between the faces): no slip
                         on a wall at rest, the ghost value -u */
} fl_face_kind;

/* The kind of the neighbour face whose two cells are labelled la and lb,
 * in the face's own direction (tangential 0) or across it (tangential 1). */
static inline FL_HD int fl_mac_face_kind(int la, int lb, int tangential)
{
    const int solid = la == FL_CELL_SOLID || lb == FL_CELL_SOLID;
    if (tangential && solid)
        return FL_FACE_WALL;
    return solid || la == FL_CELL_FLUID || lb == FL_CELL_FLUID ? FL_FACE_OPEN : FL_FACE_FREE;
}

/* lap u at a face of value u, units of u / m^2, from its 2 dims neighbour
 * faces' values nb and kinds kind (fl_face_kind), along x (-, +), y (-, +)
 * and, in 3D, z (-, +); inv_dx2 = 1 / dx^2. */
static inline FL_HD double fl_mac_face_laplacian(double u, const double nb[6], const int kind[6], int dims,
                                                 double inv_dx2)
{
    double sum = 0.0;
    for (int k = 0; k < 2 * dims; k++)
        sum += kind[k] == FL_FACE_OPEN ? nb[k] : kind[k] == FL_FACE_FREE ? u : -u;
    return (sum - 2.0 * dims * u) * inv_dx2;
}

/* The explicit substeps a viscosity step of dt, s, with nu, m^2/s, needs
 * on g for stability, dt_sub nu / dx^2 <= 1 / (2 dims) (1 at least; not
 * rounded, so that the caller can refuse a count too large to take). */
double fl_mac_viscosity_substeps(const fl_mac_grid *g, double dt, double nu, int dims);

/* u += dt nu lap u (fl_mac_face_laplacian) on the faces of the velocity
 * components along the dims axes, in `substeps` explicit steps of
 * dt / substeps, each from the last one's velocities; faces touching SOLID
 * first set to the solid's velocity (fl_mac_enforce_solid). old has room
 * for the largest of the three face lattices. */
void fl_mac_apply_viscosity(fl_mac_grid *g, double dt, double nu, int dims, int substeps, double *old);

/* u, laid out as lattice a (velocity component a), gets face n = face 0
 * along axis a when that axis is periodic (a no-op otherwise): for a
 * field computed on both copies in different orders. */
void fl_mac_wrap_faces(const fl_mac_grid *g, int a, double *u);

/* Faces in the largest of g's three face lattices. */
long fl_mac_max_faces(const fl_mac_grid *g);

#ifdef __cplusplus
}
#endif

#endif
