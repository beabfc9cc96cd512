/* vtp_write.c: the .vtp writer (vtp_write.h). Library code: no printing,
 * errors go to fl_error. */
#include "vtp_write.h"

#include <math.h>
#include <stdio.h>

#include "io.h"

typedef struct vtp_data {
    const fl_trimesh *m;
    double t;
} vtp_data;

/* n triples of floats, one a line. */
static int put_triples(FILE *f, const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (fprintf(f, "          %.9g %.9g %.9g\n", v[3 * i], v[3 * i + 1], v[3 * i + 2]) < 0)
            return 1;
    return 0;
}

static int write_vtp(FILE *f, const void *data)
{
    const vtp_data *d = data;
    const fl_trimesh *m = d->m;
    if (fprintf(f,
                "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                "  <PolyData>\n"
                "    <FieldData>\n"
                "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">"
                "%.17g</DataArray>\n"
                "    </FieldData>\n"
                "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
                "NumberOfPolys=\"%d\">\n"
                "      <PointData Normals=\"Normals\">\n"
                "        <DataArray type=\"Float32\" Name=\"Normals\" NumberOfComponents=\"3\" format=\"ascii\">\n",
                d->t, m->nvert, m->ntri) < 0 ||
        put_triples(f, m->normal, m->nvert) ||
        fputs("        </DataArray>\n      </PointData>\n      <Points>\n"
              "        <DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n", f) == EOF ||
        put_triples(f, m->pos, m->nvert) ||
        fputs("        </DataArray>\n      </Points>\n      <Polys>\n"
              "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n", f) == EOF)
        return 1;
    for (int t = 0; t < m->ntri; t++)
        if (fprintf(f, "          %d %d %d\n", m->tri[3 * t], m->tri[3 * t + 1], m->tri[3 * t + 2]) < 0)
            return 1;
    if (fputs("        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n", f) ==
        EOF)
        return 1;
    for (int t = 0; t < m->ntri; t++)
        if (fprintf(f, "          %d\n", 3 * (t + 1)) < 0)
            return 1;
    return fputs("        </DataArray>\n      </Polys>\n    </Piece>\n  </PolyData>\n</VTKFile>\n", f) == EOF;
}

int fl_vtp_write(const char *path, const fl_trimesh *m, double t, fl_error *err)
{
    if (path == NULL || m == NULL)
        return fl_fail(err, FL_ERR_INPUT, "VTP output: path or mesh is NULL");
    if (!isfinite(t))
        return fl_fail(err, FL_ERR_INPUT, "%s: time %g is not a finite number", path, t);
    if (!fl_trimesh_valid(m))
        return fl_fail(err, FL_ERR_INPUT, "%s: the mesh's arrays are missing or a triangle names a vertex it does not "
                       "have", path);
    const vtp_data d = {m, t};
    return fl_write_whole(path, write_vtp, &d, err);
}
