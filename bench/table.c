/* table.c: a numeric CSV file read whole (table.h). */
#define _POSIX_C_SOURCE 200809L
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fl_table_free(fl_table *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

int fl_table_load(const char *path, fl_table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    char line[4096];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 1;
    }
    line[strcspn(line, "\r\n")] = '\0';
    for (char *save = NULL, *p = strtok_r(line, ",", &save); p && t->cols < FL_TABLE_MAX_COLS;
         p = strtok_r(NULL, ",", &save))
        snprintf(t->names[t->cols++], sizeof t->names[0], "%s", p);
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (t->rows == cap) {
            cap = cap ? 2 * cap : 1024;
            double *v = realloc(t->v, sizeof(double) * (size_t)cap * (size_t)t->cols);
            if (!v) {
                fclose(f);
                fl_table_free(t);
                return 1;
            }
            t->v = v;
        }
        char *p = line;
        for (int c = 0; c < t->cols; c++) {
            char *end;
            t->v[(size_t)t->rows * (size_t)t->cols + (size_t)c] = strtod(p, &end);
            p = *end == ',' ? end + 1 : end;
        }
        t->rows++;
    }
    fclose(f);
    return 0;
}

int fl_table_col(const fl_table *t, const char *name)
{
    for (int c = 0; c < t->cols; c++)
        if (strcmp(t->names[c], name) == 0)
            return c;
    return -1;
}

double fl_table_at(const fl_table *t, int r, int c)
{
    return t->v[(size_t)r * (size_t)t->cols + (size_t)c];
}
