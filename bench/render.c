/* render.c: `fluidlab render RUN_DIR`: pictures of a run's saved frames
 * without a GUI. Each frame is drawn by the software rasteriser
 * (plots/raster.h) from its surface, frames/NNNN.obj (`--save obj` or
 * `fluidlab surface`), or else from its particles, frames/NNNN.bin
 * (`--save bin`), as spheres of half the particle spacing, with the
 * scene's solid meshes in grey and the rigid tool where the run saved it
 * (frames/NNNN_tool.obj), inside the domain's edges, and written to
 * render/NNNN.png (apart from the pictures of `run --save png`, which
 * are frames/NNNN.png); `--gif` then joins the
 * pictures into RUN_DIR/render.gif with gnuplot. The domain, the spacing, the
 * frame rate and the scene as it ran (its solids: their meshes read from
 * beside the scene file it names) come from RUN_DIR/run.json. */
#include "render.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "io.h"
#include "obj.h"
#include "particles.h"
#include "plot.h"
#include "png.h"
#include "raster.h"
#include "scene.h"
#include "solver.h"

static const char *render_usage =
    "usage: fluidlab render RUN_DIR [--frame N] [--gif] [--size WxH] [--view AZ,EL] [--quiet]\n"
    "\n"
    "Pictures of a run's saved frames: each frames/NNNN.obj (a surface: --save obj\n"
    "or fluidlab surface) or else frames/NNNN.bin (particles: --save bin, drawn as\n"
    "spheres of half the spacing) to RUN_DIR/render/NNNN.png, inside the domain's\n"
    "edges, with the scene's solid meshes and its rigid tool (frames/NNNN_tool.obj).\n"
    "  --frame N      only frame N (default: every saved frame)\n"
    "  --gif          also RUN_DIR/render.gif, every picture at the run's frame rate\n"
    "                 (needs gnuplot)\n"
    "  --size WxH     pixels (default 800x600)\n"
    "  --view AZ,EL   the view: azimuth about the vertical (-3600 to 3600) and\n"
    "                 elevation (strictly between -90 and 90), degrees (default\n"
    "                 30,25; 0,0 for a 2D run: the plane face on)\n"
    "  --quiet        no progress line\n";

typedef struct render_opts {
    const char *dir;
    int frame; /* -1: all */
    int gif, quiet;
    int w, h;
    double az, el;
    int view_given;        /* --view was given */
} render_opts;

/* What a run's run.json says of it. */
typedef struct run_info {
    double lo[3], hi[3];
    double spacing, fps;
    int dims;              /* 2 for a 2D run */
    char scene_file[1024]; /* the scene file it ran: its meshes lie beside it; "" when run.json names none */
} run_info;

static int read_run_info(const char *dir, run_info *r, fl_error *err)
{
    cJSON *root;
    int rc = fl_run_json_read(dir, &root, err);
    if (rc)
        return rc;
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(root, "scene");
    const cJSON *fps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(scene, "time"), "fps");
    fl_box domain;
    const double spacing = fl_run_json_spacing(root);
    const int ok = fl_run_json_domain(root, &domain) && spacing > 0.0;
    r->dims = fl_run_json_dims(root);
    memcpy(r->lo, domain.lo, sizeof r->lo);
    memcpy(r->hi, domain.hi, sizeof r->hi);
    r->spacing = ok ? spacing : 0.0;
    r->fps = cJSON_IsNumber(fps) && fps->valuedouble > 0.0 ? fps->valuedouble : 30.0;
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(root, "scene_file");
    snprintf(r->scene_file, sizeof r->scene_file, "%s", cJSON_IsString(file) ? file->valuestring : "");
    cJSON_Delete(root);
    if (!ok)
        return fl_fail(err, FL_ERR_INPUT, "%s/run.json: expected fluidlab's run.json with scene.domain.min, .max "
                       "and scene.fluid.spacing", dir);
    return FL_OK;
}

/* The scene of the run in dir as it ran: run.json's (its --set overrides
 * applied), its meshes read from beside file, the scene file it names. */
static int run_scene(const char *dir, const char *file, fl_scene *s, fl_error *err)
{
    cJSON *root;
    int rc = fl_run_json_read(dir, &root, err);
    if (rc)
        return rc;
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(root, "scene"));
    cJSON_Delete(root);
    if (!text)
        return fl_fail(err, FL_ERR_INPUT, "%s/run.json: no scene", dir);
    rc = fl_scene_parse(text, file, NULL, 0, s, err);
    cJSON_free(text);
    return rc;
}

static int readable(const char *path)
{
    return access(path, R_OK) == 0;
}

/* 1 when frame k was saved, as a surface (*obj = 1) or as particles. */
static int frame_saved(const char *dir, int k, int *obj)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/frames/%04d.obj", dir, k);
    *obj = readable(path);
    snprintf(path, sizeof path, "%s/frames/%04d.bin", dir, k);
    return *obj || readable(path);
}

/* The scene's solid meshes drawn in grey (they stand still: the same in
 * every frame), and the rigid tool in ochre where the run saved it beside
 * frame k (frames/NNNN_tool.obj). */
