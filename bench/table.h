/* table.h: a numeric CSV file read whole (one header line of column
 * names, then rows of numbers): a run's stats.csv and convergence.csv, as
 * figures and validate read them. Only bench/ prints. */
#ifndef FL_TABLE_H
#define FL_TABLE_H

#define FL_TABLE_MAX_COLS 48

typedef struct fl_table {
    int rows, cols;
    char names[FL_TABLE_MAX_COLS][32];
    double *v; /* rows x cols */
} fl_table;

/* Loads the CSV file at path into *t (columns past FL_TABLE_MAX_COLS
 * left out; a field that is not a number reads as 0): 0 on success, 1 when
 * it cannot be read, has no header line or does not fit in memory (*t is
 * then empty). */
int fl_table_load(const char *path, fl_table *t);

/* The index of the column called name, or -1. */
int fl_table_col(const fl_table *t, const char *name);

/* The value of row r, column c. */
double fl_table_at(const fl_table *t, int r, int c);

void fl_table_free(fl_table *t);

#endif
