/* surface.c: `fluidlab surface RUN_DIR` (surface.h).
 *
 * Every frames/NNNN.bin of the run folder, in name order, is read,
 * turned into the improved blobbies field and meshed (fl_blobby_surface),
 * and written beside it as frames/NNNN.obj by fl_obj_write (whole, under
 * a .tmp name renamed at the end: no half-written OBJ). The parameters
 * default to those run.json records for --save obj (its "surface"
 * object), else to the defaults at half the scene's particle spacing, so
 * that the OBJ equals the one --save obj wrote; the domain's box, for
 * closing the surface at the walls, is run.json's scene.domain. Without
 * run.json the grid spacing must be given and the grid follows the
 * particles alone. */
#define _POSIX_C_SOURCE 200809L
#include "surface.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blobby.h"
#include "harness.h"
#include "io.h"
#include "obj_write.h"

static const char *usage =
    "usage: fluidlab surface RUN_DIR [--spacing S] [--radius R] [--search-radius R]\n"
    "                                [--threads N] [--quiet]\n"
    "\n"
    "Rebuilds the fluid's surface from a run's saved particle frames (fluidlab run\n"
    "--save bin): every RUN_DIR/frames/NNNN.bin becomes RUN_DIR/frames/NNNN.obj, a\n"
    "closed triangle mesh with one normal per vertex (docs/file_formats.md). The\n"
    "surface is the zero level of the improved blobbies signed distance (Zhu &\n"
    "Bridson) sampled on a grid, meshed by marching cubes and closed against the\n"
    "domain's walls (docs/methods/surface.md).\n"
    "\n"
    "  --spacing S        grid spacing, m (default: run.json's surface.spacing when\n"
    "                     the run saved obj, else half the scene's fluid.spacing;\n"
    "                     needed when RUN_DIR has no run.json)\n"
    "  --radius R         particle radius, in grid spacings (default 0.5)\n"
    "  --search-radius R  the particles' reach, in grid spacings (default 3)\n"
    "  --threads N        OpenMP threads\n"
    "  --quiet            no progress line\n"
    "\n"
    "With the defaults, the OBJ of a frame equals the one `fluidlab run --save obj`\n"
    "writes. The domain's box is read from RUN_DIR/run.json; without it the grid\n"
    "covers the particles only. An existing NNNN.obj is replaced.\n"
    "Exit codes: 0 done, 1 bad input (options, no RUN_DIR, no frames, a frame that\n"
    "cannot be read: one line on stderr), 2 an OBJ could not be written, 130 / 143\n"
    "interrupted by SIGINT / SIGTERM (it stops after the frame it is on; a second\n"
    "signal stops at once, leaving at most a NNNN.obj.tmp).\n";

/* One line on stderr, "fluidlab: surface: ..."; returns 1, the exit code. */
static int fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fluidlab: surface: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* The number at the object path a.b of root, or NAN. */
static double json_number(const cJSON *root, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, a), b);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* What run.json says: the surface's parameters where --save obj recorded
 * them (else def->spacing is half the scene's fluid.spacing, NAN when it
 * has none, and the rest stay), and the domain's box (*has_domain).
 * Returns 0 (also when there is no run.json), or 1 with one line when the
 * file is there but cannot be read or does not parse. */