static int draw_solids(fl_image *im, const fl_camera *cam, const render_opts *o, const fl_scene *s, int k,
                       fl_error *err)
{
    static const float grey[3] = {0.62f, 0.60f, 0.56f}, ochre[3] = {0.80f, 0.56f, 0.24f};
    int rc = FL_OK;
    for (int q = 0; s && q < s->mesh_count && rc == FL_OK; q++)
        if (s->meshes[q].as == FL_MESH_SOLID)
            rc = fl_raster_mesh(im, cam, &s->meshes[q].mesh, grey, err);
    char path[1200];
    snprintf(path, sizeof path, "%s/frames/%04d_tool.obj", o->dir, k);
    if (rc == FL_OK && readable(path)) {
        fl_mesh m;
        if ((rc = fl_obj_read(path, &m, err)) == FL_OK)
            rc = fl_raster_mesh(im, cam, &m, ochre, err);
        fl_mesh_free(&m);
    }
    return rc;
}

/* The fluid of frame k: its surface (obj) or its particles. */
static int draw_fluid(fl_image *im, const fl_camera *cam, const render_opts *o, const run_info *r, int k, int obj,
                      fl_error *err)
{
    static const float water[3] = {0.20f, 0.47f, 0.85f};
    char path[1200];
    snprintf(path, sizeof path, "%s/frames/%04d.%s", o->dir, k, obj ? "obj" : "bin");
    if (obj) {
        fl_mesh m;
        int rc = fl_obj_read(path, &m, err);
        if (rc)
            return rc;
        rc = fl_raster_mesh(im, cam, &m, water, err);
        fl_mesh_free(&m);
        return rc;
    }
    fl_particles p;
    double t;
    memset(&p, 0, sizeof p);
    int rc = fl_frame_read_bin(path, &p, &t, err);
    if (rc)
        return rc;
    /* as surface refuses them: a position that is not finite is a broken frame, not a particle to leave out */
    for (int i = 0; i < p.count; i++)
        if (!isfinite(p.x[i]) || !isfinite(p.y[i]) || !isfinite(p.z[i])) {
            fl_particles_free(&p);
            return fl_fail(err, FL_ERR_INPUT, "%s: particle %d is at a position that is not finite", path, i);
        }
    fl_raster_spheres(im, cam, p.x, p.y, p.z, p.count, 0.5 * r->spacing, water);
    fl_particles_free(&p);
    return FL_OK;
}

/* Frame k of the run into render/NNNN.png, with the scene's solids
 * (scene: NULL for none) and the tool. */
static int render_frame(const render_opts *o, const run_info *r, const fl_scene *scene, int k, int obj,
                        fl_error *err)
{
    static const float edges[3] = {0.30f, 0.32f, 0.36f};
    fl_image im;
    fl_camera cam;
    char path[1200];
    int rc = fl_image_init(&im, o->w, o->h, err);
    if (rc)
        return rc;
    fl_camera_frame(&cam, r->lo, r->hi, o->az, o->el, o->w, o->h);
    rc = draw_solids(&im, &cam, o, scene, k, err);
    if (!rc)
        rc = draw_fluid(&im, &cam, o, r, k, obj, err);
    if (!rc) {
        fl_raster_box(&im, &cam, r->lo, r->hi, edges);
        snprintf(path, sizeof path, "%s/render/%04d.png", o->dir, k);
        rc = fl_png_write(path, &im, err);
    }
    fl_image_free(&im);
    return rc;
}

static int parse(int argc, char **argv, render_opts *o)
{
    *o = (render_opts){.frame = -1, .w = 800, .h = 600, .az = 30.0, .el = 25.0};
    fl_seen_options seen = {.count = 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char tail;
        if (!strcmp(a, "--gif"))
            o->gif = 1;
        else if (!strcmp(a, "--quiet"))
            o->quiet = 1;
        else if (!strcmp(a, "--frame") || !strcmp(a, "--size") || !strcmp(a, "--view")) {
            if (!v) {
                fprintf(stderr, "fluidlab: render %s: expected a value\n", a);
                return 1;
            }
            if (fl_option_repeated(&seen, a)) {
                fprintf(stderr, "fluidlab: render %s: given twice, expected it once\n", a);
                return 1;
            }
            i++;
            o->view_given |= !strcmp(a, "--view");
            if (!strcmp(a, "--frame") && (sscanf(v, "%d%c", &o->frame, &tail) != 1 || o->frame < 0 || o->frame > 9999)) {
                fprintf(stderr, "fluidlab: render --frame: expected a frame number 0 to 9999, got '%s'\n", v);
                return 1;
            }
            if (!strcmp(a, "--size") && (sscanf(v, "%dx%d%c", &o->w, &o->h, &tail) != 2 || o->w < 16 || o->h < 16 ||
                                         o->w > 8192 || o->h > 8192)) {
                fprintf(stderr, "fluidlab: render --size: expected WxH, 16 to 8192 pixels each, got '%s'\n", v);
                return 1;
            }
            /* EL strictly inside (-90, 90): at a pole the view's up direction is undefined */
            if (!strcmp(a, "--view") &&
                (sscanf(v, "%lf,%lf%c", &o->az, &o->el, &tail) != 2 || !(o->el > -90.0 && o->el < 90.0) ||
                 !(fabs(o->az) <= 3600.0))) {
                fprintf(stderr, "fluidlab: render --view: expected AZ,EL in degrees, AZ from -3600 to 3600, EL "
                                "strictly between -90 and 90, got '%s'\n", v);
                return 1;
            }
        } else if (a[0] == '-' || o->dir) {
            fprintf(stderr, "fluidlab: render: %s: unexpected argument (see fluidlab render --help)\n", a);
            return 1;
        } else
            o->dir = a;
    }
    if (!o->dir) {
        fprintf(stderr, "fluidlab: render: expected a run folder (see fluidlab render --help)\n");
        return 1;
    }
    return 0;
}

int fl_render_main(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(render_usage, stdout);
            return 0;
        }
    render_opts o;
    if (parse(argc, argv, &o))
        return 1;
    struct stat sb;
    if (stat(o.dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "fluidlab: render: %s: no such run folder\n", o.dir);
        return 1;
    }
    fl_error err;
    run_info r;
    if (read_run_info(o.dir, &r, &err)) {
        fprintf(stderr, "fluidlab: render: %s (a run folder holds the run.json that fluidlab run writes)\n", err.msg);
        return 1;
    }
    if (r.dims == 2 && !o.view_given) /* the plane z = 0 face on */
        o.az = 0.0, o.el = 0.0;
    if (o.gif && !fl_plot_available()) {
        fprintf(stderr, "fluidlab: render --gif: gnuplot not found (install it: apt-get install gnuplot-nox)\n");
        return 1;
    }
    int count = 0, obj;
    while (count < 10000 && frame_saved(o.dir, count, &obj))
        count++;
    if (o.frame >= 0 && !frame_saved(o.dir, o.frame, &obj)) {
        fprintf(stderr, "fluidlab: render: %s/frames/%04d.obj or .bin: no such frame (the run saved %d)\n", o.dir,
                o.frame, count);
        return 1;
    }
    if (count == 0) {
        fprintf(stderr, "fluidlab: render: %s/frames/: no saved frame (run with --save bin or --save obj)\n", o.dir);
        return 1;
    }
    /* the solids of the scene as it ran, their meshes read from beside its
     * file when they are still there */
    fl_scene scene;
    const int solids = r.scene_file[0] && run_scene(o.dir, r.scene_file, &scene, &err) == FL_OK;
    if (r.scene_file[0] && !solids && !o.quiet)
        fprintf(stderr, "fluidlab render: no solids drawn: %s\n", err.msg);
    const int first = o.frame >= 0 ? o.frame : 0, last = o.frame >= 0 ? o.frame : count - 1;
    char pics[1100];
    snprintf(pics, sizeof pics, "%s/render", o.dir);
    if (fl_make_dirs(pics, &err)) {
        if (solids)
            fl_scene_free(&scene);
        fprintf(stderr, "fluidlab: render: %s\n", err.msg);
        return 2;
    }
    const double t0 = fl_now_ms();
    for (int k = first; k <= last; k++) {
        if (fl_interrupted()) { /* between pictures: each one drawn is whole */
            if (solids)
                fl_scene_free(&scene);
            fprintf(stderr, "%sfluidlab: render: interrupted by %s after %d of %d pictures (in %s/render/)%s\n",
                    o.quiet || k == first ? "" : "\n", fl_interrupted() == SIGINT ? "SIGINT" : "SIGTERM", k - first,
                    last - first + 1, o.dir, o.gif ? "; no render.gif" : "");
            return 128 + fl_interrupted();
        }
        frame_saved(o.dir, k, &obj);
        int rc = render_frame(&o, &r, solids ? &scene : NULL, k, obj, &err);
        if (rc) {
            if (solids)
                fl_scene_free(&scene);
            fprintf(stderr, "%sfluidlab: %s\n", o.quiet || k == first ? "" : "\n", err.msg);
            return rc == FL_ERR_IO ? 2 : 1;
        }
        if (!o.quiet) {
            const double done = k - first + 1, eta = (fl_now_ms() - t0) * 1e-3 / done * (last - k);
            fprintf(stderr, "\rfluidlab render: frame %d of %d, %.0f s left   ", (int)done, last - first + 1, eta);
        }
    }
    if (!o.quiet)
        fprintf(stderr, "\n");
    if (solids)
        fl_scene_free(&scene);
    if (o.gif && fl_write_gif(o.dir, "render", "render.gif", o.w, o.h, r.fps, &err)) {
        fprintf(stderr, "fluidlab: render --gif: %s\n", err.msg);
        return 2;
    }
    if (!o.quiet)
        fprintf(stderr, "fluidlab render: %d picture%s in %s/render/%s\n", last - first + 1, last > first ? "s" : "",
                o.dir, o.gif ? ", and render.gif" : "");
    return 0;
}