static int read_run_json(const char *dir, fl_blobby_def *def, fl_box *domain, int *has_domain)
{
    char path[FL_MAX_PATH + 300];
    snprintf(path, sizeof path, "%s/run.json", dir);
    *has_domain = 0;
    if (access(path, F_OK) != 0)
        return 0;
    cJSON *root;
    fl_error err;
    if (fl_run_json_read(dir, &root, &err))
        return fail("%s", err.msg);
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(root, "scene");
    *has_domain = fl_run_json_domain(root, domain);
    if (fl_run_json_dims(root) == 2) {
        cJSON_Delete(root);
        return fail("%s/run.json: a 2D run, which has no surface to build (fluidlab render draws its particles)", dir);
    }
    const double spacing = json_number(root, "surface", "spacing");
    const double radius = json_number(root, "surface", "radius"), support = json_number(root, "surface", "search_radius");
    def->spacing = spacing > 0.0 ? spacing : fl_blobby_default_spacing(json_number(scene, "fluid", "spacing"));
    if (spacing > 0.0 && radius > 0.0 && support > 0.0)
        def->radius = radius, def->support = support;
    cJSON_Delete(root);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when name is NNNN.bin: digits, then ".bin". */
static int is_frame(const char *name)
{
    size_t digits = strspn(name, "0123456789"), len = strlen(name);
    return digits >= 1 && len == digits + 4 && strcmp(name + digits, ".bin") == 0;
}

/* The frames' names in dir, sorted (*names, freed by the caller with
 * each entry), or -1 with one line when dir cannot be read. */
static int list_frames(const char *dir, char ***names)
{
    DIR *d = opendir(dir);
    *names = NULL;
    if (!d && errno == ENOENT)
        return -fail("%s: no such folder: the run saved no frames (run with --save bin)", dir);
    if (!d)
        return -fail("%s: cannot read the frames' folder: %s", dir, strerror(errno));
    int n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!is_frame(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(*names, (size_t)cap * sizeof **names);
            if (!grown) {
                closedir(d);
                return -fail("%s: out of memory for the list of frames", dir);
            }
            *names = grown;
        }
        if (!((*names)[n] = strdup(e->d_name))) {
            closedir(d);
            return -fail("%s: out of memory for the list of frames", dir);
        }
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(*names, (size_t)n, sizeof **names, by_name);
    return n;
}

static void free_names(char **names, int n)
{
    for (int k = 0; k < n; k++)
        free(names[k]);
    free(names);
}

/* One frame: dir/name (.bin) to dir/NNNN.obj, its triangles into
 * *triangles. Returns 0, or the exit code with one line on stderr (below
 * the progress line when after_progress). */
static int rebuild(const char *dir, const char *name, const fl_blobby_def *def, const fl_box *domain,
                   int after_progress, int *triangles)
{
    char bin[2 * FL_MAX_PATH], obj[2 * FL_MAX_PATH];
    snprintf(bin, sizeof bin, "%s/%s", dir, name);
    snprintf(obj, sizeof obj, "%s", bin);
    memcpy(obj + strlen(obj) - 3, "obj", 3); /* NNNN.bin -> NNNN.obj */
    fl_particles p;
    memset(&p, 0, sizeof p);
    fl_trimesh m;
    memset(&m, 0, sizeof m);
    fl_error err;
    const char *where = ""; /* the blobbies' messages do not name the frame */
    int code = 0;
    if (fl_frame_read_bin(bin, &p, NULL, &err) != FL_OK)
        code = 1;
    else if (fl_blobby_surface(&p, def, domain, &m, &err) != FL_OK)
        code = 1, where = bin;
    else if (fl_obj_write(obj, &m, FL_OBJ_SURFACE, &err) != FL_OK)
        code = 2;
    if (code)
        fprintf(stderr, "%sfluidlab: surface: %s%s%s\n", after_progress ? "\n" : "", where,
                where[0] ? ": " : "", err.msg);
    *triangles = m.ntri;
    fl_trimesh_free(&m);
    fl_particles_free(&p);
    return code;
}

int fl_surface_main(int argc, char **argv)
{
    const char *run_dir = NULL;
    double spacing = 0.0, radius = 0.0, support = 0.0;
    int threads = 0, quiet = 0;
    fl_seen_options seen = {.count = 0};
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        double *num = strcmp(a, "--spacing") == 0          ? &spacing
                      : strcmp(a, "--radius") == 0         ? &radius
                      : strcmp(a, "--search-radius") == 0  ? &support
                      : NULL;
        if (num || strcmp(a, "--threads") == 0) {
            if (fl_option_repeated(&seen, a))
                return fail("%s: given twice, expected it once", a);
            double x = NAN;
            if (!v || !fl_parse_number(v, &x) || x <= 0.0 || (!num && (x != floor(x) || x > 256)))
                return fail(num ? "%s: expected a positive number, got '%s'"
                                : "%s: expected a whole number in [1, 256], got '%s'",
                            a, v ? v : "nothing");
            if (num)
                *num = x;
            else
                threads = (int)x;
            k++;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] == '-') {
            return fail("%s: unknown option (see fluidlab surface --help)", a);
        } else if (run_dir) {
            return fail("%s: more than one run folder given (see fluidlab surface --help)", a);
        } else if (strlen(a) > FL_MAX_PATH) {
            return fail("the run folder's path has %zu characters, expected at most %d", strlen(a), FL_MAX_PATH);
        } else {
            run_dir = a;
        }
    }
    if (!run_dir)
        return fail("expected a run folder (see fluidlab surface --help)");
    struct stat sb;
    if (stat(run_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return fail("%s: no such run folder", run_dir);
    if (threads > 0)
        omp_set_num_threads(threads);

    fl_blobby_def def = fl_default_blobby_def(0.0);
    fl_box domain;
    int has_domain = 0;
    char path[FL_MAX_PATH + 300], frames[FL_MAX_PATH + 300];
    snprintf(path, sizeof path, "%s/run.json", run_dir);
    if (read_run_json(run_dir, &def, &domain, &has_domain) != 0)
        return 1;
    if (spacing > 0.0)
        def.spacing = spacing;
    if (radius > 0.0)
        def.radius = radius;
    if (support > 0.0)
        def.support = support;
    if (!(def.spacing > 0.0))
        return fail("%s: %s; give the grid spacing with --spacing", path,
                    access(path, F_OK) == 0 ? "no scene.fluid.spacing to take the grid spacing from" : "not found");
    if (!(def.support > def.radius))
        return fail("--radius %g, --search-radius %g: expected the particle radius below the search radius",
                    def.radius, def.support);

    snprintf(frames, sizeof frames, "%s/frames", run_dir);
    char **names;
    const int n = list_frames(frames, &names);
    if (n < 0)
        return 1;
    if (n == 0) {
        free_names(names, 0);
        return fail("%s: no particle frames (NNNN.bin) to rebuild; run with --save bin", frames);
    }
    const int tty = isatty(STDERR_FILENO);
    const double start = fl_now_ms();
    int code = 0;
    long long triangles = 0;
    int done = 0;
    for (int k = 0; k < n && code == 0 && !fl_interrupted(); k++, done++) {
        int t = 0;
        code = rebuild(frames, names[k], &def, has_domain ? &domain : NULL, tty && !quiet && k > 0, &t);
        triangles += t;
        if (!quiet && code == 0) {
            const double s = (fl_now_ms() - start) * 1e-3;
            fprintf(stderr, "%s[surface] frame %d of %d (%s), %.2f s a frame, ETA %.0f s%s", tty ? "\r" : "",
                    k + 1, n, names[k], s / (k + 1), s / (k + 1) * (n - k - 1), tty ? "   " : "\n");
        }
    }
    if (!quiet && tty && code == 0)
        fputc('\n', stderr);
    if (code == 0 && fl_interrupted()) {
        fprintf(stderr, "fluidlab: surface: interrupted after %d of %d frames; their OBJ files are in %s/\n", done, n,
                frames);
        code = 128 + fl_interrupted();
    } else if (code == 0)
        fprintf(stderr, "fluidlab: surface: %d frames, %lld triangles, grid spacing %g m, in %.1f s; output in %s/\n",
                n, triangles, def.spacing, (fl_now_ms() - start) * 1e-3, frames);
    free_names(names, n);
    return code;
}
